"""The words PostgreSQL full-text search indexes and queries, made here rather than by its
parser.

PostgreSQL's own parser reads `self.store` as a host name, `src/a.py` as a file path and
splits `get_user_by_id` at its underscores, so it would cut code differently from the SQLite
index and from the query parser. Instead both sides use `indexing.text`'s one definition of a
word in code, the same identifier splitting SQLite's `parts` column holds, lower-cased and
without diacritics (as SQLite's `remove_diacritics`): the tsvector and the tsquery are written
as literals of those words, so `user by id` finds `getUserById` on both backends. Words are
not stemmed (SQLite's porter stemmer has no twin here): `caching` does not find `cache`.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from indexing.lexical_query import LexicalQuery, term_phrases
from indexing.text import identifier_parts, path_terms, tokens

#: PostgreSQL refuses a lexeme of 2 KB or more; a token that long is not a word anyone types.
MAX_LEXEME_BYTES = 2046
#: The last position a tsvector records; later words share it.
MAX_POSITION = 16383
#: Positions skipped between weighted segments, so no phrase spans two of them.
_SEGMENT_GAP = 2


@lru_cache(maxsize=1 << 16)
def lexeme(token: str) -> str:
    """A word as both sides of the index spell it: lower case, diacritics dropped. Tokens are
    runs of word characters, so a lexeme never holds a quote or a backslash."""
    word = token.lower()
    if not word.isascii():
        word = unicodedata.normalize(
            "NFC", "".join(c for c in unicodedata.normalize("NFD", word)
                           if not unicodedata.combining(c)))
    return word


def _kept(words: list[str]) -> list[str]:
    return [w for w in (lexeme(t) for t in words) if w and len(w.encode()) <= MAX_LEXEME_BYTES]


def _words(text: str) -> list[str]:
    return _kept(tokens(text))


def document(names: str, path: str, context: str, body: str) -> str:
    """A chunk's tsvector as a literal: names and their identifier parts at weight A, the
    path (with the parts of its names) and the container at B, the body and its identifier
    parts at C."""
    segments = (
        ("A", _words(names) + _words(identifier_parts(names))),
        ("B", _words(path_terms(path)) + _words(context)),
        ("C", _words(body) + _words(identifier_parts(body))),
    )
    places: dict[str, list[str]] = {}
    position = 0
    for weight, words in segments:
        for word in words:
            position = min(position + 1, MAX_POSITION)
            places.setdefault(word, []).append(f"{position}{weight}")
        position = min(position + _SEGMENT_GAP, MAX_POSITION)
    # A lexeme keeps at most 256 positions; the rest add nothing to its rank.
    return " ".join(f"'{word}':{','.join(at[:256])}" for word, at in places.items())


def _phrase(words: list[str]) -> str:
    return " <-> ".join(f"'{w}'" for w in words)


def tsquery(query: LexicalQuery) -> str | None:
    """`query` as a tsquery literal: each term as its own words or the phrase of its
    identifier parts, all (`&`) or any (`|`); None when no term has a word to look for."""
    clauses: list[str] = []
    for term in query.terms:
        phrases = [_phrase(words) for words in map(_kept, term_phrases(term)) if words]
        if phrases:
            clauses.append("(" + " | ".join(dict.fromkeys(phrases)) + ")")
    if not clauses:
        return None
    return (" & " if query.op == "and" else " | ").join(clauses)

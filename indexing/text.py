"""Turning file bytes into text, and text into the words of code.

The one definition of "a word in code", shared by the FTS5 tokenizer, the indexer, the store,
the query parser and the symbol matcher: if the index splits `getUserById` or `getGrößeInPixel`
one way and the query another, nothing matches.

- A word character is a letter or digit of any script, or `_` (Python's Unicode `\\w`), or a
  combining diacritic (U+0300–U+036F, which decomposed text such as macOS file names puts
  after its letter). `FTS_TOKENIZER` cuts text at the same places: `unicode61` keeps letters,
  digits and diacritics in a token, `tokenchars '_'` adds the underscore. The two part ways
  only on characters code does not use for names (private-use code points, some Indic vowel
  signs that `unicode61` treats as separators, symbols newer than SQLite's Unicode tables);
  tests/unit/test_text.py checks that they agree on identifiers in many scripts.
- A token is a run of word characters (what FTS5 indexes as one term); an identifier is a
  token that does not start with a digit.
- An identifier's parts are its snake_case and camelCase pieces, lower-cased, with case read
  in every script: `getGrößeInPixel` is `get größe in pixel`, `maxДлина` is `max длина`.
  Scripts without case (`名前を取得`) are one part per run.

Everything has an ASCII fast path: on ASCII text the Unicode rules give the same answer, and
the ASCII regexes are about twice as fast on the indexer's hot path.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: How SQLite's FTS5 cuts indexed text into terms (see the module docstring): `porter` so
#: prose finds inflections, `remove_diacritics 2` so `café` and `cafe` are one term,
#: `tokenchars '_'` so snake_case stays one token and the exact identifier can outrank its
#: parts, which live in their own column.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"

#: A word character, as a regex character class (for patterns built elsewhere).
WORD_CHAR = r"[\w\u0300-\u036f]"
#: The first character of an identifier: a word character that is not a digit.
IDENTIFIER_START = r"[^\W\d]"
_TOKEN = re.compile(f"{WORD_CHAR}+")
_IDENT = re.compile(f"{IDENTIFIER_START}{WORD_CHAR}*")
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_ASCII_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


#: Scripts written without spaces between words (Thai, Lao, Khmer, Myanmar, Chinese,
#: Japanese kana and kanji): `unicode61` indexes a whole run as one term, so a word inside a run
#: is not a term of its own and only exact text finds it.
_UNSPACED = re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff"
                       "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def has_unspaced_words(text: str) -> bool:
    """Whether `text` holds letters of a script written without spaces between words."""
    return _UNSPACED.search(text) is not None


BOM = "\ufeff"


def decode(data: bytes) -> str:
    """A file's bytes as the text an editor shows, so that every line and column the index
    stores is the one a client counts.

    - UTF-8, with invalid bytes replaced: one bad byte never costs a file its index, and
      replacement never adds or drops a line end.
    - A leading byte-order mark is dropped: editors do not show it, and counting it shifted
      every column of the first line by one.
    - Line ends are made "\\n", the one that tree-sitter, the chunker and SQLite then count by:
      LSP ends a line at "\\r\\n", "\\r" or "\\n" alike, and a file of lone "\\r" was one
      line to tree-sitter, so every citation in it said line 1. Each end stays one character
      at the same place (a "\\r\\n" becomes one), so columns do not move.
    """
    text = data.decode("utf-8", errors="replace")
    if text.startswith(BOM):
        text = text[1:]
    return normal_line_ends(text)


def normal_line_ends(text: str) -> str:
    """`text` with every "\\r\\n" and lone "\\r" made "\\n" (see `decode`)."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def has_word(text: str) -> bool:
    """Whether `text` holds any word character (a query term of only punctuation has none)."""
    return (_ASCII_TOKEN if text.isascii() else _TOKEN).search(text) is not None


def findable_by_words(chunk_text: str) -> bool:
    """Whether a chunk goes into the lexical index (both stores). A chunk with no word in it
    (the `}` that closes a long class, a `> {` between a multi-line signature and its body)
    has nothing a term could match but its definition's names and its path, and as its
    definition's shortest chunk bm25 ranked it first for them: on @reduxjs/toolkit a search
    for the name of such a definition showed the brace, not the code, 36 times in 40."""
    return has_word(chunk_text)


def tokens(text: str) -> list[str]:
    """The runs of word characters in `text`, as FTS5 cuts them before folding case:
    `get_user(id)` is `get_user`, `id`."""
    return (_ASCII_TOKEN if text.isascii() else _TOKEN).findall(text)


def identifiers(text: str) -> list[str]:
    """The tokens of `text` that can be names: those not starting with a digit."""
    return (_ASCII_IDENT if text.isascii() else _IDENT).findall(text)


def split_identifier(word: str) -> list[str]:
    """`getUserById`, `get_user_by_id` and `GetUserByID` all become `get user by id`;
    `getGrößeInPixel` becomes `get größe in pixel`."""
    return list(_split(word))


@lru_cache(maxsize=1 << 16)
def _split(word: str) -> tuple[str, ...]:
    """Cached: a file's chunks repeat the same few hundred names thousands of times, and
    splitting them was a third of a large file's save."""
    parts: list[str] = []
    for piece in word.split("_"):
        if piece.isascii():
            parts.extend(m.group(0).lower() for m in _CAMEL.finditer(piece))
        else:
            shape = _case_shape(piece)
            parts.extend(piece[m.start() : m.end()].lower() for m in _CAMEL.finditer(shape))
    return tuple(parts)


def _case_shape(piece: str) -> str:
    """`piece` with each character replaced by its role in camelCase, in ASCII (`A` upper or
    title case, `a` lower case or caseless letter, `0` digit, `-` anything else), so the
    ASCII camelCase regex splits any script. A combining mark takes its letter's role."""
    shape: list[str] = []
    role = "-"
    for c in piece:
        if c.isupper() or c.istitle():
            role = "A"
        elif c.isalpha():
            role = "a"
        elif c.isnumeric():
            role = "0"
        elif not unicodedata.category(c).startswith("M"):
            role = "-"
        shape.append(role)
    return "".join(shape)


def token_parts(text: str) -> list[str]:
    """Every token of `text` split into its identifier parts; a token with no parts (`__`)
    counts as itself, lower-cased. How a query's words meet the index's."""
    out: list[str] = []
    for token in tokens(text):
        out.extend(split_identifier(token) or [token.lower()])
    return out


def words(text: str) -> str:
    """Every identifier and path piece of `text` as lower-case words, so a model that reads
    English sees `userStore/get_by_id` as `user store get by id`."""
    out: list[str] = []
    for name in identifiers(text):
        out.extend(split_identifier(name))
    return " ".join(out)


def identifier_parts(text: str) -> str:
    """The words inside every compound identifier of `text`, for the FTS column that lets
    `user by id` find `getUserById`. Identifiers that are already one word add nothing."""
    out: list[str] = []
    for name in identifiers(text):
        parts = _split(name)
        if len(parts) > 1:
            out.extend(parts)
    return " ".join(out)


def path_terms(path: str) -> str:
    """What the FTS `path` column holds for a path: its own tokens (FTS5 cuts at `/` and `.`
    itself) and the parts of its compound names, so `user_store.py` is found by `store`."""
    return f"{path} {identifier_parts(path)}"

"""A lexical query as every store takes it: the user's terms, all of them or any, or a raw
expression in one store's own syntax.

Search decides what to ask (`search.query`); each store decides how to say it in its engine
(FTS5 here, a tsquery in `indexing.postgres.lexemes`). Keeping the request free of any
engine's syntax is what lets SQLite and PostgreSQL answer the same query the same way: each
term matches as itself or as the phrase of its identifier parts, so `getUserById` finds
`get_user_by_id` and text that says `get user by id` on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from indexing.text import token_parts, tokens


@dataclass(frozen=True, slots=True)
class LexicalQuery:
    """`terms` joined by `op`; or, when `raw` is set, an expression in the syntax the store
    names in its capabilities (`raw_syntax`), passed through untouched."""

    terms: tuple[str, ...] = ()
    op: Literal["and", "or"] = "and"
    raw: str | None = None

    @classmethod
    def all_of(cls, terms: tuple[str, ...]) -> LexicalQuery:
        return cls(terms, "and")

    @classmethod
    def any_of(cls, terms: tuple[str, ...]) -> LexicalQuery:
        return cls(terms, "or")

    @classmethod
    def raw_expression(cls, expr: str) -> LexicalQuery:
        return cls(raw=expr)


def term_phrases(term: str) -> list[list[str]]:
    """The ways one term can match, each a phrase of lower-case words: the term's own tokens,
    and (when it is a compound identifier) its identifier parts."""
    own = [t.lower() for t in tokens(term)]
    parts = token_parts(term)
    phrases = [own] if own else []
    if len(parts) > 1 and parts != own:
        phrases.append(parts)
    return phrases


def _fts5_quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def fts5_phrases(term: str) -> list[str]:
    """The FTS5 phrases one user term matches as, in a fixed order: the token itself, and the
    phrase of its identifier parts, so `getUserById` matches itself and `get_user_by_id` and
    text that says `get user by id`."""
    clauses = {_fts5_quote(term)}
    parts = token_parts(term)
    if len(parts) > 1:
        clauses.add(_fts5_quote(" ".join(parts)))
    return sorted(clauses)


def fts5_term(term: str) -> str:
    """One user term as FTS5: any of its phrases (`fts5_phrases`)."""
    phrases = fts5_phrases(term)
    return phrases[0] if len(phrases) == 1 else "(" + " OR ".join(phrases) + ")"


def fts5_expression(query: LexicalQuery) -> str:
    """`query` in SQLite FTS5 syntax; every user term quoted, so no character of it is an
    operator."""
    if query.raw is not None:
        return query.raw
    joiner = " AND " if query.op == "and" else " OR "
    return joiner.join(fts5_term(t) for t in query.terms)

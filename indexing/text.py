"""Turning file bytes into text, and identifiers into words.

Kept apart so the indexer, the store and the query parser share one definition of "a word in
code": if the index splits `getUserById` one way and the query another, nothing matches.
"""

from __future__ import annotations

import re

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def decode(data: bytes) -> str:
    """Decode as UTF-8, replacing invalid bytes, so one bad byte never costs a file its index
    and line numbers stay those of the bytes on disk (replacement never adds or drops a
    newline)."""
    return data.decode("utf-8", errors="replace")


def split_identifier(word: str) -> list[str]:
    """`getUserById`, `get_user_by_id` and `GetUserByID` all become `get user by id`."""
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(m.group(0).lower() for m in _CAMEL.finditer(piece))
    return parts


def words(text: str) -> str:
    """Every identifier and path piece of `text` as lower-case words, so a model that reads
    English sees `userStore/get_by_id` as `user store get by id`."""
    out: list[str] = []
    for match in _IDENT.finditer(text):
        out.extend(split_identifier(match.group(0)))
    return " ".join(out)


def identifier_parts(text: str) -> str:
    """The words inside every compound identifier of `text`, for the FTS column that lets
    `user by id` find `getUserById`. Identifiers that are already one word add nothing."""
    out: list[str] = []
    for match in _IDENT.finditer(text):
        parts = split_identifier(match.group(0))
        if len(parts) > 1:
            out.extend(parts)
    return " ".join(out)

"""The compiled tree-sitter objects for a language: its grammar, a parser, its definition
query.

Every grammar comes from one package, `tree-sitter-language-pack` (0.13, which bundles them
as compiled libraries: nothing is fetched at run time; its 1.x releases download grammars on
first use and fail offline). `Parser` is not thread-safe and `Query` compilation is the
expensive part, so parsers and queries are cached per thread; `Language` objects are
immutable and shared by the process.
"""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

from tree_sitter import Language, Parser, Query, Tree

from indexing.language_rules import own_query_source
from indexing.languages import grammar_name


@cache
def get_language(lang: str) -> Language:
    """The grammar of `lang` from the language pack (loaded once per process). Imported here:
    a command that only searches never parses."""
    import tree_sitter_language_pack as pack

    name: Any = grammar_name(lang)  # the pack types its names as a Literal of all of them
    return Language(pack.get_binding(name))


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.parsers: dict[str, Parser] = {}
        self.queries: dict[str, Query] = {}


_local = _PerThread()


def get_parser(lang: str) -> Parser:
    """This thread's parser for `lang`."""
    parser = _local.parsers.get(lang)
    if parser is None:
        parser = Parser(get_language(lang))
        _local.parsers[lang] = parser
    return parser


def get_query(lang: str) -> Query:
    """This thread's compiled definition query for `lang` (compiled once per thread)."""
    compiled = _local.queries.get(lang)
    if compiled is None:
        compiled = Query(get_language(lang), own_query_source(lang))
        _local.queries[lang] = compiled
    return compiled



def parse(lang: str, data: bytes, parser: Parser | None = None) -> Tree:
    """`data` parsed with `lang`'s grammar (or `parser`, set up by the caller).

    No time budget here: tree-sitter's progress callback needs the callback form of `parse`,
    and nodes of a tree parsed that way crash the process when asked for their text
    (py-tree-sitter 0.26); nor would it stop a scanner that loops. Deadlines are enforced
    around the whole extraction, in worker processes (`indexing.workers`)."""
    return (parser or get_parser(lang)).parse(data)

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
import time
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


#: CPU seconds (of the parsing thread) one file's parse may take. Code parses at about a
#: microsecond a byte, so a 1 MiB file in about a second; error recovery on junk is far
#: slower (1 MB of random bytes: 20 s in the Go grammar). Past the limit the parse is given
#: up and the caller indexes the file as plain text.
PARSE_CPU_SECONDS = 5.0
_READ_BYTES = 1 << 16


class ParseTimeout(Exception):
    """A parse took longer than `PARSE_CPU_SECONDS`."""


def parse(lang: str, data: bytes, parser: Parser | None = None) -> Tree:
    """`data` parsed with `lang`'s grammar (or `parser`, set up by the caller), within
    `PARSE_CPU_SECONDS` of this thread's CPU time.

    The limit needs tree-sitter's progress callback, which only a parse that reads through a
    callback gets. It stops error recovery that runs long, not a scanner that loops without
    reporting progress (COBOL's on 'x'): that, and a grammar that crashes, are ended by the
    deadlines around the whole extraction in worker processes (`indexing.workers`)."""
    started = time.thread_time()

    def read(offset: int, _point: object) -> bytes:
        return data[offset : offset + _READ_BYTES]

    def give_up(_offset: int, _has_error: bool) -> bool:
        return time.thread_time() - started > PARSE_CPU_SECONDS

    parser = parser or get_parser(lang)
    try:
        timed = parser.parse(read, progress_callback=give_up)
    except ValueError as exc:  # "Parsing failed": given up
        # A parser that gave up resumes that parse on its next call unless reset: the next
        # file would be read as the rest of this one.
        parser.reset()
        raise ParseTimeout(f"parsing took over {PARSE_CPU_SECONDS:g} s of CPU") from exc
    # A node of a tree parsed through a callback can crash the process when asked for its
    # text (py-tree-sitter 0.26). Parsed again from the bytes, with that tree as the old one,
    # every node is reused (a twentieth of a parse) and the tree holds its text.
    return parser.parse(data, timed)

"""Stored rows as values: the SQL that selects a chunk or a symbol with what cites it, and
the decoding of those rows, shared by every query that returns them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from indexing.classify import in_test_module
from indexing.records import Span, Symbol, SymbolKind


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk joined with its file and (optional) symbol: all a hit needs to cite itself."""

    rowid: int
    chunk_id: str
    path: str
    lang: str
    chunk_kind: str
    start_line: int
    end_line: int
    context: str
    #: None when the query did not ask for it: search reads the text of its hits only
    #: (`Retrieval.with_texts`), as cutting it out of a compressed file is the costly part.
    text: str | None
    text_hash: str
    is_test: bool
    is_generated: bool
    symbol: Symbol | None
    start_col: int = 0  # UTF-16 column of the text on `start_line` (`Chunk.start_col`)
    rank: float = 0.0  # raw bm25 when it came from FTS; never sent to clients
    file_rowid: int = 0  # what stable handles are made of (`search.handles`)
    file_hash: str = ""
    symbol_ord: int | None = None


@dataclass(frozen=True, slots=True)
class SymbolRow:
    id: int
    path: str
    #: In a test file, or one of a file's own tests (a Rust `mod tests`): workspace/symbol
    #: lists it after the code of the same name, as search's test priors weigh it.
    is_test: bool
    symbol: Symbol


CHUNK_TEXT = "chunk_text(c.text, c.file_id, f.hash, c.start_line, c.end_line)"
#: Every column of a chunk row but its text (NULL in its place): what search ranks with.
CHUNK_COLUMNS_NO_TEXT = """
    c.id, c.chunk_id, f.path, f.lang, c.kind, c.start_line, c.end_line, c.context,
    NULL, c.text_hash, f.is_test, f.is_generated,
    s.name, s.kind, s.container, s.qualified_name,
    s.start_line, s.start_col, s.end_line, s.end_col,
    s.sel_start_line, s.sel_start_col, s.sel_end_line, s.sel_end_col, s.signature, s.doc,
    s.bodiless, c.start_col, f.id, f.hash, s.ord
"""
CHUNK_COLUMNS = CHUNK_COLUMNS_NO_TEXT.replace("NULL,", f"{CHUNK_TEXT},", 1)
CHUNK_FROM = """
    FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id
"""
#: Where a definition's name is (its selection): what a hit that holds it cites.
NAME_SPAN_COLUMNS = "s.sel_start_line, s.sel_start_col, s.sel_end_line, s.sel_end_col"
SYMBOL_COLUMNS = """
    s.name, s.kind, s.container, s.qualified_name,
    s.start_line, s.start_col, s.end_line, s.end_col,
    s.sel_start_line, s.sel_start_col, s.sel_end_line, s.sel_end_col, s.signature, s.doc,
    s.bodiless
"""


def symbol_from(row: Sequence[Any]) -> Symbol:
    return Symbol(
        name=row[0],
        kind=SymbolKind(row[1]),
        container=row[2],
        qualified_name=row[3],
        range=Span(row[4], row[5], row[6], row[7]),
        selection=Span(row[8], row[9], row[10], row[11]),
        signature=row[12],
        doc=row[13],
        bodiless=bool(row[14]),
    )


#: What `symbol_row` decodes, from `symbols s JOIN files f`.
SYMBOL_ROW_COLUMNS = f"s.id, f.path, f.is_test, f.lang, {SYMBOL_COLUMNS}"


def symbol_row(row: Sequence[Any]) -> SymbolRow:
    sym = symbol_from(row[4:])
    test = bool(row[2]) or in_test_module(row[3], sym.qualified_name, sym.kind,
                                          sym.signature)
    return SymbolRow(row[0], row[1], test, sym)


def chunk_from(row: Sequence[Any], rank: float = 0.0) -> ChunkRow:
    return ChunkRow(
        rowid=row[0],
        chunk_id=row[1],
        path=row[2],
        lang=row[3],
        chunk_kind=row[4],
        start_line=row[5],
        end_line=row[6],
        context=row[7],
        text=row[8],
        text_hash=row[9],
        is_test=bool(row[10]),
        is_generated=bool(row[11]),
        symbol=symbol_from(row[12:27]) if row[12] is not None else None,
        start_col=row[27],
        rank=rank,
        file_rowid=row[28],
        file_hash=row[29],
        symbol_ord=row[30],
    )

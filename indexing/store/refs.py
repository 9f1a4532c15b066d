"""Refs in the store, and the lookups that stable handles resolve through.

A file's refs are written with its other rows (inside `Writes.write_file`) and deleted with
them, so they are exactly as current as its symbols and chunks. Reads: the refs of a name
(cheap keys for all of them, full rows only for the ones an answer shows), counts by kind,
and a file, symbol or chunk by the parts of its handle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from indexing.filters import Filters
from indexing.records import Ref, RefKind, Span, Symbol
from indexing.store.connection import StoreConnection
from indexing.store.retrieval import _filter_sql
from indexing.store.rows import (
    CHUNK_COLUMNS,
    CHUNK_FROM,
    SYMBOL_COLUMNS,
    ChunkRow,
    chunk_from,
    symbol_from,
)

#: Rank of a ref kind in a usage answer: imports and calls before bare mentions, strings last.
KIND_RANK: dict[str, int] = {RefKind.CALL: 0, RefKind.IMPORT: 0, RefKind.IDENTIFIER: 1,
                             RefKind.STRING: 2}


def insert_refs(conn: Any, file_id: int, refs: Sequence[Ref], symbol_ids: Sequence[int]) -> None:
    conn.executemany(
        "INSERT INTO refs(file_id, symbol_id, name, kind, receiver, start_line, start_col, "
        "end_line, end_col) VALUES (?,?,?,?,?,?,?,?,?)",
        [(file_id, symbol_ids[r.symbol] if r.symbol is not None else None, r.name,
          r.kind, r.receiver, r.start_line, r.start_col, r.end_line, r.end_col)
         for r in refs])


@dataclass(frozen=True, slots=True)
class RefKey:
    """What ordering a usage answer needs, for every matching ref."""

    rowid: int
    path: str
    kind: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class RefRow:
    """A ref with its file, enclosing definition and the smallest chunk around it."""

    rowid: int
    path: str
    lang: str
    name: str
    kind: str
    receiver: str | None
    span: Span
    file_rowid: int
    file_hash: str
    symbol: Symbol | None
    symbol_ord: int | None
    chunk_id: str | None


@dataclass(frozen=True, slots=True)
class FileRow:
    rowid: int
    path: str
    hash: str
    lang: str


class Refs(StoreConnection):
    def ref_keys(self, name: str, filters: Filters, kinds: Sequence[str] = ()) -> list[RefKey]:
        """Every ref of `name` (exact, case-sensitive), in no particular order."""
        where, args = _filter_sql(filters)
        if kinds:
            where += f" AND r.kind IN ({','.join('?' * len(kinds))})"
            args.extend(kinds)
        return [RefKey(*r) for r in self.conn.execute(
            "SELECT r.rowid, f.path, r.kind, r.start_line, r.start_col FROM refs r "
            "JOIN files f ON f.id = r.file_id LEFT JOIN symbols s ON s.id = r.symbol_id "
            f"WHERE r.name = ?{where}", (name, *args))]

    def refs_by_rowid(self, rowids: Sequence[int]) -> dict[int, RefRow]:
        out: dict[int, RefRow] = {}
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            for r in self.conn.execute(
                    "SELECT r.rowid, f.path, f.lang, r.name, r.kind, r.receiver, r.start_line, "
                    "r.start_col, r.end_line, r.end_col, f.id, f.hash, s.ord, "
                    "(SELECT c.chunk_id FROM chunks c WHERE c.file_id = r.file_id AND "
                    "c.start_line <= r.start_line AND c.end_line >= r.start_line "
                    "ORDER BY c.end_line - c.start_line, c.start_line LIMIT 1), "
                    f"{SYMBOL_COLUMNS} FROM refs r JOIN files f ON f.id = r.file_id "
                    "LEFT JOIN symbols s ON s.id = r.symbol_id "
                    f"WHERE r.rowid IN ({','.join('?' * len(part))})", part):
                out[r[0]] = RefRow(
                    rowid=r[0], path=r[1], lang=r[2], name=r[3], kind=r[4], receiver=r[5],
                    span=Span(r[6], r[7], r[8], r[9]), file_rowid=r[10], file_hash=r[11],
                    symbol_ord=r[12], chunk_id=r[13],
                    symbol=symbol_from(r[14:]) if r[14] is not None else None)
        return out

    def ref_counts(self, name: str) -> dict[str, int]:
        """How many refs of `name` there are, by kind."""
        return {r[0]: r[1] for r in self.conn.execute(
            "SELECT kind, count(*) FROM refs WHERE name = ? GROUP BY kind ORDER BY kind",
            (name,))}

    # -- what handles resolve through ------------------------------------------------------------

    def file_by_rowid(self, rowid: int) -> FileRow | None:
        r = self.conn.execute("SELECT id, path, hash, lang FROM files WHERE id = ?",
                              (rowid,)).fetchone()
        return FileRow(*r) if r else None

    def file_by_path(self, path: str) -> FileRow | None:
        r = self.conn.execute("SELECT id, path, hash, lang FROM files WHERE path = ?",
                              (path,)).fetchone()
        return FileRow(*r) if r else None

    def symbol_by_ord(self, file_rowid: int, ord_: int) -> Symbol | None:
        r = self.conn.execute(f"SELECT {SYMBOL_COLUMNS} FROM symbols s WHERE s.file_id = ? "
                              "AND s.ord = ?", (file_rowid, ord_)).fetchone()
        return symbol_from(r) if r else None

    def symbols_of_file(self, file_rowid: int) -> list[tuple[int, Symbol]]:
        """(ord, symbol) of every definition in a file, in position order."""
        return [(r[0], symbol_from(r[1:])) for r in self.conn.execute(
            f"SELECT s.ord, {SYMBOL_COLUMNS} FROM symbols s WHERE s.file_id = ? ORDER BY s.ord",
            (file_rowid,))]

    def chunks_of_file(self, file_rowid: int) -> list[ChunkRow]:
        """A file's chunks in line order."""
        return [chunk_from(r) for r in self.conn.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.file_id = ? "
            "ORDER BY c.start_line, c.end_line, c.chunk_id", (file_rowid,))]

    def chunk_of_symbol(self, file_rowid: int, ord_: int) -> ChunkRow | None:
        """The first chunk of a definition."""
        r = self.conn.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.file_id = ? AND s.ord = ? "
            "ORDER BY c.start_line LIMIT 1", (file_rowid, ord_)).fetchone()
        return chunk_from(r) if r else None

    def file_text_of(self, file_rowid: int) -> str | None:
        r = self.conn.execute("SELECT unpack(text) FROM file_text WHERE file_id = ?",
                              (file_rowid,)).fetchone()
        return str(r[0]) if r else None

    def name_at(self, path: str, line: int, col: int) -> str | None:
        """The name used or defined at a position of a file (its end counts: a cursor just
        after a word is on it), or None."""
        found = self.conn.execute(
            "SELECT r.name FROM refs r JOIN files f ON f.id = r.file_id WHERE f.path = ? AND "
            "r.kind != 'string' AND r.start_line = ? AND r.start_col <= ? AND r.end_col >= ? "
            "ORDER BY r.start_col DESC LIMIT 1", (path, line, col, col)).fetchone()
        if found is None:
            found = self.conn.execute(
                "SELECT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? "
                "AND s.sel_start_line = ? AND s.sel_start_col <= ? AND s.sel_end_col >= ? "
                "ORDER BY s.sel_start_col DESC LIMIT 1", (path, line, col, col)).fetchone()
        return str(found[0]) if found else None

    def definitions_named(self, name: str) -> list[tuple[str, Symbol]]:
        """(path, symbol) of every definition of `name`, in path order."""
        return [(r[0], symbol_from(r[1:])) for r in self.conn.execute(
            f"SELECT f.path, {SYMBOL_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id "
            "WHERE s.name = ? ORDER BY f.path, s.ord", (name,))]

    def imports_of(self, file_rowid: int, limit: int = 100) -> list[str]:
        """The names a file imports, first occurrence first."""
        names = [str(r[0]) for r in self.conn.execute(
            "SELECT name FROM refs WHERE file_id = ? AND kind = 'import' "
            "ORDER BY start_line, start_col", (file_rowid,))]
        return list(dict.fromkeys(names))[:limit]

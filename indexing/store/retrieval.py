"""The read API search uses: ranked FTS5 matches, exact text, chunks by id or position, and
definitions for the symbol matcher. Filters run in SQL before any LIMIT, and every order is
total (ties by path, line, chunk id), so the same index and query give the same answer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import apsw

from indexing.filters import Filters
from indexing.schema import FTS_WEIGHTS
from indexing.store.connection import StoreConnection, StoreError
from indexing.store.rows import (
    CHUNK_COLUMNS,
    CHUNK_FROM,
    SYMBOL_COLUMNS,
    ChunkRow,
    SymbolRow,
    chunk_from,
    symbol_from,
)


class QuerySyntaxError(StoreError):
    """An FTS5 expression SQLite refused; the message is SQLite's own."""


def _filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """`filters` as SQL, applied before any LIMIT (the path glob through SQLite's REGEXP)."""
    clauses: list[str] = []
    args: list[Any] = []
    if filters.langs:
        clauses.append(f"f.lang IN ({','.join('?' * len(filters.langs))})")
        args.extend(filters.langs)
    if filters.kinds:
        clauses.append(f"s.kind IN ({','.join('?' * len(filters.kinds))})")
        args.extend(filters.kinds)
    path_regex = filters.path_regex
    if path_regex:
        clauses.append("f.path REGEXP ?")
        args.append(path_regex)
    return "".join(f" AND {c}" for c in clauses), args


class Retrieval(StoreConnection):
    def match_chunks(
        self, expr: str, filters: Filters, limit: int, exclude: Iterable[int] = ()
    ) -> list[ChunkRow]:
        """Chunks matching an FTS5 expression, best bm25 first; ties by path, line, chunk id
        so the same index and query always give the same order."""
        excluded = set(exclude)
        try:
            if filters == Filters():
                return self._match_unfiltered(expr, limit, excluded)
            return self._match_filtered(expr, filters, limit, excluded)
        except apsw.SQLError as exc:
            raise QuerySyntaxError(str(exc)) from exc

    def _match_unfiltered(self, expr: str, limit: int, excluded: set[int]) -> list[ChunkRow]:
        """Rank inside FTS5 alone, then join only the winners: joining every match first
        costs four times as much on broad queries. Rows tied with the last one kept are all
        fetched, so the tie-break by path and line sees every candidate."""
        rank_sql = f"bm25(chunks_fts, {', '.join(str(w) for w in FTS_WEIGHTS)})"
        want = limit + len(excluded) + 1
        ranked = self.conn.execute(
            f"SELECT rowid, {rank_sql} AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY r LIMIT ?", (expr, want)).fetchall()
        ranked = [(rid, r) for rid, r in ranked if rid not in excluded]
        if len(ranked) > limit and ranked[limit - 1][1] == ranked[limit][1]:
            boundary = ranked[limit - 1][1]
            ranked = [(rid, r) for rid, r in self.conn.execute(
                f"SELECT rowid, {rank_sql} AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
                f"AND {rank_sql} <= ? ORDER BY r", (expr, boundary)) if rid not in excluded]
        rank_of = dict(ranked)
        rows: list[ChunkRow] = []
        ids = list(rank_of)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows.extend(chunk_from(r, rank=rank_of[r[0]]) for r in self.conn.execute(
                f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.id IN "
                f"({','.join('?' * len(part))})", part))
        rows.sort(key=lambda c: (c.rank, c.path, c.start_line, c.chunk_id))
        return rows[:limit]

    def _match_filtered(
        self, expr: str, filters: Filters, limit: int, excluded: set[int]
    ) -> list[ChunkRow]:
        where, args = _filter_sql(filters)
        if excluded:
            where += f" AND c.id NOT IN ({','.join('?' * len(excluded))})"
            args.extend(sorted(excluded))
        weights = ", ".join(str(w) for w in FTS_WEIGHTS)
        sql = (
            f"WITH m AS (SELECT rowid AS id, bm25(chunks_fts, {weights}) AS r FROM chunks_fts "
            f"WHERE chunks_fts MATCH ?) "
            f"SELECT {CHUNK_COLUMNS}, m.r FROM m JOIN chunks c ON c.id = m.id "
            f"JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
            f"WHERE 1{where} ORDER BY m.r, f.path, c.start_line, c.chunk_id LIMIT ?"
        )
        rows = self.conn.execute(sql, (expr, *args, limit)).fetchall()
        return [chunk_from(r, rank=r[-1]) for r in rows]

    def count_matches(self, expr: str, filters: Filters) -> int:
        try:
            if filters == Filters():
                return int(self.conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (expr,)
                ).fetchone()[0])
            where, args = _filter_sql(filters)
            sql = (
                "SELECT count(*) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                "JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
                f"WHERE chunks_fts MATCH ?{where}"
            )
            return int(self.conn.execute(sql, (expr, *args)).fetchone()[0])
        except apsw.SQLError as exc:
            raise QuerySyntaxError(str(exc)) from exc

    def files_containing(
        self, needle: str, filters: Filters
    ) -> list[tuple[str, str, str]]:
        """(path, lang, text) of every file whose text contains `needle` exactly.

        The trigram index narrows candidates; `instr` confirms, so recall equals grep's. A
        needle under three characters has no trigram and falls back to a scan.
        """
        where, args = _filter_sql(replace(filters, kinds=()))
        if len(needle) >= 3:
            phrase = '"' + needle.replace('"', '""') + '"'
            sql = (
                "SELECT f.path, f.lang, t.text FROM text_trigram JOIN file_text t "
                "ON t.file_id = text_trigram.rowid JOIN files f ON f.id = t.file_id "
                f"WHERE text_trigram MATCH ? AND instr(t.text, ?) > 0{where} ORDER BY f.path"
            )
            params: tuple[Any, ...] = (phrase, needle, *args)
        else:
            sql = (
                "SELECT f.path, f.lang, t.text FROM file_text t JOIN files f ON f.id = t.file_id "
                f"WHERE instr(t.text, ?) > 0{where} ORDER BY f.path"
            )
            params = (needle, *args)
        return [(r[0], r[1], r[2]) for r in self.conn.execute(sql, params)]

    def chunks_at(self, path: str, line: int) -> list[ChunkRow]:
        """Chunks of `path` covering `line`, smallest first: the tightest citation."""
        rows = self.conn.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE f.path=? AND c.start_line<=? "
            "AND c.end_line>=? ORDER BY c.end_line - c.start_line, c.start_line, c.chunk_id",
            (path, line, line),
        ).fetchall()
        return [chunk_from(r) for r in rows]

    def chunks_by_ids(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRow]:
        out: dict[str, ChunkRow] = {}
        for start in range(0, len(chunk_ids), 500):
            part = list(chunk_ids[start : start + 500])
            rows = self.conn.execute(
                f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.chunk_id IN "
                f"({','.join('?' * len(part))})",
                part,
            ).fetchall()
            out.update((r[1], chunk_from(r)) for r in rows)
        return out

    def all_symbols(self) -> list[SymbolRow]:
        """Every definition, for the in-memory workspace-symbol matcher."""
        rows = self.conn.execute(
            f"SELECT s.id, f.path, f.is_test, {SYMBOL_COLUMNS} FROM symbols s "
            "JOIN files f ON f.id = s.file_id ORDER BY f.path, s.ord"
        ).fetchall()
        return [SymbolRow(r[0], r[1], bool(r[2]), symbol_from(r[3:])) for r in rows]

    def symbols_in(self, paths: Iterable[str]) -> list[SymbolRow]:
        wanted = sorted(set(paths))
        out: list[SymbolRow] = []
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            out.extend(SymbolRow(r[0], r[1], bool(r[2]), symbol_from(r[3:])) for r in
                       self.conn.execute(
                           f"SELECT s.id, f.path, f.is_test, {SYMBOL_COLUMNS} FROM symbols s "
                           "JOIN files f ON f.id = s.file_id WHERE f.path IN "
                           f"({','.join('?' * len(part))}) ORDER BY f.path, s.ord", part))
        return out

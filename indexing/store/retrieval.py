"""The read API search uses: ranked FTS5 matches, exact text, chunks by id or position, and
definitions for the symbol matcher. Filters run in SQL before any LIMIT, and every order is
total (ties by path, line, chunk id), so the same index and query give the same answer."""

from __future__ import annotations

import bisect
import json
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import apsw

from indexing.filters import Filters
from indexing.lexical_query import LexicalQuery, fts5_expression
from indexing.records import Symbol
from indexing.schema import FTS_WEIGHTS
from indexing.store import max_score, split_rank
from indexing.store.connection import StoreConnection, StoreError
from indexing.store.rows import (
    CHUNK_COLUMNS_NO_TEXT,
    CHUNK_FROM,
    CHUNK_TEXT,
    SYMBOL_COLUMNS,
    SYMBOL_ROW_COLUMNS,
    ChunkRow,
    SymbolRow,
    chunk_from,
    symbol_from,
    symbol_row,
)

#: Trigrams of a needle that narrow an exact-text search: enough to leave few candidates, as
#: each costs inflating its file (Django's 5,400 files, 36 lines of code as needles: 16
#: trigrams leave p95 102 candidate files, 64 leave 31; the match itself takes p50 1.8 ms
#: either way), few enough that a 10,000-character needle costs what a short one does.
MAX_EXACT_TRIGRAMS = 64


def exact_trigrams(needle: str) -> list[str]:
    """Up to `MAX_EXACT_TRIGRAMS` distinct trigrams of `needle`, spread over its length
    (a needle's start and end are often its most common parts); empty under 3 characters."""
    distinct = list(dict.fromkeys(needle[i : i + 3] for i in range(len(needle) - 2)))
    if len(distinct) <= MAX_EXACT_TRIGRAMS:
        return distinct
    step = len(distinct) / MAX_EXACT_TRIGRAMS
    return [distinct[int(i * step)] for i in range(MAX_EXACT_TRIGRAMS)]


#: What a store's long read (here, and on a team index) calls between its batches with
#: (what, rows done, rows in all): it returns to go on, or raises to stop the read there. A
#: store names no exception of its caller's: search passes a checkpoint that raises its own
#: `Cancelled`, whose message then says how far the read got, so a request given up on stops
#: inside the read rather than after it.
Checkpoint = Callable[[str, int, int], None]

#: Rows a long read takes between two checkpoints: on a 5,000-file tree, reading every file's
#: text for exact search takes about 0.1 s, so 500 of them are about 10 ms of work that a
#: cancelled request still does; fewer would cost a statement per few files for nothing.
EXACT_BATCH = 500


def go_on(what: str, done: int, total: int) -> None:
    """The checkpoint of a caller that never gives up (the command line, evaluation)."""


_RANK_SQL = f"bm25(chunks_fts, {', '.join(str(w) for w in FTS_WEIGHTS)})"
_BEST = (f"SELECT rowid, {_RANK_SQL} AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
         "ORDER BY r LIMIT ?")
_BEST_IN = (f"SELECT rowid, {_RANK_SQL} AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
            "AND rowid >= ? AND rowid < ? ORDER BY r LIMIT ?")
#: Above any rowid: the upper half's end.
_NO_END = 1 << 62


class QuerySyntaxError(StoreError):
    """An FTS5 expression SQLite refused; the message is SQLite's own."""


def _filter_sql(filters: Filters, holders: str | None = None) -> tuple[str, list[Any]]:
    """`filters` as SQL, applied before any LIMIT (the path glob through SQLite's REGEXP).

    A kind filter keeps a chunk whose own definition is of those kinds, and a chunk that
    holds a definition of those kinds which has no chunk of its own (a constant, field,
    property, variable, enum member or one-line member: its name's line is among the
    chunk's lines), else none of those could ever be found by kind. `holders` is the JSON
    array of the second set's chunk rowids (`Retrieval._holders`), which a caller with a
    kind filter must give; the kind filter needs the `c` (chunks) and `s` (the chunk's own
    symbol) aliases."""
    clauses: list[str] = []
    args: list[Any] = []
    if filters.langs:
        clauses.append(f"f.lang IN ({','.join('?' * len(filters.langs))})")
        args.extend(filters.langs)
    if filters.kinds:
        if holders is None:
            raise ValueError("a kind filter needs the chunks that hold definitions of its "
                             "kinds (Retrieval._where)")
        clauses.append(f"(s.kind IN ({','.join('?' * len(filters.kinds))}) "
                       "OR c.id IN (SELECT value FROM json_each(?)))")
        args.extend(filters.kinds)
        args.append(holders)
    path_regex = filters.path_regex
    if path_regex:
        clauses.append("f.path REGEXP ?")
        args.append(path_regex)
    if filters.only_paths is not None:
        clauses.append(f"f.path IN ({','.join('?' * len(filters.only_paths))})"
                       if filters.only_paths else "0")
        args.extend(sorted(filters.only_paths))
    if filters.skip_paths:
        clauses.append(f"f.path NOT IN ({','.join('?' * len(filters.skip_paths))})")
        args.extend(sorted(filters.skip_paths))
    return "".join(f" AND {c}" for c in clauses), args


#: Holder sets (`Retrieval._holders`) kept, each for one state of the index and one set of
#: kinds: a search and its count, and the next searches until a write, share one.
HOLDERS_KEPT = 8

class Retrieval(StoreConnection):
    def __init__(self, index_dir: Path) -> None:
        self._rank_splitter = split_rank.RankSplitter()  # before opening: a rebuild closes
        self._term_counts = max_score.TermCounts()
        self._held: dict[tuple[tuple[int, str | None], tuple[str, ...]], str] = {}
        self._held_lock = threading.Lock()
        super().__init__(index_dir)

    def close(self) -> None:
        self._rank_splitter.stop()
        super().close()

    def match_chunks(
        self, query: LexicalQuery, filters: Filters, limit: int, exclude: Iterable[int] = ()
    ) -> list[ChunkRow]:
        """Chunks matching `query` (as FTS5), best bm25 first; ties by path, line, chunk id
        so the same index and query always give the same order."""
        excluded = set(exclude)
        try:
            if filters == Filters():
                return self._match_unfiltered(query, limit, excluded)
            return self._match_filtered(fts5_expression(query), filters, limit, excluded)
        except apsw.SQLError as exc:
            raise QuerySyntaxError(str(exc)) from exc

    def _match_unfiltered(self, query: LexicalQuery, limit: int, excluded: set[int]
                          ) -> list[ChunkRow]:
        with self.reading():
            return self._match_unfiltered_read(query, limit, excluded)

    def _match_unfiltered_read(self, query: LexicalQuery, limit: int, excluded: set[int]
                               ) -> list[ChunkRow]:
        """Rank inside FTS5 alone, then join only the winners: joining every match first
        costs four times as much on broad queries. Rows tied with the last one kept are all
        fetched, so the tie-break by path and line sees every candidate. Both reads see one
        state of the index (`reading`), so a match without its chunk is damage, not a write
        that landed in between."""
        expr, first, read = self._best_matches(query, limit + len(excluded) + 1)
        ranked = [(rid, r) for rid, r in first if rid not in excluded]
        if len(ranked) > limit:
            boundary = ranked[limit - 1][1]
            if len(first) == read and first[-1][1] == boundary:  # the tie runs past the read
                ranked = [(rid, r) for rid, r in self.conn.execute(
                    f"SELECT rowid, {_RANK_SQL} AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
                    f"AND {_RANK_SQL} <= ? ORDER BY r", (expr, boundary)) if rid not in excluded]
            else:
                ranked = [(rid, r) for rid, r in ranked if r <= boundary]
        rank_of = dict(ranked)
        rows: list[ChunkRow] = []
        ids = list(rank_of)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows.extend(chunk_from(r, rank=rank_of[r[0]]) for r in self.conn.execute(
                f"SELECT {CHUNK_COLUMNS_NO_TEXT} {CHUNK_FROM} WHERE c.id IN "
                f"({','.join('?' * len(part))})", part))
        if len(rows) < len(ids):
            # Both tables change in one transaction, so a match without its chunk is a table
            # SQLite reads without error but no longer holds all its rows.
            raise self.damaged_read(f"{len(ids) - len(rows)} full-text match(es) have no chunk")
        rows.sort(key=lambda c: (c.rank, c.path, c.start_line, c.chunk_id))
        return rows[:limit]

    def _best_matches(self, query: LexicalQuery, need: int
                      ) -> tuple[str, list[tuple[int, float]], int]:
        """The expression ranked, its best (rowid, bm25) on this thread's open read
        transaction, best first, and how many were asked for: more than `need`, so that a tie
        at the cut shows in the last one read. On a large index, an any-term query skips the
        chunks that hold only its common words when that provably changes nothing
        (`max_score`), or else is ranked in two halves at once (`split_rank`).

        A full ranking reads twice as many as needed: a tie at the cut then usually ends
        inside what was read, and the second pass that scores every match again (45 ms for a
        28,000-match query on Django) is left for a tie that runs past it. A skip proves only
        a few more than needed (`max_score.proven_depth`), since its cost grows with what it
        must prove."""
        conn = self.conn
        n = 2 * need

        def rank(expr: str, k: int) -> list[tuple[int, float]]:
            return conn.execute(_BEST, (expr, k)).fetchall()

        expr = fts5_expression(query)
        if query.raw is not None or query.op != "or":
            return expr, rank(expr, n), n
        # Two subqueries: SQLite reads one end of the rowid b-tree for a lone min() or max(),
        # but scans the table for both in one SELECT (2.5 ms on Django).
        low, high = conn.execute(
            "SELECT (SELECT min(id) FROM chunks), (SELECT max(id) FROM chunks)").fetchone()
        if low is None:
            return expr, rank(expr, n), n
        here = self._read_state()
        if high - low >= max_score.MIN_ROWIDS:
            terms = max_score.plan(query.terms, here, conn, self._term_counts)
            expr = terms.expression

            def rank_two(mine: str, theirs: str, k: int
                         ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
                return (self._at_once(here, (_BEST, (mine, k)), (_BEST, (theirs, k)))
                        or (rank(mine, k), rank(theirs, k)))

            proven = max_score.proven_depth(need)
            found = terms.best(proven, rank, rank_two)
            if found is not None:
                return expr, found, proven
        if high - low < split_rank.MIN_SPLIT_ROWIDS:
            return expr, rank(expr, n), n
        middle = (low + high + 1) // 2
        halves = self._at_once(here, (_BEST_IN, (expr, 0, middle, n)),
                               (_BEST_IN, (expr, middle, _NO_END, n)))
        if halves is None:  # the helper is busy: rank the whole range here
            return expr, rank(expr, n), n
        return expr, sorted([*halves[0], *halves[1]], key=lambda m: (m[1], m[0]))[:n], n

    def _at_once(self, here: tuple[int, str | None], mine: tuple[str, tuple[Any, ...]],
                 theirs: tuple[str, tuple[Any, ...]]
                 ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]] | None:
        """Two ranking statements at once: `theirs` on the helper thread (`split_rank`), in a
        read transaction of its own, while this thread runs `mine`; None when the helper is
        busy. When the helper read another state of the index than `here` (a write landed
        between the two reads), `theirs` runs again here, so no answer mixes two states."""
        helper = self._rank_splitter.try_submit(lambda: self._elsewhere(*theirs))
        if helper is None:
            return None
        first = self.conn.execute(*mine).fetchall()
        there, second = helper.result()
        if there != here:
            second = self.conn.execute(*theirs).fetchall()
        return first, second

    def _elsewhere(self, sql: str, args: tuple[Any, ...]
                   ) -> tuple[tuple[int, str | None], list[tuple[int, float]]]:
        """Run on the helper thread, in a read transaction of its own connection."""
        with self.reading() as conn:
            return self._read_state(), conn.execute(sql, args).fetchall()

    def _read_state(self) -> tuple[int, str | None]:
        """Which database and which committed write this thread's transaction reads."""
        return self.conn.generation, self.meta_value("lexical_version")

    def _match_filtered(
        self, expr: str, filters: Filters, limit: int, excluded: set[int]
    ) -> list[ChunkRow]:
        with self.reading():  # the holders of a kind filter and the match see one state
            return self._match_filtered_read(expr, filters, limit, excluded)

    def _match_filtered_read(
        self, expr: str, filters: Filters, limit: int, excluded: set[int]
    ) -> list[ChunkRow]:
        where, args = self._where(filters)
        if excluded:
            where += f" AND c.id NOT IN ({','.join('?' * len(excluded))})"
            args.extend(sorted(excluded))
        weights = ", ".join(str(w) for w in FTS_WEIGHTS)
        sql = (
            f"WITH m AS (SELECT rowid AS id, bm25(chunks_fts, {weights}) AS r FROM chunks_fts "
            f"WHERE chunks_fts MATCH ?) "
            f"SELECT {CHUNK_COLUMNS_NO_TEXT}, m.r FROM m JOIN chunks c ON c.id = m.id "
            f"JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
            f"WHERE 1{where} ORDER BY m.r, f.path, c.start_line, c.chunk_id LIMIT ?"
        )
        rows = self.conn.execute(sql, (expr, *args, limit)).fetchall()
        return [chunk_from(r, rank=r[-1]) for r in rows]

    def count_matches(self, query: LexicalQuery, filters: Filters) -> int:
        expr = fts5_expression(query)
        try:
            if filters == Filters():
                return int(self.conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (expr,)
                ).fetchone()[0])
            with self.reading():
                where, args = self._where(filters)
                sql = (
                    "SELECT count(*) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                    "JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
                    f"WHERE chunks_fts MATCH ?{where}"
                )
                return int(self.conn.execute(sql, (expr, *args)).fetchone()[0])
        except apsw.SQLError as exc:
            raise QuerySyntaxError(str(exc)) from exc

    def _where(self, filters: Filters) -> tuple[str, list[Any]]:
        """`_filter_sql` with the holders a kind filter needs."""
        if not filters.kinds:
            return _filter_sql(filters)
        return _filter_sql(filters, self._holders(filters.kinds))

    def _holders(self, kinds: Sequence[str]) -> str:
        """The rowids of the chunks that hold a definition of `kinds` which has no chunk of
        its own (its name's line is among theirs), as a JSON array (SQL reads it with
        `json_each`), for the state of the index this thread reads. Found once per state and
        set of kinds: on Django (56,000 definitions, 12,000 of them fields), 10 to 50 ms,
        where joining symbols to chunks in the match's own SQL cost each filtered match up
        to 250 ms."""
        key = (self._read_state(), tuple(sorted(set(kinds))))
        with self._held_lock:
            found = self._held.get(key)
        if found is None:
            found = json.dumps(self._find_holders(key[1]))
            with self._held_lock:
                self._held[key] = found
                while len(self._held) > HOLDERS_KEPT:
                    self._held.pop(next(iter(self._held)))
        return found

    def _find_holders(self, kinds: Sequence[str]) -> list[int]:
        lines: dict[int, list[int]] = {}  # file id -> the name lines of such definitions
        for file_id, line in self.conn.execute(
                "SELECT h.file_id, h.sel_start_line FROM symbols h "
                f"WHERE h.kind IN ({','.join('?' * len(kinds))}) "
                "AND NOT EXISTS (SELECT 1 FROM chunks o WHERE o.symbol_id = h.id) "
                "ORDER BY h.file_id, h.sel_start_line", kinds):
            lines.setdefault(file_id, []).append(line)
        files = list(lines)
        ids: list[int] = []
        for start in range(0, len(files), 500):
            part = files[start : start + 500]
            for rowid, file_id, first, last in self.conn.execute(
                    "SELECT id, file_id, start_line, end_line FROM chunks WHERE file_id IN "
                    f"({','.join('?' * len(part))})", part):
                held = lines[file_id]
                at = bisect.bisect_left(held, first)
                if at < len(held) and held[at] <= last:
                    ids.append(rowid)
        ids.sort()
        return ids

    def held_chunk_ids(self, filters: Filters, limit: int) -> tuple[list[str], int]:
        """(the first `limit` chunk ids, in path and line order, of the chunks the other
        filters allow that hold a definition of `filters.kinds` with no chunk of its own; how
        many there are in all): what a vector search adds to its filter on a chunk's own kind
        (`search.vector`)."""
        if not filters.kinds:
            return [], 0
        with self.reading():
            where, args = _filter_sql(replace(filters, kinds=()))
            holders = self._holders(filters.kinds)
            rows = self.conn.execute(
                "SELECT c.chunk_id FROM chunks c JOIN files f ON f.id = c.file_id "
                f"WHERE c.id IN (SELECT value FROM json_each(?)){where} "
                "ORDER BY f.path, c.start_line, c.chunk_id", (holders, *args)).fetchall()
        return [str(r[0]) for r in rows[:limit]], len(rows)

    def held_definitions(self, places: Iterable[tuple[str, int, int]], kinds: Sequence[str],
                         spanning: bool = False) -> dict[str, list[tuple[int, Symbol]]]:
        """The definitions of `kinds` with no chunk of their own whose name is on the lines
        of `places` ((path, first line, last line), 0-based, inclusive), by path, in position
        order: what a chunk that a kind filter keeps for holding one cites. `spanning`: those
        whose text spans any of those lines instead (where exact text sits)."""
        wanted = sorted(set(places))
        found: dict[str, dict[int, Symbol]] = {}  # path -> ord -> definition
        if not kinds:
            return {}
        marks = ",".join("?" * len(kinds))
        on = ("s.start_line <= r.b AND s.end_line >= r.a" if spanning
              else "s.sel_start_line BETWEEN r.a AND r.b")
        for start in range(0, len(wanted), 500):
            part = json.dumps(wanted[start : start + 500])
            for r in self.conn.execute(
                    "WITH r(path, a, b) AS (SELECT json_extract(value, '$[0]'), "
                    "json_extract(value, '$[1]'), json_extract(value, '$[2]') "
                    f"FROM json_each(?)) SELECT f.path, s.ord, {SYMBOL_COLUMNS} FROM r "
                    "JOIN files f ON f.path = r.path JOIN symbols s ON s.file_id = f.id "
                    f"AND {on} WHERE s.kind IN ({marks}) "
                    "AND NOT EXISTS (SELECT 1 FROM chunks o WHERE o.symbol_id = s.id)",
                    (part, *kinds)):
                found.setdefault(r[0], {})[r[1]] = symbol_from(r[2:])
        return {path: sorted(by_ord.items()) for path, by_ord in found.items()}

    def files_containing(
        self, needle: str, filters: Filters, check: Checkpoint = go_on
    ) -> list[tuple[str, str, str]]:
        """(path, lang, text) of every file whose text contains `needle` exactly, in path
        order.

        The trigram index narrows candidates to files holding a bounded sample of the needle's
        trigrams (`exact_trigrams`); each candidate's text is then searched for the needle, so
        recall equals grep's and the work does not grow with the needle. A needle under three
        characters has no trigram and every file is searched.

        Reading and unpacking the candidates' texts is a quarter of an exact search's time
        (0.1 s on a 5,000-file tree), so it runs in batches of `EXACT_BATCH` rows with `check`
        between them: a cancelled search stops there. The first batch follows straight on the
        caller's own check and the cheap read of candidate ids, so it is not checked again.
        """
        where, args = _filter_sql(replace(filters, kinds=()))
        trigrams = exact_trigrams(needle)
        select = ("SELECT f.path, f.lang, unpack(t.text) FROM file_text t "
                  "JOIN files f ON f.id = t.file_id")
        found: list[tuple[str, str, str]] = []
        seen = 0
        with self.reading():  # one state: a candidate without its text is then damage
            if trigrams:
                expr = " AND ".join('"' + t.replace('"', '""') + '"' for t in trigrams)
                what = "exact text, reading the files the trigram index proposes"
                candidates = [r[0] for r in self.conn.execute(
                    "SELECT rowid FROM text_trigram WHERE text_trigram MATCH ?", (expr,))]
            else:  # ids alone first, so that every file's text is read in checked batches too
                what = "exact text, reading every file (a needle under 3 characters)"
                candidates = [r[0] for r in self.conn.execute(
                    f"SELECT t.file_id FROM file_text t JOIN files f ON f.id = t.file_id "
                    f"WHERE 1{where}", args)]
            for start in range(0, len(candidates), EXACT_BATCH):
                if start:
                    check(what, start, len(candidates))
                part = candidates[start : start + EXACT_BATCH]
                for r in self.conn.execute(
                        f"{select} WHERE t.file_id IN ({','.join('?' * len(part))}){where}",
                        (*part, *args)):
                    seen += 1
                    if needle in r[2]:
                        found.append((r[0], r[1], r[2]))
        if seen < len(candidates) and not where:
            raise self.damaged_read(f"{len(candidates) - seen} file(s) in the trigram index "
                                    "have no text")
        found.sort()
        return found

    def chunks_at(self, path: str, line: int) -> list[ChunkRow]:
        """Chunks of `path` covering `line`, smallest first: the tightest citation."""
        rows = self.conn.execute(
            f"SELECT {CHUNK_COLUMNS_NO_TEXT} {CHUNK_FROM} WHERE f.path=? AND c.start_line<=? "
            "AND c.end_line>=? ORDER BY c.end_line - c.start_line, c.start_line, c.chunk_id",
            (path, line, line),
        ).fetchall()
        return [chunk_from(r) for r in rows]

    def with_texts(self, rows: Sequence[ChunkRow]) -> list[ChunkRow]:
        """`rows` with their text: search reads it for its hits only. A chunk a write
        replaced since it was ranked keeps no text (an empty one)."""
        texts: dict[int, str] = {}
        ids = [r.rowid for r in rows if r.text is None]
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            texts.update((r[0], r[1]) for r in self.conn.execute(
                f"SELECT c.id, {CHUNK_TEXT} {CHUNK_FROM} WHERE c.id IN "
                f"({','.join('?' * len(part))})", part))
        return [r if r.text is not None else replace(r, text=texts.get(r.rowid, ""))
                for r in rows]

    def chunks_by_ids(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRow]:
        """Chunks by chunk id, without their text."""
        out: dict[str, ChunkRow] = {}
        for start in range(0, len(chunk_ids), 500):
            part = list(chunk_ids[start : start + 500])
            rows = self.conn.execute(
                f"SELECT {CHUNK_COLUMNS_NO_TEXT} {CHUNK_FROM} WHERE c.chunk_id IN "
                f"({','.join('?' * len(part))})",
                part,
            ).fetchall()
            out.update((r[1], chunk_from(r)) for r in rows)
        return out

    def all_symbols(self) -> list[SymbolRow]:
        """Every definition, for the in-memory workspace-symbol matcher."""
        rows = self.conn.execute(
            f"SELECT {SYMBOL_ROW_COLUMNS} FROM symbols s "
            "JOIN files f ON f.id = s.file_id ORDER BY f.path, s.ord"
        ).fetchall()
        return [symbol_row(r) for r in rows]

    def symbols_in(self, paths: Iterable[str]) -> list[SymbolRow]:
        wanted = sorted(set(paths))
        out: list[SymbolRow] = []
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            out.extend(symbol_row(r) for r in
                       self.conn.execute(
                           f"SELECT {SYMBOL_ROW_COLUMNS} FROM symbols s "
                           "JOIN files f ON f.id = s.file_id WHERE f.path IN "
                           f"({','.join('?' * len(part))}) ORDER BY f.path, s.ord", part))
        return out

"""Writing the index: a file's rows (files, text, symbols, chunks and their FTS rows) are
swapped inside a batch transaction, so a crash never leaves half a file, and every batch is
logged in the change log under the lexical version it creates.

Replacing a file's chunks leaves tombstones in the full-text segment that held them
(`contentless_delete=1`), and a segment with tombstones is read much more slowly: on Django
5.1.4, after the chunks of five files were replaced, an all-words query took 34 ms instead of
5.5 ms and an any-word ranking 45 ms instead of 24 (in-process, SQLite 3.54.1), and FTS5's
own merging left it so through 120 more saves. `merge_step`
merges the segments back into one, tombstones dropped, a few pages per transaction, so the
writer can do it in its idle time without holding a save up for long
(`indexing.runtime.writer`)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from indexing.chunking import split_lines
from indexing.records import Extraction, Ref, Symbol, chunk_id_for, text_hash
from indexing.store.changes import ChangeLog
from indexing.store.refs import DamagedRefs, PackedRefs, delete_refs, insert_refs, unpack_refs
from indexing.store.rows import CHUNK_COLUMNS, CHUNK_FROM, chunk_from
from indexing.store.texts import Packed, chunk_text_to_store, pack_text
from indexing.text import findable_by_words, identifier_parts, path_terms
from indexing.token_facts import TokenFacts

#: Pages of full-text index one `merge_step` writes: about 10 ms of work.
MERGE_STEP_PAGES = 64


@dataclass(frozen=True, slots=True)
class FileWrite:
    """Everything needed to (re)write one file's rows."""

    path: str
    size: int
    mtime_ns: int
    hash: str
    lang: str
    text: str
    extraction: Extraction
    is_test: bool = False
    is_generated: bool = False
    #: `text` as stored (`texts.pack_text`), when the caller packed it already: the parse
    #: pool's workers do, so compression runs in parallel rather than on the writer.
    packed: Packed | None = None
    #: `extraction.refs` as stored (`refs.pack_refs`), when the caller packed them already
    #: (the parse pool's workers do, like the text).
    packed_refs: PackedRefs | None = None


class Writes(ChangeLog):
    def __init__(self, index_dir: Path) -> None:
        super().__init__(index_dir)
        self._batch_paths: set[str] = set()
        #: Whether the full-text index may be in more than one piece, or hold tombstones:
        #: unknown when opened, so a first `merge_step` finds out.
        self.fragmented = True

    def begin_rebuild(self) -> None:
        """From an empty database rather than by deleting rows: that works whatever state the
        old one is in (a rebuild is how a damaged index is repaired), and only this user's
        editor and commands read it."""
        self.reset()

    def merge_step(self) -> bool:
        """Merge a few pages of the full-text index's segments into one; True while more is
        left to merge. A step that changed nothing found it in one piece."""
        with self.writing() as conn:
            before = conn.raw.total_changes()
            conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('merge', ?)",
                         (-MERGE_STEP_PAGES,))
            worked = conn.raw.total_changes() - before >= 2
        if not worked:
            self.fragmented = False
        return worked

    @contextmanager
    def batch(self, large: bool = False) -> Iterator[None]:
        """One transaction for many file writes: all of a batch lands, or none of it. A
        `large` batch (a scan's) first checkpoints what earlier writes left in the WAL: if the
        disk then refuses the batch, the WAL holds nothing else and is truncated to nothing."""
        if large:
            self.settle()
        with self.writing() as conn:
            self._batch_paths.clear()
            yield
            conn.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='lexical_version'"
            )
            self._log_batch(conn, self.lexical_version(), self._batch_paths)
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('last_update', ?)",
                (repr(time.time()),),
            )

    def write_file(self, write: FileWrite) -> list[str]:
        """Replace one file's rows; returns the chunk ids it had before (for vector cleanup).
        Must run inside `batch()`."""
        self._batch_paths.add(write.path)
        old_ids = self._delete_rows(write.path)
        conn = self.conn
        conn.execute(
            "INSERT INTO files(path, size, mtime_ns, hash, lang, is_test, is_generated) "
            "VALUES (?,?,?,?,?,?,?)",
            (write.path, write.size, write.mtime_ns, write.hash, write.lang,
             int(write.is_test), int(write.is_generated)),
        )
        file_id = conn.last_insert_rowid()
        packed = write.packed if write.packed is not None else pack_text(write.text)
        conn.execute("INSERT INTO file_text(file_id, text) VALUES (?,?)", (file_id, packed))
        conn.execute("INSERT INTO text_trigram(rowid, text) VALUES (?,?)", (file_id, write.text))
        symbol_ids = self._insert_symbols(file_id, write.extraction.symbols)
        self._insert_chunks(file_id, write.path, write.extraction, symbol_ids,
                            split_lines(write.text))
        insert_refs(conn, file_id, write.extraction.refs, write.packed_refs)
        return old_ids

    def _insert_symbols(self, file_id: int, symbols: Sequence[Symbol]) -> list[int]:
        ids = []
        for ord_, s in enumerate(symbols):
            self.conn.execute(
                "INSERT INTO symbols(file_id, ord, name, qualified_name, kind, container, "
                "start_line, start_col, end_line, end_col, sel_start_line, sel_start_col, "
                "sel_end_line, sel_end_col, signature, doc, bodiless) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (file_id, ord_, s.name, s.qualified_name, str(s.kind), s.container,
                 s.range.start_line, s.range.start_col, s.range.end_line, s.range.end_col,
                 s.selection.start_line, s.selection.start_col, s.selection.end_line,
                 s.selection.end_col, s.signature, s.doc, int(s.bodiless)),
            )
            ids.append(self.conn.last_insert_rowid())
        return ids

    def _insert_chunks(
        self, file_id: int, path: str, extraction: Extraction, symbol_ids: Sequence[int],
        lines: list[str],
    ) -> None:
        facts = TokenFacts(extraction.refs)
        for cid, chunk, sym in extraction.stored_chunks(path):
            self.conn.execute(
                "INSERT INTO chunks(chunk_id, file_id, symbol_id, kind, start_line, end_line, "
                "start_col, context, text, text_hash) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (cid, file_id, symbol_ids[chunk.symbol] if chunk.symbol is not None else None,
                 str(chunk.kind), chunk.start_line, chunk.end_line, chunk.start_col,
                 chunk.context,
                 chunk_text_to_store(chunk.text, lines, chunk.start_line, chunk.end_line),
                 text_hash(chunk.text)),
            )
            self._insert_fts(self.conn.last_insert_rowid(), path, sym, chunk.context, chunk.text,
                             facts, chunk.start_line, chunk.start_col)

    def _insert_fts(
        self, rowid: int, path: str, sym: Symbol | None, context: str, text: str,
        facts: TokenFacts, start_line: int, start_col: int,
    ) -> None:
        if not findable_by_words(text):
            return
        names = f"{sym.name} {sym.qualified_name}" if sym else context
        parts = identifier_parts(f"{names} {text}")
        body, calls, strings = facts.split(text, start_line, start_col)
        self.conn.execute(
            "INSERT INTO chunks_fts(rowid, names, parts, path, body, calls, strings) "
            "VALUES (?,?,?,?,?,?,?)",
            (rowid, names, parts, path_terms(path), body, calls, strings),
        )

    def _delete_rows(self, path: str) -> list[str]:
        conn = self.conn
        row = conn.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()
        if row is None:
            return []
        file_id = row[0]
        chunk_rows = conn.execute(
            "SELECT id, chunk_id FROM chunks WHERE file_id=?", (file_id,)
        ).fetchall()
        conn.executemany("DELETE FROM chunks_fts WHERE rowid=?", [(r[0],) for r in chunk_rows])
        self.fragmented = self.fragmented or bool(chunk_rows)
        conn.execute("DELETE FROM text_trigram WHERE rowid=?", (file_id,))
        conn.execute("DELETE FROM chunks WHERE file_id=?", (file_id,))
        try:
            delete_refs(conn, file_id)
        except DamagedRefs as exc:
            raise self.damaged_read(str(exc)) from exc
        conn.execute("DELETE FROM symbols WHERE file_id=?", (file_id,))
        conn.execute("DELETE FROM files WHERE id=?", (file_id,))
        return [r[1] for r in chunk_rows]

    def delete_file(self, path: str) -> list[str]:
        """Drop a file's rows; returns its chunk ids. Must run inside `batch()`."""
        self._batch_paths.add(path)
        return self._delete_rows(path)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Record a new mtime for a file whose content hash did not change, so the next scan
        skips it on the cheap size+mtime check."""
        self.conn.execute(
            "UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path)
        )

    def rename_file(self, old: str, new: str, size: int, mtime_ns: int) -> dict[str, str]:
        """Move a file's rows to a new path without re-extracting it. Chunk ids derive from the
        path, so they are recomputed; returns old id -> new id. Must run inside `batch()`."""
        conn = self.conn
        row = conn.execute("SELECT id FROM files WHERE path=?", (old,)).fetchone()
        if row is None:
            return {}
        self._batch_paths.update((old, new))
        file_id = row[0]
        conn.execute(
            "UPDATE files SET path=?, size=?, mtime_ns=? WHERE id=?", (new, size, mtime_ns, file_id)
        )
        mapping: dict[str, str] = {}
        chunks = conn.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.file_id=?", (file_id,)
        ).fetchall()
        facts = TokenFacts(self._stored_refs(file_id))
        self.fragmented = self.fragmented or bool(chunks)
        for raw in chunks:
            chunk = chunk_from(raw)
            assert chunk.text is not None  # CHUNK_COLUMNS reads it
            new_id = chunk_id_for(new, chunk.start_line, chunk.text)
            mapping[chunk.chunk_id] = new_id
            conn.execute("UPDATE chunks SET chunk_id=? WHERE id=?", (new_id, chunk.rowid))
            conn.execute("DELETE FROM chunks_fts WHERE rowid=?", (chunk.rowid,))
            self._insert_fts(chunk.rowid, new, chunk.symbol, chunk.context, chunk.text, facts,
                             chunk.start_line, chunk.start_col)
        return mapping

    def _stored_refs(self, file_id: int) -> list[Ref]:
        """A file's refs as stored, in position order."""
        row = self.conn.execute("SELECT refs FROM ref_files WHERE file_id=?",
                                (file_id,)).fetchone()
        if row is None:
            return []
        try:
            found = unpack_refs(row[0])
        except DamagedRefs as exc:
            raise self.damaged_read(str(exc)) from exc
        return sorted((Ref(name, kind, line, col, end_line, end_col, symbol, receiver)
                       for name, kind, receiver, line, col, end_line, end_col, symbol in found),
                      key=lambda r: (r.start_line, r.start_col))

"""What is indexed, file by file and in total: the states the indexer plans against, the
counts status reports, and every file's text for evaluation."""

from __future__ import annotations

from dataclasses import dataclass

from indexing.schema import SCHEMA_VERSION
from indexing.store.connection import StoreConnection
from indexing.store.refs import DamagedRefs, unpack_refs


@dataclass(frozen=True, slots=True)
class FileState:
    id: int
    path: str
    size: int
    mtime_ns: int
    hash: str


@dataclass(frozen=True, slots=True)
class FileText:
    path: str
    lang: str
    text: str
    is_test: bool


@dataclass(frozen=True, slots=True)
class Stats:
    files: int
    symbols: int
    chunks: int
    schema_version: int
    lexical_version: int
    last_update: float | None
    langs: dict[str, int]


class Catalog(StoreConnection):
    def file_states(self) -> dict[str, FileState]:
        return {
            r[1]: FileState(r[0], r[1], r[2], r[3], r[4])
            for r in self.conn.execute("SELECT id, path, size, mtime_ns, hash FROM files")
        }

    def file_state(self, path: str) -> FileState | None:
        r = self.conn.execute(
            "SELECT id, path, size, mtime_ns, hash FROM files WHERE path=?", (path,)
        ).fetchone()
        return FileState(r[0], r[1], r[2], r[3], r[4]) if r else None

    def extracted_by(self) -> int:
        """This version's: an index file of another schema version is rebuilt whole when it
        is opened (`indexing.store`), so what it holds was extracted by this one."""
        return SCHEMA_VERSION

    def stats(self) -> Stats:
        conn = self.conn

        def count(table: str) -> int:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

        last = self.meta_value("last_update")
        langs = {r[0]: r[1] for r in conn.execute(
            "SELECT lang, count(*) FROM files GROUP BY lang ORDER BY lang")}
        return Stats(
            files=count("files"),
            symbols=count("symbols"),
            chunks=count("chunks"),
            schema_version=SCHEMA_VERSION,
            lexical_version=int(self.meta_value("lexical_version") or 0),
            last_update=float(last) if last else None,
            langs=langs,
        )

    def chunk_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def file_texts(self) -> list[FileText]:
        """Every indexed file with its text, in path order."""
        return [FileText(r[0], r[1], r[2], bool(r[3])) for r in self.conn.execute(
            "SELECT f.path, f.lang, unpack(t.text), f.is_test FROM files f "
            "JOIN file_text t ON t.file_id = f.id ORDER BY f.path")]

    def snapshot(self) -> dict[str, list[tuple[object, ...]]]:
        """What the index holds, independent of row ids and write order: files, symbols,
        chunks and refs as sorted tuples. Two indexes of the same tree have equal snapshots, however
        they were built (at once, incrementally, or after a crash and a restart)."""
        conn = self.conn
        files = sorted(tuple(r) for r in conn.execute(
            "SELECT path, size, hash, lang, is_test, is_generated FROM files"))
        symbols = sorted((tuple(r) for r in conn.execute(
            "SELECT f.path, s.ord, s.name, s.qualified_name, s.kind, s.container, s.start_line, "
            "s.start_col, s.end_line, s.end_col, s.sel_start_line, s.sel_start_col, "
            "s.sel_end_line, s.sel_end_col, s.signature, s.doc, s.bodiless FROM symbols s "
            "JOIN files f ON f.id = s.file_id")), key=repr)
        chunks = sorted((tuple(r) for r in conn.execute(
            "SELECT f.path, c.chunk_id, c.kind, c.start_line, c.end_line, c.context, c.text_hash, "
            "s.qualified_name FROM chunks c JOIN files f ON f.id = c.file_id "
            "LEFT JOIN symbols s ON s.id = c.symbol_id")), key=repr)
        texts = sorted(tuple(r) for r in conn.execute(
            "SELECT f.path, unpack(t.text) FROM file_text t JOIN files f ON f.id = t.file_id"))
        try:
            refs = sorted(((path, *ref) for path, blob in conn.execute(
                "SELECT f.path, r.refs FROM ref_files r JOIN files f ON f.id = r.file_id")
                for ref in unpack_refs(blob)), key=repr)
        except DamagedRefs as exc:
            raise self.damaged_read(str(exc)) from exc
        return {"files": files, "symbols": symbols, "chunks": chunks, "texts": texts,
                "refs": refs}

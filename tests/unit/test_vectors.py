"""The vector store against a real LanceDB table in tmp_path."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from indexing.filters import glob_to_regex
from indexing.lance_core import CoreTable
from indexing.schema import VECTOR_COLUMNS, VECTOR_SCHEMA_KEY, VECTOR_SCHEMA_VERSION
from indexing.vectors import (
    InvalidFilter,
    VectorRow,
    VectorSchemaMismatch,
    VectorStore,
    VectorStoreUnavailable,
    row_key,
    schema_version,
    sql_where,
)

DIM = 8


def unit(values: list[float]) -> npt.NDArray[np.float32]:
    v = np.zeros(DIM, dtype=np.float32)
    v[: len(values)] = values
    return v / np.linalg.norm(v)


def row(
    chunk_id: str,
    vector: npt.NDArray[np.float32],
    path: str = "src/a.py",
    lang: str = "python",
    kind: str = "definition",
    surface: str = "code",
) -> VectorRow:
    return VectorRow(chunk_id, surface, path, lang, kind, f"h-{chunk_id}", vector)


def search(store: VectorStore, query: npt.NDArray[np.float32], k: int,
           where: str | None = None) -> list[tuple[str, float]]:
    return [(m.chunk_id, m.similarity) for m in store.search(query, k, where)]


@pytest.fixture
def store(tmp_path: Path) -> VectorStore:
    return VectorStore(tmp_path / "vectors", dim=DIM, optimize_every=0)


def test_new_store_is_empty_and_created_lazily(tmp_path: Path) -> None:
    s = VectorStore(tmp_path / "v", dim=DIM)
    assert not (tmp_path / "v").exists()
    assert s.count() == 0
    assert s.chunk_ids() == set()
    assert search(s, unit([1.0]), k=5) == []


def test_upsert_replaces_by_chunk_id(store: VectorStore) -> None:
    store.upsert([row("a", unit([1.0])), row("b", unit([0.0, 1.0]))])
    store.upsert([row("a", unit([0.0, 0.0, 1.0])), row("c", unit([1.0]))])
    assert store.count() == 3
    assert store.chunk_ids() == {"a", "b", "c"}
    best_id, best_sim = search(store, unit([0.0, 0.0, 1.0]), k=1)[0]
    assert best_id == "a"
    assert best_sim == pytest.approx(1.0, abs=1e-5)


def test_upsert_with_duplicate_ids_in_one_batch_keeps_count_sane(store: VectorStore) -> None:
    store.upsert([row("a", unit([1.0]))])
    store.upsert([row("a", unit([1.0])), row("b", unit([0.0, 1.0])), row("a", unit([0.0, 1.0]))])
    assert store.chunk_ids() == {"a", "b"}
    assert store.count() == 2
    # The last occurrence wins.
    assert search(store, unit([0.0, 1.0]), k=2) == [
        ("a", pytest.approx(1.0, abs=1e-5)),
        ("b", pytest.approx(1.0, abs=1e-5)),
    ]


def test_two_surfaces_of_one_chunk_are_separate_rows(store: VectorStore) -> None:
    store.upsert([
        row("a1", unit([1.0]), path="src/a.py"),
        row("a1", unit([0.0, 1.0]), path="src/a.py", surface="summary"),
        row("b1", unit([0.0, 1.0]), path="src/b.py"),
        row("q1", unit([0.0, 1.0, 1.0]), path="src/it's.py"),
    ])
    assert store.count() == 4 and store.chunk_ids() == {"a1", "b1", "q1"}
    assert store.row_hashes() == {row_key("a1", "code"): "h-a1", row_key("a1", "summary"): "h-a1",
                                  row_key("b1", "code"): "h-b1", row_key("q1", "code"): "h-q1"}
    best = store.search(unit([0.0, 1.0]), k=2)
    assert {(m.chunk_id, m.surface) for m in best} == {("a1", "summary"), ("b1", "code")}
    store.delete_keys([row_key("a1", "summary"), row_key("q1", "code"), "missing"])
    assert store.count() == 2 and store.chunk_ids() == {"a1", "b1"}
    store.delete_keys([])


def test_search_orders_by_similarity_then_id_deterministically(store: VectorStore) -> None:
    query = unit([1.0])
    store.upsert(
        [
            row("far", unit([0.0, 1.0])),
            row("near", unit([1.0, 0.1])),
            row("opposite", unit([-1.0])),
            # Exact ties: identical vectors must come back in chunk_id order.
            *[row(f"tie-{c}", unit([1.0, 0.5])) for c in "edcba"],
        ]
    )
    results = search(store, query, k=4)
    assert [cid for cid, _ in results] == ["near", "tie-a", "tie-b", "tie-c"]
    assert results[0][1] == pytest.approx(float(unit([1.0, 0.1]) @ query), abs=1e-5)
    assert all(results[i][1] >= results[i + 1][1] for i in range(len(results) - 1))
    assert search(store, query, k=4) == results
    everything = search(store, query, k=100)
    assert everything[-1][0] == "opposite"
    assert everything[-1][1] == pytest.approx(-1.0, abs=1e-5)


def test_ties_at_the_k_boundary_are_cut_by_chunk_id(store: VectorStore) -> None:
    # More identical vectors than the store over-fetches, so the boundary tie must widen.
    store.upsert([row(f"dup-{i:03d}", unit([1.0, 1.0])) for i in range(60, 0, -1)])
    results = search(store, unit([1.0, 1.0]), k=3)
    assert [cid for cid, _ in results] == ["dup-001", "dup-002", "dup-003"]


def test_prefilter_applies_before_top_k(store: VectorStore) -> None:
    query = unit([1.0])
    # Many close Python rows, a few distant Rust/doc rows: a post-filter on the top 3
    # would find no Rust row at all.
    rows = [row(f"py-{i:02d}", unit([1.0, 0.01 * i])) for i in range(30)]
    rows += [
        row("rs-far", unit([0.2, 1.0]), path="src/lib.rs", lang="rust"),
        row("rs-mid", unit([0.6, 1.0]), path="src/main.rs", lang="rust", kind="method"),
        row("md-doc", unit([0.5, 1.0]), path="docs/guide.md", lang="markdown", kind="section"),
    ]
    store.upsert(rows)

    rust = search(store, query, k=3, where=sql_where(["rust"], None, None))
    assert [cid for cid, _ in rust] == ["rs-mid", "rs-far"]

    methods = search(store, query, k=3, where=sql_where(None, ["method", "section"], None))
    assert [cid for cid, _ in methods] == ["rs-mid", "md-doc"]

    under_docs = search(store, query, k=3, where=sql_where(None, None, r"^docs/.*\.md$"))
    assert [cid for cid, _ in under_docs] == ["md-doc"]

    both = search(store, query, k=3, where=sql_where(["rust"], ["definition"], r"\.rs$"))
    assert [cid for cid, _ in both] == ["rs-far"]


def test_path_regex_escapes_are_regex_escapes(store: VectorStore) -> None:
    store.upsert(
        [
            row("dot", unit([1.0]), path="src/a.py"),
            row("nodot", unit([1.0]), path="src/axpy"),
            row("quote", unit([1.0]), path="src/o'brien.py"),
        ]
    )
    found = search(store, unit([1.0]), k=10, where=sql_where(None, None, r"a\.py$"))
    assert [cid for cid, _ in found] == ["dot"]
    found = search(store, unit([1.0]), k=10, where=sql_where(None, None, "o'brien"))
    assert [cid for cid, _ in found] == ["quote"]


@pytest.mark.parametrize(
    "glob", ["*.py", "src/*.py", "src/**", "tests", "/src/o'brien.py", "[!a]*.py", "a b/*"])
def test_a_path_glob_selects_in_lancedb_what_it_selects_in_python(
    store: VectorStore, glob: str
) -> None:
    """The prefilter runs in Rust's regex engine, the SQLite filter in Python's: the glob's
    translation must mean the same to both."""
    paths = ["src/a.py", "src/axpy", "src/o'brien.py", "src/deep/b.py", "tests/c.go",
             "lib/tests/d.py", "a b/e.ts", "setup.py"]
    store.upsert([row(f"c{i}", unit([1.0]), path=p) for i, p in enumerate(paths)])
    regex = glob_to_regex(glob)
    found = search(store, unit([1.0]), k=20, where=sql_where(None, None, regex))
    want = {f"c{i}" for i, p in enumerate(paths) if re.search(regex, p)}
    assert want and {cid for cid, _ in found} == want


def test_invalid_regex_is_a_filter_error_not_an_outage(store: VectorStore) -> None:
    store.upsert([row("a", unit([1.0]))])
    for bad in ("[", "a(?=b)"):
        with pytest.raises(InvalidFilter):
            search(store, unit([1.0]), k=1, where=sql_where(None, None, bad))
    assert search(store, unit([1.0]), k=1)[0][0] == "a"


def test_sql_where_builds_nothing_for_no_filters() -> None:
    assert sql_where(None, None, None) is None
    assert sql_where([], [], "") is None
    assert sql_where(["it's"], None, None) == "lang IN ('it''s')"


def test_optimize_reduces_versions(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "v", dim=DIM, optimize_every=0)
    for i in range(6):
        store.upsert([row(f"c{i}", unit([1.0, float(i)]))])
    table = store._open()
    before = len(table.list_versions())
    assert before > 6
    store.optimize()
    assert len(table.list_versions()) < before
    assert store.count() == 6
    assert store.version() >= 1


def test_auto_optimize_keeps_versions_bounded(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "v", dim=DIM, optimize_every=5)
    for i in range(23):
        store.upsert([row(f"c{i}", unit([1.0, float(i)]))])
    assert len(store._open().list_versions()) <= 2 * 5 + 2
    assert store.count() == 23


def test_reopen_sees_persisted_rows(tmp_path: Path) -> None:
    VectorStore(tmp_path / "v", dim=DIM).upsert([row("a", unit([1.0]))])
    again = VectorStore(tmp_path / "v", dim=DIM)
    assert again.chunk_ids() == {"a"}


def test_dim_mismatch_with_existing_table_is_unavailable(tmp_path: Path) -> None:
    VectorStore(tmp_path / "v", dim=DIM).upsert([row("a", unit([1.0]))])
    other = VectorStore(tmp_path / "v", dim=DIM * 2)
    with pytest.raises(VectorSchemaMismatch, match=f"expected vectors of dimension {DIM * 2}"):
        other.count()
    other.reset()
    assert other.count() == 0


def _table(directory: Path, columns: list[str], stamp: str | None = None) -> None:
    """A table as some other version of kebab wrote it, with one row."""
    import lancedb
    import pyarrow as pa

    types = {c: pa.string() for c in columns} | {"vector": pa.list_(pa.float32(), DIM)}
    schema = pa.schema([(c, types[c]) for c in columns],
                       metadata={VECTOR_SCHEMA_KEY: stamp} if stamp else None)
    values = {c: ["x"] for c in columns} | {"vector": [unit([1.0]).tolist()]}
    lancedb.connect(str(directory)).create_table("chunks", pa.table(values, schema=schema))


def test_a_new_table_records_the_schema_version_that_wrote_it(store: VectorStore) -> None:
    store.upsert([row("a", unit([1.0]))])
    schema = CoreTable(store.directory, "chunks").schema()
    assert schema_version(schema) == VECTOR_SCHEMA_VERSION
    assert schema.metadata[VECTOR_SCHEMA_KEY.encode()] == str(VECTOR_SCHEMA_VERSION).encode()


def test_a_table_from_before_versions_were_recorded_is_read_by_its_columns(
    tmp_path: Path,
) -> None:
    _table(tmp_path / "v", [name for name, _ in VECTOR_COLUMNS])
    assert VectorStore(tmp_path / "v", dim=DIM).count() == 1


@pytest.mark.parametrize(
    ("columns", "stamp", "reason"),
    [
        (["chunk_id", "path", "lang", "kind", "text_hash", "vector"], None, "schema version 1"),
        ([name for name, _ in VECTOR_COLUMNS], str(VECTOR_SCHEMA_VERSION + 1),
         f"schema version {VECTOR_SCHEMA_VERSION + 1}"),
        (["chunk_id", "vector"], None, "an unknown schema version"),
    ],
)
def test_a_table_of_another_schema_version_is_refused_until_reset(
    tmp_path: Path, columns: list[str], stamp: str | None, reason: str
) -> None:
    _table(tmp_path / "v", columns, stamp)
    store = VectorStore(tmp_path / "v", dim=DIM)
    with pytest.raises(VectorSchemaMismatch, match=reason):
        store.chunk_ids()
    with pytest.raises(VectorSchemaMismatch, match=reason):
        store.upsert([row("a", unit([1.0]))])
    store.reset()
    store.upsert([row("a", unit([1.0]))])
    assert store.chunk_ids() == {"a"}


def test_deleted_table_dir_raises_until_reset(store: VectorStore) -> None:
    store.upsert([row("a", unit([1.0]))])
    assert search(store, unit([1.0]), k=1)[0][0] == "a"
    shutil.rmtree(store.directory)
    with pytest.raises(VectorStoreUnavailable, match="reset"):
        store.search(unit([1.0]), k=1)
    with pytest.raises(VectorStoreUnavailable):
        store.upsert([row("b", unit([1.0]))])
    store.reset()
    assert store.count() == 0
    store.upsert([row("b", unit([1.0]))])
    assert search(store, unit([1.0]), k=5) == [("b", pytest.approx(1.0, abs=1e-5))]


def test_corrupt_data_files_are_unavailable_not_a_crash(store: VectorStore) -> None:
    store.upsert([row("a", unit([1.0]))])
    for data_file in (store.directory / "chunks.lance" / "data").iterdir():
        data_file.write_bytes(b"garbage")
    with pytest.raises(VectorStoreUnavailable):
        search(store, unit([1.0]), k=1)
    store.reset()
    assert store.count() == 0


def test_wrong_query_dim_is_a_caller_error(store: VectorStore) -> None:
    with pytest.raises(ValueError):
        store.search(np.ones(DIM + 1, dtype=np.float32), k=1)


# -- reads through lancedb's compiled core (indexing.lance_core) -------------------------------


def _filled(directory: Path, n: int = 60) -> VectorStore:
    store = VectorStore(directory, dim=DIM, optimize_every=0)
    rng = np.random.default_rng(3)
    rows = [row(f"c{i:03d}", unit(list(rng.standard_normal(DIM))), path=f"src/m{i % 7}.py",
                lang="python" if i % 3 else "go") for i in range(n)]
    store.upsert(rows[: n // 2])
    store.upsert(rows[n // 2 :])  # two fragments
    return store


def test_core_reads_match_the_public_api(tmp_path: Path) -> None:
    store = _filled(tmp_path / "v")
    table = store._open()  # the public API's handle
    query = unit([0.3, -1.0, 0.5, 0.2])
    for where in (None, "lang IN ('go')", sql_where(None, None, r"m[13]\.py$")):
        builder = table.search(query, vector_column_name="vector").distance_type("cosine")
        if where:
            builder = builder.where(where, prefilter=True)
        columns = ["key", "chunk_id", "surface", "_distance"]
        public = builder.select(columns).limit(9).to_arrow()
        core = store._query(store._read(), query, 9, where)  # type: ignore[arg-type]
        assert core == list(zip(*(public.column(c).to_pylist() for c in columns), strict=True))
    assert store.count() == table.count_rows() == 60
    assert store.version() == table.version
    assert store.chunk_ids() == set(table.to_arrow().column("chunk_id").to_pylist())


def test_reads_see_writes_made_through_another_handle(tmp_path: Path) -> None:
    reader = _filled(tmp_path / "v", n=10)
    assert reader.count() == 10
    writer = VectorStore(tmp_path / "v", dim=DIM, optimize_every=0)  # e.g. another process
    writer.upsert([row("new", unit([0.0, 0.0, 0.0, 1.0]))])
    writer.delete_keys([row_key("c000", "code")])
    assert reader.count() == 10
    assert "new" in reader.chunk_ids() and "c000" not in reader.chunk_ids()
    writer.optimize()  # old versions' files are gone: reads must not use them
    assert reader.search(unit([0.0, 0.0, 0.0, 1.0]), k=1)[0].chunk_id == "new"
    assert reader.version() == writer._open().version


@pytest.mark.subprocess
@pytest.mark.slow
def test_reading_does_not_import_the_lancedb_package(tmp_path: Path) -> None:
    """The 4 s `import lancedb` (mostly its REST namespace client) stays off the read path;
    a write afterwards in the same process still works."""
    _filled(tmp_path / "v", n=10)
    script = f"""
import sys
import numpy as np
from indexing.vectors import VectorRow, VectorStore
store = VectorStore({str(tmp_path / "v")!r}, dim={DIM})
query = np.eye({DIM}, dtype=np.float32)[0]
assert store.count() == 10 and len(store.search(query, k=3)) == 3 and store.version() > 0
heavy = sorted(m for m in sys.modules if m.split(".")[0] in
               ("lancedb", "lance_namespace", "lance_namespace_urllib3_client", "pydantic"))
assert heavy == ["lancedb._lancedb"], heavy
store.upsert([VectorRow("w", "code", "p", "python", "definition", "h", query)])
assert "lancedb" in sys.modules and store.count() == 11
assert store.search(query, k=1)[0].chunk_id == "w"
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_can_still_read(tmp_path: Path) -> None:
    """A fork copies the reader's event loop but not the thread running it; the child must
    start its own instead of waiting forever on a loop nobody runs."""
    store = _filled(tmp_path / "v", n=10)
    assert store.count() == 10  # the loop thread exists in the parent now
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit code
        signal.alarm(60)  # a regression hangs the child: let it die instead of the suite
        code = 1
        try:
            code = 0 if store.count() == 10 else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0

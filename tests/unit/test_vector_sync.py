"""When a vector sync may be skipped, and when it must not be: a no-change `kebab index`
skips it, but vectors are never reported complete when they are not. Real model, real
LanceDB."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.settings import Settings
from indexing.vectors import VectorStore
from kebab_lsp.workspace import Workspace

pytestmark = pytest.mark.model

SAMPLE = Path(__file__).parent.parent / "fixtures" / "sample_repo"


@pytest.fixture
def synced(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE, root)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    first = ws.sync_vectors()
    assert first is not None and first.embedded > 0 and not first.cancelled
    yield ws
    ws.close()


def complete(ws: Workspace) -> bool:
    vindex = ws.vector_index()
    assert vindex is not None
    have, total = vindex.coverage()
    return have == total > 0 and vindex.vectors.chunk_ids() == {
        s.chunk_id for s in ws.store.embedding_sources()}


def test_no_change_sync_needs_neither_the_diff_nor_the_model(synced: Workspace,
                                                             tmp_path: Path) -> None:
    # Same model id as the bundled model (the id comes from the directory name), but nothing
    # in the directory: a sync that had to embed or even load the model would fail.
    empty_model = tmp_path / "elsewhere" / "all-MiniLM-L6-v2-int8"
    empty_model.mkdir(parents=True)
    again = Workspace(synced.root, Settings(index_dir=synced.settings.index_dir,
                                                    model_dir=str(empty_model)))
    vindex, before = again.vector_index(), synced.vector_index()
    assert vindex is not None and before is not None
    assert vindex.embedder.model_id == before.embedder.model_id
    summary = again.sync_vectors()
    assert summary is not None and (summary.embedded, summary.total, summary.deleted) == (0, 0, 0)
    assert again.vector_error is None
    again.close()


def test_a_changed_file_is_synced(synced: Workspace) -> None:
    (synced.root / "extra.py").write_text("def brand_new_helper(x):\n    return x * 2\n")
    synced.indexer.index()
    summary = synced.sync_vectors()
    assert summary is not None and summary.embedded > 0
    assert complete(synced)


def test_vectors_deleted_behind_the_index_are_restored(synced: Workspace) -> None:
    other = VectorStore(synced.index_dir / "vectors", dim=384)  # e.g. another process
    victim = sorted(other.row_hashes())[0]
    other.delete_keys([victim])
    summary = synced.sync_vectors()
    assert summary is not None and summary.from_cache == 1
    assert complete(synced)


def test_a_deleted_vector_table_is_rebuilt(synced: Workspace) -> None:
    shutil.rmtree(synced.index_dir / "vectors")
    summary = synced.sync_vectors()
    assert summary is not None and summary.from_cache > 0
    assert complete(synced)


def test_an_index_rebuilt_for_a_new_schema_embeds_nothing_again(synced: Workspace) -> None:
    from indexing.schema import SCHEMA_VERSION

    synced.store.set_meta("schema_version", str(SCHEMA_VERSION - 1))
    synced.close()
    shutil.rmtree(synced.index_dir / "vectors")  # so that every vector must come from somewhere
    upgraded = Workspace(synced.root, Settings(index_dir=synced.settings.index_dir, workers=1))
    reason = upgraded.store.rebuilt_reason
    assert reason is not None and reason.endswith("cached vectors are kept)")
    upgraded.indexer.index()
    summary = upgraded.sync_vectors()
    assert summary is not None and summary.embedded == 0 and summary.from_cache == summary.total > 0
    assert complete(upgraded)
    upgraded.close()


def test_a_cancelled_sync_is_resumed_not_skipped(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(SAMPLE, root)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    checks = iter(range(100))
    stopped = ws.sync_vectors(should_stop=lambda: next(checks) > 0)
    assert stopped is not None and stopped.cancelled
    assert not complete(ws)
    resumed = ws.sync_vectors()
    assert resumed is not None and resumed.total > 0
    assert complete(ws)
    ws.close()


def test_another_model_is_not_taken_for_up_to_date(synced: Workspace, tmp_path: Path) -> None:
    vindex = synced.vector_index()
    assert vindex is not None
    files = vindex.embedder.files()
    other_model = tmp_path / "other-model"
    other_model.mkdir()
    (other_model / "model.onnx").symlink_to(files.weights)
    (other_model / "tokenizer.json").symlink_to(files.tokenizer_dir / "tokenizer.json")
    ws = Workspace(synced.root, Settings(index_dir=synced.settings.index_dir,
                                                 model_dir=str(other_model)))
    other = ws.vector_index()
    assert other is not None and other.embedder.model_id != vindex.embedder.model_id
    assert ws.sync_vectors() is not None
    assert ws.store.meta_value("vector_synced_model") == other.embedder.model_id
    ws.close()


# -- the order a cold tree is embedded in ------------------------------------------------------


def test_embed_priority_puts_what_questions_ask_for_first() -> None:
    from indexing.store import EmbeddingSource
    from indexing.vector_index import embed_priority

    def src(path: str, kind: str, doc: str = "", is_test: bool = False) -> EmbeddingSource:
        return EmbeddingSource("id", path, "python", kind, "", "", doc, "body", is_test=is_test)

    ranked = [
        src("open.py", "text"),
        src("a.py", "function", doc="Parse the config."),
        src("a.py", "method"),
        src("README.md", "section"),
        src("tests/test_a.py", "function", doc="A documented test.", is_test=True),
    ]
    assert [embed_priority(s, {"open.py"}) for s in ranked] == [0, 1, 2, 3, 4]


def test_a_cold_sync_embeds_documented_definitions_before_the_rest(tmp_path: Path) -> None:
    from indexing.vector_index import WRITE_BATCH

    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    # In path order, tests and undocumented code come first; together they fill more than
    # one write batch.
    (root / "tests" / "test_early.py").write_text("".join(
        f'def test_{j}():\n    """Checks case {j}."""\n    assert {j}\n\n' for j in range(60)))
    (root / "a_plain.py").write_text("".join(
        f"def plain_{j}(x):\n    return x + {j}\n\n" for j in range(WRITE_BATCH)))
    (root / "notes.txt").write_text("Some notes about the project.\n" * 5)
    (root / "z_documented.py").write_text("".join(
        f'def documented_{j}(x):\n    """Scale x by {j}."""\n    return x * {j}\n\n'
        for j in range(20)))
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    written: list[int] = []
    summary = ws.sync_vectors(progress=lambda done, _: written.append(done),
                              should_stop=lambda: bool(written and written[-1] > 0))
    assert summary is not None and summary.cancelled and summary.embedded == WRITE_BATCH
    vindex = ws.vector_index()
    assert vindex is not None
    embedded = vindex.vectors.chunk_ids()
    by_path: dict[str, set[str]] = {}
    for s in ws.store.embedding_sources():
        by_path.setdefault(s.path, set()).add(s.chunk_id)
    assert by_path["z_documented.py"] <= embedded  # last in path order, first embedded
    assert not by_path["tests/test_early.py"] & embedded  # first in path order, embedded last
    assert not by_path["notes.txt"] & embedded
    ws.close()


def test_a_vector_table_of_an_older_schema_is_rebuilt_by_the_next_sync(tmp_path: Path) -> None:
    """Before summary vectors, a table had one row per chunk and no `key` or `surface`. Read as
    today's, its rows would be garbage; the next sync must drop it, say why, and rebuild."""
    import lancedb
    import pyarrow as pa

    from indexing.embed import Embedder
    from indexing.extract import extract
    from indexing.lance_core import CoreTable
    from indexing.schema import VECTOR_SCHEMA_VERSION
    from indexing.store import FileWrite, Store, text_hash
    from indexing.vector_index import VectorIndex
    from indexing.vectors import schema_version

    text = (SAMPLE / "src" / "users" / "store.py").read_text(encoding="utf-8")
    extraction = extract("store.py", text)
    assert extraction is not None
    store = Store(tmp_path / "idx")
    with store.batch():
        store.write_file(FileWrite("store.py", len(text), 1, text_hash(text), "python", text,
                                   extraction))
    old = pa.schema([("chunk_id", pa.string()), ("path", pa.string()), ("lang", pa.string()),
                     ("kind", pa.string()), ("text_hash", pa.string()),
                     ("vector", pa.list_(pa.float32(), 384))])
    sources = store.embedding_sources()
    lancedb.connect(str(tmp_path / "idx" / "vectors")).create_table("chunks", pa.table({
        "chunk_id": [s.chunk_id for s in sources], "path": [s.path for s in sources],
        "lang": [s.lang for s in sources], "kind": [s.kind for s in sources],
        "text_hash": [text_hash(s.text) for s in sources],
        "vector": [[0.5] * 384 for _ in sources]}, schema=old))

    vindex = VectorIndex(store, tmp_path / "idx", Embedder())
    assert vindex.version() is None  # unreadable as today's table: not served
    summary = vindex.sync()
    assert summary.rebuilt is not None and "schema version 1" in summary.rebuilt
    assert f"reads version {VECTOR_SCHEMA_VERSION}" in summary.rebuilt
    assert summary.embedded > 0 and not summary.cancelled
    table = CoreTable(tmp_path / "idx" / "vectors", "chunks")
    assert schema_version(table.schema()) == VECTOR_SCHEMA_VERSION
    have, total = vindex.coverage()
    assert have == total == (len(sources) + 2 * store.leading_chunk_count()
                             + store.chunked_file_count())
    assert vindex.sync().rebuilt is None  # and the next one has nothing to rebuild
    store.close()


# -- repair and bounds ---------------------------------------------------------------------------


@pytest.mark.parametrize("victim", ["vectors/chunks.lance", "vectors"])
def test_kebab_index_repairs_a_vector_table_replaced_by_a_file(
        synced: Workspace, victim: str, capsys: pytest.CaptureFixture[str]) -> None:
    from kebab_lsp import cli

    synced.close()
    target = synced.index_dir / victim
    shutil.rmtree(target)
    target.write_text("not a table")
    code = cli.main(["index", str(synced.root), "--index-dir", str(synced.settings.index_dir),
                     "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "VectorStoreUnavailable" not in err and "embedding failed" not in err
    assert '"embedded": 0' in out  # rebuilt from the embedding cache
    assert (synced.index_dir / "vectors" / "chunks.lance").is_dir()
    assert complete(synced)


def test_a_sync_prunes_the_embedding_cache(synced: Workspace,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from indexing.store import embed_cache

    monkeypatch.setattr(embed_cache, "EMBED_CACHE_MIN_SPARE", 5)
    monkeypatch.setattr(embed_cache, "EMBED_CACHE_SPARE_RATIO", 0.0)
    path = synced.root / "src" / "users" / "store.py"
    original = path.read_text()
    for i in range(4):  # every edit leaves the previous texts' vectors unneeded
        path.write_text(original.replace("def ", f"def v{i}_"))
        synced.indexer.index()
        assert synced.sync_vectors() is not None
    vindex = synced.vector_index()
    assert vindex is not None
    needed = {k for k in vindex.vectors.row_hashes().values()}
    size = synced.store.embed_cache_size()
    assert len(needed) < size <= len(needed) + 5
    assert complete(synced)

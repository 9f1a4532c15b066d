"""Refs in the store: written with their file, replaced when it changes, gone when it goes,
kept (under the new path) when it is renamed; stored packed (one value per file, a row per
name it holds), they read back exactly what extraction found, through every lookup."""

from __future__ import annotations

import os
import random
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.filters import Filters
from indexing.indexer import extract_file
from indexing.positions import utf16_len
from indexing.records import Ref
from indexing.settings import Settings
from indexing.store import StoreCorrupt
from indexing.store.refs import KINDS, indexed_name, pack_refs, unpack_refs
from indexing.text import decode
from kebab_lsp.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]


def refs_of(ws: Workspace, name: str) -> list[tuple[str, str, int, int, str | None]]:
    keys = ws.store.ref_keys(name, Filters())
    rows = ws.store.refs_by_rowid([k.rowid for k in keys])
    out = []
    for key in keys:
        row = rows[key.rowid]
        out.append((row.path, row.kind, row.span.start_line, row.span.start_col,
                    row.symbol.qualified_name if row.symbol else None))
    return sorted(out)


def test_refs_of_a_name_with_their_definitions(workspace: Workspace) -> None:
    assert refs_of(workspace, "UserStore") == [
        ("tests/test_store.py", "call", 4, 12, "test_get_user_by_id"),
        ("tests/test_store.py", "import", 0, 24, None),
    ]
    assert refs_of(workspace, "add_user") == [
        ("tests/test_store.py", "call", 5, 10, "test_get_user_by_id")]
    assert workspace.store.ref_counts("MAX_USERS") == {"identifier": 1}
    row = workspace.store.refs_by_rowid(
        [workspace.store.ref_keys("add_user", Filters())[0].rowid])
    assert next(iter(row.values())).receiver == "store"
    only_go = workspace.store.ref_keys("UserStore", Filters(langs=("go",)))
    assert only_go == []


def test_refs_follow_their_file(workspace: Workspace) -> None:
    test_file = workspace.root / "tests/test_store.py"
    test_file.write_text(test_file.read_text().replace("store.add_user(1, \"ada\")\n", ""))
    workspace.indexer.index()
    assert refs_of(workspace, "add_user") == []
    assert [r[1] for r in refs_of(workspace, "UserStore")] == ["call", "import"]

    os.rename(test_file, workspace.root / "tests/test_users.py")
    workspace.indexer.index()
    assert {r[0] for r in refs_of(workspace, "UserStore")} == {"tests/test_users.py"}

    (workspace.root / "tests/test_users.py").unlink()
    workspace.indexer.index()
    assert refs_of(workspace, "UserStore") == []
    for table in ("ref_files", "ref_names"):  # nothing of the file is left behind
        assert workspace.store.conn.execute(f"SELECT count(*) FROM {table} r LEFT JOIN files f "
                                            "ON f.id = r.file_id WHERE f.id IS NULL"
                                            ).fetchone()[0] == 0


# -- the packed form (schema 11): one value per file, a (name, file) row per name -----------------


def _random_refs(rnd: random.Random, count: int) -> list[Ref]:
    names = ["x", "self", "getGrößeInPixel", "a\u0301", "𝔘nicode", "has space", "tab\there",
             "long" * 40, "", "多字节", "\udc80lone"]
    names += [f"name_{i}" for i in range(rnd.randrange(1, 400))]
    refs = []
    line = 0
    for _ in range(count):
        line += rnd.choice([0, 0, 1, 1, 2, 40, 200, 70_000])
        name = rnd.choice(names)
        kind = rnd.choice(KINDS)
        col = rnd.choice([0, 4, 127, 128, 5000, 70_000])
        width = utf16_len(name) + (2 if kind == "string" else 0)
        end_line, end_col = rnd.choice([(line, col + width), (line, col + width),
                                        (line, col + width + 1), (line + 3, 7)])
        refs.append(Ref(name, kind, line, col, end_line, end_col,
                        rnd.choice([None, None, 0, 3, 127, 128, 40_000]),
                        rnd.choice([None, None, "self", "self.store", "a.b()", "ü"])))
    return refs


def _as_stored(ref: Ref) -> tuple[object, ...]:
    return (ref.name, ref.kind, ref.receiver, ref.start_line, ref.start_col, ref.end_line,
            ref.end_col, ref.symbol)


@pytest.mark.parametrize("seed", range(40))
def test_packed_refs_read_back_exactly(seed: int) -> None:
    rnd = random.Random(seed)
    refs = _random_refs(rnd, rnd.choice([1, 2, 10, 300, 3000]))
    packed = pack_refs(refs)
    assert packed is not None
    assert sorted(unpack_refs(packed.blob), key=repr) == sorted(map(_as_stored, refs), key=repr)
    counted = {name: counts for name, _at, *counts in packed.names}
    assert set(counted) == {r.name for r in refs if indexed_name(r.name)}
    for name, counts in counted.items():
        assert counts == [sum(1 for r in refs if r.name == name and r.kind == k) for k in KINDS]
    assert pack_refs([]) is None


def test_a_group_of_more_than_64k_bytes_and_a_long_name_read_back() -> None:
    """Every width of the section's fixed-width lengths (1, 2 and 4 bytes)."""
    refs = [Ref("n" * 70_000, "string", 0, 0, 0, 70_002)]
    refs += [Ref("many", "call", i, 130, i, 134, i % 300, "recv") for i in range(0, 40_000, 2)]
    packed = pack_refs(refs)
    assert packed is not None
    assert sorted(unpack_refs(packed.blob), key=repr) == sorted(map(_as_stored, refs), key=repr)


@pytest.fixture(scope="module")
def real_tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Workspace, dict]]:
    """This repository's `indexing` and `search` packages, indexed, with the refs extraction
    found in each file (what the store must give back)."""
    base = tmp_path_factory.mktemp("real")
    root = base / "tree"
    for package in ("indexing", "search"):
        shutil.copytree(REPO / package, root / package,
                        ignore=shutil.ignore_patterns("__pycache__", "embedding_model"))
    ws = Workspace(root, Settings(index_dir=str(base / "cache"), workers=1, embed=False))
    ws.indexer.index()
    extracted = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        extracted[rel] = extract_file(rel, decode(path.read_bytes())).refs
    yield ws, extracted
    ws.close()


@pytest.mark.slow
def test_a_real_tree_reads_back_what_extraction_found(real_tree: tuple[Workspace, dict]
                                                      ) -> None:
    ws, extracted = real_tree
    store = ws.store
    assert sum(map(len, extracted.values())) > 10_000
    assert store.snapshot()["refs"] == sorted(
        ((path, *_as_stored(r)) for path, refs in extracted.items() for r in refs), key=repr)
    by_name: dict[str, list[tuple[str, Ref]]] = {}
    for path, refs in extracted.items():
        for ref in refs:
            by_name.setdefault(ref.name, []).append((path, ref))
    names = sorted(by_name)
    assert any(not indexed_name(n) for n in names)  # strings of prose: read by a scan
    for name in names[::7] + ["self", "Store", "conn"]:
        want = sorted((p, r.kind, r.start_line, r.start_col) for p, r in by_name[name])
        keys = store.ref_keys(name, Filters())
        assert sorted((k.path, k.kind, k.line, k.col) for k in keys) == want, name
        assert store.ref_counts(name) == dict(sorted(Counter(
            r.kind for _, r in by_name[name]).items())), name
        rows = store.refs_by_rowid([k.rowid for k in keys])
        got = [(row.path, row.name, row.kind, row.receiver, row.span.start_line,
                row.span.start_col, row.span.end_line, row.span.end_col) for row in rows.values()]
        assert sorted(got, key=repr) == sorted(
            ((p, r.name, r.kind, r.receiver, r.start_line, r.start_col, r.end_line, r.end_col)
             for p, r in by_name[name]), key=repr), name
        for row in rows.values():
            assert row.chunk_id is not None and row.file_hash
            if row.symbol is not None:
                assert row.symbol.range.start_line <= row.span.start_line
    assert store.ref_keys("not a name anyone uses", Filters()) == []
    assert store.ref_counts("no_such_name_anywhere") == {}


@pytest.mark.slow
def test_filters_and_kinds_narrow_refs_as_before(real_tree: tuple[Workspace, dict]) -> None:
    ws, extracted = real_tree
    store = ws.store
    symbols = {(path, ord_): str(sym.kind) for path in extracted
               for ord_, sym in enumerate(extract_file(path, decode(
                   (ws.root / path).read_bytes())).symbols)}
    for name in ("self", "conn", "Store", "execute"):
        everything = [(p, r) for p, refs in extracted.items() for r in refs if r.name == name]
        calls = store.ref_keys(name, Filters(), ("call", "import"))
        assert sorted((k.path, k.line, k.col) for k in calls) == sorted(
            (p, r.start_line, r.start_col) for p, r in everything if r.kind in ("call", "import"))
        assert store.ref_keys(name, Filters(), ("no such kind",)) == []
        in_search = store.ref_keys(name, Filters(path_glob="search/**"))
        assert sorted((k.path, k.line, k.col) for k in in_search) == sorted(
            (p, r.start_line, r.start_col) for p, r in everything if p.startswith("search/"))
        in_methods = store.ref_keys(name, Filters(kinds=("method",)))
        assert sorted((k.path, k.line, k.col) for k in in_methods) == sorted(
            (p, r.start_line, r.start_col) for p, r in everything
            if r.symbol is not None and symbols[(p, r.symbol)] == "method")
        assert store.ref_keys(name, Filters(langs=("go",))) == []


@pytest.mark.slow
def test_the_name_at_a_position_is_the_innermost_ref_there(real_tree: tuple[Workspace, dict]
                                                           ) -> None:
    ws, extracted = real_tree
    for path in ("indexing/store/writes.py", "search/usage.py", "indexing/text.py"):
        refs = extracted[path]
        symbols = extract_file(path, decode((ws.root / path).read_bytes())).symbols
        for ref in refs[::3]:
            for col in (ref.start_col, (ref.start_col + ref.end_col) // 2, ref.end_col,
                        ref.end_col + 1):
                around = [r for r in refs if r.kind != "string" and
                          r.start_line == ref.start_line and r.start_col <= col <= r.end_col]
                defined = [s for s in symbols if s.selection.start_line == ref.start_line
                           and s.selection.start_col <= col <= s.selection.end_col]
                want = (max(around, key=lambda r: r.start_col).name if around else
                        max(defined, key=lambda s: s.selection.start_col).name if defined
                        else None)
                assert ws.store.name_at(path, ref.start_line, col) == want, (path, ref, col)
        assert ws.store.name_at(path, 10**6, 0) is None  # past the end of the file
        imports = sorted((r.start_line, r.start_col, r.name) for r in refs if r.kind == "import")
        file = ws.store.file_by_path(path)
        assert file is not None
        assert ws.store.imports_of(file.rowid) == list(dict.fromkeys(n for *_, n in imports))


def test_refs_that_do_not_decode_are_damage(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text("import os\n\ndef f():\n    return os.path.join('x', 'y')\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "cache"), workers=1, embed=False))
    ws.indexer.index()
    assert [k.kind for k in ws.store.ref_keys("os", Filters())] == ["import", "identifier"]
    with ws.store.writing() as conn:
        good = conn.execute("SELECT refs FROM ref_files").fetchone()[0]
        conn.execute("UPDATE ref_files SET refs = zeroblob(length(refs))")
    with pytest.raises(StoreCorrupt):
        ws.store.ref_keys("os", Filters())
    assert ws.store.damage is not None and "refs" in ws.store.damage
    for read in (lambda: ws.store.name_at("a.py", 0, 8), ws.store.snapshot,
                 lambda: ws.store.imports_of(1)):
        with pytest.raises(StoreCorrupt):
            read()
    with ws.store.writing() as conn:  # cut short: found by whatever reads its names
        conn.execute("UPDATE ref_files SET refs = ?", (good[:-3],))
    with pytest.raises(StoreCorrupt):
        ws.store.name_at("a.py", 0, 8)
    ws.close()

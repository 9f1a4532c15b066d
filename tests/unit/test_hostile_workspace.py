"""Workspaces that fight back: names that are not UTF-8, files that cannot be read, vanish or
change while read, symlinks that lead out, secrets, and build folders that hold real source.

Every test runs the real indexer on real files and a real SQLite store; one bad file must
never stop the rest, and every file left out is counted under a reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from indexing.discover import discover, is_indexable_path
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest

LATIN1_NAME = b"caf\xe9.py"  # "café.py" in Latin-1: not valid UTF-8


def write(root: Path, rel: str | bytes, data: str | bytes = "x = 1\n") -> Path:
    path = Path(os.fsdecode(os.path.join(os.fsencode(root), os.fsencode(rel))))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def open_ws(root: Path, tmp_path: Path, **settings: object) -> Workspace:
    return Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False,
                                    **settings))  # type: ignore[arg-type]


def lexical(ws: Workspace, query: str) -> list[str]:
    result = ws.searcher.search(SearchRequest(query=query, mode="lexical"))
    return [h.path for h in result.hits]


# -- names that are not UTF-8 ----------------------------------------------------------------


def test_a_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, LATIN1_NAME, "def latin_name_fn():\n    return 1\n")
    write(root, b"d\xe9j\xe0/inner.py", "def inside_bad_dir():\n    pass\n")
    write(root, "ok.py", "def plain_fn():\n    pass\n")
    found = discover(root)
    assert [c.path for c in found.candidates] == ["ok.py"]
    assert sorted(found.skipped) == [("caf\\xe9.py", "undecodable_name"),
                                     ("d\\xe9j\\xe0/", "undecodable_name")]
    ws = open_ws(root, tmp_path)
    try:
        summary = ws.indexer.index()
        assert (summary.new, summary.skipped_by_reason) == (1, {"undecodable_name": 2})
        assert lexical(ws, "plain_fn") == ["ok.py"]
        assert lexical(ws, "latin_name_fn") == []
        # A watcher or a save reporting the file changes nothing and raises nothing.
        bad = Path(os.fsdecode(os.fsencode(root) + b"/" + LATIN1_NAME))
        assert not is_indexable_path(root, bad)
        assert ws.indexer.update_paths([bad]).new == 0
        assert ws.store.stats().files == 1
    finally:
        ws.close()


@pytest.mark.subprocess
@pytest.mark.slow
def test_kebab_index_and_search_go_on_past_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, LATIN1_NAME, "def latin_name_fn():\n    return 1\n")
    write(root, "ok.py", "def plain_fn():\n    pass\n")
    env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"))

    def kebab(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args], env=env,
                              capture_output=True, text=True, timeout=120, check=False)

    indexed = kebab("index", str(root), "--no-embed", "--list-skipped")
    assert indexed.returncode == 0, indexed.stderr
    assert "undecodable_name 1" in indexed.stdout
    assert "undecodable_name caf\\xe9.py" in indexed.stdout
    found = kebab("search", "plain_fn", str(root), "--mode", "lexical")
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("ok.py:1:5")


def kebab(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300, check=False)


# -- the tree changing between the walk and the read ------------------------------------------


def test_a_file_swapped_for_a_symlink_out_after_the_walk_is_not_read(tmp_path: Path) -> None:
    """The leak seen about 1 run in 25: a file replaced by a symlink to content outside the
    workspace while a scan runs. Made deterministic by swapping between the scan's first
    step (the walk) and the rest (the reads): the file and a whole folder are swapped."""
    root = tmp_path / "ws"
    outside = tmp_path / "outside"
    write(outside, "leak.py", "OUTSIDE_LEAK_TOKEN = 1\n")
    write(outside, "pkg/mod.py", "OUTSIDE_PKG_TOKEN = 1\n")
    write(root, "a.py", "inside_a_token = 1\n")
    write(root, "pkg/mod.py", "inside_pkg_token = 1\n")
    write(root, "ok.py", "def still_indexed():\n    pass\n")
    ws = open_ws(root, tmp_path)
    try:
        job = ws.indexer.scan()
        assert job.step()  # the walk: a.py and pkg/mod.py are regular files inside
        (root / "a.py").unlink()
        os.symlink(outside / "leak.py", root / "a.py")
        os.rename(root / "pkg", root / "pkg_old")
        os.symlink(outside / "pkg", root / "pkg")
        summary = job.run()
        assert summary.skipped_by_reason == {"symlink_outside": 2}
        assert sorted(summary.skipped_paths) == [("a.py", "symlink_outside"),
                                                 ("pkg/mod.py", "symlink_outside")]
        for query in ("OUTSIDE_LEAK_TOKEN", "OUTSIDE_PKG_TOKEN", '"OUTSIDE_"'):
            assert lexical(ws, query) == [], query
        assert lexical(ws, "still_indexed") == ["ok.py"]
        texts = [t for (t,) in ws.store.conn.execute("SELECT unpack(text) FROM file_text")]
        assert not any("OUTSIDE" in t for t in texts)
    finally:
        ws.close()


def test_files_that_vanish_or_change_kind_after_the_walk_are_counted(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "vanishes.py", "vanishing_token = 1\n")
    write(root, "pkg/mod.py", "folder_token = 1\n")
    write(root, "becomes_dir.py", "dir_token = 1\n")
    write(root, "becomes_fifo.py", "fifo_token = 1\n")
    write(root, "grows.py", "growing_token = 1\n")
    write(root, "ok.py", "def still_indexed():\n    pass\n")
    ws = open_ws(root, tmp_path)
    try:
        assert ws.indexer.index().new == 6
        for name in ("vanishes.py", "pkg/mod.py", "becomes_dir.py", "becomes_fifo.py",
                     "grows.py"):  # changed, so the next scan must read them again
            write(root, name, (root / name).read_text() + "# touched\n")
        job = ws.indexer.scan()
        assert job.step()  # the walk saw five regular files to read
        (root / "vanishes.py").unlink()
        (root / "pkg/mod.py").unlink()
        (root / "pkg").rmdir()
        write(root, "pkg", "a file where the folder was\n")  # pkg/mod.py: ENOTDIR
        (root / "becomes_dir.py").unlink()
        (root / "becomes_dir.py").mkdir()
        (root / "becomes_fifo.py").unlink()
        os.mkfifo(root / "becomes_fifo.py")  # opening it must not wait for a writer
        write(root, "grows.py", "x" * (2 * 1024 * 1024))  # past maxFileBytes: not read whole
        summary = job.run()
        assert summary.skipped_by_reason == {"vanished": 2, "not_regular": 2, "too_large": 1}
        assert summary.deleted == 5  # what the index held of them is gone with them
        for token in ("vanishing_token", "folder_token", "dir_token", "fifo_token",
                      "growing_token"):
            assert lexical(ws, token) == [], token
        assert lexical(ws, "still_indexed") == ["ok.py"]
    finally:
        ws.close()


def test_a_write_too_recent_to_tell_by_size_and_time_is_read_again(tmp_path: Path) -> None:
    """A write during a read, in the same tick of the file system's clock, can leave size and
    time as they were: the next scan's cheap check would trust a torn read for good. As git
    does with "racily clean" files, a file modified within `RACY_NS` of its read has no time
    recorded, so the next scan reads it again. The same-tick write is made by restoring the
    time after a same-size rewrite."""
    root = tmp_path / "ws"
    path = write(root, "m.py", "def before_write():\n    pass\n")
    ws = open_ws(root, tmp_path)
    try:
        assert ws.indexer.index().new == 1
        st = path.stat()
        path.write_text("def after_writes():\n    pass\n")  # the same size
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        summary = ws.indexer.index()
        assert summary.changed == 1
        assert lexical(ws, "after_writes") == ["m.py"] and lexical(ws, "before_write") == []
        # A file old enough is trusted by its size and time, and not read at all.
        hour_ago = time.time_ns() - 3600 * 10**9
        os.utime(path, ns=(hour_ago, hour_ago))
        assert ws.indexer.index().unchanged == 1
        assert ws.store.file_state("m.py").mtime_ns == hour_ago  # type: ignore[union-attr]
        assert ws.indexer.index().unchanged == 1
    finally:
        ws.close()


def test_symlink_loops_are_counted_and_the_rest_indexed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "ok.py", "def still_indexed():\n    pass\n")
    os.symlink(root / "loop_b.py", root / "loop_a.py")
    os.symlink(root / "loop_a.py", root / "loop_b.py")
    os.symlink(root / "self", root / "self")
    os.symlink(root, root / "back")  # a folder link back into the tree: not walked twice
    ws = open_ws(root, tmp_path)
    try:
        summary = ws.indexer.index()
        assert summary.skipped_by_reason == {"symlink_loop": 3, "not_regular": 1}
        assert lexical(ws, "still_indexed") == ["ok.py"]
        # A watcher reporting a loop changes nothing and raises nothing.
        assert ws.indexer.update_paths([root / "loop_a.py"]).new == 0
    finally:
        ws.close()


def _nobody() -> tuple[int, int] | None:
    try:
        import pwd

        entry = pwd.getpwnam("nobody")
    except (ImportError, KeyError):
        return None
    return entry.pw_uid, entry.pw_gid


def test_permission_denied_on_a_file_and_a_folder_is_counted(tmp_path: Path) -> None:
    """chmod 000 stops no one running as root (tests do, in CI), so as root the index runs in
    a forked child that has become `nobody`: a real EACCES from the kernel, no mocks."""
    ids = _nobody() if os.geteuid() == 0 else None
    if os.geteuid() == 0 and ids is None:
        pytest.skip("running as root and there is no user `nobody` to drop privileges to")
    base = Path(tempfile.mkdtemp(prefix="kebab-perm-"))  # pytest's tmp dirs are root-only
    try:
        root = base / "ws"
        write(root, "ok.py", "def still_indexed():\n    pass\n")
        write(root, "locked.py", "locked_token = 1\n")
        write(root, "closed/inner.py", "closed_token = 1\n")
        index_dir = base / "index"
        index_dir.mkdir()
        if ids is not None:
            for path in (base, root, index_dir, *root.rglob("*")):
                os.chown(path, *ids)
        # Warm what indexing imports lazily: `nobody` may not read the interpreter's files.
        warm = open_ws(root, tmp_path / "warm")
        warm.indexer.index()
        warm.close()
        (root / "locked.py").chmod(0)
        (root / "closed").chmod(0)
        result = _index_as(root, index_dir, ids)
        assert result["skipped_paths"] == [["closed/", "unreadable"],
                                           ["locked.py", "unreadable"]], result
        assert result["new"] == 1 and result["found"] == ["ok.py"], result
    finally:
        for path in (base / "ws/closed", base / "ws/locked.py"):
            if path.exists():
                path.chmod(0o700)
        shutil.rmtree(base)


def _index_as(root: Path, index_dir: Path, ids: tuple[int, int] | None) -> dict[str, object]:
    """Index `root` and report what happened; with `ids` (uid, gid), in a forked child that
    has dropped root for them."""
    def run() -> dict[str, object]:
        ws = Workspace(root, Settings(index_dir=str(index_dir), workers=1, embed=False))
        try:
            summary = ws.indexer.index()
            return {"new": summary.new, "skipped_paths": sorted(summary.skipped_paths),
                    "found": lexical(ws, "still_indexed")}
        finally:
            ws.close()

    if ids is None:
        result: dict[str, object] = json.loads(json.dumps(run()))
        return result
    read, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop root for good, index, report, and leave at once
        code = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(ids[1])
            os.setuid(ids[0])
            os.write(write_end, json.dumps(run()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, data
    result = json.loads(data)
    return result


# -- size -------------------------------------------------------------------------------------


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_50mb_single_line_file_is_skipped_counted_and_shown(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "ok.py", "def still_indexed():\n    pass\n")
    with open(root / "huge.min.txt.js", "wb") as f:  # one line, no "\n" anywhere
        chunk = b"var_" + b"x" * 1020
        for _ in range(50 * 1024):
            f.write(chunk)
    env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"))
    indexed = kebab(env, "index", str(root), "--no-embed", "--list-skipped")
    assert indexed.returncode == 0, indexed.stderr
    assert "skipped by reason: too_large 1" in indexed.stdout
    assert "too_large        huge.min.txt.js" in indexed.stdout
    status = json.loads(kebab(env, "status", str(root), "--json").stdout)
    assert status["files"] == 1
    assert status["skipped"] == {"total": 1, "by_reason": {"too_large": 1}, "text_only": 0}
    found = kebab(env, "search", "still_indexed", str(root), "--mode", "lexical")
    assert found.stdout.startswith("ok.py:1:5"), found.stdout


# -- secrets ----------------------------------------------------------------------------------

KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
       "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACBsecretkeymaterialsecretkeymaterialsecretAAAAkEAAAAAAAAAA==\n"
       "-----END OPENSSH PRIVATE KEY-----\n")
#: Every kind of secret, each holding the word `leaked_secret_word`.
SECRETS = {
    ".env": "API_TOKEN=leaked_secret_word\n",
    "app/.env.local": "DB_PASSWORD=leaked_secret_word\n",
    "certs/server.pem": "leaked_secret_word\n",
    "certs/server.key": "leaked_secret_word\n",
    "id_rsa": "leaked_secret_word\n",
    "keys/id_ed25519": "leaked_secret_word\n",
    "keys/id_deploy": "leaked_secret_word\n",
    "home/.ssh/config": "Host x  # leaked_secret_word\n",
    "home/.ssh/id_rsa.pub": "ssh-ed25519 AAAA leaked_secret_word\n",
    "home/.aws/credentials": "aws_secret_access_key = leaked_secret_word\n",
    "credentials.json": '{"token": "leaked_secret_word"}\n',
    ".netrc": "machine x password leaked_secret_word\n",
    ".npmrc": "//registry/:_authToken=leaked_secret_word\n",
    "deploy/secrets.yaml": "token: leaked_secret_word\n",
    "deploy/secrets.yml": "token: leaked_secret_word\n",
    "notes/key_backup.txt": "leaked_secret_word\n" + KEY,  # a key by its content
    "config/settings.py": 'TLS_KEY = """\n' + KEY + '"""  # leaked_secret_word\n',
}
#: Look like secrets to a careless rule, and are not.
NOT_SECRETS = {
    "id_utils.py": "def not_a_secret_id():\n    pass\n",
    "src/id_maps/lookup.py": "def not_a_secret_lookup():\n    pass\n",
    "keys/id_rsa.pub.md": "# not_a_secret_doc\n",
    ".env.example": "API_TOKEN=not_a_secret_template\n",
    "crypto/pem.py": ('PRIVATE_HEADER = "-----BEGIN RSA PRIVATE KEY-----"\n'
                      "def not_a_secret_parser():\n    pass\n"),
}


def test_secrets_are_skipped_and_counted_unless_included(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for rel, text in {**SECRETS, **NOT_SECRETS}.items():
        write(root, rel, text)
    ws = open_ws(root, tmp_path)
    try:
        summary = ws.indexer.index()
        assert summary.skipped_by_reason == {"secret": len(SECRETS)}
        assert sorted(p for p, _ in summary.skipped_paths) == sorted(SECRETS)
        assert summary.new == len(NOT_SECRETS)
        assert lexical(ws, "leaked_secret_word") == []
        assert lexical(ws, '"leaked_secret_word"') == []
        assert lexical(ws, '"PRIVATE KEY"') == ["crypto/pem.py"]
        for word in ("not_a_secret_id", "not_a_secret_lookup", "not_a_secret_doc",
                     "not_a_secret_template", "not_a_secret_parser"):
            assert len(lexical(ws, word)) == 1, word
        # A save of a secret, or of a file that now holds a key, is not indexed either.
        assert not is_indexable_path(root, root / ".env")
        assert ws.indexer.update_paths([root / ".env"]).new == 0
        write(root, "id_utils.py", "def not_a_secret_id():\n    pass\n" + KEY)
        updated = ws.indexer.update_paths([root / "id_utils.py"])
        assert updated.deleted == 1 and updated.skipped_by_reason == {"secret": 1}
    finally:
        ws.close()
    ws = open_ws(root, tmp_path / "with", include_secrets=True)
    try:
        summary = ws.indexer.index()
        assert summary.skipped == 0
        assert len(lexical(ws, '"leaked_secret_word"')) == len(SECRETS)
    finally:
        ws.close()


@pytest.mark.subprocess
@pytest.mark.slow  # two CLI runs
def test_kebab_index_skips_secrets_and_include_secrets_turns_it_off(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for rel, text in {**SECRETS, **NOT_SECRETS}.items():
        write(root, rel, text)
    env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"))
    indexed = kebab(env, "index", str(root), "--no-embed", "--list-skipped")
    assert indexed.returncode == 0, indexed.stderr
    assert f"skipped by reason: secret {len(SECRETS)}" in indexed.stdout
    assert "secret           home/.aws/credentials" in indexed.stdout
    status = json.loads(kebab(env, "status", str(root), "--json").stdout)
    assert status["skipped"]["by_reason"] == {"secret": len(SECRETS)}
    found = kebab(env, "search", '"leaked_secret_word"', str(root))
    assert found.returncode == 0 and found.stdout == ""
    # Included, then excluded again: the ones found by their content, whose size and time
    # did not change, must go too.
    both = json.loads(kebab(env, "index", str(root), "--no-embed", "--include-secrets",
                            "--json").stdout)
    assert both["skipped"] == 0 and both["new"] == len(SECRETS)
    found = kebab(env, "search", '"leaked_secret_word"', str(root), "--include-secrets",
                  "-k", "50")
    assert len(found.stdout.splitlines()) == len(SECRETS)
    again = json.loads(kebab(env, "index", str(root), "--no-embed", "--json").stdout)
    assert again["skipped_by_reason"] == {"secret": len(SECRETS)}
    assert again["deleted"] == len(SECRETS)
    found = kebab(env, "search", '"leaked_secret_word"', str(root))
    assert found.stdout == ""


# -- build folders that hold source -----------------------------------------------------------


def test_build_output_is_skipped_at_the_top_only(tmp_path: Path) -> None:
    """`build`, `dist` and `target` at the workspace's top are output; deeper down they are
    often source git tracks (pip's own `operations/build/`), and skipped only when an ignore
    file says so."""
    root = tmp_path / "ws"
    write(root, "build/lib/copy.py", "def build_copy():\n    pass\n")
    write(root, "dist/pkg.js", "function dist_copy() {}\n")
    write(root, "target/debug/gen.rs", "fn target_copy() {}\n")
    write(root, "src/pip/_internal/operations/build/wheel.py", "def build_wheel_pep517():\n"
                                                               "    pass\n")
    write(root, "crates/x/src/target/mod.rs", "pub fn target_module() {}\n")
    write(root, "web/dist/app.js", "function web_dist_output() {}\n")
    write(root, "web/.gitignore", "dist/\n")
    ws = open_ws(root, tmp_path)
    try:
        summary = ws.indexer.index()
        assert dict(summary.skipped_paths) == {
            "build/": "default_dir", "dist/": "default_dir", "target/": "default_dir",
            "web/dist/": "gitignore"}
        assert lexical(ws, "build_wheel_pep517") == ["src/pip/_internal/operations/build/wheel.py"]
        assert lexical(ws, "target_module") == ["crates/x/src/target/mod.rs"]
        assert lexical(ws, "build_copy") == []
        nested = root / "src/pip/_internal/operations/build/wheel.py"
        assert is_indexable_path(root, nested)
        assert not is_indexable_path(root, root / "build/lib/copy.py")
    finally:
        ws.close()
    # An ignore file can keep a top-level one that is source.
    write(root, ".kebabignore", "!/build/\n")
    found = discover(root)
    assert "build/lib/copy.py" in [c.path for c in found.candidates]
    assert is_indexable_path(root, root / "build/lib/copy.py")

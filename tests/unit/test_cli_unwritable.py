"""An index location the user cannot write, for real: folders made read-only with chmod, run
as a user runs them (the real `kebab` in a subprocess). Tests run as root, whom chmod does not
stop, so as root the command runs without the capabilities that bypass file permissions
(`setpriv`, as the bug hunt did); without `setpriv` (or the right to drop them) the tests are
skipped, saying so.

What a user gets: one clear line naming the path and what to do, and a non-zero status; never
a traceback. A read-only index still answers searches and reports its status (reading who
writes it needs no write access), and `kebab doctor` says the location cannot be used."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.subprocess]

SETPRIV = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
           "--inh-caps", "-dac_override,-dac_read_search", "--"]


def _unprivileged() -> list[str]:
    """The prefix that makes permissions apply to this process's children."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: chmod would not stop the CLI")
    probe = subprocess.run([*SETPRIV, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot drop CAP_DAC_OVERRIDE here: {probe.stderr.strip()}")
    return SETPRIV


def kebab(*args: str, env: dict[str, str] | None = None, unprivileged: bool = True
          ) -> subprocess.CompletedProcess[str]:
    prefix = _unprivileged() if unprivileged else []
    return subprocess.run([*prefix, sys.executable, "-m", "kebab_lsp.cli", *args],
                          capture_output=True, text=True, timeout=120,
                          env=env or dict(os.environ, HF_HUB_OFFLINE="1"))


def one_clear_line(done: subprocess.CompletedProcess[str], *says: str) -> str:
    """A failure told in one line on stderr (saying each of `says`), status 1."""
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kebab: "), done.stderr
    for words in says:
        assert words in lines[0], lines[0]
    return lines[0]


def read_only(*paths: Path) -> None:
    for top in paths:
        for path in [top, *top.rglob("*")]:
            mode = path.lstat().st_mode
            if not stat.S_ISLNK(mode):
                path.chmod(stat.S_IMODE(mode) & ~0o222)


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def zzreadonly():\n    return 1\n")
    yield root
    for path in [tmp_path, *tmp_path.rglob("*")]:  # writable again, for pytest to remove
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o700)


def test_a_read_only_index_answers_and_reports_but_is_not_written(workspace: Path,
                                                                   tmp_path: Path) -> None:
    index = tmp_path / "index"
    built = kebab("index", str(workspace), "--no-embed", "--index-dir", str(index),
                  unprivileged=False)
    assert built.returncode == 0, built.stderr
    read_only(index)

    status = kebab("status", str(workspace), "--index-dir", str(index), "--json")
    assert status.returncode == 0 and "Traceback" not in status.stderr, status.stderr
    info = json.loads(status.stdout)
    assert info["files"] == 1 and info["writer"] is None
    [warning] = info["warnings"]
    assert info["index_dir"] in warning and "cannot be written" in warning, warning

    found = kebab("search", "zzreadonly", str(workspace), "--index-dir", str(index))
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("a.py:1:5  zzreadonly (function)"), found.stdout

    refused = kebab("index", str(workspace), "--no-embed", "--index-dir", str(index))
    one_clear_line(refused, f"cannot write the index at {info['index_dir']}", "make it writable",
                   "--index-dir")


def test_an_index_folder_that_cannot_be_created(workspace: Path, tmp_path: Path) -> None:
    parent = tmp_path / "locked"
    parent.mkdir()
    read_only(parent)
    for command in (("index", str(workspace), "--no-embed"),
                    ("search", "zzreadonly", str(workspace)), ("status", str(workspace))):
        done = kebab(*command, "--index-dir", str(parent / "indexes"))
        one_clear_line(done, f"cannot create the folder {parent / 'indexes'}",
                       f"make {parent} writable", "--index-dir")


@pytest.mark.model
def test_a_read_only_cache_home(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    read_only(cache)
    env = {k: v for k, v in os.environ.items() if k != "KEBAB_INDEX_DIR"}
    env.update(XDG_CACHE_HOME=str(cache), HF_HUB_OFFLINE="1")
    one_clear_line(kebab("search", "zzreadonly", str(workspace), env=env),
                   f"cannot create the folder {cache / 'kebab-lsp'}", f"make {cache} writable")

    doctor = kebab("doctor", "--json", env=env)
    assert doctor.returncode == 1, doctor.stderr
    report = json.loads(doctor.stdout)
    assert report["model"]["ok"] is True  # the model is fine: the location is what fails
    assert report["index_location"]["ok"] is False
    assert f"{cache} cannot be written" in report["index_location"]["error"]
    text = kebab("doctor", env=env)
    assert f"indexes in  {cache / 'kebab-lsp'}  (cannot be used: {cache} cannot be written" \
        in text.stdout, text.stdout


def test_a_writer_lock_that_is_a_directory(workspace: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    built = kebab("index", str(workspace), "--no-embed", "--index-dir", str(index),
                  unprivileged=False)
    assert built.returncode == 0, built.stderr
    [folder] = [p for p in index.iterdir() if p.name.startswith("ws-")]
    (folder / "writer.lock").unlink()
    (folder / "writer.lock").mkdir()

    status = kebab("status", str(workspace), "--index-dir", str(index), "--json")
    assert status.returncode == 0 and "Traceback" not in status.stderr, status.stderr
    info = json.loads(status.stdout)
    assert info["writer"] is None and info["files"] == 1
    assert any("writer.lock is a directory" in w and "remove it" in w
               for w in info["warnings"]), info["warnings"]

    refused = kebab("index", str(workspace), "--no-embed", "--index-dir", str(index))
    one_clear_line(refused, f"{folder / 'writer.lock'} is a directory", "remove it")

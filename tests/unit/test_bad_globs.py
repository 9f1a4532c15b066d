"""Globs pathspec cannot read, given by the user: a filter's `path_glob` is refused as an
invalid glob (the CLI says so in one line, the server with -32602), and an `exclude` or
`languages` glob is refused as a bad setting is, with a warning that names it, the others
applying. Before, pathspec's error escaped: a traceback, or a folder that indexed nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from indexing.filters import InvalidGlob, glob_to_regex


def tree(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("def top_level_fn():\n    return 1\n")
    (root / "sub/b.py").write_text("def below_fn():\n    return 2\n")
    return root


# -- path_glob ending in a backslash (bug: pathspec's error escaped as a traceback) ----------


@pytest.mark.parametrize("glob", ["\\", "foo\\", "lib/\\", "a/\\/b"])
def test_a_path_glob_with_a_backslash_escaping_nothing_is_an_invalid_glob(glob: str) -> None:
    with pytest.raises(InvalidGlob, match=f"path_glob {glob!r}".replace("\\", "\\\\")
                       + " is not a valid glob: a '\\\\' at its end or before a '/' "
                       "escapes nothing"):
        glob_to_regex(glob)
    assert glob_to_regex("lib/\\*") is not None  # an escaped character is fine


def kebab(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"))
    return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.subprocess
def test_the_cli_refuses_a_path_glob_ending_in_a_backslash_in_one_line(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    run = kebab(tmp_path, "search", "below_fn", str(root), "--path-glob", "sub/\\")
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == ("kebab: path_glob 'sub/\\\\' is not a valid glob: a '\\' at its end "
                          "or before a '/' escapes nothing\n")

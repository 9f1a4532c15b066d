"""The `kebab search` text listing, run as a user runs it (a real subprocess): the matched
word marked where it is, whatever precedes it on the line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.subprocess]


def kebab(*args: str, index_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args, "--index-dir",
                           str(index_dir)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, HF_HUB_OFFLINE="1"))


def indexed(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    root, index_dir = tmp_path / "ws", tmp_path / "index"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    done = kebab("index", str(root), "--no-embed", index_dir=index_dir)
    assert done.returncode == 0, done.stderr
    return root, index_dir


def test_the_mark_is_on_the_word_after_emoji(tmp_path: Path) -> None:
    """The wire counts highlights in UTF-16 units (an emoji is two); the listing marks the
    same word in Python's text."""
    line = "\N{GRINNING FACE}\N{GRINNING FACE} qqalpha \N{GRINNING FACE} qqbeta"
    root, index_dir = indexed(tmp_path, {"notes.md": f"# Notes\n\n{line}\n"})
    done = kebab("search", '"qqbeta"', str(root), "--mode", "lexical", index_dir=index_dir)
    assert done.returncode == 0, done.stderr
    [listed] = done.stdout.splitlines()
    assert listed.endswith("\N{GRINNING FACE}\N{GRINNING FACE} qqalpha \N{GRINNING FACE} "
                           "[qqbeta]"), listed

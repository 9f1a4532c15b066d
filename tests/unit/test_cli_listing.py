"""The `kebab search` text listing, run as a user runs it (a real subprocess): one
`path:line:col` line per hit, whatever the file is called, with the matched word marked
where it is, whatever precedes it on the line."""

from __future__ import annotations

import json
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


def test_a_name_with_a_newline_is_one_escaped_line(tmp_path: Path) -> None:
    root, index_dir = indexed(tmp_path, {"new\nline.py": "def zznewline():\n    pass\n",
                                         "bell\x07\x1b[31m.py": "def zzbell():\n    pass\n"})
    done = kebab("search", "zznewline", str(root), index_dir=index_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["new\\x0aline.py:1:5  zznewline (function)  "
                                        "def [zznewline]():"], done.stdout
    done = kebab("search", "zzbell", str(root), index_dir=index_dir)
    assert done.stdout.splitlines()[0].startswith("bell\\x07\\x1b[31m.py:1:5  zzbell"), done.stdout
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    # --json carries the name as it is: it is data, not a line of a listing.
    wire = json.loads(kebab("search", "zznewline", str(root), "--json",
                            index_dir=index_dir).stdout)
    assert wire["hits"][0]["path"] == "new\nline.py"


def test_skipped_names_are_escaped_too(tmp_path: Path) -> None:
    root, index_dir = indexed(tmp_path, {"ok.py": "x = 1\n"})
    (root / "big\nfile.py").write_text("y = 1\n" * 4000, encoding="utf-8")
    done = kebab("index", str(root), "--no-embed", "--list-skipped", "--max-file-bytes", "1000",
                 index_dir=index_dir)
    assert done.returncode == 0, done.stderr
    listed = [line for line in done.stdout.splitlines() if "file.py" in line]
    assert [line.split()[-1] for line in listed] == ["big\\x0afile.py"], done.stdout


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

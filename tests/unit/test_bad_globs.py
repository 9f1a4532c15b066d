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
from indexing.settings import Settings, parse


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


# -- bad globs in the settings: refused by name, the rest applying -----------------------------


@pytest.mark.parametrize("bad", ["!", "**/[z-a]", "lib/\\"])
def test_a_bad_exclude_glob_is_refused_with_a_warning_naming_it(bad: str) -> None:
    base = Settings(exclude=("old/",))
    settings, warnings = parse({"exclude": ["tests/", bad], "defaultK": 7}, Settings(), base)
    assert settings.exclude == ("old/",)  # the setting in force stays
    assert settings.default_k == 7  # the others apply
    assert len(warnings) == 1
    assert warnings[0].startswith(f"kebab setting 'exclude' holds {bad!r}, which is not a "
                                  "valid gitignore pattern: ")
    assert warnings[0].endswith("; ignored")


def test_a_bad_languages_glob_is_refused_with_a_warning_naming_it() -> None:
    settings, warnings = parse({"languages": {"*.inc": "php", "[z-a]": "python"},
                                "symbolLimit": 5}, Settings())
    assert (settings.languages, settings.symbol_limit) == ((), 5)
    assert len(warnings) == 1
    assert warnings[0].startswith("kebab setting 'languages' holds '[z-a]', which is not a "
                                  "valid gitignore pattern: bad character range z-a")
    # From the command line's GLOB=LANG form too; a good glob still passes.
    _, warnings = parse({"languages": ["foo\\=python"]}, Settings())
    assert "'languages' holds 'foo\\\\'" in warnings[0]
    assert parse({"languages": ["*.inc=php"]}, Settings()) == (
        Settings(languages=(("*.inc", "php"),)), [])
    with pytest.raises(ValueError, match="exclude holds"):
        Settings(exclude=("!",))


@pytest.mark.subprocess
def test_the_cli_refuses_a_bad_exclude_glob_in_one_line(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    run = kebab(tmp_path, "index", str(root), "--no-embed", "--exclude", "[z-a]")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert run.stderr.startswith("kebab: 'exclude' holds '[z-a]', which is not a valid "
                                 "gitignore pattern: bad character range z-a")

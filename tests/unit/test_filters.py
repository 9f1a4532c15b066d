"""Path globs: one engine (pathspec's gitignore patterns) for discovery's ignore files and for
search filters, translated to a regex that SQLite and LanceDB apply alike."""

from __future__ import annotations

import re

import pathspec
import pytest

from indexing.filters import Filters, InvalidGlob, glob_to_regex
from search.query import glob_to_regex as query_glob_to_regex
from search.types import InvalidQuery

PATHS = [
    "setup.py",
    "src/app.py",
    "src/users/store.py",
    "src/users/store.pyi",
    "docs/tests.md",
    "tests/test_app.py",
    "pkg/tests/unit/test_x.go",
    "web/api.ts",
    "web/a-b c.ts",
    "!bang.py",
    "#hash.py",
    "star*.py",
]


def selected(glob: str) -> list[str]:
    rx = re.compile(glob_to_regex(glob))
    return [p for p in PATHS if rx.search(p)]


@pytest.mark.parametrize(
    ("glob", "paths"),
    [
        # `*` stays within one folder.
        ("src/*.py", ["src/app.py"]),
        ("*/*.py", ["src/app.py", "tests/test_app.py"]),
        # `**` crosses folders, including none.
        ("src/**/*.py", ["src/app.py", "src/users/store.py"]),
        ("**/store.py", ["src/users/store.py"]),
        ("src/**", ["src/app.py", "src/users/store.py", "src/users/store.pyi"]),
        # No `/`: the name at any depth; a folder's name selects what is in it.
        ("*.ts", ["web/api.ts", "web/a-b c.ts"]),
        ("store.py?", ["src/users/store.pyi"]),
        ("tests", ["tests/test_app.py", "pkg/tests/unit/test_x.go"]),
        ("tests/", ["tests/test_app.py", "pkg/tests/unit/test_x.go"]),
        # A `/` anywhere but the end anchors at the workspace root.
        ("/setup.py", ["setup.py"]),
        ("users/*.py", []),
        ("src/users/*.py", ["src/users/store.py"]),
        # Classes, and characters that mean something to a regex.
        ("*.py[i]", ["src/users/store.pyi"]),
        ("web/a-b c.ts", ["web/a-b c.ts"]),
        ("!bang.py", ["!bang.py"]),
        ("#hash.py", ["#hash.py"]),
        ("star\\*.py", ["star*.py"]),
    ],
)
def test_glob_semantics(glob: str, paths: list[str]) -> None:
    assert selected(glob) == paths


@pytest.mark.parametrize("glob", ["src/*.py", "**/store.py", "tests", "*.ts", "src/**"])
def test_a_glob_selects_what_the_same_line_ignores_in_discovery(glob: str) -> None:
    spec = pathspec.GitIgnoreSpec.from_lines([glob])
    assert selected(glob) == [p for p in PATHS if spec.match_file(p)]


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("", "must be a non-empty glob"),
        ("   ", "must be a non-empty glob"),
        ("a\0b", "must be a non-empty glob"),
        ("src/[a.py", "has an unbalanced '['"),
        ("src/a].py", "has an unbalanced '['"),
        ("[]", "is not a valid glob"),
    ],
)
def test_bad_globs_say_why(glob: str, message: str) -> None:
    with pytest.raises(InvalidGlob, match=re.escape(message)):
        glob_to_regex(glob)
    with pytest.raises(InvalidQuery, match=re.escape(message)):
        query_glob_to_regex(glob)


def test_filters_carry_the_glob_and_derive_the_regex() -> None:
    assert Filters().path_regex is None
    assert Filters(path_glob="*.py").path_regex == glob_to_regex("*.py")
    with pytest.raises(InvalidGlob):
        _ = Filters(path_glob="[").path_regex


def test_a_glob_cannot_climb_out_of_the_workspace() -> None:
    for glob in ("../secrets/*", "src/../../etc/passwd", "..", "a\\..\\b"):
        with pytest.raises(InvalidGlob, match="climbs out"):
            glob_to_regex(glob)
    # A leading `/` anchors at the workspace root, as in .gitignore: it stays inside.
    assert re.search(glob_to_regex("/etc/*"), "etc/passwd")
    assert not re.search(glob_to_regex("/etc/*"), "src/etc/passwd")

"""Discovery: ignore rules at every level, default skips, and that every skip is counted."""

from __future__ import annotations

import os
from pathlib import Path

from indexing.discover import (
    IGNORE_FILES,
    DiscoveryOptions,
    discover,
    is_ignore_file,
    is_indexable_path,
)


def write(root: Path, rel: str, data: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


def test_gitignore_at_every_level_and_exclude_and_kebabignore(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.log\n/out/\n")
    write(tmp_path, "pkg/.gitignore", "secret.py\n!keep.log\n")
    write(tmp_path, ".git/info/exclude", "local_only.py\n")
    write(tmp_path, ".kebabignore", "docs/drafts/\n")
    for rel in ["a.py", "x.log", "out/gen.py", "pkg/secret.py", "pkg/keep.log", "pkg/ok.py",
                "local_only.py", "docs/drafts/d.md", "docs/final.md", "sub/out/kept.py"]:
        write(tmp_path, rel)
    found = discover(tmp_path)
    paths = [c.path for c in found.candidates]
    assert paths == [".gitignore", ".kebabignore", "a.py", "docs/final.md", "pkg/.gitignore",
                     "pkg/keep.log", "pkg/ok.py", "sub/out/kept.py"]
    assert dict(found.skipped) == {
        ".git/": "default_dir",
        "docs/drafts/": "kebabignore",
        "local_only.py": "gitignore",
        "out/": "gitignore",
        "pkg/secret.py": "gitignore",
        "x.log": "gitignore",
    }


def test_default_skips_have_reasons(tmp_path: Path) -> None:
    write(tmp_path, "node_modules/lib/index.js", "module.exports = 1\n")
    write(tmp_path, ".venv/lib/site.py")
    write(tmp_path, "package-lock.json", "{}\n")
    write(tmp_path, "static/app.min.js", "var a=1;\n")
    write(tmp_path, "big.txt", "a" * 2000)
    write(tmp_path, "src/main.py")
    found = discover(tmp_path, DiscoveryOptions(max_bytes=1000))
    assert [c.path for c in found.candidates] == ["src/main.py"]
    assert dict(found.skipped) == {
        ".venv/": "default_dir",
        "big.txt": "too_large",
        "node_modules/": "default_dir",
        "package-lock.json": "lockfile",
        "static/app.min.js": "minified",
    }


def test_symlinks_outside_the_workspace_are_skipped(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    root = tmp_path / "root"
    write(outside, "secret.py", "TOKEN = 1\n")
    write(root, "real.py")
    os.symlink(outside / "secret.py", root / "link_out.py")
    os.symlink(outside, root / "dir_out")
    os.symlink(root / "real.py", root / "link_in.py")
    found = discover(root)
    assert [c.path for c in found.candidates] == ["link_in.py", "real.py"]
    assert dict(found.skipped) == {"dir_out": "symlink_outside", "link_out.py": "symlink_outside"}


def test_paths_with_spaces_and_non_ascii(tmp_path: Path) -> None:
    write(tmp_path, "dir with space/naïve file.py")
    found = discover(tmp_path)
    assert [c.path for c in found.candidates] == ["dir with space/naïve file.py"]


def test_single_path_check_matches_the_walk(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.log\n")
    write(tmp_path, "pkg/.gitignore", "gen/\n")
    ok = write(tmp_path, "pkg/ok.py")
    log = write(tmp_path, "pkg/x.log")
    gen = write(tmp_path, "pkg/gen/made.py")
    nm = write(tmp_path, "node_modules/m.js")
    assert is_indexable_path(tmp_path, ok)
    assert not is_indexable_path(tmp_path, log)
    assert not is_indexable_path(tmp_path, gen)
    assert not is_indexable_path(tmp_path, nm)
    assert not is_indexable_path(tmp_path, tmp_path.parent / "elsewhere.py")


def test_every_ignore_file_is_read_and_recognised(tmp_path: Path) -> None:
    """`IGNORE_FILES` is the one list: each file in it skips what it names, with its reason,
    and `is_ignore_file` (which tells a watcher to walk again) knows each of them."""
    for i, (path, reason) in enumerate(IGNORE_FILES.items()):
        folder = "" if "/" in path else "sub/"
        write(tmp_path, f"{folder}{path}", f"skip{i}.py\n")
        write(tmp_path, f"sub/skip{i}.py", "x = 1\n")
        found = discover(tmp_path)
        assert (f"sub/skip{i}.py", reason) in found.skipped, path
        assert is_ignore_file(f"{folder}{path}")
    assert not is_ignore_file("sub/exclude") and not is_ignore_file("a.gitignore")
    assert not is_ignore_file("sub/.git/info/exclude")

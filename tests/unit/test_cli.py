"""The `kebab` command as a user runs it: a real subprocess on the sample tree.

The golden snapshot pins the exact `kebab search --json` output (the same object the server
returns for kebab/search). Regenerate it with `KEBAB_UPDATE_GOLDEN=1 make test` after an
intended change, and review the diff.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.model]

GOLDEN = Path(__file__).parent.parent / "fixtures" / "golden"
QUERIES = {
    "user_by_id": ["user by id", "-k", "6", "--mode", "lexical"],
    "exact_fragment": ['"self._users"', "-k", "5"],
    "filtered": ["user", "--lang", "typescript", "--kind", "function", "--mode", "lexical"],
}


def kebab(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kebab_lsp.cli", *args], capture_output=True, text=True,
        cwd=cwd, env=os.environ.copy(), check=False, timeout=120,
    )


def normalized(wire: dict[str, Any], root: Path) -> dict[str, Any]:
    text = json.dumps(wire, sort_keys=True, ensure_ascii=False)
    text = text.replace(root.as_uri(), "file:///ROOT")
    out: dict[str, Any] = json.loads(text)
    out["meta"].pop("timing")
    return out


def test_index_json_summary_then_no_change(sample_repo: Path, index_root: Path) -> None:
    first = kebab("index", str(sample_repo), "--json", "--no-embed")
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert {k: summary[k] for k in ("scanned", "new", "changed", "unchanged", "deleted",
                                    "skipped")} == {
        "scanned": 6, "new": 6, "changed": 0, "unchanged": 0, "deleted": 0, "skipped": 0}
    assert summary["skipped_by_reason"] == {} and isinstance(summary["seconds"], float)
    again = json.loads(kebab("index", str(sample_repo), "--json").stdout)
    assert (again["unchanged"], again["new"]) == (6, 0)
    assert again["embedding"]["embedded"] > 0  # embeddings catch up on the next index
    third = json.loads(kebab("index", str(sample_repo), "--json").stdout)
    assert third["embedding"] == {"embedded": 0, "from_cache": 0, "deleted": 0,
                                  "seconds": third["embedding"]["seconds"]}


def test_human_index_lists_skips(sample_repo: Path, index_root: Path) -> None:
    (sample_repo / "package-lock.json").write_text("{}")
    out = kebab("index", str(sample_repo), "--list-skipped", "--no-embed")
    assert out.returncode == 0
    assert "skipped by reason: lockfile 1" in out.stdout
    assert "lockfile         package-lock.json" in out.stdout


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_search_json_matches_golden(name: str, sample_repo: Path, index_root: Path) -> None:
    assert kebab("index", str(sample_repo), "--no-embed").returncode == 0
    out = kebab("search", *QUERIES[name], str(sample_repo), "--json")
    assert out.returncode == 0, out.stderr
    got = normalized(json.loads(out.stdout), sample_repo)
    golden = GOLDEN / f"search_{name}.json"
    if os.environ.get("KEBAB_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(got, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    assert got == json.loads(golden.read_text())


def test_human_search_output(sample_repo: Path, index_root: Path) -> None:
    out = kebab("search", "get_user_by_id", str(sample_repo), "-k", "1", "--mode", "lexical")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].startswith(
        "src/users/store.py:12:9  UserStore.get_user_by_id (method)  def [get_user_by_id]")
    assert "match(es)" in out.stderr


def test_human_grouped_output_lists_the_files_group(sample_repo: Path, index_root: Path) -> None:
    # The files group is a third of a grouped answer: the text listing shows it too, after
    # the hits, one row per file.
    out = kebab("search", "get_user_by_id", str(sample_repo), "-k", "1", "--mode", "lexical",
                "--group")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("src/users/store.py:12:9  UserStore.get_user_by_id (method)")
    assert lines[1] == "files:"
    assert lines[2].startswith("src/users/store.py  (python, 1 hit(s), ")


def test_a_query_that_starts_with_a_dash_follows_a_double_dash(tmp_path: Path,
                                                                index_root: Path) -> None:
    # A flag is a common thing to look for. Python 3.11's intermixed parse dropped what
    # follows `--`, and the command answered "the following arguments are required: query".
    (tmp_path / "deploy.sh").write_text("#!/bin/sh\nmake release --dry-run\n")
    assert kebab("index", str(tmp_path), "--no-embed").returncode == 0
    out = kebab("search", "--json", "-k", "3", "--mode", "lexical", "--", "--dry-run",
                str(tmp_path))
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)["hits"]
    assert [(h["path"], h["selection"]["start"]) for h in hits] == [
        ("deploy.sh", {"line": 1, "character": 15})]  # `dry`: words match, not dashes


def test_search_bad_input_is_a_clear_error(sample_repo: Path, index_root: Path) -> None:
    out = kebab("search", "'user AND'", str(sample_repo))
    assert out.returncode == 2
    assert "invalid FTS5 expression" in out.stderr


def test_status(sample_repo: Path, index_root: Path) -> None:
    kebab("index", str(sample_repo), "--no-embed")
    out = kebab("status", str(sample_repo), "--json")
    info = json.loads(out.stdout)
    assert info["files"] == 6 and info["symbols"] > 5
    assert Path(info["index_dir"]).parent == index_root
    assert info["last_update"] is not None
    assert info["writer"] is None  # nothing keeps it current right now

    # While a process holds the index's writer lease, status names it.
    from indexing.runtime.lease import WriterLease

    lease = WriterLease(Path(info["index_dir"]))
    assert lease.try_acquire()
    try:
        held = json.loads(kebab("status", str(sample_repo), "--json").stdout)
        assert held["writer"] == os.getpid()
    finally:
        lease.release()


def test_index_dir_flag_beats_environment(sample_repo: Path, index_root: Path,
                                          tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    kebab("index", str(sample_repo), "--index-dir", str(other), "--no-embed")
    assert list(other.iterdir()) and not index_root.exists()

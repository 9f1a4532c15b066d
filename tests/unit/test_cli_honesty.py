"""`kebab search` (and its neighbours) say what they did: how each hit was found, flags they
could not apply, answers read from files that have changed since, and they end quietly when
the reader of their output goes away. A real `kebab` subprocess on the sample tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.subprocess]


def kebab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kebab_lsp.cli", *args], capture_output=True, text=True,
        env=os.environ.copy(), check=False, timeout=120,
    )


def indexed(repo: Path) -> Path:
    out = kebab("index", str(repo), "--no-embed")
    assert out.returncode == 0, out.stderr
    return repo


def test_explain_prints_how_each_hit_was_found(sample_repo: Path, index_root: Path) -> None:
    indexed(sample_repo)
    query = ("get_user_by_id", str(sample_repo), "-k", "2", "--mode", "lexical")
    plain = kebab("search", *query)
    explained = kebab("search", *query, "--explain")
    wire = json.loads(kebab("search", *query, "--json").stdout)
    assert plain.returncode == explained.returncode == 0, explained.stderr
    assert "found by" not in plain.stdout
    lines = explained.stdout.splitlines()
    # Each hit's line, then one line of how it was found: the channel, rank and score, the
    # priors that re-ranked it (the JSON's `retrieval`).
    assert len(lines) == 2 * len(wire["hits"]) == 4
    assert lines[0] == plain.stdout.splitlines()[0]
    for line, hit in zip(lines[1::2], wire["hits"], strict=True):
        r = hit["retrieval"]
        assert line.startswith(f"    found by lexical #{r['lexical_rank']} score "
                               f"{r['lexical_score']:.4g}")
        for prior in r["priors"]:
            assert f"{prior['name']} x{prior['factor']:g}" in line
    assert "defines_query" in lines[1]  # the definition the query names


def test_index_flags_an_existing_index_was_not_built_with_are_not_dropped_silently(
        sample_repo: Path, index_root: Path) -> None:
    indexed(sample_repo)
    query = ("User", str(sample_repo), "-k", "1", "--mode", "lexical")
    out = kebab("search", *query, "--exclude", "*.ts", "--max-file-bytes", "4096")
    assert out.returncode == 0, out.stderr
    # The search reads the index as it is (web/api.ts is still there), and says so.
    assert out.stdout.startswith("web/api.ts:")
    assert ("was built with other settings (exclude, max_file_bytes)" in out.stderr
            and "run `kebab index` with these flags to apply them" in out.stderr)
    assert "other settings" not in kebab("search", *query).stderr  # no flags, nothing to say

    assert kebab("index", str(sample_repo), "--no-embed", "--exclude", "*.ts").returncode == 0
    applied = kebab("search", *query, "--exclude", "*.ts")
    assert "other settings" not in applied.stderr and "web/api.ts" not in applied.stdout
    # Settings not typed are the index's (an editor's, say): not a flag dropped.
    assert "other settings" not in kebab("search", *query).stderr


def with_reader_gone(*args: str) -> subprocess.CompletedProcess[str]:
    """`kebab ARGS | head` once head has read its fill: stdout is a pipe whose reader is
    closed (before the command starts, so whatever it writes meets EPIPE)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args], stdout=write,
                              stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
                              check=False, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("command", [("search", "user", "REPO", "--json"),
                                     ("search", "user", "REPO"), ("status", "REPO"),
                                     ("index", "REPO", "--no-embed")])
def test_a_reader_that_goes_away_ends_the_command_quietly(
        command: tuple[str, ...], sample_repo: Path, index_root: Path) -> None:
    indexed(sample_repo)
    out = with_reader_gone(*(str(sample_repo) if a == "REPO" else a for a in command))
    assert "Traceback" not in out.stderr and "BrokenPipeError" not in out.stderr, out.stderr
    assert out.returncode == 141  # as a shell reports a process SIGPIPE ended


@pytest.mark.parametrize("command", [("search", "user", "REPO"), ("index", "REPO"),
                                     ("status", "REPO"), ("cache", "list")])
def test_an_index_dir_that_is_a_file_is_a_one_line_error(
        command: tuple[str, ...], sample_repo: Path, tmp_path: Path) -> None:
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("")
    args = [str(sample_repo) if a == "REPO" else a for a in command]
    for where, told in ((a_file, f"--index-dir {a_file} is not a directory"),
                        (a_file / "under", f"--index-dir {a_file / 'under'}: {a_file} is not "
                                           "a directory")):
        out = kebab(*args, "--index-dir", str(where))
        assert (out.returncode, out.stderr) == (2, f"kebab: {told}\n")


def stale_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "changed on disk" in line]


def test_cited_files_changed_since_indexing_are_warned(sample_repo: Path,
                                                       index_root: Path) -> None:
    indexed(sample_repo)
    query = ("user", str(sample_repo), "-k", "3", "--mode", "lexical")
    api, store = sample_repo / "web" / "api.ts", sample_repo / "src" / "users" / "store.py"
    fresh = kebab("search", *query, "--json")
    cited = {hit["path"] for hit in json.loads(fresh.stdout)["hits"]}
    assert cited == {"web/api.ts", "src/users/store.py"}
    assert not stale_lines(fresh.stderr) and not json.loads(fresh.stdout)["meta"]["warnings"]

    # A new time on the same bytes (a checkout back and forth) is no change.
    later = api.stat().st_mtime_ns + 5_000_000_000
    os.utime(api, ns=(later, later))
    assert not stale_lines(kebab("search", *query).stderr)

    # The same size, other bytes, written just now (its time no help): the content tells.
    api.write_text(api.read_text().replace("User", "Usex", 1))
    same_size = kebab("search", *query)
    assert stale_lines(same_size.stderr) == [
        "warning: 1 cited file(s) changed on disk since they were indexed (web/api.ts); "
        "run `kebab index` to refresh"]

    # Ten lines pushed in at the top, and a file deleted: both cited stale, in the text
    # listing's warnings on stderr, and in the JSON's meta.warnings (and on stderr beside it).
    api.write_text("\n" * 10 + api.read_text())
    store.unlink()
    out = kebab("search", *query, "--json")
    assert out.returncode == 0, out.stderr
    wire = json.loads(out.stdout)
    assert {hit["path"] for hit in wire["hits"]} == cited  # still answered from the index
    want = ("2 cited file(s) changed on disk since they were indexed (web/api.ts, "
            "src/users/store.py); run `kebab index` to refresh")
    assert want in wire["meta"]["warnings"] and stale_lines(out.stderr) == [f"kebab: {want}"]
    assert stale_lines(kebab("search", *query).stderr) == [f"warning: {want}"]

    assert kebab("index", str(sample_repo), "--no-embed").returncode == 0
    assert not stale_lines(kebab("search", *query).stderr)  # refreshed


def added_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "added since the last index" in line]


def test_files_added_since_indexing_are_warned_and_the_answer_is_not_complete(
        sample_repo: Path, index_root: Path) -> None:
    # A search for what only a new file holds found nothing, and said the answer was
    # complete: the index does not hold the file, and nothing told.
    indexed(sample_repo)
    query = ("zzfrobnicate", str(sample_repo), "--mode", "lexical")
    before = json.loads(kebab("search", *query, "--json").stdout)
    assert before["hits"] == [] and before["meta"]["recall"]["complete"] is True

    # A file written and removed again (an editor's atomic save) changes its folder only.
    (sample_repo / "src" / "tmp.swp").write_text("x")
    (sample_repo / "src" / "tmp.swp").unlink()
    assert not added_lines(kebab("search", *query).stderr)

    (sample_repo / "src" / "frob.py").write_text("def zzfrobnicate():\n    return 1\n")
    (sample_repo / "package-lock.json").write_text("{}")  # added, but never indexed
    out = kebab("search", *query, "--json")
    wire = json.loads(out.stdout)
    want = ("1 file(s) were added since the last index and are not searched (src/frob.py); "
            "run `kebab index` to include them")
    assert wire["hits"] == [] and wire["meta"]["recall"]["complete"] is False
    assert want in wire["meta"]["warnings"] and added_lines(out.stderr) == [f"kebab: {want}"]
    assert added_lines(kebab("search", *query).stderr) == [f"warning: {want}"]

    assert kebab("index", str(sample_repo), "--no-embed").returncode == 0
    after = kebab("search", *query, "--json")
    assert not added_lines(after.stderr)
    assert [h["path"] for h in json.loads(after.stdout)["hits"]] == ["src/frob.py"]
    assert json.loads(after.stdout)["meta"]["recall"]["complete"] is True


def test_a_subfolder_of_an_indexed_workspace_is_searched_in_its_index(
        sample_repo: Path, index_root: Path) -> None:
    # The workspace's index answers, narrowed to the subfolder's files (vectors and all),
    # rather than a second, partial index built beside it.
    indexed(sample_repo)
    before = sorted(p.name for p in index_root.iterdir())
    whole = json.loads(kebab("search", "user", str(sample_repo), "--json", "-k", "50").stdout)
    out = kebab("search", "user", str(sample_repo / "src"), "--json", "-k", "50")
    assert out.returncode == 0, out.stderr
    assert f"searching the index of {sample_repo}, its 1 file(s) under src/ only" in out.stderr
    paths = {h["path"] for h in json.loads(out.stdout)["hits"]}
    assert paths == {p for p in (h["path"] for h in whole["hits"]) if p.startswith("src/")}
    assert paths == {"src/users/store.py"}
    assert sorted(p.name for p in index_root.iterdir()) == before  # no index for src/

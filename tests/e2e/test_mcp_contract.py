"""`kebab mcp` keeps its word: the real server over stdio with the MCP SDK's client, on real
workspaces and indexes (no mocks). An argument it does not know is refused, a line is what the
index calls a line, caps are caps, a cursor is offered while more may follow, a hit's snippet
starts at its line, and a path names one file of one root."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import types
from mcp_support import call, error, make_workspace, mcp_session, wait_embedded

NO_EMBED = "--no-embed"


async def test_unknown_arguments_are_refused_and_named(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        for tool in (await s.list_tools()).tools:
            assert tool.input_schema["additionalProperties"] is False, tool.name
        refused = {
            ("codebase_search", "limit", "'k'"): {"query": "user", "limit": 2},
            ("codebase_search", "language", "'lang'"): {"query": "user", "language": "go"},
            ("codebase_search", "filters", "arguments of their own"): {
                "query": "user", "filters": {"path_glob": "web/**"}},
            ("read_file_lines", "end", "'end_line'"): {"path": "src/users/store.py",
                                                       "start_line": 1, "end": 2},
            ("find_references", "kind", "'kinds'"): {"name": "get_user_by_id",
                                                     "kind": "call"},
            ("get_surrounding_code", "lines_before", "'before'"): {
                "symbol_id": "S1.1.0123456789", "lines_before": 0},
            ("get_status", "root", "no arguments"): {"root": "ws"},
        }
        for (tool, name, hint), args in refused.items():
            message = await error(s, tool, **args)
            assert f"unknown argument '{name}'" in message, message
            assert f"{tool} accepts:" in message and hint in message, message
        message = await error(s, "codebase_search", query="user", limit=2)
        assert ("accepts: query, intent, mode, k, lang, kind, path_glob, group, explain, "
                "cursor") in message
        # Known arguments still work.
        got = await call(s, "read_file_lines", path="src/users/store.py", start_line=1,
                         end_line=2)
        assert got["end_line"] == 2


async def test_lines_are_counted_as_the_index_counts_them(tmp_path: Path) -> None:
    """Only "\\n" ends a line ("\\r\\n" and a lone "\\r" are one too, as the indexer decodes
    them): a form feed, U+2028 or U+0085 inside a line must not shift the lines after it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "odd.py").write_text(
        "def first():\n    return 1\n\x0c\ndef second():\n    return 'a\u2028b\x85c\x1cd'\n"
        "\ndef third_target():\n    return 3\n", encoding="utf-8", newline="")
    (ws / "crlf.py").write_bytes(b"\xef\xbb\xbfdef one():\r\n    return 1\r\n\r\n"
                                 b"def crlf_target():\r\n    return 2\r\n")
    (ws / "cr.py").write_bytes(b"# old mac\rdef cr_target():\r    return 2\r")
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        for name, path, line, total in (("third_target", "odd.py", 7, 8),
                                        ("crlf_target", "crlf.py", 4, 5),
                                        ("cr_target", "cr.py", 2, 3)):
            hit = (await call(s, "codebase_search", query=name, k=1))["hits"][0]
            assert (hit["path"], hit["line"]) == (path, line)
            got = await call(s, "read_file_lines", path=path, start_line=line, end_line=line)
            assert got["text"] == f"def {name}():", name
            assert got["total_lines"] == total
            details = await call(s, "get_symbol_details", symbol_id=hit["symbol_id"])
            assert (details["line"], details["end_line"]) == (line, line + 1)
        whole = await call(s, "read_file_lines", path="odd.py")
        assert whole["text"].split("\n")[4] == "    return 'a\u2028b\x85c\x1cd'"
        assert (await call(s, "read_file_lines", path="crlf.py", start_line=1,
                           end_line=1))["text"] == "def one():"  # no byte-order mark


async def test_the_byte_cap_cuts_a_single_long_line_and_says_so(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    head = "".join(f"x{i} = {i}\n" for i in range(300))
    (ws / "blob.py").write_text(head + 'DATA = "' + "a" * 100_000 + '"\n'
                                + 'EURO = "' + "€" * 19_000 + '"\nafter = 1\n', encoding="utf-8")
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        got = await call(s, "read_file_lines", path="blob.py", start_line=301, end_line=310)
        assert len(got["text"].encode()) <= 48_000
        assert got["text"].startswith('DATA = "aaa')
        assert (got["end_line"], got["truncated"], got["line_cut"]) == (301, True, True)
        assert "line 301 is longer than 48000 bytes" in got["_text"].splitlines()[0]
        one = await call(s, "read_file_lines", path="blob.py", start_line=301, end_line=301)
        assert (one["truncated"], one["line_cut"]) == (True, True)
        # A multi-byte line is cut between characters.
        euro = await call(s, "read_file_lines", path="blob.py", start_line=302, end_line=302)
        assert euro["truncated"] and len(euro["text"].encode()) <= 48_000
        assert euro["text"].endswith("€")
        # A whole line that does not fit after others ends the range before it.
        before = await call(s, "read_file_lines", path="blob.py", start_line=300)
        assert (before["end_line"], before["truncated"], before["line_cut"]) == (300, True,
                                                                                 False)
        assert "continue at start_line=301" in before["_text"]

        for name in ("DATA", "EURO"):
            hit = (await call(s, "codebase_search", query=name, intent="definition",
                              k=1))["hits"][0]
            around = await call(s, "get_surrounding_code", chunk_id=hit["handle"], before=0,
                                after=0)
            block = around["block"]
            assert block["truncated"] is True, name
            assert len(block["text"].encode()) <= 48_000
            assert "(truncated" in around["_text"]


async def test_a_full_page_of_a_lower_bound_count_offers_a_cursor(tmp_path: Path) -> None:
    """Vector and hybrid counts are lower bounds (the number of hits fetched, at least): a
    full page must offer the next one, which then holds the next hits."""
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index") as s:
        await wait_embedded(s)
        for mode in ("vector", "hybrid"):
            whole = await call(s, "codebase_search", query="look up a user", mode=mode, k=6)
            assert len(whole["hits"]) == 6
            handles: list[str] = []
            cursor = None
            for _ in range(3):
                args: dict[str, Any] = {"query": "look up a user", "mode": mode, "k": 2}
                if cursor:
                    args["cursor"] = cursor
                page = await call(s, "codebase_search", **args)
                assert page["count_accuracy"] == "lower_bound"
                handles += [h["handle"] for h in page["hits"]]
                cursor = page.get("next_cursor")
                assert cursor, f"{mode}: no cursor after {len(handles)} hits"
            assert handles == [h["handle"] for h in whole["hits"]], mode


def _check_snippet(root: Path, hit: dict[str, Any]) -> None:
    """Each snippet line is (a part of) the file line it is numbered as."""
    lines = (root / hit["path"]).read_text(encoding="utf-8").split("\n")
    assert hit["snippet"], hit
    for i, shown in enumerate(hit["snippet"].split("\n")):
        assert shown.rstrip("…").strip() in lines[hit["snippet_line"] - 1 + i], (hit, i)


async def test_a_snippet_says_the_line_it_starts_at(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    (ws / "deco.py").write_text(
        "import functools\n\n\n@functools.cache\ndef decorated_target(x):\n    return x\n\n\n"
        "def spaced_target():\n\n    # spaced_note\n\n    return 1\n", encoding="utf-8")
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        spaced = (await call(s, "codebase_search", query="spaced_target", k=1))["hits"][0]
        assert (spaced["line"], spaced["snippet_line"]) == (9, 9)
        # The blank line inside is kept, so the comment is on its own line number.
        assert spaced["snippet"].split("\n")[:3] == ["def spaced_target():", "",
                                                     "  # spaced_note"]
        found = await call(s, "codebase_search", query="spaced_target", k=1)
        assert found["_text"].splitlines()[1:5] == [
            found["_text"].splitlines()[1], "    9: def spaced_target():", "    10:",
            "    11:   # spaced_note"]
        hits = []
        for query, mode in (("decorated_target", "auto"), ("spaced_note", "lexical"),
                            ("user", "lexical"), ("functools cache", "lexical"),
                            ("get_user_by_id", "auto")):
            hits += (await call(s, "codebase_search", query=query, mode=mode, k=20))["hits"]
        assert len(hits) > 10
        for hit in hits:
            _check_snippet(ws, hit)
        text = (await call(s, "codebase_search", query="decorated_target", k=1))["_text"]
        hit = (await call(s, "codebase_search", query="decorated_target", k=1))["hits"][0]
        assert f"    {hit['snippet_line']}: " in text.splitlines()[2]


async def test_roots_of_one_folder_name_are_told_apart(tmp_path: Path) -> None:
    """Two roots named `pkg`: each gets a name of its own, a hit of either reads back its own
    file, a path in both is refused as ambiguous, and a glob may start with a root's name."""
    one, two = tmp_path / "a" / "pkg", tmp_path / "b" / "pkg"
    for root, word in ((one, "alpha"), (two, "beta")):
        root.mkdir(parents=True)
        (root / "mod.py").write_text(f'def {word}_only():\n    return "{word}"\n',
                                     encoding="utf-8")
    (two / "extra.py").write_text("def beta_extra():\n    return 2\n", encoding="utf-8")
    async with mcp_session([one, two], tmp_path / "index", NO_EMBED) as s:
        status = (await call(s, "get_status"))["roots"]
        assert [(r["root"], r["path"]) for r in status] == [("a/pkg", str(one)),
                                                            ("b/pkg", str(two))]
        hit = (await call(s, "codebase_search", query="beta_only", k=1))["hits"][0]
        assert (hit["root"], hit["path"]) == ("b/pkg", "mod.py")
        assert "b/pkg/mod.py:1-2" in (await call(s, "codebase_search", query="beta_only",
                                                 k=1))["_text"]
        got = await call(s, "read_file_lines", path=f"{hit['root']}/{hit['path']}")
        assert (got["root"], got["text"]) == ("b/pkg", 'def beta_only():\n    return "beta"')
        assert got["_text"].startswith("b/pkg/mod.py:1-2")
        alpha = await call(s, "read_file_lines", path="a/pkg/mod.py")
        assert "alpha_only" in alpha["text"]
        message = await error(s, "read_file_lines", path="mod.py")
        assert "ambiguous" in message and "'a/pkg/mod.py' or 'b/pkg/mod.py'" in message
        # A path in one root only needs no prefix.
        assert (await call(s, "read_file_lines", path="extra.py"))["root"] == "b/pkg"
        # find_similar_code reads its range through the same rule.
        assert "ambiguous" in await error(s, "find_similar_code", path="mod.py",
                                          start_line=1, end_line=2)
        # A glob written as hits are printed picks the root.
        for glob, root in (("b/pkg/*.py", "b/pkg"), ("a/pkg/**", "a/pkg")):
            hits = (await call(s, "codebase_search", query="only", mode="lexical",
                               path_glob=glob))["hits"]
            assert hits and {h["root"] for h in hits} == {root}, glob
        both = (await call(s, "codebase_search", query="only", mode="lexical",
                           path_glob="*.py"))["hits"]
        assert {h["root"] for h in both} == {"a/pkg", "b/pkg"}
        assert "unknown root 'pkg'" in await error(s, "build_index", root="pkg")
        built = await call(s, "build_index", root="b/pkg")
        assert [r["root"] for r in built["roots"]] == ["b/pkg"]


async def test_client_roots_that_are_not_directories_are_reported(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    gone = tmp_path / "gone"

    def offering(*paths: Path) -> Any:
        async def roots(context: Any) -> types.ListRootsResult:
            return types.ListRootsResult(roots=[types.Root(uri=p.as_uri()) for p in paths])
        return roots

    # One of two missing: the other is used, and get_status says what was left out.
    async with mcp_session([], tmp_path / "index", NO_EMBED, roots_callback=offering(ws, gone),
                           cwd=tmp_path) as s:
        status = await call(s, "get_status")
        assert [r["path"] for r in status["roots"]] == [str(ws)]
        assert len(status["warnings"]) == 1 and str(gone) in status["warnings"][0]
        assert "not directories here" in status["_text"]
    # All missing: an error naming them, not the current directory in their place.
    async with mcp_session([], tmp_path / "index", NO_EMBED, roots_callback=offering(gone),
                           cwd=ws) as s:
        for tool, args in (("get_status", {}), ("codebase_search", {"query": "user"})):
            message = await error(s, tool, **args)
            assert str(gone) in message and "not directories" in message, message
            assert "offered none" not in message


async def test_group_file_pages_files_each_given_once(tmp_path: Path) -> None:
    """With group=file, k counts files and a cursor pages on over files: a file is one entry,
    on one page, with every hit of it under `also`."""
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        whole = await call(s, "codebase_search", query="user", mode="lexical", group="file",
                           k=50)
        files = [h["path"] for h in whole["hits"]]
        assert len(files) == len(set(files)) >= 4
        paged: list[str] = []
        args: dict[str, Any] = {"query": "user", "mode": "lexical", "group": "file", "k": 2}
        while True:
            got = await call(s, "codebase_search", **args)
            assert len(got["hits"]) == 2 or not got.get("next_cursor")
            paged += [h["path"] for h in got["hits"]]
            if not got.get("next_cursor"):
                break
            args["cursor"] = got.get("next_cursor")
        assert paged == files


async def test_a_wrong_type_is_said_plainly(tmp_path: Path) -> None:
    """A wrong type is named with its argument and value, as `search.request` says it: no
    internal model name, no link to a validation library's documentation."""
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        message = await error(s, "read_file_lines", path="src/users/store.py",
                              start_line="abc")
        assert message == ("Error executing tool read_file_lines: 'start_line' must be an "
                           "integer ≥ 1, got 'abc'")
        message = await error(s, "build_index", rebuild="maybe")
        assert message == ("Error executing tool build_index: 'rebuild' must be true or "
                           "false, got 'maybe'")
        # What pydantic still checks is said the same way.
        message = await error(s, "find_references", name=5)
        assert message == ("Error executing tool find_references: 'name': input should be a "
                           "valid string, got 5")
        assert "http" not in message and "Arguments" not in message


async def test_booleans_and_integers_are_not_coerced(tmp_path: Path) -> None:
    """Every tool reads a boolean or an integer as `codebase_search` does: "yes", "1", 1.0 and
    true are refused, not taken for true and 1."""
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        refused = {
            ("build_index", "'rebuild' must be true or false, got 'yes'"): {"rebuild": "yes"},
            ("read_file_lines", "'start_line' must be an integer ≥ 1, got '2'"): {
                "path": "src/users/store.py", "start_line": "2"},
            ("read_file_lines", "'end_line' must be an integer ≥ 1, got 2.0"): {
                "path": "src/users/store.py", "end_line": 2.0},
            ("read_file_lines", "'start_line' must be an integer ≥ 1, got True"): {
                "path": "src/users/store.py", "start_line": True},
            ("codebase_search", "'k' must be an integer in 1..500, got '5'"): {
                "query": "user", "k": "5"},
        }
        for (tool, said), args in refused.items():
            assert said in await error(s, tool, **args), (tool, args)
        got = await call(s, "read_file_lines", path="src/users/store.py", start_line=2,
                         end_line=None)
        assert got["start_line"] == 2

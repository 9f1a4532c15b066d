"""`kebab mcp` keeps its word: the real server over stdio with the MCP SDK's client, on real
workspaces and indexes (no mocks). An argument it does not know is refused, a line is what the
index calls a line, caps are caps, a cursor is offered while more may follow, a hit's snippet
starts at its line, and a path names one file of one root."""

from __future__ import annotations

from pathlib import Path

from mcp_support import call, error, make_workspace, mcp_session

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

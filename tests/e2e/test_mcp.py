"""`kebab mcp` end to end: the MCP SDK's client over stdio against the real server on a real
workspace and index (no mocks)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp_support import SAMPLE, call, error, make_workspace, mcp_session, wait_embedded

NO_EMBED = "--no-embed"
#: The lookups by handle, name or place, and their arguments.
LOOKUPS = {
    "find_references": {"symbol_id", "name", "kinds", "k", "cursor"},
    "get_symbol_details": {"symbol_id"},
    "get_surrounding_code": {"chunk_id", "symbol_id", "before", "after"},
    "find_similar_code": {"path", "start_line", "end_line", "text", "k"},
}


async def test_tools_list_is_complete_and_start_is_thin(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        listed = {t.name: t for t in (await s.list_tools()).tools}
        assert set(listed) == {"codebase_search", "read_file_lines", "get_status",
                               "build_index", "help", "debug_state", *LOOKUPS}
        state = await call(s, "debug_state")
        assert state["loaded"] == [], "heavy modules loaded before any tool needed them"
        assert state["writing"] == {}  # the index is not even opened yet

        for name in ("codebase_search", "read_file_lines", "get_status", "build_index", "help",
                     *LOOKUPS):
            tool = listed[name]
            assert tool.description and len(tool.description) > 40
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        search = listed["codebase_search"].input_schema
        assert set(search["properties"]) == {"query", "intent", "mode", "k", "lang", "kind",
                                             "path_glob", "group", "explain", "cursor"}
        assert search["required"] == ["query"]
        assert search["properties"]["mode"]["enum"] == ["auto", "lexical", "vector", "hybrid"]
        # The default this server runs with (the defaultMode setting), and no pointer to a
        # README section an agent cannot read.
        assert "Default: auto." in search["properties"]["mode"]["description"]
        assert "Query syntax" not in search["properties"]["query"]["description"]
        assert search["properties"]["intent"]["enum"] == ["auto", "definition", "concept",
                                                          "exact_text", "usage", "similar"]
        k = search["properties"]["k"]
        assert (k["type"], k["minimum"], k["maximum"]) == ("integer", 1, 500)
        kinds = search["properties"]["kind"]["anyOf"]
        assert "function" in kinds[0]["enum"] and kinds[1]["items"] == kinds[0]
        read = listed["read_file_lines"].input_schema
        assert read["required"] == ["path"]
        assert listed["read_file_lines"].annotations.read_only_hint is True
        for name, properties in LOOKUPS.items():
            schema = listed[name].input_schema
            assert set(schema["properties"]) == properties, name
            assert listed[name].annotations.read_only_hint is True
        refs = listed["find_references"].input_schema["properties"]
        assert refs["kinds"]["anyOf"][1]["items"]["enum"] == ["import", "call", "identifier",
                                                              "string"]
        assert (refs["k"]["minimum"], refs["k"]["maximum"]) == (1, 500)
        around = listed["get_surrounding_code"].input_schema["properties"]
        assert (around["before"]["minimum"], around["before"]["maximum"]) == (0, 50)
        assert listed["get_symbol_details"].input_schema["required"] == ["symbol_id"]

        helped = await call(s, "help")
        for name in ("codebase_search", "read_file_lines", *LOOKUPS):
            assert name in helped["text"], name
        assert (await call(s, "debug_state"))["loaded"] == []


async def test_codebase_search(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        found = await call(s, "codebase_search", query="get_user_by_id")
        top = found["hits"][0]
        assert {k: top[k] for k in ("path", "line", "end_line", "title", "kind")} == {
            "path": "src/users/store.py", "line": 12, "end_line": 14,
            "title": "UserStore.get_user_by_id", "kind": "method"}
        assert top["snippet"].startswith("def get_user_by_id(self, user_id: int)")
        assert len(top["handle"]) == 16
        assert found["meta"]["intent"] == {"name": "definition", "rule": "identifier"}
        used = await call(s, "codebase_search", query="who calls get_user_by_id")
        assert used["meta"]["intent"]["name"] == "usage"
        named = await call(s, "codebase_search", query="get_user_by_id", intent="usage")
        assert named["meta"]["intent"]["name"] == "usage"
        assert [h["path"] for h in named["hits"]] == [h["path"] for h in used["hits"]]
        assert found["meta"]["recall"]["complete"] is True
        assert found["_text"].splitlines()[1].startswith(
            "src/users/store.py:12-14  UserStore.get_user_by_id (method)  #")
        # Files the index leaves out never come back as hits.
        for query in ("ignored_function", "API_TOKEN", "private_function"):
            assert (await call(s, "codebase_search", query=query))["hits"] == []

        # Paging: two pages of two are the first four hits, in order.
        whole = await call(s, "codebase_search", query="user", k=4, mode="lexical")
        page1 = await call(s, "codebase_search", query="user", k=2, mode="lexical")
        assert page1["next_cursor"] and "more: cursor=" in page1["_text"]
        page2 = await call(s, "codebase_search", query="user", k=2, mode="lexical",
                           cursor=page1["next_cursor"])
        assert [h["handle"] for h in page1["hits"] + page2["hits"]] == [
            h["handle"] for h in whole["hits"]]
        assert "another search" in await error(s, "codebase_search", query="users", k=2,
                                               mode="lexical", cursor=page1["next_cursor"])
        assert "not one this server gave out" in await error(
            s, "codebase_search", query="user", cursor="bogus")

        # Filters are obeyed.
        go = await call(s, "codebase_search", query="user", lang=["go"])
        assert go["hits"] and {h["path"] for h in go["hits"]} == {"server/handler.go"}
        classes = await call(s, "codebase_search", query="user", kind="class")
        assert [h["title"] for h in classes["hits"]] == ["UserStore"]
        web = await call(s, "codebase_search", query="user", path_glob="web/**")
        assert web["hits"] and all(h["path"] == "web/api.ts" for h in web["hits"])

        # group=file: one entry per file, the others under `also`.
        grouped = await call(s, "codebase_search", query="user", group="file", k=10,
                             mode="lexical")
        paths = [h["path"] for h in grouped["hits"]]
        assert len(paths) == len(set(paths))
        assert any(h.get("also") for h in grouped["hits"])

        explained = await call(s, "codebase_search", query="get_user_by_id", explain=True, k=1)
        assert explained["hits"][0]["retrieval"]["method"]
        assert "why: " in explained["_text"]

        # An explicit mode is a contract: without vectors, vector search fails, saying why.
        message = await error(s, "codebase_search", query="look users up", mode="vector")
        assert "needs vector search" in message and "embeddings are off" in message
        auto = await call(s, "codebase_search", query="look users up by their id")
        assert any("answered with lexical search" in w for w in auto["meta"]["warnings"])
        assert "warning: " in auto["_text"]

        # Bad arguments: MCP tool errors that say what is wrong.
        assert "unknown mode 'fuzzy': expected one of auto, lexical, vector, hybrid" in (
            await error(s, "codebase_search", query="x", mode="fuzzy"))
        assert "query" in await error(s, "codebase_search")
        assert "'k' must be an integer in 1..500, got 501" in await error(
            s, "codebase_search", query="x", k=501)
        assert "'explain' must be true or false" in await error(
            s, "codebase_search", query="x", explain="yes")
        assert "unknown kind(s) 'klass'" in await error(s, "codebase_search", query="x",
                                                        kind="klass")
        assert "the query is 10,001 characters long" in await error(
            s, "codebase_search", query="a" * 10_001)
        bad_glob = await error(s, "codebase_search", query="x", path_glob="src/[")
        assert "glob" in bad_glob.lower()


def _lines(rel: str, first: int, last: int) -> str:
    """Lines first..last (1-based, inclusive) of a sample file."""
    return "\n".join((SAMPLE / rel).read_text().splitlines()[first - 1 : last])


def _refs(answer: dict[str, Any]) -> list[tuple[str, int, str, str | None]]:
    """(path, line, kind, enclosing title) of every ref, in answer order."""
    return [(f["path"], r["line"], r["kind"], (r.get("enclosing") or {}).get("title"))
            for f in answer["files"] for r in f["refs"]]


async def test_lookups_follow_the_handles_of_a_hit(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        top = (await call(s, "codebase_search", query="get_user_by_id"))["hits"][0]
        assert top["title"] == "UserStore.get_user_by_id"
        assert top["symbol_id"].startswith("S") and len(top["handle"]) == 16

        # get_symbol_details: the definition, its container and its refs by kind.
        method = await call(s, "get_symbol_details", symbol_id=top["symbol_id"])
        parent = method.pop("parent")
        assert {k: v for k, v in method.items() if k not in ("_text", "file_id", "chunk_id")} \
            == {"symbol_id": top["symbol_id"], "path": "src/users/store.py", "line": 12,
                "end_line": 14, "lang": "python", "name": "get_user_by_id",
                "qualified_name": "UserStore.get_user_by_id", "kind": "method",
                "container": "UserStore",
                "signature": "def get_user_by_id(self, user_id: int) -> str | None:",
                "doc": "Return the user's name, or None when the id is unknown.",
                "children": [], "children_total": 0,
                "ref_counts": {"import": 0, "call": 1, "identifier": 0, "string": 0,
                               "total": 1}}
        assert method["chunk_id"] == top["handle"]
        assert (parent["name"], parent["kind"], parent["line"]) == ("UserStore", "class", 6)
        assert method["_text"].splitlines()[:4] == [
            f"UserStore.get_user_by_id (method) src/users/store.py:12-14  #{top['symbol_id']}",
            "signature: def get_user_by_id(self, user_id: int) -> str | None:",
            "doc: Return the user's name, or None when the id is unknown.",
            f"in: UserStore (class) :6  #{parent['symbol_id']}"]
        cls = await call(s, "get_symbol_details", symbol_id=parent["symbol_id"])
        assert [(c["name"], c["kind"], c["line"]) for c in cls["children"]] == [
            ("__init__", "method", 9), ("get_user_by_id", "method", 12),
            ("add_user", "method", 16)]
        assert cls["children"][1]["symbol_id"] == top["symbol_id"]
        assert (cls["line"], cls["end_line"], cls["doc"]) == (
            6, 19, "Keeps users in memory, keyed by id.")
        assert cls["ref_counts"] == {"import": 1, "call": 1, "identifier": 0, "string": 0,
                                     "total": 2}

        # find_references: by handle or by (qualified) name, the same refs, grouped by file,
        # each in its enclosing definition; calls before imports.
        by_handle = await call(s, "find_references", symbol_id=top["symbol_id"])
        by_name = await call(s, "find_references", name="UserStore.get_user_by_id")
        assert by_handle["files"] == by_name["files"]
        assert by_handle["name"] == "get_user_by_id"
        [ref] = by_handle["files"][0]["refs"]
        test_fn = ref["enclosing"]
        assert (by_handle["files"][0]["path"], ref["line"], ref["kind"], ref["receiver"],
                ref["text"], test_fn["title"], test_fn["kind"], test_fn["line"]) == (
            "tests/test_store.py", 7, "call", "store",
            'assert store.get_user_by_id(1) == "ada"', "test_get_user_by_id", "function", 4)
        assert (by_handle["returned"], by_handle["total_matches"]) == (1, 1)
        assert by_handle["_text"].splitlines() == [
            "1 ref(s) of 'get_user_by_id' in 1 file(s)", "tests/test_store.py",
            f"  :7 call in test_get_user_by_id #{test_fn['symbol_id']}  "
            'assert store.get_user_by_id(1) == "ada"']
        users = await call(s, "find_references", name="UserStore")
        assert _refs(users) == [("tests/test_store.py", 5, "call", "test_get_user_by_id"),
                                ("tests/test_store.py", 1, "import", None)]
        assert users["_text"].splitlines()[3].startswith("  :1 import top level #")
        imports = await call(s, "find_references", name="UserStore", kinds="import")
        assert _refs(imports) == [("tests/test_store.py", 1, "import", None)]
        spread = await call(s, "find_references", name="users")
        assert _refs(spread) == [
            ("tests/test_store.py", 1, "import", None),
            ("server/handler.go", 5, "identifier", "server.Handler.GetUserByID"),
            ("server/handler.go", 10, "identifier", "server.Handler")]
        assert [f["path"] for f in spread["files"]] == ["tests/test_store.py",
                                                        "server/handler.go"]
        # Paging: two pages of two are the four refs, in order.
        whole = await call(s, "find_references", name="user_id")
        assert [r[1] for r in _refs(whole)] == [12, 14, 16, 19]
        page1 = await call(s, "find_references", name="user_id", k=2)
        assert (page1["returned"], page1["total_matches"]) == (2, 4)
        page2 = await call(s, "find_references", name="user_id", k=2,
                           cursor=page1["next_cursor"])
        assert _refs(page1) + _refs(page2) == _refs(whole)
        assert "next_cursor" not in page2
        assert "another search" in await error(s, "find_references", name="users", k=2,
                                               cursor=page1["next_cursor"])
        assert (await call(s, "find_references", name="no_such_name"))["files"] == []

        # get_surrounding_code: the block and its neighbours, exactly as in the file.
        around = await call(s, "get_surrounding_code", chunk_id=top["handle"])
        block = around["block"]
        assert (around["path"], block["chunk_id"], block["symbol_id"], block["title"],
                block["line"], block["end_line"], block["text"]) == (
            "src/users/store.py", top["handle"], top["symbol_id"], "UserStore.get_user_by_id",
            12, 14, _lines("src/users/store.py", 12, 14))
        assert [(b["title"], b["line"], b["end_line"], b["text"]) for b in around["before"]] == [
            ("UserStore.__init__", 9, 10, _lines("src/users/store.py", 9, 10))]
        assert [(b["title"], b["line"], b["end_line"], b["text"]) for b in around["after"]] == [
            ("UserStore.add_user", 16, 19, _lines("src/users/store.py", 16, 19))]
        assert around["_text"].splitlines()[:4] == [
            "src/users/store.py",
            f"   :9-10 UserStore.__init__ (method)  #{around['before'][0]['chunk_id']}",
            *_lines("src/users/store.py", 9, 10).splitlines()]
        assert f">> :12-14 UserStore.get_user_by_id (method)  #{top['handle']}" in \
            around["_text"].splitlines()
        by_symbol = await call(s, "get_surrounding_code", symbol_id=top["symbol_id"],
                               before=0, after=2)
        assert by_symbol["block"] == block and by_symbol["before"] == []
        assert [b["title"] for b in by_symbol["after"]] == ["UserStore.add_user"]  # the last
        # A definition's refs lead to the code around them.
        caller = await call(s, "get_surrounding_code", chunk_id=ref["chunk_id"], before=0,
                            after=0)
        assert (caller["block"]["title"], caller["block"]["text"]) == (
            "test_get_user_by_id", _lines("tests/test_store.py", 4, 7))

        # find_similar_code without vectors: a lexical answer, and a warning that says so; the
        # range itself is left out.
        like = await call(s, "find_similar_code", path="src/users/store.py", start_line=12,
                          end_line=14, k=3)
        assert any("embeddings are off; answered with lexical search" in w
                   for w in like["meta"]["warnings"])
        assert "warning: embeddings are off" in like["_text"]
        assert like["hits"] and len(like["hits"]) <= 3
        assert not any(h["path"] == "src/users/store.py" and h["line"] <= 14
                       and h["end_line"] >= 12 for h in like["hits"])
        # The method's neighbours share most of its words; the Go handler is the same code
        # in another language (auto has no file-diversity prior since fusion by definition).
        assert [h["title"] for h in like["hits"]] == [
            "UserStore.__init__", "UserStore.add_user", "server.Handler.GetUserByID"]
        by_text = await call(s, "find_similar_code", text=_lines("src/users/store.py", 12, 14))
        assert by_text["hits"][0]["handle"] == top["handle"]  # not left out: no range given


async def test_lookups_refuse_bad_arguments(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        top = (await call(s, "codebase_search", query="get_user_by_id"))["hits"][0]
        never = "S999.0.0123456789"
        refusals: list[tuple[str, dict[str, Any], str]] = [
            ("find_references", {}, "find_references needs exactly one of symbol_id or name"),
            ("find_references", {"symbol_id": top["symbol_id"], "name": "x"},
             "needs exactly one of symbol_id or name; got symbol_id and name"),
            ("find_references", {"symbol_id": "bogus"},
             "'symbol_id' must be a symbol handle from a kebab answer"),
            ("find_references", {"symbol_id": top["handle"]}, "must be a symbol handle"),
            ("find_references", {"name": "x", "kinds": ["calls"]},
             "unknown kinds(s) 'calls'; expected one of import, call, identifier, string"),
            ("find_references", {"name": "x", "k": 0}, "'k' must be an integer in 1..500"),
            ("find_references", {"name": "x", "k": 400, "cursor": None},
             ""),  # a valid request: checked below
            ("find_references", {"name": "who calls x"}, "a usage request needs a name"),
            ("find_references", {"name": ""}, "'name' must be a non-empty string"),
            ("find_references", {"name": "x", "cursor": "zz"},
             "cursor 'zz' is not one this server gave out"),
            ("find_references", {"symbol_id": never}, f"the symbol handle {never!r} is stale"),
            ("get_symbol_details", {}, "symbol_id"),
            ("get_symbol_details", {"symbol_id": top["handle"]},
             "'symbol_id' must be a symbol handle"),
            ("get_symbol_details", {"symbol_id": never}, "is stale"),
            ("get_surrounding_code", {},
             "get_surrounding_code needs exactly one of chunk_id or symbol_id"),
            ("get_surrounding_code", {"chunk_id": top["handle"], "symbol_id": top["symbol_id"]},
             "got chunk_id and symbol_id"),
            ("get_surrounding_code", {"chunk_id": "xyz"},
             "'chunk_id' must be a chunk handle from a kebab answer (16 hex digits)"),
            ("get_surrounding_code", {"chunk_id": top["handle"], "before": 51},
             "'before' must be an integer in 0..50, got 51"),
            ("get_surrounding_code", {"chunk_id": top["handle"], "after": -1},
             "'after' must be an integer in 0..50, got -1"),
            ("get_surrounding_code", {"chunk_id": "0123456789abcdef"},
             "the chunk handle '0123456789abcdef' is stale"),
            ("find_similar_code", {}, "find_similar_code needs exactly one of path or text"),
            ("find_similar_code", {"text": "x", "path": "src/users/store.py"},
             "got path and text"),
            ("find_similar_code", {"path": "src/users/store.py"},
             "with path needs start_line and end_line"),
            ("find_similar_code", {"text": "x", "start_line": 1},
             "start_line and end_line go with path"),
            ("find_similar_code", {"text": "   "}, "text is blank"),
            ("find_similar_code", {"text": "a" * 10_001},
             "the text is 10,001 characters long"),
            ("find_similar_code", {"text": "x", "k": 501}, "'k' must be an integer in 1..500"),
            ("find_similar_code", {"path": "src/users/store.py", "start_line": 90,
                                   "end_line": 99}, "has 19 lines; start_line 90 is past"),
            ("find_similar_code", {"path": "src/users/store.py", "start_line": 5,
                                   "end_line": 2}, "end_line (2) is before start_line (5)"),
            ("find_similar_code", {"path": "src/users/store.py", "start_line": 0,
                                   "end_line": 2}, "greater than or equal to 1"),
            ("find_similar_code", {"path": "../outside/private.py", "start_line": 1,
                                   "end_line": 2}, "contains '..'"),
            ("find_similar_code", {"path": str(ws / "src/users/store.py"), "start_line": 1,
                                   "end_line": 2}, "is absolute"),
            ("find_similar_code", {"path": "link_out.py", "start_line": 1, "end_line": 2},
             "symlink out"),
            ("find_similar_code", {"path": ".env", "start_line": 1, "end_line": 1},
             "not in the index"),
            ("find_similar_code", {"path": "ignored.py", "start_line": 1, "end_line": 1},
             "not in the index"),
        ]
        for tool, args, message in refusals:
            if not message:
                assert (await call(s, tool, **args))["files"] == []
                continue
            got = await error(s, tool, **args)
            assert message in got, (tool, args, got)


async def _wait_for(session: Any, query: str, line: int, timeout: float = 20) -> dict[str, Any]:
    """The top hit for `query` once it is at `line` (the watcher indexed an edit)."""
    deadline = time.monotonic() + timeout
    while True:
        hits = (await call(session, "codebase_search", query=query))["hits"]
        if hits and hits[0]["line"] == line:
            return hits[0]
        assert time.monotonic() < deadline, f"{query} never moved to line {line}: {hits[:1]}"
        await asyncio.sleep(0.2)


async def test_handles_go_stale_when_their_file_changes(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        old = (await call(s, "codebase_search", query="get_user_by_id"))["hits"][0]
        assert (await call(s, "get_symbol_details", symbol_id=old["symbol_id"]))["line"] == 12
        path = ws / "src/users/store.py"
        path.write_text("import os\n" + path.read_text())  # every line moves down one
        new = await _wait_for(s, "get_user_by_id", 13)
        assert (new["handle"], new["symbol_id"]) != (old["handle"], old["symbol_id"])
        for tool, args, what in (
                ("get_symbol_details", {"symbol_id": old["symbol_id"]}, "symbol"),
                ("find_references", {"symbol_id": old["symbol_id"]}, "symbol"),
                ("get_surrounding_code", {"symbol_id": old["symbol_id"]}, "symbol"),
                ("get_surrounding_code", {"chunk_id": old["handle"]}, "chunk")):
            message = await error(s, tool, **args)
            handle = args.get("symbol_id") or args.get("chunk_id")
            assert f"the {what} handle {handle!r} is stale: its file changed" in message
            assert "search again" in message
        # The fresh handles answer from the new file.
        details = await call(s, "get_symbol_details", symbol_id=new["symbol_id"])
        assert (details["line"], details["end_line"]) == (13, 15)
        around = await call(s, "get_surrounding_code", chunk_id=new["handle"])
        assert around["block"]["line"] == 13
        # A handle of an unchanged file stays valid.
        test_fn = (await call(s, "codebase_search", query="test_get_user_by_id"))["hits"][0]
        assert (await call(s, "get_symbol_details", symbol_id=test_fn["symbol_id"]))[
            "name"] == "test_get_user_by_id"


async def test_similar_code_by_vector_leaves_out_the_range(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    async with mcp_session([ws], tmp_path / "index") as s:
        await wait_embedded(s)
        like = await call(s, "find_similar_code", path="web/api.ts", start_line=2, end_line=5,
                          k=4)
        assert "vector" in like["meta"]["query_plan"], like["meta"]
        assert like["meta"]["warnings"] == []
        assert len(like["hits"]) == 4
        assert not any(h["path"] == "web/api.ts" and h["line"] <= 5 and h["end_line"] >= 2
                       for h in like["hits"])
        # The same lookup in Go is among the nearest.
        assert "server.Handler.GetUserByID" in [h["title"] for h in like["hits"][:2]]
        by_text = await call(s, "find_similar_code", text=_lines("web/api.ts", 2, 5), k=1)
        assert by_text["hits"][0]["title"] == "getUserById"  # nothing left out


def _network_sockets(pid: int) -> list[str]:
    """The process's sockets that are TCP or UDP (inodes listed in /proc/net)."""
    inodes = set()
    for fd in (Path("/proc") / str(pid) / "fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        path = Path("/proc") / str(pid) / "net" / table
        for line in path.read_text().splitlines()[1:]:
            if line.split()[9] in inodes:
                found.append(f"{table}: {line}")
    return found


async def test_read_file_lines_status_and_safety(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    (ws / "big.py").write_text("x = 1\n" * 200_000)  # over the 1 MB default: too_large
    async with mcp_session([ws], tmp_path / "index", NO_EMBED) as s:
        got = await call(s, "read_file_lines", path="src/users/store.py", start_line=12,
                         end_line=14)
        source = (SAMPLE / "src/users/store.py").read_text().splitlines()
        assert got["text"] == "\n".join(source[11:14])
        assert (got["start_line"], got["end_line"], got["total_lines"], got["truncated"]) == (
            12, 14, len(source), False)
        assert got["_text"].splitlines()[0] == f"src/users/store.py:12-14 of {len(source)}"
        # Past the end is clipped; a missing end reads on from start_line.
        tail = await call(s, "read_file_lines", path="./src/users/store.py", start_line=18,
                          end_line=999)
        assert (tail["end_line"], tail["truncated"]) == (len(source), False)
        assert "past the end" in await error(s, "read_file_lines", path="src/users/store.py",
                                             start_line=500)
        assert "start_line" in await error(s, "read_file_lines", path="src/users/store.py",
                                           start_line="twelve")
        assert "greater than or equal to 1" in await error(
            s, "read_file_lines", path="src/users/store.py", start_line=0)
        assert "Unknown tool" in await error(s, "read_whole_repo")
        assert "before start_line" in await error(s, "read_file_lines",
                                                  path="src/users/store.py", start_line=5,
                                                  end_line=2)

        refusals = {
            str(ws / "src/users/store.py"): "is absolute",
            "/etc/passwd": "is absolute",
            "../outside/private.py": "contains '..'",
            "src/../../outside/private.py": "contains '..'",
            "link_out.py": "symlink out",
            "ignored.py": "not in the index (left out by the folder's rules",
            ".env": "not in the index (left out by the folder's rules",
            "big.py": "not in the index (skipped: too_large)",
            "src": "not in the index (a folder",
            "nope.py": "no file 'nope.py'",
        }
        for path, reason in refusals.items():
            assert reason in await error(s, "read_file_lines", path=path), path

        status = (await call(s, "get_status"))["roots"]
        assert len(status) == 1
        root = status[0]
        assert (root["root"], root["path"]) == ("ws", str(ws))
        # The sample's 6 files and .gitignore: the ignored file, the link and the secret .env
        # are out.
        assert root["files"] == 7
        assert root["symbols"] > 10 and root["chunks"] >= root["symbols"] // 2
        assert root["writer"] == {"this_process": True, "pid": root["writer"]["pid"]}
        assert root["watcher"] == "watching" and root["building"] is False
        assert root["last_update"].endswith("+00:00")
        assert root["vectors"] == {"enabled": False, "reason": "embeddings are off"}
        assert root["error"] is None
        assert "7 files" in (await call(s, "get_status"))["_text"]

        pid = (await call(s, "debug_state"))["pid"]
        assert _network_sockets(pid) == []


async def test_client_roots_are_used_when_no_path_is_given(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)

    async def roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=ws.as_uri(), name="ws")])

    async with mcp_session([], tmp_path / "index", NO_EMBED, roots_callback=roots) as s:
        status = (await call(s, "get_status"))["roots"]
        assert [r["path"] for r in status] == [str(ws)]
    # No paths, no client roots: the current directory, unless it is far too broad.
    async with mcp_session([], tmp_path / "index", NO_EMBED, cwd=ws) as s:
        assert [r["path"] for r in (await call(s, "get_status"))["roots"]] == [str(ws)]
    async with mcp_session([], tmp_path / "index", NO_EMBED, cwd=Path("/")) as s:
        assert "too broad to index" in await error(s, "get_status")


def _big_tree(root: Path, files: int) -> None:
    for i in range(files):
        path = root / f"pkg{i % 20}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"def function_{i}_{j}(value):\n    return value + {j}\n\n\n"
                                for j in range(20)), encoding="utf-8")


async def test_build_index_reports_progress_and_honours_cancellation(tmp_path: Path) -> None:
    ws = tmp_path / "big"
    _big_tree(ws, 600)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED, "--workers", "1") as s:
        status = (await call(s, "get_status"))["roots"][0]  # opens the index and scans it
        for _ in range(600):
            if not (await call(s, "get_status"))["roots"][0]["building"]:
                break
            await asyncio.sleep(0.1)
        assert (await call(s, "get_status"))["roots"][0]["files"] == 600

        seen: list[tuple[float, float | None]] = []

        async def progress(done: float, total: float | None, message: str | None) -> None:
            seen.append((done, total))

        result = await s.call_tool("build_index", {"rebuild": True},
                                   progress_callback=progress)
        assert not result.is_error, result.content
        built = result.structured_content["roots"][0]
        assert (built["files"], built["scan"]["scanned"]) == (600, 600), built
        assert seen and seen[-1][1] == 600 and all(t == 600 for _, t in seen)
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)

        # Cancelled mid-build: the scan stops, and the server answers at once.
        task = await _rebuild_under_way(s)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # A rebuild starts from an empty index: after the cancel, an incremental scan brings
        # back what the rebuild had not rewritten yet, and finds the rest unchanged.
        deadline = time.monotonic() + 60
        while (await call(s, "get_status"))["roots"][0]["building"]:
            assert time.monotonic() < deadline, "the index did not settle after the cancel"
            await asyncio.sleep(0.1)
        status = (await call(s, "get_status"))["roots"][0]
        assert status["files"] == 600 and status["progress"] is None
        scan = status["last_scan"]
        assert scan["new"] > 0 and scan["unchanged"] > 0, scan  # the rebuild was cut short
        assert (await call(s, "codebase_search", query="function_7_3"))["hits"][0][
            "path"] == "pkg7/mod7.py"


async def _rebuild_under_way(session: Any) -> asyncio.Task[Any]:
    """`build_index(rebuild=true)` running, once its first progress notification came."""
    started = asyncio.Event()

    async def first(done: float, total: float | None, message: str | None) -> None:
        started.set()

    task = asyncio.create_task(session.call_tool("build_index", {"rebuild": True},
                                                 progress_callback=first))
    await asyncio.wait_for(started.wait(), 60)
    return task


async def _search_until(session: Any, query: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        found = await call(session, "codebase_search", query=query, mode="lexical")
        if found["hits"] or time.monotonic() > deadline:
            return found
        await asyncio.sleep(0.25)


async def test_two_servers_share_one_index_and_the_survivor_takes_over(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    index = tmp_path / "index"
    async with mcp_session([ws], index, errlog=tmp_path / "a.log") as a:
        assert (await call(a, "get_status"))["roots"][0]["writer"]["this_process"] is True
        async with mcp_session([ws], index, errlog=tmp_path / "b.log") as b:
            status_b = (await call(b, "get_status"))["roots"][0]
            a_pid = (await call(a, "debug_state"))["pid"]
            assert status_b["writer"] == {"this_process": False, "pid": a_pid}
            assert status_b["files"] == 7  # the sample without its .env (a secret)
            # A reader knows whether the writer is scanning (`test_mcp_reader.py`); here its
            # scan may be ending as the status is read.
            assert status_b["vectors"]["enabled"] is True
            assert isinstance(status_b["building"], bool)

            # The writer sees an edit through its watcher; the reader sees the commit.
            (ws / "src/users/extra.py").write_text("def walrus_tusk_marker():\n    pass\n")
            found = await _search_until(b, "walrus_tusk_marker", 20)
            assert [h["path"] for h in found["hits"]] == ["src/users/extra.py"]
            # The reader answers hybrid questions too: vectors written by A, read by B.
            for _ in range(100):
                if (await call(a, "get_status"))["roots"][0]["vectors"]["share"] == 1.0:
                    break
                await asyncio.sleep(0.2)
            # Both count against the vectors a complete sync holds (the reader had counted
            # chunks).
            wanted = (await call(a, "get_status"))["roots"][0]["vectors"]["total"]
            assert (await call(b, "get_status"))["roots"][0]["vectors"]["total"] == wanted
            hybrid = await call(b, "codebase_search", query="look a user up and write it as json")
            assert hybrid["meta"]["query_plan"] and hybrid["hits"]
            assert "vector" in hybrid["meta"]["query_plan"], hybrid["meta"]["query_plan"]
            assert not any("lexical search" in w for w in hybrid["meta"]["warnings"])
            assert hybrid["hits"][0]["path"] == "server/handler.go"
            state_b = await call(b, "debug_state")
            assert state_b["writing"] == {"ws": False}
            # B never imported lancedb, which all LanceDB writes go through: only A wrote.
            assert "lancedb" not in state_b["loaded"]

            os.kill(a_pid, signal.SIGKILL)
            with anyio.move_on_after(5):
                while True:
                    try:
                        os.kill(a_pid, 0)
                    except ProcessLookupError:
                        break
                    await asyncio.sleep(0.05)
            (ws / "web/late.ts").write_text("export function narwhalHornMarker() {}\n")
            (ws / "src/users/extra.py").unlink()
            found = await _search_until(b, "narwhalHornMarker", 20)
            assert [h["path"] for h in found["hits"]] == ["web/late.ts"]
            assert (await call(b, "debug_state"))["writing"] == {"ws": True}
            gone = await _search_until(b, "walrus_tusk_marker", 0)
            assert gone["hits"] == []
            status_b = (await call(b, "get_status"))["roots"][0]
            assert status_b["writer"]["this_process"] is True
            assert status_b["watcher"] == "watching"


async def test_a_question_during_a_rebuild_is_answered_at_once_and_says_building(
        tmp_path: Path) -> None:
    """A rebuild empties the index first; a question meanwhile is answered from what it has
    rewritten so far, marked building, instead of waiting for the whole rebuild."""
    ws = tmp_path / "big"
    _big_tree(ws, 1500)
    async with mcp_session([ws], tmp_path / "index", NO_EMBED, "--workers", "1") as s:
        await call(s, "get_status")  # opens the index and scans it
        for _ in range(1200):
            if not (await call(s, "get_status"))["roots"][0]["building"]:
                break
            await asyncio.sleep(0.1)
        build = await _rebuild_under_way(s)
        answer = await asyncio.wait_for(
            call(s, "codebase_search", query="function_7_3", mode="lexical"), 30)
        assert not build.done()  # answered while the rebuild went on
        assert answer["meta"]["index"]["building"] is True
        assert answer["meta"]["recall"]["complete"] is False
        result = await asyncio.wait_for(build, 300)
        assert not result.is_error
        done = await call(s, "codebase_search", query="function_7_3", mode="lexical")
        assert done["hits"][0]["path"] == "pkg7/mod7.py"

"""Usages, handles and the lookups built on them, end to end through the real server:
kebab/search's usage intent, kebab/references, kebab/symbol, kebab/context, kebab/similar and
textDocument/references, with exact locations, stale handles and bad params."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    LOOKUP_PARAMS,
    Session,
    StartFn,
    call,
    conforms,
    point,
    position,
    starts,
    valid,
    write_tree,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

FILES: dict[str, str] = {
    "lib/store.py": '''"""Storage."""


class Store:
    """Keeps rows."""

    def write(self, row):
        self.rows.append(row)

    def flush(self):
        return "flush"


def open_store(path):
    return Store()
''',
    "app/main.py": '''from lib.store import Store, open_store


def run():
    store = open_store("db.sqlite")
    store.write(1)
    return Store
''',
    "web/client.ts": '''import { openStore } from "./store";

export function save(): void {
  const s = openStore();
  s.write(2);
}
''',
}


def at(rel: str, needle: str, offset: int = 0) -> tuple[int, int]:
    line, col = position(rel, needle, files=FILES)
    return line, col + offset


async def ready(start_server: StartFn, root: Path, **kwargs: Any) -> Session:
    s = await start_server([root], **kwargs)
    await s.wait_idle()
    return s


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", FILES)


async def test_usage_search_and_references(start_server: StartFn, tree: Path) -> None:
    s = await ready(start_server, tree)
    found = valid(await s.search({"query": "who calls write"}))
    assert found["meta"]["intent"] == {"name": "usage", "rule": "who calls X"}
    assert starts(found["hits"]) == [
        ("app/main.py", "call", at("app/main.py", "write(1)")),
        ("web/client.ts", "call", at("web/client.ts", "write(2)")),
    ]
    assert [h["ref"]["receiver"] for h in found["hits"]] == ["store", "s"]
    assert (found["meta"]["total_matches"], found["meta"]["count_accuracy"]) == (2, "exact")
    assert found["meta"]["recall"]["truncated"] is False
    first = found["hits"][0]
    assert first["title"] == "run" and first["symbol_id"]
    # The location cites the enclosing definition; the selection is the call's name.
    assert point(first["location"]["range"]["start"]) == at("app/main.py", "def run")
    assert point(first["selection"]["start"]) == at("app/main.py", "write(1)")
    assert first["location"]["uri"] == (tree / "app/main.py").as_uri()

    # By name: a file that calls it, then one that imports it (its bare mention last); the
    # class's definition is not a use.
    by_name = valid(await call(s, "kebab/references", {"name": "Store"}))
    assert starts(by_name["hits"]) == [
        ("lib/store.py", "call", at("lib/store.py", "Store()")),
        ("app/main.py", "import", at("app/main.py", "Store")),
        ("app/main.py", "identifier", at("app/main.py", "return Store", 7)),
    ]
    only_calls = await call(s, "kebab/references", {"name": "Store", "kinds": ["call"], "k": 5})
    assert starts(only_calls["hits"]) == [("lib/store.py", "call", at("lib/store.py", "Store()"))]
    capped = await call(s, "kebab/references", {"name": "Store", "k": 1})
    assert len(capped["hits"]) == 1 and capped["meta"]["total_matches"] == 3
    assert capped["meta"]["recall"]["truncated"] is True

    # By place: the cursor on the definition's name.
    line, col = at("lib/store.py", "def write", 6)
    by_place = await call(s, "kebab/references", {
        "textDocument": {"uri": (tree / "lib/store.py").as_uri()},
        "position": {"line": line, "character": col}})
    assert [h["path"] for h in by_place["hits"]] == ["app/main.py", "web/client.ts"]

    # By handle: the definition a search hit names.
    hit = (await s.search({"query": "open_store", "mode": "lexical"}))["hits"][0]
    assert hit["symbol"] == "open_store"
    by_handle = await call(s, "kebab/references", {"symbol_id": hit["symbol_id"]})
    assert starts(by_handle["hits"]) == [  # in a file, calls first
        ("app/main.py", "call", at("app/main.py", "open_store(")),
        ("app/main.py", "import", at("app/main.py", "open_store")),
    ]


async def test_symbol_and_context_by_handle(start_server: StartFn, tree: Path) -> None:
    s = await ready(start_server, tree)
    hit = (await s.search({"query": "Store", "mode": "lexical",
                           "filters": {"kind": "class"}}))["hits"][0]
    info = await call(s, "kebab/symbol", {"symbol_id": hit["symbol_id"]})
    assert (info["name"], info["kind"], info["doc"], info["signature"]) == (
        "Store", "class", "Keeps rows.", "class Store:")
    assert info["parent"] is None and info["path"] == "lib/store.py"
    assert [c["name"] for c in info["children"]] == ["write", "flush"]
    assert info["ref_counts"] == {"by_kind": [
        {"kind": "import", "count": 1}, {"kind": "call", "count": 1},
        {"kind": "identifier", "count": 1}, {"kind": "string", "count": 0}], "total": 3}
    start = info["selection"]["start"]
    assert (start["line"], start["character"]) == at("lib/store.py", "Store")
    write = await call(s, "kebab/symbol", {"symbol_id": info["children"][0]["symbol_id"]})
    assert write["qualified_name"] == "Store.write" and write["parent"]["name"] == "Store"

    ctx = await call(s, "kebab/context", {"symbol_id": write["symbol_id"], "before": 1,
                                          "after": 2})
    assert ctx["block"]["title"] == "Store.write"
    assert ctx["block"]["lines"] == {"start": at("lib/store.py", "def write")[0],
                                     "end": at("lib/store.py", "self.rows")[0]}
    assert [b["title"] for b in ctx["after"]] == ["Store.flush", "open_store"]
    assert [b["title"] for b in ctx["before"]] == ["Store"]
    by_chunk = await call(s, "kebab/context", {"chunk_id": ctx["after"][0]["chunk_id"],
                                               "before": 0, "after": 0})
    assert by_chunk["block"]["title"] == "Store.flush" and by_chunk["before"] == []
    # The short class is one block that holds its methods: what follows it is the next
    # definition, not its own methods again; the class a method sits in stays before it.
    around_class = await call(s, "kebab/context", {"symbol_id": hit["symbol_id"],
                                                   "before": 0, "after": 2})
    assert around_class["block"]["title"] == "Store"
    assert [b["title"] for b in around_class["after"]] == ["open_store"]


async def test_stale_handles_say_so(start_server: StartFn, tree: Path) -> None:
    s = await ready(start_server, tree)
    hit = (await s.search({"query": "open_store", "mode": "lexical"}))["hits"][0]
    path = tree / "lib/store.py"
    path.write_text("import os\n" + FILES["lib/store.py"])
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
    await s.wait_idle()
    for method, params in (("kebab/symbol", {"symbol_id": hit["symbol_id"]}),
                           ("kebab/references", {"symbol_id": hit["symbol_id"]}),
                           ("kebab/context", {"chunk_id": hit["chunk_id"]})):
        with pytest.raises(JsonRpcInvalidParams, match="is stale"):
            await s.request(method, params)
    fresh = (await s.search({"query": "open_store", "mode": "lexical"}))["hits"][0]
    assert fresh["symbol_id"] != hit["symbol_id"]
    info = await call(s, "kebab/symbol", {"symbol_id": fresh["symbol_id"]})
    assert info["name"] == "open_store"
    assert info["selection"]["start"]["line"] == at("lib/store.py", "def open_store")[0] + 1


@pytest.mark.parametrize(("method", "params", "message"), [
    ("kebab/references", {}, "exactly one of"),
    ("kebab/references", {"name": "a", "symbol_id": "S1.0.0123456789"}, "exactly one of"),
    ("kebab/references", {"name": "a", "kinds": ["calls"]}, "unknown kinds"),
    ("kebab/references", {"textDocument": {"uri": "file:///x.py"}}, "needs 'position'"),
    ("kebab/references", {"name": "a", "colour": 1}, "unknown kebab/references param"),
    ("kebab/symbol", {"symbol_id": "nope"}, "must be a symbol handle"),
    ("kebab/symbol", [], "must be an object"),
    ("kebab/context", {"chunk_id": "zz"}, "must be a chunk handle"),
    ("kebab/context", {"chunk_id": "0123456789abcdef", "before": -1}, "before"),
    ("kebab/similar", {"text": "x", "textDocument": {"uri": "file:///x.py"}}, "exactly one"),
    ("kebab/similar", {"textDocument": {"uri": "file:///x.py"},
                       "range": {"start": {"line": 2, "character": 0},
                                 "end": {"line": 1, "character": 0}}}, "ends before"),
])
async def test_bad_params_are_invalid_params(start_server: StartFn, tree: Path, method: str,
                                             params: Any, message: str) -> None:
    if isinstance(params, dict) and message != "ends before":  # the schema refuses them too
        with pytest.raises(AssertionError):
            conforms(params, LOOKUP_PARAMS[method])
    s = await start_server([tree])
    with pytest.raises(JsonRpcInvalidParams, match=message):
        await s.request(method, params)


async def test_similar_without_vectors_falls_back_and_leaves_out_the_code(
        start_server: StartFn, tree: Path) -> None:
    s = await ready(start_server, tree)
    first, _ = at("lib/store.py", "def write")
    result = valid(await call(s, "kebab/similar", {
        "textDocument": {"uri": (tree / "lib/store.py").as_uri()},
        "range": {"start": {"line": first, "character": 0},
                  "end": {"line": first + 1, "character": 30}}}))
    assert any("lexical" in w for w in result["meta"]["warnings"])
    assert result["meta"]["intent"]["name"] == "similar"
    assert result["hits"], result
    for h in result["hits"]:
        assert not (h["path"] == "lib/store.py" and h["lines"]["start"] <= first + 1
                    and first <= h["lines"]["end"]), h
    assert "web/client.ts" in {h["path"] for h in result["hits"]}  # `s.write(2)` shares words
    # Every match came back, and the code left out is not counted either.
    assert (result["meta"]["total_matches"], result["meta"]["count_accuracy"]) == (
        len(result["hits"]), "exact")
    text = valid(await call(s, "kebab/similar", {"text": "def write(self, row): pass"}))
    assert text["hits"][0]["title"] == "Store.write"  # with text, nothing is left out


async def test_similar_to_a_range_past_the_end_of_its_file_says_so(
        start_server: StartFn, tree: Path) -> None:
    s = await ready(start_server, tree)
    lines = FILES["lib/store.py"].count("\n") + 1
    with pytest.raises(JsonRpcInvalidParams,
                       match=f"starts on line {lines + 5} .* lib/store.py has {lines} lines"):
        await s.request("kebab/similar", {
            "textDocument": {"uri": (tree / "lib/store.py").as_uri()},
            "range": {"start": {"line": lines + 4, "character": 0},
                      "end": {"line": lines + 9, "character": 0}}})


async def test_text_document_references_only_when_enabled(start_server: StartFn,
                                                          tree: Path) -> None:
    params = types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=(tree / "app/main.py").as_uri()),
        position=types.Position(*at("app/main.py", "open_store(", 3)),
        context=types.ReferenceContext(include_declaration=True))
    off = await ready(start_server, tree)
    assert await off.client.text_document_references_async(params) is None
    await off.shutdown()

    on = await ready(start_server, tree, init_options={"provideReferences": True})
    found = await on.client.text_document_references_async(params)
    assert found is not None
    got = [(loc.uri.rsplit("/ws/", 1)[1], loc.range.start.line, loc.range.start.character)
           for loc in found]
    assert got == [("lib/store.py", *at("lib/store.py", "open_store")),
                   ("app/main.py", *at("app/main.py", "open_store(")),
                   ("app/main.py", *at("app/main.py", "open_store"))]


async def test_grouped_answer(start_server: StartFn, tree: Path) -> None:
    s = await ready(start_server, tree)
    plain = valid(await s.search({"query": "open_store", "mode": "lexical"}))
    grouped = valid(await s.search({"query": "open_store", "mode": "lexical", "group": True}))
    assert "hits" not in grouped and "definitions" not in plain  # ungrouped is unchanged
    both = grouped["definitions"] + grouped["blocks"]
    assert sorted(h["id"] for h in both) == sorted(h["id"] for h in plain["hits"])
    assert grouped["definitions"][0]["title"] == "open_store"
    assert all(h["kind"] in ("function", "method", "class") for h in grouped["definitions"])
    # The import lines (`openStore` matches by its identifier parts) are blocks.
    assert sorted(h["path"] for h in grouped["blocks"]) == ["app/main.py", "web/client.ts"]
    files = {f["path"]: f for f in grouped["files"]}
    assert list(files) == list(dict.fromkeys(h["path"] for h in plain["hits"]))
    store = files["lib/store.py"]
    assert (store["lang"], store["doc"], store["imports"]) == ("python", "Storage.", [])
    assert [(d["name"], d["kind"]) for d in store["defines"]] == [("Store", "class"),
                                                                 ("open_store", "function")]
    assert store["uri"] == (tree / "lib/store.py").as_uri()
    # An explicit lexical search reads no vectors: the files come from the hits alone.
    assert [f["found_by"] for f in grouped["files"]] == [
        {"hit_rank": i, "file_vector_rank": None, "file_vector_score": None,
         "fusion_score": None} for i in range(1, len(files) + 1)]
    main = files["app/main.py"]
    assert main["imports"] == ["lib", "store", "Store", "open_store"]
    assert [d["name"] for d in main["defines"]] == ["run"]
    info = await call(s, "kebab/symbol", {"symbol_id": store["defines"][1]["symbol_id"]})
    assert info["qualified_name"] == "open_store"


@pytest.mark.model
async def test_similar_by_vector_leaves_out_the_range(start_server: StartFn,
                                                      tmp_path: Path) -> None:
    files = {
        "a/retry.py": "def retry_fetch(url, attempts=3):\n"
                      "    for attempt in range(attempts):\n"
                      "        try:\n"
                      "            return download(url)\n"
                      "        except IOError:\n"
                      "            sleep(2 ** attempt)\n",
        "b/again.py": "def fetch_with_backoff(address, tries=5):\n"
                      "    for n in range(tries):\n"
                      "        try:\n"
                      "            return get(address)\n"
                      "        except OSError:\n"
                      "            time.sleep(2 ** n)\n",
        "c/render.py": "def render_table(rows):\n"
                       "    return '\\n'.join(' | '.join(r) for r in rows)\n",
    }
    root = write_tree(tmp_path / "sim", files)
    s = await ready(start_server, root, init_options={"embed": True})
    await s.wait_embedded()
    result = valid(await call(s, "kebab/similar", {
        "textDocument": {"uri": (root / "a/retry.py").as_uri()},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 5, "character": 31}},
        "k": 2}))
    assert result["meta"]["intent"] == {"name": "similar", "rule": "intent set by request"}
    assert not any("lexical" in w for w in result["meta"]["warnings"])
    assert result["meta"]["query_plan"] == "or+vector"  # both arms: words and vector
    assert [h["title"] for h in result["hits"]] == ["fetch_with_backoff", "render_table"]


async def test_references_at_a_place_with_no_name_say_where_as_editors_count(
        start_server: StartFn, tree: Path) -> None:
    s = await ready(start_server, tree)
    line, col = at("lib/store.py", '"""Keeps rows."""', 1)  # inside a docstring: prose
    with pytest.raises(JsonRpcInvalidParams,
                       match=f"no name at line {line + 1}, column {col + 1} of .*lib/store.py"):
        await s.request("kebab/references", {
            "textDocument": {"uri": (tree / "lib/store.py").as_uri()},
            "position": {"line": line, "character": col}})
    # A file the index does not hold: not "no name there", which reads as the user's fault.
    skipped = tree / "node_modules/dep/skipped.py"  # a folder never indexed
    skipped.parent.mkdir(parents=True)
    skipped.write_text("def unseen():\n    return unseen()\n")
    with pytest.raises(JsonRpcInvalidParams, match="skipped.py is not in the index \\(yet\\)"
                       ": the index may still be building, or the file was skipped"):
        await s.request("kebab/references", {
            "textDocument": {"uri": skipped.as_uri()},
            "position": {"line": 1, "character": 12}})

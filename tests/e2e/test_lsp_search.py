"""kebab/search end to end: filters, the published schema, bad params, cancellation."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    FILES,
    Session,
    StartFn,
    big_tree,
    load_schema,
    position,
    to_json,
    write_tree,
)
from jsonschema import Draft202012Validator
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcRequestCancelled

VALIDATOR = Draft202012Validator(load_schema())


def valid(result: dict[str, Any]) -> dict[str, Any]:
    errors = sorted(VALIDATOR.iter_errors(result), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    return result


async def ready(start_server: StartFn, folders: list[Path], **kwargs: Any) -> Session:
    session = await start_server(folders, **kwargs)
    await session.wait_idle()
    return session


async def first_named(s: Session, query: str, rule: str) -> dict[str, Any]:
    """The first hit of `query`, which the server must have read as a definition's name by
    `rule`."""
    found = valid(await s.search({"query": query, "k": 2}))
    assert found["meta"]["intent"] == {"name": "definition", "rule": rule}
    top: dict[str, Any] = found["hits"][0]
    return top


def test_schema_is_valid_and_shipped() -> None:
    Draft202012Validator.check_schema(load_schema())


async def test_search_with_filters(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, [workspace])

    top = valid(await s.search({"query": "getUserById", "mode": "lexical", "explain": True}))
    hit = top["hits"][0]
    assert hit["path"] == "web/api.ts"
    assert hit["location"]["uri"] == (workspace / "web/api.ts").resolve().as_uri()
    start = position("web/api.ts", "getUserById")
    assert (hit["selection"]["start"]["line"], hit["selection"]["start"]["character"]) == start
    # The location cites the whole definition, from `function` to its closing brace.
    assert hit["location"]["range"] == {
        "start": dict(zip(("line", "character"), position("web/api.ts", "function getUser"),
                          strict=True)),
        "end": dict(zip(("line", "character"), position("web/api.ts", '"x" };\n}', end=True),
                        strict=True))}
    assert hit["symbol"] == "getUserById" and hit["kind"] == "function"
    assert hit["retrieval"]["method"] == "lexical" and hit["retrieval"]["lexical_rank"] == 1
    assert top["meta"]["index"]["building"] is False

    plain = valid(await s.search({"query": "getUserById", "mode": "lexical"}))
    assert "retrieval" not in plain["hits"][0]

    python = valid(await s.search({"query": "user", "filters": {"lang": "python"}, "k": 50}))
    assert python["hits"] and {h["lang"] for h in python["hits"]} == {"python"}

    several = valid(await s.search({"query": "user server",
                                    "filters": {"lang": ["go", "typescript"]}}))
    assert several["hits"] and {h["lang"] for h in several["hits"]} <= {"go", "typescript"}

    globbed = valid(await s.search({"query": "user", "filters": {"path_glob": "web/**"}}))
    assert globbed["hits"] and {h["path"] for h in globbed["hits"]} == {"web/api.ts"}

    kinds = valid(await s.search({"query": "user",
                                  "filters": {"kind": ["class", "interface"]}}))
    assert {(h["symbol"], h["kind"]) for h in kinds["hits"]} == {
        ("UserService", "class"), ("User", "interface")}

    prose = valid(await s.search({"query": "retry policy", "filters": {"lang": "markdown"}}))
    assert {h["path"] for h in prose["hits"]} == {"docs/guide.md"}


async def test_search_in_every_mode_explains_itself(start_server: StartFn,
                                                    workspace: Path) -> None:
    s = await ready(start_server, [workspace], init_options={"embed": True})
    status = await s.wait_embedded()
    assert status["folders"][0]["vectors"]["embedded"] > 0
    query = "function that loads settings from a yml document"  # shares no word with it
    methods = {"lexical": "lexical", "vector": "vector", "hybrid": "hybrid", "auto": "hybrid"}
    for mode, method in methods.items():
        answer = valid(await s.search({"query": query, "mode": mode, "explain": True}))
        assert answer["meta"]["mode"] == mode
        assert answer["hits"], mode
        assert {h["retrieval"]["method"] for h in answer["hits"]} == {method}, mode
        assert not any("embeddings cover" in w for w in answer["meta"]["warnings"]), mode
    vector = valid(await s.search({"query": query, "mode": "vector", "k": 1}))
    assert vector["hits"][0]["symbol"] == "parse_config"
    hybrid = valid(await s.search({"query": query, "mode": "hybrid", "explain": True}))
    assert "parse_config" in [h["symbol"] for h in hybrid["hits"][:3]]
    assert hybrid["meta"]["intent"] == {"name": "hybrid", "rule": "mode set by request"}
    auto = valid(await s.search({"query": query, "mode": "auto"}))
    assert auto["meta"]["intent"] == {"name": "concept", "rule": "natural language"}


async def test_code_no_file_holds_is_answered_by_its_words(start_server: StartFn,
                                                           workspace: Path) -> None:
    """`auto` reads an unquoted `x = f(y)` as code and looks for it as text. When no file
    holds it, the answer is by its words and says so, not an empty list; asked for as exact
    text, the same query finds nothing, truly."""
    s = await ready(start_server, [workspace])
    query = "cfg = parse_config(settings_path)"
    guessed = valid(await s.search({"query": query}))
    assert guessed["meta"]["intent"] == {"name": "concept",
                                         "rule": "code fragment not found as text"}
    assert any("no file holds the query as exact text" in w for w in guessed["meta"]["warnings"])
    top = guessed["hits"][0]
    assert (top["path"], top["symbol"]) == ("app/users.py", "parse_config")
    assert (top["selection"]["start"]["line"], top["selection"]["start"]["character"]) == (
        position("app/users.py", "parse_config"))
    asked = valid(await s.search({"query": query, "intent": "exact_text"}))
    assert asked["hits"] == [] and asked["meta"]["total_matches"] == 0
    found = valid(await s.search({"query": "getUserById(id: number)"}))
    assert found["meta"]["intent"] == {"name": "exact_text", "rule": "code fragment"}
    assert [h["path"] for h in found["hits"]] == ["web/api.ts"]


BAD_PARAMS: list[tuple[Any, str]] = [
    ({}, "missing required param 'query'"),
    ({"query": 42}, "'query' must be a string"),
    ({"query": "user", "mode": "fuzzy"}, "unknown mode 'fuzzy'"),
    ({"query": "user", "mode": "vector", "intent": "usage"}, "intent 'usage' is answered from"),
    ({"query": "user", "mode": "hybrid", "intent": "exact_text"},
     "intent 'exact_text' finds the literal text"),
    ({"query": "user", "k": "ten"}, "'k' must be an integer"),
    ({"query": "user", "k": 0}, "'k' must be an integer in 1..500, got 0"),
    ({"query": "user", "explain": "yes"}, "'explain' must be true or false"),
    ({"query": "user", "filters": {"path_glob": "src/[ab"}}, "unbalanced"),
    ({"query": "user", "filters": {"lang": 3}}, "'filters.lang' must be a list of strings"),
    ({"query": "user", "filters": {"kind": "klass"}}, "unknown kind(s) 'klass'"),
    ({"query": "user", "filters": {"colour": "red"}}, "unknown filter(s) 'colour'"),
    ({"query": "user", "filters": "python"}, "'filters' must be an object"),
    ({"query": "'foo AND'"}, "invalid FTS5 expression"),
    ({"query": "x" * 1_000_000}, "1,000,000 characters long; the limit is 10,000"),
    # FTS5's cost grows faster than the words it ANDs: 3,000 ran for a minute, uncancellable.
    ({"query": " ".join(["ab"] * 3000)}, "the query has 3,000 words; a search by words takes at "
                                         "most 200"),
    ({"query": "'" + " AND ".join(["user"] * 150) + "'"}, "the query has 299 words"),
    ({"query": "user \ud800"}, "a lone surrogate at character 5"),
    ({"query": "user\x00"}, "a NUL character at character 4"),
]


async def test_bad_params_are_invalid_params(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, [workspace])
    for params, message in BAD_PARAMS:
        with pytest.raises(JsonRpcInvalidParams) as caught:
            await s.request("kebab/search", params)
        assert caught.value.code == -32602
        assert message in caught.value.message, (params, caught.value.message)
    # The server is still up and answering; 200 words are a search, and quoted text of any
    # length is exact text.
    assert valid(await s.search({"query": "user"}))["hits"]
    assert valid(await s.search({"query": " ".join(["user"] * 200)}))["hits"]
    assert valid(await s.search({"query": '"' + " ".join(["zq"] * 3000) + '"'}))["hits"] == []
    # Read as code (the `*`), found in no file, and too long to ask again by its words.
    code = valid(await s.search({"query": " ".join(["a*"] * 3000)}))
    assert code["hits"] == []
    assert any("the query has 3,000 words" in w for w in code["meta"]["warnings"]), code["meta"]


async def test_a_small_k_answers_with_the_first_hits_of_a_larger_one(
    start_server: StartFn, tmp_path: Path
) -> None:
    # bm25 ranks the test first; the test-path prior puts the definition above it, which a
    # request for one hit never saw while the channels read only k candidates.
    files = {"tests/test_throttle.py":
             "def test_throttle():\n    throttle(throttle, throttle, throttle, throttle)\n",
             "src/limits.py": "def throttle(calls, per_second):\n"
             "    return min(calls, per_second) * 2 + len(str(calls)) - per_second\n"}
    files.update({f"src/f{i}.py": f"def filler_{i}(a):\n    return a + {i}\n" for i in range(30)})
    s = await ready(start_server, [write_tree(tmp_path / "ws", files)])
    answers = {k: valid(await s.search({"query": "throttle", "mode": "lexical", "k": k}))
               for k in (1, 10)}
    first = [(h["path"], h["location"]["range"]["start"]["line"]) for h in answers[10]["hits"]]
    assert first[:2] == [("src/limits.py", 0), ("tests/test_throttle.py", 0)]
    assert [(h["path"], h["location"]["range"]["start"]["line"])
            for h in answers[1]["hits"]] == first[:1]


async def test_two_workspace_folders(
    start_server: StartFn, workspace: Path, tmp_path: Path
) -> None:
    other = write_tree(tmp_path / "other", {
        "billing/invoice.py": "class InvoiceBuilder:\n    def add_user_line(self):\n"
                              "        return 1\n",
    })
    s = await ready(start_server, [workspace, other])
    status = await s.status()
    assert [f.root for f in status.folders] == [str(workspace.resolve()), str(other.resolve())]
    assert [f.files for f in status.folders] == [len(FILES), 1]
    assert len({f.index_dir for f in status.folders}) == 2

    invoice = await s.symbols("InvoiceBuilder")
    assert [x.location.uri for x in invoice] == [
        (other / "billing/invoice.py").resolve().as_uri()]
    merged = valid(await s.search({"query": "user", "k": 50}))
    roots = {h["location"]["uri"].split("/ws/")[0] if "/ws/" in h["location"]["uri"]
             else "other" for h in merged["hits"]}
    assert len(roots) == 2  # hits from both folders
    assert merged["meta"]["index"]["folders"] == 2
    assert merged["meta"]["index"]["files"] == len(FILES) + 1
    scores = [h["score"] for h in merged["hits"]]
    assert scores == sorted(scores, reverse=True)

    # Folders come and go.
    s.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[], removed=[types.WorkspaceFolder(uri=other.as_uri(), name="other")])))
    assert await s.symbols("InvoiceBuilder") == []
    s.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=other.as_uri(), name="other")], removed=[])))
    await s.wait_idle()
    assert [x.name for x in await s.symbols("InvoiceBuilder")] == ["InvoiceBuilder"]


async def test_cancel_request(start_server: StartFn, tmp_path: Path) -> None:
    # One worker: the index is parsed in-process, which is quicker than starting a pool.
    s = await ready(start_server, [big_tree(tmp_path / "big", 40)],
                    init_options={"workers": 1})
    params = {"query": "payload retries", "mode": "lexical", "k": 500, "explain": True}
    warm = valid(await s.search(params))
    assert len(warm["hits"]) == 500

    # A cancel can only win if it is read before the search finishes (about 20 ms here), so
    # a busy machine may lose the race now and then: allow a few attempts. A server that does
    # not honour cancellation never answers RequestCancelled and fails every attempt.
    outcomes: list[str] = []
    for attempt in range(8):
        msg_id = f"to-cancel-{attempt}"
        pending = asyncio.ensure_future(
            s.client.protocol.send_request_async("kebab/search", params, msg_id=msg_id))
        await asyncio.sleep(0)  # the request is on the wire
        s.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        try:
            answer = await pending
        except JsonRpcRequestCancelled as exc:
            assert exc.code == -32800
            outcomes.append("cancelled")
            break
        assert len(valid(to_json(answer))["hits"]) == 500  # lost the race: a full answer
        outcomes.append("answered")
    assert outcomes[-1] == "cancelled", outcomes

    # Still serving, and the same request still gives the same hits.
    again = valid(to_json(await s.request("kebab/search", params)))
    assert [h["id"] for h in again["hits"]] == [h["id"] for h in warm["hits"]]


async def test_vector_table_deleted_under_a_running_server(start_server: StartFn,
                                                           workspace: Path) -> None:
    s = await ready(start_server, [workspace], init_options={"embed": True})
    status = await s.wait_embedded()
    vectors_dir = Path(status["folders"][0]["index_dir"]) / "vectors"
    shutil.rmtree(vectors_dir)
    # An explicit mode is a contract: it fails with RequestFailed and says why ...
    with pytest.raises(JsonRpcException) as caught:
        await s.search({"query": "read the yaml config file", "mode": "hybrid"})
    assert caught.value.code == -32803
    assert "vector store unavailable" in caught.value.message
    # ... while auto answers with words and says so.
    answer = valid(await s.search({"query": "read the yaml config file",
                                   "mode": "auto", "explain": True}))
    assert answer["hits"] and {h["retrieval"]["method"] for h in answer["hits"]} == {"lexical"}
    assert any("vector store unavailable" in w for w in answer["meta"]["warnings"])
    # The next write makes the embedder sync, which rebuilds the table from the cache.
    (workspace / "extra.py").write_text("def extra_helper():\n    return 1\n")
    s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(workspace / "extra.py").as_uri(),
                        type=types.FileChangeType.Created)]))
    await s.wait_embedded()
    again = valid(await s.search({"query": "read the yaml config file",
                                  "mode": "hybrid", "explain": True}))
    assert {h["retrieval"]["method"] for h in again["hits"]} == {"hybrid"}


# A definition whose answer lies past the 128 tokens its code vector reads.
LONG_JOB = ("def run(batch):\n"
            + "".join(f"    step_{i} = prepare(batch, offset={i}, retries={i + 1})\n"
                      for i in range(14))
            + "    # Email each customer the invoice for the month, with the PDF attached.\n"
            + "    return email_invoice_pdf_to_customers(batch)\n")


async def test_a_phrase_reads_definitions_whole_and_a_name_does_not(
        start_server: StartFn, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {
        "jobs/nightly.py": LONG_JOB,
        "jobs/cleanup.py": "def sweep(folder):\n    for entry in folder.entries():\n"
                           "        entry.remove_if_older_than(days=30)\n",
        "jobs/report.py": "def chart(rows):\n    return plot_bar_chart(rows, title='weekly')\n",
    })
    s = await ready(start_server, [root], init_options={"embed": True})
    await s.wait_embedded()
    params = {"query": "email customers their monthly invoice", "mode": "vector", "k": 1,
              "explain": True}
    # The whole-definition vectors are embedded after the others: wait for them to serve.
    deadline = asyncio.get_running_loop().time() + 60
    while True:
        hit = valid(await s.search(params))["hits"][0]
        if hit["retrieval"]["vector_surface"] == "whole":
            break
        assert asyncio.get_running_loop().time() < deadline, hit["retrieval"]
        await asyncio.sleep(0.5)
    assert hit["path"] == "jobs/nightly.py" and hit["symbol"] == "run"
    assert hit["location"]["range"] == {"start": {"line": 0, "character": 0},
                                        "end": {"line": 16, "character": 48}}
    for mode in ("vector", "hybrid"):
        named = valid(await s.search({"query": "email_invoice_pdf_to_customers", "mode": mode,
                                      "explain": True}))
        assert named["hits"], mode
        assert all(h["retrieval"]["vector_surface"] != "whole" for h in named["hits"]), mode


async def test_a_long_class_is_cited_from_its_class_line_with_its_docstring(
        start_server: StartFn, tmp_path: Path) -> None:
    # Too long for one chunk, the class is cut between its members; its first chunk (the hit
    # for its docstring's words) holds the `class` line with the docstring below it, not the
    # docstring alone, cited from line 3 rather than from line 4.
    methods = "".join(f"\n    def step_{i}(self):\n        return self.apply({i})\n"
                      for i in range(30))
    root = write_tree(tmp_path / "ws", {"billing/ledger.py": (
        "import decimal\n\n\n"
        "class Ledger(Book):\n"
        '    """Reconciles monthly invoices against received payments."""\n\n'
        "    currency = 'EUR'\n" + methods)})
    s = await ready(start_server, [root])
    found = valid(await s.search({"query": "reconciles invoices against payments",
                                  "mode": "lexical", "k": 1}))
    hit = found["hits"][0]
    assert hit["symbol"] == "Ledger"
    assert hit["location"]["range"] == {"start": {"line": 3, "character": 0},
                                        "end": {"line": 6, "character": 20}}


async def test_a_name_asked_in_lexical_mode_answers_with_its_definition_first(
        start_server: StartFn, tmp_path: Path) -> None:
    # The class's chunk is long; short functions that mention it rank above it by bm25. The
    # mode the request set finds the hits; the definition the name names comes first.
    fields = "".join(f"    style_{i} = 'bold colour {i} on black'\n" for i in range(10))
    root = write_tree(tmp_path / "ws", {
        "style/theme.py": "class Theme:\n    \"\"\"A named set of styles.\"\"\"\n\n" + fields,
        "style/console.py": "".join(f"def use_theme_{i}(theme):\n    return Theme(theme)\n\n\n"
                                    for i in range(5)),
    })
    s = await ready(start_server, [root])
    found = valid(await s.search({"query": "Theme", "mode": "lexical", "k": 3,
                                  "explain": True}))
    assert found["meta"]["mode"] == "lexical"
    top = found["hits"][0]
    assert top["location"]["uri"].endswith("/style/theme.py")
    assert top["location"]["range"] == {"start": {"line": 0, "character": 0},
                                        "end": {"line": 12, "character": 38}}
    assert "defines_query_case_exact" in [p["name"] for p in top["retrieval"]["priors"]]


async def test_a_name_typed_as_words_answers_with_its_definition_first(
        start_server: StartFn, tmp_path: Path) -> None:
    # "colour theme" spells `ColourTheme`: short functions holding both words rank above the
    # class's long chunk by bm25, and the definition the words spell comes first.
    fields = "".join(f"    style_{i} = 'bold colour {i} on black'\n" for i in range(10))
    root = write_tree(tmp_path / "ws", {
        "style/colour_theme.py": "class ColourTheme:\n    \"\"\"A named set of styles.\"\"\"\n\n"
                                 + fields,
        "style/console.py": "".join(f"def use_colour_theme_{i}(colour, theme):\n"
                                    "    return ColourTheme(colour, theme)\n\n\n"
                                    for i in range(5)),
    })
    s = await ready(start_server, [root])
    found = valid(await s.search({"query": "colour theme", "mode": "lexical", "k": 3,
                                  "explain": True}))
    top = found["hits"][0]
    assert top["location"]["uri"].endswith("/style/colour_theme.py")
    assert top["location"]["range"] == {"start": {"line": 0, "character": 0},
                                        "end": {"line": 12, "character": 38}}
    assert "defines_query_words" in [p["name"] for p in top["retrieval"]["priors"]]


async def test_a_private_name_answers_with_its_definition_first(
        start_server: StartFn, tmp_path: Path) -> None:
    # `#updateTimers` reads as code for its `#`, and exact text would cite the first call.
    # The file defines the name, so the query goes definitions-first.
    root = write_tree(tmp_path / "ws", {"src/observer.ts": (
        "export class Observer {\n"
        "  onSubscribe(): void {\n    this.#updateTimers()\n  }\n\n"
        "  #updateTimers(): void {\n    return\n  }\n}\n")})
    s = await ready(start_server, [root])
    top = await first_named(s, "#updateTimers", "private name")
    assert top["location"]["uri"].endswith("/src/observer.ts")
    assert top["location"]["range"] == {"start": {"line": 5, "character": 2},
                                        "end": {"line": 7, "character": 3}}


async def test_a_ruby_predicate_answers_with_its_definition_not_as_a_question(
        start_server: StartFn, tmp_path: Path) -> None:
    # `empty?` ends in a question mark, and was answered by meaning: the method whose doc
    # asks "is it empty?" came first. The file defines the name, so the query names it.
    root = write_tree(tmp_path / "ws", {
        "lib/checks.rb": ("module Checks\n  # Is it empty? Callers ask, then drop it.\n"
                          "  def self.drop_if_blank(r)\n    r.empty? ? nil : r\n  end\nend\n"),
        "lib/response.rb": ("class Response\n  def empty?\n    @length == 0\n  end\n\n"
                            "  def ok?; @status == 200; end\nend\n")})
    s = await ready(start_server, [root])
    top = await first_named(s, "empty?", "name with a mark")
    assert top["location"]["uri"].endswith("/lib/response.rb")
    assert top["location"]["range"] == {"start": {"line": 1, "character": 2},
                                        "end": {"line": 3, "character": 5}}
    # A one-line method has no chunk of its own: the class's chunk cites it at its name.
    found = valid(await s.search({"query": "ok?", "k": 2, "mode": "lexical"}))
    top = found["hits"][0]
    assert top["location"]["uri"].endswith("/lib/response.rb")
    assert top["selection"]["start"] == {"line": 5, "character": 6}


async def test_lisp_names_and_a_rust_macro_answer_with_their_definitions(
        start_server: StartFn, tmp_path: Path) -> None:
    # `update-in-place` read as three words and `valid-key?` as a question: the functions
    # that call them ranked as high. `pair_list!` was exact text, its first call per file.
    root = write_tree(tmp_path / "ws", {
        "src/core.clj": ("(ns demo.core)\n\n(defn update-in-place\n"
                         "  \"Changes the value at a path in a nested map.\"\n"
                         "  [m path f]\n  (assoc-in m path (f (get-in m path))))\n\n"
                         "(defn valid-key?\n  [k]\n  (keyword? k))\n\n"
                         "(defn walk-tree [t]\n  (when (valid-key? :x)\n"
                         "    (update-in-place t [:a] inc)))\n"),
        "src/pairs.rs": ("macro_rules! pair_list {\n"
                         "    ($($x:expr),*) => { vec![$(($x, $x)),*] };\n}\n\n"
                         "pub fn firsts() -> Vec<(u32, u32)> {\n    pair_list!(1, 2)\n}\n"),
    })
    s = await ready(start_server, [root])
    for query, path, line, col in (("update-in-place", "/src/core.clj", 2, 6),
                                   ("valid-key?", "/src/core.clj", 7, 6),
                                   ("pair_list!", "/src/pairs.rs", 0, 13)):
        top = await first_named(s, query, "name with a mark")
        assert top["location"]["uri"].endswith(path), query
        assert top["selection"]["start"] == {"line": line, "character": col}, query
    # workspace/symbol finds a Lisp name whole, and by a piece across its hyphens.
    for query in ("update-in-place", "in-place", "uip"):
        found = await s.symbols(query)
        assert found, query
        assert found[0].name == "update-in-place", (query, [x.name for x in found])
        assert found[0].location.range.start.line == 2


async def test_a_local_type_is_cited_at_its_line_in_the_chunk_that_holds_it(
        start_server: StartFn, tmp_path: Path) -> None:
    # `RejectedMeta` has no chunk of its own: it is a line of `createThunk`. Short functions
    # that use the name rank above that chunk by bm25; the chunk holds the definition, so it
    # comes first, cited at the definition's line.
    root = write_tree(tmp_path / "ws", {
        "src/thunk.ts": "export function createThunk(config: unknown, options: unknown) {\n"
                        "  type RejectedMeta = { reason: string }\n"
                        + "".join(f"  const step{i} = [config, options, {i}]\n" for i in range(8))
                        + "  return step7\n}\n\n"
                        + "".join(f"export function rejectWith{i}(meta: RejectedMeta) {{\n"
                                  "  return meta\n}\n\n" for i in range(3)),
        "src/other.ts": "".join(f"export function other{i}(x: number): number {{\n"
                                f"  return x + {i}\n}}\n\n" for i in range(20)),
    })
    s = await ready(start_server, [root])
    found = valid(await s.search({"query": "RejectedMeta", "k": 2, "explain": True}))
    top = found["hits"][0]
    assert top["location"]["uri"].endswith("/src/thunk.ts")
    assert top["selection"]["start"] == {"line": 1, "character": 7}
    assert "holds_query_definition" in [p["name"] for p in top["retrieval"]["priors"]]
    # Its name typed as words finds the same definition by how code spells them.
    found = valid(await s.search({"query": "rejected meta", "k": 2, "explain": True}))
    top = found["hits"][0]
    assert top["location"]["uri"].endswith("/src/thunk.ts")
    assert top["selection"]["start"] == {"line": 1, "character": 7}
    assert "holds_query_words" in [p["name"] for p in top["retrieval"]["priors"]]


async def test_a_one_line_member_is_cited_at_its_name_not_at_the_first_word_match(
        start_server: StartFn, tmp_path: Path) -> None:
    # `getKeys` has no chunk of its own: it is a line of the interface's chunk, whose first
    # line that matches a word of it is `getValues(keys: ...)`. The hit stands for `getKeys`.
    root = write_tree(tmp_path / "ws", {"src/AsyncStorageAccess.kt": (
        "package org.asyncstorage.legacy_storage\n\n"
        "interface AsyncStorageAccess {\n"
        "    suspend fun getValues(keys: List<String>): List<Entry>\n\n"
        "    suspend fun setValues(entries: List<Entry>)\n\n"
        "    suspend fun removeValues(keys: List<String>)\n\n"
        "    suspend fun getKeys(): List<String>\n\n"
        "    suspend fun clear()\n"
        "}\n")})
    s = await ready(start_server, [root])
    for mode in ("auto", "lexical"):  # the ranking's last step, the same in every mode
        found = valid(await s.search({"query": "getKeys", "mode": mode, "k": 1,
                                      "explain": True}))
        top = found["hits"][0]
        assert top["location"]["uri"].endswith("/src/AsyncStorageAccess.kt")
        assert top["selection"] == {"start": {"line": 9, "character": 16},
                                    "end": {"line": 9, "character": 23}}, (mode, top)
        assert "holds_query_definition" in [p["name"] for p in top["retrieval"]["priors"]]


async def test_a_long_definition_is_shown_once_by_its_head(
        start_server: StartFn, tmp_path: Path) -> None:
    # Every chunk of `parseOptions` carries its name; bm25 prefers the shorter tail, which
    # was shown selecting the name outside its own range, the head hidden as its duplicate.
    # The definition is shown once, by the chunk that holds its name.
    steps = "".join(f"    const step{i} = argv[{i}] + {i}; // operand handling step {i}\n"
                    for i in range(70))
    root = write_tree(tmp_path / "ws", {"lib/command.js": (
        "class Command {\n  constructor() {\n    this.options = [];\n  }\n\n"
        "  parseOptions(argv) {\n    const operands = [];\n    const unknown = [];\n"
        + steps + "    return { operands, unknown };\n  }\n}\n\nmodule.exports = { Command };\n")})
    s = await ready(start_server, [root])
    found = valid(await s.search({"query": "parseOptions", "mode": "lexical", "k": 5}))
    head = found["hits"][0]
    assert head["location"]["range"]["start"]["line"] == 5
    assert head["selection"] == {"start": {"line": 5, "character": 2},
                                 "end": {"line": 5, "character": 14}}
    assert [h["title"] for h in found["hits"]].count("Command.parseOptions") == 1
    for hit in found["hits"]:
        r, sel = hit["location"]["range"], hit["selection"]
        assert r["start"]["line"] <= sel["start"]["line"] <= r["end"]["line"], hit


async def test_the_selection_is_the_name_searched_for_not_a_comment_that_spells_its_parts(
        start_server: StartFn, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", {
        "app.py": "import json\n\n\ndef load(path):\n"
                  "    # Parse the config before anything else.\n"
                  "    with open(path) as f:\n        cfg = parse_config(f.read())\n"
                  "    return cfg\n",
        "conf.py": "def parse_config(text):\n"
                   "    return dict(line.split('=', 1) for line in text.splitlines())\n"})
    s = await ready(start_server, [root])
    found = valid(await s.search({"query": "parse_config", "mode": "lexical", "k": 5}))
    selections = {h["path"]: h["selection"] for h in found["hits"]}
    assert selections["conf.py"] == {"start": {"line": 0, "character": 4},
                                     "end": {"line": 0, "character": 16}}
    assert selections["app.py"] == {"start": {"line": 6, "character": 14},
                                    "end": {"line": 6, "character": 26}}


async def test_express_style_javascript_answers_with_one_definition_per_function(
        start_server: StartFn, tmp_path: Path) -> None:
    # `app.init = function init()` was two definitions (`init`, and an `init` inside it), and
    # `Layer.prototype.match` named no definition: its text was found where it is written, as
    # exact text.
    fixture = Path(__file__).resolve().parents[1] / "fixtures/languages/javascript/application.js"
    root = tmp_path / "ws"
    (root / "lib").mkdir(parents=True)
    shutil.copy(fixture, root / "lib/application.js")
    s = await ready(start_server, [root])
    inits = [x for x in await s.symbols("init") if x.name == "init"]
    assert [(x.container_name, x.location.range.start.line) for x in inits] == [("app", 21)]
    for query, title, line, col in (("Layer.prototype.match", "Layer.match", 76, 16),
                                    ("app.init", "app.init", 21, 4)):
        top = valid(await s.search({"query": query, "k": 1}))["hits"][0]
        assert (top["title"], top["selection"]["start"]) == (
            title, {"line": line, "character": col}), query

"""Usage answers through the real searcher: the refs of a name grouped by file, calls and
imports above bare mentions, definitions left out, exact counts, and the rule that routed."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.merge import merge_results
from search.query import parse, route
from search.request import build
from search.types import InvalidQuery


@pytest.mark.parametrize(("query", "rule", "name"), [
    ("who calls add_user", "who calls X", "add_user"),
    ("Who calls UserStore.add_user?", "who calls X", "UserStore.add_user"),
    ("where is MAX_USERS used", "where is X used", "MAX_USERS"),
    ("usages of get_user_by_id", "usages of X", "get_user_by_id"),
    ("find references to UserStore", "references to X", "UserStore"),
])
def test_auto_recognises_usage_questions(query: str, rule: str, name: str) -> None:
    intent = route(parse(query))
    assert (intent.name, intent.rule, intent.symbol) == ("usage", rule, name)


def test_other_questions_are_not_usage() -> None:
    assert route(parse("where is parse_config defined")).name == "definition"
    assert route(parse("who wrote the retry loop")).name == "concept"


def test_usage_answer(workspace: Workspace) -> None:
    result = workspace.searcher.search(build("who calls UserStore", Settings()))
    meta = result.meta
    assert meta.intent == {"name": "usage", "rule": "who calls X"}
    assert [(h.path, h.ref and h.ref["kind"], h.span.start_line, h.span.start_col, h.title)
            for h in result.hits] == [
        ("tests/test_store.py", "call", 4, 12, "test_get_user_by_id"),
        ("tests/test_store.py", "import", 0, 24, "tests/test_store.py:1"),
    ]
    # The class's own definition in src/users/store.py is not a usage.
    assert all(h.path != "src/users/store.py" for h in result.hits)
    assert (meta.total_matches, meta.count_accuracy, meta.recall["truncated"]) == (2, "exact",
                                                                                  False)
    call = result.hits[0]
    assert call.selection == call.span and call.symbol == "test_get_user_by_id"
    assert call.snippet.text.startswith("store = UserStore()")


def test_usage_mentions_below_calls_and_truncation_is_reported(workspace: Workspace) -> None:
    req = build("_users", Settings(), intent="usage")
    result = workspace.searcher.search(req)
    assert result.meta.intent == {"name": "usage", "rule": "intent set by request"}
    assert result.meta.total_matches == 4  # four lines spell self._users
    assert {h.ref["kind"] for h in result.hits if h.ref} == {"identifier"}
    lines = [h.span.start_line for h in result.hits]
    assert lines == sorted(lines)
    capped = workspace.searcher.search(build("_users", Settings(), intent="usage", k=2))
    assert len(capped.hits) == 2 and capped.meta.total_matches == 4
    assert capped.meta.recall["truncated"] is True

    calls_first = workspace.searcher.search(build("get_user_by_id", Settings(), intent="usage"))
    kinds = [h.ref["kind"] for h in calls_first.hits if h.ref]
    assert kinds and kinds[0] == "call"


def test_usage_needs_a_name(workspace: Workspace) -> None:
    with pytest.raises(InvalidQuery, match="needs a name"):
        workspace.searcher.search(build("how are users stored", Settings(), intent="usage"))


def test_usage_answers_from_two_folders_stay_grouped_by_file(tmp_path: Path) -> None:
    results = []
    for name in ("one", "two"):
        root = tmp_path / name
        root.mkdir()
        (root / "a.py").write_text("def run(parse):\n    parse()\n    return parse\n")
        ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1))
        ws.indexer.index()
        results.append(ws.searcher.search(build("parse", Settings(), intent="usage")))
        ws.close()
    merged = merge_results(results, 10, "auto")
    assert [(Path(h.root).name, h.ref and h.ref["kind"], h.span.start_line)
            for h in merged.hits] == [
        ("one", "call", 1), ("one", "identifier", 0), ("one", "identifier", 2),  # the parameter
        ("two", "call", 1), ("two", "identifier", 0), ("two", "identifier", 2)]
    assert merged.meta.total_matches == 6

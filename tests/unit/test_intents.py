"""Intents a request names: each reads the query its own way and says so in meta.intent."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.request import INTENTS, parse_request
from search.types import InvalidQuery, SearchRequest


def ask(ws: Workspace, query: str, **params: object) -> tuple[dict[str, str] | None, list[str],
                                                               str]:
    req = parse_request({"query": query, **params}, Settings())
    result = ws.searcher.search(req)
    return result.meta.intent, [h.title for h in result.hits], result.meta.query_plan


def test_each_intent_reads_the_query_its_own_way(workspace: Workspace) -> None:
    rule = "intent set by request"
    # exact_text: the words as one string, as grep would (not as terms in any order).
    intent, titles, plan = ask(workspace, "in memory, keyed", intent="exact_text")
    assert (intent, plan) == ({"name": "exact_text", "rule": rule}, "exact")
    assert titles == ["UserStore"]  # "Keeps users in memory, keyed by id."
    intent, titles, plan = ask(workspace, "keyed in memory", intent="exact_text")
    assert titles == []
    # definition: the named definition first, even for a word auto reads as prose.
    intent, titles, _ = ask(workspace, "add_user", intent="definition")
    assert intent == {"name": "definition", "rule": rule} and titles[0] == "UserStore.add_user"
    # concept: hybrid (with a lexical fallback that says so when vectors cannot serve), even
    # for an identifier, which auto would send to definitions.
    intent, titles, plan = ask(workspace, "getUserById", intent="concept")
    assert intent == {"name": "concept", "rule": rule}
    result = workspace.searcher.search(parse_request({"query": "getUserById",
                                                      "intent": "concept"}, Settings()))
    assert result.meta.query_plan.endswith("+vector") or any(
        "answered with lexical search" in w for w in result.meta.warnings)
    # similar: the code's identifier parts, any of them.
    intent, titles, _ = ask(workspace, "def get_user_by_id(self, user_id)", intent="similar")
    assert intent == {"name": "similar", "rule": rule}
    assert "UserStore.get_user_by_id" in titles[:3]
    # usage: the refs of a bare name.
    intent, titles, plan = ask(workspace, "UserStore", intent="usage")
    assert (intent, plan) == ({"name": "usage", "rule": rule}, "refs")


def test_unknown_intent_is_refused() -> None:
    assert INTENTS == ("auto", "definition", "concept", "exact_text", "usage", "similar")
    with pytest.raises(InvalidQuery, match="unknown intent 'usages'"):
        parse_request({"query": "x", "intent": "usages"}, Settings())
    with pytest.raises(InvalidQuery, match="'group'"):
        parse_request({"query": "x", "group": "yes"}, Settings())


@pytest.mark.parametrize(("mode", "intent"), [
    ("lexical", "usage"), ("vector", "usage"), ("hybrid", "usage"),
    ("vector", "exact_text"), ("hybrid", "exact_text")])
def test_a_mode_and_an_intent_that_contradict_are_refused(workspace: Workspace, mode: str,
                                                          intent: str) -> None:
    # Obeying either would silently drop the other: answered as refs while meta says
    # "vector", or by meaning while the intent asks for the literal text.
    with pytest.raises(InvalidQuery, match=f"intent '{intent}'"):
        parse_request({"query": "UserStore", "mode": mode, "intent": intent}, Settings())
    with pytest.raises(InvalidQuery, match=f"intent '{intent}'"):  # built by code, the same
        workspace.searcher.search(SearchRequest("UserStore", mode=mode, intent=intent))


def test_a_default_mode_gives_way_to_the_intent(workspace: Workspace) -> None:
    # Only a mode the caller named is held against the intent; the setting's default is not.
    vector_default = Settings(default_mode="vector")
    req = parse_request({"query": "UserStore", "intent": "usage"}, vector_default)
    assert req.mode == "auto"
    assert workspace.searcher.search(req).meta.query_plan == "refs"
    req = parse_request({"query": "in memory, keyed", "intent": "exact_text"}, vector_default)
    result = workspace.searcher.search(req)
    assert (req.mode, result.meta.query_plan) == ("auto", "exact")
    assert [h.title for h in result.hits] == ["UserStore"]
    assert parse_request({"query": "x", "intent": "exact_text", "mode": "lexical"},
                         vector_default).mode == "lexical"


def test_a_definition_question_searches_for_the_name_it_asks_for(tmp_path: Path) -> None:
    # "where is X defined" asks for X alone: its other words matched a function that says
    # "where" and "defined" and calls X, above X's own definition. Asked as a definition,
    # the name is the word spelled as code, not the last word (`helper`, defined too).
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text('def helper():\n    """Where the defaults are defined."""\n'
                               "    return Widget()\n")
    (root / "widget.py").write_text('class Widget:\n    """A thing on the screen."""\n\n'
                                    + "".join(f"    size_{i} = {i}\n" for i in range(40)))
    # Short chunks that mention the name outrank its long definition on the word alone, past
    # the depth the channels read: only the definition boost of a name asked alone finds it.
    (root / "uses.py").write_text("".join(f"def use_{i}(w):\n    return Widget(w, {i})\n\n\n"
                                          for i in range(150)))
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        routed = ws.searcher.search(parse_request({"query": "where is Widget defined"},
                                                  Settings()))
        _intent, asked, _plan = ask(ws, "Widget helper", intent="definition")
    finally:
        ws.close()
    assert routed.meta.intent == {"name": "definition", "rule": "find phrase"}
    assert routed.hits[0].title == "Widget"
    assert asked[0] == "Widget"


def test_a_find_phrase_that_spells_a_defined_name_asks_for_that_name(tmp_path: Path) -> None:
    # "find option" in a tree that defines `_find_option` asks for that function: read as
    # "find `option`", the option class and every short chunk about options came first. A
    # name spelled as code after the verb ("find Option") is what is asked for, and words
    # that spell no defined name ("find flag") stay a find.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "options.py").write_text(
        'class Option:\n    """A command-line option."""\n\n    flag = ""\n\n\n'
        "class Command:\n    def _find_option(self, flag):\n"
        "        for candidate in self.options:\n"
        "            if candidate.flag == flag:\n                return candidate\n"
        "        return None\n")
    (root / "uses.py").write_text("".join(f"def use_{i}(option):\n    return option.flag\n\n\n"
                                          for i in range(60)))
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        spelled = ask(ws, "find option")
        coded = ask(ws, "find Option")
        plain = ask(ws, "find flag")
    finally:
        ws.close()
    assert spelled[0] == {"name": "concept", "rule": "find phrase that spells a defined name"}
    assert spelled[1][0] == "Command._find_option"
    assert coded[0] == {"name": "definition", "rule": "find phrase"}
    assert coded[1][0] == "Option"
    assert plain[0] == {"name": "definition", "rule": "find phrase"}

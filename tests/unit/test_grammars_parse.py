"""grammars.parse: the CPU limit, and what a parser is left in after it gives up."""

from __future__ import annotations

import itertools

import pytest

from indexing import grammars
from indexing.grammars import ParseTimeout, parse


def test_a_parse_past_its_limit_is_given_up_and_the_next_parse_starts_afresh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = itertools.count(0.0, 1.0)  # a second of CPU each time the parse asks
    monkeypatch.setattr(grammars.time, "thread_time", lambda: next(clock))
    with pytest.raises(ParseTimeout):
        parse("go", b"package p\n" + b"func f() { g(1, 2) }\n" * 50_000)
    monkeypatch.undo()
    tree = parse("go", b"package p\n\nfunc f() {}\n")
    assert [c.type for c in tree.root_node.named_children] == [
        "package_clause", "function_declaration"]
    assert not tree.root_node.has_error


def test_the_tree_holds_its_text() -> None:
    tree = parse("python", b"def f():\n    return 1\n")
    name = tree.root_node.named_children[0].child_by_field_name("name")
    assert name is not None and name.text == b"f"

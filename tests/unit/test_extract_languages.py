"""Extension mapping, query loading and per-thread caching."""

from __future__ import annotations

import threading

import pytest

from indexing import languages
from indexing.languages import (
    EXTENSIONS,
    definition_patterns,
    get_parser,
    get_query,
    language_for_path,
    split_patterns,
)


@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("a/b.py", "python"),
        ("x.PYI", "python"),
        ("x.cjs", "javascript"),
        ("x.jsx", "javascript"),
        ("x.mts", "typescript"),
        ("x.tsx", "tsx"),
        ("x.go", "go"),
        ("x.rs", "rust"),
        ("X.java", "java"),
        ("x.h", "c"),
        ("x.hh", "cpp"),
        ("x.cxx", "cpp"),
        ("README.markdown", "markdown"),
        ("notes.txt", None),
        ("Makefile", None),
        (".py", None),
    ],
)
def test_language_for_path(path: str, lang: str | None) -> None:
    assert language_for_path(path) == lang


def test_every_language_compiles_with_its_base_tags() -> None:
    for lang in sorted(set(EXTENSIONS.values())):
        dq = get_query(lang)
        assert dq.query.pattern_count > dq.base_count
        if lang != "markdown":
            assert dq.base_count > 0, lang  # the wheel's tags.scm was found and kept


def test_definition_patterns_drop_references() -> None:
    source = """
; comment with (parens)
(function_definition name: (identifier) @name) @definition.function
(call function: (identifier) @name) @reference.call
(
  (comment)* @doc
  .
  (class_definition name: (identifier) @name) @definition.class
  (#strip! @doc "^[\\\\s\\\\*/]+|^[\\\\s\\\\*/]$")
)
(type_identifier) @name @reference.type
(x) @definition.y (#eq? @definition.y ")")
"""
    kept = split_patterns(definition_patterns(source))
    assert len(kept) == 3
    assert all("@reference" not in p for p in kept)
    assert kept[2].strip() == '(x) @definition.y (#eq? @definition.y ")")'


def test_parsers_and_queries_are_cached_per_thread() -> None:
    mine = (get_parser("python"), get_query("python"))
    assert get_parser("python") is mine[0] and get_query("python") is mine[1]
    other: list[object] = []
    thread = threading.Thread(target=lambda: other.extend([get_parser("python")]))
    thread.start()
    thread.join()
    assert other[0] is not mine[0]
    assert languages.get_language("python") is languages.get_language("python")

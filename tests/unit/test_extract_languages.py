"""Extension mapping, query loading and per-thread caching."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from pathlib import Path

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


def test_rules_are_data_next_to_the_queries() -> None:
    assert languages.language_rules("python").doc == "docstring"
    assert languages.language_rules("go").package_node == "package_clause"
    assert languages.language_rules("cpp").constructor_named_like_container
    assert not languages.language_rules("c").constructor_named_like_container
    assert languages.language_rules("tsx") == replace(
        languages.language_rules("typescript"), extends="typescript")
    assert languages.language_rules("markdown").extractor == "markdown"
    assert "markdown" not in languages.CODE_LANGUAGES and "cpp" in languages.CODE_LANGUAGES


def test_a_child_language_starts_from_its_parents_patterns() -> None:
    c, cpp = languages.own_query_source("c"), languages.own_query_source("cpp")
    assert cpp.startswith(c) and len(cpp) > len(c)
    assert languages.own_query_source("tsx") == languages.own_query_source("typescript")


@pytest.mark.parametrize(
    ("toml", "error"),
    [
        ('doc_coment = "x"', "unknown rule 'doc_coment'"),
        ('doc = "javadoc"', "doc = 'javadoc' is not valid"),
        ('extends = "cobol"', "extends = 'cobol' is not valid"),
        ("receiver_nodes = [1]", "receiver_nodes = [1] is not valid"),
    ],
)
def test_a_rule_file_with_a_mistake_is_refused(
    toml: str, error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "go.toml").write_text(toml + "\n", encoding="utf-8")
    monkeypatch.setattr(languages, "_QUERY_DIR", tmp_path)
    languages.language_rules.cache_clear()
    try:
        with pytest.raises(ValueError, match=re.escape(error)):
            languages.language_rules("go")
    finally:
        languages.language_rules.cache_clear()

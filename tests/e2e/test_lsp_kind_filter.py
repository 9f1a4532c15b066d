"""`filters.kind` finds the definitions that have no chunk of their own, in every mode, over
the real server: constants, properties and one-line members are lines of the chunk of the
definition that holds them, and a kind filter that matched a chunk by its own definition's
kind alone never found one of them ("0 of 0, complete", an empty answer by accident).

A hit kept for a definition it holds cites that definition's name (`selection`), the one of
the kinds whose name shares most words with the query, and says why it is there (the prior
`holds_<kind>_definition`).

The files are excerpts of real code (monolog's Logger.php, async-storage's Kotlin interface,
as in the language hunt's repro `kind-filter-small-defs`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_support import Session, StartFn, call, write_tree
from test_lsp_search import ready, valid

LOGGER = """<?php declare(strict_types=1);

namespace Monolog;

/**
 * Monolog log channel
 */
class Logger implements LoggerInterface, ResettableInterface
{
    /**
     * Detailed debug information
     */
    public const DEBUG = 100;

    /**
     * Interesting events
     *
     * Examples: User logs in, SQL logs.
     */
    public const INFO = 200;

    /**
     * @var string
     */
    protected $name;

    /**
     * The handler stack
     *
     * @var HandlerInterface[]
     */
    protected $handlers;

    public function getName(): string
    {
        return $this->name;
    }
}
"""

STORAGE = """package org.asyncstorage.legacy_storage

interface AsyncStorageAccess {
    suspend fun getValues(keys: List<String>): List<Entry>

    suspend fun setValues(entries: List<Entry>)

    suspend fun removeValues(keys: List<String>)

    suspend fun getKeys(): List<String>

    suspend fun clear()

    suspend fun mergeValues(entries: List<Entry>)
}
"""

FILES = {"src/Logger.php": LOGGER, "android/AsyncStorageAccess.kt": STORAGE}


def sel(line: int, start: int, end: int) -> dict[str, Any]:
    return {"start": {"line": line, "character": start}, "end": {"line": line, "character": end}}


#: (query, kind, path, selection): the name each query's one hit must cite. None of these
#: queries is a name, so the hit's first word match is elsewhere: "debug information" is in
#: DEBUG's doc comment, "interesting events info" most in INFO's, "keys list" in getValues'.
CASES = [
    ("debug information", "constant", "src/Logger.php", sel(12, 17, 22)),
    ("interesting events info", "constant", "src/Logger.php", sel(19, 17, 21)),
    ("handler stack handlers", "property", "src/Logger.php", sel(31, 15, 23)),
    ("keys list", "method", "android/AsyncStorageAccess.kt", sel(9, 16, 23)),
]


async def _only_hit(s: Session, query: str, kind: str, mode: str) -> dict[str, Any]:
    found = valid(await s.search({"query": query, "mode": mode, "k": 5, "explain": True,
                                  "filters": {"kind": kind}}))
    assert len(found["hits"]) == 1, (query, kind, mode, found)
    return found


async def test_a_kind_filter_finds_and_cites_definitions_without_a_chunk_of_their_own(
        start_server: StartFn, tmp_path: Path) -> None:
    s = await ready(start_server, [write_tree(tmp_path / "ws", FILES)])
    for mode in ("lexical", "auto"):
        for query, kind, path, selection in CASES:
            found = await _only_hit(s, query, kind, mode)
            hit = found["hits"][0]
            assert hit["location"]["uri"].endswith("/" + path), (query, mode, hit)
            assert hit["selection"] == selection, (query, mode, hit)
            assert f"holds_{kind}_definition" in [
                p["name"] for p in hit["retrieval"]["priors"]], (query, mode, hit)
            # The hit stands for the held definition, not for the class that holds it: its
            # title, kind, location and handle were `Logger`'s.
            name = hit["symbol"]
            assert hit["title"].endswith("." + name) and hit["kind"] == kind, (query, hit)
            assert hit["location"]["range"]["start"]["line"] == selection["start"]["line"]
            described = await call(s, "kebab/symbol", {"symbol_id": hit["symbol_id"]})
            assert (described["name"], described["selection"]) == (name, selection), described
            if mode == "lexical":  # the count is exact, and nothing is left out
                assert found["meta"]["total_matches"] == 1, (query, found["meta"])
                assert found["meta"]["recall"]["complete"] is True
    # A name the query spells, as the hunt asked it: found, at that name.
    for query, kind, selection in [("DEBUG", "constant", sel(12, 17, 22)),
                                   ("handlers", "property", sel(31, 15, 23)),
                                   ("getKeys", "method", sel(9, 16, 23))]:
        found = await _only_hit(s, query, kind, "lexical")
        assert found["hits"][0]["selection"] == selection, (query, found["hits"][0])
    # The rule keeps chunks for a definition of the kinds asked only: the class's chunk holds
    # constants and properties, no enum member, and its own kind is not asked.
    none = valid(await s.search({"query": "debug information", "mode": "lexical",
                                 "filters": {"kind": "enum_member"}}))
    assert none["hits"] == [] and none["meta"]["total_matches"] == 0


async def test_exact_text_under_a_kind_filter_counts_text_inside_a_held_definition(
        start_server: StartFn, tmp_path: Path) -> None:
    s = await ready(start_server, [write_tree(tmp_path / "ws", FILES)])
    for query, text in (('"DEBUG = 100"', "DEBUG = 100"),  # quoted
                        ("DEBUG = 100;", "DEBUG = 100;")):  # read as code in auto
        found = valid(await s.search({"query": query, "explain": True,
                                      "filters": {"kind": "constant"}}))
        assert len(found["hits"]) == 1, (query, found)
        hit = found["hits"][0]
        assert hit["location"]["uri"].endswith("/src/Logger.php")
        assert hit["selection"] == sel(12, 17, 17 + len(text)), (query, hit)  # the text
        assert hit["retrieval"]["exact"] is True
        assert found["meta"]["total_matches"] == 1
    # Text inside the class but in no constant is not inside a definition of that kind.
    outside = valid(await s.search({"query": '"return $this->name"',
                                    "filters": {"kind": "constant"}}))
    assert outside["hits"] == [] and outside["meta"]["total_matches"] == 0


async def test_vector_and_hybrid_under_a_kind_filter_find_held_definitions(
        start_server: StartFn, tmp_path: Path) -> None:
    s = await ready(start_server, [write_tree(tmp_path / "ws", FILES)],
                    init_options={"embed": True})
    await s.wait_embedded()
    for mode in ("vector", "hybrid"):
        for query, kind, path, selection in CASES:
            found = valid(await s.search({"query": query, "mode": mode, "k": 5,
                                          "explain": True, "filters": {"kind": kind}}))
            assert found["hits"], (query, kind, mode, found["meta"])
            hit = found["hits"][0]
            assert hit["retrieval"]["method"] == mode
            assert hit["retrieval"]["vector_rank"] is not None, (query, mode, hit)  # by both
            if mode == "hybrid":
                assert hit["retrieval"]["lexical_rank"] is not None, (query, mode, hit)
            assert hit["location"]["uri"].endswith("/" + path), (query, mode, hit)
            assert hit["selection"] == selection, (query, mode, hit)
            assert f"holds_{kind}_definition" in [
                p["name"] for p in hit["retrieval"]["priors"]], (query, mode, hit)
            assert not [w for w in found["meta"]["warnings"] if "kind filter" in w]


LEVELS = """<?php
class Levels
{
    public const INFO = "debug level";
    public const DEBUG = 100;
}
"""


async def test_exact_text_under_a_kind_filter_stands_for_the_definition_it_is_in(
        start_server: StartFn, tmp_path: Path) -> None:
    # The query's words name DEBUG, but the text is INFO's value: the hit is INFO's, and its
    # selection (the text) lies in its location (the review's repro: it stood for DEBUG).
    s = await ready(start_server, [write_tree(tmp_path / "ws", {"Levels.php": LEVELS})])
    found = valid(await s.search({"query": '"debug level"', "mode": "lexical",
                                  "filters": {"kind": "constant"}}))
    assert len(found["hits"]) == 1, found
    hit = found["hits"][0]
    assert (hit["title"], hit["kind"]) == ("Levels.INFO", "constant"), hit
    assert hit["selection"] == sel(3, 25, 36)
    assert hit["location"]["range"]["start"]["line"] == 3

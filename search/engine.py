"""One entry point for a search request: validate, route, retrieve, explain.

Both the CLI and the language server call `Searcher.search`, so a query gives the same answer
wherever it is asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from indexing.store import Filters, Store
from search import lexical
from search.hits import build_hit
from search.query import glob_to_regex, highlight_words, parse
from search.types import (
    MAX_K,
    MODES,
    Hit,
    InvalidQuery,
    Meta,
    Retrieval,
    SearchRequest,
    SearchResult,
)

ShouldStop = Callable[[], bool]


class Cancelled(Exception):
    """The caller gave up on this request; its work stops at the next checkpoint."""


def store_filters(req: SearchRequest) -> Filters:
    return Filters(
        langs=req.filters.langs,
        kinds=req.filters.kinds,
        path_regex=glob_to_regex(req.filters.path_glob) if req.filters.path_glob else None,
    )


def validate(req: SearchRequest) -> None:
    if req.mode not in MODES:
        raise InvalidQuery(f"unknown mode {req.mode!r}: expected one of {', '.join(MODES)}")
    if not 1 <= req.k <= MAX_K:
        raise InvalidQuery(f"k must be between 1 and {MAX_K}, got {req.k}")
    if req.snippet_chars < 20:
        raise InvalidQuery("snippet_chars must be at least 20")


class Searcher:
    """Answers requests over one workspace root's index."""

    def __init__(self, root: Path, store: Store, building: Callable[[], bool] | None = None):
        self.root = root.resolve()
        self.store = store
        self._building = building or (lambda: False)

    def search(self, req: SearchRequest, should_stop: ShouldStop | None = None) -> SearchResult:
        started = time.perf_counter()
        validate(req)
        filters = store_filters(req)
        parsed = parse(req.query)
        stop = should_stop or (lambda: False)
        meta = Meta(mode=req.mode)
        if req.mode in ("vector", "hybrid"):
            meta.warnings.append(
                f"mode {req.mode!r} is not available yet; answered with lexical search"
            )
        if stop():
            raise Cancelled()
        result = lexical.retrieve(self.store, parsed, filters, req.k)
        if stop():
            raise Cancelled()
        words = highlight_words(parsed.terms) if parsed.shape == "terms" else ()
        if parsed.shape == "exact":
            words = (parsed.exact_text.lower(),)
        hits: list[Hit] = []
        for item in result.ranked:
            retrieval = Retrieval(
                method="lexical",
                lexical_score=round(item.score, 6),
                lexical_rank=item.rank,
                exact=item.focus is not None,
            )
            hits.append(
                build_hit(item.row, str(self.root), words, round(item.score, 6), retrieval,
                          req.snippet_chars, item.focus)
            )
        meta.intent = {"name": "exact_text" if parsed.shape == "exact" else "lexical",
                       "rule": f"query shape: {parsed.shape}"}
        meta.total_matches = result.total
        meta.query_plan = result.plan
        meta.warnings.extend(result.warnings)
        meta.recall = {
            "complete": True,
            "ranking_scope": "all_matches",
            "truncated": result.total > len(hits),
        }
        if parsed.shape == "exact":
            meta.score = {"kind": "exact_occurrences", "direction": "higher_is_better"}
        self._index_meta(meta)
        meta.timing = {"total_ms": round((time.perf_counter() - started) * 1000, 3)}
        return SearchResult(hits=hits, meta=meta)

    def _index_meta(self, meta: Meta) -> None:
        stats = self.store.stats()
        building = self._building()
        meta.index = {
            "schema_version": stats.schema_version,
            "lexical_version": stats.lexical_version,
            "files": stats.files,
            "building": building,
        }
        if building:
            meta.recall["complete"] = False
            meta.recall["ranking_scope"] = "unknown"
            meta.warnings.append("the index is still building: results may be incomplete")


"""Merging one request's answers from several workspace folders into one answer: search hits
and their metadata, and workspace-symbol matches.

Each folder has its own index and its own `Searcher`, so a multi-root search is N answers that
must become one: hits by score (ties by folder order, then each folder's own rank, so the
output is deterministic), and metadata that never claims more than every part can back
(complete only if all parts are, `lower_bound` if any count is).

It works on `search.types` values only: ranking across folders is search's business, not the
protocol adapter's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from indexing.schema import SCHEMA_VERSION
from search import filter_notes
from search.symbols import SymbolMatch, merge_key
from search.types import FileMatch, Hit, Meta, SearchResult

_SCOPE_ORDER = ("all_matches", "candidate_window", "unknown")


def merge_results(results: Sequence[SearchResult], k: int, mode: str) -> SearchResult:
    if not results:
        meta = Meta(mode=mode)
        meta.index = {"schema_version": SCHEMA_VERSION, "lexical_version": 0, "files": 0,
                      "building": False}
        meta.timing = {"total_ms": 0.0}
        meta.warnings.append("no workspace folder is open: nothing to search")
        return SearchResult(hits=[], meta=meta)
    if len(results) == 1:
        return results[0]
    ranked: list[tuple[float, int, int, Hit]] = []
    usage = all(r.meta.query_plan == "refs" for r in results)
    best: dict[tuple[str, str], float] = {}  # usage answers stay grouped by file
    for result in results:
        for hit in result.hits:
            key = (hit.root, hit.path)
            best[key] = max(best.get(key, 0.0), hit.score)
    for folder_index, result in enumerate(results):
        for rank, hit in enumerate(result.hits):
            score = best[(hit.root, hit.path)] if usage else hit.score
            ranked.append((-score, folder_index, rank, hit))
    ranked.sort(key=lambda item: item[:3])
    hits = [item[3] for item in ranked[:k]]
    return SearchResult(hits=hits, meta=merge_meta([r.meta for r in results], len(hits)),
                        files=_merge_files(results, k))


def _merge_files(results: Sequence[SearchResult], k: int) -> list[FileMatch]:
    """The folders' file channels as one: by similarity (one model, so comparable), ties by
    folder order and rank, then ranked again."""
    ranked = sorted(((-m.score, i, m.rank, m) for i, r in enumerate(results) for m in r.files),
                    key=lambda item: item[:3])
    return [replace(item[3], rank=n + 1) for n, item in enumerate(ranked[:k])]


def merge_meta(metas: Sequence[Meta], shown: int) -> Meta:
    first = metas[0]
    meta = Meta(mode=first.mode, intent=first.intent)
    meta.total_matches = sum(m.total_matches for m in metas)
    lower = any(m.count_accuracy != "exact" for m in metas)
    meta.count_accuracy = "lower_bound" if lower else "exact"
    scopes = [str(m.recall.get("ranking_scope", "unknown")) for m in metas]
    meta.recall = {
        **first.recall,
        "complete": all(bool(m.recall.get("complete", False)) for m in metas),
        "ranking_scope": max(scopes, key=lambda s: _SCOPE_ORDER.index(s)
                             if s in _SCOPE_ORDER else len(_SCOPE_ORDER)),
        "truncated": meta.total_matches > shown or any(
            bool(m.recall.get("truncated", False)) for m in metas),
    }
    kinds = {m.score.get("kind") for m in metas}
    meta.score = dict(first.score) if len(kinds) == 1 else {
        "kind": "mixed", "direction": "higher_is_better"}
    meta.index = {
        **first.index,
        "files": sum(int(m.index.get("files", 0) or 0) for m in metas),
        # A change counter, not a version of any one index: it moves when any folder's does.
        "lexical_version": sum(int(m.index.get("lexical_version", 0) or 0) for m in metas),
        "building": any(bool(m.index.get("building", False)) for m in metas),
        "folders": len(metas),
    }
    plans = list(dict.fromkeys(m.query_plan for m in metas if m.query_plan))
    meta.query_plan = " | ".join(plans)
    meta.warnings = filter_notes.in_every_folder([m.warnings for m in metas])
    timing: dict[str, float] = {}
    for m in metas:
        for key, value in m.timing.items():
            timing[key] = round(timing.get(key, 0.0) + value, 3)
    meta.timing = timing
    return meta


@dataclass(frozen=True, slots=True)
class FolderMatch:
    """A workspace-symbol match and the folder (by position and root) it came from."""

    folder_index: int
    root: str
    match: SymbolMatch


def merge_symbols(per_folder: Sequence[Sequence[FolderMatch]], limit: int) -> list[FolderMatch]:
    """Best first across folders. One folder's list is already in the matcher's final order
    and is kept as is. Across folders: score, then the matcher's own tie-breaks (kind,
    non-test, then for a match shorter name and qualified name, for the empty-query listing
    path and line), then folder order, so the same workspace and query always give the same
    list."""
    if len(per_folder) == 1:
        return list(per_folder[0][:limit])

    def key(m: FolderMatch) -> tuple[tuple[float, tuple[object, ...]], int]:
        return merge_key(m.match), m.folder_index

    return sorted((m for items in per_folder for m in items), key=key)[:limit]

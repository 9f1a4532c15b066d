"""Merging one request's answers from several workspace folders into one answer: search hits
and their metadata, and workspace-symbol matches.

Each folder has its own index and its own `Searcher`, so a multi-root search is N answers that
must become one: hits by score (ties by folder order, then each folder's own rank, so the
output is deterministic), and metadata that never claims more than every part can back
(complete only if all parts are, `lower_bound` if any count is).

Folders may overlap: one nested in another (a monorepo and one of its packages, both opened).
A file under both is indexed in both and matches in both, so the merge cites each place once:
hits, file matches and workspace symbols are deduplicated by absolute file path and range,
the first in merge order (the best) kept. The overlap is not left out of either index instead:
an index belongs to its root and is shared with other processes (another editor, `kebab mcp`)
that may open the outer folder alone, so what it holds cannot depend on which other folders
this session has open; and the two folders' ignore rules differ (the outer `.gitignore` may
leave the inner folder out, top-level build output is another folder at each root), so
neither index's copy of the overlap is the other's. Counts: the totals of folders that
overlap would add the overlap's matches twice, and which matches they share cannot be told
from the answers (a total counts matching chunks, a hit may stand for several), so their
count is a `lower_bound`: the largest of their totals, or their distinct hits if more.

It works on `search.types` values only: ranking across folders is search's business, not the
protocol adapter's.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from indexing.schema import SCHEMA_VERSION
from search import filter_notes
from search.symbols import SymbolMatch, merge_key
from search.types import FileMatch, Hit, Meta, SearchResult

_SCOPE_ORDER = ("all_matches", "candidate_window", "unknown")
#: The warning of an answer from no folder at all.
NO_FOLDER_OPEN = "no workspace folder is open: nothing to search"
T = TypeVar("T")


def merge_results(results: Sequence[SearchResult], k: int, mode: str) -> SearchResult:
    if not results:
        meta = Meta(mode=mode)
        meta.index = {"schema_version": SCHEMA_VERSION, "lexical_version": 0, "files": 0,
                      "building": False}
        meta.timing = {"total_ms": 0.0}
        meta.warnings.append(NO_FOLDER_OPEN)
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
    hits = _distinct((item[3] for item in ranked), _hit_key)[:k]
    meta = merge_meta([r.meta for r in results], len(hits))
    _count_overlaps(results, meta, len(hits))
    return SearchResult(hits=hits, meta=meta, files=merge_files(results, k))


@functools.lru_cache(maxsize=64)
def _real(root: str) -> str:
    """A folder's root with its symlinks resolved: a folder cites files under the path the
    editor opened, so one opened through a symlink and one nested in it, opened by its real
    path, name the same files by two spellings."""
    return os.path.realpath(root)


def _place(root: str, path: str) -> str:
    """A file as one absolute path, whichever folder's root it was given under."""
    return os.path.normpath(os.path.join(_real(root), path))


def _hit_key(hit: Hit) -> tuple[str, Hashable]:
    return hit.root, (_place(hit.root, hit.path), hit.span, hit.citation)


def _distinct(items: Iterable[T], key: Callable[[T], tuple[str, Hashable]]) -> list[T]:
    """`items` in order, without those whose place (`key`: the folder's root, then the place)
    a folder before them in this order already cited: the first, the best, is kept. Items of
    one folder are never dropped: a folder has no duplicates of its own."""
    cited: dict[Hashable, str] = {}
    out: list[T] = []
    for item in items:
        root, place = key(item)
        if cited.setdefault(place, root) == root:
            out.append(item)
    return out


def _root(result: SearchResult) -> str | None:
    """The folder a result came from (None when it cites nothing)."""
    for hit in result.hits:
        return hit.root
    return None


def _overlapping(roots: Sequence[str | None]) -> list[list[int]]:
    """The results in groups of folders that overlap (one root inside another's), each
    result in one group, in order."""
    group = list(range(len(roots)))

    def find(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    def nests(a: str, b: str) -> bool:
        """`b` is strictly under `a`. Two parts with one root are one folder split between
        two indexes (a team index and the checkout's, `search.overlay`): disjoint paths."""
        return b.startswith(a.rstrip(os.sep) + os.sep)

    for i, a in enumerate(roots):
        for j in range(i):
            b = roots[j]
            if a is not None and b is not None and (nests(_real(a), _real(b))
                                                    or nests(_real(b), _real(a))):
                group[find(i)] = find(j)
    out: dict[int, list[int]] = {}
    for i in range(len(roots)):
        out.setdefault(find(i), []).append(i)
    return list(out.values())


def _count_overlaps(results: Sequence[SearchResult], meta: Meta, shown: int) -> None:
    """Count the matches of overlapping folders once (see the module's docstring)."""
    total, lower = 0, meta.count_accuracy != "exact"
    for members in _overlapping([_root(r) for r in results]):
        parts = [results[i] for i in members]
        if len(parts) == 1:
            total += parts[0].meta.total_matches
            continue
        distinct = len(_distinct((h for r in parts for h in r.hits), _hit_key))
        total += max(distinct, *(r.meta.total_matches for r in parts))
        lower = True
    meta.total_matches = total
    meta.count_accuracy = "lower_bound" if lower else "exact"
    meta.recall["truncated"] = total > shown or any(
        bool(r.meta.recall.get("truncated", False)) for r in results)


def merge_files(results: Sequence[SearchResult], k: int) -> list[FileMatch]:
    """The folders' file channels as one (or a team index's and this checkout's): by
    similarity (one model, so comparable), ties by folder order and rank, each file once, then
    ranked again."""
    ranked = sorted(((-m.score, i, m.rank, m) for i, r in enumerate(results) for m in r.files),
                    key=lambda item: item[:3])
    files = _distinct((item[3] for item in ranked), lambda m: (m.root, _place(m.root, m.path)))
    return [replace(m, rank=n + 1) for n, m in enumerate(files[:k])]


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
    meta.index = _merge_index([m.index for m in metas])
    plans = list(dict.fromkeys(m.query_plan for m in metas if m.query_plan))
    meta.query_plan = " | ".join(plans)
    meta.warnings = filter_notes.in_every_folder([m.warnings for m in metas])
    timing: dict[str, float] = {}
    for m in metas:
        for key, value in m.timing.items():
            timing[key] = round(timing.get(key, 0.0) + value, 3)
    meta.timing = timing
    return meta


def _merge_index(parts: Sequence[dict[str, object]]) -> dict[str, object]:
    """The folders' index facts as one: counts summed, so no folder's figure stands for the
    whole (the first folder's `embedded` would call a half-embedded workspace complete).
    Without every folder's `embedded` the whole's is unknown, and left out. Versions become
    change counters that move when any folder's does; the vector store's synced version is
    summed only when every folder has one, so it equals the lexical sum exactly when every
    folder's vectors are in step (each is at most its own)."""
    def total(key: str, only_if_all: bool = False) -> int | None:
        values = [v for v in (p.get(key) for p in parts) if isinstance(v, int)]
        if not values or (only_if_all and len(values) < len(parts)):
            return None
        return sum(values)

    merged: dict[str, object] = {
        **{k: v for k, v in parts[0].items() if k != "embedded"},
        "files": total("files") or 0,
        "lexical_version": total("lexical_version") or 0,
        "vector_version": total("vector_version"),
        "building": any(bool(p.get("building", False)) for p in parts),
        "folders": len(parts),
    }
    if any("vector_lexical_version" in p for p in parts):
        merged["vector_lexical_version"] = total("vector_lexical_version", only_if_all=True)
    embedded = [e for e in (p.get("embedded") for p in parts) if isinstance(e, dict)]
    if embedded and len(embedded) == len(parts):  # else unknown: the warnings say which
        merged["embedded"] = {key: sum(int(e.get(key, 0) or 0) for e in embedded)
                              for key in ("vectors", "total")}
    return merged


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

    def place(m: FolderMatch) -> tuple[str, Hashable]:  # overlapping folders: each one once
        return m.root, (_place(m.root, m.match.row.path), m.match.row.symbol.range)

    ranked = sorted((m for items in per_folder for m in items), key=key)
    return _distinct(ranked, place)[:limit]

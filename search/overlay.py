"""A team index with this checkout's own changes on top, so that a saved edit is searchable at
once and a hit never shows the team index's stale version of a file changed here.

A file is *changed here* when the local index holds it with another content hash than the
team index holds (edited or added here), and *stale in the team index* when it is changed
here or gone from the checkout (deleted here). Whether a file is gone is asked of the disk,
not of the local index: while that index is still being built it lacks files that are there,
and the team index answers for them meanwhile.

The team index answers for every file but the stale ones; the local index for the changed
ones only. Both splits are filters (`Filters.only_paths`, `skip_paths`) applied in SQL before
the cut, so each side yields its k best and counts its matches exactly, and the two
counts add up.

`workspace/symbol` is overlaid the same way: the team index's definitions without those of
its stale files, merged with the local index's definitions in the files changed here, in the
matcher's own order (`search.symbols.match_overlaid`), which does not depend on a backend.

So are the lookups (`search.workspace_lookups`): the two indexes are two folders of one root,
each answering for its part (`Changes.scopes`). A handle resolves in the index that answers
for its file, so a team handle of a file changed here is stale (the definition it named may
be gone or elsewhere: search again), and a place in such a file is read from the local index.
Refs are merged as a workspace's folders are (their scores are kinds of refs, the same on
both backends); similar code by rank, as a search.

The two sides rank with different backends, whose scores do not compare (`meta.score` says
so), so the hits are merged by rank, not by score: each hit scores 1 / (rrf_k + its rank on its
own side), team first on ties, and `meta.score` names that kind, and each side's own
(`sides`): a vector or hybrid request can be answered by meaning on the team side and by
words on this side, when the local index has no vectors; a warning says so.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace

from indexing.filters import Filters
from indexing.store.catalog import FileState
from search import workspace_lookups as lookups
from search.engine import Searcher
from search.lookups import ReferencesRequest, SimilarRequest
from search.merge import merge_files, merge_meta, merge_results
from search.scores import kept
from search.symbols import Answers, MatchResult, SymbolMatcher, match_overlaid
from search.types import Hit, SearchRequest, SearchResult, SearchUnavailable
from search.workspace_lookups import Indexed

ShouldStop = Callable[[], bool]
MERGED_SCORE = {"kind": "rank_merged_team_and_local", "direction": "higher_is_better",
                "backend": "postgresql+sqlite"}


@dataclass(frozen=True, slots=True)
class Changes:
    """Which files of a checkout differ from the team index's copy of its repository."""

    here: frozenset[str]  # answered from the local index
    stale: frozenset[str]  # never answered from the team index

    @classmethod
    def between(cls, local: Mapping[str, FileState], team: Mapping[str, FileState],
                exists: Callable[[str], bool], unindexed: Collection[str] = ()) -> Changes:
        """`exists(path)`: whether the checkout holds the file (a workspace-relative path).
        `unindexed`: files whose team copy moved since the local index, partial, was last
        brought in line with the team's (a rescan is under way). One it does not hold was
        equal to the team's old copy, so differs from the new: neither index answers for it
        until the rescan has stored it here."""
        here = frozenset(p for p, state in local.items()
                         if p not in team or team[p].hash != state.hash)
        gone = frozenset(p for p in team if p not in local and not exists(p))
        behind = frozenset(p for p in unindexed if p in team and p not in local)
        return cls(here, (here & team.keys()) | gone | behind)

    @property
    def scopes(self) -> tuple[Filters, Filters]:
        """The paths the team index answers for, and the local index (as filters' path
        sets): disjoint, as `here` lies in the stale files or outside the team index."""
        return Filters(skip_paths=self.stale), Filters(only_paths=self.here)

    def split(self, team: Indexed, local: Indexed) -> list[Indexed]:
        """The two indexes of one checkout as a workspace of the lookups, team first; the
        local one only when a file changed here (else it would answer nothing, and warn)."""
        team_scope, local_scope = self.scopes
        return [replace(team, scope=team_scope),
                *([replace(local, scope=local_scope)] if self.here else [])]


def search(team: Searcher, local: Searcher, changes: Changes, req: SearchRequest,
           rrf_k: int, should_stop: ShouldStop, repo: str) -> SearchResult:
    """`req` over the team index, with the files changed here answered by the local index.
    A request the team index cannot serve (vector, hybrid) fails there, before the local
    side runs."""
    team_scope, local_scope = changes.scopes
    from_team = team.search(replace(req, filters=req.filters.within(team_scope)),
                            should_stop=should_stop)
    local_req = replace(req, filters=req.filters.within(local_scope))
    only = local_req.filters.only_paths
    if not only:
        return _annotated(from_team, repo, changes)
    downgraded: str | None = None
    try:
        from_local = local.search(local_req, should_stop=should_stop)
    except SearchUnavailable as exc:  # an explicit vector mode the local index cannot serve
        if req.mode not in ("vector", "hybrid"):
            raise
        downgraded = (f"the {len(only)} file(s) changed here were searched by words, not in "
                      f"mode {req.mode!r}: the local index cannot: {exc}")
        from_local = local.search(replace(local_req, mode="lexical"), should_stop=should_stop)
    merged = _rank_merged(from_team, from_local, req.k, rrf_k)
    if downgraded:
        merged.meta.warnings.append(downgraded)
    return _annotated(merged, repo, changes)


def _rank_merged(from_team: SearchResult, from_local: SearchResult, k: int,
                 rrf_k: int) -> SearchResult:
    """The two sides' hits by rank (their scores do not compare), counted as both count. Their
    file channels (a grouped request's) are cosines of one model, as a workspace's folders'
    are, and merge as those do: each side's own filters already keep the team's stale files
    out of it."""
    ranked: list[tuple[float, int, int, Hit]] = []
    for side, result in enumerate((from_team, from_local)):
        for rank, hit in enumerate(result.hits, start=1):
            ranked.append((-1.0 / (rrf_k + rank), side, rank, hit))
    ranked.sort(key=lambda item: item[:3])
    hits = [replace(hit, score=kept(-neg)) for neg, _, _, hit in ranked[:k]]
    meta = merge_meta([from_team.meta, from_local.meta], len(hits))
    meta.index = dict(from_team.meta.index)  # the team index answered; the overlay is counted
    meta.score = {**MERGED_SCORE, "sides": {"team": from_team.meta.score.get("kind"),
                                            "local": from_local.meta.score.get("kind")}}
    return SearchResult(hits=hits, meta=meta, files=merge_files([from_team, from_local], k))


def references(team: Indexed, local: Indexed, changes: Changes, req: ReferencesRequest,
               should_stop: ShouldStop, repo: str) -> SearchResult:
    """`kebab/references` over the team index, with the refs in the files changed here
    from the local index: in file order by the best kind of ref in each, as a workspace's
    folders merge (team first on ties), counted exactly on each side."""
    results = lookups.references_by_folder(changes.split(team, local), req, should_stop)
    merged = merge_results(results, req.k, "auto")
    merged.meta.index = dict(results[0].meta.index)  # the team's; the overlay is counted
    return _annotated(merged, repo, changes)


def similar(team: Indexed, local: Indexed, changes: Changes, req: SimilarRequest,
            rrf_k: int, should_stop: ShouldStop, repo: str) -> SearchResult:
    """`kebab/similar` over the team index (by its vectors, else by words with a warning),
    with the files changed here from the local index, merged by rank."""
    results = lookups.similar_by_folder(changes.split(team, local), req, should_stop)
    merged = results[0] if len(results) == 1 else _rank_merged(results[0], results[1], req.k,
                                                               rrf_k)
    return _annotated(merged, repo, changes)


def symbols(team: Answers, changed_here: SymbolMatcher, changes: Changes, query: str,
            limit: int) -> MatchResult:
    """`workspace/symbol` over the team index (`team`), with the definitions of the files
    changed here (`changed_here`: the local index's, of `changes.here` only) in place of the
    team index's stale ones."""
    return match_overlaid(team, changes.stale, changed_here, query, limit)


#: Why an answer may miss this checkout's changes while its own index is still being built.
SCANNING_HERE = ("this checkout is still being scanned: until it is done, a file changed here "
                 "may be missing from the answer or answered from the team index's copy")


def scanning_here(result: SearchResult) -> SearchResult:
    """`result`, said to be incomplete while the checkout's local index is being built. When
    no file changed here is known yet, the local side does not run, so its building state
    would not reach the answer: a new or edited function looked absent, "complete"."""
    meta = result.meta
    meta.index["building"] = True
    meta.recall["complete"] = False
    meta.recall["ranking_scope"] = "unknown"
    if SCANNING_HERE not in meta.warnings:
        meta.warnings.append(SCANNING_HERE)
    return result


def _annotated(result: SearchResult, repo: str, changes: Changes) -> SearchResult:
    """`meta.index.team`: the team index answered, for repository `repo`, with this many
    files answered from the local index instead, and this many of its own hidden."""
    result.meta.index["team"] = {"backend": "postgresql", "repo": repo,
                                 "overlay_files": len(changes.here),
                                 "hidden_files": len(changes.stale)}
    return result

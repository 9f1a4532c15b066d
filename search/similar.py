"""`kebab/similar`: the chunks nearest to a piece of code, by vector, leaving out the code
itself. Without vectors the answer is lexical over the code's identifier parts, and a warning
says so (the `similar` intent of `search.engine`)."""

from __future__ import annotations

from indexing.filters import Filters
from indexing.records import Span
from search.engine import Searcher, ShouldStop
from search.request import MAX_QUERY_CHARS
from search.types import MAX_K, Hit, SearchRequest, SearchResult
from search.window import deeper

#: Extra hits asked for, so the ones excluded (the code itself) still leave k.
_SPARE = 10


def excluded(hit: Hit, path: str, span: Span) -> bool:
    """The hit is (part of) the code the request is about."""
    first, last = hit.chunk_lines
    return hit.path == path and first <= span.end_line and span.start_line <= last


def similar(searcher: Searcher, text: str, k: int, filters: Filters,
            exclude: tuple[str, Span] | None = None,
            should_stop: ShouldStop | None = None) -> SearchResult:
    warnings = []
    if len(text) > MAX_QUERY_CHARS:
        text = text[:MAX_QUERY_CHARS]
        warnings.append(f"the code is longer than {MAX_QUERY_CHARS:,} characters; its start "
                        "was used")
    for asked in deeper(k + _SPARE):
        req = SearchRequest(query=text, intent="similar", k=asked, filters=filters)
        result = searcher.search(req, should_stop)
        hits = result.hits
        if exclude is not None:
            hits = [h for h in hits if not excluded(h, *exclude)]
        # A large range holds most of the chunks nearest to it: ask deeper until k are left
        # outside it, or the answer ran out.
        if exclude is None or len(hits) >= k or len(result.hits) < asked:
            break
    if exclude is not None:
        # The code itself is no match of its own question: not in the count either.
        result.meta.total_matches = max(0, result.meta.total_matches
                                        - (len(result.hits) - len(hits)))
        if len(hits) < k and len(result.hits) == MAX_K:
            warnings.append(f"the {MAX_K} chunks nearest to the code held only {len(hits)} "
                            "outside it; a smaller range finds more")
    result.hits = hits[:k]
    result.meta.warnings.extend(warnings)
    return result

"""`kebab/search`: params checked here, searching in `search`, wire shape in `convert`.

Params are validated before any work so every mistake (missing query, wrong type, unknown
mode, bad glob, unknown filter) is a -32602 that says exactly what is wrong; errors only the
index can detect (an invalid raw FTS5 expression) come back from the searcher as
`InvalidQuery` and are translated the same way. The server stays up either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from indexing.records import SymbolKind
from kebab_lsp.config import Settings, plain
from kebab_lsp.convert import result_wire
from kebab_lsp.features import Feature, Handler, invalid_params, request_failed
from kebab_lsp.indexing_service import Folder
from search.engine import Cancelled, validate
from search.merge import merge_results
from search.query import glob_to_regex
from search.types import (
    MODES,
    InvalidQuery,
    SearchFilters,
    SearchRequest,
    SearchResult,
    SearchUnavailable,
)

METHOD = "kebab/search"
_PARAMS = ("query", "mode", "k", "filters", "explain", "workDoneToken", "partialResultToken")
_FILTERS = ("lang", "path_glob", "kind")
_KINDS = tuple(k.value for k in SymbolKind)


def _strings(name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise invalid_params(f"filters.{name} must be a string or a list of strings, "
                         f"got {value!r}")


def parse_request(raw: Any, settings: Settings) -> SearchRequest:
    data = plain(raw)
    if not isinstance(data, dict):
        raise invalid_params("kebab/search params must be an object with at least 'query'")
    unknown = sorted(set(data) - set(_PARAMS))
    if unknown:
        raise invalid_params(f"unknown kebab/search param(s) {', '.join(map(repr, unknown))}; "
                             f"expected {', '.join(_PARAMS[:5])}")
    if "query" not in data or data["query"] is None:
        raise invalid_params("missing required param 'query' (a string)")
    query = data["query"]
    if not isinstance(query, str):
        raise invalid_params(f"'query' must be a string, got {type(query).__name__}")
    mode = data.get("mode", settings.default_mode)
    if not isinstance(mode, str) or mode not in MODES:
        raise invalid_params(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    k = data.get("k", settings.default_k)
    if isinstance(k, bool) or not isinstance(k, int):
        raise invalid_params(f"'k' must be an integer, got {k!r}")
    explain = data.get("explain", False)
    if not isinstance(explain, bool):
        raise invalid_params(f"'explain' must be a boolean, got {explain!r}")
    filters = data.get("filters") or {}
    if not isinstance(filters, dict):
        raise invalid_params(f"'filters' must be an object, got {filters!r}")
    bad = sorted(set(filters) - set(_FILTERS))
    if bad:
        raise invalid_params(f"unknown filter(s) {', '.join(map(repr, bad))}; "
                             f"expected {', '.join(_FILTERS)}")
    kinds = _strings("kind", filters.get("kind"))
    wrong = [kind for kind in kinds if kind not in _KINDS]
    if wrong:
        raise invalid_params(f"unknown kind(s) {', '.join(map(repr, wrong))}; "
                             f"expected one of {', '.join(_KINDS)}")
    glob = filters.get("path_glob")
    if glob is not None and not isinstance(glob, str):
        raise invalid_params(f"filters.path_glob must be a string, got {glob!r}")
    req = SearchRequest(
        query=query, mode=mode, k=k, explain=explain,
        filters=SearchFilters(langs=_strings("lang", filters.get("lang")), kinds=kinds,
                              path_glob=glob),
    )
    try:
        validate(req)
        if glob is not None:
            glob_to_regex(glob)
    except InvalidQuery as exc:
        raise invalid_params(str(exc)) from exc
    return req


def search_folders(folders: list[Folder], req: SearchRequest,
                   should_stop: Callable[[], bool]) -> SearchResult:
    results = []
    for folder in folders:
        if should_stop():
            raise Cancelled()
        results.append(folder.workspace.searcher.search(req, should_stop=should_stop))
    return merge_results(results, req.k, req.mode)


class SearchFeature(Feature):
    def handlers(self) -> Iterable[Handler]:
        return (Handler(METHOD, self.search),)

    async def search(self, params: Any) -> dict[str, Any]:
        server = self.server
        req = parse_request(params, server.settings)
        folders = server.index.folders()

        def work(should_stop: Callable[[], bool]) -> SearchResult:
            return search_folders(folders, req, should_stop)

        try:
            result = await server.run_query(work)
        except InvalidQuery as exc:
            raise invalid_params(str(exc)) from exc
        except SearchUnavailable as exc:
            raise request_failed(str(exc)) from exc
        return result_wire(result, explain=req.explain)

"""The parameters of a search request, declared once: `kebab/search` parses its params with
this table, and `kebab search` builds its flags from it, so the two cannot drift.

Every mistake (missing query, wrong type, unknown mode, bad glob, unknown filter or kind) is an
`InvalidQuery` that says exactly what is wrong, before any work is done.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from indexing.filters import Filters
from indexing.languages import canonical
from indexing.records import SymbolKind
from indexing.settings import MAX_K, MODES, Scope, Settings, Spec, plain
from search.query import glob_to_regex
from search.types import InvalidQuery, SearchRequest

KINDS: tuple[str, ...] = tuple(k.value for k in SymbolKind)
#: What a request is after; `auto` lets the query's shape and wording decide (search.query).
INTENTS: tuple[str, ...] = ("auto", "definition", "concept", "exact_text", "usage", "similar")

PARAMS: dict[str, Spec] = {
    "query": Spec("What to search for (see Query syntax).", Scope.SEARCH, "string"),
    "mode": Spec("Which channels answer: auto routes by intent.", Scope.SEARCH, "choice",
                 choices=MODES, default_doc="the defaultMode setting"),
    "intent": Spec("What is asked for: auto decides from the query (and reports the rule); "
                   "usage lists the refs of a name.", Scope.SEARCH, "choice", choices=INTENTS,
                   default_doc="auto"),
    "group": Spec("Answer {definitions, files, blocks} instead of one list of hits.",
                  Scope.SEARCH, "boolean"),
    "k": Spec("How many hits.", Scope.SEARCH, "integer", minimum=1, maximum=MAX_K,
              default_doc="the defaultK setting"),
    "explain": Spec("Say for each hit which channels found it, at what rank and score.",
                    Scope.SEARCH, "boolean"),
}
FILTERS: dict[str, Spec] = {
    "lang": Spec("Only these languages (a name or an alias: python, py, js, c#, sh, ...; "
                 "for a file no grammar reads, its extension).", Scope.SEARCH, "paths"),
    "kind": Spec("Only definitions of these kinds (one with no chunk of its own, a constant "
                 "or a one-line member, through the chunk that holds it).", Scope.SEARCH,
                 "paths", choices=KINDS),
    "path_glob": Spec("Only paths matching this glob.", Scope.SEARCH, "string"),
}
#: Longer queries are refused: a 100 KB one cost seconds and a gigabyte of memory, and no
#: person types one (a pasted function is a few thousand characters).
MAX_QUERY_CHARS = 10_000
MAX_SYMBOL_QUERY_CHARS = 1_000
#: Params a client may send that are not ours to interpret (LSP progress tokens).
_PROTOCOL_PARAMS = ("workDoneToken", "partialResultToken")
#: Modes an intent cannot be answered in, and why: asked for together, they are refused,
#: since obeying one would silently drop the other.
_CANNOT = {
    "usage": (("lexical", "vector", "hybrid"),
              "is answered from the references the index holds for a name, not by a search "
              "mode; leave mode unset or 'auto'"),
    "exact_text": (("vector", "hybrid"),
                   "finds the literal text, which search by meaning cannot; use mode 'lexical' "
                   "or 'auto'"),
}


def check_pair(mode: str, intent: str) -> None:
    """Refuse a mode and an intent that contradict each other."""
    modes, why = _CANNOT.get(intent, ((), ""))
    if mode in modes:
        raise InvalidQuery(f"intent {intent!r} {why} (mode {mode!r} was asked for too)")


def _mode(given: str | None, intent: str | None, default: str) -> str:
    """The mode a request asks for, else the setting's. A default the intent cannot be
    answered in gives way to `auto`, where the intent decides: only a mode the caller named
    is held against the intent."""
    if given is not None:
        check_pair(given, intent or "auto")
        return given
    return "auto" if default in _CANNOT.get(intent or "auto", ((), ""))[0] else default


def check_filters(raw: Any) -> dict[str, Any]:
    """A request's `filters` object, each entry checked: the one reading every request with
    filters shares (kebab/search and the lookups)."""
    filters = raw or {}
    if not isinstance(filters, Mapping):
        raise InvalidQuery(f"'filters' must be an object, got {filters!r}")
    bad = sorted(set(filters) - set(FILTERS))
    if bad:
        raise InvalidQuery(f"unknown filter(s) {', '.join(map(repr, bad))}; "
                           f"expected {', '.join(FILTERS)}")
    return {name: _checked(f"filters.{name}", spec, filters[name])
            for name, spec in FILTERS.items() if filters.get(name) is not None}


def _checked(name: str, spec: Spec, value: Any) -> Any:
    short = name.rsplit(".", 1)[-1]
    if spec.kind == "choice" and isinstance(value, str) and value not in spec.choices:
        raise InvalidQuery(f"unknown {short} {value!r}: expected one of "
                           f"{', '.join(spec.choices)}")
    if spec.kind == "paths" and isinstance(value, str):
        value = [value]  # one string is a list of one
    checked, problem = spec.check(value)
    if problem:
        raise InvalidQuery(f"{name!r} {problem}, got {value!r}")
    if spec.choices and spec.kind == "paths":
        wrong = [v for v in checked if v not in spec.choices]
        if wrong:
            raise InvalidQuery(f"unknown {short}(s) {', '.join(map(repr, wrong))}; expected "
                               f"one of {', '.join(spec.choices)}")
    return checked


def check_text(text: str, limit: int, what: str = "query") -> None:
    """A query must be short enough to answer cheaply and valid Unicode: a lone surrogate or
    a NUL cannot be stored or searched, and would fail deep inside SQLite instead of here."""
    if len(text) > limit:
        raise InvalidQuery(f"the {what} is {len(text):,} characters long; the limit is "
                           f"{limit:,}")
    for i, ch in enumerate(text):
        if ch == "\0" or "\ud800" <= ch <= "\udfff":
            kind = "a NUL character" if ch == "\0" else "a lone surrogate"
            raise InvalidQuery(f"the {what} is not valid text: {kind} at character {i}")


def validate(req: SearchRequest) -> None:
    """A request built by code rather than parsed obeys the same rules."""
    check_text(req.query, MAX_QUERY_CHARS)
    _checked("mode", PARAMS["mode"], req.mode)
    _checked("intent", PARAMS["intent"], req.intent)
    check_pair(req.mode, req.intent)
    _checked("k", PARAMS["k"], req.k)
    if req.snippet_chars < 20:
        raise InvalidQuery("snippet_chars must be at least 20")
    if req.filters.path_glob is not None:
        glob_to_regex(req.filters.path_glob)


def parse_request(raw: Any, settings: Settings) -> SearchRequest:
    """A `SearchRequest` from `kebab/search` params, defaults from the settings."""
    data = plain(raw)
    if not isinstance(data, dict):
        raise InvalidQuery("kebab/search params must be an object with at least 'query'")
    unknown = sorted(set(data) - set(PARAMS) - {"filters", *_PROTOCOL_PARAMS})
    if unknown:
        raise InvalidQuery(f"unknown kebab/search param(s) {', '.join(map(repr, unknown))}; "
                       f"expected {', '.join([*PARAMS, 'filters'])}")
    if data.get("query") is None:
        raise InvalidQuery("missing required param 'query' (a string)")
    query = data["query"]
    if not isinstance(query, str):
        raise InvalidQuery(f"'query' must be a string, got {type(query).__name__}")
    values = {name: _checked(name, spec, data[name]) for name, spec in PARAMS.items()
              if name != "query" and data.get(name) is not None}
    given = check_filters(data.get("filters"))
    return build(query, settings, mode=values.get("mode"), k=values.get("k"),
                 explain=values.get("explain", False), langs=given.get("lang", ()),
                 kinds=given.get("kind", ()), path_glob=given.get("path_glob"),
                 intent=values.get("intent"), group=values.get("group", False))


def build(query: str, settings: Settings, mode: str | None = None, k: int | None = None,
          explain: bool = False, langs: tuple[str, ...] = (), kinds: tuple[str, ...] = (),
          path_glob: str | None = None, intent: str | None = None,
          group: bool = False) -> SearchRequest:
    """A checked request; what is not given comes from the settings."""
    if path_glob is not None:
        glob_to_regex(path_glob)  # a bad glob fails here, before any work
    return SearchRequest(
        query=query, mode=_mode(mode, intent, settings.default_mode), k=k or settings.default_k,
        explain=explain, intent=intent or "auto", group=group,
        filters=Filters(langs=tuple(canonical(lang) or lang.lower() for lang in langs),
                        kinds=tuple(kinds), path_glob=path_glob))


def add_arguments(parser: Any) -> None:
    """`kebab search` flags from the same table."""
    parser.add_argument("query", help=PARAMS["query"].doc)
    parser.add_argument("-k", type=int, default=None, help=PARAMS["k"].doc)
    parser.add_argument("--mode", choices=MODES, default=None, help=PARAMS["mode"].doc)
    parser.add_argument("--intent", choices=INTENTS, default=None, help=PARAMS["intent"].doc)
    parser.add_argument("--group", action="store_true", help=PARAMS["group"].doc)
    parser.add_argument("--explain", action="store_true", help=PARAMS["explain"].doc)
    parser.add_argument("--lang", action="append", default=None, help=FILTERS["lang"].doc)
    parser.add_argument("--kind", action="append", default=None, choices=KINDS,
                        help=FILTERS["kind"].doc)
    parser.add_argument("--path-glob", default=None, help=FILTERS["path_glob"].doc)


def from_arguments(args: Any, settings: Settings) -> SearchRequest:
    if args.k is not None:
        _checked("k", PARAMS["k"], args.k)
    return build(args.query, settings, mode=args.mode, k=args.k, explain=args.explain,
                 langs=tuple(args.lang or ()), kinds=tuple(args.kind or ()),
                 path_glob=args.path_glob, intent=args.intent, group=args.group)

"""The parameters of `kebab/references`, `kebab/symbol`, `kebab/context` and `kebab/similar`,
declared once, as `search.request` declares `kebab/search`'s.

Each request names its target in one of a few ways (a handle, a name, a place in a document,
or text); exactly one must be given. Every mistake is an `InvalidQuery` that says what is
wrong, before any work is done.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from indexing.filters import Filters
from indexing.records import RefKind, Span
from indexing.settings import MAX_K, Scope, Settings, Spec, plain
from search.handles import check_chunk_handle, check_symbol_handle
from search.request import MAX_QUERY_CHARS, _checked, build, check_filters, check_text
from search.types import InvalidQuery

REF_KINDS: tuple[str, ...] = tuple(k.value for k in RefKind)
MAX_CONTEXT = 50

_K = Spec("How many hits.", Scope.SEARCH, "integer", minimum=1, maximum=MAX_K,
          default_doc="the defaultK setting")
_DOCUMENT = Spec("A document and a place in it: {uri} plus `position` (or `range`).",
                 Scope.SEARCH, "location")

REFERENCES: dict[str, Spec] = {
    "symbol_id": Spec("The definition whose name's refs to list (a handle).", Scope.SEARCH,
                      "string"),
    "name": Spec("The name whose refs to list.", Scope.SEARCH, "string"),
    "textDocument": _DOCUMENT,
    "position": Spec("With textDocument: the name under this position.", Scope.SEARCH,
                     "location"),
    "kinds": Spec("Only refs of these kinds.", Scope.SEARCH, "paths", choices=REF_KINDS),
    "k": _K,
}
SYMBOL: dict[str, Spec] = {
    "symbol_id": Spec("The definition to describe (a handle).", Scope.SEARCH, "string"),
}
CONTEXT: dict[str, Spec] = {
    "chunk_id": Spec("The block to show (a handle).", Scope.SEARCH, "string"),
    "symbol_id": Spec("The definition whose first block to show (a handle).", Scope.SEARCH,
                      "string"),
    "before": Spec("Blocks to show before it.", Scope.SEARCH, "integer", minimum=0,
                   maximum=MAX_CONTEXT, default_doc="1"),
    "after": Spec("Blocks to show after it.", Scope.SEARCH, "integer", minimum=0,
                  maximum=MAX_CONTEXT, default_doc="1"),
}
SIMILAR: dict[str, Spec] = {
    "textDocument": _DOCUMENT,
    "range": Spec("With textDocument: the code to find more of (excluded from the answer).",
                  Scope.SEARCH, "location"),
    "text": Spec("The code to find more of.", Scope.SEARCH, "string"),
    "k": _K,
}
_PROTOCOL_PARAMS = ("workDoneToken", "partialResultToken")


@dataclass(frozen=True, slots=True)
class Place:
    """A document (its URI) and a range in it; a position is an empty range."""

    uri: str
    span: Span


@dataclass(frozen=True, slots=True)
class ReferencesRequest:
    symbol_id: str | None = None
    name: str | None = None
    place: Place | None = None
    kinds: tuple[str, ...] = ()
    k: int = 100
    filters: Filters = Filters()


@dataclass(frozen=True, slots=True)
class ContextRequest:
    chunk_id: str | None = None
    symbol_id: str | None = None
    before: int = 1
    after: int = 1


@dataclass(frozen=True, slots=True)
class SimilarRequest:
    text: str | None = None
    place: Place | None = None
    k: int = 20
    filters: Filters = Filters()


def _object(method: str, raw: Any, table: Mapping[str, Spec],
            extra: tuple[str, ...] = ()) -> dict[str, Any]:
    data = plain(raw)
    if not isinstance(data, dict):
        raise InvalidQuery(f"{method} params must be an object with one of "
                           f"{', '.join(table)}")
    unknown = sorted(set(data) - set(table) - set(extra) - set(_PROTOCOL_PARAMS))
    if unknown:
        raise InvalidQuery(f"unknown {method} param(s) {', '.join(map(repr, unknown))}; "
                           f"expected {', '.join([*table, *extra])}")
    return {k: v for k, v in data.items() if v is not None and k not in _PROTOCOL_PARAMS}


def _one_of(method: str, data: Mapping[str, Any], *choices: str) -> str:
    given = [c for c in choices if c in data]
    if len(given) != 1:
        raise InvalidQuery(f"{method} needs exactly one of {', '.join(map(repr, choices))}"
                           + (f"; got {', '.join(map(repr, given))}" if given else ""))
    return given[0]


def _value(name: str, spec: Spec, value: Any) -> Any:
    if spec.kind == "location":
        return value
    return _checked(name, spec, value)


def _position(name: str, value: Any) -> tuple[int, int]:
    if not isinstance(value, Mapping):
        raise InvalidQuery(f"{name!r} must be an object {{line, character}}, got {value!r}")
    line, character = value.get("line"), value.get("character")
    for part, got in (("line", line), ("character", character)):
        if isinstance(got, bool) or not isinstance(got, int) or got < 0:
            raise InvalidQuery(f"'{name}.{part}' must be an integer ≥ 0, got {got!r}")
    assert isinstance(line, int) and isinstance(character, int)
    return line, character


def _uri(value: Any) -> str:
    uri = value.get("uri") if isinstance(value, Mapping) else None
    if not isinstance(uri, str) or not uri.startswith("file:"):
        raise InvalidQuery(f"'textDocument' must be an object with a file: 'uri', got {value!r}")
    return uri


def _place(data: Mapping[str, Any], key: str) -> Place:
    if key not in data:
        raise InvalidQuery(f"'textDocument' needs {key!r} beside it")
    uri = _uri(data["textDocument"])
    if key == "position":
        line, col = _position("position", data["position"])
        return Place(uri, Span(line, col, line, col))
    value = data[key]
    if not isinstance(value, Mapping):
        raise InvalidQuery(f"{key!r} must be an object {{start, end}}, got {value!r}")
    start = _position(f"{key}.start", value.get("start"))
    end = _position(f"{key}.end", value.get("end"))
    if end < start:
        raise InvalidQuery(f"{key!r} ends before it starts: {value!r}")
    return Place(uri, Span(*start, *end))


def _filters(raw: Any) -> Filters:
    given = check_filters(raw)
    return build("x", Settings(), langs=given.get("lang", ()), kinds=given.get("kind", ()),
                 path_glob=given.get("path_glob")).filters


def parse_references(raw: Any, settings: Settings) -> ReferencesRequest:
    method = "kebab/references"
    data = _object(method, raw, REFERENCES, ("filters",))
    values = {n: _value(n, REFERENCES[n], data[n]) for n in REFERENCES if n in data}
    which = _one_of(method, data, "symbol_id", "name", "textDocument")
    if which == "symbol_id":
        check_symbol_handle(values["symbol_id"])
    if which == "name":
        check_text(values["name"], MAX_QUERY_CHARS, "name")
    if "position" in data and which != "textDocument":
        raise InvalidQuery("'position' goes with 'textDocument'")
    return ReferencesRequest(
        symbol_id=values.get("symbol_id"), name=values.get("name"),
        place=_place(data, "position") if which == "textDocument" else None,
        kinds=values.get("kinds", ()), k=values.get("k", settings.default_k),
        filters=_filters(data.get("filters")))


def parse_symbol(raw: Any) -> str:
    data = _object("kebab/symbol", raw, SYMBOL)
    if "symbol_id" not in data:
        raise InvalidQuery("kebab/symbol needs 'symbol_id' (a handle from a kebab answer)")
    check_symbol_handle(data["symbol_id"])
    return str(data["symbol_id"])


def parse_context(raw: Any) -> ContextRequest:
    method = "kebab/context"
    data = _object(method, raw, CONTEXT)
    which = _one_of(method, data, "chunk_id", "symbol_id")
    values = {n: _checked(n, CONTEXT[n], data[n]) for n in CONTEXT if n in data}
    if which == "chunk_id":
        check_chunk_handle(values["chunk_id"])
    else:
        check_symbol_handle(values["symbol_id"])
    return ContextRequest(chunk_id=values.get("chunk_id"), symbol_id=values.get("symbol_id"),
                          before=values.get("before", 1), after=values.get("after", 1))


def parse_similar(raw: Any, settings: Settings) -> SimilarRequest:
    method = "kebab/similar"
    data = _object(method, raw, SIMILAR, ("filters",))
    which = _one_of(method, data, "text", "textDocument")
    if "range" in data and which != "textDocument":
        raise InvalidQuery("'range' goes with 'textDocument'")
    values = {n: _value(n, SIMILAR[n], data[n]) for n in SIMILAR if n in data}
    if which == "text":
        check_text(values["text"], MAX_QUERY_CHARS, "text")
    return SimilarRequest(text=values.get("text"),
                          place=_place(data, "range") if which == "textDocument" else None,
                          k=values.get("k", settings.default_k),
                          filters=_filters(data.get("filters")))

"""The MCP tools: one short async function per tool, each translating between MCP arguments
and `kebab_mcp.service`, and answering twice: `structuredContent` (checked against the tool's
output schema) and a compact text rendering for agents that read text.

`codebase_search`'s arguments are not declared here: its signature is generated from
`search.request`'s parameter table (the same one `kebab/search` and `kebab search` use), so a
change there reaches all three. The lookups (find_references, get_symbol_details,
get_surrounding_code, find_similar_code) publish `search.lookups`' declared parameters and are
checked by its parsers, as `kebab/references`, `kebab/symbol` and `kebab/context` are; the
service answers them through `search.workspace_lookups`, the code the LSP server runs.

Every path in and out is relative to a root (with the root's name in front, or in `root`,
when there are several) and every line is 1-based, as `read_file_lines` reads them.
"""

from __future__ import annotations

import base64
import dataclasses
import difflib
import functools
import hashlib
import inspect
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import unquote, urlparse

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from mcp.types import Tool as MCPTool
from pydantic import BaseModel, Field, ValidationError, WithJsonSchema

from indexing.settings import MAX_K, Spec
from kebab_mcp.service import (
    MAX_READ_BYTES,
    MAX_READ_LINES,
    Service,
    ToolFailure,
    cut_to_bytes,
)
from search.lookups import (
    CONTEXT,
    MAX_CONTEXT,
    REF_KINDS,
    REFERENCES,
    SIMILAR,
    parse_context,
    parse_references,
    parse_symbol,
)
from search.request import FILTERS, MAX_QUERY_CHARS, PARAMS, _checked, check_text, parse_request
from search.types import InvalidQuery, SearchUnavailable
from search.window import deeper

T = TypeVar("T")
#: Hits per page unless `k` says otherwise: agents pay for every token they read.
DEFAULT_K = 8
SNIPPET_CHARS = 160
SNIPPET_LINES = 3
#: Refs per page unless `k` says otherwise (each is one line).
DEFAULT_REFS_K = 20
#: One line of code shown per ref, at most this long.
REF_LINE_CHARS = 120
#: get_symbol_details lists at most this many children, and this much of the doc.
MAX_CHILDREN = 40
MAX_DOC_CHARS = 1_200
#: The modules a thin start must not have loaded before a tool needs them (the index's SQLite
#: store included: the first tool that reads the index opens it).
HEAVY_MODULES = ("lancedb", "pyarrow", "onnxruntime", "tokenizers", "tree_sitter",
                 "tree_sitter_python", "indexing.runtime", "indexing.embed", "indexing.store",
                 "apsw")

# -- output schemas ------------------------------------------------------------------------------


class Also(BaseModel):
    handle: str
    line: int
    title: str
    kind: str


class HitOut(BaseModel):
    handle: str = Field(description="the chunk's handle (chunk_id): get_surrounding_code")
    symbol_id: str | None = Field(default=None, description="the handle of the definition the "
                                  "hit is in: get_symbol_details, find_references")
    root: str | None = Field(default=None, description="the root's name, when there are several")
    path: str = Field(description="relative to its root; give it to read_file_lines")
    line: int = Field(description="1-based line of the match")
    end_line: int = Field(description="1-based last line of the enclosing chunk")
    title: str
    kind: str
    snippet: str = Field(description="a few lines around the match, the first starting at "
                         "the match's column")
    snippet_line: int = Field(description="1-based line of the snippet's first line (the "
                              "others follow it, blank ones included); not always `line`: "
                              "the snippet may start above the match")
    also: list[Also] | None = Field(default=None,
                                    description="group=file: other hits in this file")
    retrieval: dict[str, Any] | None = Field(default=None,
                                             description="explain=true: how it was found")


class SearchOut(BaseModel):
    hits: list[HitOut]
    total_matches: int
    count_accuracy: str
    next_cursor: str | None = Field(default=None, description="pass as cursor for the next page")
    meta: dict[str, Any] = Field(description="the same meta as kebab/search: intent, recall, "
                                             "index state, warnings, timing")


class LinesOut(BaseModel):
    root: str
    path: str
    start_line: int
    end_line: int
    total_lines: int
    truncated: bool = Field(description="true when the caps cut the range short (or cut its "
                            "one line)")
    line_cut: bool = Field(default=False, description="the last line is cut: it alone is "
                           f"longer than the {MAX_READ_BYTES}-byte cap")
    text: str


class StatusOut(BaseModel):
    roots: list[dict[str, Any]]
    warnings: list[str] = Field(default_factory=list, description="what the roots leave out: "
                                "a client root that is not a directory here")


class BuildOut(BaseModel):
    roots: list[dict[str, Any]]


class HelpOut(BaseModel):
    text: str


class Enclosing(BaseModel):
    symbol_id: str = Field(description="handle of the definition (for get_symbol_details)")
    title: str
    kind: str
    line: int = Field(description="1-based first line of the definition")


class RefOut(BaseModel):
    line: int = Field(description="1-based line of the ref")
    kind: str = Field(description="call, import, identifier (a bare mention) or string")
    receiver: str | None = Field(default=None, description="a call's receiver text, if any")
    text: str = Field(description="the ref's line of code")
    chunk_id: str = Field(description="handle of the block holding it (get_surrounding_code)")
    enclosing: Enclosing | None = Field(default=None, description="the definition the ref is "
                                        "in; absent at the top level of a file")


class RefFileOut(BaseModel):
    root: str | None = Field(default=None, description="the root's name, when there are several")
    path: str = Field(description="relative to its root")
    file_id: str
    refs: list[RefOut]


class RefsOut(BaseModel):
    name: str = Field(description="the name whose refs these are (refs are by name, not type)")
    files: list[RefFileOut] = Field(description="files that call it first, then import, "
                                    "then mention it, then strings")
    returned: int
    total_matches: int = Field(description="every ref of the name, counted exactly")
    next_cursor: str | None = Field(default=None, description="pass as cursor for the next page")
    warnings: list[str] = Field(default_factory=list)


class RelatedOut(BaseModel):
    symbol_id: str
    name: str
    kind: str
    line: int = Field(description="1-based first line")


class SymbolOut(BaseModel):
    symbol_id: str
    file_id: str
    chunk_id: str | None = Field(default=None, description="its first block, for "
                                 "get_surrounding_code; none for a value or one-liner")
    root: str | None = Field(default=None, description="the root's name, when there are several")
    path: str
    line: int = Field(description="1-based first line of the definition")
    end_line: int = Field(description="1-based last line of the definition")
    lang: str
    name: str
    qualified_name: str
    kind: str
    container: str | None = None
    signature: str | None = None
    doc: str | None = None
    parent: RelatedOut | None = Field(default=None, description="the definition containing it")
    children: list[RelatedOut] = Field(description=f"the definitions it contains (at most "
                                       f"{MAX_CHILDREN})")
    children_total: int
    ref_counts: dict[str, int] = Field(description="refs of its name by kind (call, import, "
                                       "identifier, string) and total")


class BlockOut(BaseModel):
    chunk_id: str
    symbol_id: str | None = None
    title: str
    kind: str
    line: int = Field(description="1-based first line")
    end_line: int = Field(description="1-based last line")
    text: str
    truncated: bool = Field(default=False, description="the text was cut (by the size cap, "
                            "or the index keeps only part of a very long line); read the rest "
                            "with read_file_lines")


class ContextOut(BaseModel):
    root: str | None = Field(default=None, description="the root's name, when there are several")
    path: str
    file_id: str
    before: list[BlockOut]
    block: BlockOut
    after: list[BlockOut]


class SimilarOut(BaseModel):
    hits: list[HitOut]
    meta: dict[str, Any] = Field(description="how it was answered: intent, query plan "
                                 "(vector, or lexical without vectors), warnings")


def _answer(model: BaseModel, text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=model.model_dump(mode="json", exclude_none=True))


# -- the server: a tool's arguments are a contract ---------------------------------------------

#: Names agents reach for that are another argument here: the error says which.
ARG_SYNONYMS = {"limit": "k", "top_k": "k", "max_results": "k", "n": "k", "count": "k",
                "language": "lang", "languages": "lang", "glob": "path_glob",
                "kinds": "kind", "kind": "kinds", "end": "end_line", "start": "start_line",
                "line": "start_line", "lines_before": "before", "lines_after": "after",
                "query": "text", "file": "path", "id": "symbol_id", "handle": "chunk_id"}


class KebabServer(MCPServer):
    """The SDK's server, except that a tool refuses arguments it does not declare (the SDK
    drops them silently, so a misspelled limit or filter would be ignored) and its input
    schema says so (`additionalProperties: false`)."""

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema = {**tool.input_schema, "additionalProperties": False}
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Any = None) -> Any:
        tool = next((t for t in await super().list_tools() if t.name == name), None)
        if tool is not None:
            properties = tool.input_schema.get("properties", {})
            check_arguments(name, list(properties), arguments)
            check_scalars(name, properties, arguments)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):  # said as our own checks say it
                raise ToolError(f"Error executing tool {name}: "
                                + plain_errors(exc.__cause__)) from exc.__cause__
            raise


def plain_errors(exc: ValidationError) -> str:
    """Argument errors as `search.request` words them ("'k' must be ..., got '5'"): pydantic's
    own text names an internal model and ends each error with a link to its documentation,
    which only costs an agent tokens."""
    return "; ".join(
        f"{'.'.join(str(part) for part in err['loc'])!r}: {err['msg'][:1].lower()}"
        f"{err['msg'][1:]}, got {err.get('input')!r}" for err in exc.errors())


def check_arguments(tool: str, accepted: list[str], arguments: dict[str, Any]) -> None:
    """Refuse an argument `tool` does not declare, naming it and the ones it accepts."""
    unknown = [name for name in arguments if name not in accepted]
    if not unknown:
        return
    hints = []
    for name in unknown:
        near = ARG_SYNONYMS.get(name)
        if near not in accepted:
            near = next(iter(difflib.get_close_matches(name, accepted, n=1)), None)
        if name == "filters" and "path_glob" in accepted:
            hints.append("lang, kind and path_glob are arguments of their own, not 'filters'")
        elif near is not None:
            hints.append(f"{name!r}: did you mean {near!r}?")
    which = ", ".join(repr(n) for n in unknown)
    plural = "s" if len(unknown) > 1 else ""
    takes = ", ".join(accepted) if accepted else "no arguments"
    raise ToolError(f"Error executing tool {tool}: unknown argument{plural} {which}; {tool} "
                    f"accepts: {takes}" + (f" ({'; '.join(hints)})" if hints else ""))


_SCALARS = {"boolean": "true or false", "integer": "an integer"}


def check_scalars(tool: str, properties: dict[str, Any], arguments: dict[str, Any]) -> None:
    """Refuse a boolean or integer argument given as another JSON type. Pydantic's lax mode
    would read "yes" as true, "1" or 1.0 as 1 and true as 1, while `codebase_search` (checked
    by `search.request`) refuses them: one server, one rule."""
    for name, value in arguments.items():
        schema = properties.get(name, {})
        types = {s.get("type") for s in schema.get("anyOf", [schema])} - {"null"}
        if value is None or len(types) != 1 or (kind := types.pop()) not in _SCALARS:
            continue
        if isinstance(value, bool) == (kind == "boolean") and isinstance(value, int):
            continue
        bounds: dict[str, Any] = next(
            (s for s in schema.get("anyOf", [schema]) if s.get("type") == kind), {})
        low, high = bounds.get("minimum"), bounds.get("maximum")
        span = (f" in {low}..{high}" if low is not None and high is not None
                else f" ≥ {low}" if low is not None else "")
        raise ToolError(f"Error executing tool {tool}: {name!r} must be "
                        f"{_SCALARS[kind]}{span}, got {value!r}")


# -- arguments from the declared parameter table ---------------------------------------------


def spec_schema(spec: Spec) -> dict[str, Any]:
    """The JSON schema of one declared parameter."""
    if spec.kind == "integer":
        return {"type": "integer", "minimum": spec.minimum, "maximum": spec.maximum}
    if spec.kind == "boolean":
        return {"type": "boolean"}
    if spec.kind == "choice":
        return {"type": "string", "enum": list(spec.choices)}
    if spec.kind == "paths":
        item: dict[str, Any] = {"type": "string"}
        if spec.choices:
            item["enum"] = list(spec.choices)
        return {"anyOf": [item, {"type": "array", "items": item}]}
    return {"type": "string", "minLength": 1}


def _field(spec: Spec, extra: str = "", default_doc: str | None = None) -> Any:
    """A parameter published with its declared schema and checked by `search.request` (one
    validator, with its messages), not by a second copy of the rules here."""
    return Annotated[Any, WithJsonSchema(spec_schema(spec)),
                     Field(description=_doc(spec, extra, default_doc))]


_INTENT_DOC = (
    " definition = where a name is defined; concept = code about an idea; exact_text = a "
    "literal string; usage = where a name is used (calls, imports, mentions); similar = code "
    "like the query's code.")
_FILTER_DOC = {"path_glob": " Relative to a root; with several roots, a glob that starts "
                            "with a root's name, as hits print it ('pkg/src/**'), searches "
                            "that root only."}
_MODE_DOC = (
    " auto routes by the intent; lexical = words and exact text only; vector = meaning only; "
    "hybrid = both fused. An explicit choice is obeyed or fails with an error, never silently "
    "answered another way.")


def _doc(spec: Spec, extra: str = "", default: str | None = None) -> str:
    default = spec.default_doc if default is None else default
    return spec.doc + (f" Default: {default}." if default else "") + extra


#: The lookups' arguments: published with `search.lookups`' declared schema, checked by its
#: parsers (as `kebab/references` and `kebab/context` are), not by pydantic.
SymbolArg = Annotated[str | None, Field(description="a definition's handle (symbol_id), like "
                                                    "'S12.3.0123456789'")]
ChunkArg = Annotated[str | None, Field(description="a block's handle: a hit's handle (16 hex "
                                                   "digits)")]
KindsArg = Annotated[Any, WithJsonSchema(spec_schema(REFERENCES["kinds"])),
                     Field(description=_doc(REFERENCES["kinds"], " Default: every kind."))]
RefsKArg = Annotated[Any, WithJsonSchema(spec_schema(REFERENCES["k"])), Field(
    description=f"Refs per page. Default: {DEFAULT_REFS_K}; cursor gets the next page.")]
BeforeArg = Annotated[Any, WithJsonSchema(spec_schema(CONTEXT["before"])),
                      Field(description=_doc(CONTEXT["before"]))]
AfterArg = Annotated[Any, WithJsonSchema(spec_schema(CONTEXT["after"])),
                     Field(description=_doc(CONTEXT["after"]))]
SimilarKArg = Annotated[Any, WithJsonSchema(spec_schema(SIMILAR["k"])),
                        Field(description=f"How many blocks. Default: {DEFAULT_K}.")]
CursorArg = Annotated[str | None, Field(description="next_cursor of the previous page of the "
                                                    "same request")]


def _search_signature(default_mode: str) -> inspect.Signature:
    """(query, intent, mode, k, lang, kind, path_glob, group, explain, cursor): `intent` and
    `mode` are `kebab/search`'s, the filters are its `filters`. `default_mode` is the
    `defaultMode` setting this server runs with, which a request without a mode gets."""
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("ctx", kw, annotation=Context),
        inspect.Parameter("query", kw, annotation=Annotated[str, Field(
            description="What to search for: an identifier (`parse_config`, `Store.get`), "
            "\"quoted text\", a code fragment, or a question in plain words.")]),
        inspect.Parameter("intent", kw, default=None,
                          annotation=_field(PARAMS["intent"], _INTENT_DOC)),
        inspect.Parameter("mode", kw, default=None,
                          annotation=_field(PARAMS["mode"], _MODE_DOC, default_mode)),
        inspect.Parameter("k", kw, default=None, annotation=_field(
            PARAMS["k"], " Hits per page; cursor gets the next page.", str(DEFAULT_K))),
        *[inspect.Parameter(name, kw, default=None,
                            annotation=_field(spec, _FILTER_DOC.get(name, "")))
          for name, spec in FILTERS.items()],
        inspect.Parameter("group", kw, default="none", annotation=Annotated[
            Literal["none", "file"],
            Field(description="file: one entry per file (its best hit), the file's other hits "
                              "listed as lines under `also`; k and the cursor then count "
                              "files, and a file is on one page only.")]),
        inspect.Parameter("explain", kw, default=None, annotation=_field(PARAMS["explain"])),
        inspect.Parameter("cursor", kw, default=None, annotation=Annotated[
            str | None, Field(description="next_cursor of the previous page of the same "
                                          "search.")]),
    ]
    return inspect.Signature(params, return_annotation=Annotated[CallToolResult, SearchOut])


def _cursor(query_key: str, offset: int) -> str:
    raw = json.dumps({"q": query_key, "o": offset}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _offset(cursor: str | None, query_key: str) -> int:
    if cursor is None:
        return 0
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        offset, key = int(data["o"]), data["q"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ToolError(f"cursor {cursor!r} is not one this server gave out") from exc
    if key != query_key:
        raise ToolError("this cursor belongs to another search (different query or "
                          "filters); repeat that search, or drop the cursor")
    return offset


# -- running work off the event loop -----------------------------------------------------------


async def _run(fn: Callable[[Callable[[], bool]], T]) -> T:
    """Run blocking work in a thread; a cancelled request tells it to stop (`should_stop`)
    and returns at once."""
    stop = threading.Event()
    try:
        return await anyio.to_thread.run_sync(lambda: fn(stop.is_set), abandon_on_cancel=True)
    except anyio.get_cancelled_exc_class():
        stop.set()
        raise
    except (ToolFailure, InvalidQuery, SearchUnavailable) as exc:
        raise ToolError(str(exc)) from exc


async def _ensure_roots(service: Service, ctx: Context) -> None:
    """No roots on the command line: use the client's, when it offers them."""
    if service.has_paths or service.opened:
        return
    session = ctx.session
    caps = session.client_capabilities
    if caps is None or caps.roots is None:
        return
    try:
        result = await session.list_roots()
    except Exception:  # noqa: BLE001 - a client that says it has roots but fails: use cwd
        return
    paths = []
    for root in result.roots:
        url = urlparse(str(root.uri))
        if url.scheme == "file":
            paths.append(Path(unquote(url.path)))
    service.set_paths(paths)


# -- renderings ------------------------------------------------------------------------------


def _snippet(text: str, line: int) -> tuple[str, int]:
    """The first lines of a hit's snippet, whose first line is file line `line` (1-based),
    and the line they start at: leading blank lines are skipped (the start moves down with
    them), blank lines inside are kept, so its n-th line is the file's line start + n. Its
    first line starts at the match's column, the others keep the file's indentation: they
    are dedented to sit two spaces under it."""
    lines = [ln.rstrip() for ln in text.split("\n")]
    while lines and not lines[0].strip():
        lines.pop(0)
        line += 1
    lines = lines[:SNIPPET_LINES]
    while lines and not lines[-1].strip():
        lines.pop()
    rest = lines[1:]
    indent = min((len(ln) - len(ln.lstrip()) for ln in rest if ln), default=0)
    out = "\n".join([*lines[:1], *("  " + ln[indent:] if ln else "" for ln in rest)])
    return (out if len(out) <= SNIPPET_CHARS else out[: SNIPPET_CHARS - 1] + "…"), line


def _snippet_lines(hit: HitOut) -> list[str]:
    """A hit's snippet in the text rendering, each line with its line number."""
    return [f"    {hit.snippet_line + i}: {ln}" if ln else f"    {hit.snippet_line + i}:"
            for i, ln in enumerate(hit.snippet.split("\n")) if hit.snippet]


def _render_search(out: SearchOut, query: str) -> str:
    meta = out.meta
    intent = meta.get("intent") or {}
    bound = "at least " if out.count_accuracy == "lower_bound" else ""
    head = (f"{len(out.hits)} hit(s) of {bound}{out.total_matches} for {query!r} "
            f"[{intent.get('name', meta.get('mode'))}: {intent.get('rule', '')}]")
    lines = [head]
    for hit in out.hits:
        where = f"{hit.root}/{hit.path}" if hit.root else hit.path
        lines.append(f"{where}:{hit.line}-{hit.end_line}  {hit.title} ({hit.kind})  "
                     f"#{hit.handle}" + (f" #{hit.symbol_id}" if hit.symbol_id else ""))
        lines.extend(_snippet_lines(hit))
        for also in hit.also or []:
            lines.append(f"  also :{also.line}  {also.title} ({also.kind})  #{also.handle}")
        if hit.retrieval:
            lines.append("    why: " + json.dumps(hit.retrieval, separators=(",", ":")))
    recall = meta.get("recall") or {}
    if not recall.get("complete", True):
        lines.append("recall: not complete (" + ", ".join(
            f"{k}={v}" for k, v in recall.items() if k != "complete") + ")")
    lines.extend(f"warning: {w}" for w in meta.get("warnings", []))
    if out.next_cursor:
        lines.append(f"more: cursor={out.next_cursor}")
    return "\n".join(lines)


def _where(root: str | None, path: str) -> str:
    return f"{root}/{path}" if root else path


def _one_line(text: str, limit: int = REF_LINE_CHARS) -> str:
    line = next((ln.strip() for ln in text.split("\n") if ln.strip()), "")  # the index's lines
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _last_line(span: Any) -> int:
    """The 1-based last line of a definition's range (one ending at column 0 of a line ends
    on the line before)."""
    end = span.end_line - (1 if span.end_col == 0 and span.end_line > span.start_line else 0)
    return end + 1


def refs_out(hits: list[Any], root_of: Callable[[str], str | None]) -> list[RefFileOut]:
    """Usage hits (already grouped by file, `search.usage`) as files of refs."""
    files: list[RefFileOut] = []
    for hit in hits:
        root = root_of(hit.root)
        if not files or (files[-1].root, files[-1].path) != (root, hit.path):
            files.append(RefFileOut(root=root, path=hit.path, file_id=hit.file_id, refs=[]))
        ref = hit.ref or {}
        enclosing = None
        if hit.symbol_id is not None and hit.citation is not None:
            enclosing = Enclosing(symbol_id=hit.symbol_id, title=hit.title, kind=hit.kind,
                                  line=hit.citation.start_line + 1)
        files[-1].refs.append(RefOut(
            line=hit.span.start_line + 1, kind=str(ref.get("kind", "identifier")),
            receiver=ref.get("receiver") or None, text=_one_line(hit.snippet.text),
            chunk_id=hit.chunk_id, enclosing=enclosing))
    return files


def _render_refs(out: RefsOut) -> str:
    more = f" (of {out.total_matches})" if out.total_matches > out.returned else ""
    lines = [f"{out.returned} ref(s){more} of {out.name!r} in {len(out.files)} file(s)"]
    for file in out.files:
        lines.append(f"{_where(file.root, file.path)}")
        for ref in file.refs:
            who = (f"in {ref.enclosing.title} #{ref.enclosing.symbol_id}" if ref.enclosing
                   else f"top level #{ref.chunk_id}")
            lines.append(f"  :{ref.line} {ref.kind} {who}  {ref.text}")
    lines.extend(f"warning: {w}" for w in out.warnings)
    if out.next_cursor:
        lines.append(f"more: cursor={out.next_cursor}")
    return "\n".join(lines)


def symbol_out(info: Any, root: str | None) -> SymbolOut:
    sym = info.symbol
    counts = {kind: info.ref_counts.get(kind, 0) for kind in REF_KINDS}
    doc = sym.doc or None
    if doc is not None and len(doc) > MAX_DOC_CHARS:
        doc = doc[: MAX_DOC_CHARS - 1] + "…"

    def related(r: Any) -> RelatedOut:
        return RelatedOut(symbol_id=r.symbol_id, name=r.symbol.name, kind=str(r.symbol.kind),
                          line=r.symbol.range.start_line + 1)

    return SymbolOut(
        symbol_id=info.symbol_id, file_id=info.file_id, chunk_id=info.chunk_id, root=root,
        path=info.path, line=sym.range.start_line + 1, end_line=_last_line(sym.range),
        lang=info.lang, name=sym.name, qualified_name=sym.qualified_name, kind=str(sym.kind),
        container=sym.container, signature=sym.signature or None, doc=doc,
        parent=related(info.parent) if info.parent else None,
        children=[related(c) for c in info.children[:MAX_CHILDREN]],
        children_total=len(info.children),
        ref_counts={**counts, "total": sum(counts.values())})


def _render_symbol(out: SymbolOut) -> str:
    lines = [f"{out.qualified_name} ({out.kind}) {_where(out.root, out.path)}:{out.line}-"
             f"{out.end_line}  #{out.symbol_id}"]
    if out.signature:
        lines.append(f"signature: {out.signature}")
    if out.doc:
        lines.append("doc: " + out.doc.replace("\n", "\n  "))
    if out.parent:
        p = out.parent
        lines.append(f"in: {p.name} ({p.kind}) :{p.line}  #{p.symbol_id}")
    if out.children:
        lines.append("contains:")
        lines.extend(f"  {c.name} ({c.kind}) :{c.line}  #{c.symbol_id}" for c in out.children)
        if out.children_total > len(out.children):
            lines.append(f"  ... {out.children_total - len(out.children)} more")
    counts = out.ref_counts
    lines.append("refs of its name: " + ", ".join(f"{counts[k]} {k}" for k in REF_KINDS)
                 + f" ({counts['total']} in all; find_references lists them)")
    if out.chunk_id:
        lines.append(f"block: #{out.chunk_id} (get_surrounding_code)")
    return "\n".join(lines)


def context_out(ctx: Any, root: str | None) -> ContextOut:
    """The blocks, the asked-for one first in the budget: each at most MAX_READ_LINES lines,
    all together about MAX_READ_BYTES."""
    from indexing.chunking import MAX_LINE_CHARS
    from search.handles import chunk_handles

    budget = MAX_READ_BYTES

    def block(row: Any) -> BlockOut:
        nonlocal budget
        _, symbol_id = chunk_handles(row)
        sym = row.symbol
        lines = (row.text or "").split("\n")
        kept: list[str] = []
        # The index keeps at most MAX_LINE_CHARS of a line per chunk (a longer line is cut
        # into pieces, each its own chunk, one starting past column 0): such a block does
        # not hold its whole lines.
        cut = row.start_col > 0 or any(len(line) >= MAX_LINE_CHARS for line in lines)
        for line in lines[:MAX_READ_LINES]:
            size = len(line.encode()) + 1
            if size > budget:
                if not kept:  # the budget cuts the block's first line
                    kept.append(cut_to_bytes(line, budget))
                    budget = 0
                    cut = True
                break
            budget -= size
            kept.append(line)
        return BlockOut(
            chunk_id=row.chunk_id, symbol_id=symbol_id,
            title=sym.qualified_name if sym else (row.context or f"{row.path}:"
                                                                 f"{row.start_line + 1}"),
            kind=str(sym.kind) if sym else row.chunk_kind, line=row.start_line + 1,
            end_line=row.end_line + 1, text="\n".join(kept),
            truncated=cut or len(kept) < len(lines))

    target = block(ctx.target)
    before = [block(r) for r in ctx.before]
    after = [block(r) for r in ctx.after]
    file_id, _ = chunk_handles(ctx.target)
    return ContextOut(root=root, path=ctx.target.path, file_id=file_id, before=before,
                      block=target, after=after)


def _render_context(out: ContextOut) -> str:
    lines = [_where(out.root, out.path)]
    for mark, blocks in (("  ", out.before), (">>", [out.block]), ("  ", out.after)):
        for b in blocks:
            cut = " (truncated: read_file_lines for the rest)" if b.truncated else ""
            lines.append(f"{mark} :{b.line}-{b.end_line} {b.title} ({b.kind})  #{b.chunk_id}"
                         f"{cut}")
            lines.append(b.text)
    return "\n".join(lines)


def _hit_out(hit: Any, root: str | None, explain: bool = False) -> HitOut:
    snippet, snippet_line = _snippet(hit.snippet.text, hit.snippet.start_line + 1)
    return HitOut(handle=hit.chunk_id, symbol_id=hit.symbol_id, root=root, path=hit.path,
                  line=hit.span.start_line + 1, end_line=hit.chunk_lines[1] + 1,
                  title=hit.title, kind=hit.kind, snippet=snippet, snippet_line=snippet_line,
                  retrieval=(_retrieval(hit) if explain else None))


def _render_similar(out: SimilarOut) -> str:
    meta = out.meta
    lines = [f"{len(out.hits)} block(s) like the code [{meta.get('query_plan') or 'similar'}]"]
    for hit in out.hits:
        lines.append(f"{_where(hit.root, hit.path)}:{hit.line}-{hit.end_line}  {hit.title} "
                     f"({hit.kind})  #{hit.handle}"
                     + (f" #{hit.symbol_id}" if hit.symbol_id else ""))
        lines.extend(_snippet_lines(hit))
    lines.extend(f"warning: {w}" for w in meta.get("warnings", []))
    return "\n".join(lines)


def _checked_arg(name: str, spec: Spec, value: Any) -> Any:
    """One argument checked by `search.request`'s validator (the one `kebab/search` and the
    LSP lookups use), its message as the tool error."""
    try:
        return _checked(name, spec, value)
    except InvalidQuery as exc:
        raise ToolError(str(exc)) from exc


def _one_of(tool: str, args: dict[str, Any], *names: str) -> str:
    given = [n for n in names if args.get(n) is not None]
    if len(given) != 1:
        got = f"; got {' and '.join(given)}" if given else ""
        raise ToolError(f"{tool} needs exactly one of {' or '.join(names)}{got}")
    return given[0]


def _parsed(parse: Callable[[], T]) -> T:
    try:
        return parse()
    except InvalidQuery as exc:
        raise ToolError(str(exc)) from exc


# -- the tools -------------------------------------------------------------------------------

SEARCH_DOC = """Search the workspace's code and docs (an offline index: words, exact text,
definitions and meaning) and get a small ranked page of hits: path:line, title, kind, a
3-line snippet and handles (handle = the block's chunk_id; symbol_id = the definition it is
in). Then read just the lines you need with read_file_lines (path and line come from the
hit), or follow a handle: get_symbol_details, find_references, get_surrounding_code. Use it
instead of grep + reading whole files. Filters: lang, kind (definition kinds), path_glob.
meta says how the query was routed, whether the count is exact, whether recall is complete,
and any warning (e.g. vectors still building)."""

READ_DOC = f"""Read lines start_line..end_line (1-based, inclusive) of a file in the index.
path is relative to a root, exactly as codebase_search returns it; when there are several
roots, "root/path" (the hit's root, then its path) picks one, and a path found in more than one
root is refused as ambiguous. At most {MAX_READ_LINES} lines and {MAX_READ_BYTES} bytes per call
(truncated=true says more was asked). Absolute paths, '..', symlinks out of the roots and
files the index leaves out (ignored, excluded, secrets, binary) are refused."""

STATUS_DOC = """Per root: files, symbols and chunks indexed, the embedded share of the vectors
a complete sync holds (total: one per chunk, two more per definition, one per file),
whether an index build is running, the last update, which process writes the index (one does;
others read and take over if it exits) and the file watcher's state."""

BUILD_DOC = """Bring the index up to date now (incremental: only changed files), or rebuild
it (rebuild=true re-extracts every file). Reports progress notifications while it runs and
stops when the request is cancelled. Rarely needed: the writing process watches files and
indexes changes within about a second. Cancelling a rebuild leaves the index catching up
incrementally (a rebuild starts from an empty index)."""

REFS_DOC = f"""Where a name is used: its refs (calls, imports, bare mentions, strings), grouped
by file, each with its 1-based line, its line of code, and the definition it sits in (with that
definition's symbol_id). Give symbol_id (a definition's handle, from codebase_search or
get_symbol_details) or name ("parse_config"; of "Store.get" the last part is used). Refs come
from the syntax tree and are by name, not resolved types: two unrelated methods named `get`
share their refs. Files that call it come first, then files that import it, then mentions, then
strings; kinds narrows (call, import, identifier, string). total_matches counts every ref
exactly; a page holds {DEFAULT_REFS_K} refs unless k says otherwise, and cursor gets the next
one."""

SYMBOL_DOC = """A definition's details from its symbol_id (a hit's symbol_id, or one listed by
find_references or another get_symbol_details): path:line-end_line, signature, doc, the
definition containing it and the ones it contains (each with its symbol_id), and how often its
name is used, by kind. Its API without reading the file. A handle is valid while its file is
unchanged; a stale one is an error: search again."""

CONTEXT_DOC = f"""The code around a hit, block by block in line order: the block a chunk_id (a
hit's handle) or symbol_id (a definition's first block) names, with `before` blocks before it
and `after` blocks after it in the same file (default 1 each, at most {MAX_CONTEXT}). A block is
a definition, or the code between definitions. Each comes with its lines (1-based) and handles.
For an exact line range use read_file_lines instead. A stale handle (its file changed) is an
error: search again."""

SIMILAR_DOC = """Code like a piece of code, across the workspace: give path + start_line +
end_line (1-based, inclusive, a file in the index; that range itself is left out of the answer)
or text (a code fragment). Nearest blocks by meaning (the embedding vectors); where no vectors
exist yet (embeddings off, or still building), a lexical match over the code's identifier
parts, and meta.warnings says so. For duplicates, parallel implementations, other places doing
the same thing. Hits are shaped as codebase_search's."""

HELP_TEXT = """kebab: offline code search over this workspace. Search, then follow handles;
read only the lines you need. Paths are relative to a root, lines 1-based.
- codebase_search: start here. query = an identifier (finds its definition first), "quoted
  text" or a code fragment (exact text; a fragment no file holds is asked by its words,
  with a warning), or a question in plain words (hybrid: words + meaning). intent says
  what is asked (definition, concept, exact_text, usage: "who calls X", similar); mode
  forces the channels: lexical (words/exact), vector (meaning), hybrid.
  Narrow with lang, kind (function, class, method, ...), path_glob ("src/**/*.py").
  group=file gives one entry per file. Results are a small page; cursor gets the next one.
  explain=true says why each hit ranked. Each hit has handles: handle (its block's chunk_id)
  and symbol_id (the definition it is in).
- get_symbol_details {symbol_id}: a definition's signature, doc, container, members (with
  their symbol_ids) and ref counts, without reading the file.
- find_references {symbol_id | name}: where it is used, by file, each ref with the
  definition it sits in (a symbol_id to follow). By name, not by type.
- get_surrounding_code {chunk_id | symbol_id, before, after}: the blocks around a hit.
- find_similar_code {path, start_line, end_line | text}: code like this code elsewhere.
- read_file_lines {path, start_line, end_line}: the exact lines a hit points to (path,
  line..end_line), not whole files.
- get_status: is the index complete, embedded, current, who writes it.
- build_index: force an update or a rebuild (progress; cancellable). The index follows file
  changes by itself while a kebab process runs.
Handles stay valid while their file is unchanged; a stale one is an error saying so: search
again. A typical path: codebase_search -> get_symbol_details (API) or read_file_lines
(body) -> find_references (callers) -> get_surrounding_code / read_file_lines around a ref.
Which intent when: a name you know -> the name itself (auto); an error message or string ->
quote it (auto -> exact text); "where do we retry failed uploads" -> auto (hybrid); every
use of a name -> find_references (or "who calls X" in codebase_search); literal matches
only -> mode=lexical; meaning only -> mode=vector; code like a snippet -> find_similar_code."""


def register(server: MCPServer, service: Service, debug: bool = False) -> None:
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    async def codebase_search(ctx: Context, **args: Any) -> CallToolResult:
        await _ensure_roots(service, ctx)
        params = {"query": args["query"], "mode": args.get("mode"),
                  "intent": args.get("intent"), "k": args.get("k"),
                  "explain": args.get("explain"),
                  "filters": {n: args.get(n) for n in FILTERS if args.get(n) is not None}}
        try:
            req = parse_request(params, service.settings)
        except InvalidQuery as exc:
            raise ToolError(str(exc)) from exc
        page = args.get("k") or DEFAULT_K
        key_src = json.dumps({**params, "k": page, "group": args.get("group")}, sort_keys=True,
                             default=str)
        key = hashlib.blake2b(key_src.encode(), digest_size=6).hexdigest()
        offset = _offset(args.get("cursor"), key)
        if offset + page > MAX_K:
            raise ToolError(f"cannot page past {MAX_K} hits; narrow the search with lang, "
                            "kind or path_glob")
        by_file = args.get("group") == "file"
        want = offset + page  # hits, or with group=file, files
        for k in deeper(want * 3 if by_file else want):
            asked = dataclasses.replace(req, k=k, snippet_chars=SNIPPET_CHARS)
            result = await _run(functools.partial(service.search, asked))
            # Files are paged, not hits: read on until the answer holds one file more than
            # the pages so far, or runs out.
            if (not by_file or len({(h.root, h.path) for h in result.hits}) > want
                    or len(result.hits) < k):
                break
        from kebab_lsp.convert import meta_wire  # the one meta wire, shared with kebab/search

        multi = len(service.roots()) > 1
        entries: list[HitOut] = []
        by_path: dict[tuple[str, str], HitOut] = {}
        for hit in result.hits if by_file else result.hits[offset:]:
            root = service.root_name(hit.root) if multi else None
            if by_file and (hit.root, hit.path) in by_path:
                first = by_path[(hit.root, hit.path)]
                first.also = [*(first.also or []), Also(handle=hit.chunk_id,
                              line=hit.span.start_line + 1, title=hit.title, kind=hit.kind)]
                continue
            out = _hit_out(hit, root, req.explain)
            by_path[(hit.root, hit.path)] = out
            entries.append(out)
        if by_file:
            hits, more = entries[offset:want], len(entries) > want
        else:
            # A full page has a next one unless the count is exact and says it was the last:
            # a lower bound (vector and hybrid rankings) does not know where the hits end.
            hits = entries
            more = len(result.hits) >= want and (
                result.meta.count_accuracy != "exact" or result.meta.total_matches > want)
        answer = SearchOut(hits=hits, total_matches=result.meta.total_matches,
                           count_accuracy=result.meta.count_accuracy,
                           next_cursor=_cursor(key, want) if more else None,
                           meta=meta_wire(result.meta))
        return _answer(answer, _render_search(answer, args["query"]))

    codebase_search.__signature__ = _search_signature(  # type: ignore[attr-defined]
        service.settings.default_mode)
    codebase_search.__annotations__ = {"ctx": Context}
    server.add_tool(codebase_search, description=SEARCH_DOC, annotations=read_only)

    @server.tool(description=READ_DOC, annotations=read_only)
    async def read_file_lines(
        ctx: Context,
        path: Annotated[str, Field(description="relative to a root, as codebase_search "
                                               "returns it")],
        start_line: Annotated[int, Field(ge=1, description="first line, 1-based")] = 1,
        end_line: Annotated[int | None, Field(ge=1, description="last line, inclusive; "
                                                                "default: start_line + 399")]
        = None,
    ) -> Annotated[CallToolResult, LinesOut]:
        await _ensure_roots(service, ctx)
        got = await _run(lambda stop: service.read_lines(path, start_line, end_line))
        out = LinesOut(**dataclasses.asdict(got))
        if got.line_cut:
            more = (f" (truncated: line {got.end_line} is longer than {MAX_READ_BYTES} bytes "
                    "and is cut there)")
        elif got.truncated:
            more = f" (truncated; continue at start_line={got.end_line + 1})"
        else:
            more = ""
        where = _where(got.root if len(service.roots()) > 1 else None, got.path)
        head = f"{where}:{got.start_line}-{got.end_line} of {got.total_lines}{more}"
        return _answer(out, f"{head}\n{got.text}")

    @server.tool(description=STATUS_DOC, annotations=read_only)
    async def get_status(ctx: Context) -> Annotated[CallToolResult, StatusOut]:
        await _ensure_roots(service, ctx)
        roots = await _run(lambda stop: service.status())
        lines = []
        for r in roots:
            vec = r["vectors"]
            if not vec["enabled"]:
                share = f"no vectors ({vec['reason']})"
            elif vec.get("share") is not None:
                share = f"{vec['share']:.0%} embedded"
            else:
                share = "vectors " + ("current" if vec["current"] else "behind") + \
                    " (counted by the writing process)"
            who = "this process" if r["writer"]["this_process"] else f"pid {r['writer']['pid']}"
            lines.append(f"{r['root']}: {r['files']} files, {r['symbols']} symbols, "
                         f"{r['chunks']} chunks, {share}; building={r['building']}; last "
                         f"update {r['last_update']}; writer {who}; watcher {r['watcher']}"
                         + (f"; error: {r['error']}" if r["error"] else ""))
            if r["incomplete"]:
                lines.append(f"warning: {r['root']}: {r['incomplete']}")
        lines.extend(f"warning: {w}" for w in service.warnings)
        return _answer(StatusOut(roots=roots, warnings=list(service.warnings)),
                       "\n".join(lines))

    @server.tool(description=BUILD_DOC, annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True,
        open_world_hint=False))
    async def build_index(
        ctx: Context,
        rebuild: Annotated[bool, Field(description="re-extract every file instead of only "
                                                   "the changed ones")] = False,
        root: Annotated[str | None, Field(description="the root's name; default: all")] = None,
    ) -> Annotated[CallToolResult, BuildOut]:
        await _ensure_roots(service, ctx)
        roots = await _run(lambda stop: service.start_build([root] if root else None, rebuild))
        try:
            last: tuple[int, int] | None = None
            while any(r.folder.building for r in roots):
                done = sum((r.folder.progress or (0, 0))[0] for r in roots)
                total = sum((r.folder.progress or (0, 0))[1] for r in roots)
                if total and (done, total) != last:
                    last = (done, total)
                    await ctx.report_progress(done, total, f"indexed {done} of {total} files")
                await anyio.sleep(0.1)
        except anyio.get_cancelled_exc_class():
            for r in roots:
                r.cancel_scan(rebuild)
            raise
        out = []
        for r in roots:
            stats = r.folder.index.store.stats()
            scan = r.folder.last_scan
            out.append({"root": r.name, "files": stats.files, "symbols": stats.symbols,
                        "chunks": stats.chunks, "scan": scan.as_json() if scan else None,
                        "error": r.folder.last_error})
        text = "\n".join(
            f"{o['root']}: {o['files']} files, {o['symbols']} symbols, {o['chunks']} chunks"
            + (f"; {r.folder.last_scan.describe()}" if r.folder.last_scan else "")
            for o, r in zip(out, roots, strict=True))
        return _answer(BuildOut(roots=out), text)

    def root_of(root: str) -> str | None:
        """A root's name in answers, when there are several roots (else paths suffice)."""
        return service.root_name(root) if len(service.roots()) > 1 else None

    @server.tool(description=REFS_DOC, annotations=read_only)
    async def find_references(
        ctx: Context,
        symbol_id: SymbolArg = None,
        name: Annotated[str | None, Field(description="the name whose refs to list")] = None,
        kinds: KindsArg = None,
        k: RefsKArg = None,
        cursor: CursorArg = None,
    ) -> Annotated[CallToolResult, RefsOut]:
        await _ensure_roots(service, ctx)
        which = _one_of("find_references", {"symbol_id": symbol_id, "name": name},
                        "symbol_id", "name")
        params = {which: symbol_id if which == "symbol_id" else name, "kinds": kinds, "k": k}
        req = _parsed(lambda: parse_references(params, service.settings))
        page = k or DEFAULT_REFS_K
        key = hashlib.blake2b(json.dumps({**params, "k": page}, sort_keys=True,
                                         default=str).encode(), digest_size=6).hexdigest()
        offset = _offset(cursor, key)
        if offset + page > MAX_K:
            raise ToolError(f"cannot page past {MAX_K} refs; narrow with kinds")
        req = dataclasses.replace(req, k=offset + page)
        target, result = await _run(lambda stop: service.references(req, stop))
        hits = result.hits[offset:]
        total = result.meta.total_matches
        out = RefsOut(name=target, files=refs_out(hits, root_of), returned=len(hits),
                      total_matches=total,
                      next_cursor=_cursor(key, offset + page) if total > offset + page else None,
                      warnings=list(result.meta.warnings))
        return _answer(out, _render_refs(out))

    @server.tool(description=SYMBOL_DOC, annotations=read_only)
    async def get_symbol_details(
        ctx: Context,
        symbol_id: Annotated[str, Field(description="a definition's handle (symbol_id), like "
                                                    "'S12.3.0123456789'")],
    ) -> Annotated[CallToolResult, SymbolOut]:
        await _ensure_roots(service, ctx)
        handle = _parsed(lambda: parse_symbol({"symbol_id": symbol_id}))
        info = await _run(lambda stop: service.describe_symbol(handle, stop))
        out = symbol_out(info, root_of(info.root))
        return _answer(out, _render_symbol(out))

    @server.tool(description=CONTEXT_DOC, annotations=read_only)
    async def get_surrounding_code(
        ctx: Context,
        chunk_id: ChunkArg = None,
        symbol_id: SymbolArg = None,
        before: BeforeArg = None,
        after: AfterArg = None,
    ) -> Annotated[CallToolResult, ContextOut]:
        await _ensure_roots(service, ctx)
        which = _one_of("get_surrounding_code", {"chunk_id": chunk_id, "symbol_id": symbol_id},
                        "chunk_id", "symbol_id")
        params = {which: chunk_id if which == "chunk_id" else symbol_id, "before": before,
                  "after": after}
        req = _parsed(lambda: parse_context(params))
        found = await _run(lambda stop: service.context(req, stop))
        out = context_out(found, root_of(found.root))
        return _answer(out, _render_context(out))

    @server.tool(description=SIMILAR_DOC, annotations=read_only)
    async def find_similar_code(
        ctx: Context,
        path: Annotated[str | None, Field(description="a file relative to a root, as "
                                                      "codebase_search returns it")] = None,
        start_line: Annotated[int | None, Field(ge=1, description="with path: the first line, "
                                                                  "1-based")] = None,
        end_line: Annotated[int | None, Field(ge=1, description="with path: the last line, "
                                                                "inclusive")] = None,
        text: Annotated[str | None, Field(description="a code fragment (instead of path)")]
        = None,
        k: SimilarKArg = None,
    ) -> Annotated[CallToolResult, SimilarOut]:
        await _ensure_roots(service, ctx)
        which = _one_of("find_similar_code", {"path": path, "text": text}, "path", "text")
        if which == "path" and (start_line is None or end_line is None):
            raise ToolError("find_similar_code with path needs start_line and end_line (the "
                            "code's lines, 1-based, inclusive)")
        if which == "text":
            if start_line is not None or end_line is not None:
                raise ToolError("start_line and end_line go with path, not with text")
            assert text is not None
            _parsed(lambda: check_text(text, MAX_QUERY_CHARS, "text"))
            if not text.strip():
                raise ToolError("find_similar_code needs some code: text is blank")
        count = DEFAULT_K if k is None else _checked_arg("k", SIMILAR["k"], k)
        result = await _run(lambda stop: service.similar(text, path, start_line, end_line,
                                                         count, stop))
        from kebab_lsp.convert import meta_wire

        out = SimilarOut(hits=[_hit_out(h, root_of(h.root)) for h in result.hits],
                         meta=meta_wire(result.meta))
        return _answer(out, _render_similar(out))

    @server.tool(name="help", description="How the kebab tools fit together, and which "
                 "intent to use when. Call it once if unsure.", annotations=read_only)
    async def help_tool() -> Annotated[CallToolResult, HelpOut]:
        return _answer(HelpOut(text=HELP_TEXT), HELP_TEXT)

    if debug:
        @server.tool(description="Debugging (KEBAB_MCP_DEBUG=1): this process's pid, which "
                     "heavy modules it has loaded, and which roots it writes.")
        async def debug_state() -> dict[str, Any]:
            return {"pid": os.getpid(),
                    "loaded": sorted(m for m in HEAVY_MODULES if m in sys.modules),
                    "writing": ({r.name: r.writing for r in service.roots()}
                                if service.opened else {})}


def _retrieval(hit: Any) -> dict[str, Any]:
    from kebab_lsp.convert import retrieval_wire

    return {k: v for k, v in retrieval_wire(hit.retrieval).items() if v not in (None, [])}

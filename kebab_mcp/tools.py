"""The MCP tools: one short async function per tool, each translating between MCP arguments
and `kebab_mcp.service`, and answering twice: `structuredContent` (checked against the tool's
output schema) and a compact text rendering for agents that read text.

`codebase_search`'s arguments are not declared here: its signature is generated from
`search.request`'s parameter table (the same one `kebab/search` and `kebab search` use), so a
change there reaches all three. A later tool (find_references, get_symbol_details,
get_surrounding_code, find_similar_code) is one more function like `read_file_lines`: call
the search layer in `_run`, return `_answer(model, text)`, add it to `register`.
"""

from __future__ import annotations

import base64
import dataclasses
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
from pydantic import BaseModel, Field, WithJsonSchema

from indexing.settings import MAX_K, Spec
from kebab_mcp.service import MAX_READ_BYTES, MAX_READ_LINES, Service, ToolFailure
from search.request import FILTERS, PARAMS, parse_request
from search.types import InvalidQuery, SearchUnavailable

T = TypeVar("T")
#: Hits per page unless `k` says otherwise: agents pay for every token they read.
DEFAULT_K = 8
SNIPPET_CHARS = 160
SNIPPET_LINES = 3
#: The modules a thin start must not have loaded before a tool needs them.
HEAVY_MODULES = ("lancedb", "pyarrow", "onnxruntime", "tokenizers", "tree_sitter",
                 "tree_sitter_python", "indexing.runtime", "indexing.embed")

# -- output schemas ------------------------------------------------------------------------------


class Also(BaseModel):
    handle: str
    line: int
    title: str
    kind: str


class HitOut(BaseModel):
    handle: str = Field(description="stable id of the chunk (for later tools)")
    root: str | None = Field(default=None, description="the root's name, when there are several")
    path: str = Field(description="relative to its root; give it to read_file_lines")
    line: int = Field(description="1-based line of the match")
    end_line: int = Field(description="1-based last line of the enclosing chunk")
    title: str
    kind: str
    snippet: str
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
    truncated: bool = Field(description="true when the caps cut the range short")
    text: str


class StatusOut(BaseModel):
    roots: list[dict[str, Any]]


class BuildOut(BaseModel):
    roots: list[dict[str, Any]]


class HelpOut(BaseModel):
    text: str


def _answer(model: BaseModel, text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=model.model_dump(mode="json", exclude_none=True))


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
    default = spec.default_doc if default_doc is None else default_doc
    doc = spec.doc + (f" Default: {default}." if default else "") + extra
    return Annotated[Any, WithJsonSchema(spec_schema(spec)), Field(description=doc)]


_INTENT_DOC = (
    " definition = where a name is defined; concept = code about an idea; exact_text = a "
    "literal string; usage = where a name is used (calls, imports, mentions); similar = code "
    "like the query's code.")
_MODE_DOC = (
    " auto routes by the intent; lexical = words and exact text only; vector = meaning only; "
    "hybrid = both fused. An explicit choice is obeyed or fails with an error, never silently "
    "answered another way.")


def _search_signature() -> inspect.Signature:
    """(query, intent, mode, k, lang, kind, path_glob, group, explain, cursor): `intent` and
    `mode` are `kebab/search`'s, the filters are its `filters`."""
    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter("ctx", kw, annotation=Context),
        inspect.Parameter("query", kw, annotation=Annotated[str, Field(
            description=PARAMS["query"].doc + " An identifier (`parse_config`, `Store.get`), "
            "\"quoted text\", a code fragment, or a question in plain words.")]),
        inspect.Parameter("intent", kw, default=None,
                          annotation=_field(PARAMS["intent"], _INTENT_DOC)),
        inspect.Parameter("mode", kw, default=None,
                          annotation=_field(PARAMS["mode"], _MODE_DOC, "auto")),
        inspect.Parameter("k", kw, default=None, annotation=_field(
            PARAMS["k"], " Hits per page; cursor gets the next page.", str(DEFAULT_K))),
        *[inspect.Parameter(name, kw, default=None, annotation=_field(spec))
          for name, spec in FILTERS.items()],
        inspect.Parameter("group", kw, default="none", annotation=Annotated[
            Literal["none", "file"],
            Field(description="file: one entry per file (its best hit), the file's other hits "
                              "listed as lines under `also`.")]),
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


def _snippet(text: str) -> str:
    """The first lines of a hit's snippet. Its first line starts at the match's column, the
    others keep the file's indentation: they are dedented to sit two spaces under it."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()][:SNIPPET_LINES]
    rest = lines[1:]
    indent = min((len(ln) - len(ln.lstrip()) for ln in rest), default=0)
    out = "\n".join([*lines[:1], *("  " + ln[indent:] for ln in rest)])
    return out if len(out) <= SNIPPET_CHARS else out[: SNIPPET_CHARS - 1] + "…"


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
                     f"#{hit.handle}")
        lines.extend("    " + ln for ln in hit.snippet.splitlines())
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


# -- the tools -------------------------------------------------------------------------------

SEARCH_DOC = """Search the workspace's code and docs (an offline index: words, exact text,
definitions and meaning) and get a small ranked page of hits: path:line, title, kind, a
3-line snippet and a handle. Then read just the lines you need with read_file_lines (path and
line come from the hit). Use it instead of grep + reading whole files. Filters: lang, kind
(definition kinds), path_glob. meta says how the query was routed, whether the count is exact,
whether recall is complete, and any warning (e.g. vectors still building)."""

READ_DOC = f"""Read lines start_line..end_line (1-based, inclusive) of a file in the index.
path is relative to a root, exactly as codebase_search returns it ("root/path" picks a root
when there are several). At most {MAX_READ_LINES} lines and {MAX_READ_BYTES} bytes per call
(truncated=true says more was asked). Absolute paths, '..', symlinks out of the roots and
files the index leaves out (ignored, excluded, secrets, binary) are refused."""

STATUS_DOC = """Per root: files, symbols and chunks indexed, the embedded share of chunks,
whether an index build is running, the last update, which process writes the index (one does;
others read and take over if it exits) and the file watcher's state."""

BUILD_DOC = """Bring the index up to date now (incremental: only changed files), or rebuild
it (rebuild=true re-extracts every file). Reports progress notifications while it runs and
stops when the request is cancelled. Rarely needed: the writing process watches files and
indexes changes within about a second. Cancelling a rebuild leaves the index catching up
incrementally (a rebuild starts from an empty index)."""

HELP_TEXT = """kebab: offline code search over this workspace.
- codebase_search: start here. query = an identifier (finds its definition first), "quoted
  text" or a code fragment (exact text), or a question in plain words (hybrid: words +
  meaning). intent says what is asked (definition, concept, exact_text, usage: "who calls
  X", similar); mode forces the channels: lexical (words/exact), vector (meaning), hybrid.
  Narrow with lang, kind (function, class, method, ...), path_glob ("src/**/*.py").
  group=file gives one entry per file. Results are a small page; cursor gets the next one.
  explain=true says why each hit ranked.
- read_file_lines: read the lines a hit points to (path, line..end_line), not whole files.
- get_status: is the index complete, embedded, current, who writes it.
- build_index: force an update or a rebuild (progress; cancellable). The index follows file
  changes by itself while a kebab process runs.
Which intent when: a name you know -> the name itself (auto); an error message or string ->
quote it (auto -> exact text); "where do we retry failed uploads" -> auto (hybrid); only
who uses a name -> "who calls X" or intent=usage; literal matches only -> mode=lexical;
meaning only -> mode=vector."""


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
        req = dataclasses.replace(req, k=offset + page)
        req = dataclasses.replace(req, snippet_chars=SNIPPET_CHARS)
        result = await _run(lambda stop: service.search(req, stop))
        from kebab_lsp.convert import meta_wire  # the one meta wire, shared with kebab/search

        multi = len(service.roots()) > 1
        hits: list[HitOut] = []
        by_path: dict[tuple[str, str], HitOut] = {}
        for hit in result.hits[offset:]:
            root = Path(hit.root).name if multi else None
            if args.get("group") == "file" and (hit.root, hit.path) in by_path:
                first = by_path[(hit.root, hit.path)]
                first.also = [*(first.also or []), Also(handle=hit.chunk_id,
                              line=hit.span.start_line + 1, title=hit.title, kind=hit.kind)]
                continue
            out = HitOut(handle=hit.chunk_id, root=root, path=hit.path,
                         line=hit.span.start_line + 1, end_line=hit.chunk_lines[1] + 1,
                         title=hit.title, kind=hit.kind, snippet=_snippet(hit.snippet.text),
                         retrieval=(_retrieval(hit) if req.explain else None))
            by_path[(hit.root, hit.path)] = out
            hits.append(out)
        more = len(result.hits) >= offset + page and result.meta.total_matches > offset + page
        answer = SearchOut(hits=hits, total_matches=result.meta.total_matches,
                           count_accuracy=result.meta.count_accuracy,
                           next_cursor=_cursor(key, offset + page) if more else None,
                           meta=meta_wire(result.meta))
        return _answer(answer, _render_search(answer, args["query"]))

    codebase_search.__signature__ = _search_signature()  # type: ignore[attr-defined]
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
        more = (f" (truncated; continue at start_line={got.end_line + 1})"
                if got.truncated else "")
        head = f"{got.path}:{got.start_line}-{got.end_line} of {got.total_lines}{more}"
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
        return _answer(StatusOut(roots=roots), "\n".join(lines))

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

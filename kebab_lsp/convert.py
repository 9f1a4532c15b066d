"""The one place where stored spans become LSP `Location`s, and results become the wire objects
that `kebab/search`, `kebab/status`, `workspace/symbol` and `kebab search --json` emit.

Spans are stored in LSP coordinates already (0-based, UTF-16 columns), so conversion is only
about URIs and shape; keeping it in one module means a client sees the same citation whether
it asked over LSP or the command line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexing.positions import utf16_len
from indexing.records import RefKind, Span
from indexing.schema import SCHEMA_VERSION
from indexing.store import ChunkRow, Stats, StoreClosed, StoreCorrupt, StoreUnwritable
from search.context import Context
from search.describe import Related, SymbolInfo
from search.grouping import FileGroup, Grouped
from search.handles import chunk_handles
from search.hits import chunk_span
from search.types import Hit, Meta, Retrieval, SearchResult

if TYPE_CHECKING:  # lsprotocol.types costs about 0.6 s of CPU to import; the CLI never needs it
    from lsprotocol import types as lsp

    from indexing.indexer import IndexSummary
    from indexing.runtime import Folder, Unopened
    from kebab_lsp.session import WriterStatus
    from search.merge import FolderMatch

WIRE_VERSION = 1


@lru_cache(maxsize=8192)
def path_uri(root: str | Path, rel_path: str) -> str:
    """Cached: answers cite the same files again and again, and a URI made through `Path`
    costs about 10 µs, a millisecond for the hundred symbols of one `workspace/symbol`."""
    return (Path(root) / rel_path).as_uri()


def span_range(span: Span) -> dict[str, Any]:
    return {
        "start": {"line": span.start_line, "character": span.start_col},
        "end": {"line": span.end_line, "character": span.end_col},
    }


def location(root: str | Path, rel_path: str, span: Span) -> dict[str, Any]:
    return {"uri": path_uri(root, rel_path), "range": span_range(span)}


def lsp_location(root: str | Path, rel_path: str, span: Span) -> lsp.Location:
    """The same citation as `location`, typed for handlers that return lsprotocol objects."""
    from lsprotocol import types as lsp

    return lsp.Location(
        uri=path_uri(root, rel_path),
        range=lsp.Range(
            start=lsp.Position(line=span.start_line, character=span.start_col),
            end=lsp.Position(line=span.end_line, character=span.end_col),
        ),
    )


def retrieval_wire(r: Retrieval) -> dict[str, Any]:
    return {
        "method": r.method,
        "lexical_score": r.lexical_score,
        "lexical_rank": r.lexical_rank,
        "lexical_weight": r.lexical_weight,
        "vector_score": r.vector_score,
        "vector_rank": r.vector_rank,
        "vector_surface": r.vector_surface,
        "fusion_score": r.fusion_score,
        "exact": r.exact,
        "priors": [{"name": p.name, "factor": p.factor} for p in r.priors],
    }


def highlights_wire(text: str, spans: Iterable[tuple[int, int]]) -> list[dict[str, int]]:
    """A snippet's highlights as the wire counts them: [start, end) in UTF-16 code units of
    `text`, the unit of every LSP position and of a JSON client's string indexes (the search
    code counts code points, which differ after an astral character such as an emoji)."""
    if text.isascii():
        return [{"start": a, "end": b} for a, b in spans]
    return [{"start": utf16_len(text[:a]), "end": utf16_len(text[:b])} for a, b in spans]


def hit_wire(hit: Hit, explain: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": hit.chunk_id,
        "chunk_id": hit.chunk_id,
        "symbol_id": hit.symbol_id,
        "file_id": hit.file_id,
        "path": hit.path,
        "location": location(hit.root, hit.path, hit.citation or hit.span),
        "selection": span_range(hit.selection or hit.span),
        "lines": {"start": hit.chunk_lines[0], "end": hit.chunk_lines[1]},
        "title": hit.title,
        "kind": hit.kind,
        "symbol": hit.symbol,
        "container": hit.container,
        "lang": hit.lang,
        "snippet": {
            "text": hit.snippet.text,
            "line": hit.snippet.start_line,
            "highlights": highlights_wire(hit.snippet.text, hit.snippet.highlights),
        },
        "score": hit.score,
    }
    if hit.ref is not None:
        out["ref"] = dict(hit.ref)
    if explain:
        out["retrieval"] = retrieval_wire(hit.retrieval)
    return out


def meta_wire(meta: Meta, include_timing: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {
        "version": WIRE_VERSION,
        "mode": meta.mode,
        "intent": meta.intent,
        "total_matches": meta.total_matches,
        "count_accuracy": meta.count_accuracy,
        "recall": dict(meta.recall),
        "score": dict(meta.score),
        "index": dict(meta.index),
        "query_plan": meta.query_plan,
        "warnings": list(meta.warnings),
    }
    if include_timing:
        out["timing"] = dict(meta.timing)
    return out


def result_wire(result: SearchResult, explain: bool, include_timing: bool = True) -> dict[str, Any]:
    return {
        "hits": [hit_wire(h, explain) for h in result.hits],
        "meta": meta_wire(result.meta, include_timing),
    }


# -- kebab/status -------------------------------------------------------------------------------


def _percent(progress: tuple[int, int] | None) -> dict[str, int] | None:
    """Progress of a run under way. No total yet (0 of 0: the files are still being found)
    is 0%, not 100%: a status bar said "indexing 100%" for seconds, then 0%."""
    if progress is None:
        return None
    done, total = progress
    return {"done": done, "total": total,
            "percentage": done * 100 // total if total else 0}


def _vectors_wire(folder: Folder, chunks: int) -> dict[str, Any]:
    vindex = folder.index.vector_index()
    if vindex is None:
        return {"enabled": False, "reason": folder.index.vector_error}
    have, total = vindex.coverage(chunks)
    return {"enabled": True, "embedded": have, "total": total,
            "progress": _percent(folder.embedding)}


def folder_status_wire(folder: Folder, writer: WriterStatus) -> dict[str, Any]:
    """What a status bar shows for one folder; reads counters only (no scans). `warnings`
    says what is wrong with the index right now (damaged and being rebuilt, or not writable,
    or this server's watcher stopped), in words for the user; an index that cannot even be
    counted shows as empty with them."""
    store = folder.index.store
    failure = None
    try:
        counted = store.stats()
        vectors = _vectors_wire(folder, counted.chunks)
        stats: Stats | None = counted
    except (StoreCorrupt, StoreClosed, StoreUnwritable) as exc:
        stats, failure = None, str(exc)
        vectors = {"enabled": False, "reason": "the index cannot be read"}
    wire = {
        "uri": folder.uri,
        "root": str(folder.cited_root),  # where its answers cite files
        "index_dir": str(folder.index.index_dir),
        "files": stats.files if stats else 0,
        "symbols": stats.symbols if stats else 0,
        "chunks": stats.chunks if stats else 0,
        "schema_version": SCHEMA_VERSION,
        "lexical_version": stats.lexical_version if stats else 0,
        "last_update": stats.last_update if stats else None,
        # Another process's scan too: a reader's answers say building meanwhile.
        "building": folder.building_anywhere,
        "progress": _percent(folder.progress),
        "vectors": vectors,
        "skipped": _skipped_wire(folder.last_scan),
        "partial": _partial_wire(folder),
        "writer": {"this_process": writer.this_process, "pid": writer.pid,
                   "changes": writer.changes},
        "error": folder.last_error,
    }
    # Why answers lack files for good (a team checkout's part, or an index another process
    # writes with other settings): answers say it, and so must the status bar.
    problems = [*store.problems(), failure, writer.warning, folder.incomplete]
    wire["warnings"] = list(dict.fromkeys(p for p in problems if p is not None))
    return wire


def unopened_wire(folder: Unopened) -> dict[str, Any]:
    """A workspace folder with no index here, and why: a status bar must not look healthy
    (or say no folder is open) while one of the user's folders is not searched at all."""
    return {"uri": folder.uri, "name": folder.name,
            "root": str(folder.root) if folder.root else None, "reason": folder.reason}


def _partial_wire(folder: Folder) -> dict[str, Any] | None:
    """A team checkout's index holds only the files that differ from the team index (`files`
    counts those): which team index answers for the rest, and for how many files at the last
    complete scan. None for an index that holds every file."""
    team = folder.index.partial_of
    if team is None:
        return None
    scan = folder.last_scan
    return {"team": team, "answered_by_team": scan.same_as_team if scan else None}


def _skipped_wire(scan: IndexSummary | None) -> dict[str, Any] | None:
    """What the last complete scan left out, by reason; None before one has finished."""
    return scan.skips_json() if scan is not None else None


# -- workspace/symbol ---------------------------------------------------------------------------

_QUALIFIED = re.compile(r"\S(::|\.)\S*$")


@cache
def lsp_kind(kind: str) -> lsp.SymbolKind:
    """Stored kinds are LSP's names in snake_case, so the mapping is by name."""
    from lsprotocol import types as lsp

    member = "".join(part.capitalize() for part in kind.split("_"))
    return lsp.SymbolKind.__members__.get(member, lsp.SymbolKind.Variable)


def workspace_symbol(m: FolderMatch, query: str) -> lsp.WorkspaceSymbol:
    """VS Code fuzzy-matches the typed query against `name` and drops what does not match. For a
    container-qualified query (`Class.method`, `Class::method`) `name` is therefore returned
    qualified with the query's own separator, so the best answers survive that filter;
    `containerName` still carries the container. `location.range` is the symbol's full range
    (the spec says it "usually spans more than the actual symbol's name")."""
    from lsprotocol import types as lsp

    sym = m.match.row.symbol
    found = _QUALIFIED.search(query.strip())
    name = f"{sym.container}{found.group(1)}{sym.name}" if found and sym.container else sym.name
    return lsp.WorkspaceSymbol(
        name=name,
        kind=lsp_kind(str(sym.kind)),
        location=lsp_location(m.root, m.match.row.path, sym.range),
        container_name=sym.container,
    )


# -- kebab/symbol and kebab/context -------------------------------------------------------------


def _related_wire(root: str, path: str, related: Related) -> dict[str, Any]:
    sym = related.symbol
    return {"symbol_id": related.symbol_id, "name": sym.name, "kind": str(sym.kind),
            "location": location(root, path, sym.range), "selection": span_range(sym.selection)}


def symbol_wire(info: SymbolInfo) -> dict[str, Any]:
    sym = info.symbol
    counts = {kind.value: info.ref_counts.get(kind.value, 0) for kind in RefKind}
    return {
        "symbol_id": info.symbol_id,
        "file_id": info.file_id,
        "chunk_id": info.chunk_id,
        "path": info.path,
        "lang": info.lang,
        "name": sym.name,
        "qualified_name": sym.qualified_name,
        "kind": str(sym.kind),
        "container": sym.container,
        "location": location(info.root, info.path, sym.range),
        "selection": span_range(sym.selection),
        "signature": sym.signature,
        "doc": sym.doc,
        "parent": _related_wire(info.root, info.path, info.parent) if info.parent else None,
        "children": [_related_wire(info.root, info.path, c) for c in info.children],
        "ref_counts": {"by_kind": [{"kind": k, "count": n} for k, n in counts.items()],
                       "total": sum(counts.values())},
    }


def block_wire(root: str, row: ChunkRow) -> dict[str, Any]:
    file_id, symbol_id = chunk_handles(row)
    span = chunk_span(row)
    sym = row.symbol
    return {
        "chunk_id": row.chunk_id,
        "symbol_id": symbol_id,
        "file_id": file_id,
        "path": row.path,
        "location": location(root, row.path, span),
        "lines": {"start": row.start_line, "end": row.end_line},
        "kind": str(sym.kind) if sym else row.chunk_kind,
        "title": sym.qualified_name if sym else (row.context or f"{row.path}:{row.start_line + 1}"),
        "text": row.text,
    }


def context_wire(ctx: Context) -> dict[str, Any]:
    return {
        "before": [block_wire(ctx.root, c) for c in ctx.before],
        "block": block_wire(ctx.root, ctx.target),
        "after": [block_wire(ctx.root, c) for c in ctx.after],
    }


# -- grouped kebab/search answers ---------------------------------------------------------------


def file_group_wire(row: FileGroup) -> dict[str, Any]:
    return {
        "file_id": row.file_id,
        "path": row.path,
        "uri": path_uri(row.root, row.path),
        "lang": row.lang,
        "doc": row.doc,
        "imports": list(row.imports),
        "defines": [{"symbol_id": handle, "name": sym.name, "kind": str(sym.kind),
                     "selection": span_range(sym.selection)} for handle, sym in row.defines],
        "hits": row.hits,
        "score": row.score,
        "found_by": {"hit_rank": row.hit_rank, "file_vector_rank": row.vector_rank,
                     "file_vector_score": row.vector_score, "fusion_score": row.fusion_score},
    }


def grouped_wire(grouped: Grouped, meta: Meta, explain: bool,
                 include_timing: bool = True) -> dict[str, Any]:
    return {
        "definitions": [hit_wire(h, explain) for h in grouped.definitions],
        "files": [file_group_wire(f) for f in grouped.files],
        "blocks": [hit_wire(h, explain) for h in grouped.blocks],
        "meta": meta_wire(meta, include_timing),
    }

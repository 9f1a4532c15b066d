"""The lookups by handle, name or place over a workspace of several folders: the refs of a
name, a definition's details, the blocks around a hit, code like a range. `kebab/references`,
`kebab/symbol`, `kebab/context`, `kebab/similar` (the LSP session) and the MCP tools built on
them (the MCP service) both call these; nothing here knows a protocol type.

A workspace is a sequence of `Indexed` folders, in merge order. A handle names one folder's
entity: each lookup tries the folders in turn, and says the handle is stale when none holds
it. Two indexes may split one folder (a team index and the checkout's local index,
`search.overlay`): each then answers only for the paths its `scope` lets through, so a handle,
a place or a ref in a file changed here is never answered from the team's stale copy, and
since the two scopes are disjoint a handle resolves in one index at most.

Every lookup reads a store inside `reading()`, one read transaction, so a save committed
meanwhile is seen whole or not at all: a handle that resolved is described from the file it
was issued for, never from half of its replacement.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

from indexing.filters import Filters
from indexing.records import Span
from indexing.store import ChunkRow, LookupStore
from search import handles
from search.context import Context, around
from search.describe import SymbolInfo, describe
from search.engine import Searcher, check_stop, stoppable_read
from search.lookups import ContextRequest, ReferencesRequest, SimilarRequest
from search.merge import merge_results
from search.similar import similar as similar_in
from search.types import InvalidQuery, SearchResult
from search.usage import usage_name

ShouldStop = Callable[[], bool]


@dataclass(frozen=True, slots=True)
class Indexed:
    """One folder of a workspace as the lookups see it: its root, its index, the searcher
    over that index, and the paths of the folder it answers for (`scope`'s path sets; all
    of them unless another index answers for the rest)."""

    root: Path
    store: LookupStore
    searcher: Searcher
    scope: Filters = Filters()

    def relative(self, path: Path) -> str | None:
        """`path` (resolved) relative to this folder's root, or None when it lies outside.
        The root is resolved here too: it is the path the client opened (hits cite it), which
        may lead through a symlink."""
        root = self.root.resolve()
        if path == root or root in path.parents:
            return path.relative_to(root).as_posix()
        return None

    def answers_for(self, rel: str) -> bool:
        return self.scope.lets_through(rel)


Workspace = Sequence[Indexed]


def fs_path(uri: str) -> Path:
    """A file: URI as a path (what `search.lookups` checked it is)."""
    return Path(url2pathname(urlparse(uri).path))


def place(folders: Workspace, path: Path) -> tuple[Indexed, str]:
    """The folder (the index) answering for `path`, and the path relative to its root."""
    resolved = path.resolve()
    inside = False
    for folder in folders:
        rel = folder.relative(resolved)
        if rel is not None and folder.answers_for(rel):
            return folder, rel
        inside = inside or rel is not None
    if inside:  # split between a team index and the local one, and answered by neither
        raise InvalidQuery(f"{path} was deleted here: the team index's copy is stale and the "
                           "local index does not hold it")
    raise InvalidQuery(f"{path} is not in an open workspace folder")


def store_of(folders: Workspace, root: str, path: str) -> LookupStore | None:
    """The index that answers for a file as hits cite it (`root` as the hits give it, not
    resolved), or None: what a grouped answer reads the file's facts from. By root alone,
    a file of a team index split with the checkout's local index (`search.overlay`) was
    looked up in the local index, which lacks every file unchanged here."""
    return next((f.store for f in folders if str(f.root) == root and f.answers_for(path)),
                None)


def resolve_symbol(folder: Indexed, handle: str) -> handles.ResolvedSymbol | None:
    """The definition a handle names in this folder's index, when it answers for its file.
    Call inside `folder.store.reading()`."""
    found = handles.resolve_symbol(folder.store, handle)
    return found if found is not None and folder.answers_for(found.file.path) else None


def resolve_chunk(folder: Indexed, handle: str) -> ChunkRow | None:
    """The chunk a handle names in this folder's index, when it answers for its file. Call
    inside `folder.store.reading()`."""
    found = handles.resolve_chunk(folder.store, handle)
    return found if found is not None and folder.answers_for(found.path) else None


def name_at(folders: Workspace, path: Path, line: int, col: int) -> str | None:
    """The name used or defined at a 0-based line and UTF-16 column of a file, or None.
    Raises InvalidQuery when the index does not hold the file at all: "no name there" would
    read as the user's mistake while the first index has not reached the file yet."""
    folder, rel = place(folders, path)
    with folder.store.reading():
        name = folder.store.name_at(rel, line, col)
        if name is None and folder.store.file_by_path(rel) is None:
            raise InvalidQuery(f"{path} is not in the index (yet): the index may still be "
                               "building, or the file was skipped (kebab status says which, "
                               "and why)")
        return name


def symbol_name(folders: Workspace, handle: str) -> str:
    """The name of the definition a symbol handle names; StaleHandle when none does."""
    for folder in folders:
        with folder.store.reading():
            found = resolve_symbol(folder, handle)
        if found is not None:
            return found.symbol.name
    raise handles.stale("symbol", handle)


def usage_target(folders: Workspace, req: ReferencesRequest) -> str:
    """The name whose refs a request asks for (it gives a symbol handle, a name or a place),
    as refs store it. Raises InvalidQuery (StaleHandle for a stale handle)."""
    name = req.name
    if req.symbol_id is not None:
        name = symbol_name(folders, req.symbol_id)
    elif req.place is not None:
        span = req.place.span
        path = fs_path(req.place.uri)
        name = name_at(folders, path, span.start_line, span.start_col)
        if name is None:
            raise InvalidQuery(f"no name at line {span.start_line + 1}, column "
                               f"{span.start_col + 1} of {path} in the index (1-based, as "
                               "editors show it)")
    return usage_name(name or "")


def references(folders: Workspace, req: ReferencesRequest,
               should_stop: ShouldStop) -> SearchResult:
    """The refs of the name a request gives, grouped by file (`search.usage`). Raises
    InvalidQuery (StaleHandle for a stale handle)."""
    return merge_results(references_by_folder(folders, req, should_stop), req.k, "auto")


def references_by_folder(folders: Workspace, req: ReferencesRequest,
                         should_stop: ShouldStop) -> list[SearchResult]:
    """Each folder's answer to `references`, before they are merged."""
    name = usage_target(folders, req)
    results = []
    for folder in folders:
        check_stop(should_stop, f"before the refs in {folder.root}")
        results.append(folder.searcher.usages(name, req.filters.within(folder.scope), req.k,
                                              req.kinds, should_stop))
    return results


def _go_on() -> bool:
    return False


def definitions(folders: Workspace, name: str, should_stop: ShouldStop = _go_on
                ) -> list[tuple[str, str, Span]]:
    """(root, path, name span) of every definition of `name`: after its refs, for
    textDocument/references, so a request cancelled meanwhile stops here too."""
    out: list[tuple[str, str, Span]] = []
    for folder in folders:
        check_stop(should_stop, f"before the definitions of {name} in {folder.root}")
        with stoppable_read(folder.store, should_stop):
            out.extend((str(folder.root), path, sym.selection)
                       for path, sym in folder.store.definitions_named(name)
                       if folder.answers_for(path))
    return out


def describe_symbol(folders: Workspace, handle: str,
                    should_stop: ShouldStop = _go_on) -> SymbolInfo:
    """A definition's details from its handle (`search.describe`); StaleHandle when no folder
    holds it. Its name's ref counts are its folder's, over every index that answers for part
    of that folder: a common name's are many rows, so a cancelled request stops between
    folders and inside a read."""
    for folder in folders:
        check_stop(should_stop, f"before looking up a symbol in {folder.root}")
        with stoppable_read(folder.store, should_stop):
            found = resolve_symbol(folder, handle)
            if found is not None:
                info = describe(folder.store, str(folder.root), found)
                break
    else:
        raise handles.stale("symbol", handle)
    sharing = [f for f in folders if f.root == folder.root]
    if len(sharing) > 1:
        info.ref_counts = ref_counts(sharing, info.symbol.name, should_stop)
    return info


def ref_counts(folders: Workspace, name: str, should_stop: ShouldStop = _go_on
               ) -> dict[str, int]:
    """How many refs of `name` the folders hold, by kind, each over the paths it answers for."""
    counts: dict[str, int] = {}
    for folder in folders:
        check_stop(should_stop, f"before counting the refs of {name} in {folder.root}")
        with stoppable_read(folder.store, should_stop):
            keys = folder.store.ref_keys(name, Filters().within(folder.scope))
        for key in keys:
            counts[key.kind] = counts.get(key.kind, 0) + 1
    return dict(sorted(counts.items()))


def context(folders: Workspace, req: ContextRequest,
            should_stop: ShouldStop = _go_on) -> Context:
    """The block a chunk or symbol handle names, with `before` and `after` neighbours in its
    file. Raises InvalidQuery (StaleHandle for a stale handle, and a definition with no block
    of its own)."""
    for folder in folders:
        check_stop(should_stop, f"before looking up a block in {folder.root}")
        store = folder.store
        with stoppable_read(store, should_stop):
            if req.chunk_id is not None:
                chunk = resolve_chunk(folder, req.chunk_id)
            else:
                assert req.symbol_id is not None
                found = resolve_symbol(folder, req.symbol_id)
                chunk = store.chunk_of_symbol(found.file.rowid, found.ord) if found else None
                if found is not None and chunk is None:
                    raise InvalidQuery(f"the definition {req.symbol_id!r} has no block of its "
                                       "own (a value or a one-line definition): ask for the "
                                       "context of the hit's chunk_id instead")
            if chunk is not None:
                return around(store, str(folder.root), chunk, req.before, req.after)
    if req.chunk_id is not None:
        raise handles.stale("chunk", req.chunk_id)
    assert req.symbol_id is not None
    raise handles.stale("symbol", req.symbol_id)


def similar(folders: Workspace, req: SimilarRequest, should_stop: ShouldStop) -> SearchResult:
    """The chunks nearest the request's code (its text, or a range of a file, which is then
    left out of the answer), by vector; lexically, with a warning, where no vectors exist."""
    return merge_results(similar_by_folder(folders, req, should_stop), req.k, "auto")


def similar_by_folder(folders: Workspace, req: SimilarRequest,
                      should_stop: ShouldStop) -> list[SearchResult]:
    """Each folder's answer to `similar`, before they are merged."""
    text = req.text
    owner: Indexed | None = None
    exclude: tuple[str, Span] | None = None
    if req.place is not None:
        owner, rel = place(folders, fs_path(req.place.uri))
        text = range_text(owner, rel, req.place.span)
        exclude = (rel, req.place.span)
    if not text or not text.strip():
        raise InvalidQuery("no code to find more of: the text (or the range) is blank")
    results = []
    for folder in folders:
        check_stop(should_stop, f"before finding similar code in {folder.root}")
        results.append(similar_in(folder.searcher, text, req.k, req.filters.within(folder.scope),
                                  exclude if folder is owner else None, should_stop))
    return results


def range_text(folder: Indexed, rel: str, span: Span) -> str:
    """The text of a range, as indexed (or from disk when the file is not indexed)."""
    store = folder.store
    with store.reading():
        file = store.file_by_path(rel)
        text = store.file_text_of(file.rowid) if file else None
    if text is None:
        try:
            text = (folder.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InvalidQuery(f"cannot read {rel}: {exc}") from exc
    all_lines = text.split("\n")
    if span.start_line >= len(all_lines):
        raise InvalidQuery(f"the range starts on line {span.start_line + 1} (1-based) but {rel} "
                           f"has {len(all_lines)} lines")
    lines = all_lines[span.start_line : span.end_line + 1]
    if len(lines) == 1:
        return _utf16_slice(lines[0], span.start_col, span.end_col)
    return "\n".join([_utf16_slice(lines[0], span.start_col, None), *lines[1:-1],
                      _utf16_slice(lines[-1], 0, span.end_col)])


def _utf16_slice(line: str, start: int, end: int | None) -> str:
    data = line.encode("utf-16-le", "surrogatepass")
    return data[2 * start : None if end is None else 2 * end].decode("utf-16-le", "replace")

"""What a running `kebab mcp` holds, with no protocol in it: the roots, and per root its index,
searcher, writer lease, runtime and file watcher. The tools in `kebab_mcp.tools` call these
methods and translate.

Nothing heavy is imported until a tool needs an index: the runtime (tree-sitter), LanceDB and
the embedding model load on the first call that searches, reads or builds.

Each root's index may be shared with other processes, `kebab serve` included
(`indexing.runtime.writership`). The process holding a root's writer lease runs its runtime
(writer, embed scheduler) and a file watcher, so the index follows the disk; the others only
read, and poll the lease once a second so that one of them takes over writing, with a
catch-up scan, when the writer exits.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexing.settings import Settings
from search.types import InvalidQuery

if TYPE_CHECKING:
    from indexing.runtime import Folder, Runtime
    from search.context import Context
    from search.describe import SymbolInfo
    from search.engine import Searcher
    from search.lookups import ContextRequest, ReferencesRequest
    from search.types import SearchRequest, SearchResult
    from search.workspace_lookups import Indexed

#: read_file_lines answers at most this much.
MAX_READ_LINES = 400
MAX_READ_BYTES = 48_000
#: How often a first question polls an index another process is building.
_READER_POLL_S = 0.2


class ToolFailure(ValueError):
    """A request that cannot be answered as asked; the message says what is wrong and what to
    do instead."""


class Root:
    """One root: its index, a searcher over it, and its runtime, which writes the index while
    this process holds the index's writer lease (`indexing.runtime.writership`: the rule the
    language server follows too)."""

    def __init__(self, path: Path, settings: Settings, listener: Any,
                 name: str | None = None) -> None:
        from indexing.runtime import Runtime
        from indexing.runtime.writership import Writership

        self.path = path
        #: how answers name the root: its folder's name, with as many parent folders as
        #: make it unique among the roots (`unique_names`)
        self.name = name or path.name
        self.settings = settings
        self.runtime: Runtime = Runtime(listener, settings)
        self.writership = Writership(self.runtime, watch=True)
        self.runtime.claim = self.writership.claim
        # Takes the lease if it is free: then the runtime starts, scans and watches.
        self.folder: Folder = self.runtime.add_folder(path.as_uri(), path.name, path)
        self._lock = threading.Lock()
        self._searcher: Searcher | None = None

    @property
    def writing(self) -> bool:
        return self.folder.writes

    @property
    def searcher(self) -> Searcher:
        from search.engine import Searcher

        with self._lock:
            if self._searcher is None or self._searcher.store is not self.folder.index.store:
                index = self.folder.index
                self._searcher = Searcher(self.folder.root, index.store, vectors=index,
                                          status=self.folder, settings=lambda: self.settings)
            return self._searcher

    def try_write(self) -> bool:
        """Take over writing now if the lease is free (with a catch-up scan). True while this
        process writes."""
        return self.writership.try_write(self.folder)

    def holder(self) -> int | None:
        return self.writership.holder(self.folder)

    def watcher_state(self) -> str:
        state = self.writership.watcher_state(self.folder)
        if state is not None:
            return state
        holder = self.holder()
        return f"not here: process {holder} writes and watches" if holder else "none"

    def cancel_scan(self, rebuild: bool) -> None:
        """Stop this root's running or queued scan at its next step: the folder is reopened,
        which is how the runtime cancels a folder's work. A rebuild starts by emptying the
        index, so a cancelled one is followed by an incremental scan that brings back what it
        had not rewritten yet (what it had rewritten counts as unchanged)."""
        with self._lock:
            uri = self.folder.uri
            self.runtime.remove_folder(uri)
            self.folder = self.runtime.add_folder(uri, self.path.name, self.path, scan=rebuild)

    def close(self) -> None:
        self.runtime.stop()  # every write of this process ends here, then the lease goes
        self.writership.close()


def why_left_out(root: Root, sub: str, real: Path) -> str:
    """Why a file under a root is not in its index, asked of the rules the walk follows: an
    agent told only "ignored, excluded, a secret, binary or too large" could not tell a rule
    from a file the writer has not reached yet."""
    from indexing.discover import DiscoveryOptions, is_indexable_path, read_file

    if real.is_dir():
        return "a folder: read its files"
    options = DiscoveryOptions.from_settings(root.settings)
    if not is_indexable_path(root.path, root.path / sub, options):
        return ("left out by the folder's rules: .gitignore, .kebabignore, the exclude "
                "setting, a default folder such as node_modules, or a secret's name")
    got = read_file(root.path.resolve(), root.path / sub, options)
    if isinstance(got, str):
        return f"skipped: {got}"
    return ("not indexed yet: new or changed since the last scan; the writer catches up "
            "within a second or two (get_status shows its scan)")


@dataclass(frozen=True, slots=True)
class Lines:
    root: str
    path: str
    start_line: int
    end_line: int
    total_lines: int
    text: str
    truncated: bool
    #: the last line is cut (at MAX_READ_BYTES): one line longer than the cap
    line_cut: bool = False


def cut_to_bytes(text: str, limit: int) -> str:
    """The longest prefix of `text` of at most `limit` UTF-8 bytes (never half a
    character)."""
    if limit <= 0:
        return ""
    return text.encode()[:limit].decode("utf-8", errors="ignore")


class Service:
    def __init__(self, paths: Iterable[Path], settings: Settings, listener: Any) -> None:
        self.settings = settings
        self._listener = listener
        self._paths = [p.resolve() for p in paths]
        self._roots: list[Root] | None = None
        self._lock = threading.Lock()
        #: the roots the client offered (None: it offered none, or was not asked)
        self._offered: list[Path] | None = None
        #: what the answers should warn about (a client root that is not a directory here)
        self.warnings: list[str] = []

    # -- roots -------------------------------------------------------------------------------

    @property
    def has_paths(self) -> bool:
        return bool(self._paths)

    def set_paths(self, paths: Iterable[Path]) -> None:
        """Roots offered by the client, used when none were given on the command line."""
        with self._lock:
            if not self._paths and self._roots is None:
                offered = [p.resolve() for p in paths]
                self._offered = offered or None
                self._paths = [p for p in offered if p.is_dir()]
                missing = [str(p) for p in offered if not p.is_dir()]
                if missing and self._paths:
                    self.warnings.append(
                        f"the client's root(s) {', '.join(missing)} are not directories here, "
                        "so they are not searched")

    def roots(self) -> list[Root]:
        """The roots, opened on first use (the current directory when none were given); this
        is where the index, the runtime and the writer lease's poller start."""
        with self._lock:
            if self._roots is None:
                if not self._paths and self._offered:
                    raise ToolFailure(
                        "no roots: the client's roots ("
                        + ", ".join(str(p) for p in self._offered) + ") are not directories "
                        "on this machine, and the server will not index another directory "
                        "in their place. Start the server as `kebab mcp PATH`")
                paths = self._paths or [Path.cwd().resolve()]
                if not self._paths and paths[0] in (Path(paths[0].anchor), Path.home()):
                    raise ToolFailure(
                        f"no roots: none were given, the client offered none and the current "
                        f"directory is {paths[0]}, too broad to index. Start the server as "
                        "`kebab mcp PATH`, or from the project's directory")
                missing = [str(p) for p in paths if not p.is_dir()]
                if missing:
                    raise ToolFailure(f"not a directory: {', '.join(missing)}")
                names = unique_names(list(dict.fromkeys(paths)))
                self._roots = [Root(p, self.settings, self._listener, name)
                               for p, name in names.items()]
            return self._roots

    @property
    def opened(self) -> bool:
        return self._roots is not None

    def root_name(self, path: str) -> str:
        """The name of the root at absolute `path` (a hit's root)."""
        return next((r.name for r in self.roots() if str(r.path) == path), Path(path).name)

    def root(self, name: str | None) -> list[Root]:
        roots = self.roots()
        if name is None:
            return roots
        chosen = [r for r in roots if name in (r.name, str(r.path))]
        if not chosen:
            raise ToolFailure(f"unknown root {name!r}; the roots are "
                              f"{', '.join(repr(r.name) for r in roots)}")
        return chosen

    def close(self) -> None:
        for root in self._roots or []:
            root.close()

    # -- answers -----------------------------------------------------------------------------

    def wait_first_index(self, timeout: float = 120.0) -> None:
        """A first question on a never-indexed root waits for its lexical index (vectors come
        later, in the background): this process's, or, while another process writes it and
        is scanning, until that one's first files land (the answer then says it is still
        building). A rebuild also empties the index, but a question then is answered at once
        from what it has rewritten so far, and says it is building: it had waited for the
        whole rebuild."""
        deadline = time.monotonic() + timeout
        for root in self.roots():
            index = root.folder.index
            if index.store.stats().files:
                continue
            if root.writing:
                if root.folder.last_scan is None:  # no scan of this root has ended yet
                    root.runtime.wait_idle(max(0.0, deadline - time.monotonic()))
                continue
            while (index.scanning_elsewhere() is not None and not index.store.stats().files
                   and time.monotonic() < deadline):
                time.sleep(_READER_POLL_S)

    def search(self, req: SearchRequest, should_stop: Callable[[], bool]) -> SearchResult:
        from search.merge import merge_results

        self.wait_first_index()
        roots = self.roots()
        glob = req.filters.path_glob
        if glob is not None and len(roots) > 1:
            # A glob written as hits are printed, "root/path": that root only, the rest of
            # the glob relative to it.
            named = [r for r in roots if glob.startswith(r.name + "/")]
            if named:
                root = max(named, key=lambda r: len(r.name))
                roots = [root]
                filters = dataclasses.replace(req.filters,
                                              path_glob=glob[len(root.name) + 1:])
                req = dataclasses.replace(req, filters=filters)
        results = [r.searcher.search(req, should_stop=should_stop) for r in roots]
        return merge_results(results, req.k, req.mode)

    def read_lines(self, path: str, start: int, end: int | None) -> Lines:
        """Lines `start`..`end` (1-based, inclusive) of an indexed file under a root, capped
        at MAX_READ_LINES lines and MAX_READ_BYTES bytes."""
        root, rel, lines = self._lines(path, start, end)
        total = len(lines)
        last = min(end if end is not None else start + MAX_READ_LINES - 1, total,
                   start + MAX_READ_LINES - 1)
        out: list[str] = []
        size = 0
        cut = False
        for i in range(start - 1, last):
            line_bytes = len(lines[i].encode()) + 1
            if size + line_bytes > MAX_READ_BYTES:
                if not out:  # one line longer than the cap: its first MAX_READ_BYTES bytes
                    out.append(cut_to_bytes(lines[i], MAX_READ_BYTES))
                    cut = True
                break
            size += line_bytes
            out.append(lines[i])
        got_end = start + len(out) - 1
        wanted_end = min(end if end is not None else total, total)
        return Lines(root=root.name, path=rel, start_line=start, end_line=got_end,
                     total_lines=total, text="\n".join(out),
                     truncated=cut or got_end < wanted_end, line_cut=cut)

    def _lines(self, path: str, start: int, end: int | None) -> tuple[Root, str, list[str]]:
        """The root, root-relative path and lines of a file a client names with a 1-based
        line range, checked: the range starts inside the file and does not end before it
        starts."""
        if start < 1:
            raise ToolFailure(f"start_line must be at least 1, got {start}")
        if end is not None and end < start:
            raise ToolFailure(f"end_line ({end}) is before start_line ({start})")
        self.wait_first_index()
        root, rel, target = self.resolve(path)
        lines = file_lines(target.read_bytes())
        if start > max(len(lines), 1):
            raise ToolFailure(f"{rel} has {len(lines)} lines; start_line {start} is past the "
                              "end")
        return root, rel, lines

    # -- lookups by handle, name or place (`search.workspace_lookups`) ----------------------

    def indexed(self) -> list[Indexed]:
        """The roots as the lookups see them, in merge order."""
        from indexing.store import Store
        from search.workspace_lookups import Indexed

        out = []
        for root in self.roots():
            searcher = root.searcher
            store = searcher.store
            assert isinstance(store, Store)  # a root's searcher reads its local index
            out.append(Indexed(root.path, store, searcher))
        return out

    def references(self, req: ReferencesRequest,
                   should_stop: Callable[[], bool]) -> tuple[str, SearchResult]:
        """(the name whose refs these are, its refs grouped by file)."""
        import dataclasses

        from search import workspace_lookups as lookups

        self.wait_first_index()
        folders = self.indexed()
        name = lookups.usage_target(folders, req)
        req = dataclasses.replace(req, symbol_id=None, place=None, name=name)
        return name, lookups.references(folders, req, should_stop)

    def describe_symbol(self, handle: str, should_stop: Callable[[], bool]) -> SymbolInfo:
        from search import workspace_lookups as lookups

        return lookups.describe_symbol(self.indexed(), handle, should_stop)

    def context(self, req: ContextRequest, should_stop: Callable[[], bool]) -> Context:
        from search import workspace_lookups as lookups

        return lookups.context(self.indexed(), req, should_stop)

    def similar(self, text: str | None, path: str | None, start: int | None,
                end: int | None, k: int, should_stop: Callable[[], bool]) -> SearchResult:
        """The chunks nearest some code: `text`, or lines `start`..`end` (1-based, inclusive)
        of a file, which are then left out of the answer."""
        from indexing.positions import utf16_len
        from indexing.records import Span
        from search import workspace_lookups as lookups
        from search.lookups import Place, SimilarRequest

        place = None
        if path is not None:
            assert start is not None and end is not None
            root, rel, lines = self._lines(path, start, end)
            last = min(end, len(lines))
            span = Span(start - 1, 0, last - 1, utf16_len(lines[last - 1]) if lines else 0)
            place = Place((root.path / rel).as_uri(), span)
        else:
            self.wait_first_index()
        req = SimilarRequest(text=text, place=place, k=k)
        return lookups.similar(self.indexed(), req, should_stop)

    def resolve(self, path: str) -> tuple[Root, str, Path]:
        """The root, root-relative path and real file for a path a client sent. Only files
        in the index can be read: a path outside every root (absolute, `..`, a symlink out)
        or one the index leaves out (ignored, excluded, secret, binary, too large) is
        refused."""
        if not path or "\0" in path:
            raise ToolFailure("path must be a non-empty path relative to a root")
        if path.startswith(("/", "\\", "~")) or (len(path) > 1 and path[1] == ":"):
            raise ToolFailure(f"{path!r} is absolute; give a path relative to a root, as "
                              "codebase_search returns them")
        parts = path.replace("\\", "/").split("/")
        if ".." in parts:
            raise ToolFailure(f"{path!r} contains '..'; paths must stay inside the roots")
        rel = "/".join(p for p in parts if p not in ("", "."))
        roots = self.roots()
        candidates = [(r, rel) for r in roots]
        if len(roots) > 1:  # "rootname/path" picks a root
            candidates = [(r, rel[len(r.name) + 1:]) for r in roots
                          if rel.startswith(r.name + "/")] + candidates
        found: list[tuple[Root, str, Path]] = []
        left_out: tuple[Root, str, Path] | None = None
        for root, sub in candidates:
            target = root.path / sub
            real = Path(os.path.realpath(target))
            if not (real == root.path or root.path in real.parents):
                if target.exists() or target.is_symlink():
                    raise ToolFailure(f"{path!r} resolves outside the root {root.name!r} "
                                      "(a symlink out); refused")
                continue
            if root.folder.index.store.file_state(sub) is not None and real.is_file():
                found.append((root, sub, real))
            elif real.exists() and left_out is None:
                left_out = (root, sub, real)
        if len(found) > 1:
            raise ToolFailure(
                f"{path!r} is ambiguous: it names a file in several roots ("
                + ", ".join(f"{r.name!r}" for r, _, _ in found) + "); put the root's name in "
                "front, as in " + " or ".join(f"'{r.name}/{sub}'" for r, sub, _ in found))
        if found:
            return found[0]
        if left_out is not None:
            raise ToolFailure(f"{path!r} is not in the index ({why_left_out(*left_out)}), so "
                              "it cannot be read here")
        raise ToolFailure(f"no file {path!r} in the index of "
                          f"{', '.join(repr(r.name) for r in roots)}")

    def status(self) -> list[dict[str, Any]]:
        out = []
        for root in self.roots():
            folder = root.folder
            stats = folder.index.store.stats()
            vindex = folder.index.vector_index() if root.writing else None
            embedded: dict[str, Any]
            if folder.index.vector_error is not None:
                embedded = {"enabled": False, "reason": folder.index.vector_error}
            elif vindex is not None:
                have, total = vindex.coverage(stats.chunks)
                embedded = {"enabled": True, "embedded": have, "total": total,
                            "share": round(have / total, 3) if total else 1.0}
            else:
                embedded = _embedded_from_meta(folder, stats.chunks)
            last = (dt.datetime.fromtimestamp(stats.last_update, dt.UTC)
                    .isoformat(timespec="seconds") if stats.last_update else None)
            holder = root.holder()
            watcher = root.watcher_state()
            out.append({
                "root": root.name, "path": str(root.path),
                "index_dir": str(folder.index.index_dir),
                "files": stats.files, "symbols": stats.symbols, "chunks": stats.chunks,
                "vectors": embedded,
                "building": folder.building_anywhere,
                "progress": list(folder.progress) if folder.progress else None,
                "last_update": last,
                "last_scan": folder.last_scan.as_json() if folder.last_scan else None,
                "writer": {"this_process": root.writing, "pid": holder},
                "watcher": watcher,
                "error": folder.last_error,
                # A team checkout's index: only the files that differ from the team index's.
                "partial_of": folder.index.partial_of,
                "incomplete": folder.index.incomplete(),
            })
        return out

    def start_build(self, names: list[str] | None, rebuild: bool) -> list[Root]:
        roots = [r for n in (names or [None]) for r in self.root(n)]  # type: ignore[list-item]
        for root in roots:
            if not root.try_write():
                raise ToolFailure(
                    f"process {root.holder()} is writing the index of {root.name!r} and "
                    "keeps it current; build it there, or stop that process")
        for root in roots:
            root.runtime.scan(root.folder, rebuild)
        return roots


def unique_names(paths: list[Path]) -> dict[Path, str]:
    """Each root's name: its folder's name, or, where two roots share it, as many of its
    parent folders as tell them apart (`/a/pkg` and `/b/pkg` are `a/pkg` and `b/pkg`)."""
    depth = dict.fromkeys(paths, 1)

    def name(p: Path) -> str:
        return "/".join(p.parts[1:][-depth[p]:]) or str(p)

    while True:
        names = {p: name(p) for p in paths}
        taken = list(names.values())
        clash = [p for p in paths if taken.count(names[p]) > 1 and depth[p] < len(p.parts) - 1]
        if not clash:
            return names
        for p in clash:
            depth[p] += 1


def file_lines(data: bytes) -> list[str]:
    """A file's lines as the index counts them: its text as the indexer decodes it (UTF-8,
    no byte-order mark, every "\\r\\n" and lone "\\r" made "\\n") split at "\\n" only, so a
    form feed, U+2028 or U+0085 inside a line does not end it (`str.splitlines` would, and
    every citation after it would read the wrong line). The empty line after a final
    newline is not counted, as editors show no line there."""
    from indexing.positions import split_lines
    from indexing.text import decode

    text = decode(data)
    if not text:
        return []
    lines = split_lines(text)
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def _embedded_from_meta(folder: Folder, chunks: int) -> dict[str, Any]:
    """A reader does not open LanceDB for status: it says what the writer recorded, and how
    many vectors a complete sync holds (the `total` a writer's status counts against)."""
    from indexing.vector_index import vectors_wanted

    store = folder.index.store
    synced = store.meta_value("vector_synced_lexical_version")
    current = str(store.lexical_version())
    return {"enabled": True, "embedded": None, "total": vectors_wanted(store, chunks),
            "share": None,
            "current": synced == current if synced else False,
            "note": "counted by the writing process; this one only reads"}


def check_query_text(query: str) -> None:
    """`codebase_search` refuses what `kebab/search` refuses, with its message."""
    from search.request import MAX_QUERY_CHARS, check_text

    try:
        check_text(query, MAX_QUERY_CHARS)
    except InvalidQuery as exc:
        raise ToolFailure(str(exc)) from exc

"""The `kebab` command line: index, search, status, serve.

`kebab search --json` prints exactly what the server answers to `kebab/search` (both go
through `kebab_lsp.convert`), so scripts and editors share one schema.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import attrs

from indexing.settings import MODES, Settings
from indexing.settings import add_arguments as add_setting_flags
from indexing.settings import from_arguments as settings_from_flags
from indexing.store_choice import InvalidStoreChoice, TeamStore
from indexing.store_choice import add_arguments as add_store_flags
from indexing.store_choice import from_arguments as store_from_flags
from kebab_lsp import __version__

# Every command imports what it needs itself: `kebab mcp` and `kebab serve` start without the
# store, the wire conversions or discovery (`kebab mcp`'s initialize is timed).

if TYPE_CHECKING:
    from indexing.discover import DiscoveryOptions
    from indexing.indexer import IndexSummary
    from indexing.runtime import Folder
    from indexing.runtime.folder_index import FolderIndex
    from indexing.store import FileFacts, FileState
    from kebab_lsp.workspace import Workspace
    from search.types import SearchRequest, SearchResult

BOLD, RESET = "\x1b[1m", "\x1b[0m"
MARK, UNMARK = "\x1b[1;31m", "\x1b[0m"
#: Settings each command takes as flags (generated from the settings model).
INDEX_FLAGS = ("index_dir", "exclude", "languages", "max_file_bytes", "include_secrets",
               "model_dir", "workers", "embed", "embed_threads")
SEARCH_FLAGS = ("index_dir", "exclude", "languages", "max_file_bytes", "include_secrets",
                "model_dir", "embed_threads", "default_mode", "default_k", "rrf_k")
MCP_FLAGS = (*INDEX_FLAGS, "debounce_ms")
EVAL_FLAGS = ("index_dir", "exclude", "languages", "max_file_bytes", "include_secrets",
              "model_dir", "workers", "embed_threads", "rrf_k")


class Progress:
    """A one-line progress bar on a terminal; silent when stderr is not a terminal."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream or sys.stderr  # looked up now: stderr may have been replaced
        self.enabled = self.stream.isatty()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total == 0:
            return
        width = 30
        filled = int(width * done / total)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
        )
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False

    def report(self, done: int, total: int) -> None:
        self(done, total)

    def end(self, message: str) -> None:
        self.close()


class CliListener:
    """The runtime's listener on a terminal: a progress bar per job on stderr (when it is a
    terminal), warnings and errors as lines."""

    def begin(self, title: str, unit: str = "files") -> Progress:
        return Progress(title.split(" ", 1)[0].lower())

    def log(self, level: str, message: str) -> None:
        if level in ("warning", "error"):
            print(f"kebab: {message}", file=sys.stderr)

    def warn(self, message: str) -> None:
        print(f"kebab: {message}", file=sys.stderr)


def _settings(args: argparse.Namespace, names: tuple[str, ...]) -> Settings:
    base = Settings(model_dir=os.environ.get("KEBAB_MODEL_DIR") or None)
    settings, problems = settings_from_flags(args, base, names)
    if problems:
        raise SystemExit("kebab: " + "; ".join(p.replace("kebab setting ", "")
                                               for p in problems))
    if "index_dir" in names:
        _check_index_dir(settings.index_dir)
    return settings


def _check_index_dir(override: str | None) -> None:
    """Refuse, in one line and with status 2, an index root (`--index-dir` or
    `KEBAB_INDEX_DIR`) that is a file or lies under one, which could never hold an index."""
    from indexing.location import ENV_INDEX_DIR, cache_root

    where = cache_root(override)
    probe = where
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        named = f"--index-dir {override}" if override else f"{ENV_INDEX_DIR}={where}"
        clash = "" if probe == where else f": {probe}"
        print(f"kebab: {named}{clash} is not a directory", file=sys.stderr)
        raise SystemExit(2)


def _root(args: argparse.Namespace) -> Path:
    root = Path(args.path)
    if not root.is_dir():
        raise SystemExit(f"kebab: {root} is not a directory")
    return root.resolve()


def _team(args: argparse.Namespace) -> TeamStore | None:
    try:
        return store_from_flags(args)
    except InvalidStoreChoice as exc:
        raise SystemExit(f"kebab: {exc}") from exc


#: How long `kebab index` may spend merging and checkpointing the index before it exits.
UPKEEP_TIMEOUT_S = 600.0


def index_folder(root: Path, settings: Settings, rebuild: bool = False) -> Folder:
    """Index (and, with `settings.embed`, embed) one folder with the same runtime the server
    runs, then stop it. Only the holder of the index's writer lease writes: when a running
    `kebab mcp` holds it, that process keeps the index current and this one refuses."""
    from indexing.location import index_dir_for
    from indexing.runtime import Runtime
    from indexing.runtime.lease import IndexBusy, take_for_one_shot

    # The lease first: opening the index may already write it (a damaged one is rebuilt, an
    # older schema migrated), and an index this process cannot write is refused in one line
    # (`UnusableIndexDir`) before the runtime reports its every failed write.
    try:
        lease = take_for_one_shot(index_dir_for(root, settings.index_dir), root)
    except IndexBusy as exc:
        raise SystemExit(f"kebab: {exc}") from exc
    runtime = Runtime(CliListener(), settings)
    # No background read-through of the index: a no-change `kebab index` takes a fraction of
    # a second and must not wait for it. Damage is still found where a scan meets it, and
    # `--rebuild` starts from nothing whatever the old index holds.
    try:
        folder = runtime.add_folder(root.as_uri(), root.name, root, scan=False, check=False)
    except BaseException:
        lease.release()
        raise
    runtime.scan(folder, rebuild=rebuild)
    runtime.start()
    try:
        runtime.wait_idle(embedding=settings.embed)
        # Bounded: the merge is an optimisation, and whatever part is left the next writer
        # (a server, `kebab mcp`, the next `kebab index`) finishes in its idle time.
        runtime.finish_upkeep(UPKEEP_TIMEOUT_S)
    finally:
        runtime.stop()
        lease.release()
    return folder


def cmd_index(args: argparse.Namespace) -> int:
    settings = _settings(args, INDEX_FLAGS)
    team = _team(args)
    if team is not None:
        return _index_team(args, team, settings)
    folder = index_folder(_root(args), settings, rebuild=args.rebuild)
    summary = folder.last_scan
    if summary is None:
        if folder.unwritable is None and not folder.repairs:  # else the runtime said why
            print(f"kebab: indexing failed: {folder.last_error}", file=sys.stderr)
        return 1
    out = summary.as_json()
    if settings.embed:
        synced = folder.last_sync
        out["embedding"] = (
            {"embedded": synced.embedded, "from_cache": synced.from_cache,
             "deleted": synced.deleted, "seconds": round(synced.seconds, 3)}
            if synced else {"error": folder.index.vector_error}
        )
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        _print_summary(folder, summary, args.list_skipped)
        if "embedding" in out:
            print(f"  embedding: {out['embedding']}")
    return 0


def _index_team(args: argparse.Namespace, team: TeamStore, settings: Settings) -> int:
    """`kebab index --store URL --repo NAME`: the files, then (with `--team-vectors DIR`,
    unless `--no-embed`) the repository's vectors under DIR."""
    from indexing.postgres.team_index import update_repository
    from indexing.store_choice import safe_url
    from kebab_lsp.team import NO_TEAM_VECTORS

    if args.embed and team.vectors is None:  # asked for in so many words: not quietly skipped
        print(f"kebab: --embed: {NO_TEAM_VECTORS}", file=sys.stderr)
        return 2
    root = _root(args)
    embedder = None
    if team.vectors is not None and args.embed is not False:
        from indexing.location import model_cache_dir
        from indexing.runtime.folder_index import shared_embedder

        embedder = shared_embedder(settings.model_dir, settings.embed_threads,
                                   model_cache_dir(settings.index_dir))
    progress, embedding = Progress("indexing"), Progress("embedding")
    try:
        run = update_repository(root, team.url, team.repo, settings, rebuild=args.rebuild,
                                progress=progress, vectors=team.vectors, embedder=embedder,
                                embed_progress=embedding)
    finally:
        progress.close()
        embedding.close()
    summary = run.files
    out = summary.as_json()
    where = {"backend": "postgresql", "url": safe_url(team.url), "repo": team.repo}
    out["store"] = where
    if run.vectors is not None:
        from indexing.postgres.team_vectors import dataset_dir

        assert team.vectors is not None
        synced = run.vectors
        where["vectors"] = str(dataset_dir(team.vectors, team.repo))
        out["embedding"] = {"embedded": synced.embedded, "from_cache": synced.from_cache,
                            "deleted": synced.deleted, "seconds": round(synced.seconds, 3)}
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    print(f"indexed {root} -> repository {team.repo!r} at {safe_url(team.url)}")
    _print_counts(summary, args.list_skipped)
    if "embedding" in out:
        print(f"  vectors in {where['vectors']}: {out['embedding']}")
    return 0


def _print_summary(folder: Folder, s: IndexSummary, list_skipped: bool) -> None:
    print(f"indexed {folder.root} -> {folder.index.index_dir}")
    _print_counts(s, list_skipped)


def _print_counts(s: IndexSummary, list_skipped: bool) -> None:
    print(
        f"  scanned {s.scanned}  new {s.new}  changed {s.changed}  unchanged {s.unchanged}  "
        f"deleted {s.deleted}  renamed {s.renamed}  skipped {s.skipped}  in {s.seconds:.2f}s"
    )
    if s.skipped_by_reason:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(s.skipped_by_reason.items()))
        print(f"  skipped by reason: {reasons}")
        if list_skipped:
            for path, reason in s.skipped_paths:
                print(f"    {reason:16} {printable(path)}")
        else:
            print("  (kebab index --list-skipped lists them)")
    if s.text_only:
        print(f"  indexed as plain text (extracting definitions failed): {len(s.text_only)}")
        if list_skipped:
            for path, why in s.fallback_paths:
                print(f"    {'text_only':16} {printable(path)} ({why})")


def cmd_search(args: argparse.Namespace) -> int:
    from indexing.location import indexed_folder
    from kebab_lsp.workspace import Workspace
    from search.request import from_arguments as request_from_flags
    from search.types import InvalidQuery, SearchUnavailable

    root = _root(args)
    settings = _settings(args, SEARCH_FLAGS)
    team = _team(args)
    if team is not None:
        return _search_team(args, team, root, settings)
    covering = indexed_folder(root, settings.index_dir) or root
    under = root.relative_to(covering).as_posix() if covering != root else None
    ws = Workspace(covering, settings)
    if ws.store.rebuilt_reason:
        print(f"kebab: {ws.store.rebuilt_reason}", file=sys.stderr)
    unfinished: str | None = None  # why the first index did not finish
    try:
        req = request_from_flags(args, settings)
        if under is not None:
            req = _within(req, ws.root, ws.store.file_states(), under)
        elif ws.store.stats().files == 0 and _nobody_writes(ws.index_dir):
            ws.close()
            first = index_folder(root, attrs.evolve(settings, embed=False))
            if first.last_scan is None:
                unfinished = first.unwritable or first.last_error or "it was stopped"
            ws = Workspace(root, settings)
        result = ws.searcher.search(req)
    except (InvalidQuery, SearchUnavailable) as exc:
        print(f"kebab: {exc}", file=sys.stderr)
        return 2
    if unfinished is not None:  # the answer holds what the failed index wrote, no more
        result.meta.recall["complete"] = False
        result.meta.warnings.append(f"the first index of {root} did not finish ({unfinished}); "
                                    "this answer holds only what it wrote")
    _warn_unapplied(args, ws.index)
    _warn_stale(args, result, ws.root, ws.store.file_state)
    _warn_added_since_scan(args, result, ws)
    return _answer(args, req, result, ws.store)


def _within(req: SearchRequest, root: Path, indexed: Iterable[str], under: str
            ) -> SearchRequest:
    """`req` narrowed to the files under `under`, a subfolder of `root` whose index (of the
    files `indexed`) answers: paths stay relative to `root`."""
    import dataclasses

    paths = frozenset(p for p in indexed if p.startswith(under + "/"))
    print(f"kebab: searching the index of {root}, its {len(paths)} file(s) under "
          f"{under}/ only", file=sys.stderr)
    return dataclasses.replace(req, filters=dataclasses.replace(req.filters, only_paths=paths))


def _nobody_writes(index_dir: Path) -> bool:
    """No process writes this index: a search may build it. One that does (a server, `kebab
    mcp`, a `kebab index` in another shell) is building it, and the answer says so."""
    from indexing.runtime.lease import WriterLease

    return WriterLease(index_dir).holder() is None


def _warn_stale(args: argparse.Namespace, result: SearchResult, root: Path,
                state_of: Callable[[str], FileState | None],
                says: str | None = None) -> None:
    """Files the answer cites that changed on disk since the index read them (nothing rescans
    before a one-shot search): said in `meta.warnings`, which the text listing prints on
    stderr, and on stderr beside `--json` too."""
    from kebab_lsp.freshness import CHANGED_SINCE_INDEX, changed_on_disk, stale_warning

    cited = [hit.path for hit in result.hits] + [row.path for row in result.files]
    _tell(args, result, stale_warning(changed_on_disk(root, cited, state_of),
                                      says or CHANGED_SINCE_INDEX))


def _warn_added_since_scan(args: argparse.Namespace, result: SearchResult,
                           ws: Workspace) -> None:
    """Files added since the last complete scan (`_warn_added`): this machine's clock timed
    it, as it times the folders, so a folder unchanged since it needs no discovery."""
    from indexing.runtime.folder_index import SCAN_START_KEY
    from kebab_lsp.freshness import ADDED_SINCE_INDEX

    since = ws.store.meta_value(SCAN_START_KEY)
    if since is None or not since.isdigit():  # an index from before it was recorded
        return
    _warn_added(args, result, ws.root, int(since), ws.store.file_states, ws.indexer.options,
                ADDED_SINCE_INDEX)


def _warn_added(args: argparse.Namespace, result: SearchResult, root: Path, since_ns: int,
                indexed: Callable[[], Iterable[str]], options: DiscoveryOptions,
                says: str) -> None:
    """Files the index lacks that a scan of `root` would index now, which no answer can
    hold: the answer is not complete, and says which (`kebab_lsp.freshness.added_since`)."""
    from kebab_lsp.freshness import added_since, added_warning

    added = added_since(root, since_ns, indexed, options)
    if added:
        result.meta.recall["complete"] = False
    _tell(args, result, added_warning(added, says))


def _tell(args: argparse.Namespace, result: SearchResult, warning: str | None) -> None:
    """A warning in `meta.warnings`, which the text listing prints on stderr, and on stderr
    beside `--json` too."""
    if warning:
        result.meta.warnings.append(warning)
        if args.json:
            CliListener().warn(warning)


def _warn_unapplied(args: argparse.Namespace, index: FolderIndex) -> None:
    """Index settings typed as flags (`--exclude`, `--max-file-bytes`, ...) that the index was
    not built with: a search reads the index as it is and applies them only when it builds a
    new one, so it says so (the writer's `shape_note`, as `kebab index` warns it) rather than
    dropping them. Settings not typed (an editor's, say) are the index's business."""
    from indexing.settings import index_shape

    typed = [name for name in index_shape(index.settings) if getattr(args, name, None) is not None]
    if typed and index.shape_note:
        CliListener().warn(f"{index.shape_note}; `kebab search` does not scan an index that "
                           "exists: run `kebab index` with these flags to apply them")


def _search_team(args: argparse.Namespace, team: TeamStore, root: Path,
                 settings: Settings) -> int:
    """A search of a team index's repository; paths are cited under `root` (the checkout,
    when the command runs in one). The team index alone answers: the files of the checkout
    it lacks are named (`_warn_added`). CI built it from its own tree, whose time says
    nothing of this checkout's folders, so the whole checkout is compared (since 0); a cited
    file edited here (or of another commit) is said too, as its lines may have moved."""
    from indexing.discover import DiscoveryOptions
    from kebab_lsp.freshness import DIFFERS_FROM_TEAM_INDEX, NOT_IN_TEAM_INDEX
    from kebab_lsp.team import TeamWorkspace
    from search.request import from_arguments as request_from_flags
    from search.types import InvalidQuery, SearchUnavailable

    ws = TeamWorkspace(team.url, team.repo, settings, root, vectors=team.vectors)
    try:
        req = request_from_flags(args, settings)
        if ws.store.stats().files == 0:
            print(f"kebab: repository {team.repo!r} has no indexed files yet", file=sys.stderr)
            return 1
        states = ws.store.file_states()
        paths = list(states)
        checkout = checkout_root(root, paths)
        if checkout is not None and checkout != root:  # run in a subfolder of the checkout
            ws.cite_under(checkout)
            req = _within(req, checkout, paths, root.relative_to(checkout).as_posix())
        result = ws.searcher.search(req)
        if checkout is not None:
            _warn_stale(args, result, checkout, states.get, DIFFERS_FROM_TEAM_INDEX)
            _warn_added(args, result, checkout, 0, lambda: paths,
                        DiscoveryOptions.from_settings(settings), NOT_IN_TEAM_INDEX)
        return _answer(args, req, result, ws.store)
    except (InvalidQuery, SearchUnavailable) as exc:
        print(f"kebab: {exc}", file=sys.stderr)
        return 2
    finally:
        ws.close()


def checkout_root(start: Path, paths: Sequence[str]) -> Path | None:
    """The folder, `start` or one above it, that holds a checkout of a repository whose
    files are `paths`: the nearest where most of a sample of them are found. None when
    there is none (the command runs outside any checkout). A team index records no
    checkout's place, and a hit must cite the file on this disk, from a subfolder too."""
    sample = list(paths)[:: max(1, len(paths) // 20)][:20]
    if not sample:
        return None
    for folder in (start, *start.parents):
        if 2 * sum((folder / p).is_file() for p in sample) > len(sample):
            return folder
    return None


def _answer(args: argparse.Namespace, req: SearchRequest, result: SearchResult,
            facts: FileFacts) -> int:
    """Print `result` as `kebab/search` answers it: grouped (with each file's facts, read
    from `facts`) when asked, else as one list."""
    from kebab_lsp.convert import grouped_wire, result_wire

    explain = args.explain or args.json
    if not req.group:
        return _print_result(args, result_wire(result, explain=explain))
    from search.grouping import group

    wire = grouped_wire(group(result.hits, lambda root, path: facts, result.files), result.meta,
                        explain=explain)
    if args.json:
        print(json.dumps(wire, ensure_ascii=False, sort_keys=True))
        return 0
    wire["hits"] = wire["definitions"] + wire["blocks"]  # the text listing
    code = _print_result(args, wire)
    if wire["files"]:
        print("files:")
    for row in wire["files"]:
        print(f"{printable(row['path'])}  ({row['lang']}, {row['hits']} hit(s), "
              f"{len(row['defines'])} definition(s))")
    return code


def _print_result(args: argparse.Namespace, wire: dict[str, Any]) -> int:
    if args.json:
        print(json.dumps(wire, ensure_ascii=False, sort_keys=True))
        return 0
    color = sys.stdout.isatty()
    for hit in wire["hits"]:
        _print_hit(hit, color)
        if "retrieval" in hit:  # --explain: how it was found, on one line under it
            print("    " + _explain_line(hit["retrieval"]))
    meta = wire["meta"]
    shown = len(wire["hits"])
    bound = "at least " if meta["count_accuracy"] == "lower_bound" else ""
    print(f"-- {shown} of {bound}{meta['total_matches']} match(es), "
          f"{meta['timing']['total_ms']:.1f} ms", file=sys.stderr)
    for warning in meta["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


#: What may not appear raw in a line of a listing: control characters (a newline would split
#: a `path:line:col` line in two, an escape would drive the terminal) and the Unicode line and
#: paragraph separators.
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(path: str) -> str:
    """A path as one line of a listing shows it: undecodable bytes as `display_path` gives
    them (`caf\\xe9.py`), and control characters in the same form (`new\\x0aline.py`; those
    past ASCII as `\\u0085`, so they never read as a byte). `--json` carries names as they
    are."""
    from indexing.discover import display_path

    return _UNPRINTABLE.sub(_escape_char, display_path(path))


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def _highlight(text: str, spans: list[dict[str, int]], color: bool) -> str:
    out, last = [], 0
    open_, close = (MARK, UNMARK) if color else ("[", "]")
    for span in spans:
        out.append(text[last : span["start"]])
        out.append(open_ + text[span["start"] : span["end"]] + close)
        last = span["end"]
    out.append(text[last:])
    return "".join(out)


def _print_hit(hit: dict[str, Any], color: bool) -> None:
    from indexing.positions import char_index

    start = hit["selection"]["start"]  # the best match, inside the cited definition or chunk
    where = f"{printable(hit['path'])}:{start['line'] + 1}:{start['character'] + 1}"
    text = hit["snippet"]["text"]
    first = text.split("\n", 1)[0]
    # The wire counts highlights in UTF-16 units, as LSP does; this text is Python's.
    spans = [{"start": char_index(text, s["start"]), "end": char_index(text, s["end"])}
             for s in hit["snippet"]["highlights"]]
    spans = [s for s in spans if s["end"] <= len(first)]
    label = f"{hit['title']} ({hit['kind']})"
    if color:
        where, label = f"{BOLD}{where}{RESET}", f"{BOLD}{label}{RESET}"
    print(f"{where}  {label}  {_highlight(first, spans, color)}")


def _explain_line(r: dict[str, Any]) -> str:
    """A hit's wire `retrieval` in one line: each channel that found it with its rank and
    score, the fused score, and the priors that re-ranked it."""
    def num(value: float | None) -> str:
        return "-" if value is None else f"{value:.4g}"

    parts: list[str] = []
    if r["lexical_rank"] is not None or r["lexical_score"] is not None:
        weight = f" weight {r['lexical_weight']:g}" if r["lexical_weight"] is not None else ""
        parts.append(f"lexical #{r['lexical_rank'] or '-'} score {num(r['lexical_score'])}"
                     + weight)
    if r["vector_rank"] is not None or r["vector_score"] is not None:
        surface = f" ({r['vector_surface']})" if r["vector_surface"] else ""
        parts.append(f"vector #{r['vector_rank'] or '-'} score {num(r['vector_score'])}"
                     + surface)
    if r["fusion_score"] is not None:
        parts.append(f"fused {num(r['fusion_score'])}")
    if r["exact"]:
        parts.append("exact text")
    if r["priors"]:
        parts.append("priors " + ", ".join(f"{p['name']} x{p['factor']:g}"
                                           for p in r["priors"]))
    # A one-channel search names the channel; hybrid fusion and usage name their method.
    head = "" if r["method"] in ("lexical", "vector") and parts else r["method"]
    return "found by " + head + (": " if head and parts else "") + "; ".join(parts)


def cmd_status(args: argparse.Namespace) -> int:
    from indexing.discover import SKIPS_META_KEY

    team = _team(args)
    store: Any
    if team is not None:
        from indexing.postgres.store import PgStore
        from indexing.store_choice import safe_url

        store = PgStore.open(team.url, team.repo)
        where = {"store": safe_url(team.url), "repo": team.repo, "backend": "postgresql",
                 "bm25_extension": store.bm25_extension()}
        if team.vectors is not None:
            from indexing.embed import Embedder
            from indexing.postgres.team_vectors import status

            where["vectors"] = status(store, team.vectors, Embedder())  # not loaded: its dim
    else:
        from indexing.location import cannot_write
        from indexing.runtime.lease import WriterLease, lock_problem
        from kebab_lsp.workspace import Workspace

        ws = Workspace(_root(args), _settings(args, ("index_dir",)))
        store = ws.store
        # A team checkout's index holds only the files that differ from the team index. The
        # writer is the process keeping the index current (a server or `kebab mcp`), if any;
        # warnings say why none can be (a read-only index, a lock that is not a file).
        unwritable = None if store.problems() else cannot_write(ws.index_dir)
        where = {"root": str(ws.root), "index_dir": str(ws.index_dir),
                 "partial_of": ws.index.partial_of,
                 "writer": WriterLease(ws.index_dir).holder(),
                 "scanning": ws.index.scanning_elsewhere(),
                 "warnings": [*store.problems(),
                              *(w for w in (unwritable, lock_problem(ws.index_dir)) if w)]}
    stats = store.stats()
    last = (dt.datetime.fromtimestamp(stats.last_update, dt.UTC).isoformat(timespec="seconds")
            if stats.last_update else None)
    info = {
        **where,
        "schema_version": stats.schema_version,
        "files": stats.files,
        "symbols": stats.symbols,
        "chunks": stats.chunks,
        "languages": stats.langs,
        "last_update": last,
        "skipped": json.loads(store.meta_value(SKIPS_META_KEY) or "null"),
    }
    if args.json:
        print(json.dumps(info, sort_keys=True))
    else:
        for key, value in info.items():
            print(f"{key:15} {value}")
    return 0


def cmd_grant(args: argparse.Namespace) -> int:
    from indexing.postgres.grants import grant, revoke

    team = _team(args)
    assert team is not None  # --store and --repo are required
    if args.grant_action == "grant":
        grant(team.url, team.repo, args.role)
        print(f"granted {team.repo!r} to role {args.role!r}")
    elif revoke(team.url, team.repo, args.role):
        print(f"revoked {team.repo!r} from role {args.role!r}")
    else:
        print(f"role {args.role!r} had no grant of {team.repo!r}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from indexing.runtime.lease import IndexBusy
    from kebab_lsp.evaluate import EvalOptions, format_table, run_eval
    from search.evaluation import QuestionFileError

    root = _root(args)

    def log(message: str) -> None:
        print(f"eval: {message}", file=sys.stderr)

    asked = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in asked if m not in MODES]
    if unknown or not asked:
        print(f"kebab: --modes takes a comma-separated list of {', '.join(MODES)}; "
              f"got {args.modes!r}", file=sys.stderr)
        return 2
    run = EvalOptions(seed=args.seed, per_set=args.per_set, blanked=not args.no_blanked,
                      questions=Path(args.questions) if args.questions else None,
                      baseline=not args.no_baseline,
                      modes=tuple(m for m in MODES if m in asked))
    try:
        report = run_eval(root, _settings(args, EVAL_FLAGS), run, log)
    except QuestionFileError as exc:
        print(f"kebab: {exc}", file=sys.stderr)
        return 2
    except IndexBusy as exc:
        print(f"kebab: {exc}; give `kebab eval` an index of its own with --index-dir",
              file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(format_table(report))
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from indexing.location import cache_root, model_cache_dir
    from kebab_lsp import cache

    override = args.index_dir
    _check_index_dir(override)
    root = cache_root(override)
    if args.action == "list":
        indexes = cache.list_indexes(override)
        models = cache.models_size(override)
        if args.json:
            print(json.dumps({"root": str(root), "indexes": [i.as_json() for i in indexes],
                              "models": {"path": str(model_cache_dir(override)),
                                         "bytes": models},
                              "total_bytes": sum(i.bytes for i in indexes) + models},
                             sort_keys=True))
            return 0
        print(f"cache root: {root}")
        for index in indexes:
            updated = (dt.datetime.fromtimestamp(index.last_update).strftime("%Y-%m-%d %H:%M")
                       if index.last_update else "never")
            if index.workspace is None:
                where = "(workspace unknown: indexed before kebab recorded it)"
            else:
                where = str(index.workspace) + ("" if index.workspace_exists else "  (gone)")
            print(f"  {cache.human_size(index.bytes):>9}  {updated:16}  {index.path.name:28}"
                  f"  {where}")
        if models:
            print(f"  {cache.human_size(models):>9}  {'':16}  {'_models':28}"
                  "  the embedding model's optimized graph (shared, safe to delete)")
        total = sum(i.bytes for i in indexes) + models
        print(f"{len(indexes)} index(es), {cache.human_size(total)} in all")
        return 0
    if args.action == "prune":
        removal = cache.prune(override, dry_run=args.dry_run)
    else:
        workspaces = [Path(p) for p in args.paths]
        if not workspaces and not args.yes and not args.dry_run:
            if not sys.stdin.isatty():
                print(f"kebab: `kebab cache clear` removes every index under {root}; "
                      "add --yes to do it, or name the workspaces to forget", file=sys.stderr)
                return 2
            answer = input(f"Remove every index under {root}? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                return 1
        removal = cache.clear(workspaces, override, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    if args.json:
        print(json.dumps({"root": str(root), "dry_run": args.dry_run,
                          "removed": [i.as_json() for i in removal.removed],
                          "models_bytes": removal.models_bytes,
                          "kept_unknown": [i.as_json() for i in removal.kept_unknown],
                          "bytes": removal.bytes}, sort_keys=True))
        return 0
    for index in removal.removed:
        print(f"{verb} {index.path}  ({cache.human_size(index.bytes)}, "
              f"workspace {index.workspace or 'unknown'})")
    if removal.models_bytes:
        print(f"{verb} {model_cache_dir(override)}  ({cache.human_size(removal.models_bytes)})")
    print(f"{verb} {len(removal.removed)} index(es), {cache.human_size(removal.bytes)}")
    if removal.kept_unknown:
        print(f"kept {len(removal.kept_unknown)} index(es) of unknown workspace "
              "(`kebab cache list` shows them; `kebab cache clear` removes everything)")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    """What an editor's health check shows: this Python, this kebab, where indexes go and
    whether they can be written there, and whether the embedding model loads (it is loaded,
    and one text embedded). Status 1 when either fails."""
    import platform
    import time

    from indexing.embed import Embedder, EmbedderUnavailable
    from indexing.location import cache_root, model_cache_dir, unwritable_reason

    settings = _settings(args, ("index_dir", "model_dir"))
    unwritable = unwritable_reason(cache_root(settings.index_dir))
    started = time.perf_counter()
    model: dict[str, Any]
    try:
        spec = None
        if settings.model_dir:
            from indexing.embed import ModelSpec

            spec = ModelSpec(name=Path(settings.model_dir).name or "custom",
                             model_dir=Path(settings.model_dir))
        embedder = Embedder(spec, threads=1, cache_dir=model_cache_dir(settings.index_dir))
        vector = embedder.embed_query("where is the index stored")
        model = {"ok": True, "id": embedder.model_id, "dim": int(vector.shape[-1]),
                 "seconds": round(time.perf_counter() - started, 3)}
    except (EmbedderUnavailable, OSError, RuntimeError, ValueError) as exc:
        model = {"ok": False, "error": str(exc)}
    info = {"kebab": __version__, "python": sys.executable,
            "python_version": platform.python_version(),
            "cache_root": str(cache_root(settings.index_dir)),
            "index_location": {"ok": unwritable is None, "error": unwritable},
            "model": model}
    if args.json:
        print(json.dumps(info, sort_keys=True))
    else:
        print(f"kebab       {__version__}")
        print(f"python      {info['python_version']} ({sys.executable})")
        print(f"indexes in  {info['cache_root']}"
              + ("" if unwritable is None else f"  (cannot be used: {unwritable})"))
        print("model       " + (f"{model['id']} loads ({model['seconds']:.2f} s)" if model["ok"]
                                 else f"does not load: {model['error']}"))
    return 0 if model["ok"] and unwritable is None else 1


def cmd_serve(args: argparse.Namespace) -> int:
    from kebab_lsp.server import run_stdio

    run_stdio(log_level=args.log_level, log_file=args.log_file)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from kebab_mcp.server import run_stdio

    paths = [Path(p) for p in args.paths]
    missing = [str(p) for p in paths if not p.is_dir()]
    if missing:
        raise SystemExit(f"kebab: not a directory: {', '.join(missing)}")
    run_stdio(paths, _settings(args, MCP_FLAGS))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from search.request import add_arguments as add_request_flags

    parser = argparse.ArgumentParser(prog="kebab", description=__doc__)
    parser.add_argument("--version", action="version", version=f"kebab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, flags: tuple[str, ...]) -> None:
        p.add_argument("--json", action="store_true", help="print JSON")
        add_setting_flags(p, flags)

    p = sub.add_parser("index", help="build or update the index of a folder")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--rebuild", action="store_true", help="re-extract every file")
    p.add_argument("--list-skipped", action="store_true", help="list every skipped path")
    common(p, INDEX_FLAGS)
    add_store_flags(p)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search an indexed folder")
    add_request_flags(p)
    p.add_argument("path", nargs="?", default=".")
    common(p, tuple(f for f in SEARCH_FLAGS if f not in ("default_mode", "default_k")))
    add_store_flags(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("status", help="show where the index is and what it holds")
    p.add_argument("path", nargs="?", default=".")
    common(p, ("index_dir",))
    add_store_flags(p)
    p.set_defaults(func=cmd_status)

    for name, what in (("grant", "let ROLE (and its members) read a repository of a team index"),
                       ("revoke", "stop ROLE reading a repository of a team index")):
        p = sub.add_parser(name, help=what)
        p.add_argument("role", metavar="ROLE", help="a PostgreSQL role")
        add_store_flags(p, required=True, vectors=False)
        p.set_defaults(func=cmd_grant, grant_action=name)

    p = sub.add_parser("eval", help="score every search mode on queries drawn from the tree")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--per-set", type=int, default=50, help="queries per set")
    p.add_argument("--no-blanked", action="store_true",
                   help="skip the doc-blanked copy of the tree (the nl_blanked and file sets)")
    p.add_argument("--questions", default=None, metavar="FILE",
                   help="hand-written questions (JSON, see bench/questions/README.md), "
                        "scored as the 'hand' set")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the plain baseline (dense, bm25, hybrid) scored next to kebab")
    p.add_argument("--modes", default=",".join(MODES), metavar="LIST",
                   help="the modes to score, comma-separated (default: all); lexical alone "
                        "with --no-baseline embeds nothing")
    common(p, EVAL_FLAGS)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("mcp", help="run the MCP server (for coding agents) on stdio")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="workspace roots (default: the client's roots, else the current "
                        "directory)")
    add_setting_flags(p, MCP_FLAGS)
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("cache", help="list, prune or clear the indexes in the cache")
    actions = p.add_subparsers(dest="action", required=True)
    a = actions.add_parser("list", help="every index with its size and workspace")
    common(a, ("index_dir",))
    a = actions.add_parser("prune", help="remove the indexes of workspaces that no longer exist")
    a.add_argument("--dry-run", action="store_true", help="say what would go, remove nothing")
    common(a, ("index_dir",))
    a = actions.add_parser("clear", help="remove the indexes of the PATHs named, or of all "
                                         "workspaces and the model cache")
    a.add_argument("paths", nargs="*", metavar="PATH", help="workspaces whose index to remove")
    a.add_argument("--yes", action="store_true", help="clear everything without asking")
    a.add_argument("--dry-run", action="store_true", help="say what would go, remove nothing")
    common(a, ("index_dir",))
    p.set_defaults(func=cmd_cache)

    p = sub.add_parser("doctor", help="this Python and kebab, where indexes go (and whether "
                                      "they can be written), and whether the embedding model "
                                      "loads")
    common(p, ("index_dir", "model_dir"))
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("serve", help="run the language server on stdio")
    _serve_args(p)
    p.set_defaults(func=cmd_serve)
    return parser


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _serve_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stdio", action="store_true", help="accepted for client compatibility")
    p.add_argument("--log-level", default=os.environ.get("KEBAB_LOG_LEVEL", "info"))
    p.add_argument("--log-file", default=None)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    commands = _subcommands(parser)
    if argv and argv[0] in commands and argv[0] != "cache":
        # Intermixed, so `kebab search QUERY -k 5 PATH` works as people type it; after `--`,
        # as typed (Python 3.11's intermixed parse drops what follows it: `kebab search --
        # --dry-run` answered "the following arguments are required: query").
        rest = argv[1:]
        command = commands[argv[0]]
        args = command.parse_args(rest) if "--" in rest else command.parse_intermixed_args(rest)
    else:
        args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except Exception as exc:
        # A damaged index (rebuilt on next use), a refusing disk, an index folder that cannot
        # be made or written: only a command that opened the store or located an index can
        # raise one, so `kebab mcp` and `kebab serve` need not import them first.
        store, location = sys.modules.get("indexing.store"), sys.modules.get("indexing.location")
        if not ((store is not None and isinstance(exc, store.StoreError))
                or (location is not None and isinstance(exc, location.UnusableIndexDir))):
            raise
        message = str(exc)
        if location is not None and message.endswith(location.ELSEWHERE):
            message += f" (--index-dir DIR, or {location.ENV_INDEX_DIR}=DIR)"
        print(f"kebab: {message}", file=sys.stderr)
        return 1
    return code


def run() -> None:
    """The `kebab` console script.

    A search has printed its answer and holds nothing that needs cleaning up (it only read, or
    committed what it indexed), yet tearing down the interpreter, onnxruntime's and LanceDB's
    threads and a few hundred MB of buffers takes another 0.1-0.2 s before the shell prompt
    returns. So a search leaves at once; every other command exits normally. `main` itself
    always returns, for callers in the same process. A reader that stops reading early
    (`| head`) ends any command quietly, with `READER_GONE`.
    """
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        if not _stdout_gone():
            raise
        code = _reader_gone()
    if sys.argv[1:2] == ["search"]:
        with contextlib.suppress(BrokenPipeError):  # `2>&1 | head`: nobody reads that either
            sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


#: The exit status of a command whose reader went away (`kebab search x --json | head -c 10`):
#: what a shell reports for a process that SIGPIPE ended (128 + 13), as for `seq 1e6 | head`.
READER_GONE = 141


def _stdout_gone() -> bool:
    """Whether stdout is a pipe or socket nobody reads any more, so a BrokenPipeError was the
    reader leaving, not something else breaking (where `poll` cannot tell, it is assumed)."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return True


def _reader_gone() -> int:
    """The reader of stdout went away (`| head`): end quietly, without a traceback, and
    without another one when the interpreter flushes stdout on its way out (stdout is
    pointed at the null device, the usual Python recipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return READER_GONE


def serve_main() -> None:
    parser = argparse.ArgumentParser(prog="kebab-lsp", description="kebab language server")
    parser.add_argument("--version", action="version", version=f"kebab-lsp {__version__}")
    _serve_args(parser)
    args = parser.parse_args()
    cmd_serve(args)


def mcp_main() -> None:
    """The `kebab-mcp` console script: `kebab mcp` under its own name."""
    sys.exit(main(["mcp", *sys.argv[1:]]))


if __name__ == "__main__":
    run()

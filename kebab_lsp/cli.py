"""The `kebab` command line: index, search, status, serve.

`kebab search --json` prints exactly what the server answers to `kebab/search` (both go
through `kebab_lsp.convert`), so scripts and editors share one schema.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kebab_lsp.convert import result_wire
from kebab_lsp.workspace import Workspace, WorkspaceOptions
from search.types import (
    DEFAULT_K,
    MODES,
    InvalidQuery,
    SearchFilters,
    SearchRequest,
    SearchUnavailable,
)

if TYPE_CHECKING:
    from indexing.indexer import IndexSummary

BOLD, RESET = "\x1b[1m", "\x1b[0m"
MARK, UNMARK = "\x1b[1;31m", "\x1b[0m"


class Progress:
    """A one-line progress bar on a terminal; silent when stderr is not a terminal."""

    def __init__(self, label: str, stream: TextIO = sys.stderr) -> None:
        self.label = label
        self.stream = stream
        self.enabled = stream.isatty()
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


def _options(args: argparse.Namespace) -> WorkspaceOptions:
    return WorkspaceOptions(index_dir=args.index_dir, max_file_bytes=args.max_file_bytes,
                            model_dir=args.model_dir, embed_threads=args.embed_threads)


def _open(args: argparse.Namespace) -> Workspace:
    root = Path(args.path)
    if not root.is_dir():
        raise SystemExit(f"kebab: {root} is not a directory")
    ws = Workspace(root, _options(args))
    if ws.store.rebuilt_reason:
        print(f"kebab: {ws.store.rebuilt_reason}", file=sys.stderr)
    return ws


def cmd_index(args: argparse.Namespace) -> int:
    ws = _open(args)
    progress = Progress("indexing")
    try:
        summary = ws.indexer.index(progress=progress, rebuild=args.rebuild)
    finally:
        progress.close()
    out = summary.as_json()
    if not args.no_embed:
        embed_progress = Progress("embedding")
        try:
            synced = ws.sync_vectors(progress=embed_progress)
        finally:
            embed_progress.close()
        out["embedding"] = (
            {"embedded": synced.embedded, "from_cache": synced.from_cache,
             "deleted": synced.deleted, "seconds": round(synced.seconds, 3)}
            if synced else {"error": ws.vector_error}
        )
    if args.json:
        print(json.dumps(out, sort_keys=True))
    else:
        _print_summary(ws, summary, args.list_skipped)
        if "embedding" in out:
            print(f"  embedding: {out['embedding']}")
    return 0


def _print_summary(ws: Workspace, s: IndexSummary, list_skipped: bool) -> None:
    print(f"indexed {ws.root} -> {ws.index_dir}")
    print(
        f"  scanned {s.scanned}  new {s.new}  changed {s.changed}  unchanged {s.unchanged}  "
        f"deleted {s.deleted}  renamed {s.renamed}  skipped {s.skipped}  in {s.seconds:.2f}s"
    )
    if s.skipped_by_reason:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(s.skipped_by_reason.items()))
        print(f"  skipped by reason: {reasons}")
        if list_skipped:
            for path, reason in s.skipped_paths:
                print(f"    {reason:16} {path}")
        else:
            print("  (kebab index --list-skipped lists them)")


def _request(args: argparse.Namespace) -> SearchRequest:
    return SearchRequest(
        query=args.query,
        mode=args.mode,
        k=args.k,
        filters=SearchFilters(
            langs=tuple(args.lang or ()), kinds=tuple(args.kind or ()), path_glob=args.path_glob
        ),
        explain=args.explain,
    )


def cmd_search(args: argparse.Namespace) -> int:
    ws = _open(args)
    if ws.store.stats().files == 0:
        ws.indexer.index(progress=Progress("indexing"))
    try:
        result = ws.searcher.search(_request(args))
    except (InvalidQuery, SearchUnavailable) as exc:
        print(f"kebab: {exc}", file=sys.stderr)
        return 2
    wire = result_wire(result, explain=args.explain or args.json)
    if args.json:
        print(json.dumps(wire, ensure_ascii=False, sort_keys=True))
        return 0
    color = sys.stdout.isatty()
    for hit in wire["hits"]:
        _print_hit(hit, color)
    meta = wire["meta"]
    shown = len(wire["hits"])
    bound = "at least " if meta["count_accuracy"] == "lower_bound" else ""
    print(f"-- {shown} of {bound}{meta['total_matches']} match(es), "
          f"{meta['timing']['total_ms']:.1f} ms", file=sys.stderr)
    for warning in meta["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


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
    start = hit["location"]["range"]["start"]
    where = f"{hit['path']}:{start['line'] + 1}:{start['character'] + 1}"
    first = hit["snippet"]["text"].split("\n", 1)[0]
    spans = [s for s in hit["snippet"]["highlights"] if s["end"] <= len(first)]
    label = f"{hit['title']} ({hit['kind']})"
    if color:
        where, label = f"{BOLD}{where}{RESET}", f"{BOLD}{label}{RESET}"
    print(f"{where}  {label}  {_highlight(first, spans, color)}")


def cmd_status(args: argparse.Namespace) -> int:
    ws = _open(args)
    stats = ws.store.stats()
    last = (dt.datetime.fromtimestamp(stats.last_update, dt.UTC).isoformat(timespec="seconds")
            if stats.last_update else None)
    info = {
        "root": str(ws.root),
        "index_dir": str(ws.index_dir),
        "schema_version": stats.schema_version,
        "files": stats.files,
        "symbols": stats.symbols,
        "chunks": stats.chunks,
        "languages": stats.langs,
        "last_update": last,
    }
    if args.json:
        print(json.dumps(info, sort_keys=True))
    else:
        for key, value in info.items():
            print(f"{key:15} {value}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from kebab_lsp.evaluate import EvalOptions, format_table, run_eval
    from search.evaluation import QuestionFileError

    root = Path(args.path)
    if not root.is_dir():
        raise SystemExit(f"kebab: {root} is not a directory")

    def log(message: str) -> None:
        print(f"eval: {message}", file=sys.stderr)

    run = EvalOptions(seed=args.seed, per_set=args.per_set, blanked=not args.no_blanked,
                      questions=Path(args.questions) if args.questions else None,
                      baseline=not args.no_baseline)
    try:
        report = run_eval(root, _options(args), run, log)
    except QuestionFileError as exc:
        print(f"kebab: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        print(format_table(report))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from kebab_lsp.server import run_stdio

    run_stdio(log_level=args.log_level, log_file=args.log_file)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kebab", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--index-dir", default=None,
                       help="cache root for indexes (default: $KEBAB_INDEX_DIR or the user "
                            "cache dir)")
        p.add_argument("--max-file-bytes", type=int, default=1024 * 1024)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("--model-dir", default=os.environ.get("KEBAB_MODEL_DIR"),
                       help="a fastembed-compatible model directory (default: bundled MiniLM)")
        p.add_argument("--embed-threads", type=int, default=None,
                       help="threads for embedding (default: all cores but one)")

    p = sub.add_parser("index", help="build or update the index of a folder")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--rebuild", action="store_true", help="re-extract every file")
    p.add_argument("--list-skipped", action="store_true", help="list every skipped path")
    p.add_argument("--no-embed", action="store_true", help="skip embeddings (lexical only)")
    common(p)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search an indexed folder")
    p.add_argument("query")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("-k", type=int, default=DEFAULT_K)
    p.add_argument("--mode", choices=MODES, default="auto")
    p.add_argument("--lang", action="append")
    p.add_argument("--kind", action="append")
    p.add_argument("--path-glob", default=None)
    p.add_argument("--explain", action="store_true")
    common(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("status", help="show where the index is and what it holds")
    p.add_argument("path", nargs="?", default=".")
    common(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("eval", help="score every search mode on queries drawn from the tree")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--per-set", type=int, default=50, help="queries per set")
    p.add_argument("--no-blanked", action="store_true",
                   help="skip the nl set on a doc-blanked copy of the tree")
    p.add_argument("--questions", default=None, metavar="FILE",
                   help="hand-written questions (JSON, see bench/questions/README.md), "
                        "scored as the 'hand' set")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the plain baseline (dense, bm25, hybrid) scored next to kebab")
    common(p)
    p.set_defaults(func=cmd_eval)

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
    if argv and argv[0] in commands:
        # Intermixed, so `kebab search QUERY -k 5 PATH` works as people type it.
        args = commands[argv[0]].parse_intermixed_args(argv[1:])
    else:
        args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def run() -> None:
    """The `kebab` console script.

    A search has printed its answer and holds nothing that needs cleaning up (it only read, or
    committed what it indexed), yet tearing down the interpreter, onnxruntime's and LanceDB's
    threads and a few hundred MB of buffers takes another 0.1-0.2 s before the shell prompt
    returns. So a search leaves at once; every other command exits normally. `main` itself
    always returns, for callers in the same process.
    """
    code = main()
    if sys.argv[1:2] == ["search"]:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def serve_main() -> None:
    parser = argparse.ArgumentParser(prog="kebab-lsp", description="kebab language server")
    _serve_args(parser)
    args = parser.parse_args()
    cmd_serve(args)


if __name__ == "__main__":
    run()

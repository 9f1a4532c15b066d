"""`kebab eval`: how well each search mode answers questions about the tree itself, next to a
plain baseline run on the same tree, the same questions and the same model.

The nl set is also scored on a copy of the tree whose doc text is blanked (same lines and
columns, docs replaced by spaces): with the docs in the index, "search by meaning" would just
be searching for the docstring's own words. The same copy has its top-of-file docs blanked
too, for the file set (a file's top doc must find the file). The similar set asks with a
function's code, its own names renamed, for the original. Hand-written questions
(`--questions`) are the set that no generator can tune toward.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import attrs

from indexing.discover import is_ignore_file
from indexing.embed import Embedder
from indexing.filters import Filters
from indexing.records import RefKind
from indexing.runtime import shared_embedder
from indexing.runtime.lease import IndexBusy, take_for_one_shot
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.baseline import ARMS, Baseline, Citation, baseline_spec
from search.evaluation import (
    SETS,
    EvalQuery,
    Scores,
    Target,
    aggregate,
    blank_docs,
    blank_top_doc,
    file_queries,
    generate,
    hit_at,
    load_questions,
    score_ranking,
    similar_queries,
    usage_queries,
)
from search.grouping import group
from search.request import MAX_QUERY_CHARS
from search.symbols import SymbolIndex
from search.types import MODES, SearchRequest

K = 50
Log = Callable[[str], None]
#: Sets the baseline answers: the ones asked in words or by name. Exact text is grep's job.
BASELINE_SETS = frozenset({"name", "words", "nl", "nl_blanked", "hand"})
BASELINE_PREFIX = "baseline_"


@dataclass(frozen=True, slots=True)
class EvalOptions:
    seed: int = 7
    per_set: int = 50
    blanked: bool = True
    questions: Path | None = None
    baseline: bool = True
    #: The modes scored. Without `vector`, `hybrid` and `auto` the tree is not embedded (nor is
    #: anything, without the baseline), so a change to the lexical arm is measured in minutes
    #: rather than the hour embedding the ten trees of `make bench` takes.
    modes: tuple[str, ...] = MODES

    @property
    def embeds(self) -> bool:
        return any(mode != "lexical" for mode in self.modes)


def _timed(queries: Sequence[EvalQuery], ranked: Callable[[str], Sequence[Citation]]) -> Scores:
    per_query, latencies, hits20 = [], [], []
    for q in queries:
        t0 = time.perf_counter()
        found = ranked(q.text)
        latencies.append((time.perf_counter() - t0) * 1000)
        per_query.append(score_ranking(found, q.targets))
        hits20.append(hit_at(found, q.targets, 20))
    scores = aggregate(per_query, latencies)
    if queries and queries[0].set == "usage":
        scores.hit20 = sum(hits20) / len(hits20)
    return scores


def _call_sites(ws: Workspace) -> Callable[[str], list[Target]]:
    def sites(name: str) -> list[Target]:
        return [Target(k.path, k.line, k.line)
                for k in ws.store.ref_keys(name, Filters(), (RefKind.CALL.value,))]

    return sites


def _kebab(ws: Workspace, mode: str, intent: str = "auto") -> Callable[[str], list[Citation]]:
    def ranked(text: str) -> list[Citation]:
        result = ws.searcher.search(SearchRequest(text[:MAX_QUERY_CHARS], mode=mode, k=K,
                                                  intent=intent))
        return [(h.path, h.span.start_line, h.chunk_lines) for h in result.hits]

    return ranked


def _kebab_files(ws: Workspace, mode: str) -> Callable[[str], list[Citation]]:
    """The `files` group of a grouped answer, in its order: what the file set asks of a
    reader who wants the file, not a snippet of it."""
    def ranked(text: str) -> list[Citation]:
        result = ws.searcher.search(SearchRequest(text[:MAX_QUERY_CHARS], mode=mode, k=K,
                                                  group=True))
        files = group(result.hits, lambda _root, _path: ws.store, result.files).files
        return [(f.path, 0) for f in files]

    return ranked


def _symbols(index: SymbolIndex) -> Callable[[str], list[Citation]]:
    def ranked(text: str) -> list[Citation]:
        return [(m.row.path, m.row.symbol.selection.start_line, (m.row.symbol.range.start_line,
                 m.row.symbol.range.end_line)) for m in index.match(text, K).items]

    return ranked


def _score_set(ws: Workspace, name: str, queries: Sequence[EvalQuery],
               baseline: Baseline | None, modes: Sequence[str]) -> dict[str, Any]:
    intent = "similar" if name == "similar" else "auto"  # asked as kebab/similar asks
    out = {mode: _timed(queries, _kebab(ws, mode, intent)).as_json() for mode in modes}
    if name == "file":  # the files group, where the file vector ranks files (`search.grouping`)
        for mode in modes:
            out[f"files_{mode}"] = _timed(queries, _kebab_files(ws, mode)).as_json()
    if name in ("name", "fuzzy", "words"):
        out["workspace_symbol"] = _timed(queries, _symbols(SymbolIndex(ws.store))).as_json()
    if baseline is not None and name in BASELINE_SETS:
        for arm in ARMS:
            def ranked(text: str, arm: str = arm) -> Sequence[Citation]:
                return baseline.search(arm, text, K)

            out[BASELINE_PREFIX + arm] = _timed(queries, ranked).as_json()
    return out


def _baseline(ws: Workspace, embedder: Embedder | None, log: Log) -> Baseline | None:
    if embedder is None:
        return None
    log(f"building the baseline for {ws.root.name}")
    return Baseline(ws.store, embedder)


def _baseline_embedder(options: Settings) -> Embedder | None:
    base = shared_embedder(options.model_dir, options.embed_threads)
    ok, _ = base.available()
    if not ok:
        return None
    return Embedder(baseline_spec(base.spec), threads=base.threads)


def _blanked_copy(ws: Workspace, dest: Path) -> None:
    """The indexed files again under `dest`, their doc text blanked. Ignore files are copied
    as they are: they decide what the copy indexes, and their globs are not docs."""
    docs: dict[str, list[str]] = {}
    for row in ws.store.all_symbols():
        if row.symbol.doc:
            docs.setdefault(row.path, []).append(row.symbol.doc)
    for file in ws.store.file_texts():
        target = dest / file.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if is_ignore_file(file.path):
            target.write_text(file.text, encoding="utf-8")
            continue
        text = blank_docs(file.text, docs.get(file.path, []))
        target.write_text(blank_top_doc(text), encoding="utf-8")


@contextmanager
def _indexed(root: Path, options: Settings, log: Log, embed: bool = True
             ) -> Iterator[Workspace]:
    """The tree indexed and (with `embed`) embedded, for the length of the block, with the
    writer lease of its index held: an index that a running server writes is refused
    (`IndexBusy`), since two writers would tear the vector store's files from under each
    other."""
    ws = Workspace(root, options)
    try:
        lease = take_for_one_shot(ws.index_dir, ws.root)
    except IndexBusy:
        ws.close()
        raise
    try:
        log(f"indexing {ws.root}")
        ws.indexer.index()
        if embed:
            log("embedding")
            ws.sync_vectors()
        yield ws
    finally:
        ws.close()
        lease.release()


def run_eval(root: Path, options: Settings, run: EvalOptions, log: Log) -> dict[str, Any]:
    with _indexed(root, options, log, run.embeds) as ws:
        return _run(ws, options, run, log)


def _run(ws: Workspace, options: Settings, run: EvalOptions, log: Log) -> dict[str, Any]:
    queries = generate(ws.store.all_symbols(), ws.store.file_texts(), run.seed, run.per_set)
    queries += usage_queries(ws.store.all_symbols(), _call_sites(ws), run.seed, run.per_set)
    queries += similar_queries(ws.store.all_symbols(), ws.store.file_texts(), run.seed,
                               run.per_set)
    if run.questions is not None:
        known = {f.path for f in ws.store.file_texts()}
        queries += load_questions(run.questions, known)
    embedder = _baseline_embedder(options) if run.baseline else None
    if run.baseline and embedder is None:
        log("the embedding model is unavailable: no baseline")
    baseline = _baseline(ws, embedder, log)
    report: dict[str, Any] = {"root": str(ws.root), "seed": run.seed, "k": K, "sets": {},
                              "modes": list(run.modes),
                              "baseline": baseline is not None}
    for name in (*SETS, "usage", "similar", "hand"):
        subset = [q for q in queries if q.set == name]
        if not subset:
            continue
        log(f"scoring {name} ({len(subset)} queries)")
        report["sets"][name] = _score_set(ws, name, subset, baseline, run.modes)
    if run.blanked:
        nl = [q for q in queries if q.set == "nl"]
        with tempfile.TemporaryDirectory(prefix="kebab-eval-") as tmp:
            copy = Path(tmp) / ws.root.name
            _blanked_copy(ws, copy)
            blank_options = attrs.evolve(options, index_dir=str(Path(tmp) / "index"))
            with _indexed(copy, blank_options, log, run.embeds) as blank_ws:
                log(f"scoring nl_blanked ({len(nl)} queries) on a doc-blanked copy")
                report["sets"]["nl_blanked"] = _score_set(
                    blank_ws, "nl_blanked", nl, _baseline(blank_ws, embedder, log), run.modes)
                files = file_queries(ws.store.file_texts(), ws.store.all_symbols(), run.seed,
                                     run.per_set)
                if files:
                    log(f"scoring file ({len(files)} queries) on the copy")
                    report["sets"]["file"] = _score_set(blank_ws, "file", files, None,
                                                        run.modes)
            shutil.rmtree(copy, ignore_errors=True)
    return report


def format_table(report: dict[str, Any]) -> str:
    cols = ("n", "mrr@10", "hit@1", "hit@5", "hit@20", "recall@20", "recall@50", "p50_ms",
            "p95_ms")
    lines = [f"{'set':11} {'mode':17} " + " ".join(f"{c:>9}" for c in cols)]
    for set_name, modes in report["sets"].items():
        for mode, scores in modes.items():
            lines.append(f"{set_name:11} {mode:17} " +
                         " ".join(f"{scores.get(c, '-'):>9}" for c in cols))
    return "\n".join(lines)

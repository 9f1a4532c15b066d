"""What a person at a shell waits for: `kebab search` with a question in words (which runs the
vector arm: model load, LanceDB, SQLite), a no-change `kebab index`, and `rg` on the same tree
for scale; plus how soon a cold tree's chunks have vectors.

Every command is a fresh process, as typed at a shell, timed after one untimed warm-up run
(byte code compiled, files in the page cache), so the figures are warm-cache wall times of the
whole process. `PYTHONDONTWRITEBYTECODE` is removed from the children's environment: without
byte code every run would compile kebab's modules again, which no installed copy does.

The tree must have complete vectors for the query figures to mean anything, and embedding the
main tree (Django, 62k chunks) takes about 16 minutes, so by default this runs on click 8.1.7
(128 indexed files, 1.8k chunks: also the ~130-file repository of the no-change goal).
`KEBAB_BENCH_CLI_CORPUS=django` runs it on the main tree (embedding it first), and
`KEBAB_BENCH_CLI_INDEX=DIR` reuses an index root that already holds that tree's vectors.

Like every latency figure of the bench, each is timed in passes (bench/stats.py), each pass
after its own warm-up run; the cold embed is repeated in fresh index roots (once in a quick run).
The report and the goals are in bench/report.py and bench/goals.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import COLD_PASSES, PASSES, QUICK
from bench.corpora import Corpus
from bench.stats import figure, load, values_figure

QUESTIONS: dict[str, tuple[str, ...]] = {
    "click": (
        "how are command line options parsed",
        "where does a default value come from an environment variable",
        "how is the help page formatted and wrapped",
        "what happens when a required argument is missing",
        "how does shell completion find the candidates",
    ),
    "django": (
        "how are request bodies decoded",
        "where are database migrations applied to the schema",
        "how are passwords hashed and checked",
        "how is the csrf token verified on a request",
        "how are template variables resolved in a context",
    ),
}
GENERIC_QUESTIONS = (
    "how are errors reported to the caller",
    "where is the configuration read from disk",
    "how are values converted to strings",
    "what happens when a request times out",
    "how are tests set up and torn down",
)


def corpus_for_cli() -> Corpus:
    key = os.environ.get("KEBAB_BENCH_CLI_CORPUS", "click")
    for corpus in (*corpora.CORPORA, *corpora.EVAL_CORPORA):
        if corpus.key == key:
            return corpus
    raise ValueError(f"KEBAB_BENCH_CLI_CORPUS={key!r} is not a bench corpus")


def child_env(index_root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["KEBAB_INDEX_DIR"] = str(index_root)
    return env


def kebab_argv() -> list[str]:
    """The installed `kebab` console script next to this interpreter, as a user runs it."""
    script = Path(sys.executable).with_name("kebab")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kebab_lsp.cli"]


def timed(argv: list[str], env: dict[str, str], cwd: Path | None = None
          ) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, check=False,
                          timeout=600)
    return time.perf_counter() - t0, done


# -- a cold embed, in a child process -------------------------------------------------------------


def embed_child(root: str, index_root: str) -> None:
    """Entry of `python -m bench.cli_latency --embed-child ROOT INDEX_ROOT`: a lexical index, then
    a cold vector sync with a timestamp at every write batch; one JSON line on stdout."""
    from indexing.settings import Settings
    from indexing.vector_index import embed_priority
    from kebab_lsp.workspace import Workspace

    ws = Workspace(Path(root), Settings(index_dir=str(index_root)))
    t0 = time.perf_counter()
    ws.indexer.index()
    lexical_s = time.perf_counter() - t0
    marks: list[tuple[float, int]] = []
    t1 = time.perf_counter()
    synced = ws.sync_vectors(progress=lambda done, _total: marks.append(
        (time.perf_counter() - t1, done)))
    embed_s = time.perf_counter() - t1
    if synced is None:
        raise SystemExit(f"no vectors: {ws.vector_error}")
    tiers: dict[int, int] = {}
    for src in ws.store.embedding_sources():
        tier = embed_priority(src, set())
        tiers[tier] = tiers.get(tier, 0) + 1
    vindex = ws.vector_index()
    total = marks[-1][1] if marks else 0

    def until(count: int) -> float | None:
        return next((t for t, done in marks if done >= count), None) if count else 0.0

    print(json.dumps({
        "lexical_s": lexical_s, "embed_s": embed_s, "chunks": total,
        "embedded": synced.embedded, "from_cache": synced.from_cache,
        "threads": vindex.embedder.threads if vindex else None,
        "t50_s": until((total + 1) // 2), "t100_s": until(total),
        "documented_definitions": tiers.get(1, 0),
        "t_documented_s": until(tiers.get(0, 0) + tiers.get(1, 0)),
        "chunks_per_s": total / embed_s if embed_s else None,
    }))
    ws.close()


def _one_cold_embed(root: Path, index_root: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "bench.cli_latency", "--embed-child", str(root),
                           str(index_root)], capture_output=True, text=True, check=False,
                          env=child_env(index_root), cwd=Path(__file__).resolve().parent.parent)
    if done.returncode != 0:
        raise RuntimeError(f"cold embed failed: {done.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def cold_embed(root: Path, index_root: Path, scratch: Path, passes: int) -> dict[str, Any]:
    """`passes` cold embeds: the first into `index_root`, which the query figures then use, the
    others into fresh roots under `scratch` (so nothing comes from the vector cache)."""
    runs: list[dict[str, Any]] = []
    loads: list[float] = []
    for i in range(passes):
        target = index_root if i == 0 else scratch / f"cold-embed-{i}"
        loads.append(load())
        runs.append(_one_cold_embed(root, target))
        if i:
            shutil.rmtree(target, ignore_errors=True)
    first = runs[0]
    return {
        **{k: first[k] for k in ("chunks", "embedded", "from_cache", "threads",
                                 "documented_definitions")},
        **{k: values_figure([r[k] for r in runs])
           for k in ("lexical_s", "embed_s", "t50_s", "t100_s", "t_documented_s",
                     "chunks_per_s")},
        "pass_load": loads,
    }


# -- commands at a shell ------------------------------------------------------------------------


def semantic_queries(root: Path, index_root: Path, questions: tuple[str, ...], rounds: int,
                     passes: int) -> dict[str, Any]:
    env = child_env(index_root)
    argv = kebab_argv()
    runs: list[list[float]] = []
    plans: set[str] = set()
    warnings: set[str] = set()
    loads: list[float] = []
    for _ in range(passes):
        loads.append(load())
        timed([*argv, "search", questions[0], str(root), "-k", "10"], env)  # warm-up
        seconds: list[float] = []
        for _ in range(rounds):
            for question in questions:
                elapsed, done = timed([*argv, "search", question, str(root), "-k", "10",
                                       "--json"], env)
                if done.returncode != 0:
                    raise RuntimeError(f"kebab search {question!r} failed: "
                                       f"{done.stderr[-1000:]}")
                meta = json.loads(done.stdout)["meta"]
                plans.add(str(meta.get("query_plan")))
                warnings.update(meta.get("warnings") or [])
                seconds.append(elapsed)
        runs.append(seconds)
    return figure(runs) | {"plans": sorted(plans), "warnings": sorted(warnings)[:5],
                           "pass_load": loads}


def rg_queries(root: Path, questions: tuple[str, ...], rounds: int,
               passes: int) -> dict[str, Any] | None:
    """`rg -i -l -F` for each question's longest word: what a person greps for instead."""
    rg = corpora.ensure_apt("rg", "ripgrep")
    if rg is None:
        return None
    words = [max(q.split(), key=len) for q in questions]
    argv = [rg, "-i", "-l", "-F", "--no-messages", "--"]
    runs: list[list[float]] = []
    loads: list[float] = []
    for _ in range(passes):
        loads.append(load())
        timed([*argv, words[0], "."], dict(os.environ), cwd=root)  # warm-up
        runs.append([timed([*argv, w, "."], dict(os.environ), cwd=root)[0]
                     for _ in range(rounds) for w in words])
    return figure(runs) | {"words": words, "pass_load": loads}


def noop_index(root: Path, index_root: Path, runs_per_pass: int, passes: int,
               *extra: str) -> dict[str, Any]:
    env = child_env(index_root)
    argv = [*kebab_argv(), "index", str(root), "--json", *extra]
    runs: list[list[float]] = []
    reports: list[dict[str, Any]] = []
    loads: list[float] = []
    for _ in range(passes):
        loads.append(load())
        timed(argv, env)  # warm-up; the first also catches up anything left to do
        seconds: list[float] = []
        for _ in range(runs_per_pass):
            elapsed, done = timed(argv, env)
            if done.returncode != 0:
                raise RuntimeError(f"kebab index failed: {done.stderr[-1000:]}")
            seconds.append(elapsed)
            reports.append(json.loads(done.stdout))
        runs.append(seconds)
    changed = sum(r["new"] + r["changed"] + r["deleted"] for r in reports)
    embedded = sum((r.get("embedding") or {}).get("embedded", 0) for r in reports)
    return figure(runs) | {"files": reports[-1]["scanned"], "changed": changed,
                           "embedded": embedded, "pass_load": loads}


def run(work: Path, passes: int = PASSES, cold_passes: int = COLD_PASSES) -> dict[str, Any]:
    corpus = corpus_for_cli()
    root = corpora.fetch(corpus)
    reuse = os.environ.get("KEBAB_BENCH_CLI_INDEX")
    index_root = Path(reuse) if reuse else work / "cli-index"
    out: dict[str, Any] = {"corpus": corpus.label, "reused_index": bool(reuse),
                           "passes": passes}
    if not reuse:
        out["cold_embed"] = cold_embed(root, index_root, work, cold_passes)
    questions = QUESTIONS.get(corpus.key, GENERIC_QUESTIONS)
    rounds = 1 if QUICK else 4
    out["questions"] = list(questions)
    out["search"] = semantic_queries(root, index_root, questions, rounds, passes)
    out["rg"] = rg_queries(root, questions, rounds, passes)
    runs_per_pass = 3 if QUICK else 5
    out["noop_index"] = noop_index(root, index_root, runs_per_pass, passes)
    out["noop_index_no_embed"] = noop_index(root, index_root, runs_per_pass, passes,
                                            "--no-embed")
    return out


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--embed-child":
        embed_child(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit("usage: python -m bench.cli_latency --embed-child ROOT INDEX_ROOT")

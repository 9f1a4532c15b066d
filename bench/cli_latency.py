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
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpora
from bench.corpora import Corpus

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


def summary(seconds: list[float]) -> dict[str, float]:
    from bench.run import lat

    return lat(seconds)


# -- a cold embed, in a child process -------------------------------------------------------------


def embed_child(root: str, index_root: str) -> None:
    """Entry of `python -m bench.cli_latency --embed-child ROOT INDEX_ROOT`: a lexical index, then
    a cold vector sync with a timestamp at every write batch; one JSON line on stdout."""
    from indexing.vector_index import embed_priority
    from kebab_lsp.workspace import Workspace, WorkspaceOptions

    ws = Workspace(Path(root), WorkspaceOptions(index_dir=index_root))
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


def cold_embed(root: Path, index_root: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "bench.cli_latency", "--embed-child", str(root),
                           str(index_root)], capture_output=True, text=True, check=False,
                          env=child_env(index_root), cwd=Path(__file__).resolve().parent.parent)
    if done.returncode != 0:
        raise RuntimeError(f"cold embed failed: {done.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


# -- commands at a shell ------------------------------------------------------------------------


def semantic_queries(root: Path, index_root: Path, questions: tuple[str, ...],
                     rounds: int) -> dict[str, Any]:
    env = child_env(index_root)
    argv = kebab_argv()
    timed([*argv, "search", questions[0], str(root), "-k", "10"], env)  # warm-up
    seconds: list[float] = []
    plans: set[str] = set()
    warnings: set[str] = set()
    for _ in range(rounds):
        for question in questions:
            elapsed, done = timed([*argv, "search", question, str(root), "-k", "10", "--json"],
                                  env)
            if done.returncode != 0:
                raise RuntimeError(f"kebab search {question!r} failed: {done.stderr[-1000:]}")
            meta = json.loads(done.stdout)["meta"]
            plans.add(str(meta.get("query_plan")))
            warnings.update(meta.get("warnings") or [])
            seconds.append(elapsed)
    return summary(seconds) | {"plans": sorted(plans), "warnings": sorted(warnings)[:5]}


def rg_queries(root: Path, questions: tuple[str, ...], rounds: int) -> dict[str, Any] | None:
    """`rg -i -l -F` for each question's longest word: what a person greps for instead."""
    rg = corpora.ensure_apt("rg", "ripgrep")
    if rg is None:
        return None
    words = [max(q.split(), key=len) for q in questions]
    timed([rg, "-i", "-l", "-F", words[0], "."], dict(os.environ), cwd=root)
    seconds = [timed([rg, "-i", "-l", "-F", "--no-messages", "--", w, "."], dict(os.environ),
                     cwd=root)[0] for _ in range(rounds) for w in words]
    return summary(seconds) | {"words": words}


def noop_index(root: Path, index_root: Path, rounds: int, *extra: str) -> dict[str, Any]:
    env = child_env(index_root)
    argv = [*kebab_argv(), "index", str(root), "--json", *extra]
    timed(argv, env)  # warm-up; also catches up anything left to do
    seconds: list[float] = []
    reports: list[dict[str, Any]] = []
    for _ in range(rounds):
        elapsed, done = timed(argv, env)
        if done.returncode != 0:
            raise RuntimeError(f"kebab index failed: {done.stderr[-1000:]}")
        seconds.append(elapsed)
        reports.append(json.loads(done.stdout))
    changed = sum(r["new"] + r["changed"] + r["deleted"] for r in reports)
    embedded = sum((r.get("embedding") or {}).get("embedded", 0) for r in reports)
    return summary(seconds) | {"files": reports[-1]["scanned"], "changed": changed,
                               "embedded": embedded}


def run(work: Path, quick: bool) -> dict[str, Any]:
    corpus = corpus_for_cli()
    root = corpora.fetch(corpus)
    reuse = os.environ.get("KEBAB_BENCH_CLI_INDEX")
    index_root = Path(reuse) if reuse else work / "cli-index"
    out: dict[str, Any] = {"corpus": corpus.label, "reused_index": bool(reuse)}
    if not reuse:
        out["cold_embed"] = cold_embed(root, index_root)
    questions = QUESTIONS.get(corpus.key, GENERIC_QUESTIONS)
    rounds = 1 if quick else 4
    out["questions"] = list(questions)
    out["search"] = semantic_queries(root, index_root, questions, rounds)
    out["rg"] = rg_queries(root, questions, rounds)
    out["noop_index"] = noop_index(root, index_root, 3 if quick else 10)
    out["noop_index_no_embed"] = noop_index(root, index_root, 3 if quick else 10, "--no-embed")
    return out


# -- report -------------------------------------------------------------------------------------


def render(c: dict[str, Any], add: Any) -> None:
    from bench.run import f1, ratio

    add(f"## The command line: questions in words, no-change index ({c['corpus']})")
    add("")
    add("Each command is a fresh process after one warm-up run (byte code compiled, page cache "
        "warm). `kebab search` runs in `auto` mode; every question routed to the vector arm "
        f"(query plans seen: {', '.join(c['search']['plans'])}).")
    add("")
    add("| command | n | p50 ms | p95 ms | max ms |")
    add("|---|---:|---:|---:|---:|")
    rows = [("`kebab search` a question in words (-k 10)", c["search"])]
    if c.get("rg"):
        rows.append(("`rg -i -l -F` its longest word", c["rg"]))
    rows += [(f"`kebab index`, nothing changed ({c['noop_index']['files']:,} files)",
              c["noop_index"]),
             ("`kebab index --no-embed`, nothing changed", c["noop_index_no_embed"])]
    for label, v in rows:
        add(f"| {label} | {v['n']} | {f1(v['p50_ms'])} | {f1(v['p95_ms'])} | "
            f"{f1(v['max_ms'])} |")
    add("")
    if c.get("rg"):
        add(f"kebab / rg (p50): {ratio(c['search']['p50_ms'], c['rg']['p50_ms'])}; rg finds "
            "files containing a word, kebab ranks definitions by meaning.")
        add("")
    if c["search"]["warnings"]:
        add(f"Warnings seen: {'; '.join(c['search']['warnings'])}")
        add("")
    e = c.get("cold_embed")
    if e:
        add("### A cold embed of the same tree")
        add("")
        add(f"`kebab index` in a fresh index (lexical {e['lexical_s']:.1f} s), then the vector "
            f"sync, {e['threads']} onnxruntime thread(s): {e['chunks']:,} chunks "
            f"({e['embedded']:,} embedded, {e['from_cache']:,} duplicates from the cache) at "
            f"{e['chunks_per_s']:.1f} chunks/s. Times from the start of the sync (model load "
            "included).")
        add("")
        add("| 50% of chunks | 100% of chunks | all documented definitions "
            f"({e['documented_definitions']:,}, embedded first) |")
        add("|---:|---:|---:|")
        add(f"| {f1(e['t50_s'], ' s')} | {f1(e['t100_s'], ' s')} | "
            f"{f1(e['t_documented_s'], ' s')} |")
        add("")


def goals(c: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """(goal, figure, met) rows for the report's Goals table; the no-change goal is set for a
    repository of about 130 files, so on a large tree its figure is shown but not judged."""
    from bench.run import f1

    s, n = c["search"]["p50_ms"], c["noop_index"]["p50_ms"]
    files = c["noop_index"]["files"]
    return [
        (f"`kebab search` question in words p50 < 1 s ({c['corpus']})", f1(s, " ms"), s < 1000),
        ("no-change `kebab index` < 1 s on ~130 files", f"{f1(n, ' ms')} on {files:,} files",
         n < 1000 if files < 500 else None),
    ]


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--embed-child":
        embed_child(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit("usage: python -m bench.cli_latency --embed-child ROOT INDEX_ROOT")

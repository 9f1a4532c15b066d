"""The bench's knobs, read from the environment once, so every measuring module agrees on them.

  KEBAB_BENCH_QUICK=1          small smoke run (few queries, tiny embedding sample, one cold pass)
  KEBAB_BENCH_PASSES=3         passes over each query set; a goal is met only if every pass meets it
  KEBAB_BENCH_NAMES=50         exact-name queries per pass (workspace/symbol, ctags; sizes the rest)
  KEBAB_BENCH_EDITS=20         didSave edits timed per pass
  KEBAB_BENCH_EMBED_SAMPLE=N   chunks embedded per pass for the throughput figures
  KEBAB_BENCH_PYRIGHT=N        pyright queries per pass (0 skips pyright)
  KEBAB_BENCH_SERVER_WORKERS=1 `workers` setting of the server under test (see report)
  KEBAB_BENCH_KEEP_INDEX=1     keep the temporary index directory
  KEBAB_BENCH_CLI_CORPUS=click tree of the command-line figures (django: embeds the main tree)
  KEBAB_BENCH_CLI_INDEX=DIR    reuse an index root that already holds that tree's vectors
  KEBAB_BENCH_EVAL_PER_SET=N   `kebab eval` queries per set in the Quality step
  KEBAB_BENCH_TEAM_CORPUS=django  tree of the team-index step (SQLite against PostgreSQL)
  KEBAB_BENCH_TEAM_CLIENTS=20  client processes at once against one PostgreSQL
  KEBAB_BENCH_TEAM_SECONDS=10  seconds of each pass of those clients
  KEBAB_BENCH_SKIP=a,b         steps to leave out (see STEPS), e.g. quality or pyright,background
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results"
SEED = 20240607

# Every step `KEBAB_BENCH_SKIP` may name; the cold index of the corpora is not one, because every
# other step reads the index it builds.
STEPS = ("embedding", "cli", "server", "background", "pool_probe", "ctags", "pyright",
         "synthetic_symbols", "save_profile", "languages", "ctags_languages", "team_store",
         "quality")

QUICK = os.environ.get("KEBAB_BENCH_QUICK", "") not in ("", "0")


def env_int(name: str, default: int, quick: int) -> int:
    """An integer knob: its value when set, else the default of a full or a quick run."""
    raw = os.environ.get(name)
    if raw:
        return int(raw)
    return quick if QUICK else default


def _skip() -> frozenset[str]:
    names = frozenset(s.strip() for s in os.environ.get("KEBAB_BENCH_SKIP", "").split(",")
                      if s.strip())
    unknown = names - set(STEPS)
    if unknown:
        raise SystemExit(f"KEBAB_BENCH_SKIP: unknown step(s) {sorted(unknown)}; "
                         f"known: {', '.join(STEPS)}")
    return names


PASSES = env_int("KEBAB_BENCH_PASSES", 3, 3)
# Steps that start from nothing (a cold index, a cold embed, a folder indexed inside the server)
# cost tens of seconds each: a quick run does them once.
COLD_PASSES = PASSES if not QUICK else 1
N_NAMES = env_int("KEBAB_BENCH_NAMES", 50, 10)
N_EDITS = env_int("KEBAB_BENCH_EDITS", 20, 4)
EMBED_SAMPLE = env_int("KEBAB_BENCH_EMBED_SAMPLE", 2000, 32)
N_PYRIGHT = env_int("KEBAB_BENCH_PYRIGHT", 20, 5)
SERVER_WORKERS = env_int("KEBAB_BENCH_SERVER_WORKERS", 1, 1)
EVAL_PER_SET = env_int("KEBAB_BENCH_EVAL_PER_SET", 100, 15)
# The team index is measured on the main tree, as the issue asks ("over the main tree").
TEAM_CORPUS = os.environ.get("KEBAB_BENCH_TEAM_CORPUS", "django")
TEAM_CLIENTS = env_int("KEBAB_BENCH_TEAM_CLIENTS", 20, 20)
TEAM_SECONDS = float(env_int("KEBAB_BENCH_TEAM_SECONDS", 10, 5))
WARMUP = 3  # untimed requests before every pass, so each pass starts equally warm
SKIP = _skip()


def skipped(step: str) -> bool:
    return step in SKIP


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

"""How much an agent reads to reach an answer: `kebab mcp` against `rg` and whole files.

For every hand-written question of an eval (`bench/questions/*.json`), two scripted agents look
for the answer's definition and we count what each one read:

- kebab: `codebase_search(q)` (a page of 8 hits, its text rendering), then, hit by hit,
  `read_file_lines(path, line, end_line)` until a hit overlaps an answer; up to 3 pages.
  Every hit before the answer is read in full, as if the agent could not tell from the
  snippet that it was off-topic (pessimistic for kebab).
- rg: `rg -l -i` with the question's content words (stop words dropped, a crude stem), then
  whole files, the ones matching the most distinct words first (an agent that could rank
  them; generous to rg), until the answer's file is read; up to 10 files.

Both talk to the real things: the real server through the MCP SDK's client over stdio, the
real `rg`. Tokens are estimated as characters / 4 for both sides, so the ratio does not
depend on the estimate. Run: `python -m bench.measure_agent_tokens [--corpus click] [--json
out.json]`; indexes are kept in `--index-dir` between runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpora

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = REPO / "bench" / "questions"
#: The corpora cache (gitignored), as in `bench/corpora.py`; question roots are relative to
#: the directory above `bench/`.
CORPORA = Path(os.environ.get("KEBAB_BENCH_CORPORA", REPO / "bench" / "corpora"))
_STOP_WORDS = """a an and are as at be by can do does doing for from get gets got has have
how if in into is it its of on or that the their them then there these this those to up use
used uses using via was we what when where which while who why will with without you your
happen happens"""
STOP = frozenset(_STOP_WORDS.split())
PAGES = 3
RG_FILES = 10


def tokens(text: str) -> int:
    return (len(text) + 3) // 4


def keywords(question: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]+", question)]
    out = []
    for word in words:
        if word in STOP or len(word) < 3:
            continue
        stem = word[:-2] if len(word) > 5 else word
        if stem not in out:
            out.append(stem)
    return out


def overlaps(path: str, start: int, end: int, answers: list[dict[str, Any]]) -> bool:
    return any(a["path"] == path and start <= a["lines"][1] and end >= a["lines"][0]
               for a in answers)


def rg_agent(root: Path, question: str, answers: list[dict[str, Any]]) -> dict[str, Any]:
    words = keywords(question)
    if not words:
        return {"found": False, "tokens": 0, "files_read": 0}
    args = ["rg", "-l", "-i"] + [a for w in words for a in ("-e", rf"\b{re.escape(w)}")]
    listing = subprocess.run([*args, "."], cwd=root, capture_output=True, text=True).stdout
    read = tokens(listing)
    files = [line.removeprefix("./") for line in listing.splitlines() if line]

    def distinct(path: str) -> tuple[int, str]:
        text = (root / path).read_text(encoding="utf-8", errors="replace").lower()
        return (-sum(1 for w in words if re.search(rf"\b{re.escape(w)}", text)), path)

    targets = {a["path"] for a in answers}
    for n, path in enumerate(sorted(files, key=distinct)[:RG_FILES], 1):
        read += tokens((root / path).read_text(encoding="utf-8", errors="replace"))
        if path in targets:
            return {"found": True, "tokens": read, "files_read": n}
    return {"found": False, "tokens": read, "files_read": min(len(files), RG_FILES)}


async def kebab_agent(session: Any, question: str,
                      answers: list[dict[str, Any]]) -> dict[str, Any]:
    read = 0
    cursor: str | None = None
    calls = 0
    for _ in range(PAGES):
        args: dict[str, Any] = {"query": question}
        if cursor:
            args["cursor"] = cursor
        result = await session.call_tool("codebase_search", args)
        calls += 1
        read += tokens(result.content[0].text)
        if result.is_error:
            break
        found = result.structured_content
        for hit in found["hits"]:
            lines = await session.call_tool("read_file_lines", {
                "path": hit["path"], "start_line": hit["line"], "end_line": hit["end_line"]})
            calls += 1
            read += tokens(lines.content[0].text)
            if overlaps(hit["path"], hit["line"], hit["end_line"], answers):
                return {"found": True, "tokens": read, "calls": calls}
        cursor = found.get("next_cursor")
        if not cursor:
            break
    return {"found": False, "tokens": read, "calls": calls}


async def measure_corpus(spec: Path, index_dir: Path, embed: bool,
                         embed_timeout: float) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    data = json.loads(spec.read_text(encoding="utf-8"))
    root = (CORPORA.parents[1] / data["root"]).resolve()
    env = dict(os.environ, HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                          if p))
    flags = [] if embed else ["--no-embed"]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kebab_lsp.cli", "mcp", str(root), "--index-dir", str(index_dir), *flags],
        env=env)
    rows = []
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("build_index", {})
            deadline = time.monotonic() + embed_timeout
            while embed and time.monotonic() < deadline:
                status = (await session.call_tool("get_status", {})).structured_content
                share = status["roots"][0]["vectors"].get("share")
                if share is not None and share >= 1.0:
                    break
                await asyncio.sleep(2)
            for q in data["questions"]:
                kebab = await kebab_agent(session, q["q"], q["answers"])
                rg = rg_agent(root, q["q"], q["answers"])
                rows.append({"q": q["q"], "kebab": kebab, "rg": rg})
    return summarize(spec.stem, rows)


def summarize(name: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    both = [r for r in rows if r["kebab"]["found"] and r["rg"]["found"]]

    def side(key: str, chosen: list[dict[str, Any]]) -> dict[str, Any]:
        values = [r[key]["tokens"] for r in chosen]
        return {"total": sum(values), "median": statistics.median(values) if values else 0}

    out = {
        "corpus": name, "questions": len(rows),
        "found": {"kebab": sum(r["kebab"]["found"] for r in rows),
                  "rg": sum(r["rg"]["found"] for r in rows)},
        "all": {"kebab": side("kebab", rows), "rg": side("rg", rows)},
        "both_found": {"n": len(both), "kebab": side("kebab", both), "rg": side("rg", both)},
        "rows": rows,
    }
    for part in ("all", "both_found"):
        k, r = out[part]["kebab"]["total"], out[part]["rg"]["total"]  # type: ignore[index]
        out[part]["ratio_rg_over_kebab"] = round(r / k, 2) if k else None  # type: ignore[index]
    return out


def table(results: list[dict[str, Any]]) -> str:
    lines = ["| corpus | questions | answer reached (kebab / rg) | tokens read, all questions "
             "(kebab / rg) | ratio | tokens, questions both reached (kebab / rg) | ratio |",
             "|---|---|---|---|---|---|---|"]
    for res in results:
        a, b = res["all"], res["both_found"]
        lines.append(
            f"| {res['corpus']} | {res['questions']} | {res['found']['kebab']} / "
            f"{res['found']['rg']} | {a['kebab']['total']:,} / {a['rg']['total']:,} | "
            f"{a['ratio_rg_over_kebab']}x | {b['kebab']['total']:,} / {b['rg']['total']:,} "
            f"(n={b['n']}) | {b['ratio_rg_over_kebab']}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", default=None,
                        help="question file stem (click, mobx, ...); default: all")
    parser.add_argument("--index-dir", default="/tmp/kebab-agent-tokens")
    parser.add_argument("--no-embed", action="store_true", help="lexical only")
    parser.add_argument("--embed-timeout", type=float, default=900.0)
    parser.add_argument("--json", default=None, help="write every row here")
    args = parser.parse_args(argv)
    specs = sorted(QUESTIONS.glob("*.json"))
    if args.corpus:
        specs = [s for s in specs if s.stem in args.corpus]
    for corpus in (*corpora.EVAL_CORPORA, *corpora.EXTRA_EVAL_CORPORA):
        if any(s.stem == corpus.key for s in specs):
            corpora.fetch(corpus)  # a question file's root is its corpus, unpacked
    results = []
    for spec in specs:
        res = asyncio.run(measure_corpus(spec, Path(args.index_dir), not args.no_embed,
                                         args.embed_timeout))
        print(f"{spec.stem}: kebab {res['all']['kebab']['total']:,} tokens, rg "
              f"{res['all']['rg']['total']:,} ({res['all']['ratio_rg_over_kebab']}x)",
              file=sys.stderr)
        results.append(res)
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

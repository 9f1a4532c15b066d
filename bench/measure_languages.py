"""Parse + extract throughput per language on the same files, three ways, and the installed
size of the grammars each side depends on.

Why: the grammars moved from one PyPI wheel per language to `tree-sitter-language-pack`, and
the move may not cost more than 10% of extraction speed in any language. To judge the grammars
alone, the baseline revision's own code runs twice: on the wheels, and on the pack's grammars
handed to it through the wheels' module names (`pack_backed`), so queries and code are the
same and only the grammar differs. This checkout runs third, to show what today's richer
extraction costs on top. Every side runs the real `extract` over the same bytes, each in its
own child process (the baseline's `indexing/` is unpacked from git), alternating, several
passes; a figure is CPU seconds of that child (`time.process_time`), so it is per core and a
busy machine disturbs it less than wall time would.

    python -m bench.measure_languages [--baseline REV] [--passes N] [--mb-per-language MB]
                                      [--json PATH]

The baseline defaults to the last commit that read the per-language wheels. Those wheels, at
the pins of that commit's constraints.txt, are installed from PyPI into a folder of the bench's
cache (`baseline_grammars`) that only the baseline's child sees, so the comparison reruns on
a machine that never had them. Trees come from `bench.corpora` (cached under
`KEBAB_BENCH_CORPORA`). `make bench` runs this as its `languages` step.

`python -m bench.measure_languages --child FILELIST` is the child: it prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import REPO
from bench.corpora import Corpus

#: The last commit whose `indexing/` read grammars from the per-language wheels.
BASELINE = "438251e"

#: Trees for the languages the bench's main corpora lack, from the same registries.
EXTRA_CORPORA: tuple[Corpus, ...] = (
    Corpus("jpype", "java", "pypi", "JPype1", "1.5.1", "jpype1-1.5.1"),  # Java and C++
    Corpus("zstandard", "c", "pypi", "zstandard", "0.23.0", "zstandard-0.23.0"),
    Corpus("react-day-picker", "tsx", "npm", "react-day-picker", "9.4.0", "package"),
    Corpus("react-query", "tsx", "npm", "@tanstack/react-query", "5.59.0", "package"),
)

#: The languages both sides read, by extension (the baseline knows only these).
EXTENSIONS = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript",
    ".tsx": "tsx", ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
    ".cpp": "cpp", ".cc": "cpp", ".hpp": "cpp", ".md": "markdown",
}

#: Distributions holding each side's grammars.
OLD_GRAMMARS = tuple(f"tree-sitter-{n}" for n in (
    "python", "javascript", "typescript", "go", "rust", "java", "c", "cpp", "markdown"))
NEW_GRAMMARS = ("tree-sitter-language-pack", "tree-sitter-c-sharp",
                "tree-sitter-embedded-template", "tree-sitter-yaml")


def child(file_list: str) -> None:
    """Time `extract` over the listed files: one warm-up pass (grammars load, queries
    compile), then one timed pass per language."""
    from indexing.extract import extract

    entries = json.loads(Path(file_list).read_text())
    texts: dict[str, list[tuple[str, str]]] = {}
    for lang, path in entries:
        texts.setdefault(lang, []).append((path, Path(path).read_text("utf-8", "replace")))
    out: dict[str, Any] = {}
    for lang, files in texts.items():
        for path, text in files[:3]:
            extract(path, text)
        size = sum(len(t.encode("utf-8")) for _, t in files)
        symbols = chunks = 0
        start = time.process_time()
        for path, text in files:
            found = extract(path, text)
            if found is not None:
                symbols += len(found.symbols)
                chunks += len(found.chunks)
        cpu = time.process_time() - start
        out[lang] = {"files": len(files), "bytes": size, "cpu_s": cpu,
                     "symbols": symbols, "chunks": chunks}
    print(json.dumps(out))


def collect(mb_per_language: float) -> list[tuple[str, str]]:
    """(language, path) of up to `mb_per_language` MB of each language's files, in path
    order, from every corpus."""
    chosen: dict[str, list[tuple[str, str]]] = {}
    sizes: dict[str, int] = {}
    cap = int(mb_per_language * 1e6)
    for corpus in (*corpora.CORPORA, *corpora.EVAL_CORPORA, *EXTRA_CORPORA):
        root = corpora.fetch(corpus)
        for dirpath, dirs, names in sorted(os.walk(root)):
            dirs.sort()
            for name in sorted(names):
                lang = EXTENSIONS.get(os.path.splitext(name)[1].lower())
                path = Path(dirpath, name)
                if lang is None or path.is_symlink() or name.endswith((".min.js", ".d.ts")):
                    continue
                size = path.stat().st_size
                if sizes.get(lang, 0) + size > cap or size > 1024 * 1024:
                    continue
                sizes[lang] = sizes.get(lang, 0) + size
                chosen.setdefault(lang, []).append((lang, str(path)))
    return [entry for lang in sorted(chosen) for entry in chosen[lang]]


def _baseline_tree(rev: str, into: Path) -> Path:
    archive = into / "baseline.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", rev, "indexing"], cwd=REPO, stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def baseline_grammars(rev: str) -> Path:
    """A folder holding the per-language grammar wheels `rev` pinned, installed once."""
    pins = subprocess.run(["git", "show", f"{rev}:constraints.txt"], cwd=REPO, check=True,
                          capture_output=True, text=True).stdout.split()
    wanted = sorted(p for p in pins if p.split("==")[0] in OLD_GRAMMARS)
    target = corpora.CACHE / f"grammars-{rev}"
    done = target / ".complete"
    if done.exists() and done.read_text() == "\n".join(wanted):
        return target
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--target", str(target), *wanted],
                   check=True)
    done.write_text("\n".join(wanted))
    return target


#: For each wheel's `_binding` module, its functions and the pack's name for what each returns.
_BINDINGS: dict[str, dict[str, str]] = {
    "tree_sitter_python": {"language": "python"},
    "tree_sitter_javascript": {"language": "javascript"},
    "tree_sitter_typescript": {"language_typescript": "typescript", "language_tsx": "tsx"},
    "tree_sitter_go": {"language": "go"},
    "tree_sitter_rust": {"language": "rust"},
    "tree_sitter_java": {"language": "java"},
    "tree_sitter_c": {"language": "c"},
    "tree_sitter_cpp": {"language": "cpp"},
    "tree_sitter_markdown": {"language": "markdown", "inline_language": "markdown_inline"},
}


def pack_backed(wheels: Path, into: Path) -> Path:
    """The wheels' packages (their query files, their Python) with each compiled `_binding`
    replaced by one that hands out the pack's grammar: the baseline's code then runs the same
    queries on either grammar source, and only the grammars differ."""
    shutil.copytree(wheels, into, ignore=shutil.ignore_patterns("_binding*.so", "*.pyd"))
    for package, functions in _BINDINGS.items():
        body = ["from tree_sitter_language_pack import get_binding", ""]
        body += [f"def {fn}():\n    return get_binding({name!r})\n"
                 for fn, name in functions.items()]
        (into / package / "_binding.py").write_text("\n".join(body))
    return into


def _run_child(tree: Path, extra: Path | None, file_list: Path) -> dict[str, Any]:
    path = os.pathsep.join(str(p) for p in (tree, extra, REPO) if p is not None)
    env = {**os.environ, "PYTHONPATH": path}
    proc = subprocess.run([sys.executable, "-m", "bench.measure_languages", "--child",
                           str(file_list)], cwd=tree, env=env, capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"child in {tree} failed: {proc.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def dist_bytes(names: tuple[str, ...], where: Path | None = None) -> int | None:
    """Installed bytes of these distributions (in folder `where`, else where this Python finds
    them), None when one is not installed."""
    total = 0
    for name in names:
        found = list(metadata.distributions(name=name, path=[str(where)])) if where else []
        try:
            files = (found[0] if found else metadata.distribution(name)).files or []
        except metadata.PackageNotFoundError:
            return None
        for f in files:
            path = Path(str(f.locate()))
            if path.is_file():
                total += path.stat().st_size
    return total


def site_packages_bytes() -> int:
    import sysconfig

    root = Path(sysconfig.get_paths()["purelib"])
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


#: The three sides: the baseline's code on the wheels, the same code on the pack's grammars,
#: and this checkout (the pack and today's extraction: syntax chunks, refs).
SIDES = ("wheels", "pack", "now")


def measure(baseline: str, passes: int, mb_per_language: float) -> dict[str, Any]:
    files = collect(mb_per_language)
    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        file_list = work / "files.json"
        file_list.write_text(json.dumps(files))
        grammars = baseline_grammars(baseline)
        old = _baseline_tree(baseline, work)
        sides = {"wheels": (old, grammars),
                 "pack": (old, pack_backed(grammars, work / "pack-backed")),
                 "now": (REPO, None)}
        for _ in range(passes):
            for side in SIDES:
                runs[side].append(_run_child(*sides[side], file_list))
    # Imported here, not at the top: the child runs this module against an old `indexing/`,
    # and `bench.goals` reaches today's `search` (and through it today's `indexing`).
    from bench.goals import MAX_GRAMMAR_SLOWDOWN

    langs: dict[str, Any] = {}
    for lang in sorted(runs["pack"][0]):
        row: dict[str, Any] = {}
        for side, results in runs.items():
            per_pass = [r[lang]["bytes"] / 1e6 / max(r[lang]["cpu_s"], 1e-9) for r in results]
            first = results[0][lang]
            row[side] = {"mb_per_s": _median(per_pass), "passes": per_pass,
                         "symbols": first["symbols"], "chunks": first["chunks"]}
            row["files"], row["mb"] = first["files"], first["bytes"] / 1e6
        row["ratio"] = row["pack"]["mb_per_s"] / row["wheels"]["mb_per_s"]
        row["now_ratio"] = row["now"]["mb_per_s"] / row["wheels"]["mb_per_s"]
        row["ok"] = row["ratio"] >= 1 - MAX_GRAMMAR_SLOWDOWN
        langs[lang] = row
    sizes = {"old_grammars": dist_bytes(OLD_GRAMMARS, grammars),
             "new_grammars": dist_bytes(NEW_GRAMMARS), "site_packages_now": site_packages_bytes()}
    return {"baseline": baseline, "passes": passes, "languages": langs, "sizes": sizes}


def report(result: dict[str, Any]) -> str:
    lines = [f"parse + extract, MB/s per core (median of {result['passes']} passes). wheels: "
             f"the code of {result['baseline']} on the per-language wheels; pack: the same code "
             "and queries on the pack's grammars; now: this checkout (the pack, syntax chunks "
             "and refs).", "",
             "| language | files | MB | wheels MB/s | pack MB/s | pack/wheels | ≤10% slower | "
             "now MB/s | now/wheels | symbols wheels → pack → now |",
             "|---|---:|---:|---:|---:|---:|---|---:|---:|---|"]
    for lang, row in result["languages"].items():
        w, p, n = row["wheels"], row["pack"], row["now"]
        lines.append(f"| {lang} | {row['files']} | {row['mb']:.2f} | {w['mb_per_s']:.2f} | "
                     f"{p['mb_per_s']:.2f} | {row['ratio']:.2f} | "
                     f"{'yes' if row['ok'] else '**no**'} | {n['mb_per_s']:.2f} | "
                     f"{row['now_ratio']:.2f} | {w['symbols']} → {p['symbols']} → "
                     f"{n['symbols']} |")
    sizes = result["sizes"]

    def mb(value: int | None) -> str:
        return "not installed" if value is None else f"{value / 1e6:.1f} MB"

    lines += ["", f"installed grammars: wheels {mb(sizes['old_grammars'])}, pack (with the "
              f"three grammars it depends on) {mb(sizes['new_grammars'])}; site-packages now "
              f"{mb(sizes['site_packages_now'])}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.measure_languages")
    parser.add_argument("--child", metavar="FILELIST")
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--mb-per-language", type=float, default=3.0)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    result = measure(args.baseline, args.passes, args.mb_per_language)
    print(report(result))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()

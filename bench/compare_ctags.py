"""A cold index of real non-Python trees against universal-ctags on the same files: files per
second, definitions found, and the definitions ctags finds that kebab does not.

Why: ctags is the tool people already run for definitions in every language; on a real tree
the gap between the two lists what our queries miss (and what ctags counts that is not a
definition anyone looks up). The trees are Debian packages of a Ruby, a PHP, a Perl and a Lua
library, fetched by `bench.corpora` and cached.

    python -m bench.compare_ctags [--json PATH] [--show N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench import corpora
from bench.corpora import Corpus

CORPORA: tuple[Corpus, ...] = (
    Corpus("ruby-rack", "ruby", "debian", "ruby-rack", "2.2.22-0+deb12u2",
           "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib"),
    Corpus("php-symfony-console", "php", "debian", "php-symfony-console",
           "5.4.53+dfsg-0+deb12u1", "usr/share/php"),
    Corpus("perl-mojolicious", "perl", "debian", "libmojolicious-perl", "9.31+dfsg-1",
           "usr/share/perl5"),
    Corpus("lua-penlight", "lua", "debian", "lua-penlight", "1.13.1-3", "usr/share/lua"),
)

#: ctags kinds that are not definitions a person looks up by name (or that kebab records
#: inside its container's chunk rather than as symbols): left out of the comparison.
IGNORED_KINDS = frozenset({"local", "variable", "parameter", "label", "heading1", "heading2",
                           "heading3", "chapter", "section", "subsection", "pod"})


def kebab_index(root: Path, index_dir: Path) -> dict[str, Any]:
    from indexing.settings import Settings
    from kebab_lsp.workspace import Workspace

    ws = Workspace(root, Settings(index_dir=str(index_dir), workers=2, embed=False))
    started = time.perf_counter()
    summary = ws.indexer.index(rebuild=True)
    seconds = time.perf_counter() - started
    symbols = [(r.path, r.symbol.name, r.symbol.selection.start_line + 1, r.symbol.kind.value)
               for r in ws.store.all_symbols()]
    langs = ws.store.stats().langs
    ws.close()
    return {"seconds": seconds, "files": summary.scanned - summary.skipped, "symbols": symbols,
            "langs": langs, "read_as_text": summary.fallbacks}


def ctags_index(root: Path) -> dict[str, Any]:
    ctags = corpora.ensure_apt("ctags", "universal-ctags")
    if ctags is None:
        raise RuntimeError("universal-ctags is not installed and could not be")
    started = time.perf_counter()
    out = subprocess.run([ctags, "-R", "--output-format=json", "--fields=+nK", "-f", "-",
                          "."], cwd=root, capture_output=True, text=True, check=True).stdout
    seconds = time.perf_counter() - started
    tags = []
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag":
            continue
        tags.append((tag["path"], tag["name"], tag.get("line", 0), tag.get("kind", "")))
    return {"seconds": seconds, "tags": tags}


def compare(corpus: Corpus, work: Path) -> dict[str, Any]:
    root = corpora.fetch(corpus)
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    ours = kebab_index(root, work / corpus.key)
    theirs = ctags_index(root)
    have = {(path, name) for path, name, _line, _kind in ours["symbols"]}
    have_lines = {(path, line) for path, _name, line, _kind in ours["symbols"]}
    counted = [t for t in theirs["tags"] if t[3] not in IGNORED_KINDS]
    missed = [t for t in counted
              if (t[0], t[1]) not in have and (t[0], t[2]) not in have_lines]
    return {
        "corpus": corpus.label, "lang": corpus.lang, "files": len(files),
        "kebab": {"seconds": round(ours["seconds"], 2),
                  "files_per_s": round(ours["files"] / ours["seconds"], 1),
                  "symbols": len(ours["symbols"]), "langs": ours["langs"],
                  "read_as_text": ours["read_as_text"]},
        "ctags": {"seconds": round(theirs["seconds"], 2),
                  "files_per_s": round(len(files) / theirs["seconds"], 1),
                  "tags": len(theirs["tags"]), "definitions": len(counted),
                  "by_kind": dict(Counter(t[3] for t in theirs["tags"]).most_common())},
        "missed": len(missed),
        "missed_by_kind": dict(Counter(t[3] for t in missed).most_common()),
        "missed_examples": [list(t) for t in missed],
    }


def report(results: list[dict[str, Any]], show: int) -> str:
    lines = ["| tree | files | kebab s (files/s) | ctags s (files/s) | kebab symbols | ctags "
             "definitions | missed by kebab |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        k, c = r["kebab"], r["ctags"]
        lines.append(f"| {r['corpus']} | {r['files']} | {k['seconds']} ({k['files_per_s']}) "
                     f"| {c['seconds']} ({c['files_per_s']}) | {k['symbols']} | "
                     f"{c['definitions']} | {r['missed']} |")
    for r in results:
        lines += ["", f"{r['corpus']}: missed by kind {r['missed_by_kind']}"]
        lines += [f"  {path}:{line} {name} ({kind})"
                  for path, name, line, kind in r["missed_examples"][:show]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compare_ctags")
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--show", type=int, default=15, help="missed definitions listed")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kebab-ctags-"))
    try:
        results = [compare(corpus, work) for corpus in CORPORA]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(report(results, args.show))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

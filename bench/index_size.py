"""How big an index is next to the text it indexes: index bytes / source bytes, and where the
bytes go (SQLite tables; with `--embed`, the vector table and the embedding cache too), and
what the refs (issue 12) add: the index against the same index without their tables.

    python -m bench.index_size [ROOT ...] [--embed]

With no ROOT it measures the click corpus (`bench/corpora/`, fetched by `make bench`) when
present, else this repository's own Python packages, which every checkout has. Each tree is
indexed from cold into a scratch directory with the same code `kebab index` runs, and the
scratch is removed after. "Source bytes" are the bytes of the files the index holds (not the
ones it skips: binaries, minified code); "index bytes" are every file of the index directory
once it is closed, so the WAL is part of the figure when it is not empty.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import apsw

REPO = Path(__file__).resolve().parent.parent
CLICK = REPO / "bench" / "corpora" / "click-8.1.7" / "click-8.1.7"
OWN_SOURCES = ("indexing", "search", "kebab_lsp")
#: The tables that hold refs (`indexing/store/refs.py`); an index without refs is the rest.
REFS_TABLES = ("ref_files", "ref_names")


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def measure(root: Path, scratch: Path, embed: bool = False) -> dict[str, Any]:
    """Index `root` from cold into `scratch` and weigh the result."""
    from indexing.settings import Settings
    from kebab_lsp.cli import index_folder

    settings = Settings(index_dir=str(scratch), embed=embed)
    folder = index_folder(root.resolve(), settings)
    index_dir = folder.index.index_dir
    db = index_dir / "index.sqlite3"
    conn = apsw.Connection(f"file:{db}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY
                           | apsw.SQLITE_OPEN_URI)
    try:
        [(source, files)] = [(int(r[0]), int(r[1])) for r in conn.execute(
            "SELECT coalesce(sum(size), 0), count(*) FROM files")]
        tables = {str(name): int(size) for name, size in conn.execute(
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")}
    finally:
        conn.close()
    vectors = index_dir / "vectors"
    vector_bytes = _dir_bytes(vectors) if vectors.exists() else 0
    cache_bytes = sum(size for name, size in tables.items() if name.startswith("embed_cache"))
    total = _dir_bytes(index_dir)
    lexical = total - vector_bytes - cache_bytes
    refs = sum(tables.get(name, 0) for name in REFS_TABLES)
    return {
        "root": str(root), "files": files, "source_bytes": source,
        "index_bytes": total, "lexical_bytes": lexical, "vector_bytes": vector_bytes,
        "embed_cache_bytes": cache_bytes,
        "ratio": round(total / source, 2) if source else None,
        "lexical_ratio": round(lexical / source, 2) if source else None,
        # The refs' pages, and the index over the same index without them (its other pages).
        "refs_bytes": refs,
        "refs_factor": round(total / (total - refs), 3) if total > refs else None,
        "tables": tables,
    }


def own_sources(into: Path) -> Path:
    """This repository's Python packages, copied into one tree, without the embedding model:
    its tokenizer is one 700 KB line of JSON, stored as overlapping searchable pieces that
    would weigh more than all the code (a figure for minified files, not for source)."""
    for name in OWN_SOURCES:
        shutil.copytree(REPO / name, into / name,
                        ignore=shutil.ignore_patterns("__pycache__", "embedding_model"))
    return into


def _report(result: dict[str, Any]) -> str:
    source = result["source_bytes"]
    lines = [f"{result['root']}: {result['files']} files, {source / 1e6:.2f} MB of text",
             f"  index {result['index_bytes'] / 1e6:.2f} MB = {result['ratio']}x the text"
             f" (lexical {result['lexical_ratio']}x; vector table "
             f"{result['vector_bytes'] / 1e6:.2f} MB, embedding cache "
             f"{result['embed_cache_bytes'] / 1e6:.2f} MB)",
             f"  refs {result['refs_bytes'] / 1e6:.2f} MB = "
             f"{result['refs_bytes'] / max(result['index_bytes'], 1):.0%} of the index: it is "
             f"{result['refs_factor']}x the index without them"]
    for name, size in list(result["tables"].items())[:8]:
        lines.append(f"    {name:28} {size / 1e6:8.2f} MB  {size / source:5.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.index_size",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path)
    parser.add_argument("--embed", action="store_true", help="embed too, and weigh vectors")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kebab-size-") as tmp:
        roots: list[Path] = args.roots or [CLICK if CLICK.is_dir()
                                           else own_sources(Path(tmp) / "own")]
        results = []
        for i, root in enumerate(roots):
            results.append(measure(root, Path(tmp) / f"index-{i}", embed=args.embed))
    for result in results:
        print(json.dumps(result, sort_keys=True) if args.json else _report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The query sets every latency figure on the main tree asks, drawn from its own index with a
fixed seed, so that a rerun asks the same questions and the peers are asked the same names."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from bench.config import SEED
from bench.peers import NameQuery


@dataclass(frozen=True, slots=True)
class QuerySets:
    names: list[NameQuery]  # defined exactly once, outside tests
    fuzzy: list[str]  # lower-case leading fragments of those names
    nl: list[str]  # first sentences of docstrings
    words: list[str]  # names split into lower-case words
    exact: list[str]  # distinctive source lines, for exact text
    edit_files: list[str]  # files a didSave edits
    symbols: int  # symbols in the index

    @property
    def search(self) -> list[str]:
        """What `kebab/search` is asked: words, then sentences."""
        return self.words + self.nl

    def counts(self) -> dict[str, int]:
        return {"names": len(self.names), "fuzzy": len(self.fuzzy), "nl": len(self.nl),
                "words": len(self.words), "exact": len(self.exact),
                "edit_files": len(self.edit_files)}


def _words(name: str) -> str:
    parts = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").split()
    return " ".join(p.lower() for p in parts)


def query_sets(index_dir: Path, n_names: int) -> QuerySets:
    from indexing.store import Store

    store = Store(index_dir)
    try:
        rows = store.all_symbols()
        texts = store.file_texts()
    finally:
        store.close()
    by_name: dict[str, list[object]] = {}
    for r in rows:
        by_name.setdefault(r.symbol.name, []).append(r)
    unique = sorted(
        r.symbol.name for r in rows
        if len(by_name[r.symbol.name]) == 1 and not r.is_test and r.path.endswith(".py")
        and len(r.symbol.name) >= 5 and r.symbol.name.isidentifier()
        and not r.symbol.name.startswith("__")
        and str(r.symbol.kind.value) in ("function", "class", "method")
    )
    paths = {r.symbol.name: r.path for r in rows}
    rng = random.Random(SEED)
    picked = rng.sample(unique, min(n_names, len(unique)))
    names = [NameQuery(n, paths[n]) for n in picked]
    fuzzy = [q.name.lower()[: max(3, len(q.name) // 2)] for q in names]
    docs = sorted({r.symbol.doc.strip().split(". ")[0].split("\n")[0][:80] for r in rows
                   if r.symbol.doc and not r.is_test and len(r.symbol.doc.split()) >= 4})
    docs = [d for d in docs if len(d.split()) >= 4]
    nl = rng.sample(docs, min(len(docs), max(5, n_names // 2)))
    word_queries = [_words(q.name) for q in names[: max(5, n_names // 2)]]
    exact_pool: list[str] = []
    for file in texts:
        if file.is_test or not file.path.endswith(".py"):
            continue
        for line in file.text.splitlines():
            s = line.strip()
            if (25 <= len(s) <= 70 and '"' not in s and "\\" not in s and "'" not in s
                    and not s.startswith("#") and re.search(r"[(.=:,\[]", s)):
                exact_pool.append(s)
    exact_pool = sorted(set(exact_pool))
    exact = rng.sample(exact_pool, min(len(exact_pool), max(5, n_names * 3 // 5)))
    edit_files = sorted({r.path for r in rows if r.path.endswith(".py") and not r.is_test
                         and r.path.startswith("django/")})
    edits = rng.sample(edit_files, min(len(edit_files), 200))
    return QuerySets(names=names, fuzzy=fuzzy, nl=nl, words=word_queries, exact=exact,
                     edit_files=edits, symbols=len(rows))

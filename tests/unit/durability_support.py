"""Support for the durability tests: a generated tree big enough that every table of its index
has interior b-tree pages, damage done to chosen pages of the real SQLite file, a watcher that
records what the store reports, and the index files a process holds open."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

import apsw

from indexing.store import DB_NAME


def make_tree(root: Path, files: int = 120, defs: int = 12) -> Path:
    """Python files with distinct names, docstrings and bodies (so compression leaves them
    real size), each definition its own chunk."""
    rnd = random.Random(files * 1000 + defs)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
             "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo"]
    for i in range(files):
        body = []
        for j in range(defs):
            name = f"{rnd.choice(words)}_{rnd.choice(words)}_{i}_{j}"
            doc = " ".join(rnd.choice(words) for _ in range(12))
            lines = "\n".join(f"    value_{k} = {rnd.randrange(10**6)} + {rnd.choice(words)!r}"
                              f".count({rnd.choice(words)!r})" for k in range(4))
            body.append(f'def {name}(payload, retries={j}):\n    """{doc}"""\n{lines}\n'
                        f"    return payload\n")
        path = root / f"pkg{i % 7}" / f"mod_{i:03}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n\n".join(body), encoding="utf-8")
    return root


def pages_of(db: Path, table: str, kind: str) -> list[int]:
    """Page numbers of `table`'s b-tree of one kind ('internal' or 'leaf')."""
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [int(r[0]) for r in conn.execute(
            "SELECT pageno FROM dbstat WHERE name=? AND pagetype=? ORDER BY pageno",
            (table, kind))]
    finally:
        conn.close()


def damage(index_dir: Path, table: str, kind: str = "internal", count: int = 1,
           last: bool = False) -> list[int]:
    """Overwrite `count` pages of `table` (its interior pages by default; its first ones, or
    with `last` its last ones) with noise, as a bad sector or a stray write would. The store
    must be closed (its WAL empty)."""
    db = index_dir / DB_NAME
    assert not (index_dir / (DB_NAME + "-wal")).exists() or (
        index_dir / (DB_NAME + "-wal")).stat().st_size == 0
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    conn.close()
    found = pages_of(db, table, kind)
    pages = found[-count:] if last else found[:count]
    assert pages, f"{table} has no {kind} page"
    noise = random.Random(7)
    with open(db, "r+b") as f:
        for page in pages:
            f.seek((page - 1) * page_size)
            f.write(bytes(noise.randrange(256) for _ in range(page_size)))
    return pages


class Watcher:
    """A `StoreWatcher` that records."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def damaged(self, reason: str) -> None:
        with self.lock:
            self.calls.append(("damaged", reason))

    def write_failed(self, reason: str) -> None:
        with self.lock:
            self.calls.append(("write_failed", reason))

    def write_recovered(self) -> None:
        with self.lock:
            self.calls.append(("write_recovered", ""))

    def kinds(self) -> list[str]:
        with self.lock:
            return [kind for kind, _ in self.calls]


def open_files_under(path: Path, pid: int | str = "self") -> list[str]:
    """The files under `path` that process `pid` holds open, one entry per descriptor."""
    found = []
    prefix = str(path.resolve())
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(prefix):
            found.append(target)
    return sorted(found)

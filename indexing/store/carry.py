"""What a rebuild for another schema version keeps: the vectors the old index had cached.

A schema bump rebuilds the index from the files (`indexing.schema`), which takes seconds to a
minute of parsing. Embedding the same tree again costs far more (Django: about 16 minutes on
one core), while a cached vector depends on nothing the schema holds: it is keyed by the model
and the hash of the text embedded. So the old `embed_cache` is copied aside before the wipe
and back into the new database after it. Anything that goes wrong here costs the cache only,
never the rebuild.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import Any

import apsw

from indexing.location import PRIVATE_FILE
from indexing.schema import EMBED_CACHE_KEPT_SINCE

#: The copy set aside, in the index folder; a leftover (a crash in between) is deleted.
CARRY_NAME = "embed_cache.carry.sqlite3"
_COLUMNS = "model, text_hash, vector, used"


def set_aside(raw: Any, index_dir: Path, found_version: int) -> Path | None:
    """Copy the cached vectors of the database open on `raw` (schema `found_version`) to a
    file of their own; None when there is nothing to keep or it could not be copied."""
    if found_version < EMBED_CACHE_KEPT_SINCE:
        return None
    path = index_dir / CARRY_NAME
    try:
        discard(index_dir)
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE))
        raw.execute("ATTACH DATABASE ? AS carry", (str(path),))
        try:
            raw.execute(f"CREATE TABLE carry.embed_cache AS SELECT {_COLUMNS} "
                        "FROM main.embed_cache")
        finally:
            raw.execute("DETACH DATABASE carry")
    except (apsw.Error, OSError):
        discard(index_dir)
        return None
    return path


def take_back(raw: Any, path: Path) -> int:
    """Copy vectors set aside into the (new, empty) `embed_cache` of the database open on
    `raw`, delete the copy, and return how many the cache holds now."""
    try:
        raw.execute("ATTACH DATABASE ? AS carry", (str(path),))
        try:
            with raw:
                raw.execute(f"INSERT OR IGNORE INTO main.embed_cache({_COLUMNS}) "
                            f"SELECT {_COLUMNS} FROM carry.embed_cache")
        finally:
            raw.execute("DETACH DATABASE carry")
        return int(raw.execute("SELECT count(*) FROM main.embed_cache").fetchone()[0])
    except apsw.Error:
        return 0
    finally:
        discard(path.parent)


def discard(index_dir: Path) -> None:
    for suffix in ("", "-journal"):
        with suppress(OSError):
            (index_dir / (CARRY_NAME + suffix)).unlink(missing_ok=True)

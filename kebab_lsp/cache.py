"""`kebab cache`: the indexes under the cache root, their sizes and workspaces; pruning the
ones whose workspace is gone; clearing.

An index folder is named after its workspace's folder name and a hash of its path
(`indexing.location.index_dir_for`), so the path cannot be read back from the name. Whoever
opens a workspace (`FolderIndex`, for the server, `kebab mcp` and the CLI alike) therefore
records it in the index folder, in `workspace.json` (`indexing.location.remember_workspace`).
An index made before that was recorded shows as of an
unknown workspace: `prune` keeps it, `clear` removes it.

Nothing but index folders (`<name>-<12 hex digits>` holding an index) and the model cache
(`_models`) is ever removed, whatever the cache root holds besides.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexing.location import MARKER, cache_root, index_dir_for, model_cache_dir

_INDEX_NAME = re.compile(r"^.+-[0-9a-f]{12}$")
_INDEX_FILES = ("index.sqlite3", MARKER)


@dataclass(frozen=True)
class CachedIndex:
    path: Path
    workspace: Path | None  # None: made before workspaces were recorded
    bytes: int
    last_update: float | None

    @property
    def workspace_exists(self) -> bool | None:
        return None if self.workspace is None else self.workspace.is_dir()

    def as_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "workspace": _str(self.workspace),
                "workspace_exists": self.workspace_exists, "bytes": self.bytes,
                "last_update": self.last_update}


def _str(path: Path | None) -> str | None:
    return None if path is None else str(path)


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    total = 0
    for item in path.rglob("*"):
        try:
            if item.is_file() and not item.is_symlink():
                total += item.stat().st_size
        except OSError:
            continue
    return total


def _workspace(index_dir: Path) -> Path | None:
    try:
        recorded = json.loads((index_dir / MARKER).read_text(encoding="utf-8"))["workspace"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return Path(recorded) if isinstance(recorded, str) else None


def _last_update(index_dir: Path) -> float | None:
    times = [p.stat().st_mtime for p in (index_dir / "index.sqlite3",
                                         index_dir / "index.sqlite3-wal") if p.is_file()]
    return max(times) if times else None


def is_index_dir(path: Path) -> bool:
    return (path.is_dir() and not path.is_symlink() and _INDEX_NAME.match(path.name) is not None
            and any((path / name).is_file() for name in _INDEX_FILES))


def list_indexes(override: str | Path | None = None) -> list[CachedIndex]:
    root = cache_root(override)
    if not root.is_dir():
        return []
    return [CachedIndex(path, _workspace(path), _size(path), _last_update(path))
            for path in sorted(root.iterdir()) if is_index_dir(path)]


@dataclass(frozen=True)
class Removal:
    removed: list[CachedIndex]
    kept_unknown: list[CachedIndex]
    models_bytes: int  # the model cache removed (clear only), else 0

    @property
    def bytes(self) -> int:
        return sum(i.bytes for i in self.removed) + self.models_bytes


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def prune(override: str | Path | None = None, dry_run: bool = False) -> Removal:
    """Remove the indexes whose recorded workspace no longer exists."""
    indexes = list_indexes(override)
    gone = [i for i in indexes if i.workspace_exists is False]
    if not dry_run:
        for index in gone:
            _remove(index.path)
    return Removal(gone, [i for i in indexes if i.workspace is None], 0)


def clear(workspaces: list[Path], override: str | Path | None = None,
          dry_run: bool = False) -> Removal:
    """Remove the indexes of `workspaces`, or, when none is named, every index and the model
    cache."""
    indexes = list_indexes(override)
    if workspaces:
        wanted = {index_dir_for(w, override) for w in workspaces}
        chosen = [i for i in indexes if i.path in wanted]
        models = 0
    else:
        chosen = indexes
        models_dir = model_cache_dir(override)
        models = _size(models_dir) if models_dir.is_dir() else 0
        if not dry_run and models_dir.is_dir():
            _remove(models_dir)
    if not dry_run:
        for index in chosen:
            _remove(index.path)
    return Removal(chosen, [], models)


def models_size(override: str | Path | None = None) -> int:
    path = model_cache_dir(override)
    return _size(path) if path.is_dir() else 0


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"  # pragma: no cover

"""Where a workspace's index lives: the user cache dir, one subfolder per workspace.

By default nothing is written inside the workspace, so a checkout stays clean and its own
tools never see kebab's files. A user can still point `indexDir` inside it (or open a folder
that holds the cache, such as a home directory); discovery then skips that folder
(`index_dir`), so the index never indexes itself. The subfolder name carries a hash of the
absolute root so two checkouts with the same folder name never share an index. What all
workspaces share (the embedding model's optimized graph) sits beside them in `_models`, a
name no workspace subfolder can take (those always end in `-<hash>`).

An index holds the text of every indexed file, secrets the user keeps out of git included, so
it is private to its owner: every folder created on the way to it is 0700, an index folder that
an older version created wider is narrowed, and the store creates its files 0600.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from contextlib import suppress
from pathlib import Path

import platformdirs

ENV_INDEX_DIR = "KEBAB_INDEX_DIR"


def cache_root(override: str | Path | None = None) -> Path:
    """`--index-dir` beats `KEBAB_INDEX_DIR` beats the platform's user cache dir."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get(ENV_INDEX_DIR)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("kebab-lsp", appauthor=False))


def index_dir_for(root: Path, override: str | Path | None = None) -> Path:
    root = root.resolve()
    digest = hashlib.sha1(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", root.name) or "root"
    return cache_root(override) / f"{name}-{digest}"


PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dir(path: Path) -> Path:
    """Create `path` and any missing parent 0700 (`Path.mkdir(parents=True)` would create the
    parents with the umask's defaults, e.g. a fresh `~/.cache` 0755), and narrow `path` itself
    to 0700 if it exists wider. Folders that already existed above it are the user's and are
    left alone."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        with suppress(FileExistsError):  # another process made it first
            folder.mkdir(mode=PRIVATE_DIR)
        os.chmod(folder, PRIVATE_DIR)  # mkdir's mode is masked by the umask; 0700 is exact
    if path.stat().st_mode & 0o077:
        os.chmod(path, PRIVATE_DIR)
    return path


def model_cache_dir(override: str | Path | None = None) -> Path:
    return cache_root(override) / "_models"


#: The file in an index folder that names its workspace (`kebab cache` reads it back).
MARKER = "workspace.json"


def indexed_folder(root: Path, override: str | Path | None = None) -> Path | None:
    """The folder whose index covers `root`: `root` when it has an index of its own, else its
    nearest ancestor that has one, else None. A search in a subfolder of an indexed workspace
    reads the workspace's index, vectors included, instead of building a second, partial one
    beside it."""
    root = root.resolve()
    for folder in (root, *root.parents):
        if (index_dir_for(folder, override) / MARKER).is_file():
            return folder
    return None


def remember_workspace(index_dir: Path, root: Path) -> None:
    """Record which workspace `index_dir` indexes. Never fails the caller: the record only
    serves `kebab cache`."""
    text = json.dumps({"workspace": str(root)}) + "\n"
    marker = index_dir / MARKER
    try:
        if marker.is_file() and marker.read_text(encoding="utf-8") == text:
            return
        private_dir(index_dir)
        partial = marker.with_name(f".{MARKER}.{time.time_ns()}")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        partial.replace(marker)
    except OSError:
        pass

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

import errno
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


class UnusableIndexDir(OSError):
    """A folder (or file) kebab keeps indexes in that cannot be created or written: a parent
    the user may not write, a read-only mount, a lock file that is not a file. Its message is
    one sentence for the user, naming the path, why, and what to do; an `OSError`, so callers
    that do without a cache on any disk trouble still do."""


#: What the user can always do about an index location that refuses.
ELSEWHERE = "choose another index location"


def _refusal(what: str, exc: OSError, writable: Path | None) -> UnusableIndexDir:
    """`what` ("cannot create the folder X") failed with `exc`; when permissions or a
    read-only mount refused, making `writable` writable is the other fix."""
    fix = (f"make {writable} writable, or {ELSEWHERE}"
           if writable is not None and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
           else ELSEWHERE)
    return UnusableIndexDir(f"{what}: {exc.strerror or exc}; {fix}")


def private_dir(path: Path) -> Path:
    """Create `path` and any missing parent 0700 (`Path.mkdir(parents=True)` would create the
    parents with the umask's defaults, e.g. a fresh `~/.cache` 0755), and narrow `path` itself
    to 0700 if it exists wider. Folders that already existed above it are the user's and are
    left alone. `UnusableIndexDir` when a folder cannot be created or narrowed."""
    missing: list[Path] = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for folder in reversed(missing):
        try:
            with suppress(FileExistsError):  # another process made it first
                folder.mkdir(mode=PRIVATE_DIR)
            os.chmod(folder, PRIVATE_DIR)  # mkdir's mode is masked by the umask; 0700 is exact
        except OSError as exc:
            raise _refusal(f"cannot create the folder {folder}", exc, folder.parent) from exc
    try:
        if path.stat().st_mode & 0o077:
            os.chmod(path, PRIVATE_DIR)
    except OSError as exc:  # not the owner's: it stays as open as it is, unused
        raise _refusal(f"cannot make the folder {path} private (0700)", exc, None) from exc
    return path


def cannot_write(folder: Path) -> str | None:
    """Why `folder` cannot be written or created, or None: the nearest folder on the way that
    exists must be a directory this process may write (`os.access`, which applies its
    permissions and a read-only mount)."""
    probe = folder
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is not a directory"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"{probe} cannot be written ({_denial(probe)}): make it writable, or {ELSEWHERE}"
    return None


def unwritable_reason(root: Path) -> str | None:
    """Why no index can be kept, or kept current, under `root` (the cache root), or None:
    `root` must be writable (`cannot_write`), and so must every index folder already in it."""
    refused = cannot_write(root)
    if refused is not None or not root.is_dir():
        return refused
    try:
        stuck = sorted(p for p in root.iterdir()
                       if p.is_dir() and not os.access(p, os.W_OK | os.X_OK))
    except OSError as exc:
        return f"{root} cannot be read ({exc.strerror or exc}): make it readable, or {ELSEWHERE}"
    if not stuck:
        return None
    named = ", ".join(p.name for p in stuck[:3]) + (", ..." if len(stuck) > 3 else "")
    return (f"{len(stuck)} index folder(s) in {root} cannot be written ({_denial(stuck[0])}: "
            f"{named}): their workspaces' indexes are not kept current; make them writable")


def _denial(path: Path) -> str:
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return os.strerror(errno.EROFS)
    except OSError:
        pass
    return os.strerror(errno.EACCES)


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

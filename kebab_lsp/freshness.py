"""Whether the files an answer cites are still what the index read: a one-shot search (`kebab
search`) answers from the index as the last scan left it, and nothing rescans the folder
before it, so a file edited or deleted since is cited at lines it no longer has. Only the
cited files are looked at (a stat each, and a read when the time alone cannot tell), so the
check costs next to nothing beside the search."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from indexing.store import FileState

#: Cited files named in the warning; the rest are counted.
NAMED = 5


class FileStates(Protocol):
    def file_state(self, path: str) -> FileState | None: ...


def changed_on_disk(root: Path, paths: Iterable[str], store: FileStates) -> list[str]:
    """The `paths` (relative to `root`, as the index keys them) whose file is gone, or differs
    from what the index recorded of it, in the order given and each once.

    The indexer's own rule decides: size and modification time first, then the content hash
    when the time differs or was too recent to record (0, git's "racily clean"). A path the
    index does not hold is not judged."""
    changed = []
    for path in dict.fromkeys(paths):
        state = store.file_state(path)
        if state is not None and _differs(root / path, state):
            changed.append(path)
    return changed


def _differs(full: Path, state: FileState) -> bool:
    try:
        now = os.stat(full)
    except OSError:  # deleted, or its folder is
        return True
    if not stat.S_ISREG(now.st_mode) or now.st_size != state.size:
        return True
    if state.mtime_ns and now.st_mtime_ns == state.mtime_ns:
        return False
    from indexing.indexer import content_hash  # only here: it imports the extractors

    try:
        return content_hash(full.read_bytes()) != state.hash
    except OSError:
        return True


def stale_warning(changed: list[str]) -> str | None:
    """What an answer citing the `changed` files says of them, if anything."""
    if not changed:
        return None
    names = ", ".join(changed[:NAMED]) + (f" and {len(changed) - NAMED} more"
                                         if len(changed) > NAMED else "")
    return (f"{len(changed)} cited file(s) changed on disk since they were indexed ({names}); "
            "run `kebab index` to refresh")

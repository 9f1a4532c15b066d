"""Whether the index still holds what the folder does: a one-shot search (`kebab search`)
answers from the index as the last scan left it, and nothing rescans the folder before it.

- A file edited or deleted since is cited at lines it no longer has. Only the cited files
  are looked at (a stat each, and a read when the time alone cannot tell), so the check costs
  next to nothing beside the search.
- A file added since is in no answer at all, which then said it was complete: a search for
  what only the new file holds found nothing, and claimed so. Adding (or removing, renaming)
  a file changes its folder's modification time, so the folders are walked (not the files:
  37 ms on Django's 3,234 folders) for one changed after the last complete scan started;
  only then is the folder discovered as a scan would (160 ms on Django), and the files the
  index lacks named. An editor's atomic save changes its folder too, and then finds none."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from indexing.discover import DEFAULT_SKIP_DIRS, DiscoveryOptions
from indexing.store import FileState

#: Cited files named in the warning; the rest are counted.
NAMED = 5


def changed_on_disk(root: Path, paths: Iterable[str],
                    state_of: Callable[[str], FileState | None]) -> list[str]:
    """The `paths` (relative to `root`, as the index keys them) whose file is gone, or differs
    from what the index recorded of it (`state_of`), in the order given and each once.

    The indexer's own rule decides: size and modification time first, then the content hash
    when the time differs or was too recent to record (0, git's "racily clean"). A path the
    index does not hold is not judged. A team index's times are CI's, which never match a
    checkout's: there the hash decides."""
    changed = []
    for path in dict.fromkeys(paths):
        state = state_of(path)
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


#: What an answer citing files changed since its index read them says ({count}, {named}).
CHANGED_SINCE_INDEX = ("{count} cited file(s) changed on disk since they were indexed "
                       "({named}); run `kebab index` to refresh")
#: The same of a checkout searched through a team index: its cited lines are those of the
#: tree CI indexed, which this checkout's edits (or another commit) may have moved.
DIFFERS_FROM_TEAM_INDEX = ("{count} cited file(s) of this checkout differ from what the team "
                           "index holds ({named}): edited here, or of another commit; the "
                           "lines cited are the team index's")


def stale_warning(changed: list[str], says: str = CHANGED_SINCE_INDEX) -> str | None:
    """What an answer citing the `changed` files says of them, if anything."""
    if not changed:
        return None
    return says.format(count=len(changed), named=_named(changed))


def added_since(root: Path, since_ns: int, indexed: Callable[[], Iterable[str]],
                options: DiscoveryOptions) -> list[str]:
    """The files a scan would index now that the index (`indexed`: its paths, read only when
    needed) lacks, in path order, when a folder under `root` changed after `since_ns` (wall
    clock); [] when none did."""
    if not _changed_after(root, since_ns, options):
        return []
    from indexing.discover import discover

    held = set(indexed())
    return sorted(f.path for f in discover(root, options).candidates if f.path not in held)


def _changed_after(root: Path, since_ns: int, options: DiscoveryOptions) -> bool:
    stack = [str(root)]
    while stack:
        folder = stack.pop()
        try:
            if os.stat(folder).st_mtime_ns > since_ns:
                return True
            with os.scandir(folder) as entries:
                stack.extend(e.path for e in entries
                             if e.name not in DEFAULT_SKIP_DIRS
                             and not options.skips_text(e.path)
                             and e.is_dir(follow_symlinks=False))
        except OSError:
            continue
    return False


#: What an answer says of the files a folder's own index lacks ({count}, {named}).
ADDED_SINCE_INDEX = ("{count} file(s) were added since the last index and are not searched "
                     "({named}); run `kebab index` to include them")
#: The same of a checkout searched through a team index, which CI built from its own tree:
#: a reader cannot add them, and may not be the one who should.
NOT_IN_TEAM_INDEX = ("{count} file(s) of this checkout are not in the team index and are not "
                     "searched ({named}): added here, or not indexed there yet")


def added_warning(added: list[str], says: str = ADDED_SINCE_INDEX) -> str | None:
    """What an answer says of the files added since the index was built, if any."""
    if not added:
        return None
    return says.format(count=len(added), named=_named(added))


def _named(paths: list[str]) -> str:
    """The first `NAMED` of `paths`, and how many more."""
    more = len(paths) - NAMED
    return ", ".join(paths[:NAMED]) + (f" and {more} more" if more > 0 else "")

"""Which files of a checkout the team index may answer for, and which the local index must."""

from __future__ import annotations

from indexing.store.catalog import FileState
from search.overlay import Changes


def states(**hashes: str) -> dict[str, FileState]:
    return {f"{name}.py": FileState(i, f"{name}.py", 1, 1, h)
            for i, (name, h) in enumerate(hashes.items())}


def test_edited_added_and_deleted_files() -> None:
    team = states(same="a", edited="b", deleted="c", not_indexed_yet="e")
    local = states(same="a", edited="B", added="d")
    on_disk = {"same.py", "edited.py", "added.py", "not_indexed_yet.py"}
    changes = Changes.between(local, team, on_disk.__contains__)
    assert changes.here == {"edited.py", "added.py"}  # answered from the local index
    # Never from the team index; a file the local index has not reached yet is still there.
    assert changes.stale == {"edited.py", "deleted.py"}


def test_an_unchanged_checkout_is_all_team() -> None:
    changes = Changes.between(states(a="1", b="2"), states(a="1", b="2"), lambda p: True)
    assert changes.here == frozenset() and changes.stale == frozenset()

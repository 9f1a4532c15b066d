"""Which files of a checkout the team index may answer for, and which the local index must."""

from __future__ import annotations

from indexing.filters import Filters
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


def test_each_path_is_answered_by_one_index_at_most() -> None:
    """The lookups' split: a request's own path filters are kept and narrowed, never
    widened, and no path is let through on both sides."""
    team = states(same="a", edited="b", deleted="c")
    local = states(same="a", edited="B", added="d")
    changes = Changes.between(local, team, lambda p: p != "deleted.py")
    team_scope, local_scope = changes.scopes
    paths = ("same.py", "edited.py", "deleted.py", "added.py", "elsewhere.py")
    assert [p for p in paths if team_scope.lets_through(p)] == ["same.py", "added.py",
                                                                 "elsewhere.py"]
    assert [p for p in paths if local_scope.lets_through(p)] == ["edited.py", "added.py"]
    # `added.py` passes the team's scope, but the team index does not hold it.
    asked = Filters(langs=("python",), only_paths=frozenset({"same.py", "edited.py"}),
                    skip_paths=frozenset({"x.py"}))
    assert asked.within(team_scope) == Filters(
        langs=("python",), only_paths=frozenset({"same.py", "edited.py"}),
        skip_paths=frozenset({"x.py", "edited.py", "deleted.py"}))
    assert asked.within(local_scope).only_paths == {"edited.py"}
    assert Filters().within(local_scope).only_paths == {"edited.py", "added.py"}


def test_a_file_whose_team_copy_moved_is_hidden_until_the_local_index_holds_it() -> None:
    """A partial local index leaves out the files equal to the team's old copy: when CI moves
    one, the team's new copy must not stand for the older one here before the rescan."""
    team = states(moved="new", edited_both="B", same="a")
    local = states(edited_both="B")  # the team now holds this edit too: answered by the team
    changes = Changes.between(local, team, lambda p: True,
                              unindexed={"moved.py", "edited_both.py", "gone_from_team.py"})
    assert changes.here == frozenset()
    assert changes.stale == {"moved.py"}
    rescanned = Changes.between({**local, **states(moved="old")}, team, lambda p: True)
    assert rescanned.here == {"moved.py"} and rescanned.stale == {"moved.py"}

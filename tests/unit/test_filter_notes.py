"""A filter that selects no indexed file makes every answer empty: the answer says so."""

from __future__ import annotations

from indexing.filters import Filters
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest


def ask(ws: Workspace, query: str, filters: Filters, mode: str = "lexical") -> list[str]:
    result = ws.searcher.search(SearchRequest(query, mode=mode, filters=filters))
    assert result.hits == [] or not any("selects nothing" in w for w in result.meta.warnings)
    return [w for w in result.meta.warnings if "selects nothing" in w]


def test_a_language_no_file_is_in_is_named_with_what_the_index_holds(
        workspace: Workspace) -> None:
    (note,) = ask(workspace, "user", Filters(langs=("pyton",)))
    assert note.startswith("no indexed file is in 'pyton': the filter selects nothing")
    assert "python" in note and "go" in note
    (note,) = ask(workspace, "user", Filters(langs=("cobol", "fortran")))
    assert "any of 'cobol', 'fortran'" in note


def test_a_glob_no_path_matches_is_named(workspace: Workspace) -> None:
    absolute = f"{workspace.root}/src/**"
    (note,) = ask(workspace, "user", Filters(path_glob=absolute))
    assert note.startswith(f"no indexed file matches path_glob {absolute!r}")
    assert ask(workspace, "user", Filters(path_glob="/src/**")) == []  # anchored: it matches


def test_a_filter_that_selects_files_adds_nothing_to_a_true_zero(workspace: Workspace) -> None:
    # The query finds nothing under a filter that does select files: that zero is the query's.
    assert ask(workspace, "zzzqqqxxyy", Filters(langs=("python",), path_glob="src/**")) == []


def test_a_merged_answer_keeps_a_note_only_when_every_folder_has_it() -> None:
    from search.merge import merge_meta
    from search.types import Meta

    def in_every_folder(by_folder: list[list[str]]) -> list[str]:  # as an answer merges them
        return merge_meta([Meta(mode="auto", warnings=w) for w in by_folder], 0).warnings

    glob = ("no indexed file matches path_glob 'lib/**': the filter selects nothing (globs "
            "are relative to the workspace folder, and a leading '/' anchors at it)")
    lang_a = "no indexed file is in 'cobol': the filter selects nothing (the index holds go)"
    lang_b = "no indexed file is in 'cobol': the filter selects nothing (the index holds rust)"
    other = "the index is still building: results may be incomplete"
    # One folder has lib/ files: the glob is not why the answer is what it is.
    assert in_every_folder([[glob, other], [other]]) == [other]
    # No folder has a cobol file: each folder's note stays, once.
    assert in_every_folder([[lang_a], [lang_b], [lang_a]]) == [lang_a, lang_b]

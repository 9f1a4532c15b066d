"""Soft priors on real candidate values: what they scale, and what they leave alone."""

from __future__ import annotations

from collections.abc import Callable

from indexing.records import Span, Symbol, SymbolKind
from indexing.store import ChunkRow
from search import priors
from search.query import is_question
from search.types import Candidate, Retrieval


def cand(cid: str, path: str, score: float, is_test: bool = False,
         kind: SymbolKind | None = None, bodiless: bool = False, lang: str = "typescript",
         container: str | None = None) -> Candidate:
    span = Span(0, 0, 1, 0)
    symbol = None if kind is None else Symbol(cid.rsplit(".", 1)[-1], kind, container, cid,
                                              span, span, bodiless=bodiless)
    row = ChunkRow(rowid=0, chunk_id=cid, path=path, lang=lang,
                   chunk_kind="code" if kind is None else "definition", start_line=0,
                   end_line=1, context="", text=None, text_hash=cid, is_test=is_test,
                   is_generated=False, symbol=symbol)
    return Candidate(row, score, Retrieval("hybrid"))


def asked_and_told(make: Callable[[], list[Candidate]]
                   ) -> tuple[list[Candidate], list[Candidate]]:
    """The same candidates ranked for a question and for a sentence (`apply` re-scores in
    place, so each gets its own)."""
    return priors.apply(make(), question=True), priors.apply(make(), question=False)


def test_hits_from_one_file_are_not_pushed_down_for_sharing_it() -> None:
    # A question about one cohesive file: its answer is the file's fourth candidate, just
    # above another file's. Each further hit from a file used to be scaled by 1/(1 + 0.1 n),
    # which put "atom-4" (0.80 -> 0.615) below "other" (0.79).
    cands = [cand("atom-1", "core/atom.ts", 0.95), cand("atom-2", "core/atom.ts", 0.9),
             cand("atom-3", "core/atom.ts", 0.85), cand("atom-4", "core/atom.ts", 0.80),
             cand("other", "api/other.ts", 0.79)]
    ranked = priors.apply(cands)
    assert [c.row.chunk_id for c in ranked] == ["atom-1", "atom-2", "atom-3", "atom-4", "other"]
    assert [c.score for c in ranked] == [0.95, 0.9, 0.85, 0.80, 0.79]
    assert all(not c.retrieval.priors for c in ranked)


def test_test_paths_are_still_demoted() -> None:
    ranked = priors.apply([cand("t", "tests/test_atom.ts", 0.9, is_test=True),
                           cand("c", "core/atom.ts", 0.8)])
    assert [c.row.chunk_id for c in ranked] == ["c", "t"]
    assert [p.name for p in ranked[1].retrieval.priors] == ["test_path"]


def test_a_rust_test_in_the_file_it_tests_ranks_below_the_code() -> None:
    # ignore's walk.rs keeps its tests in `#[cfg(test)] mod tests`: the test `max_filesize`,
    # which sets the limit and walks a tree, matched a question about the size limit better
    # than `skip_filesize`, which applies it. The file is not a test file, so it had no prior.
    # A sentence, asked or told, weighs it as a test.
    def make() -> list[Candidate]:
        return [cand("tests.max_filesize", "src/walk.rs", 0.80, kind=SymbolKind.FUNCTION,
                     lang="rust", container="tests"),
                cand("skip_filesize", "src/walk.rs", 0.74, kind=SymbolKind.FUNCTION,
                     lang="rust")]
    asked = priors.apply(make(), question=True, sentence=True)
    assert [c.row.chunk_id for c in asked] == ["skip_filesize", "tests.max_filesize"]
    assert [p.name for p in asked[1].retrieval.priors] == ["definition", "callable_for_question",
                                                           "test_module", "test_for_question"]
    assert asked[1].score == round(0.80 * 1.15 * 1.2 * 0.85 * 0.8, 6)
    # A description, told rather than asked, is answered by the code too.
    told = priors.apply(make(), sentence=True)
    assert [c.row.chunk_id for c in told] == ["skip_filesize", "tests.max_filesize"]
    assert told[1].score == round(0.80 * 1.15 * 0.85, 6)
    # A name or code copied from the file may be the test's own: it keeps its place.
    code = priors.apply(make())
    assert [c.row.chunk_id for c in code] == ["tests.max_filesize", "skip_filesize"]
    assert all(p.name != "test_module" for c in code for p in c.retrieval.priors)
    # The same shape in Python is a class named `tests`, not a test module: left as it is.
    py = priors.apply([cand("tests.helper", "src/walk.py", 0.80, kind=SymbolKind.FUNCTION,
                            lang="python", container="tests"),
                       cand("skip", "src/walk.py", 0.74, kind=SymbolKind.FUNCTION,
                            lang="python")], question=True)
    assert [c.row.chunk_id for c in py] == ["tests.helper", "skip"]


def test_a_question_weighs_a_test_beyond_a_tests_factor() -> None:
    # click's tests/test_chain.py sets up "a group nested under a group in chain mode" in a
    # short test whose words match the question well; the code that refuses it,
    # `_check_multicommand`, came after the tests, which a test's 0.85 alone did not overturn.
    def make() -> list[Candidate]:
        return [cand("test_nested_group_in_chain", "tests/test_chain.py", 0.80, is_test=True,
                     kind=SymbolKind.FUNCTION, lang="python"),
                cand("_check_multicommand", "src/click/core.py", 0.62,
                     kind=SymbolKind.FUNCTION, lang="python")]
    asked = priors.apply(make(), question=True)
    assert [c.row.chunk_id for c in asked] == ["_check_multicommand",
                                               "test_nested_group_in_chain"]
    assert [p.name for p in asked[1].retrieval.priors] == [
        "definition", "callable_for_question", "test_path", "test_for_question"]
    assert asked[1].score == round(0.80 * 1.15 * 1.2 * 0.85 * 0.8, 6)
    # "who calls X" is answered by a test's call as well as the code's: a test's factor only.
    calls = priors.apply(make(), question=True, calls=True)
    assert [c.row.chunk_id for c in calls] == ["test_nested_group_in_chain",
                                               "_check_multicommand"]
    # A sentence told, not asked, keeps a test's factor alone too.
    told = priors.apply(make(), sentence=True)
    assert [c.row.chunk_id for c in told][0] == "test_nested_group_in_chain"
    assert all(p.name != "test_for_question" for c in told + calls for p in c.retrieval.priors)
    # A Rust file's own tests are tests to a question too.
    rust = priors.apply([cand("tests.nested", "src/chain.rs", 0.80, kind=SymbolKind.FUNCTION,
                              lang="rust", container="tests")], question=True, sentence=True)
    assert [p.name for p in rust[0].retrieval.priors][-2:] == ["test_module",
                                                               "test_for_question"]


def test_an_example_ranks_below_the_code_it_calls() -> None:
    # click's examples/termui defines `edit`, a three-line command that calls click.edit; asked
    # "which program is launched when the user has to edit text externally", it matched the
    # words a little better than the function that answers.
    asked, told = asked_and_told(lambda: [
        cand("edit", "examples/termui/termui.py", 0.80, kind=SymbolKind.FUNCTION),
        cand("Editor.get_editor", "src/click/_termui_impl.py", 0.74, kind=SymbolKind.METHOD)])
    assert [c.row.chunk_id for c in asked] == ["Editor.get_editor", "edit"]
    assert [p.name for p in asked[1].retrieval.priors] == [
        "definition", "callable_for_question", "example_path"]
    assert asked[1].score == round(0.80 * 1.15 * 1.2 * 0.85, 6)
    # A sentence copied from the example's doc, or its code, is answered by the example.
    assert [c.row.chunk_id for c in told] == ["edit", "Editor.get_editor"]
    assert all(p.name != "example_path" for c in told for p in c.retrieval.priors)


def test_a_question_lifts_code_that_runs_above_the_declarations_that_describe_it() -> None:
    # An options interface whose docs restate the behaviour matches the question's words a
    # little better than the undocumented function that does it.
    asked, told = asked_and_told(lambda: [
        cand("SubscriptionOptions", "core/state.ts", 0.80, kind=SymbolKind.INTERFACE),
        cand("refetchValidQueries", "core/focus.ts", 0.75, kind=SymbolKind.FUNCTION)])
    assert [c.row.chunk_id for c in asked] == ["refetchValidQueries", "SubscriptionOptions"]
    assert [p.name for p in asked[0].retrieval.priors] == ["definition", "callable_for_question"]
    assert [p.name for p in asked[1].retrieval.priors] == ["definition"]
    # A sentence that is not a question (a docstring's words) keeps the order the words gave.
    assert [c.row.chunk_id for c in told] == ["SubscriptionOptions", "refetchValidQueries"]


def test_a_question_weighs_a_method_without_a_body_as_a_declaration() -> None:
    # client_golang's `API.Snapshot`, an interface method with the doc, matched "how do I
    # take a snapshot of the TSDB" a little better than `httpAPI.Snapshot`, the code that
    # does it; both took the callable lift, and the declaration stayed first.
    asked = priors.apply([cand("API.Snapshot", "api/v1/api.go", 0.80,
                               kind=SymbolKind.METHOD, bodiless=True),
                          cand("httpAPI.Snapshot", "api/v1/api.go", 0.75,
                               kind=SymbolKind.METHOD)], question=True)
    assert [c.row.chunk_id for c in asked] == ["httpAPI.Snapshot", "API.Snapshot"]
    assert [p.name for p in asked[0].retrieval.priors] == ["definition", "callable_for_question"]
    assert [p.name for p in asked[1].retrieval.priors] == ["definition"]


def test_what_reads_as_a_question() -> None:
    for text in ("how do we wait between attempts", "Where is the config read",
                 "what's the default timeout", "is there a helper that retries",
                 "the user's display name?", "  Which flags are global",
                 "in what order do the hooks run",
                 "if I pass no credentials, where does the client find them",
                 "I get an error at startup - where is that check made",
                 "if I register a callback twice, do I get two entries",
                 "given a list of tags, how do we find the cached entries"):
        assert is_question(text), text
    for text in ("Return the user's display name.", "returns whether it is done",
                 "Howl at the moon", "parse a yaml configuration file", "whatever it costs",
                 "Return the value, which is cached.", "Close the stream, when set.",
                 "Read the file, or what is left of it", "in place of the default"):
        assert not is_question(text), text


def test_priors_weigh_tiny_scores_too() -> None:
    # bm25 is near zero when every word of the query is in most chunks (FTS5 floors the
    # inverse document frequency at 1e-6). Scores rounded to six decimals all read 2e-06,
    # and a prior's factor rounded away: the test file stayed above the code it tests.
    ranked = priors.apply([cand("t", "store_test.go", 2.08108e-06, is_test=True),
                           cand("c", "store.go", 2.04795e-06, kind=SymbolKind.FUNCTION)])
    assert [c.row.chunk_id for c in ranked] == ["c", "t"]
    assert [c.score for c in ranked] == [2.35514e-06, 1.76892e-06]

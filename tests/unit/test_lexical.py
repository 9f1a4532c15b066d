"""Lexical retrieval over a real index of the sample tree: tokenization, ordering, filters,
exact text, metadata and citations."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from indexing.filters import Filters
from indexing.settings import Settings
from kebab_lsp.convert import result_wire
from kebab_lsp.workspace import Workspace
from search.types import InvalidQuery, SearchRequest, SearchResult
from search.window import candidate_window


def run(ws: Workspace, query: str, **kw: object) -> SearchResult:
    return ws.searcher.search(SearchRequest(query=query, mode="lexical", **kw))  # type: ignore[arg-type]


def titles(result: SearchResult) -> list[str]:
    return [h.title for h in result.hits]


def test_identifier_parts_match_across_styles(workspace: Workspace) -> None:
    result = run(workspace, "user by id", k=50)
    found = {h.symbol for h in result.hits if h.symbol}
    assert {"get_user_by_id", "getUserById", "GetUserByID"} <= found


def test_exact_identifier_ranks_first(workspace: Workspace) -> None:
    assert titles(run(workspace, "getUserById"))[0] == "getUserById"
    assert titles(run(workspace, "get_user_by_id"))[0] == "UserStore.get_user_by_id"
    # FTS folds case, so the Go and TS spellings tie lexically; both lead the list.
    top_two = {(h.path, h.symbol) for h in run(workspace, "GetUserByID").hits[:2]}
    assert top_two == {("server/handler.go", "GetUserByID"), ("web/api.ts", "getUserById")}


def test_names_weigh_more_than_paths_and_bodies(workspace: Workspace) -> None:
    # "handler" is a path word for server/handler.go and a symbol name (Handler); "store" is
    # the name UserStore's file and appears in bodies: the definition named by the query wins.
    assert titles(run(workspace, "Handler"))[0] == "server.Handler"


def test_citation_is_the_definition_name(workspace: Workspace) -> None:
    hit = run(workspace, "get_user_by_id").hits[0]
    assert hit.path == "src/users/store.py"
    assert (hit.span.start_line, hit.span.start_col, hit.span.end_line, hit.span.end_col) == (
        11, 8, 11, 22)
    wire = result_wire(SearchResult([hit], run(workspace, "x").meta), explain=False)
    loc = wire["hits"][0]["location"]
    assert loc["uri"] == (workspace.root / "src/users/store.py").as_uri()
    # The location cites the whole definition; the selection is the name inside it.
    assert loc["range"] == {"start": {"line": 11, "character": 4},
                            "end": {"line": 13, "character": 39}}
    assert wire["hits"][0]["selection"] == {"start": {"line": 11, "character": 8},
                                            "end": {"line": 11, "character": 22}}


def test_scores_are_normalized_and_ordered(workspace: Workspace) -> None:
    result = run(workspace, "user", k=50)
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < s < 1.0 for s in scores)


def test_same_query_same_bytes(workspace: Workspace) -> None:
    def dump() -> str:
        return json.dumps(result_wire(run(workspace, "user store id", k=50), explain=True,
                                      include_timing=False), sort_keys=True)

    assert dump() == dump()


def test_and_first_then_or_fill_with_warning(workspace: Workspace) -> None:
    strict = run(workspace, "installer retry", k=1)
    assert strict.meta.query_plan == "and"
    assert titles(strict) == ["Guide > Install"]
    filled = run(workspace, "installer handler", k=5)
    assert filled.meta.query_plan == "and+or_fill"
    assert any("any term" in w for w in filled.meta.warnings)
    assert {"Guide > Install", "server.Handler"} <= set(titles(filled))


def test_the_fill_reads_each_name_in_a_call(workspace: Workspace) -> None:
    # `get_user_by_id(uid)` matches only as the phrase of its two names, which no file
    # holds; the fill counts each name on its own, so the question is not left empty.
    filled = run(workspace, "zebra get_user_by_id(uid)", k=5)
    assert filled.meta.query_plan == "and+or_fill"
    assert [(h.path, h.span.start_line) for h in filled.hits[:1]] == [("src/users/store.py", 11)]


def test_a_hit_with_every_term_stays_above_the_fill(tmp_path: Path) -> None:
    # The one chunk holding both words is a long prose paragraph (prior 0.7); the fill finds a
    # short definition holding the rare "backoff" alone, whose any-term bm25 is higher than
    # the paragraph's all-terms bm25 (another query, another scale) and which gets the
    # definition prior. Priors re-rank within a tier: the paragraph stays first.
    root = tmp_path / "tree"
    (root / "docs").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "docs" / "ops.md").write_text(
        "# Operations\n\nBackoff applies to every zebra request that fails, with jitter between "
        "attempts, so that a\nburst of failures does not turn into a burst of retries against "
        "the same upstream host, which\nis what the operations team asked for after the "
        "outage in the spring of the previous year.\n")
    (root / "src" / "zebra.py").write_text(
        "".join(f"def zebra_{n}(zebra):\n    return zebra\n\n\n" for n in ("a", "b", "c")))
    (root / "src" / "backoff.py").write_text("def backoff(delay):\n    return delay * 2\n")
    for i in range(30):  # so that neither word is common
        (root / "src" / f"f{i}.py").write_text(f"def filler_{i}(a):\n    return a + {i}\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        result = run(ws, "zebra backoff", k=5)
    finally:
        ws.close()
    assert result.meta.query_plan == "and+or_fill"
    assert [(h.title, h.retrieval.lexical_rank) for h in result.hits[:2]] == [
        ("Operations", 1), ("backoff", 2)]
    first, second = result.hits[0], result.hits[1]
    assert first.score < second.score  # each keeps its own score; the tier orders them


def test_a_small_k_gets_the_first_hits_of_a_larger_one(tmp_path: Path) -> None:
    # bm25 ranks the test first (the word five times in a short chunk); the test-path prior
    # puts the definition above it. Read only k deep, k = 1 never saw the definition and
    # answered with the test: the order depended on k.
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "tests" / "test_throttle.py").write_text(
        "def test_throttle():\n    throttle(throttle, throttle, throttle, throttle)\n")
    (root / "src" / "limits.py").write_text(
        "def throttle(calls, per_second):\n    \"\"\"Slow the caller down to a rate.\"\"\"\n"
        "    return min(calls, per_second) * 2 + len(str(calls)) - per_second\n")
    for i in range(30):  # so that the word is rare
        (root / "src" / f"f{i}.py").write_text(f"def filler_{i}(a):\n    return a + {i}\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        by_k = {k: [(h.path, h.span.start_line) for h in run(ws, "throttle", k=k).hits]
                for k in (1, 2, 10)}
    finally:
        ws.close()
    assert by_k[10][:2] == [("src/limits.py", 0), ("tests/test_throttle.py", 0)]
    assert by_k[1] == by_k[10][:1] and by_k[2] == by_k[10][:2]


def test_a_tie_at_the_cut_is_broken_by_path_over_every_tied_match(tmp_path: Path) -> None:
    # More identical files than the first read takes, indexed in reverse path order so that
    # the full-text index meets them last path first: only a second pass over every tied
    # match finds the first paths.
    root = tmp_path / "tree"
    root.mkdir()
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    n = 2 * (candidate_window(5) + 1) + 20
    try:
        ws.indexer.index()
        for i in reversed(range(n)):
            (root / f"m{i:03}.py").write_text("def same():\n    return sentinel\n")
            ws.indexer.update_paths([root / f"m{i:03}.py"])
        result = run(ws, "sentinel", k=5)
    finally:
        ws.close()
    assert result.meta.total_matches == n
    assert [h.path for h in result.hits] == [f"m{i:03}.py" for i in range(5)]


def chunks(result: SearchResult) -> set[tuple[str, tuple[int, int]]]:
    return {(h.path, h.chunk_lines) for h in result.hits}


@pytest.mark.parametrize(
    ("query", "plain"),
    [
        ('user" OR (', "user OR"),  # quotes and brackets are characters, OR is a word
        ("NEAR user", "near user"),  # NEAR is a word, not an operator
        ("^user", "user"),  # not FTS5's "first token" marker
        ("- user", "user"),  # a bare minus is not NOT
        ("user)", "user"),
        ("user:id", "'\"user id\"'"),  # not a column filter: the words `user id`, in order
    ],
)
def test_special_characters_are_escaped(workspace: Workspace, query: str, plain: str) -> None:
    got, want = run(workspace, query, k=50), run(workspace, plain, k=50)
    assert got.hits and chunks(got) == chunks(want)
    assert got.meta.total_matches == want.meta.total_matches


def test_a_star_is_a_character_unless_the_query_is_raw_fts5(workspace: Workspace) -> None:
    # No file holds "user*" as text, and reading it as code was a guess: it is asked again by
    # its words, as `auto` does, and says so; the star is not a prefix operator.
    star = run(workspace, "user*", k=50)
    assert star.meta.intent == {"name": "concept", "rule": "code fragment not found as text"}
    assert any("no file holds the query as exact text" in w for w in star.meta.warnings)
    assert star.meta.query_plan == "and" and chunks(star) == chunks(run(workspace, "user", k=50))
    quoted = run(workspace, '"user*"')  # asked for as text: nothing, and that is true
    assert quoted.meta.query_plan == "exact" and quoted.hits == []
    prefix = run(workspace, "'user*'")  # raw FTS5: the prefix operator, asked for
    assert prefix.meta.query_plan == "raw" and prefix.hits


def test_raw_fts5_passthrough_and_errors(workspace: Workspace) -> None:
    result = run(workspace, "'names:UserStore'")
    assert result.meta.query_plan == "raw"
    assert titles(result) and all(t.startswith("UserStore") for t in titles(result))
    with pytest.raises(InvalidQuery, match="invalid FTS5 expression"):
        run(workspace, "'user AND'")


def test_empty_query_returns_nothing(workspace: Workspace) -> None:
    result = run(workspace, "   ")
    assert result.hits == [] and result.meta.total_matches == 0


def test_filters_apply_before_the_limit(workspace: Workspace) -> None:
    by_lang = run(workspace, "user", k=1, filters=Filters(langs=("go",)))
    assert [h.path for h in by_lang.hits] == ["server/handler.go"]
    by_kind = run(workspace, "user", k=50, filters=Filters(kinds=("interface",)))
    assert titles(by_kind) == ["User"]
    star = run(workspace, "user", k=50, filters=Filters(path_glob="src/*.py"))
    assert star.hits == []  # `*` does not cross `/`
    deep = run(workspace, "user", k=50, filters=Filters(path_glob="src/**/*.py"))
    assert {h.path for h in deep.hits} == {"src/users/store.py"}
    name_only = run(workspace, "user", k=50, filters=Filters(path_glob="*.ts"))
    assert {h.path for h in name_only.hits} == {"web/api.ts"}


def test_exact_text_matches_grep(workspace: Workspace) -> None:
    needles = ["users[id]", "too many users", "get_user_by_id(1)", "MAX_USERS", "@", "id"]
    for needle in needles:
        grep = subprocess.run(
            ["grep", "-rlF", "--", needle, "."], cwd=workspace.root, capture_output=True,
            text=True, check=False,
        )
        expected = sorted(p.removeprefix("./") for p in grep.stdout.split())
        result = run(workspace, f'"{needle}"', k=100)
        assert sorted(h.path for h in result.hits) == expected, needle
        assert result.meta.total_matches == len(expected)


def test_exact_text_under_a_kind_filter_finds_a_later_occurrence(tmp_path: Path) -> None:
    # The file's first occurrence is in a function; the one in a class comes later. Asked for
    # classes, the file matches at the class, and the count is of what is returned.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text('def helper():\n    return "needle_token"\n\n\n'
                               'class Holder:\n    value = "needle_token"\n')
    (root / "n.py").write_text('def other():\n    return "needle_token"\n')
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        classes = run(ws, '"needle_token"', filters=Filters(kinds=("class",)))
        functions = run(ws, '"needle_token"', filters=Filters(kinds=("function",)))
    finally:
        ws.close()
    assert [(h.path, h.title, h.span.start_line, h.span.start_col) for h in classes.hits] == [
        ("m.py", "Holder", 5, 13)]
    assert classes.meta.total_matches == 1 and classes.meta.count_accuracy == "exact"
    assert [(h.path, h.title) for h in functions.hits] == [("m.py", "helper"), ("n.py", "other")]
    assert functions.meta.total_matches == 2


def test_exact_text_that_a_file_defines_is_cited_at_its_definition(tmp_path: Path) -> None:
    # The shape of @tanstack/query-core's QueryObserver: a private method is called above the
    # place that defines it. `#executeFetch` (read as exact text, like a quoted name) cited
    # the call, so a name query in `lexical` never reached the definition; a file that only
    # calls it still cites its first call.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "observer.ts").write_text(
        "export class QueryObserver {\n"
        "  onSubscribe(): void {\n"
        "    this.#executeFetch()\n"
        "  }\n"
        "\n"
        "  #executeFetch(): Promise<void> {\n"
        "    return this.query.fetch()\n"
        "  }\n"
        "}\n")
    (root / "notes.ts").write_text("// see QueryObserver.#executeFetch\nexport const x = 1\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        for query in ("#executeFetch", '"#executeFetch"'):
            hits = run(ws, query).hits
            assert [(h.path, h.title, h.span.start_line, h.span.start_col) for h in hits] == [
                ("observer.ts", "QueryObserver.#executeFetch", 5, 2),
                ("notes.ts", "notes.ts:1", 0, 21)], query
    finally:
        ws.close()


def test_a_makefile_target_asked_as_text_is_cited_at_its_rule(tmp_path: Path) -> None:
    # aiohttp's vendored llhttp Makefile: `build/c/llhttp.o` is a prerequisite of the archive
    # before its own rule. The query reads as a path (exact text), not as a name, and was
    # cited at the prerequisite; the rule that defines it is where it is made.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "Makefile").write_text(
        "build/libllhttp.a: build/c/llhttp.o\n"
        "\t$(AR) rcs $@ build/c/llhttp.o\n"
        "\n"
        "build/c/llhttp.o: src/llhttp.c\n"
        "\t$(CC) -c $< -o $@\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        result = run(ws, "build/c/llhttp.o")
    finally:
        ws.close()
    assert result.meta.query_plan == "exact"
    assert [(h.path, h.title, h.span.start_line, h.span.start_col) for h in result.hits] == [
        ("Makefile", "build/c/llhttp.o", 3, 0)]


def test_a_rust_files_own_tests_carry_the_test_prior(tmp_path: Path) -> None:
    # Rust keeps unit tests in `#[cfg(test)] mod tests` inside the file they test, which is
    # not a test file: for a sentence, the module and what it holds are weighed as tests, the
    # code is not.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "walk.rs").write_text(
        "pub struct Walk {\n    max: Option<u64>,\n}\n\n"
        "impl Walk {\n"
        "    /// Skips a file above the size limit.\n"
        "    fn skip_large(&self, len: u64) -> bool {\n"
        "        self.max.map_or(false, |m| len > m)\n"
        "    }\n"
        "}\n\n"
        "#[cfg(test)]\n"
        "mod tests {\n"
        "    use super::*;\n\n"
        "    #[test]\n"
        "    fn size_limit() {\n"
        "        let walk = Walk { max: Some(10) };\n"
        "        assert!(walk.skip_large(11));\n"
        "        assert!(!walk.skip_large(10));\n"
        "    }\n\n"
        "    struct Fixture;\n\n"
        "    impl Fixture {\n"
        "        fn walk_with_a_size_limit(&self) -> Walk {\n"
        "            Walk { max: Some(10) }\n"
        "        }\n"
        "    }\n"
        "}\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        sentences = [run(ws, query, k=10, explain=True).hits for query in (
            "how is a walk skipping files above the size limit?",
            "Skips a file that is above the size limit.")]
        named = run(ws, "skip_large", k=10, explain=True).hits
    finally:
        ws.close()
    for hits in sentences:
        # Everything from `mod tests` on (line 11), a method of a type declared there too.
        weighed = {(h.title, h.span.start_line >= 11): "test_module" in [
            p.name for p in h.retrieval.priors] for h in hits}
        assert {key[0] for key in weighed} >= {"tests.size_limit"}
        assert all(test == in_tests for (_, in_tests), test in weighed.items()), weighed
        assert any(not in_tests for _, in_tests in weighed), weighed
    fixture = [h for hits in sentences for h in hits if h.title.endswith(".Fixture."
                                                                      "walk_with_a_size_limit")]
    assert fixture and all("test_module" in [p.name for p in h.retrieval.priors]
                           for h in fixture)
    # A name (or code) copied from the file may be the test's own: no test prior.
    assert "tests.size_limit" in {h.title for h in named}
    assert all(p.name != "test_module" for h in named for p in h.retrieval.priors)


ZIG_STACK = (
    "const std = @import(\"std\");\n\n"
    "pub const Stack = struct {\n"
    "    items: [8]u32 = undefined,\n"
    "    len: usize = 0,\n\n"
    "    /// Pushes an item on top of the stack.\n"
    "    pub fn push(self: *Stack, item: u32) void {\n"
    "        self.items[self.len] = item;\n"
    "        self.len += 1;\n"
    "    }\n\n"
    "    test \"keeps what it was given\" {\n"
    "        var stack = Stack{};\n"
    "        stack.push(7);\n"
    "        try std.testing.expectEqual(stack.items[0], 7);\n"
    "    }\n"
    "};\n\n"
    "test \"grows by one\" {\n"
    "    var stack = Stack{};\n"
    "    stack.push(7);\n"
    "    try std.testing.expectEqual(stack.len, 1);\n"
    "}\n")
D_STACK = (
    "module stack;\n\n"
    "struct Stack\n{\n"
    "    int[] items;\n\n"
    "    /// Pushes an item on top of the stack.\n"
    "    void push(int item) { items ~= item; }\n\n"
    "    unittest\n    {\n"
    "        Stack stack;\n"
    "        stack.push(7);\n"
    "        assert(stack.items[$ - 1] == 7);\n"
    "    }\n"
    "}\n\n"
    "@safe unittest\n{\n"
    "    Stack stack;\n"
    "    stack.push(7);\n"
    "    assert(stack.items.length == 1);\n"
    "}\n")

OCAML_STACK = (
    "type t = { mutable items : int list }\n\n"
    "(** Pushes an item on top of the stack. *)\n"
    "let push stack item = stack.items <- item :: stack.items\n\n"
    "let%test \"keeps what it was given\" =\n"
    "  let stack = { items = [] } in\n"
    "  push stack 7;\n"
    "  stack.items = [ 7 ]\n\n"
    "let%expect_test \"grows by one\" =\n"
    "  let stack = { items = [] } in\n"
    "  push stack 7;\n"
    "  print_int (List.length stack.items);\n"
    "  [%expect {| 1 |}]\n\n"
    "let%test_unit _ =\n"
    "  let stack = { items = [] } in\n"
    "  push stack 7;\n"
    "  assert (List.length stack.items = 1)\n")

RACKET_STACK = (
    "#lang racket/base\n\n"
    ";; Pushes an item on top of the stack.\n"
    "(define (push! stack item)\n"
    "  (set-box! stack (cons item (unbox stack))))\n\n"
    "(module+ test\n"
    "  (require rackunit)\n"
    "  (define (fresh-stack) (box '()))\n"
    "  (define stack (fresh-stack))\n"
    "  (push! stack 7)\n"
    "  (check-equal? (unbox stack) '(7)))\n")


@pytest.mark.parametrize(("name", "text", "code", "tests"), [
    ("stack.zig", ZIG_STACK, "Stack.push", {"Stack.keeps what it was given", "grows by one"}),
    ("stack.d", D_STACK, "Stack.push", {"Stack.unittest", "unittest"}),
    ("stack.ml", OCAML_STACK, "push", {"keeps what it was given", "grows by one",
                                       "test_unit"}),
    ("stack.rkt", RACKET_STACK, "push!", {"test"}),
])
def test_tests_kept_beside_the_code_carry_the_test_prior(tmp_path: Path, name: str, text: str,
                                                         code: str, tests: set[str]) -> None:
    # Zig's `test "..."` blocks, D's `unittest` blocks, OCaml's `let%test`s and Racket's
    # `(module+ test ...)` sit in the file they test, beside the code and inside its types,
    # and call it under the words that describe it: for a sentence they are weighed as tests,
    # and the code they call comes first.
    root = tmp_path / "tree"
    root.mkdir()
    (root / name).write_text(text)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        asked = run(ws, "how is an item pushed on top of the stack?", k=10, explain=True).hits
        told = run(ws, "Pushes an item on top of the stack.", k=10, explain=True).hits
        named = run(ws, "push", k=10, explain=True).hits
    finally:
        ws.close()
    for hits in (asked, told):
        weighed = {h.title: "test_module" in [p.name for p in h.retrieval.priors]
                   for h in hits}
        assert {t for t, test in weighed.items() if test} == tests, weighed
        assert hits[0].title == code, [h.title for h in hits]
    # A name (or code) copied from the file may be the test's own: no test prior.
    assert all(p.name != "test_module" for h in named for p in h.retrieval.priors)


def test_code_fragment_is_exact_text(workspace: Workspace) -> None:
    result = run(workspace, "store.get_user_by_id(1)")
    assert result.meta.query_plan == "exact"
    hit = result.hits[0]
    assert hit.path == "tests/test_store.py"
    assert (hit.span.start_line, hit.span.start_col) == (6, 11)
    assert hit.snippet.text[slice(*hit.snippet.highlights[0])] == "store.get_user_by_id(1)"


def test_meta_is_complete_and_honest(workspace: Workspace) -> None:
    result = run(workspace, "user", k=2)
    meta = result.meta
    assert meta.total_matches > 2
    assert meta.recall == {"complete": True, "ranking_scope": "all_matches", "truncated": True}
    assert meta.score == {"kind": "bm25_normalized+priors", "direction": "higher_is_better"}
    assert meta.index["files"] == 6 and meta.index["building"] is False
    assert meta.count_accuracy == "exact"


def test_snippets_are_capped_and_highlighted(workspace: Workspace) -> None:
    result = run(workspace, "installer", snippet_chars=30)
    snippet = result.hits[0].snippet
    assert len(snippet.text) <= 30
    assert [snippet.text[a:b] for a, b in snippet.highlights] == ["installer"]


def test_invalid_params(workspace: Workspace) -> None:
    with pytest.raises(InvalidQuery, match="unknown mode"):
        workspace.searcher.search(SearchRequest(query="x", mode="fuzzy"))
    with pytest.raises(InvalidQuery, match="unbalanced"):
        run(workspace, "x", filters=Filters(path_glob="src/[a.py"))
    with pytest.raises(InvalidQuery, match="'k' must be an integer in 1..500"):
        run(workspace, "x", k=0)


def test_long_lines_and_odd_files_stay_searchable(sample_repo: Path, index_root: Path) -> None:
    (sample_repo / "long.js").write_text("var x = '" + "a" * 100_000 + "'; var needle_here = 1;\n")
    (sample_repo / "crlf.py").write_bytes(b"def first():\r\n    pass\r\n\r\ndef second_fn():\r\n"
                                          b"    return 2\r\n")
    (sample_repo / "bad_utf8.py").write_bytes(b"# caf\xe9\n\ndef after_bad_byte():\n    pass\n")
    (sample_repo / "broken.py").write_text("def ok_before():\n    pass\n\ndef broken(:\n")
    (sample_repo / "dir with space").mkdir()
    (sample_repo / "dir with space" / "naïve.py").write_text("def naive_fn():\n    pass\n")
    ws = Workspace(sample_repo)
    summary = ws.indexer.index()
    assert summary.new == 11 and summary.skipped == 0
    assert run(ws, "needle_here").hits[0].path == "long.js"
    second = run(ws, "second_fn").hits[0]
    assert (second.path, second.span.start_line, second.span.start_col) == ("crlf.py", 3, 4)
    bad = run(ws, "after_bad_byte").hits[0]
    assert (bad.path, bad.span.start_line) == ("bad_utf8.py", 2)
    assert run(ws, "ok_before").hits[0].path == "broken.py"
    assert run(ws, "naive_fn").hits[0].path == "dir with space/naïve.py"
    ws.close()


def test_fill_ignores_common_words(workspace: Workspace) -> None:
    # "the" is in many chunks and "zebra" in none: no chunk matches the query's meaning.
    result = run(workspace, "the zebra", k=5)
    assert result.hits == [] and result.meta.total_matches == 0
    only_common = run(workspace, "the of", k=50)  # nothing but function words: kept as typed
    assert only_common.hits


def test_a_save_committed_during_a_search_is_seen_whole_or_not_at_all(
        workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search reads in many statements; a save another thread commits between two of them
    (here: right after the exact-text search picked the chunks to cite, before it read their
    text) must not show the search half of each state."""
    import threading

    store = workspace.store
    path = workspace.root / "tests/test_store.py"
    before = run(workspace, '"store.get_user_by_id(1)"').hits[0]
    real = store.chunks_at
    saved = threading.Event()

    def chunks_then_a_save(rel: str, line: int) -> list:  # type: ignore[type-arg]
        rows = real(rel, line)
        if not saved.is_set():
            saved.set()
            path.write_text("\n\n\n\n\n\n\n\n" + path.read_text())  # every chunk moves down
            save = threading.Thread(target=workspace.indexer.update_paths, args=([path],))
            save.start()
            save.join()
        return rows

    monkeypatch.setattr(store, "chunks_at", chunks_then_a_save)
    during = run(workspace, '"store.get_user_by_id(1)"').hits[0]
    assert saved.is_set()
    assert (during.path, during.span, during.snippet.text) == (
        before.path, before.span, before.snippet.text)
    monkeypatch.undo()
    after = run(workspace, '"store.get_user_by_id(1)"').hits[0]
    assert after.span.start_line == before.span.start_line + 8


def test_a_word_inside_an_unspaced_run_is_found_as_exact_text(tmp_path: Path) -> None:
    # unicode61 indexes "こんにちは世界" as one term: the words find nothing, so the text is
    # looked for as it is, and the answer says why.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "u.py").write_text('def greet():\n    return "こんにちは世界"\n')
    (root / "v.py").write_text('def title():\n    return "世界"\n')
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        inside = run(ws, "こんにちは")
        whole = run(ws, "世界")
    finally:
        ws.close()
    assert [(h.path, h.span.start_line, h.span.start_col) for h in inside.hits] == [
        ("u.py", 1, 12)]
    assert inside.meta.query_plan == "exact"
    assert any("written without spaces" in w for w in inside.meta.warnings)
    # A run that is a whole term is found by its words, and no more is looked for.
    assert [h.path for h in whole.hits] == ["v.py"] and whole.meta.query_plan == "and"


def test_exact_text_past_its_definition_is_inside_the_cited_range(tmp_path: Path) -> None:
    # The text starts in `a` and ends in `b`: the location covers all of it, and the
    # selection (the text) lies inside the location, as LSP clients expect.
    root = tmp_path / "tree"
    root.mkdir()
    (root / "m.py").write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        result = run(ws, '"return 1\n\n\ndef b"')
    finally:
        ws.close()
    wire = result_wire(result, explain=False)["hits"]
    assert [(h["location"]["range"], h["selection"]) for h in wire] == [(
        {"start": {"line": 0, "character": 0}, "end": {"line": 4, "character": 5}},
        {"start": {"line": 1, "character": 4}, "end": {"line": 4, "character": 5}})]

"""Merging answers across workspace folders, and the path facts priors use. Pure values."""

from __future__ import annotations

import pytest

from indexing.classify import (
    in_test_module,
    is_example_path,
    is_generated,
    is_prose_or_data,
    is_test_path,
)
from indexing.records import Span, Symbol, SymbolKind
from indexing.store import SymbolRow
from search.merge import FolderMatch, merge_results, merge_symbols
from search.symbols import SymbolMatch
from search.types import FileMatch, Hit, Meta, Retrieval, SearchResult, Snippet

SPAN = Span(0, 0, 0, 1)


def hit(cid: str, score: float) -> Hit:
    return Hit(cid, "/r", f"{cid}.py", "python", SPAN, (0, 0), cid, "function", cid, None,
               Snippet("x", (), 0), score, Retrieval("lexical"))


def result(hits: list[Hit], total: int, scope: str = "all_matches", exact: bool = True,
           files: int = 1, warnings: tuple[str, ...] = ()) -> SearchResult:
    meta = Meta(mode="auto", total_matches=total,
                count_accuracy="exact" if exact else "lower_bound")
    meta.recall = {"complete": scope == "all_matches", "ranking_scope": scope,
                   "truncated": total > len(hits)}
    meta.index = {"schema_version": 1, "lexical_version": 3, "files": files, "building": False}
    meta.warnings = list(warnings)
    meta.timing = {"total_ms": 1.0}
    return SearchResult(hits, meta)


def test_hits_merge_by_score_then_folder_then_rank() -> None:
    a = result([hit("a1", 0.9), hit("a2", 0.5)], 2)
    b = result([hit("b1", 0.9), hit("b2", 0.7)], 2, files=4)
    merged = merge_results([a, b], 3, "auto")
    assert [h.chunk_id for h in merged.hits] == ["a1", "b1", "b2"]  # a tie goes to folder 1
    meta = merged.meta
    assert meta.total_matches == 4 and meta.count_accuracy == "exact"
    assert meta.recall == {"complete": True, "ranking_scope": "all_matches", "truncated": True}
    assert meta.index["files"] == 5 and meta.index["folders"] == 2


def test_file_channels_merge_by_similarity_then_folder_and_are_ranked_again() -> None:
    a = result([hit("a1", 0.9)], 1)
    a.files = [FileMatch("/a", "x.py", 0.8, 1), FileMatch("/a", "y.py", 0.5, 2)]
    b = result([hit("b1", 0.9)], 1)
    b.files = [FileMatch("/b", "x.py", 0.8, 1), FileMatch("/b", "z.py", 0.7, 2)]
    merged = merge_results([a, b], 3, "auto")
    assert merged.files == [FileMatch("/a", "x.py", 0.8, 1), FileMatch("/b", "x.py", 0.8, 2),
                            FileMatch("/b", "z.py", 0.7, 3)]


def test_merged_meta_never_claims_more_than_every_part() -> None:
    a = result([hit("a1", 0.9)], 1, warnings=("w1",))
    b = result([hit("b1", 0.8)], 7, scope="candidate_window", exact=False,
               warnings=("w1", "w2"))
    meta = merge_results([a, b], 10, "auto").meta
    assert meta.count_accuracy == "lower_bound"
    assert meta.recall["complete"] is False and meta.recall["ranking_scope"] == "candidate_window"
    assert meta.warnings == ["w1", "w2"]  # once each, in order
    assert meta.timing == {"total_ms": 2.0}


def test_merged_index_facts_are_the_whole_workspaces_not_the_first_folders() -> None:
    """A client shows "x% embedded" from `meta.index.embedded`: the first folder's figure
    would call a workspace whose second folder is half embedded complete."""
    a = result([hit("a1", 0.9)], 1, files=2)
    b = result([hit("b1", 0.8)], 1, files=3)
    a.meta.index.update(vector_version=4, vector_lexical_version=3,
                        embedded={"vectors": 10, "total": 10})
    b.meta.index.update(vector_version=2, vector_lexical_version=1,
                        embedded={"vectors": 5, "total": 20})
    index = merge_results([a, b], 10, "hybrid").meta.index
    assert index == {"schema_version": 1, "lexical_version": 6, "files": 5, "building": False,
                     "folders": 2, "vector_version": 6, "vector_lexical_version": 4,
                     "embedded": {"vectors": 15, "total": 30}}
    # A folder without vectors: how much of the whole is embedded, or in step, is unknown.
    del b.meta.index["embedded"]
    b.meta.index.update(vector_version=None, vector_lexical_version=None)
    index = merge_results([a, b], 10, "hybrid").meta.index
    assert "embedded" not in index
    assert (index["vector_version"], index["vector_lexical_version"]) == (4, None)


def test_no_folder_is_an_answer_that_says_why() -> None:
    empty = merge_results([], 5, "auto")
    assert empty.hits == [] and "no workspace folder" in empty.meta.warnings[0]


def match(name: str, tier: str, score: float, path: str = "a.py") -> SymbolMatch:
    sym = Symbol(name, SymbolKind.FUNCTION, None, name, SPAN, SPAN)
    return SymbolMatch(SymbolRow(1, path, False, sym), tier, score)


def test_symbol_matches_merge_by_score_then_tie_breaks_then_folder() -> None:
    one = [FolderMatch(0, "/a", match("parse", "prefix", 0.8)),
           FolderMatch(0, "/a", match("parser_config", "prefix", 0.8))]
    two = [FolderMatch(1, "/b", match("parse", "exact", 1.0)),
           FolderMatch(1, "/b", match("parsed", "prefix", 0.8))]
    merged = merge_symbols([one, two], 3)
    assert [(m.root, m.match.row.symbol.name) for m in merged] == [
        ("/b", "parse"), ("/a", "parse"), ("/b", "parsed")]  # shorter names first in a tier
    assert merge_symbols([one], 1) == one[:1]  # one folder: its own order, cut


@pytest.mark.parametrize(("path", "test"), [
    ("tests/test_api.py", True), ("pkg/api_test.go", True), ("web/app.spec.ts", True),
    ("src/FooTest.java", True), ("conftest.py", True), ("src/testing_utils.py", False),
    ("src/attest.py", False), ("docs/tests.md", False),
    # Type tests beside the code (Vitest, tsd), and tsd's folder.
    ("src/map.test-d.ts", True), ("src/hooks.spec-d.tsx", True), ("test-d/index.ts", True),
    ("src/test-data.ts", False), ("src/map.d.ts", False),
    # Ruby, and the FooTest classes of the JVM, PHP, Swift and .NET.
    ("lib/router_test.rb", True), ("lib/router_spec.rb", True), ("src/FileSpecTest.kt", True),
    ("src/RouteTest.php", True), ("Sources/ParserTests.swift", True),
    ("src/Latest.kt", False), ("src/Contest.php", False),
    # Test folders in any case: Swift's `Tests/`, .NET's.
    ("Tests/KebabTests/ParserTests.swift", True), ("Test/Unit/x.cs", True),
    # GoogleTest's `_unittest.cc`, Elixir's and Dart's `_test`, busted's `_spec.lua`.
    ("net/base/escape_unittest.cc", True), ("lib/cart_test.exs", True),
    ("lib/cart_test.dart", True), ("src/cart_spec.lua", True),
    ("src/unittest.cc", False), ("lib/latest.dart", False), ("src/inspect.lua", False),
    # A Django app's `tests.py`; a Rust `mod tests;` kept in `tests.rs`.
    ("shop/tests.py", True), ("src/walk/tests.rs", True),
    ("werkzeug/test.py", False), ("src/contests.rs", False), ("shop/tests.md", False),
    # .NET test projects, named after the project they test.
    ("src/Kebab.Tests/Fixtures/Cart.cs", True), ("Kebab.UnitTests/Builders.cs", True),
    ("src/Kebab.Testing/Cart.cs", False),
    ("src/Kebab/Latest/Cart.cs", False),
    # Jest's mocks and fixtures, end-to-end tests; a package for users' tests is not one.
    ("src/__mocks__/fs.js", True), ("lib/__fixtures__/tree.ts", True),
    ("e2e/login.ts", True), ("integration_tests/api.py", True),
    ("src/mocks/fs.js", False), ("src/e2ee/crypt.ts", False),
    ("prometheus/testutil/promlint/promlint.go", False),
    # Gradle's test source sets, right under `src/`.
    ("app/src/androidTest/java/MainTest.kt", True), ("src/commonTest/kotlin/Cart.kt", True),
    ("lib/src/testFixtures/java/Carts.java", True), ("src/integrationTest/Api.java", True),
    ("src/main/kotlin/Cart.kt", False), ("src/commonMain/kotlin/Cart.kt", False),
    ("src/main/abTest/Flag.kt", False), ("app/Test/x.kt", True),
    ("src/abTest/variant.ts", False),  # a web app's A/B tests are its code
])
def test_test_paths(path: str, test: bool) -> None:
    assert is_test_path(path) is test


@pytest.mark.parametrize(("path", "example"), [
    ("examples/termui/termui.py", True), ("_examples/basic/main.go", True),
    ("benches/parse.rs", True), ("packages/ui/demo/App.tsx", True),
    ("src/examples.py", False), ("src/example_config.go", False), ("demo.js", False),
    ("lib/counterexamples/x.rs", False),
    # Storybook's stories and Vitest's benchmarks, beside the code they show.
    ("src/Button.stories.tsx", True), ("src/parse.bench.ts", True),
    ("src/stories.ts", False), ("src/bench.ts", False), ("src/workbench.ts", False),
    ("src/stories.md", False),
    # Tutorials, the code docs show, playgrounds, benchmarks by other names, stories' folder.
    ("docs_src/body/tutorial001.py", True), ("tutorial/step1/main.go", True),
    ("packages/playground/src/App.vue", True), ("bench/parse.js", True),
    ("benchmark/run.py", True), ("src/stories/Button.tsx", True), ("cookbook/retry.py", True),
    ("src/workbench/x.ts", False), ("src/tutorials.py", False),
])
def test_example_paths(path: str, example: bool) -> None:
    assert is_example_path(path) is example


@pytest.mark.parametrize(("lang", "qualified", "kind", "signature", "test"), [
    ("rust", "tests.max_filesize", "function", "fn max_filesize()", True),  # mod tests
    ("rust", "tests.inner.deep", "function", "", True),  # a module inside it
    ("rust", "tests.Fake.go", "method", "", True),  # a method of a type declared there
    ("rust", "tests", "module", "mod tests", True),  # the module itself
    ("rust", "test.parses", "function", "", True),
    ("rust", "WalkBuilder.max_filesize", "method", "", False),
    ("rust", "tests", "function", "fn tests()", False),  # a function named so is code
    ("rust", "contests.score", "function", "", False),
    # The other names Rust code gives a `#[cfg(test)]` module: `test` or `tests` as a word.
    ("rust", "unit_tests.adds_two", "function", "fn adds_two()", True),
    ("rust", "test_map.inserts", "function", "fn inserts()", True),
    ("rust", "test_support", "module", "mod test_support {", True),
    ("rust", "integration_test.runs", "function", "", True),
    ("rust", "testing.helper", "function", "", False),
    ("rust", "latest.version", "function", "", False),
    ("rust", "attest.sign", "function", "", False),
    ("rust", "test_parse", "function", "fn test_parse()", False),  # a function is code
    ("python", "tests.helper", "function", "", False),  # a class, not Rust's test module
    ("go", "tests", "module", "", False),
    ("d", "unittest", "function", "unittest", True),  # a module's `unittest` block
    ("d", "Stack.unittest", "method", "@safe unittest", True),  # one inside a type
    ("d", "unittest.helper", "function", "int helper(int a)", True),  # declared in one
    ("d", "Stack.push", "method", "void push(int item)", False),
    ("zig", "grows by one", "function", 'test "grows by one" {', True),
    ("zig", "Stack.keeps it", "method", 'test "keeps it" {', True),
    ("zig", "testPush", "function", "fn testPush() void {", False),
    ("zig", "test_data", "constant", 'const test_data = "x";', False),
    ("zig", "tests.push", "function", "pub fn push() void {", False),  # a struct `tests`
    ("racket", "test", "module", "(module+ test", True),  # raco test's submodule
    ("racket", "test.helper", "function", "(define (helper) 42)", True),
    ("racket", "main", "module", "(module+ main", False),
    ("racket", "test", "function", "(define (test x) x)", False),
    ("ocaml", "empty cart", "function", 'let%test "empty cart" = true', True),
    ("ocaml", "prints", "function", 'let%expect_test "prints" =', True),
    ("ocaml", "m.counts", "function", '  let%test_unit "counts" = ()', True),
    ("ocaml", "stack", "module", 'let%test_module "stack" = (module struct', True),
    ("ocaml", "expect_test", "function", "let%expect_test _ = ()", True),  # anonymous
    ("ocaml", "test", "module", "module%test _ = struct", True),  # named by its extension
    ("ocaml", "test.helper", "variable", "let helper = 1", True),  # declared in one
    ("ocaml", "test", "function", "let test x = x", False),
    ("ocaml", "testing", "function", 'let%testing "x" = ()', False),  # another ppx
])
def test_test_modules(lang: str, qualified: str, kind: str, signature: str, test: bool) -> None:
    assert in_test_module(lang, qualified, kind, signature) is test


def test_generated_and_vendored() -> None:
    assert is_generated("vendor/lib/x.go", "")
    assert is_generated("api/service_pb2.py", "")
    assert is_generated("src/x.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\n")
    assert not is_generated("src/vendored_notes.py", "def f(): pass\n")


def test_prose_or_data() -> None:
    assert all(map(is_prose_or_data, ("markdown", "rst", "json", "yaml", "txt")))
    assert not any(map(is_prose_or_data, ("python", "go", "rb", "sh")))

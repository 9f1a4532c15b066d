"""The workspace/symbol matcher: tiers, tie-breaks, smart case, container queries, limits and
reloading from a store."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from indexing.records import Extraction, Span, Symbol, SymbolKind
from indexing.store import FileWrite, Store, SymbolRow
from search import symbols
from search.symbols import (
    EXACT,
    PREFIX,
    SUBSEQUENCE,
    SUBSTRING,
    TOP,
    WORD,
    MatchResult,
    SymbolIndex,
    SymbolMatcher,
)

_ids = itertools.count(1)


def sym(
    name: str,
    kind: SymbolKind = SymbolKind.FUNCTION,
    *,
    container: str | None = None,
    qualified: str | None = None,
    path: str = "src/app.py",
    line: int = 0,
    is_test: bool = False,
) -> SymbolRow:
    span = Span(line, 0, line + 1, 0)
    if qualified is None:
        qualified = f"{container}.{name}" if container else name
    symbol = Symbol(name, kind, container, qualified, span, span)
    return SymbolRow(next(_ids), path, is_test, symbol)


def names(result: MatchResult) -> list[str]:
    return [m.row.symbol.name for m in result.items]


def tiers(result: MatchResult) -> list[str]:
    return [m.tier for m in result.items]


def test_tiers_come_in_order() -> None:
    rows = [
        sym("xgetuserbyidx"),  # substring
        sym("gxextxuxsxer"),  # subsequence
        sym("getUserById"),  # prefix
        sym("get"),  # exact
        sym("target_user"),  # word: "get"? no: substring "get" inside "target"
        sym("goEasyTrip"),  # word: g-e-t initials
        sym("unrelated"),
    ]
    result = SymbolMatcher(rows).match("get")
    assert names(result) == [
        "get",
        "getUserById",
        "goEasyTrip",
        "target_user",
        "xgetuserbyidx",
        "gxextxuxsxer",
    ]
    assert tiers(result) == [EXACT, PREFIX, WORD, SUBSTRING, SUBSTRING, SUBSEQUENCE]
    assert result.total == 6
    assert not result.total_is_lower_bound
    scores = [m.score for m in result.items]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in scores)


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("gubi", "getUserById"),
        ("gUBI", "getUserById"),
        ("userby", "getUserById"),
        ("get_user", "getUserById"),
        ("ubi", "get_user_by_id"),
        ("userbyid", "GetUserByID"),
        ("gu8", "getUtf8"),
    ],
)
def test_word_boundary_tier(query: str, name: str) -> None:
    result = SymbolMatcher([sym(name), sym("zzz")]).match(query)
    assert names(result) == [name]
    assert tiers(result) == [WORD]


def test_word_tier_does_not_skip_letters_inside_a_word() -> None:
    # "gser" would need to skip the "u" of "user": only a subsequence, not a word match.
    result = SymbolMatcher([sym("getUserById")]).match("gser")
    assert tiers(result) == [SUBSEQUENCE]


def test_prefix_is_a_prefix_for_snake_case_queries() -> None:
    result = SymbolMatcher([sym("get_user_by_id"), sym("getUserById")]).match("get_user")
    assert names(result) == ["get_user_by_id", "getUserById"]
    assert tiers(result) == [PREFIX, WORD]


def test_exact_case_ranks_above_case_insensitive_exact() -> None:
    rows = [sym("Foo", SymbolKind.CLASS), sym("foo", SymbolKind.VARIABLE), sym("FOO")]
    result = SymbolMatcher(rows).match("foo")
    # Case-exact first even though a variable ranks below classes and functions; the other
    # two tie on kind rank and length, so the qualified name ("FOO" < "Foo") decides.
    assert names(result) == ["foo", "FOO", "Foo"]
    assert tiers(result) == [EXACT, EXACT, EXACT]
    assert result.items[0].score > result.items[1].score
    assert names(SymbolMatcher(rows).match("Foo")) == ["Foo", "FOO", "foo"]


def test_smart_case_breaks_ties_inside_a_tier() -> None:
    rows = [sym("parse_json"), sym("parseJson"), sym("ParseJsonFile")]
    lower = SymbolMatcher(rows).match("parsej")
    # All-lowercase: case-insensitive, so plain tie-breaks (shorter name first) decide.
    assert names(lower) == ["parseJson", "ParseJsonFile", "parse_json"]
    assert tiers(lower) == [PREFIX, PREFIX, WORD]
    upper = SymbolMatcher([*rows, sym("parsejunk"), sym("parseJunkLonger")]).match("parseJ")
    # With an uppercase letter, case-agreeing prefixes come first, even when longer.
    assert names(upper) == [
        "parseJson",
        "parseJunkLonger",
        "parsejunk",
        "ParseJsonFile",
        "parse_json",
    ]
    assert tiers(upper) == [PREFIX, PREFIX, PREFIX, PREFIX, WORD]
    assert [m.score for m in upper.items][1:3] == [0.8, 0.75]
    pascal = SymbolMatcher(rows).match("ParseJ")
    assert names(pascal) == ["ParseJsonFile", "parseJson", "parse_json"]
    assert tiers(pascal) == [PREFIX, PREFIX, WORD]


def test_uppercase_query_still_matches_other_case() -> None:
    result = SymbolMatcher([sym("handler")]).match("HANDLER")
    assert names(result) == ["handler"]


def test_kind_breaks_ties() -> None:
    rows = [
        sym("item", SymbolKind.STRING, path="a.md"),
        sym("item", SymbolKind.VARIABLE, path="a.py"),
        sym("item", SymbolKind.FIELD, path="b.py"),
        sym("item", SymbolKind.MODULE, path="c.py"),
        sym("item", SymbolKind.OBJECT, path="0.rs"),
        sym("item", SymbolKind.METHOD, path="d.py"),
        sym("item", SymbolKind.CLASS, path="e.py"),
    ]
    result = SymbolMatcher(rows).match("item")
    assert [m.row.symbol.kind for m in result.items] == [
        SymbolKind.METHOD,  # same rank as class; name and qualified name tie; path d < e
        SymbolKind.CLASS,
        SymbolKind.MODULE,
        SymbolKind.FIELD,
        SymbolKind.VARIABLE,
        SymbolKind.STRING,
        SymbolKind.OBJECT,
    ]


def test_non_test_paths_then_shorter_names_then_qualified_path_line() -> None:
    rows = [
        sym("load", path="tests/test_a.py", is_test=True),
        sym("loader"),
        sym("load", container="B", path="z.py"),
        sym("load", container="A", path="z.py"),
        sym("load", path="b.py", line=9),
        sym("load", path="b.py", line=3),
        sym("load", path="a.py", line=5),
    ]
    result = SymbolMatcher(rows).match("load")
    got = [
        (m.row.symbol.qualified_name, m.row.path, m.row.symbol.range.start_line)
        for m in result.items
    ]
    assert got == [
        ("A.load", "z.py", 0),
        ("B.load", "z.py", 0),
        ("load", "a.py", 5),
        ("load", "b.py", 3),
        ("load", "b.py", 9),
        ("load", "tests/test_a.py", 0),
        ("loader", "src/app.py", 0),
    ]


def test_order_does_not_depend_on_input_order() -> None:
    rows = [sym(f"name{i % 7}", path=f"p{i % 3}.py", line=i) for i in range(40)]
    expected = SymbolMatcher(rows).match("nm")
    for shift in (1, 13, 29):
        again = SymbolMatcher(rows[shift:] + rows[:shift]).match("nm")
        assert [m.row.id for m in again.items] == [m.row.id for m in expected.items]


@pytest.mark.parametrize("query", ["Repo.save", "Repo::save", "repo.sv", "rp::save"])
def test_container_queries(query: str) -> None:
    rows = [
        sym("save", SymbolKind.METHOD, container="Repository"),
        sym("save", SymbolKind.METHOD, container="Cache"),
        sym("saveAll", SymbolKind.METHOD, container="Repository"),
        sym("save"),
    ]
    result = SymbolMatcher(rows).match(query)
    assert names(result) == ["save", "saveAll"]
    assert all(m.row.symbol.container == "Repository" for m in result.items)
    assert result.total == 2


def test_container_query_uses_the_qualified_prefix_and_several_segments() -> None:
    rows = [
        sym("send", SymbolKind.METHOD, container="Client", qualified="http.Client.send"),
        sym("send", SymbolKind.METHOD, container="Client", qualified="ftp.Client.send"),
        sym("send", SymbolKind.FUNCTION, qualified="http.send"),
    ]
    result = SymbolMatcher(rows).match("http::Client::send")
    assert [m.row.symbol.qualified_name for m in result.items] == ["http.Client.send"]
    pkg = SymbolMatcher(rows).match("http.send")
    assert [m.row.symbol.qualified_name for m in pkg.items] == [
        "http.Client.send",
        "http.send",
    ]


def test_container_query_with_empty_member_lists_the_members() -> None:
    rows = [
        sym("b", SymbolKind.METHOD, container="Widget"),
        sym("a", SymbolKind.FIELD, container="Widget"),
        sym("Widget", SymbolKind.CLASS),
    ]
    result = SymbolMatcher(rows).match("Widget.")
    assert names(result) == ["b", "a"]
    assert tiers(result) == [PREFIX, PREFIX]


def test_dotted_query_falls_back_to_the_whole_name() -> None:
    rows = [sym("v1.2 release", SymbolKind.STRING, path="NOTES.md"), sym("other")]
    assert names(SymbolMatcher(rows).match("v1.2")) == ["v1.2 release"]
    assert names(SymbolMatcher(rows).match(".other")) == ["other"]


def test_empty_query_lists_top_level_types_and_functions() -> None:
    rows = [
        sym("helper", SymbolKind.FUNCTION, path="b.py", line=4),
        sym("method", SymbolKind.METHOD, container="Thing", path="b.py"),
        sym("Thing", SymbolKind.CLASS, path="b.py", line=1),
        sym("CONST", SymbolKind.CONSTANT, path="a.py"),
        sym("test_x", SymbolKind.FUNCTION, path="tests/t.py", is_test=True),
        sym("main", SymbolKind.FUNCTION, path="a.py", line=2),
    ]
    result = SymbolMatcher(rows).match("   ")
    assert names(result) == ["main", "Thing", "helper"]
    assert tiers(result) == [TOP] * 3
    assert result.total == 3
    assert names(SymbolMatcher(rows).match("", limit=1)) == ["main"]


def test_empty_query_is_never_empty_when_symbols_exist() -> None:
    rows = [
        sym("test_x", SymbolKind.FUNCTION, path="tests/t.py", is_test=True),
        sym("field", SymbolKind.FIELD, container="C"),
    ]
    assert names(SymbolMatcher(rows).match("")) == ["field", "test_x"]
    assert SymbolMatcher([]).match("").items == []
    assert SymbolMatcher([]).match("x").total == 0


def test_limit_and_total() -> None:
    rows = [sym(f"user{i:03}") for i in range(300)] + [sym("user")]
    matcher = SymbolMatcher(rows)
    result = matcher.match("user", limit=10)
    assert names(result) == ["user"] + [f"user{i:03}" for i in range(9)]
    assert result.total == 301
    assert not result.total_is_lower_bound
    assert matcher.match("usr", limit=5).total == 301
    assert matcher.match("user", limit=0).items == []
    assert matcher.match("user", limit=0).total == 301


def test_scan_path_stops_once_full_and_says_its_total_is_a_lower_bound() -> None:
    # Enough candidates that the matcher scans tier by tier instead of classifying each.
    rows = [sym(f"alpha{i}") for i in range(6000)] + [sym("xalpha"), sym("a_l_p_h_a")]
    matcher = SymbolMatcher(rows)
    result = matcher.match("alpha", limit=3)
    assert names(result) == ["alpha0", "alpha1", "alpha2"]
    # It read the candidates the classify path would take (4 tiers before the last), and one more.
    assert (result.total, result.total_is_lower_bound) == (4 * symbols._CLASSIFY_PER_TIER + 1,
                                                           True)
    tail = matcher.match("alpha", limit=6002)
    assert names(tail)[-2:] == ["a_l_p_h_a", "xalpha"]
    assert tiers(tail)[-2:] == [WORD, SUBSTRING]
    assert (tail.total, tail.total_is_lower_bound) == (6002, False)
    # A last tier that must read past the candidates finds the rest after them, in order.
    rows = [sym(f"a{i}lpha") for i in range(2000)] + [sym("alpha")]
    every = names(SymbolMatcher(rows).match("alpha", limit=3000))
    assert every[0] == "alpha" and sorted(every[1:]) == sorted(f"a{i}lpha" for i in range(2000))


def test_many_candidates_rank_as_classifying_each_would(monkeypatch: pytest.MonkeyPatch) -> None:
    # Past the classify threshold, the earlier tiers are scanned and the last starts from the
    # candidates: the answer must not change, and a total short of every match says so.
    words = ["get", "set", "user", "id", "name", "Parse", "json"]
    rows = [
        sym(a + b.title() + c, line=i)
        for i, (a, b, c) in enumerate(itertools.product(words, words, ["", "_x", "Y"]))
    ] * 10  # 1470 rows
    matcher = SymbolMatcher(rows)
    queries = ("us", "gUI", "sj", "setuser", "x", "e", "Us")
    limits = (1, 30, 500, 10_000)
    monkeypatch.setattr(symbols, "_CLASSIFY_PER_TIER", 10)
    fast = {(q, k): matcher.match(q, k) for q in queries for k in limits}
    monkeypatch.setattr(symbols, "_CLASSIFY_PER_TIER", 10**9)
    for (q, k), got in fast.items():
        want = matcher.match(q, k)
        assert [(m.row.id, m.tier, m.score) for m in got.items] == [
            (m.row.id, m.tier, m.score) for m in want.items], (q, k)
        assert not want.total_is_lower_bound
        if got.total_is_lower_bound:
            assert len(got.items) < got.total <= want.total, (q, k)
        else:
            assert got.total == want.total, (q, k)


def test_scan_path_agrees_with_classifying_path() -> None:
    words = ["get", "set", "user", "id", "name", "Parse", "json"]
    rows = [
        sym(a + b.title() + c, line=i)
        for i, (a, b, c) in enumerate(itertools.product(words, words, ["", "_x", "Y"]))
    ]
    rows = rows * 40  # 5880 rows: "us" and "x" find more candidates than are classified
    small = SymbolMatcher(rows[:147])
    big = SymbolMatcher(rows)
    for query in ("us", "gUI", "sj", "setuser", "x"):
        a = [(m.row.symbol.name, m.tier) for m in small.match(query, 500).items]
        b = [(m.row.symbol.name, m.tier) for m in big.match(query, 10_000).items[::40]]
        assert a == b, query


def test_anchored_subsequence_answers_as_the_unanchored_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The subsequence is anchored at each line's start when its first character is common;
    # that changes only how fast the lines are found.
    words = ["get", "set", "user", "id", "name", "Parse", "json"]
    rows = [
        sym(a + b.title() + c, line=i, container=b.title() if i % 3 else None,
            qualified=f"{b.title()}.{a}{b.title()}{c}" if i % 3 else None)
        for i, (a, b, c) in enumerate(itertools.product(words, words, ["", "_x", "Y"]))
    ] * 12  # 1764 rows: "us", "e" and "x" take the tier-by-tier path
    matcher = SymbolMatcher(rows)
    queries = ("us", "gUI", "sj", "setuser", "x", "e", "Us", "_x", "Name.gn", "user.", "jy")
    monkeypatch.setattr(symbols, "_ANCHOR_PER_LINE", float("inf"))
    plain = {(q, k): matcher.match(q, k) for q in queries for k in (3, 10_000)}
    monkeypatch.setattr(symbols, "_ANCHOR_PER_LINE", -1.0)
    for (q, k), want in plain.items():
        got = matcher.match(q, k)
        assert [(m.row.id, m.tier, m.score) for m in got.items] == [
            (m.row.id, m.tier, m.score) for m in want.items], (q, k)
        assert (got.total, got.total_is_lower_bound) == (want.total, want.total_is_lower_bound)
    assert plain[("x", 10_000)].items and plain[("Name.gn", 10_000)].items


def test_reserved_characters_in_names_are_harmless() -> None:
    rows = [sym("odd\nname"), sym("a\x01b\x02c\x03d")]
    assert len(SymbolMatcher(rows).match("name").items) == 1
    assert len(SymbolMatcher(rows).match("c").items) == 1


def _write(store: Store, path: str, symbols: list[Symbol]) -> None:
    text = "\n".join(s.name for s in symbols) + "\n"
    with store.batch():
        store.write_file(
            FileWrite(
                path=path,
                size=len(text),
                mtime_ns=1,
                hash=path,
                lang="python",
                text=text,
                extraction=Extraction(lang="python", symbols=symbols),
            )
        )


def test_index_reloads_when_the_store_changes(tmp_path: Path) -> None:
    store = Store(tmp_path / "index")
    try:
        span = Span(0, 0, 1, 0)
        index = SymbolIndex(store)
        assert index.match("fetch").items == []
        _write(
            store,
            "a.py",
            [Symbol("fetch_user", SymbolKind.FUNCTION, None, "fetch_user", span, span)],
        )
        first = index.match("fetch")
        assert names(first) == ["fetch_user"]
        reloads = index.reloads
        index.match("fetch")
        assert index.reloads == reloads  # unchanged version: no rebuild
        _write(
            store, "b.py", [Symbol("fetchAll", SymbolKind.FUNCTION, None, "fetchAll", span, span)]
        )
        assert names(index.match("fetch")) == ["fetchAll", "fetch_user"]
        assert index.reloads == reloads  # patched with a delta over b.py, not rebuilt
    finally:
        store.close()


def test_a_built_matcher_is_left_out_of_full_collections(tmp_path: Path) -> None:
    # A full collection walked every object of every open folder's matcher (108-145 ms on
    # Django), at random, inside a search. A built base matcher is frozen, and one replaced
    # since is freed by the next build rather than kept frozen for ever.
    import gc

    store = Store(tmp_path / "index")
    span = Span(0, 0, 1, 0)
    try:
        _write(store, "a.py", [Symbol(f"fetch_{i}", SymbolKind.FUNCTION, None, f"fetch_{i}",
                                      span, span) for i in range(2000)])
        gc.unfreeze()
        first = SymbolIndex(store)
        assert len(first.match("fetch", 5).items) == 5
        base = first.current().base  # type: ignore[attr-defined]
        assert gc.is_tracked(base)
        assert not any(o is base for o in gc.get_objects())  # frozen: no collection walks it
        frozen = gc.get_freeze_count()
        assert frozen > 2000
        del first, base
        second = SymbolIndex(store)
        assert len(second.match("fetch", 5).items) == 5
        assert gc.get_freeze_count() < frozen * 1.5  # the first matcher was not kept
    finally:
        gc.unfreeze()
        store.close()


def test_incremental_index_answers_like_a_full_rebuild(tmp_path: Path) -> None:
    """After saves, the base+delta answer must equal a fresh matcher's, for every query."""
    import shutil

    from indexing.settings import Settings
    from kebab_lsp.workspace import Workspace

    root = tmp_path / "repo"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "sample_repo", root)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    index = SymbolIndex(ws.store)
    queries = ["", "user", "get", "gubi", "UserStore.get", "Handler", "u", "id", "Guide"]
    before = {q: index.match(q, 5) for q in queries}
    store_py = root / "src/users/store.py"
    store_py.write_text(store_py.read_text().replace("def add_user", "def insert_user"))
    (root / "web/api.ts").unlink()
    (root / "extra.py").write_text("class UserCache:\n    def get_user(self):\n        pass\n")
    ws.indexer.update_paths([store_py, root / "web/api.ts", root / "extra.py"])
    reloads = index.reloads
    for q in queries:
        got = index.match(q, 5)
        want = SymbolMatcher(ws.store.all_symbols()).match(q, 5)
        assert [(m.row.path, m.row.symbol.qualified_name, m.tier) for m in got.items] == [
            (m.row.path, m.row.symbol.qualified_name, m.tier) for m in want.items], q
        assert got.total == want.total, q
    assert index.reloads == reloads  # patched with a delta, not rebuilt
    assert before[""].items  # sanity: the listing was not empty to begin with
    names = [m.row.symbol.name for m in index.match("insert_user", 5).items]
    assert names == ["insert_user"] and not index.match("add_user", 5).items
    ws.close()


def test_large_changes_rebuild_in_the_background(tmp_path: Path) -> None:
    """The rebuild runs on the runtime's refresher thread; queries meanwhile get the last
    state."""
    from indexing.runtime.listener import SilentListener
    from indexing.runtime.refresher import Refresher

    store = Store(tmp_path)
    span = Span(0, 0, 0, 1)
    refresher = Refresher(SilentListener())
    refresher.start()
    try:
        _write(store, "a.py", [Symbol("alpha", SymbolKind.FUNCTION, None, "alpha", span, span)])
        building = True
        index = SymbolIndex(store, max_delta_paths=1, may_serve_stale=lambda: building,
                            schedule=refresher.submit)
        assert names(index.match("alpha")) == ["alpha"]
        with store.batch():
            for name in ("beta", "gamma"):
                store.write_file(FileWrite(
                    f"{name}.py", 1, 1, name, "python", "",
                    Extraction("python", [Symbol(name, SymbolKind.FUNCTION, None, name, span,
                                                 span)], [])))
        answered = index.match("a")  # too much to patch: served from the last state
        assert "alpha" in names(answered) and "gamma" not in names(answered)
        assert refresher.wait_idle(30)
        assert names(index.match("gamma")) == ["gamma"]
        assert index.reloads == 2
        building = False  # indexing over: a large change is rebuilt before answering
        with store.batch():
            for name in ("delta", "epsilon"):
                store.write_file(FileWrite(
                    f"{name}.py", 1, 1, name, "python", "",
                    Extraction("python", [Symbol(name, SymbolKind.FUNCTION, None, name, span,
                                                 span)], [])))
        assert names(index.match("epsilon")) == ["epsilon"]
    finally:
        refresher.stop()
        store.close()

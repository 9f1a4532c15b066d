"""An any-term ranking that skips the chunks holding only common words
(`indexing.store.max_score`): it proves the skip on real FTS5 and gives the full ranking's
answer, score for score; its ceilings bound what a phrase really adds; its counts follow the
index. Real apsw, real files, the size threshold lowered so that a small tree qualifies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import indexed_tree

from indexing.filters import Filters
from indexing.indexer import Indexer
from indexing.lexical_query import LexicalQuery
from indexing.store import Store, max_score
from indexing.store.retrieval import _BEST

RARE = {"ledger": 5, "invoice": 7, "quartz": 29}
QUERIES = (("return", "value", "ledger"), ("value", "none", "invoice", "quartz"),
           ("return", "if", "invoice"), ("handle", "value", "ledger", "invoice"),
           ("valueOf", "return", "ledger"))
N = 6


def _tree(root: Path, files: int = 120) -> Path:
    """Every function says `return`, `value`, `if` and `none`; a few say a rare word."""
    root.mkdir(parents=True)
    for i in range(files):
        rare = " ".join(word for word, every in RARE.items() if i % every == 0)
        (root / f"mod_{i:02}.py").write_text(
            f"def handle_{i}(value):\n    \"\"\"Return the value {rare}.\"\"\"\n"
            f"    if value is None:\n        return value\n    return value + {i}\n\n\n"
            f"def value_of_{i}(value):\n    return value\n")
    # One chunk that is nothing but a common word, short, with it in its name: it comes
    # close to the most one phrase can add.
    (root / "value.py").write_text("def value(value):\n    return value\n")
    return root


@pytest.fixture()
def indexed(tmp_path: Path) -> Iterator[tuple[Store, Indexer, Path]]:
    root = _tree(tmp_path / "tree")
    with indexed_tree(root, tmp_path / "idx") as (store, indexer):
        yield store, indexer, root


def _ranked(store: Store, expr: str) -> list[tuple[int, float]]:
    """Every match of `expr`, best first, ties by rowid: the ranking nothing skips."""
    return sorted(store.conn.execute(_BEST, (expr, 1 << 30)).fetchall(),
                  key=lambda m: (m[1], m[0]))


def _plan(store: Store, terms: tuple[str, ...]) -> max_score.AnyTermPlan:
    return max_score.plan(terms, store._read_state(), store.conn, store._term_counts)


def _recording(store: Store, asked: list[str]) -> max_score.Ranker:
    def rank(expr: str, n: int) -> list[tuple[int, float]]:
        asked.append(expr)
        return store.conn.execute(_BEST, (expr, n)).fetchall()
    return rank


def test_a_proven_skip_gives_the_full_ranking(indexed: tuple[Store, Indexer, Path]) -> None:
    store, _, _ = indexed
    with store.reading():
        for terms in QUERIES:
            plan = _plan(store, terms)
            full = _ranked(store, plan.expression)
            asked: list[str] = []
            found = plan.best(N, _recording(store, asked))
            assert found is not None, terms  # proven: the common-only chunks were skipped
            assert plan.expression not in asked
            # The same scores, bit for bit, in the same order; rows tied with the n-th may
            # come from either side of the cut, as in any LIMIT.
            assert [r for _, r in found] == [r for _, r in full[:N]]
            last = full[N - 1][1]
            assert {i for i, r in found if r < last} == {i for i, r in full[:N] if r < last}
            scored = {i for expr in asked for i, _ in _ranked(store, expr)}
            assert {i for i, _ in full} - scored  # some matches were never scored at all
        # Five chunks say `quartz`: too few to hold the best six, so nothing is proven, and
        # ranking `if` with it would cost about what the full ranking does.
        assert _plan(store, ("return", "if", "quartz")).best(N, _recording(store, [])) is None


def test_terms_are_ordered_most_common_first(indexed: tuple[Store, Indexer, Path]) -> None:
    store, _, _ = indexed
    with store.reading():
        plan = _plan(store, ("quartz", "return", "ledger"))
    assert [t.expression for t in plan.terms] == ['"return"', '"ledger"', '"quartz"']
    assert plan.expression == '"return" OR "ledger" OR "quartz"'
    counts = [t.matches for t in plan.terms]
    assert counts == sorted(counts, reverse=True) and counts[-1] == 5  # files 0, 29, 58, 87, 116


def test_every_phrase_stays_under_its_ceiling(indexed: tuple[Store, Indexer, Path]) -> None:
    """The ceiling holds for the chunk that comes closest (a short one named by the word),
    and it is near: a k1 of 1.0 in place of FTS5's 1.2 would be under that chunk's score."""
    store, _, _ = indexed
    with store.reading():
        rows = int(store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
        for word in ("value", "return", "ledger", "quartz"):
            phrase = f'"{word}"'
            matches = int(store.conn.execute(
                "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (phrase,)
            ).fetchone()[0])
            best = -_ranked(store, phrase)[0][1]
            idf = max_score.idf_ceiling(rows, matches)
            assert best < max_score.K1_PLUS_1 * idf
            if word == "value":
                assert best > 2.0 * idf


def test_counts_follow_the_index(indexed: tuple[Store, Indexer, Path]) -> None:
    """A write changes the state the counts belong to: a stale count would bound the wrong
    idf."""
    store, indexer, root = indexed
    with store.reading():
        before = {t.expression: t.matches for t in _plan(store, ("quartz", "value")).terms}
    extra = root / "zz_quartz.py"
    extra.write_text("".join(f"def quartz_{i}():\n    return {i}\n\n\n" for i in range(5)))
    indexer.update_paths([extra])
    with store.reading():
        after = {t.expression: t.matches for t in _plan(store, ("quartz", "value")).terms}
    assert before['"quartz"'] == 5
    assert after['"quartz"'] == 10
    assert after['"value"'] == before['"value"']


def test_the_store_answers_the_same_with_the_skip(indexed: tuple[Store, Indexer, Path],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Through `match_chunks`, with and without excluded chunks: the rows, their order and
    their scores are those of the full ranking, and the skip did run."""
    store, indexer, root = indexed

    def answers(exclude: tuple[int, ...] = ()) -> list[list[tuple[str, float]]]:
        return [[(r.chunk_id, r.rank) for r in
                 store.match_chunks(LexicalQuery.any_of(t), Filters(), 5, exclude)]
                for t in QUERIES]

    # The files that say `ledger` and no other rare word tie: the tie runs past the depth a
    # skip proves for 5 hits, so the answer needs every tied chunk read again. The copy
    # indexed last (the highest rowid) is first by path: a read cut by rowid would miss it.
    copy = root / "a_05.py"
    copy.write_text((root / "mod_05.py").read_text())
    indexer.update_paths([copy])
    with store.reading():
        tied = _ranked(store, _plan(store, QUERIES[0]).expression)[:12]
    assert len({r for _, r in tied}) == 1
    assert max_score.proven_depth(5 + 1) < 12
    monkeypatch.setattr(max_score, "MIN_ROWIDS", 1 << 40)
    plain = answers()
    some = tuple(r.rowid for r in store.match_chunks(LexicalQuery.any_of(QUERIES[0]),
                                                     Filters(), 2))
    plain_excluding = answers(some)
    monkeypatch.setattr(max_score, "MIN_ROWIDS", 0)
    proven: list[bool] = []
    best = max_score.AnyTermPlan.best

    def counted(self: max_score.AnyTermPlan, n: int, rank: max_score.Ranker,
                rank_two: max_score.TwoRanker | None = None) -> list[tuple[int, float]] | None:
        found = best(self, n, rank, rank_two)
        proven.append(found is not None)
        return found

    monkeypatch.setattr(max_score.AnyTermPlan, "best", counted)
    assert "a_05.py" in {r.path for r in store.match_chunks(
        LexicalQuery.any_of(QUERIES[0]), Filters(), 5)}
    assert answers() == plain
    assert answers(some) == plain_excluding
    assert proven and all(proven)


def test_the_two_statements_at_once_read_one_state(indexed: tuple[Store, Indexer, Path],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A skip's last two statements run at once, one on the rank helper thread. A save that
    lands before the helper reads is not mixed in: its statement is ranked again in the
    caller's state, so the answer is the one before the save; the next query sees the save."""
    store, indexer, root = indexed
    monkeypatch.setattr(max_score, "MIN_ROWIDS", 0)
    terms = ("handle", "value", "ledger", "invoice")

    def answer() -> list[tuple[str, str, float]]:
        return [(r.chunk_id, r.path, r.rank) for r in
                store.match_chunks(LexicalQuery.any_of(terms), Filters(), 5)]

    before = answer()
    elsewhere = store._elsewhere
    saves: list[str] = []

    def save_first(*args: object) -> object:
        if not saves:
            path = root / "a_new.py"
            path.write_text("def handle_ledger_invoice(value):\n"
                            "    \"\"\"Ledger invoice ledger invoice.\"\"\"\n    return value\n")
            indexer.update_paths([path])
            saves.append(path.name)
        return elsewhere(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "_elsewhere", save_first)
    assert answer() == before
    assert saves == ["a_new.py"]  # the helper did run one of the statements
    assert "a_new.py" in {path for _, path, _ in answer()}

"""Load as a test: the real server under a flood of mixed requests, saves and cancellations
(the figures in the README come from `python -m bench.load`, the same code at full size)."""

from __future__ import annotations

from pathlib import Path

from e2e_support import big_tree

from bench.load import run_load


def test_a_flood_of_requests_saves_and_cancels_loses_nothing(tmp_path: Path) -> None:
    tree = big_tree(tmp_path / "src", 40)
    figures = run_load(tree, tmp_path / "work", requests=400, saves=60, clients=4)
    assert figures.errors == []
    assert figures.answered + figures.cancelled == figures.requests == 400
    assert figures.cancelled > 0 and figures.saves == 60
    assert figures.index_equals_fresh, figures.difference

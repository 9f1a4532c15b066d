"""`kebab eval`: metric arithmetic, deterministic query sets, and a smoke run on the fixture."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from indexing.settings import Settings
from indexing.top_doc import top_doc
from kebab_lsp.workspace import Workspace
from search.evaluation import (
    EvalQuery,
    QuestionFileError,
    Target,
    aggregate,
    blank_docs,
    blank_top_doc,
    file_queries,
    first_sentence,
    fuzzy_forms,
    generate,
    load_questions,
    paired_difference,
    percentile,
    rename_locals,
    score_ranking,
    similar_queries,
)


def test_score_ranking_by_hand() -> None:
    targets = [Target("a.py", 10, 20)]
    assert score_ranking([("b.py", 1), ("a.py", 12)], targets) == (0.5, 0.0, 1.0, 1.0, 1.0)
    assert score_ranking([("a.py", 10)], targets) == (1.0, 1.0, 1.0, 1.0, 1.0)
    assert score_ranking([("a.py", 30)], targets) == (0.0, 0.0, 0.0, 0.0, 0.0)
    far = [("x.py", 0)] * 11 + [("a.py", 15)]
    assert score_ranking(far, targets) == (0.0, 0.0, 0.0, 1.0, 1.0)
    files = [Target("a.py"), Target("b.py")]
    rr, h1, h5, r20, r50 = score_ranking([("b.py", 3), ("c.py", 0)], files)
    assert (rr, h1, h5, r20, r50) == (1.0, 1.0, 1.0, 0.5, 0.5)
    # 21 calls, answered by 20 hits (the first one's function holds two): all recalled, once.
    calls = [Target("a.py", line, line) for line in range(21)]
    hits = [("a.py", 0, (0, 1))] + [("a.py", line) for line in range(2, 21)]
    assert score_ranking(hits, calls)[3] == 1.0


def test_aggregate_and_percentile() -> None:
    scores = aggregate([(1.0, 1.0, 1.0, 1.0, 1.0), (0.5, 0.0, 1.0, 0.5, 1.0)], [1.0, 3.0])
    assert (scores.mrr10, scores.hit1, scores.hit5, scores.recall20) == (0.75, 0.5, 1.0, 0.75)
    assert scores.rr == [1.0, 0.5] and scores.as_json()["rr"] == [1.0, 0.5]
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == 4.0
    assert percentile([], 50) == 0.0


def test_paired_difference_says_when_a_gap_is_more_than_the_draw_of_questions() -> None:
    same = paired_difference([0.5, 1.0, 0.0] * 20, [0.5, 1.0, 0.0] * 20)
    assert (same.mean, same.low, same.high, same.beyond_noise) == (0.0, 0.0, 0.0, False)
    # One question of 50 answered first instead of not at all: 0.02, and the draw explains it.
    one = paired_difference([1.0] + [0.5] * 49, [0.0] + [0.5] * 49)
    assert one.mean == pytest.approx(0.02) and one.low == 0.0 and not one.beyond_noise
    # Every question a place better: beyond noise, with the interval around the mean.
    better = paired_difference([1.0] * 40 + [0.5] * 40, [0.5] * 40 + [1 / 3] * 40)
    assert better.beyond_noise and better.low <= better.mean <= better.high
    worse = paired_difference([0.0] * 30 + [0.2] * 30, [1.0] * 30 + [0.2] * 30)
    assert worse.beyond_noise and worse.high < 0
    assert paired_difference([0.3, 0.9, 0.1], [0.5, 0.2, 0.4]) == paired_difference(
        [0.3, 0.9, 0.1], [0.5, 0.2, 0.4])  # a fixed seed: the same scores, the same interval
    with pytest.raises(ValueError, match="same non-empty set"):
        paired_difference([1.0], [1.0, 0.5])


def test_query_helpers() -> None:
    assert fuzzy_forms("getUserById") == ["gubi", "etuse"]
    assert first_sentence("Return the user. More text.") == "Return the user."
    text = 'def f():\n    """Return the user."""\n'
    blanked = blank_docs(text, ["Return the user."])
    assert blanked.count("\n") == text.count("\n") and "Return" not in blanked
    assert len(blanked) == len(text)
    # One doc's wrapped last line is part of another's first line: both are blanked whole.
    rust = ("/// Writes low bits to\n/// `self`.\nfn a() {}\n"
            "/// Writes a byte to `self`.\nfn b() {}\n")
    blanked = blank_docs(rust, ["Writes low bits to\n`self`.", "Writes a byte to `self`."])
    assert "Writes" not in blanked and "self" not in blanked and len(blanked) == len(rust)


def test_same_seed_same_sets(workspace: Workspace) -> None:
    symbols, files = workspace.store.all_symbols(), workspace.store.file_texts()
    first = generate(symbols, files, seed=3)
    assert first == generate(symbols, files, seed=3)
    sets = {q.set for q in first}
    assert sets == {"name", "fuzzy", "words", "nl", "exact"}
    assert all(not q.targets[0].path.startswith("tests/") for q in first if q.set != "exact")
    names = {q.text for q in first if q.set == "name"}
    assert "get_user_by_id" in names
    words = {q.text for q in first if q.set == "words"}
    assert "user store" in words  # `UserStore`
    # `get_user_by_id` (Python) and `getUserById` (TypeScript) read the same: two answers to
    # one question, which the set leaves out.
    assert "get user by id" not in words


def test_the_words_set_leaves_the_earlier_sets_as_drawn(workspace: Workspace) -> None:
    # It is drawn last: adding it did not move a single question of the sets before it, so
    # their figures stay comparable with every earlier run.
    symbols, files = workspace.store.all_symbols(), workspace.store.file_texts()
    queries = generate(symbols, files, seed=3)
    words = [q for q in queries if q.set == "words"]
    assert words and queries[-len(words):] == words


@pytest.mark.timeout(300)
@pytest.mark.slow
@pytest.mark.model
@pytest.mark.subprocess
def test_eval_smoke_run(sample_repo: Path, index_root: Path) -> None:
    questions = sample_repo.parent / "questions.json"
    questions.write_text(json.dumps({"questions": [
        {"q": "which function looks a user up by id",
         "answers": [{"path": "src/users/store.py", "lines": [12, 14]}]}]}))
    out = subprocess.run(
        [sys.executable, "-m", "kebab_lsp.cli", "eval", str(sample_repo), "--json",
         "--questions", str(questions)],
        capture_output=True, text=True, check=False, timeout=280,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report["sets"]) == {"name", "fuzzy", "words", "nl", "exact", "nl_blanked", "file",
                                   "hand"}
    baseline = {"baseline_dense", "baseline_bm25", "baseline_hybrid"}
    modes = {"lexical", "vector", "hybrid", "auto"}
    assert set(report["sets"]["name"]) == modes | {"workspace_symbol"} | baseline
    assert set(report["sets"]["words"]) == modes | {"workspace_symbol"} | baseline
    assert set(report["sets"]["hand"]) == set(report["sets"]["nl_blanked"]) == modes | baseline
    assert set(report["sets"]["exact"]) == modes
    assert report["sets"]["exact"]["lexical"]["recall@50"] == 1.0
    assert report["sets"]["name"]["workspace_symbol"]["hit@1"] == 1.0
    hand = report["sets"]["hand"]  # each question's score, paired across modes
    assert all(len(hand[mode]["rr"]) == hand[mode]["n"] == 1 for mode in modes | baseline)
    assert hand["lexical"]["rr"][0] == hand["lexical"]["mrr@10"]


@pytest.mark.timeout(300)
@pytest.mark.subprocess
def test_eval_scores_the_modes_asked_and_lexical_alone_embeds_nothing(
        sample_repo: Path, index_root: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "kebab_lsp.cli", "eval", str(sample_repo), "--json",
         "--modes", "lexical", "--no-baseline", "--index-dir", str(index_root)],
        capture_output=True, text=True, check=False, timeout=280,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["modes"] == ["lexical"]
    for name, scored in report["sets"].items():
        named = name in ("name", "fuzzy", "words")  # workspace/symbol answers these too
        assert set(scored) == {"lexical"} | ({"workspace_symbol"} if named else set()) | (
            {"files_lexical"} if name == "file" else set()), name
    assert {"name", "nl", "nl_blanked", "exact", "file"} <= set(report["sets"])
    assert report["sets"]["exact"]["lexical"]["recall@50"] == 1.0
    assert "embedding" not in out.stderr
    ws = Workspace(sample_repo, Settings(index_dir=str(index_root)))
    try:
        assert ws.store.chunk_count() > 0
        assert ws.index_dir.is_dir() and not any(ws.index_dir.rglob("*.lance")), \
            "a lexical-only eval stored vectors"
    finally:
        ws.close()


def test_eval_refuses_a_mode_it_does_not_know(sample_repo: Path, tmp_path: Path) -> None:
    from kebab_lsp.cli import main

    assert main(["eval", str(sample_repo), "--modes", "lexical,meaning",
                 "--index-dir", str(tmp_path / "idx")]) == 2
    assert main(["eval", str(sample_repo), "--modes", ",",
                 "--index-dir", str(tmp_path / "idx")]) == 2
    assert not (tmp_path / "idx").exists(), "it indexed before refusing"


def test_doc_comment_above_a_definition_answers_it() -> None:
    target = [Target("lib.rs", 10, 20)]  # the fn's own range; its `///` doc is at lines 8-9
    assert score_ranking([("lib.rs", 8)], target)[0] == 0.0
    assert score_ranking([("lib.rs", 8, (8, 20))], target)[0] == 1.0
    assert score_ranking([("lib.rs", 30, (25, 40))], target)[0] == 0.0


def test_hand_written_questions_load_and_fail_loudly(tmp_path: Path) -> None:
    good = tmp_path / "q.json"
    good.write_text(json.dumps({"questions": [
        {"q": "where do we look users up", "answers": [
            {"path": "src/users/store.py", "symbol": "get", "lines": [9, 12]},
            {"path": "server/handler.go", "lines": [3, 3]}]}]}))
    (query,) = load_questions(good, {"src/users/store.py", "server/handler.go"})
    assert query.set == "hand" and query.text == "where do we look users up"
    assert query.targets == (Target("src/users/store.py", 8, 11), Target("server/handler.go", 2, 2))
    with pytest.raises(QuestionFileError, match="not in the evaluated index"):
        load_questions(good, {"src/users/store.py"})
    bad = tmp_path / "bad.json"
    for payload, message in [({"questions": []}, "non-empty 'questions'"),
                             ({"questions": [{"q": "x"}]}, "'answers' list"),
                             ({"questions": [{"q": "x", "answers": [{"path": "a",
                                                                    "lines": [3, 1]}]}]},
                              "1-based")]:
        bad.write_text(json.dumps(payload))
        with pytest.raises(QuestionFileError, match=message):
            load_questions(bad)


def test_recall_at_k_counts_what_k_hits_can_hold() -> None:
    targets = [Target(f"f{i}.py") for i in range(52)]
    ranked = [(f"f{i}.py", 0) for i in range(50)]
    assert score_ranking(ranked, targets)[4] == 1.0  # 50 of 52, all a list of 50 can hold
    assert score_ranking(ranked[:40], targets)[4] == 0.8


# -- the similar and file sets ------------------------------------------------------------------

TALLY = '''"""Counting words in a text."""


def tally_words(text, minimum):
    """Count the words of text that are at least minimum long."""
    counts = {}
    for token in text.split():
        if len(token) >= minimum:
            counts[token] = counts.get(token, 0) + 1
    return sorted(counts.items())


def shout(text):
    return tally_words(text.upper(), 1)
'''


def test_rename_locals_renames_the_codes_own_names_from_the_syntax_tree() -> None:
    first, last = 3, 9
    text, renamed = rename_locals(TALLY, "python", first, last, "tally_words", random.Random(3))
    again, _ = rename_locals(TALLY, "python", first, last, "tally_words", random.Random(3))
    assert text == again  # the same seed renames the same way
    assert rename_locals(TALLY, "python", first, last, "tally_words", random.Random(4))[0] != text
    # Its own name, parameters and locals go; what it shares with the file (`text`, used in
    # `shout` too) and the builtins it calls stay, and so do the strings and keywords.
    code = "\n".join(line for line in text.splitlines() if '"""' not in line)
    for gone in ("tally_words", "minimum", "counts", "token"):
        assert re.search(rf"\b{gone}\b", code) is None, gone
    for kept in ("text", "len", "sorted", "split", "get", "items", "for", "return"):
        assert re.search(rf"\b{kept}\b", code), kept
    assert renamed == 4
    assert len(text.splitlines()) == last - first + 1
    assert "Count the words" in text  # the doc is blanked by `similar_queries`, not here


def test_similar_and_file_sets_are_deterministic(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "tally.py").write_text(TALLY)
    (root / "pkg" / "other.py").write_text('"""Counting words in a text."""\n\nX = 1\n')
    (root / "pkg" / "shapes.py").write_text(
        "# Areas of plane figures, for the layout engine.\n\n"
        "def area(width, height):\n    return width * height\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text('"""Tests of the tallying of words."""\n')
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    ws.indexer.index()
    symbols, files = ws.store.all_symbols(), ws.store.file_texts()
    similar = similar_queries(symbols, files, seed=5)
    assert similar == similar_queries(symbols, files, seed=5)
    (query,) = similar  # `shout` is too short, `area` renames too little
    assert query.set == "similar" and query.targets == (Target("pkg/tally.py", 3, 9),)
    assert "tally_words" not in query.text and "Count the words" not in query.text
    # A sentence at the top of two files asks nothing; test files ask nothing.
    (root / "pkg" / "notes.txt").write_text("# A list of things to remember later on.\n")
    ws.indexer.index()
    files = ws.store.file_texts()
    assert "pkg/notes.txt" in {f.path for f in files}  # it defines nothing: it does not ask
    assert file_queries(files, ws.store.all_symbols(), seed=5) == [
        EvalQuery("file", "Areas of plane figures, for the layout engine.",
                  (Target("pkg/shapes.py"),))]
    blanked = blank_top_doc((root / "pkg" / "shapes.py").read_text())
    assert "Areas" not in blanked and blanked.startswith("# ") and "def area" in blanked
    assert len(blanked) == len((root / "pkg" / "shapes.py").read_text())
    ws.close()


@pytest.mark.model
def test_similar_and_file_sets_are_scored(tmp_path: Path) -> None:
    from kebab_lsp.evaluate import EvalOptions, run_eval

    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "tally.py").write_text(TALLY)
    (root / "pkg" / "shapes.py").write_text(
        "# Areas of plane figures, for the layout engine.\n\n"
        "def area(width, height):\n    return width * height\n")
    (root / "pkg" / "clock.py").write_text(
        "def tick(seconds):\n    return (seconds + 1) % 60\n")
    report = run_eval(root, Settings(index_dir=str(tmp_path / "idx"), workers=1),
                      EvalOptions(seed=5, baseline=False), lambda _m: None)
    similar, files = report["sets"]["similar"], report["sets"]["file"]
    modes = {"lexical", "vector", "hybrid", "auto"}
    assert set(similar) == modes
    assert set(files) == modes | {f"files_{m}" for m in modes}  # and the files group
    assert (similar["vector"]["n"], files["vector"]["n"]) == (1, 2)
    # The renamed copy finds its original by meaning; by words it has little left to match.
    assert similar["vector"]["mrr@10"] == similar["auto"]["mrr@10"] == 1.0
    # The top docs are blanked in the copy that answers; the files group still leads with
    # the right file (`test_file_vector` pins the channel that ranks it).
    assert files["files_vector"]["mrr@10"] == files["files_hybrid"]["mrr@10"] == 1.0


def test_top_doc_reads_docstrings_and_comment_blocks() -> None:
    assert top_doc('"""Tally words.\n\nMore."""\nimport os\n') == "Tally words. More."
    assert top_doc("#!/bin/sh\n# Start the server.\n# Quietly.\n\nexec x\n") == \
        "Start the server. Quietly."
    assert top_doc("//! Regex engine\n//! for bytes.\nuse x;\n") == "Regex engine for bytes."
    assert top_doc("import os\n# not a top doc\n") == ""
    assert top_doc("/**\n * Observable values.\n * Shared.\n */\nexport x\n") == \
        "Observable values. Shared."
    # A line led by `*` is a comment only inside a `/*` block: not an ignore file's glob, not a
    # Markdown bullet.
    assert top_doc("*.pyc\n.coverage\n") == ""
    assert top_doc("* first item\n* second\n") == ""
    assert top_doc("/* Header. */\n* a glob\n") == "Header."
    # Rules of dashes are no doc: not a Markdown front matter's `---`, not a separator.
    assert top_doc("---\ntitle: Guide\n---\n# Guide\n") == ""
    assert top_doc("-- ---------\n-- Orders schema.\n-- ---------\nCREATE TABLE o;\n") == \
        "Orders schema."


def test_the_top_doc_passes_over_license_headers_and_tool_lines() -> None:
    license_ = ("// Copyright 2015 The Kebab Authors\n"
                "// Licensed under the Apache License, Version 2.0.\n\n")
    assert top_doc(license_ + "// Package kebab serves search.\npackage kebab\n") == \
        "Package kebab serves search."
    assert top_doc(license_ + "package kebab\n") == ""
    assert top_doc("//go:build linux\n// +build linux\n\n// Package tty reads ttys.\npackage tty\n"
                   ) == "Package tty reads ttys."
    assert top_doc("// SPDX-License-Identifier: MIT\n// Package x does y.\npackage x\n") == \
        "Package x does y."
    # A Go package doc written as a block comment, without `*`s, over its paragraphs.
    assert top_doc("/*\nPackage log is a logger.\n\nUse it so.\n*/\npackage log\n") == \
        "Package log is a logger. Use it so."
    # Rust's attributes are passed over, and its `/*!` crate doc is read whole.
    assert top_doc("#![deny(missing_docs)]\n//! Crate docs.\nuse x;\n") == "Crate docs."
    assert top_doc("/*!\nThe DFA engine.\n\nFast.\n*/\n#[cfg(test)]\nmod t;\n") == \
        "The DFA engine. Fast."
    assert top_doc("#[cfg(test)]\nmod tests {}\n") == ""
    assert top_doc("/*\n * Copyright (c) 2020 X\n * All rights reserved.\n */\n\n"
                   "/**\n * Observable values.\n */\nexport x\n") == "Observable values."
    # A docstring below a shebang, an encoding line or a license is still the module's.
    assert top_doc('#!/usr/bin/env python\n"""Run the tool."""\n') == "Run the tool."
    assert top_doc('# -*- coding: utf-8 -*-\n\n"""Schemas."""\nimport os\n') == "Schemas."
    assert top_doc('# Copyright (c) 2009 R. H.\n# Permission is hereby granted, free of '
                   'charge.\n\n"""Ordered sets."""\n') == "Ordered sets."
    assert top_doc("# frozen_string_literal: true\n\n# Logs requests.\nclass Logger\nend\n") == \
        "Logs requests."
    assert top_doc("// Copyright (C) 2009, B. H.\n\n// inih is released under the New BSD "
                   "license.\n\n#ifndef INI_H\n") == ""
    # ESLint's switches are passed over; a line comment that starts with "global" or "eslint"
    # in words is a doc (ESLint reads its globals and settings from `/* */` only).
    assert top_doc("/* global window */\n// eslint-disable-next-line\n// Reads the DOM.\n"
                   "export x\n") == "Reads the DOM."
    assert top_doc("// global registry of plugins.\nexport x\n") == "global registry of plugins."
    assert top_doc("// eslint rules we share, as one preset.\nexport x\n") == \
        "eslint rules we share, as one preset."
    # C's preprocessor lines are code, not `#` comments.
    assert top_doc("#include <stdio.h>\n#define N 3\n") == ""
    # A doc that speaks of licenses is a doc.
    assert top_doc("// Package license checks license headers.\npackage license\n") == \
        "Package license checks license headers."
    # The doc-blanked copy blanks the doc and keeps the license.
    text = license_ + "// Package kebab serves search.\npackage kebab\n"
    blanked = blank_top_doc(text)
    assert "Apache" in blanked and "serves" not in blanked and len(blanked) == len(text)


def test_the_blanked_copy_indexes_what_the_tree_indexes(tmp_path: Path) -> None:
    from kebab_lsp.evaluate import _blanked_copy

    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / ".gitignore").write_text("# build output\n*.pyc\nbuild/\n")
    (root / "pkg" / "tally.py").write_text(TALLY)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    ws.indexer.index()
    copy = tmp_path / "copy" / "repo"
    _blanked_copy(ws, copy)
    ws.close()
    # The ignore file is copied as it is (its first glob blanked would leave `*`, which
    # ignores every file), and the code's docs are blanked.
    assert (copy / ".gitignore").read_text() == (root / ".gitignore").read_text()
    assert "Count the words" not in (copy / "pkg" / "tally.py").read_text()
    blank = Workspace(copy, Settings(index_dir=str(tmp_path / "idx2"), workers=1, embed=False))
    blank.indexer.index()
    assert {f.path for f in blank.store.file_texts()} == {".gitignore", "pkg/tally.py"}
    blank.close()

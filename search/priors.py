"""Soft priors: small multipliers that re-rank hits and never remove one.

Each factor that changes a hit's score is recorded on the hit, so a user can see why a test
file sits below the code it tests. The values are deliberately mild: they break near-ties, they
do not overturn a clearly better match.

They apply in every mode: a mode a request sets picks the channels that find hits, and a test
file is no better an answer to a `vector` request than to an `auto` one. Until 2026-11-25 they
applied in `auto` only; measured with `kebab eval`, the explicit modes gained on every tree's
hand-written questions (README Quality).

There is no file-diversity prior: one scaled each further hit from a file by 1/(1 + 0.1 n), and
a question about one cohesive file (an `atom.ts`, a `utf8.rs`) had its answer pushed down
behind its file's own first hits. Measured with `kebab eval` (README Quality), `auto` gained
on every tree without it; fusion already shows a long definition once (`search.hybrid`).
"""

from __future__ import annotations

from indexing.classify import in_test_module, is_example_path, is_prose_or_data
from indexing.records import CALLABLE_KINDS
from search.scores import kept
from search.types import Candidate, Prior

DEFINITION = 1.15
TEST_PATH = 0.85
EXAMPLE_PATH = TEST_PATH
TEST_MODULE = TEST_PATH
GENERATED = 0.75
PROSE_OR_DATA = 0.7
CALLABLE_FOR_QUESTION = 1.2
TEST_FOR_QUESTION = 0.8

#: Why `EXAMPLE_PATH`, the factor of a test, for a question: an example, like a test, calls the
#: project's code under the names a question uses ("open", "edit", "group"), in a short
#: function that matches them closely, while a question about how something works asks for the
#: code it calls. Other queries are left as they are: a sentence or code copied from an example
#: is answered by that example. Measured with `kebab eval` (README Quality).

#: Why `TEST_MODULE`, a test's factor, for a sentence only (asked or told): a Rust file keeps its
#: unit tests in a `#[cfg(test)] mod tests` next to the code (`indexing.classify.
#: in_test_module`; Zig's `test "..."`, D's `unittest`, OCaml's `let%test` and Racket's
#: `(module+ test ...)` are such tests too), and a test there, which calls the code under the
#: words that describe it, matched a question or a description better than the code. A test
#: file is weighed so in every query; a test module is not, because code or a name copied from
#: the file is as likely the test's as the code's: on regex, `similar` (a function's code asked
#: for) lost 0.024 in `auto` when every query weighed it, each loss a test asked for. Measured
#: with `kebab eval` (README Quality).

#: Why `TEST_FOR_QUESTION`, on top of a test's own factor: a question about how the project
#: works ("what happens if I nest a group in chain mode") is answered by its code, and a test
#: that sets the case up matches the question's words closely (click's `tests/test_chain.py`
#: filled the first ten places above `_check_multicommand`); a test's factor alone breaks only
#: near-ties. None of the 783 hand-written questions in `bench/questions` is answered by a
#: test. "who calls X" is left out (`calls`): a test's call is as much an answer as the
#: code's, and on the `usage` set the explicit modes lost up to 0.06 when it was weighed so.
#: Measured with `kebab eval` (README Quality).

#: Why `CALLABLE_FOR_QUESTION`: a question about behaviour ("how does", "where do we", "what
#: happens when") is most often answered by code that runs (`CALLABLE_KINDS`). The
#: declarations around it (interfaces, type aliases, structs, fields) often carry the docs that
#: restate that behaviour in words, so they match the question's words better than the
#: function that does it, which may have no doc at all (TypeScript libraries document their
#: option types, not their implementations). Measured with `kebab eval` on eight trees'
#: hand-written questions (README Quality): `auto` gained on seven, and docstring sentences,
#: which are not questions, are untouched. A callable declared without a body (an interface's
#: method, a trait's required `fn`: `Symbol.bodiless`) does not run either, and it holds the
#: doc that restates the behaviour its implementations have: it is weighed as a declaration.


def apply(cands: list[Candidate], question: bool = False,
          sentence: bool = False, calls: bool = False) -> list[Candidate]:
    """Re-score in place and return re-sorted (tier, then score desc, then previous order):
    a prior never lifts a lexical hit of the any-term fill above one that holds every term
    (`Candidate.tier`). `question`: the query asks a question (`search.query.is_question`);
    `sentence`: it is words that ask or describe, not a name, code or quoted text (a question
    is one); `calls`: it asks who calls a name, which a test's call answers as well."""
    for cand in cands:
        row = cand.row
        if row.symbol is not None and row.chunk_kind == "definition":
            scale(cand, Prior("definition", DEFINITION))
            if question and row.symbol.kind in CALLABLE_KINDS and not row.symbol.bodiless:
                scale(cand, Prior("callable_for_question", CALLABLE_FOR_QUESTION))
        test = row.is_test
        if test:
            scale(cand, Prior("test_path", TEST_PATH))
        elif (sentence or question) and row.symbol is not None and in_test_module(
                row.lang, row.symbol.qualified_name, row.symbol.kind, row.symbol.signature):
            scale(cand, Prior("test_module", TEST_MODULE))
            test = True
        if test and question and not calls:
            scale(cand, Prior("test_for_question", TEST_FOR_QUESTION))
        if question and is_example_path(row.path):
            scale(cand, Prior("example_path", EXAMPLE_PATH))
        if row.is_generated:
            scale(cand, Prior("generated_or_vendored", GENERATED))
        if is_prose_or_data(row.lang):
            scale(cand, Prior("prose_or_data", PROSE_OR_DATA))
    order = {c.row.chunk_id: i for i, c in enumerate(cands)}
    cands.sort(key=lambda c: (c.tier, -c.score, order[c.row.chunk_id]))
    return cands


def scale(cand: Candidate, prior: Prior) -> None:
    """Multiply a candidate's score by a prior and record it in its explanation."""
    cand.score = kept(cand.score * prior.factor)
    cand.retrieval.priors.append(prior)

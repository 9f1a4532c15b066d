"""Retrieval quality measured on the tree itself: query sets drawn from its own definitions,
docs and text, with a fixed seed, and the standard ranking metrics.

The sets come from non-test code only, so a tree's tests cannot answer questions about
themselves. Everything here is deterministic for a given index and seed.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from indexing.records import CALLABLE_KINDS
from indexing.store import FileText, SymbolRow
from indexing.text import split_identifier
from indexing.top_doc import top_doc, top_doc_lines
from search.query import MAX_NAME_WORDS, name_key

T = TypeVar("T")
SETS = ("name", "fuzzy", "words", "nl", "exact")
_DEF_KINDS = frozenset({"class", "function", "method", "interface", "struct", "enum",
                        "constructor", "type_parameter", "module", "namespace"})
_STRING = re.compile(r"""(["'])([^"'\\\n]{8,60})\1""")


@dataclass(frozen=True, slots=True)
class Target:
    """A place that answers a query: a definition (path + line range) or a whole file."""

    path: str
    start_line: int = -1
    end_line: int = -1

    def answered_by(self, path: str, line: int, chunk: tuple[int, int] | None = None) -> bool:
        """A definition is answered by a hit cited inside it, or by a hit whose chunk holds
        its first line: doc comments sit above the definition in most languages, so a hit on
        the comment is cited above the definition's range yet names the right code."""
        if path != self.path:
            return False
        if self.start_line < 0 or self.start_line <= line <= self.end_line:
            return True
        return chunk is not None and chunk[0] <= self.start_line <= chunk[1]


@dataclass(frozen=True, slots=True)
class EvalQuery:
    set: str
    text: str
    targets: tuple[Target, ...]


@dataclass(slots=True)
class Scores:
    n: int = 0
    mrr10: float = 0.0
    hit1: float = 0.0
    hit5: float = 0.0
    recall20: float = 0.0
    recall50: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    hit20: float | None = None  # scored for the usage set only
    #: Each question's reciprocal rank within 10, in the set's order: what a paired
    #: comparison of two modes on the same questions needs (`paired_difference`).
    rr: list[float] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        extra = {} if self.hit20 is None else {"hit@20": round(self.hit20, 4)}
        return {
            **extra,
            "rr": [round(x, 4) for x in self.rr],
            "n": self.n,
            "mrr@10": round(self.mrr10, 4),
            "hit@1": round(self.hit1, 4),
            "hit@5": round(self.hit5, 4),
            "recall@20": round(self.recall20, 4),
            "recall@50": round(self.recall50, 4),
            "p50_ms": round(percentile(lat, 50), 2),
            "p95_ms": round(percentile(lat, 95), 2),
        }


def percentile(sorted_values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile; 0 for an empty list."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-len(sorted_values) * pct // 100))
    return float(sorted_values[int(rank) - 1])


#: Where one result of a ranking points, as the metrics read it: (path, line[, chunk lines]).
Citation = tuple[str, int] | tuple[str, int, tuple[int, int]]


def score_ranking(
    ranked: Sequence[Citation], targets: Sequence[Target]
) -> tuple[float, float, float, float, float]:
    """(reciprocal rank within 10, hit@1, hit@5, recall@20, recall@50) for one query.

    A target counts once, at the first result that answers it; recall is the share of targets
    answered within the cut.
    """
    first_rank: dict[int, int] = {}
    for rank, item in enumerate(ranked, start=1):
        chunk = item[2] if len(item) > 2 else None  # type: ignore[misc]
        for i, target in enumerate(targets):
            if i not in first_rank and target.answered_by(item[0], item[1], chunk):
                first_rank[i] = rank
    best = min(first_rank.values(), default=0)
    rr = 1.0 / best if best and best <= 10 else 0.0

    def recall(cut: int) -> float:
        """Answered targets over the targets a list of `cut` hits could hold: a needle in 52
        files is fully recalled by 50 hits that are all right. One hit can answer several
        targets (calls on two lines of one function), so more than `cut` may be answered:
        recall is still at most 1 (ignore's usage set read 1.0051)."""
        found = sum(1 for r in first_rank.values() if r <= cut)
        return min(1.0, found / min(len(targets), cut)) if targets else 0.0

    return rr, float(best == 1), float(0 < best <= 5), recall(20), recall(50)


def aggregate(per_query: Sequence[tuple[float, float, float, float, float]],
              latencies: Sequence[float]) -> Scores:
    n = len(per_query)
    if n == 0:
        return Scores()
    sums = [sum(q[i] for q in per_query) / n for i in range(5)]
    return Scores(n, sums[0], sums[1], sums[2], sums[3], sums[4], list(latencies),
                  rr=[q[0] for q in per_query])


@dataclass(frozen=True, slots=True)
class PairedDifference:
    """Mean of `ours - theirs` over the same questions, with a 95% bootstrap interval."""

    mean: float
    low: float
    high: float

    @property
    def beyond_noise(self) -> bool:
        """The interval leaves out zero: the two differ on these questions by more than
        which questions happened to be drawn."""
        return self.low > 0 or self.high < 0


def paired_difference(ours: Sequence[float], theirs: Sequence[float], rounds: int = 10_000,
                      seed: int = 7) -> PairedDifference:
    """A paired percentile bootstrap of the mean per-question difference. Two modes scored on
    one set of 48-150 questions differ by a few hundredths from one or two questions alone;
    this says whether a difference is larger than the draw of questions can explain. The
    seed is fixed, so the same scores give the same interval."""
    if len(ours) != len(theirs) or not ours:
        raise ValueError("a paired difference needs the same non-empty set of questions")
    diff = np.asarray(ours, dtype=np.float64) - np.asarray(theirs, dtype=np.float64)
    picks = np.random.default_rng(seed).integers(0, len(diff), size=(rounds, len(diff)))
    means = diff[picks].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return PairedDifference(float(diff.mean()), float(low), float(high))


def fuzzy_forms(name: str) -> list[str]:
    """Ways people type a name they half remember: initials of its words, or a lower-case
    piece of it."""
    parts = split_identifier(name)
    forms = []
    if len(parts) >= 2:
        forms.append("".join(p[0] for p in parts))
    lowered = name.lower()
    if len(lowered) >= 7:
        forms.append(lowered[1:6])
    return forms


def first_sentence(doc: str) -> str:
    text = " ".join(doc.split())
    match = re.match(r"(.+?[.!?])(\s|$)", text)
    return (match.group(1) if match else text)[:200]


def generate(
    symbols: Sequence[SymbolRow], files: Sequence[FileText], seed: int = 7,
    per_set: int = 50,
) -> list[EvalQuery]:
    """Query sets from the tree itself; the same inputs and seed give the same sets."""
    rng = random.Random(seed)
    defs = [r for r in symbols if not r.is_test and str(r.symbol.kind) in _DEF_KINDS
            and len(r.symbol.name) >= 4 and not r.symbol.name.startswith("__")]
    by_name: dict[str, list[SymbolRow]] = {}
    for row in symbols:
        by_name.setdefault(row.symbol.name, []).append(row)
    unique = [r for r in defs if len(by_name[r.symbol.name]) == 1]
    queries: list[EvalQuery] = []

    def target(row: SymbolRow) -> tuple[Target, ...]:
        rng_ = row.symbol.range
        return (Target(row.path, rng_.start_line, rng_.end_line),)

    for row in _sample(rng, unique, per_set):
        queries.append(EvalQuery("name", row.symbol.name, target(row)))
    fuzzy_pool = [(r, f) for r in unique for f in fuzzy_forms(r.symbol.name)]
    for row, form in _sample(rng, fuzzy_pool, per_set):
        queries.append(EvalQuery("fuzzy", form, target(row)))
    documented = [r for r in defs if len(first_sentence(r.symbol.doc).split()) >= 4]
    for row in _sample(rng, documented, per_set):
        queries.append(EvalQuery("nl", first_sentence(row.symbol.doc), target(row)))
    queries.extend(_exact_queries(rng, files, per_set))
    # Drawn last, so that adding it left every earlier set's draw as it was. Only names no
    # other one spells with the same words (`_check_iter` and `check_iter` both read "check
    # iter"), so that each question has one answer.
    spelled = Counter(name_key(r.symbol.name) for r in symbols)
    worded = [r for r in unique if 2 <= len(split_identifier(r.symbol.name)) <= MAX_NAME_WORDS
              and spelled[name_key(r.symbol.name)] == 1]
    for row in _sample(rng, worded, per_set):
        queries.append(EvalQuery("words", " ".join(split_identifier(row.symbol.name)),
                                 target(row)))
    return queries


class QuestionFileError(ValueError):
    """A hand-written question file that cannot be used; the message says where and why."""


def load_questions(path: Path, known_paths: set[str] | None = None) -> list[EvalQuery]:
    """Hand-written questions (the `hand` set) from a JSON file: `{"questions": [{"q": ...,
    "answers": [{"path": ..., "lines": [first, last]}]}]}`, lines 1-based and inclusive.
    With `known_paths`, every answer must be a file of the evaluated index, so a question file
    pointed at the wrong tree fails loudly instead of scoring zero."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise QuestionFileError(f"{path}: cannot read questions: {exc}") from exc
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise QuestionFileError(f"{path}: expected an object with a non-empty 'questions' list")
    out: list[EvalQuery] = []
    for i, item in enumerate(items):
        where = f"{path}: question {i + 1}"
        text = item.get("q") if isinstance(item, dict) else None
        answers = item.get("answers") if isinstance(item, dict) else None
        if not isinstance(text, str) or not text.strip() or not isinstance(answers, list):
            raise QuestionFileError(f"{where}: needs a 'q' string and an 'answers' list")
        targets = []
        for answer in answers:
            lines = answer.get("lines") if isinstance(answer, dict) else None
            rel = answer.get("path") if isinstance(answer, dict) else None
            if (not isinstance(rel, str) or not isinstance(lines, list) or len(lines) != 2
                    or not all(isinstance(n, int) and n >= 1 for n in lines)
                    or lines[0] > lines[1]):
                raise QuestionFileError(f"{where}: each answer needs 'path' and 'lines': "
                                        "[first, last], 1-based")
            if known_paths is not None and rel not in known_paths:
                raise QuestionFileError(f"{where}: {rel} is not in the evaluated index; "
                                        "paths are relative to the tree being evaluated")
            targets.append(Target(rel, lines[0] - 1, lines[1] - 1))
        out.append(EvalQuery("hand", text.strip(), tuple(targets)))
    return out


def _exact_queries(
    rng: random.Random, files: Sequence[FileText], per_set: int
) -> list[EvalQuery]:
    pool: list[str] = []
    for file in files:
        if file.is_test:
            continue
        pool.extend(m.group(2) for m in _STRING.finditer(file.text[:20000]) if m.group(2).strip())
    chosen = _sample(rng, sorted(set(pool)), per_set)
    out = []
    for needle in chosen:
        targets = tuple(Target(f.path) for f in files if needle in f.text)
        out.append(EvalQuery("exact", f'"{needle}"', targets))
    return out


def _sample(rng: random.Random, items: Sequence[T], n: int) -> list[T]:
    return list(items) if len(items) <= n else rng.sample(list(items), n)


def blank_docs(text: str, docs: Sequence[str]) -> str:
    """Replace each doc line's text with spaces of the same length, so the source keeps its
    line numbers and columns but no longer contains the words of its docs.

    Longer lines go first: a doc line that is part of another ("`self`.", the wrapped end of
    one Rust doc, inside "Writes a signed 8 bit integer to `self`." of another) would otherwise
    blank its share of the longer line first, which then no longer matches and kept its
    words in the doc-blanked tree."""
    pieces = {line.strip() for doc in docs for line in doc.splitlines()}
    for piece in sorted((p for p in pieces if len(p) > 3), key=lambda p: (-len(p), p)):
        text = text.replace(piece, " " * len(piece))
    return text


#: Names called from fewer places than this make a poor usage question (one call is a lookup).
MIN_CALL_SITES = 2


def usage_queries(symbols: Sequence[SymbolRow], call_sites: Callable[[str], list[Target]],
                  seed: int = 7, per_set: int = 50) -> list[EvalQuery]:
    """The `usage` set: "who calls X" for definitions of non-test code whose name is defined
    once, answered by every call of X in the tree (`call_sites`, read off the syntax tree at
    index time). It measures routing and ranking, not extraction, which the extraction tests
    pin by hand."""
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    for row in symbols:
        counts[row.symbol.name] = counts.get(row.symbol.name, 0) + 1
    names = sorted({r.symbol.name for r in symbols if not r.is_test and counts[r.symbol.name] == 1
                    and str(r.symbol.kind) in _DEF_KINDS and len(r.symbol.name) >= 4
                    and not r.symbol.name.startswith("__")})
    out: list[EvalQuery] = []
    for name in rng.sample(names, len(names)):
        if len(out) >= per_set:
            break
        sites = call_sites(name)
        if len(sites) >= MIN_CALL_SITES:
            out.append(EvalQuery("usage", f"who calls {name}", tuple(sites)))
    return out


def hit_at(ranked: Sequence[Citation], targets: Sequence[Target], cut: int) -> float:
    """1 when a result within the first `cut` answers some target."""
    for item in ranked[:cut]:
        chunk = item[2] if len(item) > 2 else None  # type: ignore[misc]
        if any(t.answered_by(item[0], item[1], chunk) for t in targets):
            return 1.0
    return 0.0


# -- the similar set: a function with its own names renamed must find the original ----------

#: Functions this many lines long, at least: shorter ones are mostly a name and a return.
SIMILAR_MIN_LINES = 5
SIMILAR_MAX_LINES = 80
#: A copy with fewer names renamed than this is barely a rewrite.
SIMILAR_MIN_RENAMED = 2
_CONSONANTS, _VOWELS = "bdfgklmnprstvz", "aeiou"


def _fresh_name(rng: random.Random, taken: set[str]) -> str:
    """A pronounceable nonsense name no code holds, drawn from `rng`."""
    while True:
        name = "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(3))
        if name not in taken:
            taken.add(name)
            return name


#: Fields of a call or a member access that name something defined elsewhere (the called
#: function, the attribute): a copy keeps those names, whatever it renames.
_FOREIGN_FIELDS = ("function", "attribute", "field", "property", "method")


def _identifiers(lang: str, data: bytes) -> list[tuple[int, int, str, bool]]:
    """(start byte, end byte, name, foreign) of every identifier node of `data`'s syntax
    tree; `foreign` when it is what a call calls or the member a member access reads."""
    from indexing.grammars import parse

    out: list[tuple[int, int, str, bool]] = []
    stack = [parse(lang, data).root_node]
    while stack:
        node = stack.pop()
        if node.child_count == 0:
            if node.type == "identifier" or node.type.endswith("_identifier"):
                parent = node.parent
                foreign = parent is not None and any(
                    (f := parent.child_by_field_name(name)) is not None
                    and (f.start_byte, f.end_byte) == (node.start_byte, node.end_byte)
                    for name in _FOREIGN_FIELDS)
                out.append((node.start_byte, node.end_byte,
                            data[node.start_byte:node.end_byte].decode("utf-8", "replace"),
                            foreign))
            continue
        stack.extend(node.children)
    return out


def rename_locals(text: str, lang: str, first_line: int, last_line: int, own_name: str,
                  rng: random.Random) -> tuple[str, int]:
    """Lines `first_line..last_line` of `text` (a file of language `lang`) with the names that
    are the code's own renamed, read off the syntax tree (never inside strings or comments):
    its own name, and every identifier that occurs nowhere else in the file and not only as
    what a call calls or a member access reads (its parameters and locals). Names it shares
    with the rest of the file, the functions it calls and the members it reads stay: that is
    what a copied and adapted function keeps. Returns the text and how many names were
    renamed."""
    data = text.encode("utf-8")
    starts = [0]
    for line in data.split(b"\n"):
        starts.append(starts[-1] + len(line) + 1)
    lo, hi = starts[first_line], starts[min(last_line + 1, len(starts) - 1)]
    inside: dict[str, list[tuple[int, int]]] = {}
    outside: set[str] = set()
    bound: set[str] = set()  # used inside other than as a callee or a member
    for start, end, name, foreign in _identifiers(lang, data):
        if lo <= start and end <= hi:
            inside.setdefault(name, []).append((start, end))
            if not foreign:
                bound.add(name)
        else:
            outside.add(name)
    names = sorted(n for n in inside if n == own_name or (n in bound and n not in outside))
    taken = set(inside) | outside
    fresh = {name: _fresh_name(rng, taken) for name in names}
    spans = sorted((span, fresh[name]) for name in names for span in inside[name])
    out, at = [], lo
    for (start, end), new in spans:
        out.append(data[at:start])
        out.append(new.encode())
        at = end
    out.append(data[at:hi])
    return b"".join(out).decode("utf-8", "replace").rstrip("\n"), len(names)


def similar_queries(symbols: Sequence[SymbolRow], files: Sequence[FileText], seed: int = 7,
                    per_set: int = 50) -> list[EvalQuery]:
    """The `similar` set: functions and methods of non-test code, each renamed
    (`rename_locals`) and with its doc blanked, asked as code (`intent: similar`) and answered
    by the original definition."""
    rng = random.Random(seed)
    by_path = {f.path: f for f in files}
    pool = [r for r in symbols if not r.is_test and r.symbol.kind in CALLABLE_KINDS
            and SIMILAR_MIN_LINES <= r.symbol.range.end_line - r.symbol.range.start_line + 1
            <= SIMILAR_MAX_LINES and r.path in by_path]
    out: list[EvalQuery] = []
    for row in rng.sample(pool, len(pool)):
        if len(out) >= per_set:
            break
        file, span = by_path[row.path], row.symbol.range
        try:
            text, renamed = rename_locals(file.text, file.lang, span.start_line, span.end_line,
                                          row.symbol.name, rng)
        except Exception:  # a language without a grammar here, a parse given up: not a query
            continue
        if renamed >= SIMILAR_MIN_RENAMED:
            text = blank_docs(text, [row.symbol.doc] if row.symbol.doc else [])
            out.append(EvalQuery("similar", text,
                                 (Target(row.path, span.start_line, span.end_line),)))
    return out


# -- the file set: a file's top doc, blanked from the tree, must find the file ---------------


def blank_top_doc(text: str) -> str:
    """`text` with its top-of-file doc blanked (`blank_docs`)."""
    lines = top_doc_lines(text)
    return blank_docs(text, ["\n".join(lines)]) if lines else text


def file_queries(files: Sequence[FileText], symbols: Sequence[SymbolRow], seed: int = 7,
                 per_set: int = 50) -> list[EvalQuery]:
    """The `file` set: the first sentence of a non-test file's top doc, answered by any hit in
    that file. Scored on a copy of the tree whose top docs are blanked, so the words must be
    found by meaning. Only files that define something at top level ask: a requirements or
    data file's header says what made it, not what it is for. A sentence at the top of several
    files (a license header) asks nothing either."""
    rng = random.Random(seed)
    defining = {r.path for r in symbols if r.symbol.container is None}
    asked: dict[str, list[str]] = {}
    for file in files:
        if file.is_test or file.path not in defining:
            continue
        sentence = first_sentence(top_doc(file.text))
        if len(sentence.split()) >= 4:
            asked.setdefault(sentence, []).append(file.path)
    pool = sorted((text, paths[0]) for text, paths in asked.items() if len(paths) == 1)
    return [EvalQuery("file", text, (Target(path),)) for text, path in _sample(rng, pool, per_set)]

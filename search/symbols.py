"""The workspace/symbol matcher: fuzzy, case-smart name matching over every definition.

Why it is shaped this way:

- `workspace/symbol` is asked on every keystroke, so a query must answer in a few
  milliseconds over ~100k symbols. Python loops over every symbol are too slow for that, so
  each symbol becomes one line of a few big strings, and every tier is one compiled regex
  scanned over them: the scanning runs at C speed and Python only touches the lines it keeps.
- The lines are laid out in tie-break order (kind, test or not, name length, qualified name,
  path, line, id). Scanning a tier from the start therefore meets its matches already in their
  final order, so a tier can stop as soon as the result list is full; nothing is sorted per
  query.
- The tiers are nested (every exact match is a prefix match, every match of any tier is a
  subsequence match of the query's letters and digits). Once the answer is full, nothing more
  is scanned: the total is then a lower bound, since counting every match of a short fragment
  is a full pass of the subsequence regex (4-5 ms on Django's 56k names) that no answer shows.
- Smart case, as in clangd and gopls: a query is always matched case-insensitively, but inside
  a tier a match whose case agrees comes first. For an all-lowercase query that only matters
  for the exact tier (`foo` puts `foo` above `Foo`); a query with an uppercase letter applies it
  in every tier, via a second scan over the original-case lines.
- `Container.member` / `Container::member` filter by scope. Each line starts with the
  symbol's scope (its container and the qualified-name prefix, lower-cased), so the container
  filter is part of the same regex rather than a Python pre-pass.

This module must not import pygls: the LSP adapter converts `SymbolMatch` to wire objects.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

from indexing.records import SymbolKind
from indexing.store import SymbolRow
from indexing.text import split_identifier
from search.heap import keep_long_lived

#: Runs a piece of work in the background under a key (a key already queued is not queued again).
Schedule = Callable[[str, Callable[[], None]], None]

# Tier names, best first. "top" is the empty-query listing, not a match tier.
EXACT = "exact"
PREFIX = "prefix"
WORD = "word"
SUBSTRING = "substring"
SUBSEQUENCE = "subsequence"
TOP = "top"
TIERS: tuple[str, ...] = (EXACT, PREFIX, WORD, SUBSTRING, SUBSEQUENCE)

_TIER_SCORE = {EXACT: 1.0, PREFIX: 0.8, WORD: 0.6, SUBSTRING: 0.4, SUBSEQUENCE: 0.2, TOP: 0.1}
# Within a tier a case-mismatched match scores a little lower, so scores never increase
# along the result list.
_CASE_PENALTY = 0.05

_KIND_RANK: dict[SymbolKind, int] = {
    **dict.fromkeys(
        (
            SymbolKind.CLASS,
            SymbolKind.INTERFACE,
            SymbolKind.STRUCT,
            SymbolKind.ENUM,
            SymbolKind.TYPE_PARAMETER,
            SymbolKind.FUNCTION,
            SymbolKind.METHOD,
            SymbolKind.CONSTRUCTOR,
        ),
        0,
    ),
    **dict.fromkeys((SymbolKind.MODULE, SymbolKind.NAMESPACE, SymbolKind.PACKAGE), 1),
    **dict.fromkeys(
        (SymbolKind.FIELD, SymbolKind.PROPERTY, SymbolKind.CONSTANT, SymbolKind.ENUM_MEMBER), 2
    ),
    SymbolKind.VARIABLE: 3,
    SymbolKind.STRING: 4,
}
_OTHER_KIND_RANK = 5

# Classifying a candidate costs a regex per tier on its line; the other way costs a scan of
# every symbol per tier before the last (whose matches are the candidates). Per earlier tier,
# classifying is the cheaper up to about this many candidates: on Django's 56k symbols, a
# flat 400 left a fragment with 692 candidates at 27 ms where classifying takes 15 ms
# (docs/bench/report-2026-11-29c.md). A query with one tier classifies nothing. The candidate
# scan stops past that many, so a fragment that matches most names reads only the start of
# the last tier's matches.
_CLASSIFY_PER_TIER = 375

# The subsequence regex is tried at every occurrence of its first character, each attempt
# paying sre's setup; past about one occurrence a line, one attempt at each line's start is
# cheaper. On Django's 56k names, over the bench's 100 name and fragment queries, the slowest
# 5% of that scan went from 8.4 to 5.9 ms, and a rare first character keeps its 1-2 ms.
_ANCHOR_PER_LINE = 1.0

# Kinds that make a symbol a "top symbol" for the empty query when it is top-level.
_TOP_KINDS = frozenset(
    (
        SymbolKind.CLASS,
        SymbolKind.INTERFACE,
        SymbolKind.STRUCT,
        SymbolKind.ENUM,
        SymbolKind.FUNCTION,
    )
)

# Line layout: <scope> SCOPE_END <name>\n, where scope is "<container>\x03<qualified prefix>".
# Marked names put WORD before each word so the word tier can see boundaries after
# lower-casing has erased camelCase.
_WORD = "\x01"
_SCOPE_END = "\x02"
_SCOPE_SEP = "\x03"
_RESERVED = re.compile("[\n\x01\x02\x03]")
_CONTAINER_SPLIT = re.compile(r"::|\.")


def kind_rank(kind: SymbolKind) -> int:
    """Types and callables first: they are what people jump to by name."""
    return _KIND_RANK.get(kind, _OTHER_KIND_RANK)


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    row: SymbolRow
    tier: str
    score: float  # in [0, 1]; non-increasing along MatchResult.items


@dataclass(frozen=True, slots=True)
class MatchResult:
    """`total` counts every matching symbol, not just `items`: exactly when the matcher saw
    every match, else (`total_is_lower_bound`) as many as it saw before the answer was full."""

    items: list[SymbolMatch]
    total: int
    total_is_lower_bound: bool = False


class _Lines:
    """One big string, one line per symbol in tie-break order, plus where each line starts,
    so a regex hit maps back to its symbol with one bisect.

    The text starts with a newline, so every line, the first included, can be anchored by a
    literal `\\n`, which lets SQLite-free C code (sre's literal search) skip to candidates.
    """

    __slots__ = ("text", "starts", "_counts")

    def __init__(self, lines: Sequence[str]) -> None:
        self.text = "\n" + "".join(f"{line}\n" for line in lines)
        # starts[i] is where line i begins; the extra last entry is one past the final newline.
        self.starts = [1, *accumulate((len(line) + 1 for line in lines), initial=1)][1:]
        self._counts: dict[str, int] = {}

    def per_line(self, char: str) -> float:
        """How often `char` occurs, per line; counted once per character (a benign race)."""
        count = self._counts.get(char)
        if count is None:
            count = self._counts[char] = self.text.count(char)
        return count / max(len(self.starts) - 1, 1)

    def scan(self, pattern: re.Pattern[str], need: int, taken: set[int], out: list[int],
             after: Sequence[int] = ()) -> bool:
        """Append up to `need` lines not yet in `taken` to `out`, in line order, from the line
        after `after`'s last one when it has one.

        Returns True when every match was seen. Patterns never cross a newline and end at or
        after the start of the line they matched, so the match end names the line."""
        text, starts, search = self.text, self.starts, pattern.search
        pos = starts[after[-1] + 1] - 1 if after else 0
        found = 0
        while True:
            m = search(text, pos)
            if m is None:
                return True
            i = bisect_right(starts, m.end()) - 1
            pos = starts[i + 1] - 1  # the newline that anchors the next line
            if i in taken:
                continue
            if found >= need:  # one more exists beyond what was asked for
                return False
            taken.add(i)
            out.append(i)
            found += 1

    def any(self, pattern: re.Pattern[str]) -> bool:
        return pattern.search(self.text) is not None


@dataclass(frozen=True, slots=True)
class _Layout:
    """How a family of lines is laid out: plain lines are just the name; scoped lines are
    `name SCOPE_END scope`, so one regex checks the name and then the container."""

    lower: _Lines
    orig: _Lines
    marked_lower: _Lines
    marked_orig: _Lines
    stop: str  # characters a gap inside the name may not cross
    end: str  # what follows the name


def _clean(text: str) -> str:
    return _RESERVED.sub(" ", text)


def _words_in_case(name: str) -> list[str]:
    """`split_identifier`'s words with their original case, so the case-sensitive word scan
    uses exactly the index's idea of a word."""
    words = split_identifier(name)
    lowered = name.lower()
    if len(lowered) != len(name):  # lower() changed lengths: offsets unusable, stay lower
        return words
    out: list[str] = []
    cursor = 0
    for word in words:
        at = lowered.find(word, cursor)
        if at < 0:
            return words
        out.append(name[at : at + len(word)])
        cursor = at + len(word)
    return out


def _scope(row: SymbolRow) -> str:
    sym = row.symbol
    qualified = sym.qualified_name
    prefix = qualified[: -len(sym.name)] if sym.name and qualified.endswith(sym.name) else ""
    container, prefix = (sym.container or "").lower(), prefix.lower()
    # The qualified prefix usually spells the container already; keeping it once keeps the
    # scoped lines, which every container query scans in full, short.
    return _clean(prefix if container in prefix else f"{container}{_SCOPE_SEP}{prefix}")


def _base_key(row: SymbolRow) -> tuple[int, bool, int, str, str, int, int]:
    sym = row.symbol
    return (
        kind_rank(sym.kind),
        row.is_test,
        len(sym.name),
        sym.qualified_name,
        row.path,
        sym.range.start_line,
        row.id,
    )


def _letters(text: str) -> str:
    """The characters fuzzy tiers care about; punctuation in a query (`get_user`) only marks
    word starts. A query of nothing but punctuation keeps its characters."""
    kept = "".join(c for c in text if c.isalnum())
    return kept or text


def _subsequence(chars: str, stop: str, leading: bool = False) -> str:
    """Leftmost-first matching is optimal for a subsequence, so possessive gaps are exact and
    never backtrack. `leading` adds a gap before the first character, for patterns anchored
    at the start of a field rather than found by the regex engine's own scan."""
    gaps = [f"[^{stop}{re.escape(c)}]*+{re.escape(c)}" for c in chars]
    if not leading and chars:
        gaps[0] = re.escape(chars[0])
    return "".join(gaps)


def _word_pattern(query: str, stop: str) -> str | None:
    """Each query character either continues the current word or starts a later one; the
    first character, and any after punctuation in the query, must start a word."""
    parts: list[str] = []
    force = True
    for c in query:
        if not c.isalnum():
            force = True
            continue
        if not parts:
            jump = _WORD
        elif force:
            jump = f"[^{stop}]*?{_WORD}"
        else:
            jump = f"(?:[^{stop}]*?{_WORD})?"
        parts.append(jump + re.escape(c))
        force = False
    return "".join(parts) or None


def _tier_body(tier: str, name: str, stop: str, end: str, anchored: bool = False) -> str | None:
    """The regex for one tier over the name part of a line; None when the tier cannot apply
    to this query. Case is the caller's business: it passes the name as it wants it matched.
    `anchored` starts the subsequence at the line's start: the same lines, found faster when
    its first character is common (`_ANCHOR_PER_LINE`)."""
    if tier == EXACT:
        return f"\n{re.escape(name)}(?=[{end}])"
    if tier == PREFIX:
        return f"\n{re.escape(name)}"
    if tier == SUBSTRING:
        return re.escape(name)
    if tier == SUBSEQUENCE:
        letters = _letters(name)
        return f"\n{_subsequence(letters, stop, leading=True)}" if anchored else _subsequence(
            letters, stop)
    return _word_pattern(name, stop)


class SymbolMatcher:
    """An immutable in-memory index of symbol names; safe to share between threads.

    The scoped layout (for `Container.member` queries) is built on first use: most sessions
    never type a dot, and it doubles the memory.
    """

    def __init__(self, rows: Sequence[SymbolRow]) -> None:
        self._rows = sorted(rows, key=_base_key)
        self.rows_per_path: dict[str, int] = {}
        for row in self._rows:
            self.rows_per_path[row.path] = self.rows_per_path.get(row.path, 0) + 1
        self._names = [_clean(r.symbol.name) for r in self._rows]
        self._words = [_words_in_case(n) for n in self._names]
        self._plain = self._layout([""] * len(self._rows), "\n", "\n")
        self._scoped: _Layout | None = None
        self._scoped_lock = threading.Lock()
        self._top = self._top_symbols()

    def __len__(self) -> int:
        return len(self._rows)

    def rows_in(self, paths: Iterable[str]) -> int:
        """How many of its definitions lie in `paths`."""
        return sum(self.rows_per_path.get(p, 0) for p in paths)

    def _layout(self, suffixes: Sequence[str], stop: str, end: str) -> _Layout:
        names, words = self._names, self._words
        pairs = list(zip(names, suffixes, strict=True))
        marked = ["".join(_WORD + w for w in ws) for ws in words]
        return _Layout(
            lower=_Lines([n.lower() + s for n, s in pairs]),
            orig=_Lines([n + s for n, s in pairs]),
            marked_lower=_Lines([m.lower() + s for m, s in zip(marked, suffixes, strict=True)]),
            marked_orig=_Lines([m + s for m, s in zip(marked, suffixes, strict=True)]),
            stop=stop,
            end=end,
        )

    def _scoped_layout(self) -> _Layout:
        with self._scoped_lock:
            if self._scoped is None:
                suffixes = [_SCOPE_END + _scope(r) for r in self._rows]
                self._scoped = self._layout(suffixes, "\n" + _SCOPE_END, _SCOPE_END)
            return self._scoped

    def _top_symbols(self) -> list[int]:
        """The empty-query listing: top-level classes, interfaces, structs, enums and
        functions outside test files, by kind rank, path, line. When a workspace has none,
        every symbol, non-test first, so the listing is never empty while symbols exist."""
        rows = self._rows

        def key(i: int) -> tuple[int, str, int, int]:
            sym = rows[i].symbol
            return (kind_rank(sym.kind), rows[i].path, sym.range.start_line, rows[i].id)

        top = [
            i
            for i, r in enumerate(rows)
            if _is_top(r)
        ]
        if top:
            return sorted(top, key=key)
        return sorted(range(len(rows)), key=lambda i: (rows[i].is_test, *key(i)))

    # -- querying ----------------------------------------------------------------------------

    def match(self, query: str, limit: int = 100) -> MatchResult:
        """Best `limit` symbols for `query`, best first; see the module docstring for the
        tiers. Falls back to a plain name match when a dotted query finds nothing, so names
        that contain a dot (file names, `v1.2` headings) stay findable."""
        limit = max(limit, 0)
        q = query.strip()
        if not q:
            return MatchResult(
                [SymbolMatch(self._rows[i], TOP, _TIER_SCORE[TOP]) for i in self._top[:limit]],
                total=len(self._top),
            )
        parts = _CONTAINER_SPLIT.split(q)
        scopes = [p.strip() for p in parts[:-1] if p.strip()]
        name = parts[-1].strip()
        if scopes:
            result = self._match(name, scopes, limit)
            if result.total:
                return result
        elif len(parts) > 1 and name:
            return self._match(name, [], limit)  # ".foo" means "foo"
        return self._match(q, [], limit)

    def _match(self, name: str, scopes: Sequence[str], limit: int) -> MatchResult:
        if scopes:
            layout = self._scoped_layout()
            chars = _letters("".join(s.lower() for s in scopes))
            sub = _subsequence(chars, "\n" + _SCOPE_SEP, leading=True)
            # The container must match inside the container or inside the qualified prefix,
            # not straddle both.
            suffix = (
                f"[^\n{_SCOPE_END}]*+{_SCOPE_END}(?:{sub}|[^\n{_SCOPE_SEP}]*+{_SCOPE_SEP}{sub})"
            )
        else:
            layout = self._plain
            suffix = ""

        def compile_(body: str) -> re.Pattern[str]:
            return re.compile(f"{body}{suffix}[^\n]*")

        lowered = name.lower()
        smart = lowered != name
        first = _letters(lowered)[:1]
        anchored = bool(first) and layout.lower.per_line(first) > _ANCHOR_PER_LINE
        specs: list[_TierSpec] = []
        for tier in TIERS if name else (PREFIX,):  # empty name after a container: all members
            body = _tier_body(tier, lowered, layout.stop, layout.end, anchored)
            if body is None:
                continue
            words = tier == WORD
            sensitive = None
            if smart or tier == EXACT:
                sensitive_body = _tier_body(tier, name, layout.stop, layout.end, anchored)
                assert sensitive_body is not None
                sensitive = compile_(sensitive_body)
            specs.append(
                _TierSpec(
                    tier,
                    compile_(body),
                    layout.marked_lower if words else layout.lower,
                    sensitive,
                    layout.marked_orig if words else layout.orig,
                    case_free=not smart and tier != EXACT,
                )
            )
        # Every tier is a subset of the last one, so its matches are all the candidates.
        # When they are few, classifying each is cheaper than a full scan per tier. When
        # there are more, the earlier tiers are scanned (each stops once the list is full)
        # and the last tier starts from the candidates read so far, in line order.
        candidates: list[int] = []
        few = _CLASSIFY_PER_TIER * (len(specs) - 1)
        if specs[-1].lines.scan(specs[-1].pattern, few, set(), candidates):
            chosen = sorted(_classify(i, specs) for i in candidates)
            return self._result(chosen[:limit], len(candidates), False)
        return self._by_tier_scans(specs, limit, candidates)

    def _by_tier_scans(self, specs: Sequence[_TierSpec], limit: int,
                       first_matches: list[int]) -> MatchResult:
        """Fill the result tier by tier, each scan stopping once the list is full; lines come
        out in tie-break order, so nothing needs sorting. `first_matches` are the last tier's
        first lines in line order, and more exist: that tier reads them before scanning on."""
        chosen: list[tuple[int, bool, int]] = []  # (tier index, case disagrees, line)
        taken: set[int] = set()
        complete = True
        for spec in specs:
            tier_index = TIERS.index(spec.tier)
            if spec.sensitive is not None and spec.lines.any(spec.pattern):
                agreeing: list[int] = []
                spec.sensitive_lines.scan(spec.sensitive, limit - len(chosen), taken, agreeing)
                chosen.extend((tier_index, False, i) for i in agreeing)
            other: list[int] = []
            if spec is specs[-1]:
                done = (_take(first_matches, limit - len(chosen), taken, other)
                        and spec.lines.scan(spec.pattern, limit - len(chosen) - len(other),
                                            taken, other, after=first_matches[-1:]))
            else:
                done = spec.lines.scan(spec.pattern, limit - len(chosen), taken, other)
            chosen.extend((tier_index, not spec.case_free, i) for i in other)
            if not done:
                complete = False
                break
        # Unfinished, the scans saw at least the candidates, and one match past a full answer.
        seen = len(chosen) if complete else max(len(chosen), len(first_matches)) + 1
        return self._result(chosen, seen, not complete)

    def _result(self, chosen: Sequence[tuple[int, bool, int]], total: int,
                lower_bound: bool) -> MatchResult:
        items = []
        for tier_index, case_differs, i in chosen:
            tier = TIERS[tier_index]
            score = _TIER_SCORE[tier] - (_CASE_PENALTY if case_differs else 0.0)
            items.append(SymbolMatch(self._rows[i], tier, score))
        return MatchResult(items, total, lower_bound)


@dataclass(frozen=True, slots=True)
class _TierSpec:
    tier: str
    pattern: re.Pattern[str]  # case-insensitive, over `lines`
    lines: _Lines
    sensitive: re.Pattern[str] | None  # case-agreeing variant, when case ranks in this tier
    sensitive_lines: _Lines
    case_free: bool  # case never ranks in this tier


def _take(lines: Sequence[int], need: int, taken: set[int], out: list[int]) -> bool:
    """`_Lines.scan` over lines already found: the same contract, without the regex."""
    found = 0
    for i in lines:
        if i in taken:
            continue
        if found >= need:
            return False
        taken.add(i)
        out.append(i)
        found += 1
    return True


def _classify(i: int, specs: Sequence[_TierSpec]) -> tuple[int, bool, int]:
    """(tier index, case disagrees, line) of one candidate line: the sort key of a match."""
    for spec in specs:
        lines = spec.lines
        if spec.pattern.search(lines.text, lines.starts[i] - 1, lines.starts[i + 1]):
            tier_index = TIERS.index(spec.tier)
            if spec.sensitive is None:
                return tier_index, not spec.case_free, i
            exact = spec.sensitive_lines
            agrees = spec.sensitive.search(exact.text, exact.starts[i] - 1, exact.starts[i + 1])
            return tier_index, agrees is None, i
    raise AssertionError("a candidate matches the last tier by construction")


class SymbolSource(Protocol):
    """What a `SymbolIndex` reads: the local index's store, or a team index's, which keeps no
    change log (`changed_paths_since` is None: every new version reloads every definition)."""

    def lexical_version(self) -> int: ...

    def changed_paths_since(self, version: int) -> set[str] | None: ...

    def symbols_in(self, paths: Iterable[str]) -> list[SymbolRow]: ...

    def all_symbols(self) -> list[SymbolRow]: ...


class Answers(Protocol):
    """A matcher, or a `SymbolIndex` in front of one."""

    def match(self, query: str, limit: int = 100) -> MatchResult: ...

    def rows_in(self, paths: Iterable[str]) -> int: ...


def match_overlaid(base: Answers, hidden: frozenset[str], delta: SymbolMatcher | None,
                   query: str, limit: int) -> MatchResult:
    """`base`'s answer without its rows of the `hidden` paths, merged with `delta`'s (rows
    that replace them, or come from elsewhere): the answer one matcher over the rows that remain
    would give. `base` is asked for as many more as it holds in hidden paths, so no kept row
    is cut."""
    found = base.match(query, limit + base.rows_in(hidden))
    kept = [m for m in found.items if m.row.path not in hidden]
    fresh = delta.match(query, limit) if delta is not None else MatchResult([], 0)
    if not query.strip() and any(_is_top(m.row) for m in kept):
        # A few changed files may hold no top-level types, and then the delta's listing
        # falls back to every symbol; the whole workspace's listing does not.
        fresh = MatchResult([m for m in fresh.items if _is_top(m.row)], fresh.total)
    merged = sorted(kept + fresh.items, key=merge_key)[:limit]
    total = found.total - (len(found.items) - len(kept)) + fresh.total
    return MatchResult(merged, total, found.total_is_lower_bound or fresh.total_is_lower_bound)


class SymbolIndex:
    """A `SymbolMatcher` kept in step with a `Store`, cheaply.

    A full build costs about a second at 50k symbols, far too much after every save. So the
    index keeps a base matcher and, after writes, a small delta matcher over just the files
    the store's change log names; base rows from those files are dropped from answers, and the
    two ordered answers are merged: the same answers a full rebuild would give. When too much
    changed to patch (a cold index, a branch switch) while `may_serve_stale()` says an index is
    still being built, the base rebuild is handed to `schedule` (the indexing runtime's
    refresher thread, which owns background work) and queries are answered from the previous
    state until it is ready. Otherwise, or without a scheduler, a query waits for the rebuild:
    once indexing is over, answers are always current.
    """

    def __init__(self, store: SymbolSource, version: Callable[[], int] | None = None,
                 max_delta_paths: int = 256,
                 may_serve_stale: Callable[[], bool] | None = None,
                 schedule: Schedule | None = None) -> None:
        self._store = store
        self._may_serve_stale = may_serve_stale or (lambda: False)
        self._version = version or store.lexical_version
        self._max_delta_paths = max_delta_paths
        self._schedule = schedule
        self._lock = threading.Lock()
        self._state: _IndexState | None = None
        self.reloads = 0

    def _current(self) -> _IndexState:
        version = self._version()
        with self._lock:
            state = self._state
            if state is not None and state.version == version:
                return state
            paths = None if state is None else self._store.changed_paths_since(state.base_version)
            if state is not None and paths is not None and len(paths) <= self._max_delta_paths:
                delta = SymbolMatcher(self._store.symbols_in(paths))
                state = _IndexState(state.base, state.base_version, version, delta,
                                    frozenset(paths))
                self._state = state
                return state
            if state is not None and self._schedule is not None and self._may_serve_stale():
                # Too much changed to patch while an index is still landing (a cold index, a
                # branch switch): rebuild in the background and answer from the last state
                # meanwhile, instead of making every query of the burst pay a full rebuild.
                self._schedule(f"symbols:{id(self)}", self._rebuild)
                return state
            self._state = self._full(version)
            return self._state

    def _full(self, version: int) -> _IndexState:
        # Read the version before the rows: a write landing in between bumps the version
        # again, so the next call catches up rather than keeping stale rows.
        self.reloads += 1
        state = _IndexState(SymbolMatcher(self._store.all_symbols()), version, version, None,
                            frozenset())
        keep_long_lived()
        return state

    def _rebuild(self) -> None:
        state = self._full(self._version())
        with self._lock:
            self._state = state

    def match(self, query: str, limit: int = 100) -> MatchResult:
        return self._current().match(query, limit)

    def current(self) -> Answers:
        """The answers as of now, as one state: what a caller that asks twice (how many rows
        to hide, then the match) must ask, so that a write in between cannot split them."""
        return self._current()


@dataclass(frozen=True, slots=True)
class _IndexState:
    base: SymbolMatcher
    base_version: int
    version: int
    delta: SymbolMatcher | None
    stale_paths: frozenset[str]

    def match(self, query: str, limit: int = 100) -> MatchResult:
        if self.delta is None:
            return self.base.match(query, limit)
        return match_overlaid(self.base, self.stale_paths, self.delta, query, limit)

    def rows_in(self, paths: Iterable[str]) -> int:
        """How many of this state's definitions lie in `paths`."""
        return sum((0 if p in self.stale_paths else self.base.rows_in((p,)))
                   + (self.delta.rows_in((p,)) if self.delta is not None else 0)
                   for p in paths)


def _is_top(row: SymbolRow) -> bool:
    return not row.is_test and not row.symbol.container and row.symbol.kind in _TOP_KINDS


def merge_key(m: SymbolMatch) -> tuple[float, tuple[object, ...]]:
    """The matcher's own order: tier and case agreement (the score), then the tie-break key
    (the empty-query listing has its own)."""
    sym = m.row.symbol
    if m.tier == "top":
        return (-m.score, (m.row.is_test, kind_rank(sym.kind), m.row.path,
                           sym.range.start_line, m.row.id))
    return (-m.score, _base_key(m.row))

"""One entry point for a search request: validate, route, retrieve, fuse, explain.

Both the CLI and the language server call `Searcher.search`, so a query gives the same answer
wherever it is asked. Vector search is optional at every step: if the model or the vector store
cannot serve, the answer is lexical with a warning, never an error.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from indexing.detect import detect_language
from indexing.filters import Filters
from indexing.language_rules import language_rules
from indexing.records import Span
from indexing.schema import SCHEMA_VERSION
from indexing.settings import Settings
from indexing.store import (
    SQLITE,
    RefStore,
    SearchStore,
    Stats,
    StoreClosed,
    StoreCorrupt,
    StoreInterrupted,
    StoreUnwritable,
)
from indexing.text import token_parts, tokens
from indexing.vector_index import VectorIndex, VectorsUnavailable
from search import filter_notes, held, lexical, priors, usage, vector
from search.hits import build_hit, holds_its_name, named_definition
from search.hybrid import fuse_rows, lexical_weight
from search.query import (
    CODE_FRAGMENT,
    CODE_NOT_FOUND,
    FIND_PHRASE,
    FIND_WORDS_NAME,
    MARKED_NAME,
    MAX_TERMS,
    PRIVATE_NAME,
    Intent,
    ParsedQuery,
    asked_name,
    check_terms,
    defined_name,
    highlight_words,
    is_question,
    marked_name,
    name_in_words,
    name_key,
    name_spellings,
    parse,
    reads_as_sentence,
    route,
    spelled_as_code,
    too_many_terms,
    usage_question,
)
from search.request import validate
from search.scores import kept
from search.types import (
    DEFAULT_SNIPPET_CHARS,
    Candidate,
    FileMatch,
    Hit,
    Meta,
    Prior,
    Retrieval,
    SearchRequest,
    SearchResult,
    SearchUnavailable,
)
from search.window import DEFINITION_READ, DEFINITIONS_SOUGHT, candidate_window, fill_below

ShouldStop = Callable[[], bool]
DEFINITION_MATCH = 2.0
DEFINITION_CASE_MATCH = 2.2


class Cancelled(Exception):
    """The caller gave up on this request; its work stops at the next checkpoint, and the
    message says which (a stage boundary, or how far a long loop got)."""




#: The channels an intent asks for when the mode is `auto`.
#: `similar` is hybrid: on code whose names were changed (the eval's similar set) the words it
#: keeps (calls, members, keywords) find the original better than its vector alone does, and
#: the vector still finds code that shares no words with it.
_INTENT_PLAN = {"definition": "lexical", "concept": "hybrid", "exact_text": "lexical",
                "usage": "refs", "similar": "hybrid"}


#: Intents that look up a name or a text: a question mark in them does not ask for code that
#: runs, so they get no `priors.CALLABLE_FOR_QUESTION`.
_LOOKUPS = frozenset({"definition", "exact_text", "similar"})


def _plan(req: SearchRequest, parsed: ParsedQuery,
          defined: Callable[[str], list[tuple[str, Span]]]) -> tuple[str, Intent, ParsedQuery]:
    """(channel plan, intent, the query as the arms read it): which arms run, and why."""
    if req.intent != "auto":
        intent, parsed = asked_intent(req.intent, parsed)
        return (req.mode if req.mode != "auto" and intent.name != "usage"
                else _INTENT_PLAN[intent.name]), intent, parsed
    if req.mode != "auto":
        return req.mode, Intent(req.mode, "mode set by request"), parsed
    intent = route(parsed)
    if intent.rule == FIND_PHRASE and intent.symbol:
        if not spelled_as_code(intent.symbol) and _spells_defined_name(parsed, defined):
            intent = Intent("concept", FIND_WORDS_NAME)
        else:  # the question is only about the name
            parsed = parse(intent.symbol)
    return _INTENT_PLAN.get(intent.name, "lexical"), intent, parsed


def _spells_defined_name(parsed: ParsedQuery,
                         defined: Callable[[str], list[tuple[str, Span]]]) -> bool:
    """Whether the query's words, "find" among them, spell a name the index defines, as
    written or private (`findFile`, `_findOption`, `find_module`). Read as "find `option`",
    "find option" searched for `option` alone and put commander's `_findOption` 43rd; read
    as the name's words, its definition comes first (`_worded_definition_first`) and the
    definitions of `option` follow, for what they share. A name spelled as code after the
    verb ("find Command", "find parse_args") is what is asked for, and stays the find."""
    return any(defined(name) or defined(f"_{name}") for name in name_spellings(parsed))


def _defined_mark(req: SearchRequest, parsed: ParsedQuery,
                  defined: Callable[[str], list[tuple[str, Span]]]) -> str | None:
    """The query, when it is one name with a mark (`query.marked_name`: `#updateTimers`,
    `empty?`) that the index defines and the request sets no intent. It then names that
    definition, as an identifier does, in every mode: `auto` read `#updateTimers` as code
    (exact text, one hit per file at its first occurrence, a call more often than not) and
    `empty?` as a question. `#include` and `why?` define nothing and stay so."""
    if req.intent != "auto":
        return None
    name = marked_name(parsed)
    if name is None or defined(defined_name(name)):
        return name
    return _invoked_macro(name, defined)


def _invoked_macro(name: str, defined: Callable[[str], list[tuple[str, Span]]]) -> str | None:
    """The macro `name` invokes (`vec!` names `vec`) when a file whose language invokes
    macros with that mark defines it (`LanguageRules.macro_mark`): a Rust `vec!` was exact
    text, one hit per file at its first call, and the `macro_rules!` that defines it was not
    among them. Ruby's `save!` is a name of its own, so a Ruby `save` is not taken for it."""
    bare, mark = name[:-1], name[-1:]
    if mark.isalnum() or mark == "_":  # no mark: `#name`, `update-in-place`
        return None
    for path, _ in defined(defined_name(bare)):
        lang = detect_language(path)
        if lang is not None and language_rules(lang).macro_mark == mark:
            return bare
    return None


def _read_as_code(req: SearchRequest, intent: Intent, parsed: ParsedQuery) -> bool:
    """The query was taken for a code fragment by a guess, not by the caller: the router's
    in `auto`, the query's shape in `lexical` (quotes and `intent: exact_text` are asked)."""
    if req.intent != "auto":
        return False
    return intent.rule == CODE_FRAGMENT or (req.mode == "lexical" and parsed.shape == "code")


def _asks_for_calls(req: SearchRequest, parsed: ParsedQuery) -> bool:
    """"who calls X" in a mode the request sets, which its arms answer: a test's call of X is
    as good an answer as the code's. In `auto` it is a `usage` lookup, never ranked by priors."""
    return req.mode != "auto" and req.intent == "auto" and route(parsed).name == "usage"


def _reads_whole(intent: Intent, parsed: ParsedQuery, asks: bool) -> bool:
    """A sentence, asked or told, is also matched against each definition read whole: a
    docstring's first sentence says what the whole definition does, as a question asks it
    (replayed on the ten eval trees, quality-2026-11-29c section 5, then measured with `kebab
    eval`). A name, a code fragment or a snippet to match keeps the chunk surfaces: the words
    it shares with a chunk are that chunk's own."""
    if asks:
        return True
    if intent.name in _LOOKUPS:
        return False
    return intent.name == "concept" or reads_as_sentence(parsed)


def asked_intent(name: str, parsed: ParsedQuery) -> tuple[Intent, ParsedQuery]:
    """An intent the request names, and the query read the way that intent reads it."""
    rule = "intent set by request"
    if name == "usage":
        found = usage_question(parsed.raw)
        return Intent("usage", rule, found.symbol if found else parsed.raw.strip()), parsed
    if name == "exact_text" and not parsed.is_exact and parsed.shape != "empty":
        text = parsed.raw.strip()
        return Intent(name, rule), ParsedQuery(parsed.raw, "quoted", parsed.terms, text)
    if name == "similar" and parsed.shape != "empty":
        parts = tuple(dict.fromkeys(p for t in tokens(parsed.raw) for p in token_parts(t)))
        return Intent(name, rule), ParsedQuery(parsed.raw, "any", parts or parsed.terms)
    if name == "definition" and parsed.terms:
        symbol, parsed = asked_name(parsed)
        return Intent(name, rule, symbol), parsed
    return Intent(name, rule), parsed


class VectorSource(Protocol):
    """Where a searcher gets its vectors (a folder's index), and why there are none."""

    vector_error: str | None

    def vector_index(self) -> VectorIndex | None: ...


class IndexStatus(Protocol):
    """Whether the index is still being built (by this process, or by the one that writes it),
    and why it may lack files for good: the runtime's folder state answers."""

    @property
    def building_anywhere(self) -> bool: ...

    @property
    def incomplete(self) -> str | None:
        """Why this index holds only part of its folder (a team checkout's), or None."""
        ...


class _Idle:
    building_anywhere = False
    incomplete: str | None = None


class Searcher:
    """Answers requests over one workspace root's index.

    Hits cite files under `root` as given (made absolute, symlinks kept): the path the
    client opened. Resolving it would cite a workspace opened through a symlink at its real
    path, a place the editor takes for another file than the one it has open."""

    def __init__(
        self,
        root: Path,
        store: SearchStore,
        vectors: VectorSource | None = None,
        status: IndexStatus | None = None,
        settings: Callable[[], Settings] = Settings,
    ) -> None:
        self.root = Path(os.path.abspath(root))
        self.store = store
        self._source = vectors
        self._status: IndexStatus = status or _Idle()
        self._settings = settings
        self._stats_cache: tuple[int, Stats] | None = None

    @property
    def vector_error(self) -> str | None:
        return self._source.vector_error if self._source else "vector search is not enabled"

    def _vectors(self) -> VectorIndex | None:
        return self._source.vector_index() if self._source else None

    def search(self, req: SearchRequest, should_stop: ShouldStop | None = None) -> SearchResult:
        """The answer to `req`. An index that turns out damaged (or is rebuilt or closed under
        the query) gives an empty answer that says why, not an error: the store has already
        recorded the damage, and the runtime is rebuilding the index."""
        started = time.perf_counter()
        validate(req)
        try:
            with stoppable_read(self.store, should_stop):
                return self._search(req, should_stop, started)
        except (StoreCorrupt, StoreClosed, StoreUnwritable) as exc:
            return self._unanswered(req, exc, started)

    def _unanswered(self, req: SearchRequest, exc: Exception, started: float) -> SearchResult:
        meta = Meta(mode=req.mode)
        meta.recall = {"complete": False, "ranking_scope": "unknown", "truncated": False}
        meta.index = {"schema_version": SCHEMA_VERSION, "lexical_version": 0, "files": 0,
                      "building": True}
        meta.warnings = list(dict.fromkeys([*self.store.problems(), str(exc)]))
        meta.timing = {"total_ms": _ms(started)}
        return SearchResult(hits=[], meta=meta)

    def _search(self, req: SearchRequest, should_stop: ShouldStop | None,
                started: float) -> SearchResult:
        filters = req.filters
        parsed = parse(req.query)
        stop = should_stop or (lambda: False)
        # Where a name is defined, asked by routing, the lexical arm and the priors: read once.
        defined = functools.cache(self.store.definition_places)
        marked = _defined_mark(req, parsed, defined)
        plan, intent, parsed = _plan(req, parsed, defined)
        if marked and req.mode == "auto":
            rule = PRIVATE_NAME if marked.startswith("#") else MARKED_NAME
            plan, intent = _INTENT_PLAN["definition"], Intent("definition", rule, marked)
            # A macro's name is looked up without the mark that invokes it.
            terms = parsed.terms if marked == parsed.raw.strip() else (marked,)
            parsed = ParsedQuery(parsed.raw, "terms", terms)
        check_terms(parsed)
        meta = Meta(mode=req.mode, intent={"name": intent.name, "rule": intent.rule})
        if intent.name == "usage":
            return self._usage(req, intent, meta, started, stop)
        if parsed.shape == "empty":
            meta.warnings.append("the query is empty: nothing to search for")
            plan = "lexical"
        if plan in ("vector", "hybrid") and self._vectors() is None:
            reason = self.vector_error or "vector search is not enabled"
            self._degrade(req, meta, reason)
            plan = "lexical"
        if plan in ("vector", "hybrid") and intent.name == "similar" and req.mode == "auto":
            vindex = self._vectors()
            if vindex is not None and vindex.coverage(self._stats().chunks)[0] == 0:
                meta.warnings.append("no chunk has a vector yet; answered with lexical search "
                                     "over the code's identifier parts")
                plan = "lexical"
        window = candidate_window(req.k)
        timing: dict[str, float] = {}
        # Weighs callables (`priors.CALLABLE_FOR_QUESTION`); `empty?` names, it does not ask.
        asks = is_question(parsed.raw) and not marked
        named = _named_definition(req, intent, parsed) or marked

        lex: lexical.LexicalResult | None = None
        if plan in ("lexical", "hybrid"):
            t0 = time.perf_counter()
            lex = lexical.retrieve(self.store, parsed, filters, window,
                                   fill_below(plan, req.k), checkpoint(stop))
            if named and len(parsed.terms) == 1 and not parsed.is_exact:
                lex = self._to_definitions(lex, defined(defined_name(named)), parsed,
                                           filters, window, fill_below(plan, req.k), stop)
            if lex.total == 0 and parsed.terms and _read_as_code(req, intent, parsed):
                check_stop(stop)
                if len(parsed.terms) > MAX_TERMS:
                    meta.warnings.append("no file holds the query as exact text; "
                                         + too_many_terms(len(parsed.terms)))
                else:
                    plan, intent, parsed, lex = self._as_words(req, parsed, meta, window, stop)
            timing["lexical_ms"] = _ms(t0)
        check_stop(stop)
        vec: vector.VectorResult | None = None
        whole = _reads_whole(intent, parsed, asks)  # as the query reads now: code may be words
        if plan in ("vector", "hybrid"):
            t0 = time.perf_counter()
            vec = self._vector_arm(req, parsed.text, filters, window, meta, whole)
            timing["vector_ms"] = _ms(t0)
            if vec is not None and not vec.ranked:
                self._none_embedded(req, meta)
            if vec is None:  # auto, and the vector side failed: the lexical answer stands
                plan = "lexical"
                if lex is None:
                    lex = lexical.retrieve(self.store, parsed, filters, window,
                                           fill_below(plan, req.k), checkpoint(stop))
        check_stop(stop)

        words = highlight_words(parsed.terms) if parsed.shape in ("terms", "any") else ()
        if parsed.is_exact:
            words = (parsed.exact_text.lower(),)
        candidates = self._candidates(plan, lex, vec)
        while (plan in ("vector", "hybrid") and vec is not None and len(candidates) < req.k
               and len(vec.ranked) + vec.stale >= window):
            # The window held fewer definitions than were asked for (a long one has many
            # chunks): the vector arm reads on. The store's order is total, so the arm's
            # ranks so far stay; it only appends.
            check_stop(stop)
            window *= 2
            t0 = time.perf_counter()
            wider = self._vector_arm(req, parsed.text, filters, window, meta, whole)
            timing["vector_ms"] += _ms(t0)
            if wider is None:
                break
            vec, candidates = wider, self._candidates(plan, lex, wider)
        if filters.kinds:  # a hit kept for a definition it holds cites it (`search.held`)
            held.cite_held(self.store, candidates, filters.kinds, parsed.raw)
        if named:
            _definition_first(candidates, named, defined)
        elif req.intent == "auto" and reads_as_sentence(parsed):
            _worded_definition_first(candidates, parsed, defined)
        candidates = priors.apply(candidates, question=asks and intent.name not in _LOOKUPS,
                                  sentence=whole, calls=_asks_for_calls(req, parsed))
        hits: list[Hit] = []
        seen: set[tuple[str, Span]] = set()
        taken = 0
        # Two chunks can cite one place: the overlap of two pieces of a long line holds the
        # same words. The second is the same hit, not another match, so it gives way; so does
        # a later piece of a definition the query names, which stands for the definition the
        # first piece shown already did.
        check = checkpoint(stop)
        while len(hits) < req.k and taken < len(candidates):
            shown = candidates[taken : taken + req.k - len(hits)]
            taken += len(shown)
            rows = self.store.with_texts([c.row for c in shown])  # only hits need their text
            for c, row in zip(shown, rows, strict=True):
                check("building hits", len(hits), req.k)
                hit = build_hit(row, str(self.root), words, c.score, c.retrieval,
                                req.snippet_chars, c.focus, c.held)
                place = named_definition(row, words) or hit.span
                if (hit.path, place) not in seen:
                    seen.add((hit.path, place))
                    hits.append(hit)
        # Left out: a candidate not shown, or more beyond what either arm read.
        cut = (taken < len(candidates)
               or (vec is not None and len(vec.ranked) + vec.stale >= window)
               or (lex is not None and lex.total > len(lex.ranked)))
        self._meta(meta, plan, lex, vec, hits, window, cut)
        if not hits and (filters.langs or filters.path_glob):
            meta.warnings.extend(filter_notes.unmatched(
                filters, self._stats().langs, self.store.file_states))
        meta.score["kind"] += "+priors"  # priors multiply scores: no longer bounded by 1
        backend = self.store.capabilities
        if backend != SQLITE:  # the SQLite answer's shape predates a second backend
            meta.score["backend"] = backend.backend
            if plan == "lexical" and lex is not None and lex.plan != "exact":
                meta.score["kind"] = meta.score["kind"].replace("bm25_normalized",
                                                                backend.score_kind)
        self._index_meta(meta, plan)
        files: list[FileMatch] = []
        if req.group and vec is not None and not filters.kinds:
            t0 = time.perf_counter()
            files = self._file_channel(parsed.text, filters, req.k, meta)
            timing["file_vector_ms"] = _ms(t0)
        timing["total_ms"] = _ms(started)
        meta.timing = timing
        return SearchResult(hits=hits, meta=meta, files=files)

    def _file_channel(self, query: str, filters: Filters, k: int, meta: Meta
                      ) -> list[FileMatch]:
        """The `files` group's own channel: files by their file vector (`search.grouping`
        fuses it with the files of the hits). Its failure costs that channel, not the answer."""
        vindex = self._vectors()
        if vindex is None:
            return []
        try:
            return vector.files(self.store, vindex, str(self.root), query, filters, k)
        except VectorsUnavailable as exc:
            meta.warnings.append(f"files are ranked by their hits only: {exc}")
            return []

    def _usage(self, req: SearchRequest, intent: Intent, meta: Meta,
               started: float, stop: ShouldStop) -> SearchResult:
        return self._usages(usage.usage_name(intent.symbol), req.filters, req.k, (), stop,
                            meta, req.snippet_chars, started)

    def usages(self, name: str, filters: Filters, k: int, kinds: tuple[str, ...] = (),
               should_stop: ShouldStop | None = None) -> SearchResult:
        """The refs of `name` (`search.usage`), as `kebab/references` answers them, in one
        read: the refs, their rows and their chunks are of one state of the index. A name in
        most files has refs in most files, and listing them is one long statement, so a
        cancelled request stops inside it too, not only between the reads."""
        started = time.perf_counter()
        meta = Meta(mode="auto", intent={"name": "usage", "rule": "references"})
        with stoppable_read(self.store, should_stop):
            return self._usages(name, filters, k, kinds, should_stop or (lambda: False), meta,
                                DEFAULT_SNIPPET_CHARS, started)

    def _usages(self, name: str, filters: Filters, k: int, kinds: tuple[str, ...],
                stop: ShouldStop, meta: Meta, snippet_chars: int,
                started: float) -> SearchResult:
        """`usages`, inside a read the caller holds (`kebab/search` asking who calls X)."""
        hits, total = usage.find(self._refs(), str(self.root), name, filters, k, snippet_chars,
                                 kinds, checkpoint(stop))
        usage.describe(meta, hits, total)
        self._index_meta(meta, "refs")
        meta.timing = {"total_ms": _ms(started)}
        return SearchResult(hits=hits, meta=meta)

    def _refs(self) -> RefStore:
        """The store, when it holds uses of names."""
        store = self.store
        if not store.capabilities.refs or not isinstance(store, RefStore):
            raise SearchUnavailable(
                f"usages (who calls, where is X used) need the refs of names, which the "
                f"{store.capabilities.backend} store does not hold; ask for the name with "
                "mode 'lexical'")
        return store

    def _to_definitions(self, lex: lexical.LexicalResult, places: list[tuple[str, Span]],
                        parsed: ParsedQuery, filters: Filters, window: int, fill: int | None,
                        stop: ShouldStop) -> lexical.LexicalResult:
        """The lexical arm, with the chunks that hold the named definitions beyond its window
        (read to `DEFINITION_READ`, at their own ranks) when the window holds fewer than
        `DEFINITIONS_SOUGHT` of them. A definition with no chunk of its own (a one-line
        method) is cited by the chunk that holds it, whose bm25 for the name is any long
        chunk's that mentions it: on rack, NullLogger's `def error(progname = nil, &block);
        end` was in the 118th of the 131 chunks that say `error`, beyond the window, so the
        definition the query names was no hit at all. Only those chunks join: the rest of
        the deeper read would rank below the window anyway. On Django, the 100 names defined
        most often (`app_label`, `fields`) went from p95 16 to 26 ms, 200 names defined once
        stayed at 5 ms; reading 1,600 deep cost 40 to 60 ms a query."""
        if len(lex.ranked) < window or lex.total <= len(lex.ranked):
            return lex  # the window holds every match
        lines = _lines_by_path(places)
        if _places_held(lex.ranked, lines) >= min(len(places), DEFINITIONS_SOUGHT):
            return lex
        check_stop(stop)
        deeper = lexical.retrieve(self.store, parsed, filters, DEFINITION_READ, fill,
                                  checkpoint(stop))
        lex.ranked.extend(r for r in deeper.ranked[len(lex.ranked):]
                          if _places_held([r], lines))
        return lex

    def _as_words(self, req: SearchRequest, parsed: ParsedQuery, meta: Meta, window: int,
                  stop: ShouldStop) -> tuple[str, Intent, ParsedQuery, lexical.LexicalResult]:
        """The query was read as code, and no file holds it as text. That reading was a guess
        ("Copied from: https://... eslint-disable-next-line"), so the query is asked again as
        words, the way a sentence is, rather than answered with nothing: by both channels in
        `auto`, by words alone in `lexical`."""
        words = ParsedQuery(parsed.raw, "terms", parsed.terms)
        intent = Intent("concept", CODE_NOT_FOUND)
        meta.intent = {"name": intent.name, "rule": intent.rule}
        meta.warnings.append("no file holds the query as exact text; answered by its words "
                             "(quote it to search for the text alone)")
        plan = "lexical" if req.mode == "lexical" else "hybrid"
        if plan == "hybrid" and self._vectors() is None:
            self._degrade(req, meta, self.vector_error or "vector search is not enabled")
            plan = "lexical"
        return plan, intent, words, lexical.retrieve(self.store, words, req.filters, window,
                                                     fill_below(plan, req.k), checkpoint(stop))

    def _none_embedded(self, req: SearchRequest, meta: Meta) -> None:
        """An empty vector arm over an index with chunks but no vector yet (embedding has not
        started, is off for this index's last writer, or a command line indexed it without):
        a mode the caller chose cannot be served, and fails saying so, rather than answering
        nothing (`vector`) or the lexical arm alone under the name `hybrid`."""
        vindex = self._vectors()
        if req.mode == "auto" or vindex is None:
            return
        have, total = vindex.coverage(self._stats().chunks)
        if have == 0 and total > 0:
            self._degrade(req, meta, "no chunk of this index has a vector yet (embedding has "
                                     "not run, or is just starting: `kebab index` embeds)")

    @staticmethod
    def _degrade(req: SearchRequest, meta: Meta, reason: str) -> None:
        """`auto` may fall back to words when vectors cannot serve, and says so; a mode the
        caller chose is a contract, so it fails instead."""
        if req.mode != "auto":
            raise SearchUnavailable(
                f"mode {req.mode!r} needs vector search, which is unavailable: {reason}. "
                "Use mode 'auto' (which falls back to lexical search) or 'lexical'.")
        meta.warnings.append(f"{reason}; answered with lexical search")

    def _vector_arm(
        self, req: SearchRequest, query: str, filters: Filters, limit: int, meta: Meta,
        whole: bool,
    ) -> vector.VectorResult | None:
        vindex = self._vectors()
        if vindex is None:  # disabled between the plan and now
            self._degrade(req, meta, "vector search became unavailable")
            return None
        try:
            return vector.retrieve(self.store, vindex, query, filters, limit, whole)
        except VectorsUnavailable as exc:
            self._degrade(req, meta, str(exc))
            return None

    def _candidates(
        self,
        plan: str,
        lex: lexical.LexicalResult | None,
        vec: vector.VectorResult | None,
    ) -> list[Candidate]:
        """Every ranked chunk with its score and explanation; hits (snippets, citations) are
        built later, only for the ones that survive the cut."""
        if plan == "hybrid" and lex is not None and vec is not None:
            # The lexical arm is the whole lexical answer, any-term fill included: for a
            # sentence few chunks hold every word, and without the fill the arm is empty
            # exactly when it is needed (measured with `kebab eval` on the hand-written and
            # doc-blanked sets). Arms vote for definitions, not chunks (`fuse_rows`).
            lex_by = {r.row.chunk_id: r for r in lex.ranked}
            vec_by = {r.row.chunk_id: r for r in vec.ranked}
            boost = lexical_weight(lex.complete)
            weights = {r.row.chunk_id: boost for r in lex.ranked[: lex.complete]}
            fused = fuse_rows([r.row for r in lex.ranked], [r.row for r in vec.ranked],
                              self._settings().rrf_k, weights)
            out = []
            for f in fused:
                lr = lex_by[f.lexical_chunk] if f.lexical_chunk else None
                vr = vec_by[f.vector_chunk] if f.vector_chunk else None
                item = lex_by.get(f.chunk_id) or vec_by[f.chunk_id]
                retrieval = Retrieval(
                    method="hybrid",
                    lexical_score=kept(lr.score) if lr else None,
                    lexical_rank=f.lexical_rank,
                    lexical_weight=weights.get(lr.row.chunk_id, 1.0) if lr else None,
                    vector_score=kept(vr.score) if vr else None,
                    vector_rank=f.vector_rank,
                    vector_surface=vr.surface if vr else None,
                    fusion_score=kept(f.score),
                    exact=bool(lr and lr.focus),
                )
                out.append(Candidate(item.row, kept(f.score), retrieval, item.focus))
            return out
        if plan == "vector" and vec is not None:
            return _by_definition(vec)
        assert lex is not None
        # The fill's bm25 is another query's (any term, not every term): its scores are not
        # comparable with the all-terms hits above it, which stay above it.
        filled = lex.plan == "and+or_fill"
        return [Candidate(r.row, kept(r.score),
                          Retrieval("lexical", lexical_score=kept(r.score),
                                    lexical_rank=r.rank, exact=r.focus is not None),
                          r.focus, tier=int(filled and r.rank > lex.complete))
                for r in lex.ranked]

    def _meta(
        self,
        meta: Meta,
        plan: str,
        lex: lexical.LexicalResult | None,
        vec: vector.VectorResult | None,
        hits: list[Hit],
        window: int,
        cut: bool,
    ) -> None:
        if lex is not None:
            meta.query_plan = lex.plan
            meta.warnings.extend(lex.warnings)
        if plan == "lexical" and lex is not None:
            meta.total_matches = lex.total
            windowed = lex.total > window and len(hits) < lex.total and window > len(hits)
            meta.recall = {
                "complete": not windowed,
                "ranking_scope": "candidate_window" if windowed else "all_matches",
                "truncated": lex.total > len(hits),
            }
            if lex.plan == "exact":
                meta.score = {"kind": "exact_occurrences", "direction": "higher_is_better"}
            return
        # Every chunk is a vector "match", so vector and hybrid rankings are over a window.
        meta.total_matches = max(len(hits), lex.total if lex else 0)
        meta.count_accuracy = "lower_bound"
        meta.recall = {"complete": False, "ranking_scope": "candidate_window",
                       "truncated": cut}  # every chunk a candidate and shown: nothing cut
        meta.query_plan = f"{meta.query_plan}+vector" if meta.query_plan else "vector"
        meta.score = {"kind": "rrf_normalized" if plan == "hybrid" else "cosine_similarity",
                      "direction": "higher_is_better"}
        if vec is not None and vec.stale:
            meta.warnings.append(f"{vec.stale} vector hit(s) pointed at chunks that no longer "
                                 "exist; the vector index is catching up")
        if vec is not None:
            meta.warnings.extend(vec.warnings)

    def _stats(self) -> Stats:
        """Row counts cost a table scan each, so they are cached per lexical version."""
        version = self.store.lexical_version()
        if self._stats_cache is None or self._stats_cache[0] != version:
            self._stats_cache = (version, self.store.stats())
        return self._stats_cache[1]

    def _index_meta(self, meta: Meta, plan: str) -> None:
        stats = self._stats()
        building = self._status.building_anywhere
        meta.index = {
            "schema_version": stats.schema_version,
            "lexical_version": stats.lexical_version,
            "vector_version": None,
            "files": stats.files,
            "building": building,
        }
        synced = self.store.meta_value("vector_synced_lexical_version")
        stored_version = self.store.meta_value("vector_version")
        meta.index["vector_version"] = int(stored_version) if stored_version else None
        meta.index["vector_lexical_version"] = int(synced) if synced else None
        vindex = self._vectors() if plan in ("vector", "hybrid") else None
        if vindex is not None:  # only vector answers pay for a live look at the vector store
            meta.index["vector_version"] = vindex.version()
            have, total = vindex.coverage(stats.chunks)
            meta.index["embedded"] = {"vectors": have, "total": total}
            if have < total:
                pct = 100.0 * have / total if total else 100.0
                meta.warnings.append(
                    f"embeddings cover {pct:.1f}% of the index ({have}/{total} vectors); vector "
                    "recall is incomplete")
            elif synced is None:
                meta.warnings.append("the vector index has not finished a sync yet")
            elif synced != str(stats.lexical_version):
                meta.warnings.append(
                    "the vector index is stale: it was built from lexical version "
                    f"{synced}, the lexical index is at {stats.lexical_version}")
        if building:
            meta.recall["complete"] = False
            meta.recall["ranking_scope"] = "unknown"
            meta.warnings.append("the index is still building: results may be incomplete")
        incomplete = self._status.incomplete
        if incomplete is not None:
            meta.recall["complete"] = False
            meta.warnings.append(incomplete)
        if self.store.damage is not None:  # found damaged: a rebuild is on its way
            meta.recall["complete"] = False
            meta.recall["ranking_scope"] = "unknown"
        problems = self.store.problems()  # damaged and being rebuilt, or unwritable
        if problems:  # an index that cannot take the files' changes lags them
            meta.recall["complete"] = False
        meta.warnings.extend(problems)


def _by_definition(vec: vector.VectorResult) -> list[Candidate]:
    """A vector answer, one hit per definition as in hybrid: a long definition's chunks would
    each cite it again. It ranks and scores by its best chunk, shown by its best chunk of
    code (`fuse_rows` with one arm)."""
    by_id = {r.row.chunk_id: r for r in vec.ranked}
    out = []
    for f in fuse_rows([], [r.row for r in vec.ranked]):
        best = by_id[f.vector_chunk or f.chunk_id]
        out.append(Candidate(by_id[f.chunk_id].row, kept(best.score),
                             Retrieval("vector", vector_score=kept(best.score),
                                       vector_rank=f.vector_rank, vector_surface=best.surface)))
    return out


def _named_definition(req: SearchRequest, intent: Intent, parsed: ParsedQuery) -> str | None:
    """The symbol a query names, whose definition its hits put first, in every mode: a mode
    the request sets picks the channels that find hits, not how they rank (`search.priors`).
    An identifier asked in `lexical` mode had its definition below shorter chunks that merely
    mention the name (bm25 weighs a match by the length of the chunk it is in)."""
    if intent.name == "definition":
        return intent.symbol
    if req.mode == "auto" or req.intent != "auto":
        return None
    routed = route(parsed)
    return routed.symbol if routed.name == "definition" else None


def _definition_first(candidates: list[Candidate], symbol: str,
                      defined: Callable[[str], list[tuple[str, Span]]]) -> None:
    """Identifier queries want the definition: boost candidates that define the named
    symbol. A definition with no chunk of its own (a type parameter, a local, a one-line
    member of a short class) is cited by the chunk that holds it, which is boosted instead, as
    much as the exact name it holds."""
    name = defined_name(symbol)
    lifted: set[str] = set()
    for cand in _standing_for_definitions(candidates):
        sym = cand.row.symbol
        assert sym is not None
        if sym.name == name:
            lifted.add(cand.row.chunk_id)
            priors.scale(cand, Prior("defines_query_case_exact", DEFINITION_CASE_MATCH))
        elif sym.name.lower() == name.lower():
            priors.scale(cand, Prior("defines_query", DEFINITION_MATCH))
    _lift_holders(candidates, defined, (name,), lifted,
                  Prior("holds_query_definition", DEFINITION_CASE_MATCH))


def _lines_by_path(places: list[tuple[str, Span]]) -> dict[str, list[int]]:
    """The lines of definitions' names, by file."""
    out: dict[str, list[int]] = {}
    for path, span in places:
        out.setdefault(path, []).append(span.start_line)
    return out


def _places_held(ranked: Sequence[lexical.RankedChunk], lines: dict[str, list[int]]) -> int:
    """How many of the definitions' names (`_lines_by_path`) the chunks hold."""
    held = {(r.row.path, line) for r in ranked for line in lines.get(r.row.path, ())
            if r.row.start_line <= line <= r.row.end_line}
    return len(held)


def _standing_for_definitions(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates a definition's boost goes to: a long definition's chunks all carry its
    name, and bm25 likes the shortest, often a tail (`return { operands, unknown }; }`), so
    when the chunk that holds the name is a candidate it alone stands for the definition,
    which is then shown by its head."""
    named: list[tuple[Candidate, tuple[str, int], bool]] = []
    for cand in candidates:
        row, sym = cand.row, cand.row.symbol
        if sym is not None:
            named.append((cand, (row.path, sym.selection.start_line), holds_its_name(row)))
    heads = {place for _, place, is_head in named if is_head}
    return [cand for cand, place, is_head in named if is_head or place not in heads]


def _worded_definition_first(candidates: list[Candidate], parsed: ParsedQuery,
                             defined: Callable[[str], list[tuple[str, Span]]]) -> None:
    """A query that spells a name as words ("digest auth"): boost the definitions with exactly
    that name (`name_in_words`), by the factor of a case-insensitive identifier match. On
    `kebab eval`'s `words` set, the definition came first in `auto` on 67-88% of questions
    before and 99-100% after, on ten trees (`docs/bench/quality-2026-11-29i.md`). A
    definition with no chunk of its own, looked up by the usual spellings of the words, lifts
    the chunk that holds it, as for an identifier."""
    key = name_in_words(parsed)
    if key is None:
        return
    lifted: set[str] = set()
    for cand in _standing_for_definitions(candidates):
        sym = cand.row.symbol
        if sym is not None and name_key(sym.name) == key:
            lifted.add(cand.row.chunk_id)
            priors.scale(cand, Prior("defines_query_words", DEFINITION_MATCH))
    _lift_holders(candidates, defined, name_spellings(parsed), lifted,
                  Prior("holds_query_words", DEFINITION_MATCH))


def _lift_holders(candidates: list[Candidate], defined: Callable[[str], list[tuple[str, Span]]],
                  names: tuple[str, ...], lifted: set[str], prior: Prior) -> None:
    """Scale each candidate that holds the name of a definition of one of `names` whose own
    chunk is not a candidate already lifted (`lifted`: chunk ids), and cite that name: the
    hit stands for the definition, and its first word match may be another member's doc or
    call (`INFO` met in the doc of `DEBUG` above it)."""
    own = {(c.row.path, c.row.symbol.selection.start_line) for c in candidates
           if c.row.chunk_id in lifted and c.row.symbol is not None}
    homeless: dict[str, list[Span]] = {}  # path -> the names of such definitions there
    for name in names:
        for path, place in defined(name):
            if (path, place.start_line) not in own:
                homeless.setdefault(path, []).append(place)
    if not homeless:
        return
    for cand in candidates:
        row = cand.row
        if row.chunk_id in lifted:
            continue
        held = [p for p in homeless.get(row.path, ())
                if row.start_line <= p.start_line <= row.end_line]
        if held:
            priors.scale(cand, prior)
            if cand.focus is None:
                cand.focus = min(held, key=lambda p: (p.start_line, p.start_col))


def check_stop(stop: ShouldStop, where: str = "between stages") -> None:
    """A Cancelled saying `where`, once `stop` says so: between stages, folders or reads."""
    if stop():
        raise Cancelled(where)


@contextmanager
def stoppable_read(store: SearchStore, should_stop: ShouldStop | None) -> Iterator[None]:
    """One read of a store: every statement sees one state, whatever a save commits, and a
    cancelled request stops inside a long statement too, as a Cancelled like any other
    checkpoint's (the server logs where the work stopped)."""
    try:
        with store.reading(should_stop):
            yield
    except StoreInterrupted as exc:
        raise Cancelled(str(exc)) from exc


def checkpoint(stop: ShouldStop) -> lexical.Checkpoint:
    """`stop` as the long loops take it (lexical, usage, grouping, the store's reads): the
    Cancelled says how far the loop got, which the server logs (a stop inside a loop, not
    after it, is what frees the worker)."""

    def check(what: str, done: int, total: int) -> None:
        if stop():
            raise Cancelled(f"{what} ({done} of {total} done)")

    return check


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)

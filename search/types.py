"""The one home of search's request, hit and metadata types.

They are plain dataclasses with no protocol knowledge: `kebab_lsp.convert` turns them into the
wire objects that both `kebab search --json` and `kebab/search` return, so the CLI and the
server can never drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from indexing.filters import Filters
from indexing.records import Span, Symbol
from indexing.settings import MAX_K as MAX_K
from indexing.settings import MODES as MODES

if TYPE_CHECKING:  # a type only: the request types load without the store
    from indexing.store import ChunkRow

DEFAULT_K = 20
DEFAULT_SNIPPET_CHARS = 200


class InvalidQuery(ValueError):
    """A request that cannot be answered as asked; the message says what is wrong."""


class SearchUnavailable(RuntimeError):
    """A well-formed request for a channel that cannot serve right now (an explicit `vector`
    or `hybrid` mode without vectors). It fails instead of quietly answering another way; the
    message says why and what to do."""


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    mode: str = "auto"
    k: int = DEFAULT_K
    filters: Filters = field(default_factory=Filters)
    explain: bool = False
    snippet_chars: int = DEFAULT_SNIPPET_CHARS
    intent: str = "auto"  # see search.request.INTENTS
    group: bool = False


@dataclass(frozen=True, slots=True)
class Prior:
    """A soft re-ranking factor applied to one hit, kept so the hit can explain itself."""

    name: str
    factor: float


@dataclass(slots=True)
class Retrieval:
    """How a hit was found: which channels, at what rank and score. `None` means that
    channel did not find it."""

    method: str
    lexical_score: float | None = None
    lexical_rank: int | None = None
    lexical_weight: float | None = None  # its share in fusion (1.5 for a selective all-terms hit)
    vector_score: float | None = None
    vector_rank: int | None = None
    vector_surface: str | None = None  # "code", "summary" or "whole": the best match
    fusion_score: float | None = None
    exact: bool = False
    priors: list[Prior] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    highlights: tuple[tuple[int, int], ...]  # [start, end) offsets into `text`
    start_line: int  # 0-based line of the snippet's first character


@dataclass(slots=True)
class Hit:
    chunk_id: str
    root: str  # absolute workspace folder the path is relative to
    path: str
    lang: str
    span: Span  # the best match: what a client jumps to and selects (`selection` on the wire)
    chunk_lines: tuple[int, int]  # 0-based inclusive lines of the whole chunk
    title: str
    kind: str
    symbol: str | None
    container: str | None
    snippet: Snippet
    score: float
    retrieval: Retrieval
    file_id: str = ""  # stable handles (`search.handles`); chunk_id is the chunk's
    symbol_id: str | None = None
    selection: Span | None = None  # kept for callers that set the match apart from `span`
    citation: Span | None = None  # the cited definition's or chunk's span (`location.range`)
    chunk_kind: str = ""  # definition, code, section, text; usage for a usage hit
    ref: dict[str, Any] | None = None  # a usage hit: the ref's kind, name and receiver


@dataclass(slots=True)
class Candidate:
    """A ranked chunk before it becomes a hit: priors re-score candidates, and only the ones
    that make the cut pay for a snippet and a citation."""

    row: ChunkRow
    score: float
    retrieval: Retrieval
    focus: Span | None = None  # exact-text hits: where the text is, which the citation is
    #: 0 for a lexical hit that holds every term (and every hit of the other channels), 1 for
    #: one of the any-term fill: priors re-rank within a tier, never across
    #: (`search.priors.apply`).
    tier: int = 0
    #: (ord in its file, definition): the definition with no chunk of its own that a kind
    #: filter kept this chunk for, which the hit stands for (`search.held`).
    held: tuple[int, Symbol] | None = None


@dataclass(slots=True)
class Meta:
    mode: str
    intent: dict[str, str] | None = None
    total_matches: int = 0
    count_accuracy: str = "exact"
    recall: dict[str, Any] = field(
        default_factory=lambda: {"complete": True, "ranking_scope": "all_matches",
                                 "truncated": False}
    )
    score: dict[str, Any] = field(
        default_factory=lambda: {"kind": "bm25_normalized", "direction": "higher_is_better"}
    )
    index: dict[str, Any] = field(default_factory=dict)
    query_plan: str = ""
    warnings: list[str] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class FileMatch:
    """A file found by its file vector: the `files` group's own channel (see
    `search.grouping`)."""

    root: str
    path: str
    score: float  # cosine similarity of the file vector, clamped to [0, 1]
    rank: int  # 1-based within the channel


@dataclass(slots=True)
class SearchResult:
    hits: list[Hit]
    meta: Meta
    # Only for a grouped request (`group`) whose plan reads vectors.
    files: list[FileMatch] = field(default_factory=list)

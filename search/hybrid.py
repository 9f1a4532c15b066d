"""Reciprocal-rank fusion of the lexical and vector arms.

Both arms rank the same unit, chunks keyed by `chunk_id`, so a chunk found by both fuses
into one hit. Ties break by lexical rank (a found-by-words hit before one that was not), then
by chunk id: deterministic.

One query-dependent weight: when only a handful of chunks hold every word of the query, those
matches are near-certain (a sentence rarely lands whole anywhere by chance), so they count
`SELECTIVE_WEIGHT` times in fusion. Measured with `kebab eval`: docstring questions gain 0.01–0.03
MRR@10 on every tree, where plain RRF let a weaker vector arm dilute an exact hit; a wider rule
(any all-terms match) cost the doc-blanked sets, where short all-terms matches are chance.
The fused score is normalized so that a chunk ranked first by every arm, at full weight,
scores exactly 1.0.

A long definition is several chunks, and the two arms often find different ones: the words of
a question in its third chunk, its meaning in its first. Fused chunk by chunk, each piece has
one arm's vote and loses to any other chunk that has two weak ones. So `fuse_units` fuses
definitions: each arm ranks a definition at its best chunk, and the definition is one hit,
shown as its chunk of code with the best fused score of its own (a doc comment cut off above
the definition shows it only when none of its code was found); its other chunks, which would
cite the same definition again, are left out. `vector` mode ranks through it with one arm,
for the same reason. Measured with `kebab eval`: see the README's Quality section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from indexing.store import ChunkRow

DEFAULT_K_RRF = 60
#: At most this many chunks holding every term make those chunks near-certain evidence.
SELECTIVE_MATCHES = 3
SELECTIVE_WEIGHT = 1.5


def lexical_weight(complete: int) -> float:
    """The fusion weight of the lexical hits that hold every term, given how many do."""
    return SELECTIVE_WEIGHT if 0 < complete <= SELECTIVE_MATCHES else 1.0


@dataclass(frozen=True, slots=True)
class Fused:
    chunk_id: str
    score: float
    lexical_rank: int | None
    vector_rank: int | None


def rrf(
    lexical: Mapping[str, int], vector: Mapping[str, int], k_rrf: int = DEFAULT_K_RRF,
    lexical_weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """`lexical` and `vector` map chunk id to 1-based rank within that arm; `lexical_weights`
    (default 1.0) scale a lexical hit's share."""
    weights = lexical_weights or {}
    norm = (max(weights.values(), default=1.0) + 1.0) / (k_rrf + 1)
    fused: list[Fused] = []
    for cid in set(lexical) | set(vector):
        lr, vr = lexical.get(cid), vector.get(cid)
        raw = (weights.get(cid, 1.0) / (k_rrf + lr) if lr else 0.0) + (
            1.0 / (k_rrf + vr) if vr else 0.0)
        fused.append(Fused(cid, raw / norm, lr, vr))
    big = 1 << 30
    fused.sort(key=lambda f: (-f.score, f.lexical_rank or big, f.chunk_id))
    return fused


@dataclass(frozen=True, slots=True)
class FusedUnit:
    """A definition (or a chunk outside any) after fusion: `chunk_id` is the chunk that shows
    it, `lexical_chunk`/`vector_chunk` the chunks each arm ranked it by (None: not found)."""

    chunk_id: str
    score: float
    lexical_rank: int | None  # the unit's rank among units, in each arm
    vector_rank: int | None
    lexical_chunk: str | None
    vector_chunk: str | None


def unit_of(row: ChunkRow) -> str:
    """What a chunk votes for in fusion: its definition (every chunk of one definition shares
    it), or the chunk itself when it belongs to none."""
    if row.symbol is not None and row.symbol_ord is not None:
        return f"definition:{row.file_rowid}:{row.symbol_ord}"
    return row.chunk_id


def above_its_code(row: ChunkRow) -> bool:
    """A chunk of a definition that ends above the definition's first line: a doc comment
    long enough to be cut into chunks of its own (Rust's `///`, Go's and Java's comments sit
    outside the definition's range)."""
    return row.symbol is not None and row.end_line < row.symbol.range.start_line


def _unit_ranks(order: Sequence[str], unit_of: Mapping[str, str]) -> dict[str, tuple[int, str]]:
    """unit -> (1-based rank among units, its best chunk), from one arm's chunk order."""
    out: dict[str, tuple[int, str]] = {}
    for cid in order:
        out.setdefault(unit_of.get(cid, cid), (len(out) + 1, cid))
    return out


def fuse_units(
    lexical: Sequence[str], vector: Sequence[str], unit_of: Mapping[str, str],
    k_rrf: int = DEFAULT_K_RRF, lexical_weights: Mapping[str, float] | None = None,
    above_code: AbstractSet[str] = frozenset(),
) -> list[FusedUnit]:
    """RRF over units (definitions) instead of chunks. `lexical` and `vector` are each arm's
    chunk ids, best first; `unit_of` maps a chunk to its unit (a chunk it does not map is a
    unit of its own); `lexical_weights` are per chunk, and a unit takes its best. Each unit is
    shown by its chunk with the best chunk-level fusion score among those that hold its code:
    a chunk in `above_code` (a long doc comment cut off above its definition's first line)
    shows it only when no chunk of its code was found, as a citation of the comment alone
    does not point at the code it describes."""
    weights = lexical_weights or {}
    unit_weights: dict[str, float] = {}
    for cid, w in weights.items():
        u = unit_of.get(cid, cid)
        unit_weights[u] = max(unit_weights.get(u, w), w)
    lex_units, vec_units = _unit_ranks(lexical, unit_of), _unit_ranks(vector, unit_of)
    by_unit = {f.chunk_id: f for f in rrf({u: r for u, (r, _) in lex_units.items()},
                                          {u: r for u, (r, _) in vec_units.items()}, k_rrf,
                                          unit_weights)}
    chunk_level = rrf({c: i + 1 for i, c in enumerate(lexical)},
                      {c: i + 1 for i, c in enumerate(vector)}, k_rrf, weights)
    shown: dict[str, str] = {}
    for f in chunk_level:
        unit = unit_of.get(f.chunk_id, f.chunk_id)
        if unit not in shown or (shown[unit] in above_code and f.chunk_id not in above_code):
            shown[unit] = f.chunk_id
    out: list[FusedUnit] = []
    for unit, fused in by_unit.items():
        lex, vec = lex_units.get(unit), vec_units.get(unit)
        out.append(FusedUnit(shown[unit], fused.score, lex[0] if lex else None,
                             vec[0] if vec else None, lex[1] if lex else None,
                             vec[1] if vec else None))
    big = 1 << 30
    out.sort(key=lambda u: (-u.score, u.lexical_rank or big, u.chunk_id))
    return out


def fuse_rows(
    lexical: Sequence[ChunkRow], vector: Sequence[ChunkRow], k_rrf: int = DEFAULT_K_RRF,
    lexical_weights: Mapping[str, float] | None = None,
) -> list[FusedUnit]:
    """`fuse_units` over each arm's chunks, best first, with the units and the doc comments
    above their code read off the chunks themselves."""
    rows = [*lexical, *vector]
    return fuse_units([r.chunk_id for r in lexical], [r.chunk_id for r in vector],
                      {r.chunk_id: unit_of(r) for r in rows}, k_rrf, lexical_weights,
                      {r.chunk_id for r in rows if above_its_code(r)})

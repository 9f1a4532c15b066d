"""`kebab/symbol`: one definition described from its handle: signature, doc, the definition
that contains it, the ones it contains, and how often its name is used, by kind.

Ref counts are by name, like every usage answer (refs are syntax, not resolved types).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.records import Span, Symbol
from indexing.store import LookupStore
from search.handles import ResolvedSymbol, file_handle, symbol_handle


@dataclass(frozen=True, slots=True)
class Related:
    symbol_id: str
    symbol: Symbol


@dataclass(slots=True)
class SymbolInfo:
    symbol_id: str
    file_id: str
    chunk_id: str | None
    root: str
    path: str
    lang: str
    symbol: Symbol
    parent: Related | None
    children: list[Related]
    ref_counts: dict[str, int] = field(default_factory=dict)


def _encloses(outer: Span, inner: Span) -> bool:
    return ((outer.start_line, outer.start_col) <= (inner.start_line, inner.start_col)
            and (inner.end_line, inner.end_col) <= (outer.end_line, outer.end_col)
            and outer != inner)


def _size(span: Span) -> tuple[int, int]:
    return span.end_line - span.start_line, span.end_col - span.start_col


def describe(store: LookupStore, root: str, found: ResolvedSymbol) -> SymbolInfo:
    file = found.file
    siblings = store.symbols_of_file(file.rowid)
    target = found.symbol

    def handle(ord_: int) -> str:
        return symbol_handle(file.rowid, file.path, file.hash, ord_)

    def parent_of(ord_: int, sym: Symbol) -> int | None:
        around = [(o, s) for o, s in siblings if o != ord_ and _encloses(s.range, sym.range)]
        return min(around, key=lambda item: _size(item[1].range))[0] if around else None

    up = parent_of(found.ord, target)
    parent = next((Related(handle(o), s) for o, s in siblings if o == up), None)
    children = [Related(handle(o), s) for o, s in siblings
                if o != found.ord and parent_of(o, s) == found.ord]
    chunk = store.chunk_of_symbol(file.rowid, found.ord)
    counts = store.ref_counts(target.name)
    return SymbolInfo(
        symbol_id=found.handle, file_id=file_handle(file.rowid, file.path, file.hash),
        chunk_id=chunk.chunk_id if chunk else None, root=root, path=file.path, lang=file.lang,
        symbol=target, parent=parent, children=children, ref_counts=counts)

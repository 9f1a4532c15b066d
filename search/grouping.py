"""Grouped answers (`group: true`): the same hits as definitions, files and blocks.

- `definitions`: hits on a definition's own chunk, best first;
- `blocks`: every other hit (code between definitions, sections, text, usages), best first;
- `files`: one row per file that has a hit, in the order of its best hit, with what a reader
  wants before opening it: language, the doc at the top of the file, what it imports and
  the definitions at its top level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from indexing.records import Symbol
from indexing.store import Store
from search.handles import file_handle, symbol_handle
from search.top_doc import top_doc
from search.types import Hit


@dataclass(slots=True)
class FileGroup:
    root: str
    path: str
    lang: str
    file_id: str
    doc: str
    imports: list[str]
    defines: list[tuple[str, Symbol]]  # (symbol_id, symbol) of its top-level definitions
    score: float
    hits: int = 0


@dataclass(slots=True)
class Grouped:
    definitions: list[Hit] = field(default_factory=list)
    files: list[FileGroup] = field(default_factory=list)
    blocks: list[Hit] = field(default_factory=list)


def group(hits: list[Hit], store_of: Callable[[str], Store | None]) -> Grouped:
    out = Grouped()
    files: dict[tuple[str, str], FileGroup] = {}
    for hit in hits:
        (out.definitions if hit.chunk_kind == "definition" else out.blocks).append(hit)
        key = (hit.root, hit.path)
        row = files.get(key)
        if row is None:
            store = store_of(hit.root)
            made = _file_group(store, hit) if store is not None else None
            if made is None:
                continue
            row = files[key] = made
            out.files.append(row)
        row.hits += 1
    return out


def _file_group(store: Store, hit: Hit) -> FileGroup | None:
    file = store.file_by_path(hit.path)
    if file is None:
        return None
    text = store.file_text_of(file.rowid) or ""
    defines = [(symbol_handle(file.rowid, file.path, file.hash, ord_), sym)
               for ord_, sym in store.symbols_of_file(file.rowid) if sym.container is None]
    return FileGroup(root=hit.root, path=file.path, lang=file.lang,
                     file_id=file_handle(file.rowid, file.path, file.hash),
                     doc=top_doc(text), imports=store.imports_of(file.rowid), defines=defines,
                     score=hit.score)

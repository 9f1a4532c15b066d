"""Grouped answers (`group: true`): the same hits as definitions, files and blocks.

- `definitions`: hits on a definition's own chunk, best first;
- `blocks`: every other hit (code between definitions, sections, text, usages), best first;
- `files`: one row per file, with what a reader wants before opening it: language, the doc
  at the top of the file, what it imports and the definitions at its top level. The files
  come from two channels: the files of the hits, in the order of each one's best hit, and,
  when the search read vectors, the files nearest by their file vector (path, top doc and
  outline; `SearchResult.files`), which find a file whose whole is about the question though
  no snippet of it is. Both rankings are fused by reciprocal rank, as hybrid fuses hits, and
  each row says where it came from. Without a file channel the order is the hits' order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from indexing.records import Symbol
from indexing.store import FileFacts
from indexing.store.retrieval import Checkpoint, go_on
from indexing.top_doc import top_doc
from search.handles import file_handle, symbol_handle
from search.hybrid import DEFAULT_K_RRF
from search.scores import kept
from search.types import FileMatch, Hit


@dataclass(slots=True)
class FileGroup:
    root: str
    path: str
    lang: str
    file_id: str
    doc: str
    imports: list[str]
    defines: list[tuple[str, Symbol]]  # (symbol_id, symbol) of its top-level definitions
    score: float  # its best hit's score, or its file vector's similarity when it has no hit
    hits: int = 0
    hit_rank: int | None = None  # its place among the files of the hits
    vector_rank: int | None = None  # its place in the file-vector channel
    vector_score: float | None = None
    fusion_score: float | None = None  # when a file channel ran: what orders the files


@dataclass(slots=True)
class Grouped:
    definitions: list[Hit] = field(default_factory=list)
    files: list[FileGroup] = field(default_factory=list)
    blocks: list[Hit] = field(default_factory=list)


def group(hits: list[Hit], store_of: Callable[[str, str], FileFacts | None],
          file_matches: Sequence[FileMatch] = (), check: Checkpoint = go_on) -> Grouped:
    """`store_of(root, path)`: the index that answers for a file as hits cite it. Asked per
    file, not per root: a team index and a checkout's local index split one root
    (`search.overlay`), and a file's facts must come from the index its hits came from.

    `check` runs before each file's facts are read: each is a file's whole text, its
    definitions and imports, and an answer of a few hundred hits cites as many files, so a
    request given up on stops at the next file, not after the last."""
    out = Grouped()
    files: dict[tuple[str, str], FileGroup | None] = {}  # None: no index holds the file
    wanted = {(h.root, h.path) for h in hits} | {(m.root, m.path) for m in file_matches}

    def row_of(root: str, path: str, score: float) -> FileGroup | None:
        """The file's row, made (in order of first sight) when its facts were not read yet."""
        if (root, path) not in files:
            check("grouping, reading each file's facts", len(files), len(wanted))
            row = files[(root, path)] = _file_group(store_of, root, path, score)
            if row is not None:
                out.files.append(row)
        return files[(root, path)]

    for hit in hits:
        (out.definitions if hit.chunk_kind == "definition" else out.blocks).append(hit)
        row = row_of(hit.root, hit.path, hit.score)
        if row is None:
            continue
        if row.hit_rank is None:
            row.hit_rank = len(out.files)
        row.hits += 1
    if not file_matches:
        return out
    for match in file_matches:
        row = row_of(match.root, match.path, match.score)
        if row is not None:
            row.vector_rank, row.vector_score = match.rank, kept(match.score)
    for row in out.files:
        row.fusion_score = kept(sum(1.0 / (DEFAULT_K_RRF + rank)
                                    for rank in (row.hit_rank, row.vector_rank)
                                    if rank is not None))
    out.files.sort(key=lambda r: (-(r.fusion_score or 0.0), r.root, r.path))
    return out


def _file_group(store_of: Callable[[str, str], FileFacts | None], root: str, path: str,
                score: float) -> FileGroup | None:
    store = store_of(root, path)
    file = store.file_by_path(path) if store is not None else None
    if store is None or file is None:
        return None
    text = store.file_text_of(file.rowid) or ""
    defines = [(symbol_handle(file.rowid, file.path, file.hash, ord_), sym)
               for ord_, sym in store.symbols_of_file(file.rowid) if sym.container is None]
    return FileGroup(root=root, path=file.path, lang=file.lang,
                     file_id=file_handle(file.rowid, file.path, file.hash),
                     doc=top_doc(text), imports=store.imports_of(file.rowid), defines=defines,
                     score=score)

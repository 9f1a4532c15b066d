"""`kebab/context`: a block and its neighbours in the same file, in line order, so a client
(or an agent) can read around a hit without opening the file."""

from __future__ import annotations

from dataclasses import dataclass

from indexing.store import ChunkRow, LookupStore


@dataclass(frozen=True, slots=True)
class Context:
    root: str
    before: list[ChunkRow]
    target: ChunkRow
    after: list[ChunkRow]


def around(store: LookupStore, root: str, target: ChunkRow, before: int, after: int) -> Context:
    blocks = store.chunks_of_file(target.file_rowid)
    index = next((i for i, c in enumerate(blocks) if c.chunk_id == target.chunk_id), None)
    if index is None:  # written between the two reads: the target alone
        return Context(root, [], target, [])
    return Context(root, blocks[max(0, index - before) : index], target,
                   blocks[index + 1 : index + 1 + after])

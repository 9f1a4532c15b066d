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
    """The `before` blocks above the target and the `after` below it. A block inside the
    target (a short class's methods, when the class is one block) is the target's own code,
    not a neighbour: reading on from a class gave its methods again. A block that holds the
    target (its class) stays: it is where the target sits."""
    blocks = store.chunks_of_file(target.file_rowid)
    index = next((i for i, c in enumerate(blocks) if c.chunk_id == target.chunk_id), None)
    if index is None:  # written between the two reads: the target alone
        return Context(root, [], target, [])
    earlier = [c for c in blocks[:index] if not _inside(c, target)]
    later = [c for c in blocks[index + 1 :] if not _inside(c, target)]
    return Context(root, earlier[max(0, len(earlier) - before) :], target, later[:after])


def _inside(block: ChunkRow, target: ChunkRow) -> bool:
    """The block's lines are among the target's; pieces of one long line are not inside one
    another (they hold other columns of it)."""
    if block.start_line == block.end_line == target.start_line == target.end_line:
        return False
    return target.start_line <= block.start_line and block.end_line <= target.end_line

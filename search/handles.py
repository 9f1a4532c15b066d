"""Stable handles: ids a client keeps from one answer and passes back in the next request.

A handle is valid while its file is unchanged, and a stale one is an error that says so; it
never resolves to another entity's data. Each handle carries a digest of the file's path and
content hash, checked on every use:

- `file_id`:   `F<file row>.<digest>`
- `symbol_id`: `S<file row>.<ordinal of the definition in its file>.<digest>`
- `chunk_id`:  the chunk id itself, already derived from path, first line and text.

Row ids alone are not enough (SQLite may reuse one for another file), and the digest alone
would need a scan to find its row; together they are one indexed lookup and one comparison.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from search.types import InvalidQuery

if TYPE_CHECKING:  # types only: checking a handle's shape needs no store (`kebab mcp` starts thin)
    from indexing.records import Symbol
    from indexing.store import ChunkRow, FileRow, LookupStore

_FILE = re.compile(r"^F(\d{1,18})\.([0-9a-f]{10})$")
_SYMBOL = re.compile(r"^S(\d{1,18})\.(\d{1,9})\.([0-9a-f]{10})$")
_CHUNK = re.compile(r"^[0-9a-f]{16}$")


class StaleHandle(InvalidQuery):
    """A well-formed handle whose entity is gone: its file changed, moved or was removed."""


def digest(path: str, content_hash: str) -> str:
    data = f"{path}\0{content_hash}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=5).hexdigest()


def file_handle(rowid: int, path: str, content_hash: str) -> str:
    return f"F{rowid}.{digest(path, content_hash)}"


def symbol_handle(rowid: int, path: str, content_hash: str, ord_: int) -> str:
    return f"S{rowid}.{ord_}.{digest(path, content_hash)}"


def chunk_handles(row: ChunkRow) -> tuple[str, str | None]:
    """(file_id, symbol_id) of a stored chunk; symbol_id None when no definition owns it."""
    file_id = file_handle(row.file_rowid, row.path, row.file_hash)
    if row.symbol_ord is None:
        return file_id, None
    return file_id, symbol_handle(row.file_rowid, row.path, row.file_hash, row.symbol_ord)


@dataclass(frozen=True, slots=True)
class ResolvedSymbol:
    file: FileRow
    ord: int
    symbol: Symbol
    handle: str


def check_symbol_handle(handle: object) -> tuple[int, int, str]:
    if not isinstance(handle, str) or (found := _SYMBOL.match(handle)) is None:
        raise InvalidQuery(f"'symbol_id' must be a symbol handle from a kebab answer "
                           f"(like 'S12.3.0123456789'), got {handle!r}")
    return int(found.group(1)), int(found.group(2)), found.group(3)


def check_chunk_handle(handle: object) -> str:
    if not isinstance(handle, str) or _CHUNK.match(handle) is None:
        raise InvalidQuery(f"'chunk_id' must be a chunk handle from a kebab answer "
                           f"(16 hex digits), got {handle!r}")
    return handle


def check_file_handle(handle: object) -> tuple[int, str]:
    if not isinstance(handle, str) or (found := _FILE.match(handle)) is None:
        raise InvalidQuery(f"'file_id' must be a file handle from a kebab answer "
                           f"(like 'F12.0123456789'), got {handle!r}")
    return int(found.group(1)), found.group(2)


def _live_file(store: LookupStore, rowid: int, want: str) -> FileRow | None:
    row = store.file_by_rowid(rowid)
    if row is None or digest(row.path, row.hash) != want:
        return None
    return row


def resolve_symbol(store: LookupStore, handle: str) -> ResolvedSymbol | None:
    """The definition a handle names in this store, or None when it is not (or no longer)
    here; the caller, which may hold several folders, says it is stale."""
    rowid, ord_, want = check_symbol_handle(handle)
    file = _live_file(store, rowid, want)
    if file is None:
        return None
    symbol = store.symbol_by_ord(rowid, ord_)
    return ResolvedSymbol(file, ord_, symbol, handle) if symbol is not None else None


def resolve_file(store: LookupStore, handle: str) -> FileRow | None:
    rowid, want = check_file_handle(handle)
    return _live_file(store, rowid, want)


def resolve_chunk(store: LookupStore, handle: str) -> ChunkRow | None:
    row = store.chunks_by_ids([check_chunk_handle(handle)]).get(handle)
    return store.with_texts([row])[0] if row is not None else None


def stale(what: str, handle: str) -> StaleHandle:
    return StaleHandle(f"the {what} handle {handle!r} is stale: its file changed, moved or was "
                       "removed since the handle was issued (or it was never issued by this "
                       "server); search again for a fresh one")

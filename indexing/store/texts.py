"""How text is stored: once, and compressed.

An index holds every indexed file's text (exact-text search confirms in it, and evaluation
reads it). A chunk's text is, nearly always, some of those lines again; storing it a second
time made chunks three quarters of the indexed text's size, and the files' text another time
that. So:

- `file_text.text` is packed (`pack_text`): plain TEXT when short, else a BLOB of blocks of
  `BLOCK_LINES` lines, each zlib-compressed on its own. The SQL function `unpack()` reads it
  whole.
- `chunks.text` is NULL when the chunk's text is exactly its lines of the file
  (`chunking.join_lines`), which is every chunk but the pieces of very long lines; the SQL
  function `chunk_text()` then cuts it out of the file's text, inflating only the blocks that
  hold its lines (a chunk costs tens of microseconds, not a whole file's inflation). Otherwise
  it is packed too.

Blocks cost little ratio: Django's text packs 3.25x in blocks of 128 lines, 3.95x whole.

A stored value that no longer inflates or decodes raises inside the statement reading it, so
the store counts it as damage like SQLite's own corruption errors.
"""

from __future__ import annotations

import struct
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from indexing.chunking import join_lines, split_lines

#: Below this, zlib's header and dictionary cost more than they save.
PACK_MIN_CHARS = 200
#: zlib's default: about 3.3x on code against 2.6x at level 1, and packing runs in the parse
#: pool's workers. Inflating is equally fast at every level.
PACK_LEVEL = 6
#: Lines per independently compressed block.
BLOCK_LINES = 128

Packed = str | bytes

# A packed BLOB: lines per block, block count, each block's compressed length (little-endian
# unsigned 32-bit), then the blocks. Joining the blocks' texts with "\n" gives the text back.
_HEAD = struct.Struct("<II")
_LENGTH = struct.Struct("<I")


class DamagedText(ValueError):
    """A stored text that cannot be read back (the store counts it as damage)."""


def pack_text(text: str) -> Packed:
    """Text to store in a column `unpack_text` reads: plain when short, else packed."""
    if len(text) < PACK_MIN_CHARS:
        return text
    lines = split_lines(text)
    blocks = [zlib.compress("\n".join(lines[i : i + BLOCK_LINES]).encode(
        "utf-8", "surrogatepass"), PACK_LEVEL) for i in range(0, len(lines), BLOCK_LINES)]
    head = _HEAD.pack(BLOCK_LINES, len(blocks)) + b"".join(_LENGTH.pack(len(b))
                                                            for b in blocks)
    return head + b"".join(blocks)


class _Blocks:
    """A packed BLOB, read a block at a time."""

    __slots__ = ("lines_per_block", "_blob", "_starts", "_cache")

    def __init__(self, blob: bytes) -> None:
        try:
            self.lines_per_block, count = _HEAD.unpack_from(blob)
            lengths = struct.unpack_from(f"<{count}I", blob, _HEAD.size)
        except struct.error as exc:
            raise DamagedText(f"a packed text's header is cut short ({exc})") from exc
        offset = _HEAD.size + 4 * count
        self._starts = [offset]
        for length in lengths:
            self._starts.append(self._starts[-1] + length)
        if self.lines_per_block < 1 or self._starts[-1] != len(blob):
            raise DamagedText("a packed text's blocks do not add up to its length")
        self._blob = blob
        self._cache: dict[int, list[str]] = {}

    @property
    def count(self) -> int:
        return len(self._starts) - 1

    def text(self, index: int) -> str:
        data = self._blob[self._starts[index] : self._starts[index + 1]]
        try:
            return zlib.decompress(data).decode("utf-8", "surrogatepass")
        except (zlib.error, UnicodeDecodeError) as exc:
            raise DamagedText(f"block {index} of a packed text does not inflate ({exc})") from exc

    def block(self, index: int) -> list[str]:
        lines = self._cache.get(index)
        if lines is None:
            lines = self._cache[index] = split_lines(self.text(index))
        return lines

    def lines(self, start: int, end: int) -> list[str]:
        """Lines `start..end` (inclusive, 0-based) of the text."""
        first, last = start // self.lines_per_block, end // self.lines_per_block
        if start < 0 or end < start or last >= self.count:
            raise DamagedText(f"lines {start}-{end} are outside a packed text")
        out: list[str] = []
        for index in range(first, last + 1):
            out.extend(self.block(index))
        skip = start - first * self.lines_per_block
        wanted = out[skip : skip + end - start + 1]
        if len(wanted) != end - start + 1:
            raise DamagedText(f"lines {start}-{end} are outside a packed text")
        return wanted


def unpack_text(value: Packed | None) -> str | None:
    """A stored text column: TEXT as is, a packed BLOB inflated (`pack_text`)."""
    if isinstance(value, bytes):
        blocks = _Blocks(value)
        return "\n".join(blocks.text(i) for i in range(blocks.count))
    return value


def chunk_text_to_store(text: str, lines: list[str], start_line: int, end_line: int
                        ) -> Packed | None:
    """What `chunks.text` holds for a chunk of `text` over `start_line..end_line` of a file
    split into `lines`: None when the file's lines give exactly that text back."""
    if 0 <= start_line <= end_line < len(lines) and join_lines(lines, start_line,
                                                               end_line) == text:
        return None
    return pack_text(text)


#: Files a connection keeps (packed, with the blocks it inflated) while reading chunks: reads
#: go in path order, and a hit list rarely spans more files than this.
_FILES_CACHED = 32


def chunk_text_function(raw: Any) -> Callable[..., str | None]:
    """The SQL function `chunk_text(c.text, c.file_id, f.hash, c.start_line, c.end_line)` on
    the apsw connection `raw`: the stored text, or the chunk's lines cut out of its file's
    text. Files are cached per (file id, content hash), so a rewritten file (new hash) is never
    served from an old entry."""
    cache: OrderedDict[tuple[int, str], _Blocks | list[str]] = OrderedDict()

    def chunk_text(stored: Packed | None, file_id: int, digest: str, start: int,
                   end: int) -> str | None:
        if stored is not None:
            return unpack_text(stored)
        key = (file_id, digest)
        text = cache.get(key)
        if text is None:
            row = raw.execute("SELECT text FROM file_text WHERE file_id=?",
                              (file_id,)).fetchone()
            if row is None:
                raise DamagedText(f"file {file_id} has chunks but no text")
            value = row[0]
            text = _Blocks(value) if isinstance(value, bytes) else split_lines(value)
            cache[key] = text
            if len(cache) > _FILES_CACHED:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        if isinstance(text, _Blocks):
            return join_lines(text.lines(start, end), 0, end - start)
        if not 0 <= start <= end < len(text):
            raise DamagedText(f"chunk lines {start}-{end} are outside file {file_id}'s text")
        return join_lines(text, start, end)

    return chunk_text

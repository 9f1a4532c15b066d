"""Refs in the store, and the lookups that stable handles resolve through.

Refs are many (Django: 1.1 million, nine for each definition or chunk), so they are stored
packed: a row per ref, with indexes on name and file, had made them 1.4 times the rest of the
index (94 MB of Django's 161 MB); packed they are 16 MB of 83 MB.

- `ref_files`: one row per file with refs, all of them in one value (`pack_refs`): the file's
  distinct names and call receivers once, deflated, then a *group* per name: its refs kind by
  kind, each kind in position order, lines delta-coded as varints, the enclosing definition
  only where it changes, the end only where it is not the name's own width. Under 4 bytes a
  ref.
- `ref_names`: which files hold a name: (name, file, where the name's group starts, its count
  of each kind), keyed by name (WITHOUT ROWID: the table is its own index). A lookup by name
  reads those rows and decodes only that group of each file; counts by kind are a sum.

A name holding whitespace (a string of prose) gets no `ref_names` row: no usage question can ask
for one (`search.usage.usage_name`), and they are most of the distinct names' bytes. Such refs
stay in their file's value, so a lookup of one still answers exactly, by reading every file's
refs (Django: 65 ms).

A file's refs are written with its other rows (inside `Writes.write_file`) and deleted with
them, so they are exactly as current as its symbols and chunks. Reads: the refs of a name
(cheap keys for all of them, full rows only for the ones an answer shows), counts by kind, the
name at a position, and a file, symbol or chunk by the parts of its handle. A stored value that
does not decode is damage, like SQLite's own corruption errors.
"""

from __future__ import annotations

import re
import struct
import zlib
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from operator import itemgetter
from typing import Any, NamedTuple

from indexing.filters import Filters
from indexing.positions import split_lines, utf16_len
from indexing.records import Ref, RefKind, Span, Symbol
from indexing.store.connection import StoreConnection
from indexing.store.retrieval import _filter_sql
from indexing.store.rows import (
    CHUNK_COLUMNS,
    CHUNK_FROM,
    NAME_SPAN_COLUMNS,
    SYMBOL_COLUMNS,
    ChunkRow,
    chunk_from,
    symbol_from,
)
from indexing.store.texts import DamagedText, Packed, _Blocks

#: Rank of a ref kind in a usage answer: imports and calls before bare mentions, strings last.
KIND_RANK: dict[str, int] = {RefKind.CALL: 0, RefKind.IMPORT: 0, RefKind.IDENTIFIER: 1,
                             RefKind.STRING: 2}

#: The kinds in the order a group holds them, and of `ref_names`' count columns.
KINDS: tuple[str, ...] = (RefKind.IMPORT.value, RefKind.CALL.value, RefKind.IDENTIFIER.value,
                          RefKind.STRING.value)
_KIND_INDEX = {kind: i for i, kind in enumerate(KINDS)}
_STRING = _KIND_INDEX[RefKind.STRING.value]
_COUNT_COLUMNS = ("imports", "calls", "identifiers", "strings")
#: A string's span is its content's and the two quotes around it.
_QUOTES = 2
#: Below this many bytes, deflating a file's names saves nothing.
_DEFLATE_MIN = 64
_SPACE = re.compile(r"\s")


class DamagedRefs(DamagedText):
    """A file's stored refs that cannot be read back (the store counts it as damage)."""


#: What reading a damaged value can raise (DamagedRefs is a ValueError).
_DECODE_ERRORS = (IndexError, ValueError, zlib.error, struct.error)


def indexed_name(name: str) -> bool:
    """Whether `name` has `ref_names` rows: every name but the empty one and those holding
    whitespace, which only a scan of every file's refs finds. What is stored depends on it:
    changing it needs a new `SCHEMA_VERSION`."""
    return bool(name) and _SPACE.search(name) is None


# -- the packed form ---------------------------------------------------------------------------
#
# A file's value: varint (section length << 1 | deflated), the section (`_pack_section`: the
# names in group order, each group's length and the call receivers; raw deflate when that is
# smaller), then the groups. A group: a byte with bit k set when kind k (`KINDS`) is present,
# a varint count per present kind, then each present kind's refs in position order, each as
#   varint (line - previous line of this kind) << 2 | definition changed << 1 | extra
#   varint start column
#   [definition changed] varint (ordinal of the enclosing definition + 1, 0 for none)
#   [extra] varint flags: 1 an explicit end follows (varint end line - line, varint end
#           column), 2 a receiver follows (varint index into the receivers)
# Without an explicit end a ref ends on its line, after the name (and a string's two quotes).


def _put(out: bytearray, value: int) -> None:
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)  # a negative value raises here: positions are never negative


def _get(buf: bytes, i: int) -> tuple[int, int]:
    """The varint at `buf[i]` and the index after it (IndexError past the end)."""
    byte = buf[i]
    if byte < 0x80:
        return byte, i + 1
    value, shift = byte & 0x7F, 7
    i += 1
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, i
        shift += 7


#: A ref's position (start line, start column, end line, end column), as a sort key.
_POSITION = itemgetter(2, 3, 4, 5)


class PackedRefs(NamedTuple):
    """A file's refs as stored: its `ref_files` value, and its `ref_names` rows as (name,
    group offset, imports, calls, identifiers, strings)."""

    blob: bytes
    names: list[tuple[str, int, int, int, int, int]]


def pack_refs(refs: Sequence[Ref]) -> PackedRefs | None:
    """A file's refs in their stored form (see above); None when it has none."""
    if not refs:
        return None
    groups: dict[str, list[list[Ref]]] = {}
    for ref in refs:
        kinds = groups.get(ref.name)
        if kinds is None:
            kinds = groups[ref.name] = [[], [], [], []]
        kinds[_KIND_INDEX[ref.kind]].append(ref)
    receivers: dict[str, int] = {}
    body = bytearray()
    names = sorted(groups)
    lengths: list[int] = []
    rows: list[tuple[str, int, int, int, int, int]] = []
    for name in names:
        kinds = groups[name]
        imports, calls, identifiers, strings = kinds
        at = len(body)
        body.append((1 if imports else 0) | (2 if calls else 0) | (4 if identifiers else 0)
                    | (8 if strings else 0))
        for found in kinds:
            if found:
                _put(body, len(found))
        width = utf16_len(name)
        symbol: int | None = None
        for k, found in enumerate(kinds):
            if len(found) > 1:
                found.sort(key=_POSITION)
            line = 0
            pad = width + (_QUOTES if k == _STRING else 0)
            for _name, _kind, start_line, start_col, end_line, end_col, ord_, receiver in found:
                changed = ord_ != symbol
                explicit = end_line != start_line or end_col != start_col + pad
                extra = explicit or receiver is not None
                value = (start_line - line) << 2 | changed << 1 | extra
                if 0 <= value < 0x80:  # one byte, nearly always
                    body.append(value)
                else:
                    _put(body, value)
                if 0 <= start_col < 0x80:
                    body.append(start_col)
                else:
                    _put(body, start_col)
                if changed:
                    symbol = ord_
                    _put(body, 0 if ord_ is None else ord_ + 1)
                if extra:
                    _put(body, explicit | (receiver is not None) << 1)
                    if explicit:
                        _put(body, end_line - start_line)
                        _put(body, end_col)
                    if receiver is not None:
                        _put(body, receivers.setdefault(receiver, len(receivers)))
                line = start_line
        lengths.append(len(body) - at)
        if name.isidentifier() or indexed_name(name):
            rows.append((name, at, len(imports), len(calls), len(identifiers), len(strings)))
    section = _pack_section(names, lengths, list(receivers))
    stored, deflated = section, 0
    if len(section) >= _DEFLATE_MIN:
        small = zlib.compress(section, 6, wbits=-15)  # raw deflate: no header, no checksum
        if len(small) < len(section):
            stored, deflated = small, 1
    head = bytearray()
    _put(head, len(stored) << 1 | deflated)
    return PackedRefs(bytes(head) + stored + bytes(body), rows)


#: Fixed-width unsigned little-endian integers, by width code (see `_pack_section`).
_WIDTHS = ("B", "H", "I")


def _width(values: Sequence[int]) -> int:
    top = max(values, default=0)
    return 0 if top < 1 << 8 else 1 if top < 1 << 16 else 2


def _pack_section(names: Sequence[str], lengths: Sequence[int],
                  receivers: Sequence[str]) -> bytes:
    """The names, their groups' lengths and the receivers, laid out to be read back in C
    time: varint name count, varint receiver count, a byte of width codes (groups' lengths,
    then the names' and receivers' lengths in characters, 2 bits each), the groups' lengths,
    then the characters' lengths, all fixed-width little-endian, then every name and receiver
    in a row, UTF-8."""
    strings = [*names, *receivers]
    sizes = [len(text) for text in strings]
    group_code, size_code = _width(lengths), _width(sizes)
    out = bytearray()
    _put(out, len(names))
    _put(out, len(receivers))
    out.append(group_code | size_code << 2)
    out += struct.pack(f"<{len(lengths)}{_WIDTHS[group_code]}", *lengths)
    out += struct.pack(f"<{len(sizes)}{_WIDTHS[size_code]}", *sizes)
    out += "".join(strings).encode("utf-8", "surrogatepass")
    return bytes(out)


def _body_start(blob: bytes) -> int:
    head, i = _get(blob, 0)
    return i + (head >> 1)


def _section_data(blob: bytes) -> tuple[bytes, int]:
    """A value's section, inflated, and where its groups start."""
    head, i = _get(blob, 0)
    base = i + (head >> 1)
    data = blob[i:base]
    return (zlib.decompress(data, -15) if head & 1 else data), base


class _Section:
    """A file's names and receivers, read back; names are cut out of their text on demand."""

    __slots__ = ("base", "count", "starts", "_text", "_offsets", "_names")

    def __init__(self, blob: bytes, data: bytes | None = None) -> None:
        """`data`: the section, when `_section_data` read it already."""
        #: Where the groups start in the value.
        data, self.base = _section_data(blob) if data is None else (data, _body_start(blob))
        self.count, j = _get(data, 0)
        receivers, j = _get(data, j)
        codes = data[j]
        group_code, size_code = codes & 3, codes >> 2
        if group_code > 2 or size_code > 2:
            raise DamagedRefs(f"a file's refs have width codes {codes}")
        lengths = struct.unpack_from(f"<{self.count}{_WIDTHS[group_code]}", data, j + 1)
        j += 1 + self.count * struct.calcsize(_WIDTHS[group_code])
        sizes = struct.unpack_from(f"<{self.count + receivers}{_WIDTHS[size_code]}", data, j)
        j += (self.count + receivers) * struct.calcsize(_WIDTHS[size_code])
        self._text = data[j:].decode("utf-8", "surrogatepass")
        self._offsets = list(accumulate(sizes, initial=0))
        #: Where each name's group starts, from the first group, and (last) where they end.
        self.starts = list(accumulate(lengths, initial=0))
        if self._offsets[-1] != len(self._text) or self.base + self.starts[-1] != len(blob):
            raise DamagedRefs("a file's refs do not add up to their length")
        self._names: list[str] | None = None

    def name(self, index: int) -> str:
        return self._text[self._offsets[index] : self._offsets[index + 1]]

    def receiver(self, index: int) -> str:
        return self.name(self.count + index)

    @property
    def names(self) -> list[str]:
        if self._names is None:
            text, offsets = self._text, self._offsets
            self._names = [text[offsets[i] : offsets[i + 1]] for i in range(self.count)]
        return self._names

    def group_of(self, at: int) -> int | None:
        """The index of the name whose group starts at `at`, if one does."""
        index = bisect_left(self.starts, at)
        return index if index < self.count and self.starts[index] == at else None


#: A decoded ref: (kind index, start line, start column, end line, end column, ordinal of the
#: enclosing definition or None, receiver index or None).
_Decoded = tuple[int, int, int, int, int, int | None, int | None]


def _counts(blob: bytes, pos: int) -> list[int]:
    """How many refs of each kind the group at `pos` holds."""
    mask = blob[pos]
    pos += 1
    out = [0, 0, 0, 0]
    for k in range(4):
        if mask >> k & 1:
            out[k], pos = _get(blob, pos)
    return out


def _group(blob: bytes, pos: int, width: int) -> list[_Decoded]:
    """The refs of the group at `pos`, of a name `width` UTF-16 units wide."""
    mask = blob[pos]
    pos += 1
    if not 0 < mask < 16:
        raise DamagedRefs(f"a group of refs has kinds {mask}")
    counts = []
    for k in range(4):
        if mask >> k & 1:
            count, pos = _get(blob, pos)
            counts.append((k, count))
    out: list[_Decoded] = []
    symbol: int | None = None
    for k, count in counts:
        line = 0
        pad = width + (_QUOTES if k == _STRING else 0)
        for _ in range(count):
            head = blob[pos]  # one byte, nearly always: read inline
            if head < 0x80:
                pos += 1
            else:
                head, pos = _get(blob, pos)
            col = blob[pos]
            if col < 0x80:
                pos += 1
            else:
                col, pos = _get(blob, pos)
            line += head >> 2
            if head & 2:
                value, pos = _get(blob, pos)
                symbol = value - 1 if value else None
            if head & 1:
                flags, pos = _get(blob, pos)
                end_line, end_col, receiver = line, col + pad, None
                if flags & 1:
                    delta, pos = _get(blob, pos)
                    end_line = line + delta
                    end_col, pos = _get(blob, pos)
                if flags & 2:
                    receiver, pos = _get(blob, pos)
                out.append((k, line, col, end_line, end_col, symbol, receiver))
            else:
                out.append((k, line, col, line, col + pad, symbol, None))
    return out


def unpack_refs(blob: bytes) -> list[tuple[str, str, str | None, int, int, int, int,
                                           int | None]]:
    """Every ref of a packed value, as (name, kind, receiver, start line, start column, end
    line, end column, ordinal of the enclosing definition), group by group. Raises
    DamagedRefs when the value does not decode."""
    try:
        section = _Section(blob)
        return [(name, KINDS[k], None if receiver is None else section.receiver(receiver),
                 line, col, end_line, end_col, symbol)
                for name, at in zip(section.names, section.starts[:-1], strict=True)
                for k, line, col, end_line, end_col, symbol, receiver in _group(
                    blob, section.base + at, utf16_len(name))]
    except DamagedRefs:
        raise
    except _DECODE_ERRORS as exc:
        raise DamagedRefs(f"stored refs do not decode ({type(exc).__name__}: {exc})") from exc


def _line_of(stored: Packed, line: int) -> str | None:
    """Line `line` of a stored file text (`texts.pack_text`), inflating only its block; None
    past the end."""
    if line < 0:
        return None
    if isinstance(stored, bytes):
        blocks = _Blocks(stored)
        index, offset = divmod(line, blocks.lines_per_block)
        lines = blocks.block(index) if index < blocks.count else []
    else:
        lines, offset = split_lines(stored), line
    return lines[offset] if offset < len(lines) else None


# -- writing -----------------------------------------------------------------------------------


def insert_refs(conn: Any, file_id: int, refs: Sequence[Ref],
                packed: PackedRefs | None = None) -> None:
    """Store a file's refs (`packed` when the caller packed them already)."""
    packed = packed if packed is not None else pack_refs(refs)
    if packed is None:
        return
    conn.execute("INSERT INTO ref_files(file_id, refs) VALUES (?,?)", (file_id, packed.blob))
    conn.executemany(
        "INSERT INTO ref_names(name, file_id, at, imports, calls, identifiers, strings) "
        "VALUES (?,?,?,?,?,?,?)",
        [(name, file_id, at, *counts) for name, at, *counts in packed.names])


def delete_refs(conn: Any, file_id: int) -> None:
    """Drop a file's refs: its `ref_names` rows are found from the names in its value.
    Raises DamagedRefs when that value does not decode."""
    row = conn.execute("SELECT refs FROM ref_files WHERE file_id = ?", (file_id,)).fetchone()
    if row is None:
        return
    try:
        names = _Section(row[0]).names
    except _DECODE_ERRORS as exc:
        raise DamagedRefs(f"the refs of file {file_id} do not decode ({exc})") from exc
    conn.executemany("DELETE FROM ref_names WHERE name = ? AND file_id = ?",
                     [(name, file_id) for name in names if indexed_name(name)])
    conn.execute("DELETE FROM ref_files WHERE file_id = ?", (file_id,))


# -- reading -----------------------------------------------------------------------------------


def _key(file_id: int, at: int, index: int) -> int:
    """A ref's `rowid`: its file, its group's offset and its place in the group. Valid while
    its file is unchanged, like every row id; only `refs_by_rowid` reads it."""
    return file_id << 64 | at << 32 | index


@dataclass(frozen=True, slots=True)
class RefKey:
    """What ordering a usage answer needs, for every matching ref."""

    rowid: int
    path: str
    kind: str
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class RefRow:
    """A ref with its file, enclosing definition and the smallest chunk around it."""

    rowid: int
    path: str
    lang: str
    name: str
    kind: str
    receiver: str | None
    span: Span
    file_rowid: int
    file_hash: str
    symbol: Symbol | None
    symbol_ord: int | None
    chunk_id: str | None


@dataclass(frozen=True, slots=True)
class FileRow:
    rowid: int
    path: str
    hash: str
    lang: str


class Refs(StoreConnection):
    def _damaged(self, exc: Exception) -> Exception:
        return self.damaged_read(f"stored refs do not decode ({type(exc).__name__}: {exc})")

    def _groups_of(self, name: str, filters: Filters, kinds: frozenset[int] | None
                   ) -> Iterator[tuple[int, str, bytes, int]]:
        """(file id, path, packed refs, offset of the name's group in them) of every file
        holding `name` that the filters' languages and path allow."""
        where, args = _filter_sql(replace(filters, kinds=()))
        if not indexed_name(name):  # no ref_names rows: read every file's refs
            needle = name.encode("utf-8", "surrogatepass")
            for file_id, path, blob in self.conn.execute(
                    "SELECT f.id, f.path, r.refs FROM ref_files r JOIN files f "
                    f"ON f.id = r.file_id WHERE 1{where}", args).fetchall():
                data, _base = _section_data(blob)
                if needle not in data:  # in C time: most files are passed over here
                    continue
                section = _Section(blob, data)
                if name in section.names:
                    yield (file_id, path, blob,
                           section.base + section.starts[section.names.index(name)])
            return
        if kinds is not None:
            where += " AND (" + " OR ".join(f"p.{_COUNT_COLUMNS[k]} > 0" for k in kinds) + ")"
        for file_id, path, blob, at, *counts in self.conn.execute(
                "SELECT p.file_id, f.path, r.refs, p.at, p.imports, p.calls, p.identifiers, "
                "p.strings FROM ref_names p JOIN files f ON f.id = p.file_id "
                f"JOIN ref_files r ON r.file_id = p.file_id WHERE p.name = ?{where}",
                (name, *args)).fetchall():
            pos = _body_start(blob) + at
            if _counts(blob, pos) != counts:
                raise DamagedRefs(f"the refs of {name!r} in file {file_id} are not where "
                                  "ref_names says")
            yield file_id, path, blob, pos

    def ref_keys(self, name: str, filters: Filters, kinds: Sequence[str] = ()) -> list[RefKey]:
        """Every ref of `name` (exact, case-sensitive), in no particular order."""
        wanted = frozenset(_KIND_INDEX[k] for k in kinds if k in _KIND_INDEX) if kinds else None
        if wanted is not None and not wanted:
            return []
        inside: set[tuple[int, int]] | None = None  # (file, definition) the kinds filter allows
        if filters.kinds:
            inside = {(r[0], r[1]) for r in self.conn.execute(
                "SELECT s.file_id, s.ord FROM symbols s WHERE s.file_id IN "
                "(SELECT file_id FROM ref_names WHERE name = ?) "
                f"AND s.kind IN ({','.join('?' * len(filters.kinds))})",
                (name, *filters.kinds))} if indexed_name(name) else {
                (r[0], r[1]) for r in self.conn.execute(
                    "SELECT s.file_id, s.ord FROM symbols s "
                    f"WHERE s.kind IN ({','.join('?' * len(filters.kinds))})", filters.kinds)}
        width = utf16_len(name)
        out: list[RefKey] = []
        try:
            for file_id, path, blob, pos in self._groups_of(name, filters, wanted):
                at = pos - _body_start(blob)
                for index, (k, line, col, _el, _ec, symbol, _r) in enumerate(
                        _group(blob, pos, width)):
                    if wanted is not None and k not in wanted:
                        continue
                    if inside is not None and (symbol is None or (file_id, symbol)
                                               not in inside):
                        continue
                    out.append(RefKey(_key(file_id, at, index), path, KINDS[k], line, col))
        except _DECODE_ERRORS as exc:
            raise self._damaged(exc) from exc
        return out

    def refs_by_rowid(self, rowids: Sequence[int]) -> dict[int, RefRow]:
        out: dict[int, RefRow] = {}
        for start in range(0, len(rowids), 300):
            try:
                out.update(self._rows(rowids[start : start + 300]))
            except _DECODE_ERRORS as exc:
                raise self._damaged(exc) from exc
        return out

    def _rows(self, rowids: Sequence[int]) -> Iterator[tuple[int, RefRow]]:
        """The refs of some keys: three statements, whatever the number of files."""
        conn = self.conn
        by_file: dict[int, list[int]] = {}
        for rowid in rowids:
            by_file.setdefault(rowid >> 64, []).append(rowid)
        files = {r[0]: r[1:] for r in conn.execute(
            "SELECT f.id, f.path, f.lang, f.hash, r.refs FROM files f JOIN ref_files r "
            f"ON r.file_id = f.id WHERE f.id IN ({','.join('?' * len(by_file))})",
            list(by_file))}
        found: list[tuple[int, int, str, str | None, _Decoded]] = []
        for file_id, keys in by_file.items():
            if file_id not in files:
                continue
            blob = files[file_id][3]
            section = _Section(blob)
            groups: dict[int, list[_Decoded]] = {}
            for rowid in keys:
                at, index = rowid >> 32 & 0xFFFFFFFF, rowid & 0xFFFFFFFF
                gi = section.group_of(at)
                if gi is None:
                    continue
                name = section.name(gi)
                group = groups.get(at)
                if group is None:
                    group = groups[at] = _group(blob, section.base + at, utf16_len(name))
                if index < len(group):
                    ref = group[index]
                    found.append((rowid, file_id, name, None if ref[6] is None
                                  else section.receiver(ref[6]), ref))
        if not found:
            return
        places = sorted({(file_id, ref[1]) for _, file_id, _, _, ref in found})
        # The smallest chunk around each ref's line, as the row-per-ref table's query chose it.
        chunks = {(r[0], r[1]): r[2] for r in conn.execute(
            f"WITH place(file_id, line) AS (VALUES {','.join(['(?,?)'] * len(places))}) "
            "SELECT p.file_id, p.line, (SELECT c.chunk_id FROM chunks c WHERE "
            "c.file_id = p.file_id AND c.start_line <= p.line AND c.end_line >= p.line "
            "ORDER BY c.end_line - c.start_line, c.start_line LIMIT 1) FROM place p",
            [v for place in places for v in place])}
        owners = sorted({(file_id, ref[5]) for _, file_id, _, _, ref in found
                         if ref[5] is not None})
        symbols = {(r[0], r[1]): symbol_from(r[2:]) for r in conn.execute(
            f"WITH owner(file_id, ord) AS (VALUES {','.join(['(?,?)'] * len(owners))}) "
            f"SELECT s.file_id, s.ord, {SYMBOL_COLUMNS} FROM owner o JOIN symbols s "
            "ON s.file_id = o.file_id AND s.ord = o.ord",
            [v for owner in owners for v in owner])} if owners else {}
        for rowid, file_id, name, receiver, (k, line, col, end_line, end_col, ord_, _) in found:
            path, lang, digest, _blob = files[file_id]
            symbol = symbols.get((file_id, ord_)) if ord_ is not None else None
            yield rowid, RefRow(
                rowid=rowid, path=path, lang=lang, name=name, kind=KINDS[k], receiver=receiver,
                span=Span(line, col, end_line, end_col), file_rowid=file_id, file_hash=digest,
                symbol=symbol, symbol_ord=ord_ if symbol is not None else None,
                chunk_id=chunks.get((file_id, line)))

    def ref_counts(self, name: str) -> dict[str, int]:
        """How many refs of `name` there are, by kind."""
        if indexed_name(name):
            sums = self.conn.execute(
                "SELECT " + ", ".join(f"coalesce(sum({c}), 0)" for c in _COUNT_COLUMNS)
                + " FROM ref_names WHERE name = ?", (name,)).fetchone()
            counts = dict(zip(KINDS, sums, strict=True))
        else:
            counts = dict.fromkeys(KINDS, 0)
            for key in self.ref_keys(name, Filters()):
                counts[key.kind] += 1
        return {kind: counts[kind] for kind in sorted(counts) if counts[kind]}

    def _file_refs(self, where: str, arg: object) -> tuple[bytes, _Section] | None:
        row = self.conn.execute(f"SELECT r.refs FROM ref_files r JOIN files f ON "
                                f"f.id = r.file_id WHERE {where}", (arg,)).fetchone()
        if row is None:
            return None
        try:
            return row[0], _Section(row[0])
        except _DECODE_ERRORS as exc:
            raise self._damaged(exc) from exc

    # -- what handles resolve through ------------------------------------------------------------

    def file_by_rowid(self, rowid: int) -> FileRow | None:
        r = self.conn.execute("SELECT id, path, hash, lang FROM files WHERE id = ?",
                              (rowid,)).fetchone()
        return FileRow(*r) if r else None

    def file_by_path(self, path: str) -> FileRow | None:
        r = self.conn.execute("SELECT id, path, hash, lang FROM files WHERE path = ?",
                              (path,)).fetchone()
        return FileRow(*r) if r else None

    def symbol_by_ord(self, file_rowid: int, ord_: int) -> Symbol | None:
        r = self.conn.execute(f"SELECT {SYMBOL_COLUMNS} FROM symbols s WHERE s.file_id = ? "
                              "AND s.ord = ?", (file_rowid, ord_)).fetchone()
        return symbol_from(r) if r else None

    def symbols_of_file(self, file_rowid: int) -> list[tuple[int, Symbol]]:
        """(ord, symbol) of every definition in a file, in position order."""
        return [(r[0], symbol_from(r[1:])) for r in self.conn.execute(
            f"SELECT s.ord, {SYMBOL_COLUMNS} FROM symbols s WHERE s.file_id = ? ORDER BY s.ord",
            (file_rowid,))]

    def chunks_of_file(self, file_rowid: int) -> list[ChunkRow]:
        """A file's chunks in line order."""
        return [chunk_from(r) for r in self.conn.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.file_id = ? "
            "ORDER BY c.start_line, c.end_line, c.chunk_id", (file_rowid,))]

    def chunk_of_symbol(self, file_rowid: int, ord_: int) -> ChunkRow | None:
        """The first chunk of a definition."""
        r = self.conn.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.file_id = ? AND s.ord = ? "
            "ORDER BY c.start_line LIMIT 1", (file_rowid, ord_)).fetchone()
        return chunk_from(r) if r else None

    def file_text_of(self, file_rowid: int) -> str | None:
        r = self.conn.execute("SELECT unpack(text) FROM file_text WHERE file_id = ?",
                              (file_rowid,)).fetchone()
        return str(r[0]) if r else None

    def name_at(self, path: str, line: int, col: int) -> str | None:
        """The name used or defined at a position of a file (its end counts: a cursor just
        after a word is on it), or None."""
        best: tuple[int, str] | None = None
        row = self.conn.execute(
            "SELECT r.refs, t.text FROM files f JOIN ref_files r ON r.file_id = f.id "
            "JOIN file_text t ON t.file_id = f.id WHERE f.path = ?", (path,)).fetchone()
        if row is not None:
            try:
                blob, section = row[0], _Section(row[0])
                text = _line_of(row[1], line)
                # A ref's name is its own text on its line (a string's, between its quotes),
                # so only the groups of names that line holds are decoded.
                for gi, name in enumerate(section.names):
                    if text is None or (name not in text and "\n" not in name):
                        continue
                    for k, start_line, start_col, _el, end_col, _s, _r in _group(
                            blob, section.base + section.starts[gi], utf16_len(name)):
                        if (k != _STRING and start_line == line and start_col <= col <= end_col
                                and (best is None or start_col > best[0])):
                            best = (start_col, name)
            except _DECODE_ERRORS as exc:
                raise self._damaged(exc) from exc
        if best is not None:
            return best[1]
        found = self.conn.execute(
            "SELECT s.name FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? "
            "AND s.sel_start_line = ? AND s.sel_start_col <= ? AND s.sel_end_col >= ? "
            "ORDER BY s.sel_start_col DESC LIMIT 1", (path, line, col, col)).fetchone()
        return str(found[0]) if found else None

    def definitions_named(self, name: str) -> list[tuple[str, Symbol]]:
        """(path, symbol) of every definition of `name`, in path order."""
        return [(r[0], symbol_from(r[1:])) for r in self._named(SYMBOL_COLUMNS, name)]

    def definition_places(self, name: str) -> list[tuple[str, Span]]:
        """(path, span of its name) of every definition of `name`, in path order: what a
        search that names it reads, on every identifier query, without building symbols
        (`definitions_named` of Django's 911 `__init__` takes 11 ms)."""
        return [(r[0], Span(*r[1:])) for r in self._named(NAME_SPAN_COLUMNS, name)]

    def _named(self, columns: str, name: str) -> Iterator[tuple[Any, ...]]:
        """The path and `columns` of every definition of `name`, in path order."""
        return self.conn.execute(
            f"SELECT f.path, {columns} FROM symbols s JOIN files f ON f.id = s.file_id "
            "WHERE s.name = ? ORDER BY f.path, s.ord", (name,))

    def imports_of(self, file_rowid: int, limit: int = 100) -> list[str]:
        """The names a file imports, first occurrence first."""
        stored = self._file_refs("f.id = ?", file_rowid)
        if stored is None:
            return []
        blob, section = stored
        found: list[tuple[int, int, str]] = []
        try:
            for name, at in zip(section.names, section.starts[:-1], strict=True):
                if blob[section.base + at] & 1:  # the group holds imports (kind 0)
                    found.extend((line, col, name) for k, line, col, *_ in _group(
                        blob, section.base + at, utf16_len(name)) if k == 0)
        except _DECODE_ERRORS as exc:
            raise self._damaged(exc) from exc
        found.sort(key=lambda item: (item[0], item[1]))
        return list(dict.fromkeys(name for _, _, name in found))[:limit]

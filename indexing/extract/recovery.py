"""Files a grammar misreads as a whole, parsed again one top-level block at a time.

Tree-sitter recovers from most syntax it does not know inside the construct that holds it, but
not always: tree-sitter-typescript reads an interface of generic call signatures on
consecutive lines (`<T>(fn: T): T`, then `<T>(name: string, fn: T): T`) as one expression,
and its recovery puts the whole file into one ERROR node. Every definition in such a file was
lost: 15 of the 40 exported types of @reduxjs/toolkit's `listenerMiddleware/types.ts` (the
whole file, 975 lines) and all of mobx's `api/action.ts`.

Such a file is cut before each line that starts at column 0 after a blank line (where
top-level declarations start, with the comments directly above them), and each block is
parsed on its own over the file's bytes (`indexing.extract.embedded`), so nodes keep their
true positions. The blocks are used only when they leave less than half as many lines in
ERROR nodes as the whole file does: a cut inside a multi-line string or a block that needs
its neighbour parses worse, and then the file keeps its one parse. Languages whose package
statement qualifies the definitions after it (Go, Perl, PHP) keep it too: a block would not
see its package.

Before that, a file in a language with `macro_lines` (C, C++, Objective-C) is parsed again
without the lines that hold only a macro at column 0: tree-sitter-objc reads
`NS_ASSUME_NONNULL_BEGIN` above an `@interface` as the start of a declaration and the whole
interface as errors, so a header gave no definition at all. The lines are left out of the
parse (its included ranges), not changed, so every node keeps its position; the new parse is
used only when it leaves fewer lines in ERROR nodes, and a line above a name and its
parameters stays, as it is that declaration's type (`WIN_HANDLE` above `open_thing(void);`).
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from tree_sitter import Range

from indexing.chunking import LineSpan
from indexing.extract.embedded import Region, parse_region
from indexing.language_rules import language_rules
from indexing.positions import SourceText

if TYPE_CHECKING:
    from tree_sitter import Node

#: Fewer lines in ERROR nodes than this cost no definition worth a second parse.
MIN_ERROR_LINES = 5
#: A file cut into more blocks than this, or whose blocks take longer than this to parse, is
#: not tried: hostile or generated text (a megabyte of garbage is 250k blocks, and parsing
#: them all took a minute where the whole file took five seconds).
MAX_BLOCKS = 1000
MAX_CPU_SECONDS = 1.0
_CLOSERS = frozenset(")]}>")
#: A line that starts with a name and its parameters: the macro line above it is the type of
#: that declaration (`WIN_HANDLE` above `open_thing(void);`), not a line to leave out.
_CALLED_NAME = re.compile(r"\w+\s*\(")


def error_lines(root: Node) -> int:
    """Lines inside the outermost ERROR nodes under `root` (missing nodes count one)."""
    total = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error:
            total += node.end_point.row - node.start_point.row + 1
        elif node.is_missing:
            total += 1
        elif node.has_error:
            stack.extend(node.children)
    return total


def without_macro_lines(lang: str, src: SourceText, root: Node) -> list[Region] | None:
    """The whole file as one region that leaves out its macro lines (see the module
    docstring), or None when it has none or the parse is no better without them."""
    pattern = language_rules(lang).macro_lines
    if pattern is None:
        return None
    lines = src.lines
    skipped = [i for i, line in enumerate(lines) if pattern.fullmatch(line)
               and not (i + 1 < len(lines) and _CALLED_NAME.match(lines[i + 1]))]
    if not skipped:
        return None
    starts = _line_starts(src.data)
    ranges: list[Range] = []
    at = 0  # the first line not yet in a range
    for i in [*skipped, len(starts)]:
        if i > at:
            end_byte = starts[i] if i < len(starts) else len(src.data)
            end_point = (i, 0) if i < len(starts) else (i - 1, end_byte - starts[i - 1])
            ranges.append(Range((at, 0), end_point, starts[at], end_byte))
        at = i + 1
    if not ranges:
        return None
    region = Region(lang, tuple(ranges), (0, len(src.lines) - 1))
    parsed = parse_region(src, region)
    if error_lines(parsed) >= error_lines(root):
        return None
    return [replace(region, root=parsed)]


def top_level_blocks(lines: list[str]) -> list[LineSpan]:
    """Spans covering every line, each starting at line 0 or at a line that starts at column 0
    after a blank line (a closing bracket continues the block before it)."""
    starts = [i for i, line in enumerate(lines)
              if i == 0 or (line[:1].strip() and line[0] not in _CLOSERS
                            and not lines[i - 1].strip())]
    return [(a, b - 1) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]


def isolated_regions(lang: str, src: SourceText, root: Node) -> list[Region] | None:
    """The file's top-level blocks as regions of its own language, or None when the whole
    parse serves as well (see the module docstring)."""
    whole = error_lines(root)
    if whole < MIN_ERROR_LINES or language_rules(lang).package_node is not None:
        return None
    blocks = top_level_blocks(src.lines)
    if not 2 <= len(blocks) <= MAX_BLOCKS:
        return None
    started = time.thread_time()
    starts = _line_starts(src.data)
    regions: list[Region] = []
    left = 0
    for first, last in blocks:
        end_byte = starts[last + 1] if last + 1 < len(starts) else len(src.data)
        end_point = (last + 1, 0) if last + 1 < len(starts) else (last, end_byte - starts[last])
        region = Region(lang, (Range((first, 0), end_point, starts[first], end_byte),),
                        (first, last))
        root = parse_region(src, region)
        left += error_lines(root)
        if 2 * left >= whole or time.thread_time() - started > MAX_CPU_SECONDS:
            return None
        regions.append(replace(region, root=root))  # the extraction reads this parse
    return regions


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    at = data.find(b"\n")
    while at >= 0:
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts

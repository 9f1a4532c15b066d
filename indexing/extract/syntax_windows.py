"""Windows over a file's lines that follow its syntax tree: a chunk never starts or ends in
the middle of a construct.

A chunk is valid when every multi-line named node it touches either lies wholly inside it or
wholly holds it: it may be a whole statement or several, or a part of a function's body, but
never the end of one statement and the start of the next one's lines. A node starts with the
comments directly above it (they belong to it), and a node that starts on the same line as
its parent starts where its parent does (the body whose brace opens on a class's line), as
does a body on the lines below its header (Python's indented block, or the body after a
signature over several lines).

For each boundary between two lines, the innermost node spanning it is all that matters:
the chunk on either side must lie inside it. So a run of lines is cut greedily: each window
reaches as far as the size limits allow, then back to the last line after which a cut is
valid. Splitting a large definition this way keeps its header (decorators, signature, doc)
with as many of its first statements as fit, and cuts the rest of the body between its
statements; a node with no such line (a huge string) is cut inside itself, which is valid
too. Only when no valid cut exists within four times the limits (a single
construct that large, with nothing inside to cut between) is a window cut where it must be.

No overlap between windows is needed: nothing is cut in half. The limits are read from
`indexing.chunking` at call time. `tests/unit/test_syntax_chunks.py` checks the rule for
every language with a grammar.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import TYPE_CHECKING

from indexing import chunking
from indexing.chunking import LineSpan, window_chunks
from indexing.extract.nodes import end_row
from indexing.records import Chunk, ChunkKind

if TYPE_CHECKING:
    from tree_sitter import Node

#: How far past the limits a window may reach to end at a valid cut.
_STRETCH = 4


class SyntaxWindows:
    """The windows of one parsed file."""

    def __init__(self, lines: list[str], root: Node) -> None:
        self.lines = lines
        self.root = root
        self._costs = [0, *accumulate(min(len(line), chunking.MAX_LINE_CHARS) + 1
                                       for line in lines)]
        self._boundaries = _Boundaries(root, lines)

    def chunks(
        self, span: LineSpan, kind: ChunkKind, symbol: int | None = None, context: str = "",
        *, definition: bool = False,
    ) -> list[Chunk]:
        """Chunks covering every non-blank line of `span`, none cutting a construct; sized by
        the definition limits (`MAX_DEF_*`) or the code ones (`WINDOW_*`)."""
        trimmed = chunking.trim_blank(self.lines, *span)
        if trimmed is None:
            return []
        if definition:
            limits = (chunking.MAX_DEF_LINES, chunking.MAX_DEF_CHARS)
        else:
            limits = (chunking.WINDOW_LINES, chunking.WINDOW_CHARS)
        found: list[Chunk] = []
        for start, end in self.spans(*trimmed, *limits):
            found.extend(window_chunks(self.lines, (start, end), kind, symbol, context,
                                       max_lines=end - start + 1, max_chars=1 << 62))
        return found

    def spans(self, lo: int, hi: int, max_lines: int, max_chars: int) -> list[LineSpan]:
        """Line spans covering [lo, hi], each within the limits where a valid cut allows."""
        inner = self._boundaries
        out: list[LineSpan] = []
        start = lo
        while start <= hi:
            reach = self._reach(start, hi, max_lines, max_chars)
            end = inner.last_valid_end(start, reach)
            if end is None:
                far = self._reach(start, hi, max_lines * _STRETCH, max_chars * _STRETCH)
                end = next((e for e in range(reach + 1, far + 1) if inner.valid(start, e)), reach)
            out.append((start, end))
            start = end + 1
        return out

    def _reach(self, start: int, hi: int, max_lines: int, max_chars: int) -> int:
        """The last line a window from `start` may hold: within both limits, at least one."""
        by_chars = bisect_right(self._costs, self._costs[start] + max_chars) - 2
        return max(start, min(hi, start + max_lines - 1, by_chars))


class _Boundaries:
    """For a boundary between two lines, the first and last line of the innermost multi-line
    named node that spans it (None: no constraint), looked up when asked and kept. A node of
    nothing but whitespace (Typst's paragraph break) is no construct."""

    def __init__(self, root: Node, lines: list[str]) -> None:
        self.root = root
        self.lines = lines
        self._found: dict[int, tuple[int, int] | None] = {}
        self._tops: dict[int, Node] = {}  # node id -> outermost ancestor starting on its row

    def valid(self, start: int, end: int) -> bool:
        """Whether a window over lines start..end lies inside the innermost node spanning
        each of its two boundaries (those that close a run count too: the lines beyond are
        another chunk's)."""
        before = self.spanning(start - 1)
        if before is not None and before[1] < end:
            return False
        after = self.spanning(end)
        return after is None or after[0] <= start

    def last_valid_end(self, start: int, reach: int) -> int | None:
        """The last line up to `reach` where a window from `start` may end; None if none.
        Jumps rather than tries every line: a window cannot reach past the node around its
        start, and cannot end inside a node that begins after it, nor anywhere in that node."""
        before = self.spanning(start - 1)
        end = min(reach, before[1]) if before is not None else reach
        while end >= start:
            after = self.spanning(end)
            if after is None or after[0] <= start:
                return end
            end = after[0] - 1
        return None

    def spanning(self, row: int) -> tuple[int, int] | None:
        """The innermost node spanning the boundary after line `row`."""
        if row < 0 or row + 1 >= len(self.lines):
            return None
        if row in self._found:
            return self._found[row]
        line = self.lines[row].rstrip()
        width = len(line.encode("utf-8", "surrogatepass"))
        node: Node | None = self.root.named_descendant_for_point_range((row, width), (row + 1, 0))
        while node is not None and not _constrains(node, row):
            node = node.parent
        found = None if node is None else (self._first_row(node), end_row(node))
        commented = self._commented(row, width)  # inside `node`, so the inner one
        if commented is not None:
            found = commented
        self._found[row] = found
        return found

    def _first_row(self, node: Node) -> int:
        """Where a node starts: with the comments directly above it, and where its parent
        starts when it starts on its parent's line (a body whose brace opens on a class's
        line), up to the outermost node starting on that line. That ancestor is kept for
        every node on the way up: in a long left-nested chain (`a + b + c ...` over
        thousands of lines) every boundary's node starts on the first line, and walking up
        from each again (a parent costs a walk from the root) took minutes for 8 KB."""
        row = node.start_point.row
        path: list[Node] = []
        top = node
        while (known := self._tops.get(top.id)) is None:
            parent = top.parent
            if parent is None or parent.start_point.row != row:
                break
            path.append(top)
            top = parent
        if known is not None:
            top = known
        for step in path:
            self._tops[step.id] = top
        first = min(_leading_comments(node), _leading_comments(top))
        parent = node.parent
        if parent is not None and _is_body(node):  # not its first statement
            first = min(first, self._first_row(parent))
        return first

    def _commented(self, row: int, width: int) -> tuple[int, int] | None:
        """A multi-line node whose comments (decorators, attributes) above it end on `row`: it
        starts with them."""
        if width == 0:
            return None
        node: Node | None = self.root.named_descendant_for_point_range(
            (row, width - 1), (row, width))
        while node is not None and not _leads(node):
            if node.start_point.row != row or node.parent is None:
                return None
            node = node.parent
        after = node.next_named_sibling if node is not None else None
        last = row
        while after is not None and _leads(after):
            if after.start_point.row > last + 1:
                return None
            last = end_row(after)
            after = after.next_named_sibling
        if after is None or after.start_point.row > last + 1:
            return None
        if end_row(after) <= after.start_point.row:
            return None
        return self._first_row(after), end_row(after)


#: Nodes that hold all the statements of the body they sit in (Go's and Swift's braces hold
#: one of these, not the statements themselves): they go with the body's header too.
_STATEMENT_LISTS = frozenset({"statement_list", "statements"})


def _is_body(node: Node) -> bool:
    """Whether `node` is the body of its parent (its `body` field, the name grammars give the
    block a definition or loop opens), or the statement list a body holds. A body on the lines
    below its header (Python's, Lua's and Ruby's indented blocks, or after a signature over
    several lines) belongs to that header as a brace body opening on the header's line does:
    cut off, every long Python function's first chunk was its `def` line alone, a class's its
    `class` line, and a Go function's its signature, the doc and body in the next chunk."""
    parent = node.parent
    if parent is None:
        return False
    if node.type in _STATEMENT_LISTS and _is_body(parent):
        return True
    body = parent.child_by_field_name("body")
    return body is not None and body.id == node.id


def _constrains(node: Node, row: int) -> bool:
    """A named node with content on both sides of the boundary after `row`."""
    if not node.is_named or node.start_point.row > row or end_row(node) <= row:
        return False
    return bool(node.child_count or (node.text or b"").strip())


#: Nodes that open the definition after them, as siblings: Python's decorators (inside a
#: `decorated_definition`) and Rust's outer attributes. Cut off, a long definition's header
#: chunk was `@classmethod` alone, and its summary and whole-definition vectors hung on it.
_LEADING = frozenset({"decorator", "attribute_item"})


def _leads(node: Node) -> bool:
    """A comment, decorator or attribute: it belongs to the node right below it."""
    return node.type.endswith("comment") or node.type in _LEADING


def _leading_comments(node: Node) -> int:
    """The first line of the comments, decorators and attributes directly above `node`, or its
    own first line."""
    row = node.start_point.row
    before = node.prev_named_sibling
    while before is not None and _leads(before) and end_row(before) >= row - 1:
        row = before.start_point.row
        before = before.prev_named_sibling
    return row

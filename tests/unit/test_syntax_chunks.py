"""Chunks follow the syntax tree: in every language with a grammar, no chunk cuts a named node
in half, that is holds some of its lines while reaching past its first or last line.

The files are the hand-written ones under `tests/fixtures/languages/<lang>/`. The limits are
shrunk so that they must be split (a handful of lines a chunk): the cuts are then everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from extract_support import run

from indexing import chunking
from indexing.detect import detect_language
from indexing.extract.nodes import end_row
from indexing.grammars import get_parser
from indexing.languages import catalog
from indexing.records import Extraction

if TYPE_CHECKING:
    from tree_sitter import Node

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"


def samples() -> list[Path]:
    return sorted(p for p in FIXTURES.glob("*/*") if p.suffix != ".expected")


@pytest.fixture
def small_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunking, "WINDOW_LINES", 4)
    monkeypatch.setattr(chunking, "WINDOW_CHARS", 160)
    monkeypatch.setattr(chunking, "MAX_DEF_LINES", 6)
    monkeypatch.setattr(chunking, "MAX_DEF_CHARS", 240)


def leading_comments_row(node: Node) -> int:
    """Where a node starts counting the comments, decorators (Python) and attributes (Rust)
    directly above it, which belong to it."""
    row = node.start_point.row
    before = node.prev_named_sibling
    while (before is not None and end_row(before) >= row - 1
           and (before.type.endswith("comment") or before.type in ("decorator", "attribute_item"))):
        row = before.start_point.row
        before = before.prev_named_sibling
    return row


def is_body(node: Node) -> bool:
    """A body (a `body` field, or the statement list one holds, as Go's `statement_list`)
    goes with its header however many lines below it starts."""
    parent = node.parent
    if parent is None:
        return False
    return (node == parent.child_by_field_name("body")
            or (node.type in ("statement_list", "statements") and is_body(parent)))


def cut_nodes(lang: str, text: str, ex: Extraction) -> list[str]:
    """Every (chunk, node) where the chunk holds part of a multi-line named node and reaches
    past it. A node starts with the comments (and decorators, attributes) directly above the
    line it starts on: they belong to what starts there (a class, and the body whose brace
    opens on its line). A body starts with its header, on that line or above (Python's
    indented block). A node of nothing but whitespace (a paragraph break) is no construct."""
    root = get_parser(lang).parse(text.encode("utf-8")).root_node
    assert not root.has_error, "the sample is meant to be valid, realistic code"
    spans: list[tuple[int, int, str]] = []
    stack = [(root, 0)]
    while stack:
        node, outer_first = stack.pop()
        first = leading_comments_row(node)
        parent = node.parent
        if parent is not None and (node.start_point.row == parent.start_point.row
                                   or is_body(node)):
            first = min(first, outer_first)  # a line's comments go with all that starts on
            # it, and a body below its header goes with the header
        last = end_row(node)
        whitespace = not node.child_count and not (node.text or b"").strip()
        if node.is_named and last > node.start_point.row and not whitespace:
            spans.append((first, last, node.type))
        stack.extend((child, first) for child in node.children)
    cuts = []
    for c in ex.chunks:
        s, e = c.start_line, c.end_line
        for first, last, kind in spans:
            if first < s <= last < e or s < first <= e < last:
                cuts.append(f"chunk {s + 1}-{e + 1} cuts {kind} {first + 1}-{last + 1}")
    return cuts


@pytest.mark.parametrize("path", samples(), ids=lambda p: f"{p.parent.name}/{p.name}")
@pytest.mark.usefixtures("small_limits")
def test_no_chunk_cuts_a_construct(path: Path) -> None:
    text = path.read_text("utf-8")
    ex = run(f"{path.parent.name}/{path.name}", text)  # also: every line is in a chunk
    assert len(ex.chunks) > 3, "the limits are meant to force cuts"
    assert cut_nodes(ex.lang, text, ex) == []


def test_every_language_with_a_grammar_has_a_sample() -> None:
    covered = {detect_language(p.name) for p in samples()}
    assert sorted(set(catalog()) - covered) == []


def _first_chunk_lines(ex: Extraction, text: str, name: str) -> list[str]:
    symbol = next(s for s in ex.symbols if s.name == name)
    index = ex.symbols.index(symbol)
    first = min((c for c in ex.chunks if c.symbol == index), key=lambda c: c.start_line)
    return text.split("\n")[first.start_line:first.end_line + 1]


@pytest.mark.parametrize("path, name, lines", [
    ("tb.py", "from_exception",
     "class Traceback:\n    @classmethod\n    @cache\n    def from_exception(cls, exc):\n"
     '        """Create a traceback from exception info."""\n{body}\n        return x69\n'),
    ("lib.rs", "decode",
     "/// Decodes one byte.\n#[inline]\n#[must_use]\npub fn decode(src: &[u8]) -> u8 {{\n"
     "{body}\n    0\n}}\n"),
])
def test_a_long_definitions_first_chunk_holds_its_decorators_with_its_signature(
        path: str, name: str, lines: str) -> None:
    # Too long for one chunk, the definition is cut between its statements; its first chunk
    # (the one its summary and whole-definition vectors hang on, and a hit's snippet) starts
    # at its decorators or attributes and holds the line that names it, not `@classmethod`
    # alone.
    indent = "        " if path.endswith(".py") else "    "
    body = "\n".join(f"{indent}x{i} = compute({i})" + (";" if path.endswith(".rs") else "")
                     for i in range(70))
    text = lines.format(body=body)
    ex = run(path, text)
    first = _first_chunk_lines(ex, text, name)
    assert first[0].strip() in ("@classmethod", "/// Decodes one byte."), first[:3]
    assert any(f"fn {name}" in line or f"def {name}" in line for line in first), first[:5]


@pytest.mark.parametrize("path, name, header, body_line", [
    ("long.py", "total", "def total(values):", "    {step}"),
    ("widget.py", "Widget", "class Widget(Base):", "    def m{i}(self):\n        return {i}\n"),
    ("long.rb", "total", "def total(values)", "  {step}"),
    ("long.lua", "total", "function total(values)", "  {step}"),
])
def test_a_long_definitions_first_chunk_holds_the_start_of_its_body(
        path: str, name: str, header: str, body_line: str) -> None:
    # An indented body starts on the line below its header; it belongs to the header as a
    # brace body on the header's line does. The first chunk (summary and whole-definition
    # vectors, a hit's snippet) must read the doc and the first statements, not the header
    # line alone.
    doc = {"py": '    """Adds the frobnicated values."""', "rb": "  # Adds the frobnicated values.",
           "lua": "  -- Adds the frobnicated values."}[path.rsplit(".", 1)[1]]
    body = "\n".join(body_line.format(i=i, step=f"x{i} = compute({i})") for i in range(70))
    end = {"py": "", "rb": "end\n", "lua": "end\n"}[path.rsplit(".", 1)[1]]
    text = f"{header}\n{doc}\n{body}\n{end}"
    ex = run(path, text)
    first = _first_chunk_lines(ex, text, name)
    assert first[:2] == [header, doc], first[:3]


@pytest.mark.parametrize("path, header, statement, end", [
    ("long.ts", "export function total(\n  values: number[],\n  scale: number,\n): number {",
     "  const x{i} = compute({i});", "}"),
    ("long.go", "func total(\n\tvalues []int,\n\tscale int,\n) int {", "\tx{i} := compute({i})",
     "\treturn 0\n}"),
])
def test_a_multi_line_signature_and_the_first_statements_are_one_chunk(
        path: str, header: str, statement: str, end: str) -> None:
    # The body opens on the signature's last line, not its first: it still belongs to the
    # signature. The first chunk had been the signature without its closing line, then the
    # `): number {` line alone (a chunk with no words), then the body.
    body = "\n".join(statement.format(i=i) for i in range(70))
    text = ("package p\n\n" if path.endswith(".go") else "") + f"{header}\n{body}\n{end}\n"
    ex = run(path, text)
    first = _first_chunk_lines(ex, text, "total")
    head = header.split("\n")
    assert first[:len(head) + 1] == [*head, statement.format(i=0)], first[:6]

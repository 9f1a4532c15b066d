"""A file the grammar swallows whole is parsed again one top-level block at a time, and only
when that parses better (indexing/extract/recovery.py)."""

from __future__ import annotations

from pathlib import Path

from extract_support import run

from indexing.extract.code import definitions
from indexing.extract.recovery import (
    MAX_BLOCKS,
    MIN_ERROR_LINES,
    error_lines,
    isolated_regions,
    top_level_blocks,
)
from indexing.grammars import parse
from indexing.positions import SourceText

#: Not among the language fixtures: those are valid code, and this one the grammar misreads.
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "recovery" / "listeners.ts"


def test_the_fixture_is_one_error_to_the_grammar() -> None:
    """What the recovery is for: parsed whole, not one definition of the file is found."""
    src = SourceText(FIXTURE.read_text("utf-8"))
    root = parse("typescript", src.data).root_node
    assert error_lines(root) == len(src.lines) >= MIN_ERROR_LINES
    assert definitions("typescript", src, root) == []


def test_definitions_chunks_and_refs_come_back_at_their_places() -> None:
    """`run` also checks that every non-blank line is in a chunk."""
    text = FIXTURE.read_text("utf-8")
    ex = run("typescript/listeners.ts", text)
    lines = text.split("\n")
    found = {s.name: s for s in ex.symbols}
    assert list(found) == ["Subscribe", "Payload", "event", "value", "notifyListeners",
                           "MAX_LISTENERS"]
    notify = found["notifyListeners"]
    doc = lines.index("/**")
    start = lines.index("export function notifyListeners<T>(")
    end = lines.index("}", start)
    assert (notify.range.start_line, notify.range.end_line) == (start, end)
    chunk = next(c for c in ex.chunks if c.context == "notifyListeners")
    assert (chunk.start_line, chunk.end_line) == (doc, end)  # its doc comment leads its chunk
    assert chunk.symbol is not None and ex.symbols[chunk.symbol] is notify
    call = next(r for r in ex.refs if r.name == "listener" and r.kind == "call")
    assert ex.symbols[call.symbol].name == "notifyListeners"
    assert call.start_line == next(i for i, line in enumerate(lines)
                                   if "listener({ event, value })" in line)


def test_blocks_start_at_column_zero_after_a_blank_line() -> None:
    lines = ["// head", "", "/** doc */", "export function f() {", "", "}", "", "const a = 1",
             "const b = 2", "  ", "x"]
    assert top_level_blocks(lines) == [(0, 1), (2, 6), (7, 9), (10, 10)]


def test_a_file_whose_blocks_parse_no_better_keeps_its_parse() -> None:
    src = SourceText("x = [\n    1,\n    2,\n\ny = 3\n\nz = 4\n\nw = (5,\n6\n")
    root = parse("python", src.data).root_node
    assert error_lines(root) >= MIN_ERROR_LINES
    assert len(top_level_blocks(src.lines)) > 1
    assert isolated_regions("python", src, root) is None


def test_a_file_of_too_many_blocks_is_not_tried() -> None:
    """Hostile or generated text must not cost a parse per line: past `MAX_BLOCKS` the file
    keeps its one parse, though its blocks would parse better (they do below the cap)."""
    text = FIXTURE.read_text("utf-8") + "\n"
    blocks = len(top_level_blocks(SourceText(text).lines))
    under = SourceText(text * (MAX_BLOCKS // blocks))
    over = SourceText(text * (MAX_BLOCKS // blocks + 1))
    assert isolated_regions("typescript", under, parse("typescript", under.data).root_node)
    assert len(top_level_blocks(over.lines)) > MAX_BLOCKS
    assert isolated_regions("typescript", over, parse("typescript", over.data).root_node) is None

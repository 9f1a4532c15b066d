"""Line windows, gaps and the caps that keep chunks bounded."""

from __future__ import annotations

from indexing.chunking import (
    MAX_LINE_CHARS,
    PIECE_OVERLAP_CHARS,
    gaps,
    join_lines,
    pieces,
    text_chunks,
    trim_blank,
    window_chunks,
    windows,
)
from indexing.records import ChunkKind


def test_windows_overlap_and_cover() -> None:
    lines = ["x"] * 100
    assert windows(lines, 0, 99, 40, 10_000, 5) == [(0, 39), (35, 74), (70, 99)]
    assert windows(lines, 3, 3, 40, 10_000, 5) == [(3, 3)]


def test_windows_respect_char_budget_and_stay_linear() -> None:
    lines = ["y" * 1000] * 10
    # three lines fit the budget; the overlap shrinks to a third of a window (one line)
    assert windows(lines, 0, 9, 40, 3100, 5) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 9)]
    huge = ["z" * 50_000, "a", "b"]
    assert windows(huge, 0, 2, 40, 3000, 5) == [(0, 0), (1, 2)]


def test_gaps() -> None:
    assert gaps(0, 20, [(2, 5), (4, 8), (15, 20)]) == [(0, 1), (9, 14)]
    assert gaps(0, 5, []) == [(0, 5)]
    assert gaps(3, 5, [(0, 10)]) == []


def test_trim_and_join() -> None:
    lines = ["", "  ", "a\r", "b", ""]
    assert trim_blank(lines, 0, 4) == (2, 3)
    assert trim_blank(lines, 0, 1) is None
    assert join_lines(lines, 2, 3) == "a\nb"
    assert len(join_lines(["q" * (MAX_LINE_CHARS + 5)], 0, 0)) == MAX_LINE_CHARS


def test_window_chunks_skip_blank_windows() -> None:
    lines = ["a"] + [""] * 100 + ["b"]
    chunks = window_chunks(lines, (0, 101), ChunkKind.CODE)
    assert [(c.start_line, c.end_line, c.text) for c in chunks] == [(0, 0, "a"), (101, 101, "b")]


def test_text_chunks_crlf() -> None:
    chunks = text_chunks("one\r\ntwo\r\n")
    assert [(c.start_line, c.end_line, c.text, c.kind) for c in chunks] == [
        (0, 1, "one\ntwo", ChunkKind.TEXT)
    ]


def test_long_lines_become_overlapping_pieces_that_cover_the_whole_line() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(50_000))
    parts = pieces(text)
    step = MAX_LINE_CHARS - PIECE_OVERLAP_CHARS
    assert [(col, len(p)) for col, p in parts] == [
        (0, MAX_LINE_CHARS), (step, MAX_LINE_CHARS), (2 * step, 50_000 - 2 * step)]
    assert parts[1][1].startswith(parts[0][1][-PIECE_OVERLAP_CHARS:])
    assert parts[-1][1].endswith(text[-10:])
    assert pieces("short", 7) == [(7, "short")]
    huge = pieces("x" * 10_000_000)
    assert huge[-1][0] + len(huge[-1][1]) == 10_000_000  # nothing past a cap is dropped


def test_piece_columns_count_utf16_units() -> None:
    text = "😀" * 30_000  # two UTF-16 units each
    parts = pieces(text, col=3)
    step = MAX_LINE_CHARS - PIECE_OVERLAP_CHARS
    assert [col for col, _ in parts] == [3, 3 + 2 * step]


def test_window_over_a_huge_line_keeps_its_tail() -> None:
    lines = ["a = 1", "q" * 30_000 + " needle", "b = 2"]
    chunks = window_chunks(lines, (0, 2), ChunkKind.CODE)
    step = MAX_LINE_CHARS - PIECE_OVERLAP_CHARS
    assert [(c.start_line, c.end_line, c.start_col, len(c.text)) for c in chunks] == [
        (0, 0, 0, 5),
        (1, 1, 0, MAX_LINE_CHARS),
        (1, 1, step, 30_007 - step),
        (2, 2, 0, 5),
    ]
    assert chunks[2].text.endswith("needle")

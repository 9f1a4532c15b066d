"""Extraction on Python sources, and the behaviour every language shares: positions in LSP
coordinates, coverage of every line by a chunk, and robustness on odd input."""

from __future__ import annotations

import time

import pytest
from extract_support import assert_covered, by_name, run, spans

from indexing.chunking import MAX_LINE_CHARS
from indexing.extract import extract, text_chunks
from indexing.records import ChunkKind, Extraction, Span, SymbolKind

K = SymbolKind

PY = '''"""Module doc."""
import os

MAX_RETRIES = 3
logger = object()


# Shapes live here.
@register
class Shape:
    """A shape.

    With details.
    """

    sides: int = 0

    def area(self):
        def helper():
            return 1
        return helper()

    @property
    def name(self): return "s"


def main(argv,
         env):
    """Run it."""
    return 0


if __name__ == "__main__":
    main([], {})
'''


def test_python_symbols() -> None:
    ex = run("pkg/shapes.py", PY)
    assert [(s.name, s.kind, s.container, s.qualified_name) for s in ex.symbols] == [
        ("MAX_RETRIES", K.CONSTANT, None, "MAX_RETRIES"),
        ("logger", K.VARIABLE, None, "logger"),
        ("Shape", K.CLASS, None, "Shape"),
        ("sides", K.FIELD, "Shape", "Shape.sides"),
        ("area", K.METHOD, "Shape", "Shape.area"),
        ("helper", K.FUNCTION, "area", "Shape.area.helper"),
        ("name", K.METHOD, "Shape", "Shape.name"),
        ("main", K.FUNCTION, None, "main"),
    ]


def test_python_ranges_signatures_and_docs() -> None:
    ex = run("shapes.py", PY)
    shape = by_name(ex, "Shape")
    assert shape.range == Span(8, 0, 23, 30)  # decorator through last method
    assert shape.selection == Span(9, 6, 9, 11)
    assert shape.signature == "class Shape:"
    assert shape.doc == "A shape.\n\nWith details."
    name = by_name(ex, "name")
    assert name.range == Span(22, 4, 23, 30)
    assert name.selection == Span(23, 8, 23, 12)
    assert name.signature == 'def name(self): return "s"'
    main = by_name(ex, "main")
    assert main.range == Span(26, 0, 29, 12)
    assert main.signature == "def main(argv,"
    assert main.doc == "Run it."
    assert by_name(ex, "MAX_RETRIES").range == Span(3, 0, 3, 15)


def test_python_chunks() -> None:
    ex = run("shapes.py", PY)
    assert spans(ex) == [
        ("code", 0, 4, None, ""),
        ("definition", 7, 23, 2, "Shape"),  # includes the comment and decorator above
        ("definition", 17, 20, 4, "Shape.area"),
        ("definition", 18, 19, 5, "Shape.area.helper"),
        ("definition", 22, 23, 6, "Shape.name"),
        ("definition", 26, 29, 7, "main"),
        ("code", 32, 33, None, ""),
    ]
    first = ex.chunks[1].text.split("\n")
    assert first[:3] == ["# Shapes live here.", "@register", "class Shape:"]
    assert_covered(ex, PY)


def test_long_definition_is_split_between_its_statements() -> None:
    # The indented body belongs to its header (as a brace body on the header's line does), so
    # the first chunk holds the signature and the first statements; the rest is cut between
    # statements (tests/unit/test_syntax_chunks).
    body = "\n".join(f"    x{i} = {i}" for i in range(100))
    text = f"def big():\n{body}\n    return 0\n"
    ex = run("big.py", text)
    assert spans(ex) == [
        ("definition", 0, 59, 0, "big"),
        ("definition", 60, 101, 0, "big"),
    ]
    assert ex.chunks[0].text.startswith("def big():\n    x0 = 0\n")


def test_long_class_keeps_only_lines_outside_its_methods() -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(70))
    text = (
        'class Big:\n    """Doc."""\n    A = 1\n\n    def long(self):\n'
        f"{body}\n        return 0\n\n    def small(self):\n        return 1\n    B = 2\n"
    )
    ex = run("big.py", text)
    assert spans(ex) == [
        ("definition", 0, 2, 0, "Big"),  # its header, doc and the lines before a method
        ("definition", 4, 63, 2, "Big.long"),
        ("definition", 64, 75, 2, "Big.long"),
        ("definition", 77, 78, 3, "Big.small"),
        ("definition", 79, 79, 0, "Big"),
    ]
    assert_covered(ex, text)


def test_code_chunks_are_windows_of_top_level_code() -> None:
    # Cut between statements, nothing cut in half, so no overlap is needed.
    text = "\n".join(f"x{i} = call({i})" for i in range(90)) + "\n"
    ex = run("script.py", text)
    assert spans(ex) == [
        ("code", 0, 39, None, ""),
        ("code", 40, 79, None, ""),
        ("code", 80, 89, None, ""),
    ]


def test_crlf_lines_are_counted_and_stripped() -> None:
    text = 'class A:\r\n    def f(self):\r\n        """Doc."""\r\n        return 1\r\n\r\nX = 1\r\n'
    ex = run("crlf.py", text)
    f = by_name(ex, "f")
    assert f.range == Span(1, 4, 3, 16)
    assert f.signature == "def f(self):"
    assert f.doc == "Doc."
    assert by_name(ex, "X").range == Span(5, 0, 5, 5)
    assert all("\r" not in c.text for c in ex.chunks)
    assert spans(ex)[-1] == ("code", 5, 5, None, "")


def test_non_ascii_columns_are_utf16() -> None:
    text = 's = \'é😀\'; ñ = 1\ndef ñame(ä):\n    """Ünï 😀."""\n    return \'😀\'; pass\n'
    ex = run("u.py", text)
    fn = by_name(ex, "ñame")
    assert fn.selection == Span(1, 4, 1, 8)
    assert fn.range == Span(1, 0, 3, 21)  # '😀' is two UTF-16 units
    assert fn.doc == "Ünï 😀."


def test_syntax_errors_still_yield_what_parses() -> None:
    text = "def broken(:\n    pass\n\ndef good():\n    return 1\n"
    ex = run("bad.py", text)
    good = by_name(ex, "good")
    assert good.range == Span(3, 0, 4, 12)
    assert_covered(ex, text)


def test_empty_and_blank_files() -> None:
    assert run("e.py", "") == Extraction(lang="python")
    assert run("e.go", "\n\n  \n").chunks == []
    assert text_chunks("") == []


def test_huge_line_is_capped_and_fast() -> None:
    text = "x = [" + ",".join(str(i % 10_000).zfill(4) for i in range(20_000)) + "]\n"
    text += "def f():\n    pass\n"  # the first line has 100,005 characters
    started = time.perf_counter()
    ex = run("huge.py", text)
    assert time.perf_counter() - started < 5
    # the 100,005-character line is cut into overlapping pieces so its end stays searchable
    assert [(c.start_line, c.end_line, len(c.text)) for c in ex.chunks] == [
        *[(0, 0, MAX_LINE_CHARS)] * 5,
        (0, 0, 1005),
        (1, 2, 17),
    ]
    assert ex.chunks[5].text.endswith("9998,9999]")


def test_minified_line_chunks_each_definition_by_its_own_text() -> None:
    text = ";".join(f"function f{i}(a){{return a+{i}}}" for i in range(3000))
    ex = run("min.js", text)
    assert len(ex.symbols) == 3000
    assert ex.chunks[0].text == "function f0(a){return a+0}"
    assert sum(len(c.text) for c in ex.chunks) < 2 * len(text)
    last = ex.symbols[-1]
    assert last.range.end_col == len(text)


def test_no_grammar_returns_none_and_text_chunks_cover_everything() -> None:
    assert extract("notes.txt", "hello") is None
    assert extract("LICENSE", "Permission is hereby granted") is None  # (Makefile has one now)
    text = "\n".join(f"line {i}" for i in range(100))
    chunks = text_chunks(text)
    assert [(c.start_line, c.end_line, c.kind) for c in chunks] == [
        (0, 39, ChunkKind.TEXT),
        (35, 74, ChunkKind.TEXT),
        (70, 99, ChunkKind.TEXT),
    ]
    assert chunks[0].text.split("\n")[0] == "line 0"


def test_deterministic() -> None:
    assert run("a.py", PY) == run("a.py", PY)


@pytest.mark.parametrize(
    "path",
    ["a.py", "a.js", "a.ts", "a.tsx", "a.go", "a.rs", "a.java", "a.c", "a.cpp", "a.md"],
)
@pytest.mark.parametrize(
    "text",
    [
        "\x00\x01\ufffd garbage }}}{{{ ((( \n",
        "\ud800 lone surrogate\n",
        "}" * 5000,
        "(" * 3000 + "\n" + "def f(): pass\n",
        "\n" * 1000,
    ],
)
def test_never_raises(path: str, text: str) -> None:
    ex = run(path, text)
    assert_covered(ex, text)

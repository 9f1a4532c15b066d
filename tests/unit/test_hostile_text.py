"""Bytes that fight positions: a byte-order mark, CRLF and CR-only line ends, and lines too
long for one chunk. A citation must name the exact line and UTF-16 column a client counts,
whatever the file's bytes, and every part of a line must be findable."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.positions import utf16_len
from indexing.records import Span
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.types import Hit, SearchRequest

# Non-ASCII before each needle (two UTF-16 units for the emoji), so columns are UTF-16's.
SOURCE = (
    'import os\n'
    '\n'
    'class Größe:  # 😀 class\n'
    '    def lesen_wert(self) -> str:\n'
    '        return "😀 é exact_needle_text"\n'
    '\n'
    'def zweite_funktion():\n'
    '    pass\n'
)
PROSE = "erste Zeile\nzweite Zeile mit prosenadel\n\ndritte 😀 schwanzwort\n"
MARKDOWN = "# Titel\n\nText.\n\n## Unterkapitel\n\nmarkdown_body_word hier\n"
VARIANTS = {
    "lf": ("", "\n"),
    "bom": ("\ufeff", "\n"),
    "crlf": ("", "\r\n"),
    "cr": ("", "\r"),
    "bom_crlf": ("\ufeff", "\r\n"),
    "bom_cr": ("\ufeff", "\r"),
}


def where(text: str, needle: str) -> Span:
    """The LSP span of the first `needle` in `text` (lines by "\\n", UTF-16 columns)."""
    offset = text.index(needle)
    line = text.count("\n", 0, offset)
    start = offset - (text.rfind("\n", 0, offset) + 1)
    col = utf16_len(text.splitlines()[line][:start])
    return Span(line, col, line, col + utf16_len(needle))


def encode(text: str, bom: str, end: str) -> bytes:
    return (bom + text.replace("\n", end)).encode("utf-8")


def search(ws: Workspace, query: str) -> list[Hit]:
    return ws.searcher.search(SearchRequest(query=query, mode="lexical")).hits


@pytest.mark.parametrize("variant", VARIANTS)
def test_positions_are_right_whatever_the_bom_and_line_ends(tmp_path: Path, variant: str) -> None:
    bom, end = VARIANTS[variant]
    root = tmp_path / "ws"
    root.mkdir()
    (root / "code.py").write_bytes(encode(SOURCE, bom, end))
    (root / "notes.txt").write_bytes(encode(PROSE, bom, end))
    (root / "doc.md").write_bytes(encode(MARKDOWN, bom, end))
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    try:
        ws.indexer.index()
        symbols = {r.symbol.name: r.symbol for r in ws.store.all_symbols()}
        assert symbols["Größe"].selection == where(SOURCE, "Größe")
        assert symbols["lesen_wert"].selection == where(SOURCE, "lesen_wert")
        assert symbols["zweite_funktion"].selection == where(SOURCE, "zweite_funktion")
        assert symbols["Unterkapitel"].range.start_line == 4

        [exact] = search(ws, '"exact_needle_text"')
        assert exact.span == where(SOURCE, "exact_needle_text")
        assert exact.snippet.text.endswith('exact_needle_text"')
        [defn] = search(ws, "zweite_funktion")
        assert defn.span == where(SOURCE, "zweite_funktion")
        [prose] = search(ws, "prosenadel")
        assert prose.span == where(PROSE, "prosenadel")
        [tail] = search(ws, '"schwanzwort"')
        assert tail.span == where(PROSE, "schwanzwort")
        [md] = search(ws, "markdown_body_word")
        assert md.span == where(MARKDOWN, "markdown_body_word")
        # What is stored is the text as an editor shows it: no mark, no "\r".
        stored = ws.store.conn.execute("SELECT unpack(text) FROM file_text").fetchall()
        assert not any("\r" in t or "\ufeff" in t for (t,) in stored)
    finally:
        ws.close()


def long_line(size: int, needles: dict[int, str], fill: str = "x") -> str:
    """One line of `size` characters of `fill` words with each needle at its offset."""
    words = (fill * 7 + " ") * (size // 8 + 1)
    line = words[:size]
    for at, needle in sorted(needles.items()):
        line = line[:at] + needle + line[at + len(needle):]
    return line[:size]


@pytest.mark.parametrize("name", ["long.txt", "long.js"])
def test_every_part_of_a_900kb_line_is_found_and_cited_where_it_is(
        tmp_path: Path, name: str) -> None:
    needles = {25_000: " nadel_eins ", 500_000: " nadel_zwei ", 899_980: " nadel_drei "}
    # Characters of two UTF-16 units on the way, so columns differ from character offsets.
    line = long_line(900_000, {**needles, 1_000: " 😀é😀 ", 400_000: " 😀😀 "})
    root = tmp_path / "ws"
    root.mkdir()
    (root / name).write_text("var s = '" + line + "';\n", encoding="utf-8")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    try:
        assert ws.indexer.index().new == 1
        text = (root / name).read_text(encoding="utf-8")
        for needle in needles.values():
            word = needle.strip()
            for query in (word, f'"{word}"'):
                [hit] = search(ws, query)
                assert hit.span == where(text, word), query
                assert word in hit.snippet.text, query
                start = hit.snippet.text.index(word)
                assert (start, start + len(word)) in hit.snippet.highlights, query
    finally:
        ws.close()


def test_all_of_a_minified_line_is_found_and_cited_at_its_column(tmp_path: Path) -> None:
    """Definitions on one long line are chunked by their own text; the code between them
    (here a statement past 20,000 characters) must be found too, and exact text that starts
    in punctuation no chunk holds (`;function f1(`) still cites where it is."""
    head = ";".join(f"function f{i}(a){{return a+{i}}}" for i in range(800))
    tail = ";".join(f"function g{i}(a){{return a+{i}}}" for i in range(10))
    text = (head + ";var between_defs_word = 'é😀';" + tail
            + ";function last(){return 'minified_tail_word'}\n")
    assert text.index("between_defs_word") > 20_000
    root = tmp_path / "ws"
    root.mkdir()
    (root / "min.js").write_text(text, encoding="utf-8")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    try:
        ws.indexer.index()
        for query in ("minified_tail_word", '"minified_tail_word"'):
            [hit] = search(ws, query)
            assert hit.span == where(text, "minified_tail_word"), query
            assert hit.symbol == "last"
        for query in ("between_defs_word", '"between_defs_word"'):
            [hit] = search(ws, query)
            assert hit.span == where(text, "between_defs_word"), query
            assert "between_defs_word" in hit.snippet.text, query
        [hit] = search(ws, '";function f1("')
        assert hit.span == where(text, ";function f1(")
        assert hit.snippet.text
    finally:
        ws.close()


def test_a_word_in_the_overlap_of_two_pieces_is_one_hit(tmp_path: Path) -> None:
    """Pieces of a long line overlap, so both hold a word that sits in the overlap: it is one
    match, cited once."""
    # The word sits at column 19,850 of a 21,000-character line: pieces of 20,000 characters
    # that overlap by 200 both hold it.
    line = "x = [" + "1, " * 6615 + "overlapneedle, " + "2, " * 380 + "3]"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "long.py").write_text(line + "\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    try:
        ws.indexer.index()
        pieces = ws.store.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert pieces >= 2
        hits = ws.searcher.search(SearchRequest(query="overlapneedle", mode="lexical")).hits
        assert [(h.path, h.span) for h in hits] == [("long.py", where(line, "overlapneedle"))]
    finally:
        ws.close()

"""Markdown: headings are symbols, sections are chunks, the outline is a heading path."""

from __future__ import annotations

import extract_support

from indexing.records import Extraction, Span, SymbolKind

MD = """Intro text.

# Guide #

First paragraph
continues here.

Second paragraph.

## Install
Run it.

```sh
# not a heading
```
Setext Title
------------
> # quoted, not a heading

# Ünïcode 😀 title
body
"""


def run(text: str) -> Extraction:
    return extract_support.run("docs/guide.md", text)


def test_headings_are_symbols_with_paths() -> None:
    ex = run(MD)
    assert [(s.name, s.kind, s.container, s.qualified_name) for s in ex.symbols] == [
        ("Guide", SymbolKind.STRING, None, "Guide"),
        ("Install", SymbolKind.STRING, "Guide", "Guide > Install"),
        ("Setext Title", SymbolKind.STRING, "Guide", "Guide > Setext Title"),
        ("Ünïcode 😀 title", SymbolKind.STRING, None, "Ünïcode 😀 title"),
    ]
    guide, install, setext, uni = ex.symbols
    assert guide.range == Span(2, 0, 17, 25)  # through its subsections
    assert guide.selection == Span(2, 2, 2, 7)  # its name: without the closing "#"
    assert guide.signature == "# Guide #"
    assert guide.doc == "First paragraph\ncontinues here."
    assert install.range == Span(9, 0, 14, 3)
    assert install.doc == "Run it."
    assert setext.selection == Span(15, 0, 15, 12)
    assert setext.doc == ""
    assert uni.selection == Span(19, 2, 19, 18)  # UTF-16 columns
    assert uni.range == Span(19, 0, 20, 4)


def test_a_headings_selection_is_its_name_without_the_spaces_that_end_it() -> None:
    """The grammar keeps a heading's trailing spaces when the file ends on its line, and an
    ATX heading's closing "#"s: neither is the name (hypothesis found "#  soupneedle "
    cited one column too far)."""
    for text, selection in [("#  soupneedle ", Span(0, 3, 0, 13)),
                            ("#  soupneedle \n", Span(0, 3, 0, 13)),
                            ("## a b ##  \n", Span(0, 3, 0, 6)),
                            ("# é😀 x #", Span(0, 2, 0, 7)),
                            ("one\ntwo  \n===\n", Span(0, 0, 1, 3))]:
        assert [s.selection for s in run(text).symbols] == [selection], text


def test_sections_are_chunks() -> None:
    ex = run(MD)
    assert [(c.kind.value, c.start_line, c.end_line, c.symbol, c.context) for c in ex.chunks] == [
        ("section", 0, 0, None, ""),
        ("section", 2, 7, 0, "Guide"),
        ("section", 9, 10, 1, "Guide > Install"),
        ("code", 12, 14, None, "Guide > Install · bash"),  # a ```sh block, chunked as shell
        ("section", 15, 17, 2, "Guide > Setext Title"),
        ("section", 19, 20, 3, "Ünïcode 😀 title"),
    ]
    assert ex.chunks[2].text.startswith("## Install\nRun it.")


def test_long_section_is_windowed_and_no_headings_is_one_text_section() -> None:
    # One 100-line paragraph: cut inside it (nothing smaller to cut between), the heading
    # its own chunk rather than half of the paragraph's.
    text = "# Big\n" + "\n".join(f"line {i}" for i in range(100)) + "\n"
    ex = run(text)
    assert [(c.start_line, c.end_line, c.symbol) for c in ex.chunks] == [
        (0, 0, 0),
        (1, 60, 0),
        (61, 100, 0),
    ]
    plain = run("just text\nmore\n")
    assert plain.symbols == []
    assert [(c.start_line, c.end_line, c.symbol) for c in plain.chunks] == [(0, 1, None)]

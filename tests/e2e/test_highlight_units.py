"""Snippet highlights on the wire count UTF-16 code units, as every other position does: a
client indexing the snippet's text as a JS string (VS Code) marks exactly the matched word,
even after emoji, which take two units each (four UTF-8 bytes, one Python code point)."""

from __future__ import annotations

from pathlib import Path

from e2e_support import StartFn, load_schema, write_tree
from jsonschema import Draft202012Validator

LINE = "\N{GRINNING FACE}\N{GRINNING FACE} qqalpha \N{GRINNING FACE} qqbeta"
FILES = {"notes.md": f"# Notes\n\n{LINE}\n"}


def utf16_slice(text: str, start: int, end: int) -> str:
    """What `text.slice(start, end)` gives in JavaScript."""
    return text.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le")


async def test_highlights_are_utf16_units_like_the_selection(start_server: StartFn,
                                                             tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", FILES)
    s = await start_server([root])
    await s.wait_idle()
    answer = await s.search({"query": '"qqbeta"', "mode": "lexical"})
    Draft202012Validator(load_schema()).validate(answer)
    [hit] = answer["hits"]
    snippet = hit["snippet"]
    text = snippet["text"]
    marked = [utf16_slice(text, h["start"], h["end"]) for h in snippet["highlights"]]
    assert marked == ["qqbeta"], (text, snippet["highlights"])
    # The same word the selection cites, in the same unit: on its line, its UTF-16 column.
    before = text.split("\n")[: hit["selection"]["start"]["line"] - snippet["line"]]
    offset = sum(len(line.encode("utf-16-le")) // 2 + 1 for line in before)
    assert (snippet["highlights"][0]["start"] - offset
            == hit["selection"]["start"]["character"]), (snippet, hit["selection"])

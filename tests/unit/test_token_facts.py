"""Calls and string literals as full-text surfaces of their own (`calls`, `strings`), read
off the syntax tree: a raw query can aim at them, and they follow a file through a rename."""

from __future__ import annotations

import os
from pathlib import Path

from indexing.records import Ref, RefKind
from indexing.settings import Settings
from indexing.token_facts import TokenFacts
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest

SOURCE = '''\
def drain(stream):
    """Mentions flush in prose only."""
    flush = None
    return stream.read()


def close(stream):
    stream.flush()
    stream.write("goodbye")
    return stream


def label():
    # flush("not a call: a comment")
    return "goodbye" if False else "hello"
'''


def test_calls_and_literals_move_out_of_the_body() -> None:
    text = 'def close(stream):\n    stream.flush()\n    stream.write("good bye")\n'
    refs = [Ref("flush", RefKind.CALL.value, 11, 11, 11, 16),
            Ref("write", RefKind.CALL.value, 12, 11, 12, 16),
            Ref("good bye", RefKind.STRING.value, 12, 17, 12, 27),
            Ref("stream", RefKind.IDENTIFIER.value, 11, 4, 11, 10)]
    body, calls, strings = TokenFacts(refs).split(text, 10)
    assert body == 'def close(stream):\n    stream.     ()\n    stream.     ("        ")\n'
    assert (calls, strings) == ("flush write", "good bye")
    # Only the refs inside the chunk's lines, at the columns a piece of a line starts from.
    assert TokenFacts(refs).split("stream.flush()", 11, 4) == ("stream.     ()", "flush", "")
    # A ref whose text is not where it says stays in the body.
    assert TokenFacts(refs).split("x.flash()", 11, 4)[1:] == ("", "")


def raw(ws: Workspace, query: str) -> list[str]:
    found = ws.searcher.search(SearchRequest(f"'{query}'", mode="lexical"))
    return sorted({h.symbol or "" for h in found.hits})


def test_a_raw_query_finds_calls_and_literals_not_mentions(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "io_util.py").write_text(SOURCE)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), embed=False, workers=1))
    try:
        ws.indexer.index()
        assert raw(ws, "flush") == ["close", "drain", "label"]  # the word is everywhere
        assert raw(ws, "calls:flush") == ["close"]  # only close calls it
        assert raw(ws, "body:flush") == ["drain", "label"]  # the others only mention it
        assert raw(ws, "calls:read") == ["drain"]
        assert raw(ws, "strings:goodbye") == ["close", "label"]
        assert raw(ws, "strings:hello") == ["label"]
        os.rename(root / "io_util.py", root / "streams.py")
        ws.indexer.index()
        assert raw(ws, "calls:flush") == ["close"]  # a rename keeps the facts
        assert raw(ws, "strings:hello") == ["label"]
    finally:
        ws.close()

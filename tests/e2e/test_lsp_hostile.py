"""Hostile files through the real server: a name that is not UTF-8, and files whose bytes
fight positions, must neither stop the folder nor shift a citation."""

from __future__ import annotations

import os
from pathlib import Path

from e2e_support import FILES, StartFn, range_of, to_json, write_tree
from lsprotocol import types


async def test_a_name_that_is_not_utf8_does_not_stop_the_folder(
        start_server: StartFn, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", FILES)
    bad = os.fsencode(root) + b"/app/caf\xe9.py"
    with open(bad, "wb") as f:
        f.write(b"def latin_name_fn():\n    return 1\n")
    s = await start_server([root])
    await s.wait_idle()
    found = await s.symbols("parse_config")
    assert [x.location.uri for x in found] == [(root / "app/users.py").as_uri()]
    assert await s.symbols("latin_name_fn") == []
    # A save of the file (its URI percent-encodes the byte) is ignored, not fatal.
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=root.as_uri() + "/app/caf%E9.py")))
    await s.wait_idle()
    hits = (await s.search({"query": "parse_config", "mode": "lexical"}))["hits"]
    assert [h["path"] for h in hits] == ["app/users.py"]
    assert (await s.status()).folders[0].files == len(FILES)


async def test_bom_and_cr_only_files_are_cited_where_an_editor_shows_them(
        start_server: StartFn, tmp_path: Path) -> None:
    text = 'x = "é"\n\ndef cited_here():\n    return "😀 quoted_needle"\n'
    root = tmp_path / "ws"
    root.mkdir()
    (root / "bom.py").write_bytes(("\ufeff" + text).encode("utf-8"))
    (root / "cr.py").write_bytes(text.replace("\n", "\r").encode("utf-8"))
    s = await start_server([root])
    await s.wait_idle()
    found = await s.symbols("cited_here")
    assert sorted((Path(x.location.uri).name, range_of(x.location)) for x in found) == [
        ("bom.py", ((2, 0), (3, 29))), ("cr.py", ((2, 0), (3, 29)))]
    hits = (await s.search({"query": '"quoted_needle"'}))["hits"]
    # "😀 " is three UTF-16 units after the quote at column 11.
    # The location cites the definition; `selection` is the match, where the cursor goes.
    assert sorted((h["path"], h["selection"]["start"]["line"],
                   h["selection"]["start"]["character"]) for h in hits) == [
        ("bom.py", 3, 15), ("cr.py", 3, 15)]
    assert {h["location"]["range"]["start"]["line"] for h in hits} == {2}


async def test_status_counts_what_was_skipped_and_search_goes_on(
        start_server: StartFn, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", FILES)
    (root / "app/bundle.js").write_bytes(b"var a=" + b"1" * (8 * 1024 * 1024) + b";")
    (root / ".env").write_text("API_TOKEN=leaked_secret_word\n")
    (root / "app/deploy.key").write_text("leaked_secret_word\n")
    (root / "app/notes.txt").write_text(  # a key found by its content
        "-----BEGIN RSA PRIVATE KEY-----\n" + "QUJD" * 16 + "\n-----END RSA PRIVATE KEY-----\n")
    s = await start_server([root])
    await s.wait_idle()
    folder = to_json(await s.status())["folders"][0]
    assert folder["skipped"] == {"total": 4, "by_reason": {"secret": 3, "too_large": 1},
                                 "text_only": 0}
    assert folder["files"] == len(FILES)
    assert (await s.search({"query": '"leaked_secret_word"'}))["hits"] == []
    assert (await s.search({"query": '"PRIVATE KEY"'}))["hits"] == []
    hits = (await s.search({"query": "parse_config", "mode": "lexical"}))["hits"]
    assert [h["path"] for h in hits] == ["app/users.py"]

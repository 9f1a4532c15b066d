"""A workspace opened through a symlink (a symlinked home or projects folder, macOS's /tmp):
every answer cites files under the path the client opened, never the resolved one, or the
editor opens a second buffer, outside the workspace, for a file it already has open; and
what the client sends under that spelling (a save, a place) still reaches the folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e_support import StartFn, call, position, range_of, to_json, valid, write_tree
from lsprotocol import types

FILES: dict[str, str] = {
    "lib/store.py": '''"""Storage."""


class Store:
    """Keeps rows."""

    def write(self, row):
        self.rows.append(row)


def open_store(path):
    return Store()
''',
    "app/main.py": '''from lib.store import open_store


def run():
    store = open_store("db.sqlite")
    store.write(1)
''',
}


def at(rel: str, needle: str, files: dict[str, str] = FILES) -> tuple[int, int]:
    return position(rel, needle, files=files)


def end(rel: str, needle: str, files: dict[str, str] = FILES) -> tuple[int, int]:
    return position(rel, needle, end=True, files=files)


def wire_range(r: dict[str, Any]) -> tuple[tuple[int, int], tuple[int, int]]:
    return (r["start"]["line"], r["start"]["character"]), (r["end"]["line"],
                                                           r["end"]["character"])


async def test_answers_cite_the_symlinked_path(start_server: StartFn, tmp_path: Path) -> None:
    real = write_tree(tmp_path / "real" / "ws", FILES)
    (tmp_path / "home").symlink_to(tmp_path / "real", target_is_directory=True)
    ws = tmp_path / "home" / "ws"  # what the client opens: a folder under a symlink
    assert ws.resolve() == real.resolve() != ws

    s = await start_server([ws], init_options={"provideReferences": True})
    status = to_json(await s.wait_idle())
    folder = status["folders"][0]
    assert (folder["uri"], folder["root"], folder["files"]) == (ws.as_uri(), str(ws), 2)

    # kebab/search: the definition, at the symlinked URI.
    hits = valid(await s.search({"query": "open_store", "mode": "lexical", "k": 1}))["hits"]
    assert [(h["path"], h["location"]["uri"], wire_range(h["location"]["range"]))
            for h in hits] == [("lib/store.py", (ws / "lib/store.py").as_uri(),
                                (at("lib/store.py", "def open_store"),
                                 end("lib/store.py", "return Store()")))]
    # Grouped, the file rows too.
    grouped = valid(await s.search({"query": "open_store", "mode": "lexical", "group": True}))
    assert {f["path"]: f["uri"] for f in grouped["files"]} == {
        "lib/store.py": (ws / "lib/store.py").as_uri(),
        "app/main.py": (ws / "app/main.py").as_uri()}

    # workspace/symbol.
    found = await s.symbols("open_store")
    assert [(x.name, x.location.uri, range_of(x.location)) for x in found] == [
        ("open_store", (ws / "lib/store.py").as_uri(),
         (at("lib/store.py", "def open_store"), end("lib/store.py", "return Store()")))]

    # kebab/references at a place given under the symlinked URI.
    line, col = at("lib/store.py", "write")
    by_place = await call(s, "kebab/references", {
        "textDocument": {"uri": (ws / "lib/store.py").as_uri()},
        "position": {"line": line, "character": col}})
    assert [(h["location"]["uri"], h["selection"]["start"]["line"],
             h["selection"]["start"]["character"]) for h in by_place["hits"]] == [
        ((ws / "app/main.py").as_uri(), *at("app/main.py", "write(1)"))]
    # textDocument/references (on with provideReferences) too, with the declaration.
    refs = await s.client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=(ws / "lib/store.py").as_uri()),
        position=types.Position(line=line, character=col),
        context=types.ReferenceContext(include_declaration=True)))
    assert [(r.uri, range_of(r)[0]) for r in refs or []] == [
        ((ws / "lib/store.py").as_uri(), at("lib/store.py", "write")),
        ((ws / "app/main.py").as_uri(), at("app/main.py", "write(1)"))]

    # kebab/symbol from a hit's handle.
    info = await call(s, "kebab/symbol", {"symbol_id": hits[0]["symbol_id"]})
    assert info["location"]["uri"] == (ws / "lib/store.py").as_uri()

    # A save of a file by its symlinked URI reaches the folder, and the answers follow.
    saved = {"app/main.py": FILES["app/main.py"] + "\n\ndef close_store(store):\n"
             "    return store\n"}
    (ws / "app/main.py").write_text(saved["app/main.py"], encoding="utf-8")
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=(ws / "app/main.py").as_uri())))
    await s.wait_idle()
    found = await s.symbols("close_store")
    assert [(x.name, x.location.uri, range_of(x.location)) for x in found] == [
        ("close_store", (ws / "app/main.py").as_uri(),
         (at("app/main.py", "def close_store", saved),
          end("app/main.py", "return store", saved)))]
    hits = valid(await s.search({"query": "close_store", "mode": "lexical", "k": 1}))["hits"]
    assert [(h["location"]["uri"], wire_range(h["location"]["range"])[0]) for h in hits] == [
        ((ws / "app/main.py").as_uri(), at("app/main.py", "def close_store", saved))]

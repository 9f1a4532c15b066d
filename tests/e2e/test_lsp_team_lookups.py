"""The lookups on a team index: `kebab/references`, `kebab/symbol`, `kebab/context`,
`kebab/similar` and textDocument/references answered from PostgreSQL for the files unchanged
in the checkout, and from the local index for the files changed here, over stdio on a real
PostgreSQL server.

`app/report.py` is left out of the local index (the `exclude` setting): what is found there
only the team index can answer. `app/edited.py` is edited here (a call removed, another
added), `app/added.py` added here and `app/gone.py` deleted here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from e2e_support import Session, StartFn, call, position, starts, write_tree
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from bench.postgres_server import OWNER, PgCluster
from indexing.postgres.team_index import index_repository
from indexing.settings import Settings

pytestmark = pytest.mark.postgres
REPO = "acme/lookups"
IMPORT = "from lib.core import compute_total\n"
CI: dict[str, str] = {
    "lib/core.py": "def compute_total(items):\n    return sum(items)\n",
    "app/report.py": f"{IMPORT}\n\ndef report(items):\n    return compute_total(items)\n",
    "app/edited.py": f"{IMPORT}\n\ndef summary(items):\n    return compute_total(items)\n",
    "app/gone.py": f"{IMPORT}\n\ndef gone(items):\n    return compute_total(items)\n",
}
HERE: dict[str, str] = {
    "app/edited.py": (f"{IMPORT}\n\ndef summary(items):\n    total = 0\n    return total\n\n\n"
                      "def recount(items):\n    return compute_total(list(items))\n"),
    "app/added.py": f"{IMPORT}\nVALUE = compute_total([1]) + compute_total([2])\n",
}


def at(rel: str, needle: str, files: dict[str, str] = CI) -> tuple[int, int]:
    return position(rel, needle, files=files)


def save(s: Session, path: Path) -> None:
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri())))


async def checkout_of_team_index(start_server: StartFn, tmp_path: Path, url: str,
                                 **settings: object) -> tuple[Session, Path]:
    """The server on a checkout of what CI indexed, `app/gone.py` deleted and `app/report.py`
    left out of its local index."""
    ci = write_tree(tmp_path / "ci", CI)
    index_repository(ci, url, REPO, Settings(workers=1, embed=False))
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout)
    (checkout / "app/gone.py").unlink()
    s = await start_server([checkout], init_options={
        "store": url, "repo": REPO, "exclude": ["app/report.py"], **settings})
    await s.wait_idle()
    return s, checkout


async def edit_here(s: Session, checkout: Path) -> None:
    for rel, text in HERE.items():
        (checkout / rel).write_text(text)
        save(s, checkout / rel)
    await s.wait_idle()


async def test_references_come_from_the_team_index_and_the_local_edits(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    s, checkout = await checkout_of_team_index(start_server, tmp_path,
                                               pg_cluster.url(pg_database, OWNER),
                                               provideReferences=True)
    before = await call(s, "kebab/references", {"name": "compute_total"})
    assert starts(before["hits"]) == [  # all the team's; its deleted file hidden
        ("app/edited.py", "call", at("app/edited.py", "compute_total(items)")),
        ("app/edited.py", "import", at("app/edited.py", "compute_total")),
        ("app/report.py", "call", at("app/report.py", "compute_total(items)")),
        ("app/report.py", "import", at("app/report.py", "compute_total")),
    ]
    assert before["meta"]["index"]["team"] == {"backend": "postgresql", "repo": REPO,
                                               "overlay_files": 0, "hidden_files": 1}
    await edit_here(s, checkout)
    found = await call(s, "kebab/references", {"name": "compute_total"})
    # Team files first among files of the same best kind, then the local ones, by path.
    assert starts(found["hits"]) == [
        ("app/report.py", "call", at("app/report.py", "compute_total(items)")),
        ("app/report.py", "import", at("app/report.py", "compute_total")),
        ("app/added.py", "call", at("app/added.py", "compute_total([1]", HERE)),
        ("app/added.py", "call", at("app/added.py", "compute_total([2]", HERE)),
        ("app/added.py", "import", at("app/added.py", "compute_total", HERE)),
        ("app/edited.py", "call", at("app/edited.py", "compute_total(list", HERE)),
        ("app/edited.py", "import", at("app/edited.py", "compute_total", HERE)),
    ]  # the team's call in app/edited.py (removed here) and app/gone.py: never
    meta = found["meta"]
    assert (meta["total_matches"], meta["count_accuracy"]) == (7, "exact")
    assert meta["recall"]["truncated"] is False
    assert meta["index"]["team"] == {"backend": "postgresql", "repo": REPO,
                                     "overlay_files": 2, "hidden_files": 2}
    capped = await call(s, "kebab/references", {"name": "compute_total", "k": 2})
    assert len(capped["hits"]) == 2 and capped["meta"]["total_matches"] == 7
    assert capped["meta"]["recall"]["truncated"] is True

    # By place: the name under the cursor is read from the team index (the local one lacks
    # the file); the declaration comes from it too.
    report = checkout / "app/report.py"
    line, col = at("app/report.py", "compute_total(items)")
    by_place = await call(s, "kebab/references", {
        "textDocument": {"uri": report.as_uri()}, "position": {"line": line, "character": col}})
    assert by_place["hits"] == found["hits"]
    refs = await s.client.text_document_references_async(types.ReferenceParams(
        text_document=types.TextDocumentIdentifier(uri=report.as_uri()),
        position=types.Position(line, col + 3),
        context=types.ReferenceContext(include_declaration=True)))
    assert refs is not None
    got = [(loc.uri.split("/checkout/", 1)[1], loc.range.start.line, loc.range.start.character)
           for loc in refs]
    assert got[0] == ("lib/core.py", *at("lib/core.py", "compute_total"))
    assert got[1:] == [(path, *start) for path, _, start in starts(found["hits"])]
    # A place in a file deleted here is in no index that answers for it.
    with pytest.raises(JsonRpcInvalidParams, match="deleted here"):
        await s.request("kebab/references", {
            "textDocument": {"uri": (checkout / "app/gone.py").as_uri()},
            "position": {"line": 4, "character": 12}})


async def test_handles_resolve_where_they_were_issued_and_stale_ones_say_so(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    """A team handle of an unchanged file is answered from the team index; one of a file
    edited here is stale (the team's copy is), as a local handle of an edited file is: the
    definition may be gone or elsewhere, so the client searches again."""
    s, checkout = await checkout_of_team_index(start_server, tmp_path,
                                               pg_cluster.url(pg_database, OWNER))

    async def hit(query: str, path: str) -> dict[str, str]:
        found = await s.search({"query": query, "mode": "lexical", "k": 50})
        return next(h for h in found["hits"] if h["path"] == path and h["symbol"] == query)

    report = await hit("report", "app/report.py")  # only the team index holds the file
    summary = await hit("summary", "app/edited.py")
    await edit_here(s, checkout)

    info = await call(s, "kebab/symbol", {"symbol_id": report["symbol_id"]})
    assert (info["name"], info["path"], info["kind"]) == ("report", "app/report.py", "function")
    start = info["selection"]["start"]
    assert (start["line"], start["character"]) == at("app/report.py", "report")
    ctx = await call(s, "kebab/context", {"symbol_id": report["symbol_id"]})
    assert ctx["block"]["title"] == "report"
    assert ctx["block"]["lines"] == {"start": at("app/report.py", "def report")[0],
                                     "end": at("app/report.py", "return compute")[0]}
    by_chunk = await call(s, "kebab/context", {"chunk_id": report["chunk_id"]})
    assert by_chunk["block"] == ctx["block"]

    # The ref counts of a name: the team's unchanged files and the local edits.
    core = await hit("compute_total", "lib/core.py")
    counts = (await call(s, "kebab/symbol", {"symbol_id": core["symbol_id"]}))["ref_counts"]
    assert counts["total"] == 7 and {"kind": "call", "count": 4} in counts["by_kind"]

    for method, params in (("kebab/symbol", {"symbol_id": summary["symbol_id"]}),
                           ("kebab/context", {"symbol_id": summary["symbol_id"]}),
                           ("kebab/context", {"chunk_id": summary["chunk_id"]}),
                           ("kebab/references", {"symbol_id": summary["symbol_id"]})):
        with pytest.raises(JsonRpcInvalidParams, match="is stale"):
            await s.request(method, params)
    # A fresh handle of the edited file is the local index's, and resolves there.
    recount = await hit("recount", "app/edited.py")
    edited = await call(s, "kebab/symbol", {"symbol_id": recount["symbol_id"]})
    assert (edited["name"], edited["path"]) == ("recount", "app/edited.py")
    start = edited["selection"]["start"]
    assert (start["line"], start["character"]) == at("app/edited.py", "recount", HERE)
    local_ctx = await call(s, "kebab/context", {"symbol_id": recount["symbol_id"],
                                                "before": 1})
    assert [b["title"] for b in local_ctx["before"]] == ["summary"]
    assert local_ctx["before"][0]["lines"] == {"start": at("app/edited.py", "def summary")[0],
                                               "end": at("app/edited.py", "return total",
                                                         HERE)[0]}


async def test_similar_code_from_unchanged_team_files_never_stale_ones(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    s, checkout = await checkout_of_team_index(start_server, tmp_path,
                                               pg_cluster.url(pg_database, OWNER))
    await edit_here(s, checkout)
    found = await call(s, "kebab/similar", {"text": "return compute_total(items)", "k": 20})
    assert any("lexical" in w for w in found["meta"]["warnings"])  # no vectors on either side
    assert found["meta"]["index"]["team"]["hidden_files"] == 2
    paths = {h["path"] for h in found["hits"]}
    assert {"app/report.py", "app/edited.py"} <= paths and "app/gone.py" not in paths
    for h in found["hits"]:  # the edited file as it is here, never the team's copy
        assert h["path"] != "app/edited.py" or h["title"] != "summary" or \
            "compute_total" not in h["snippet"]["text"], h
    assert "recount" in {h["title"] for h in found["hits"] if h["path"] == "app/edited.py"}
    assert (found["meta"]["total_matches"], found["meta"]["count_accuracy"]) == (
        len(found["hits"]), "exact")

    # By range: the code is read from the team index, and left out of the answer.
    first = at("app/report.py", "def report")[0]
    by_range = await call(s, "kebab/similar", {
        "textDocument": {"uri": (checkout / "app/report.py").as_uri()},
        "range": {"start": {"line": first, "character": 0},
                  "end": {"line": first + 1, "character": 30}}})
    assert all(h["path"] != "app/report.py" or h["lines"]["end"] < first
               for h in by_range["hits"]), by_range["hits"]
    assert "app/edited.py" in {h["path"] for h in by_range["hits"]}

"""A `kebab mcp` that only reads an index while another process builds it: its status says
building, and a first question waits for the first files instead of answering "0 hits,
complete" from an empty index (the real server over stdio, a real second process)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from mcp_support import call, make_workspace, mcp_session

from indexing.location import index_dir_for

#: Holds the writer lease of an index and marks a scan, as a writer does; on "go" it indexes
#: the tree (through the indexer, as the lease's holder may), then ends its scan.
BUILDER = """
import sys
from pathlib import Path
from indexing.runtime.lease import WriterLease, mark_scan
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
root, index_root = Path(sys.argv[1]), sys.argv[2]
ws = Workspace(root, Settings(index_dir=index_root, workers=1, embed=False))
assert WriterLease(ws.index_dir).try_acquire()
mark_scan(ws.index_dir, True)
print("scanning", flush=True)
sys.stdin.readline()
ws.indexer.index()
mark_scan(ws.index_dir, False)
print("built", flush=True)
sys.stdin.readline()
"""


@pytest.mark.subprocess
async def test_a_reader_waits_for_the_index_another_process_is_building(
        tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    index_root = tmp_path / "index"
    builder = subprocess.Popen([sys.executable, "-c", BUILDER, str(ws), str(index_root)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert builder.stdin is not None and builder.stdout is not None
    try:
        assert builder.stdout.readline().strip() == "scanning"
        assert index_dir_for(ws.resolve(), str(index_root)).is_dir()
        async with mcp_session([ws], index_root, "--no-embed") as s:
            (status,) = (await call(s, "get_status"))["roots"]
            assert status["building"] is True and status["writer"]["this_process"] is False
            asked = asyncio.create_task(call(s, "codebase_search", query="get_user_by_id",
                                             k=1))
            await asyncio.sleep(1.0)
            assert not asked.done()  # waiting, not answering from an empty index
            builder.stdin.write("go\n")
            builder.stdin.flush()
            assert builder.stdout.readline().strip() == "built"
            hits = (await asyncio.wait_for(asked, 60))["hits"]
            assert [(h["path"], h["line"]) for h in hits] == [("src/users/store.py", 12)]
            (status,) = (await call(s, "get_status"))["roots"]
            assert status["building"] is False
    finally:
        builder.kill()
        builder.wait(5)


#: Holds the writer lease of an index it built as a team checkout's: only the file edited
#: here is in it, and the index records the team index it is partial of.
PARTIAL = """
import sys
from pathlib import Path
from indexing.indexer import Baseline, content_hash
from indexing.runtime.lease import WriterLease
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
root, index_root = Path(sys.argv[1]), sys.argv[2]
team = Baseline("postgresql://db/kebab acme/app", {
    p.relative_to(root).as_posix(): content_hash(p.read_bytes())
    for p in root.rglob("*") if p.is_file()})
(root / "src/users/store.py").write_text("def archive_user():\\n    pass\\n")
ws = Workspace(root, Settings(index_dir=index_root, workers=1, embed=False))
assert WriterLease(ws.index_dir).try_acquire()
ws.indexer.scan(baseline=team).run(None)
ws.index.record_partial(team)
print("built", flush=True)
sys.stdin.readline()
"""


@pytest.mark.subprocess
async def test_a_readers_status_says_the_index_is_a_team_checkouts_part(
        tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    index_root = tmp_path / "index"
    holder = subprocess.Popen([sys.executable, "-c", PARTIAL, str(ws), str(index_root)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "built"
        async with mcp_session([ws], index_root, "--no-embed") as s:
            got = await s.call_tool("get_status", {})
            (status,) = got.structured_content["roots"]  # type: ignore[index]
            assert status["writer"]["this_process"] is False
            assert (status["files"], status["partial_of"]) == (1, "postgresql://db/kebab "
                                                                  "acme/app")
            assert status["incomplete"].startswith("this index holds only the files that "
                                                   "differed from the team index")
            text = got.content[0].text  # type: ignore[union-attr]
            assert f"warning: ws: {status['incomplete']}" in text
    finally:
        holder.kill()
        holder.wait(5)

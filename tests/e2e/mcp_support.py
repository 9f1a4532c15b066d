"""Driving the real `kebab mcp` with the MCP SDK's own client over stdio."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "fixtures" / "sample_repo"


def make_workspace(tmp_path: Path) -> Path:
    """The sample repo, plus what must never be readable: an ignored file, a file of secrets,
    and a symlink to a file outside the root."""
    root = tmp_path / "ws"
    shutil.copytree(SAMPLE, root)
    (root / ".gitignore").write_text("ignored.py\n", encoding="utf-8")
    (root / "ignored.py").write_text("def ignored_function():\n    pass\n", encoding="utf-8")
    (root / ".env").write_text("API_TOKEN=hunter2\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.py").write_text("def private_function():\n    pass\n",
                                        encoding="utf-8")
    (root / "link_out.py").symlink_to(outside / "private.py")
    return root


@contextlib.asynccontextmanager
async def mcp_session(roots: list[Path], index_dir: Path, *flags: str,
                      errlog: Path | None = None, roots_callback: Any = None,
                      cwd: Path | None = None) -> AsyncIterator[ClientSession]:
    env = dict(os.environ, KEBAB_MCP_DEBUG="1", HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                          if p))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kebab_lsp.cli", "mcp", *map(str, roots), "--index-dir", str(index_dir),
              *flags],
        env=env, cwd=str(cwd or (roots[0] if roots else index_dir.parent)))
    log = open(errlog or os.devnull, "a", encoding="utf-8")  # noqa: SIM115 - closed below
    try:
        async with stdio_client(params, errlog=log) as (read, write):
            kwargs = {"list_roots_callback": roots_callback} if roots_callback else {}
            async with ClientSession(read, write, **kwargs) as session:
                await session.initialize()
                yield session
    finally:
        log.close()


async def call(session: ClientSession, tool: str, **args: Any) -> Any:
    """A successful call's structured content (and its text, as `_text`)."""
    result = await session.call_tool(tool, args)
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    assert not result.is_error, f"{tool} failed: {text}"
    out = dict(result.structured_content or {})
    out["_text"] = text
    return out


async def error(session: ClientSession, tool: str, **args: Any) -> str:
    """A failed call's message."""
    result = await session.call_tool(tool, args)
    assert result.is_error, f"{tool} should have failed: {result.structured_content}"
    return str(result.content[0].text)  # type: ignore[union-attr]


async def wait_embedded(session: ClientSession) -> None:
    """After the first index, until every vector of the root is written."""
    await call(session, "codebase_search", query="user")  # waits for the first index
    deadline = time.monotonic() + 120
    while True:
        vectors = (await call(session, "get_status"))["roots"][0]["vectors"]
        if vectors["total"] and vectors["share"] == 1.0:
            return
        assert time.monotonic() < deadline, "the sample was never fully embedded"
        await asyncio.sleep(0.2)

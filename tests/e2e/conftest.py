"""End-to-end fixtures: the real `kebab serve` over stdio, driven by a pytest-lsp client, on
real files in a temporary workspace.

Every server gets its own index directory (via `KEBAB_INDEX_DIR` and `initializationOptions`)
so nothing touches the user's cache, and a test that restarts the server can point the second
process at the first one's index.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from e2e_support import (
    FILES,
    Recorder,
    Session,
    StartFn,
    capabilities,
    descendants,
    make_client,
    write_tree,
)
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_asyncio.fixture
async def start_server(tmp_path: Path) -> AsyncIterator[StartFn]:
    """Start a real `kebab serve` on some folders; every server started is stopped after the
    test even if it fails."""
    sessions: list[Session] = []

    async def start(
        folders: list[Path],
        index_dir: Path | None = None,
        init_options: dict[str, Any] | None = None,
        progress: bool = True,
        watched_files: bool = True,
    ) -> Session:
        index = index_dir or tmp_path / "index"
        recorder = Recorder()
        env = dict(os.environ, KEBAB_INDEX_DIR=str(index), HF_HUB_OFFLINE="1")
        config = ClientServerConfig(
            # The server's own log, kept next to the test's files for post-mortems.
            server_command=[sys.executable, "-m", "kebab_lsp.cli", "serve",
                            "--log-level", os.environ.get("KEBAB_TEST_LOG_LEVEL", "info"),
                            "--log-file", str(tmp_path / f"server-{len(sessions)}.log")],
            client_factory=lambda: make_client(recorder),
            server_env=env,
        )
        client = await config.start()
        assert isinstance(client, LanguageClient)
        session = Session(client, recorder, folders, index)
        sessions.append(session)
        # Embedding costs CPU that the other tests' timing does not need; the tests about
        # vectors turn it on.
        options = {"indexDir": str(index), "embed": False, **(init_options or {})}
        session.init_result = await client.initialize_session(types.InitializeParams(
            capabilities=capabilities(progress, watched_files),
            workspace_folders=[types.WorkspaceFolder(uri=f.as_uri(), name=f.name)
                               for f in folders],
            initialization_options=options,
        ))
        return session

    yield start

    for session in sessions:
        server = session.client._server
        if server is not None and server.returncode is None:
            stragglers = descendants(server.pid)
            try:
                await asyncio.wait_for(session.client.shutdown_session(), 10)
            except Exception:  # noqa: BLE001 - the test already failed; make sure it dies
                for pid in stragglers | descendants(server.pid):
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                server.kill()
        await session.client.stop()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "ws", FILES)


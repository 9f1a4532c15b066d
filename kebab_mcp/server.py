"""`kebab mcp`: the MCP server over stdio (the `mcp` SDK's `MCPServer`).

Starting is thin: the SDK, pydantic and the request table load, and nothing else until a tool
needs an index (see `kebab_mcp.service`). Standard output carries only protocol messages; logs
go to standard error. The server opens no socket.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from indexing.settings import Settings

INSTRUCTIONS = (
    "kebab searches this workspace's code offline. Start with codebase_search (an identifier, "
    "\"quoted text\" or a plain-words question), then read only the lines you need with "
    "read_file_lines. Call help for how the tools fit together.")


class StderrListener:
    """The runtime's listener: warnings and errors on standard error, no progress bars."""

    def begin(self, title: str, unit: str = "files") -> object:
        from indexing.runtime import SilentListener

        return SilentListener().begin(title, unit)

    def log(self, level: str, message: str) -> None:
        if level in ("warning", "error"):
            print(f"kebab mcp: {message}", file=sys.stderr, flush=True)

    def warn(self, message: str) -> None:
        print(f"kebab mcp: {message}", file=sys.stderr, flush=True)


def build(paths: Sequence[Path], settings: Settings) -> tuple[object, object]:
    """(server, service), wired; nothing runs yet."""
    from kebab_lsp import __version__
    from kebab_mcp.service import Service
    from kebab_mcp.tools import KebabServer, register

    service = Service(paths, settings, StderrListener())
    server = KebabServer(name="kebab", instructions=INSTRUCTIONS, version=__version__,
                         log_level="WARNING")
    register(server, service, debug=os.environ.get("KEBAB_MCP_DEBUG") == "1")
    return server, service


def run_stdio(paths: Sequence[Path], settings: Settings) -> None:
    server, service = build(paths, settings)
    try:
        server.run("stdio")  # type: ignore[attr-defined]
    finally:
        service.close()  # type: ignore[attr-defined]

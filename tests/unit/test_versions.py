"""One version everywhere: the package, the VS Code extension that bundles it, and the oldest
server each editor client accepts (which may not be newer than the server shipped with it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import kebab_lsp

REPO = Path(__file__).resolve().parents[2]


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in version.split("."))


def test_the_extension_has_the_server_version() -> None:
    package = json.loads((REPO / "editors/vscode/package.json").read_text())
    assert package["version"] == kebab_lsp.__version__


def test_each_client_accepts_the_server_of_this_checkout() -> None:
    ts = (REPO / "editors/vscode/src/extension.ts").read_text()
    lua = (REPO / "editors/nvim/lua/kebab/init.lua").read_text()
    wanted = {
        "vscode": re.search(r"MIN_SERVER_VERSION = '([\d.]+)'", ts),
        "nvim": re.search(r'M\.MIN_SERVER_VERSION = "([\d.]+)"', lua),
    }
    for client, found in wanted.items():
        assert found, f"{client}: no MIN_SERVER_VERSION"
        assert _numbers(found.group(1)) <= _numbers(kebab_lsp.__version__), client

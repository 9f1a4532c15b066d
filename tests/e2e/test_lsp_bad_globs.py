"""Globs and ignore files that pathspec cannot read, through the real server: a filter's glob
is refused as invalid params (-32602, no traceback); a setting's glob is refused with a
`window/showMessage` that names the setting, the others applying; a bad line in a `.gitignore`
and an ignore file that is a FIFO leave the folder indexed, each counted in `kebab/status`
(before, the first made the folder index nothing, the second made it build forever)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from e2e_support import Session, StartFn
from pygls.exceptions import JsonRpcInvalidParams

ESCAPES_NOTHING = "is not a valid glob: a '\\' at its end or before a '/' escapes nothing"


async def shown(s: Session, count: int) -> list[str]:
    """The first `count` warnings about settings shown with `window/showMessage`, waited
    for."""
    deadline = time.monotonic() + 10
    while len(said := [m.message for m in s.client.messages
                       if m.message.startswith("kebab setting ")]) < count:
        assert time.monotonic() < deadline, [m.message for m in s.client.messages]
        await asyncio.sleep(0.05)
    return said


async def files(s: Session) -> int:
    return int((await s.status()).folders[0].files)


@pytest.mark.parametrize("glob", ["\\", "foo\\", "app/\\"])
async def test_a_path_glob_ending_in_a_backslash_is_invalid_params(
        start_server: StartFn, workspace: Path, glob: str) -> None:
    s = await start_server([workspace])
    await s.wait_idle()
    for method, params in (("kebab/search", {"query": "parse_config"}),
                           ("kebab/references", {"name": "parse_config"})):
        with pytest.raises(JsonRpcInvalidParams) as caught:
            await s.request(method, {**params, "filters": {"path_glob": glob}})
        assert caught.value.code == -32602
        assert f"path_glob {glob!r} {ESCAPES_NOTHING}" in caught.value.message, (
            method, caught.value.message)
    # The server is still up, and an escaped character is a fine glob.
    hits = (await s.search({"query": "parse_config", "filters": {"path_glob": "app/\\*"}}))
    assert hits["hits"] == []
    assert [h["path"] for h in (await s.search({"query": "parse_config"}))["hits"]] == [
        "app/users.py"]

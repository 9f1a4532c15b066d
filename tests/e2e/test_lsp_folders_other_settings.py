"""A server that reads an index another process writes with other index settings (exclude,
size cap, ...) says so in every answer: the index follows the writer's settings, so a file
these settings index may be missing, and recall is not claimed complete. Once the writer
exits and this server writes the index, it brings it in line and the warning goes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from e2e_support import StartFn, to_json

QUERY = {"query": "test_get_user_by_id", "mode": "lexical"}


async def test_a_reader_warns_that_the_index_follows_the_writers_settings(
        start_server: StartFn, workspace: Path, tmp_path: Path) -> None:
    index = tmp_path / "shared"
    writer = await start_server([workspace], index_dir=index,
                                init_options={"exclude": ["tests/"]})
    await writer.wait_idle()
    reader = await start_server([workspace], index_dir=index)
    status = to_json(await reader.wait_idle())
    assert status["folders"][0]["writer"]["this_process"] is False

    found = await reader.search(QUERY)
    assert found["hits"] == []
    assert found["meta"]["recall"]["complete"] is False
    assert status["folders"][0]["warnings"] == found["meta"]["warnings"]  # the status bar too
    assert found["meta"]["warnings"] == [
        f"the index at {status['folders'][0]['index_dir']} is written by another process, "
        "with other settings (exclude) than this one's: answers follow those, not these, "
        "until this process writes it"]
    # The writer answers by its own settings, which its index follows: no warning there.
    assert (await writer.search(QUERY))["meta"]["warnings"] == []

    await writer.shutdown()
    deadline = time.monotonic() + 30
    while True:
        found = await reader.search(QUERY)
        # The answer's own state: a status asked after it may already say idle.
        if found["hits"] and not found["meta"]["index"]["building"]:
            break
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.2)
    assert [h["path"] for h in found["hits"]] == ["tests/test_users.py"]
    assert found["meta"]["warnings"] == [] and found["meta"]["recall"]["complete"] is True

"""`$/cancelRequest` frees the query worker: the real server, a tree where an exact search of a
common string reads every file, and a cancel that lands while it runs. pygls answers
RequestCancelled the moment the cancel is read whatever the work does, so the test reads the
server's own log, where the work says where it stopped."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

from e2e_support import StartFn, to_json, write_tree
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

FILES = 800
STOPPED = re.compile(r"a cancelled request's work stopped: (.*)$", re.M)
INSIDE_A_LOOP = re.compile(r"^(exact text, reading files|exact text, placing hits|building hits)"
                           r" \((\d+) of (\d+) done\)$")


async def test_a_cancelled_exact_search_stops_mid_scan(start_server: StartFn,
                                                       tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "big", {
        f"pkg{i % 8}/mod_{i:04}.py": f"def common_name_{i}(value):\n    return value + {i}\n"
        for i in range(FILES)})
    s = await start_server([tree], init_options={"workers": 1})
    await s.wait_idle(120)
    params = {"query": '"common_name_"', "mode": "lexical", "k": 500}
    whole = to_json(await s.search(params))
    assert whole["meta"]["total_matches"] == FILES and len(whole["hits"]) == 500
    log = tmp_path / "server-0.log"

    # The cancel must land while the search runs: too early and the work never began (it
    # then stops before its first folder), too late and the answer is complete. Allow a few
    # attempts; without stop checks inside the loops no attempt can ever stop inside one.
    stops: list[str] = []
    for attempt in range(10):
        msg_id = f"to-cancel-{attempt}"
        pending = asyncio.ensure_future(
            s.client.protocol.send_request_async("kebab/search", params, msg_id=msg_id))
        await asyncio.sleep(0.01 * (attempt % 4))
        s.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        with contextlib.suppress(JsonRpcRequestCancelled):
            await pending
        # Cancelled work says where it stopped (work cancelled before a worker took it up
        # never ran, and says nothing): wait a moment for this one's line.
        for _ in range(40):
            stops = STOPPED.findall(log.read_text(encoding="utf-8"))
            if len(stops) > attempt or not pending.exception():
                break
            await asyncio.sleep(0.05)
        if any(INSIDE_A_LOOP.match(stop) for stop in stops):
            break
    inside = [m for stop in stops if (m := INSIDE_A_LOOP.match(stop))]
    assert inside, stops
    _what, done, total = inside[0].groups()
    assert int(done) < int(total)  # it did not run to the end of the loop

    # The worker is free and the server still answers the same request the same way.
    again = to_json(await s.search(params))
    assert [h["id"] for h in again["hits"]] == [h["id"] for h in whole["hits"]]

"""The server opens no network socket: traced with strace, so native code (LanceDB's core,
onnxruntime) is watched too, through indexing, embedding and a hybrid search. Only loopback
is allowed (urllib3, imported with lancedb's write path, probes IPv6 by binding ::1 port 0,
then closes it), and onnxruntime's telemetry is off."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

from e2e_support import FILES, RawClient, write_tree

_INET = re.compile(r"(connect|bind|sendto|sendmsg)\(\d+, \{sa_family=AF_INET6?, (.*?)\}")
_LOOPBACK = re.compile(r'inet_(?:addr\("127\.\d+\.\d+\.\d+"\)|pton\(AF_INET6, "::1")')


def test_no_socket_leaves_the_machine(tmp_path: Path) -> None:
    strace = shutil.which("strace")
    assert strace, "strace is needed to watch native code too (make test installs it)"
    log = tmp_path / "strace.log"
    root = write_tree(tmp_path / "ws", FILES)
    c = RawClient(tmp_path, wrap=[strace, "-f", "-qq", "-o", str(log), "-e",
                                  "trace=%network"])
    try:
        c.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": root.as_uri(), "capabilities": {},
            "initializationOptions": {"embed": True}}})
        assert "result" in c.answer(1, timeout=60)
        c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            vectors = c.status(2)["folders"][0]["vectors"]
            if vectors.get("total") and vectors["embedded"] == vectors["total"]:
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"embedding did not finish: {vectors}")
        c.send({"jsonrpc": "2.0", "id": 3, "method": "kebab/search",
                "params": {"query": "where are users stored", "mode": "hybrid"}})
        assert c.answer(3)["result"]["hits"]
        # onnxruntime's telemetry client, when on, resolves its host about 6 s after the
        # first session is built (`indexing.embed.import_onnxruntime`): the server stays up
        # past that, or a run that finishes sooner passes with it on.
        time.sleep(12)
        c.send({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
        c.answer(4)
        c.send({"jsonrpc": "2.0", "method": "exit"})
        assert c.proc.wait(60) == 0
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
    calls = [m for m in _INET.finditer(log.read_text())]
    outside = [m.group(0) for m in calls if not _LOOPBACK.search(m.group(2))]
    assert outside == [], "network calls beyond loopback: " + json.dumps(outside)
    assert not re.search(r"\blisten\(", log.read_text()), "the server listened on a socket"

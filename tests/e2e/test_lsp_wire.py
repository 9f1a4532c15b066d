"""The real server over raw stdio, fed what a broken or hostile client sends: every bad
message gets a JSON-RPC error with its id, and the next good message is answered correctly."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from e2e_support import FILES, write_tree


class RawClient:
    def __init__(self, tmp_path: Path) -> None:
        env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"), HF_HUB_OFFLINE="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kebab_lsp.cli", "serve", "--log-file",
             str(tmp_path / "server.log")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if not line.strip():
                    break
            self.messages.put(json.loads(out.read(length)))

    def raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def answer(self, msg_id: Any, timeout: float = 30) -> dict[str, Any]:
        """The response to `msg_id` (notifications and server requests on the way are
        skipped; server requests are answered with null)."""
        while True:
            msg = self.messages.get(timeout=timeout)
            if "method" in msg and "id" in msg:
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif msg.get("id") == msg_id and "method" not in msg:
                return msg

    def status(self, msg_id: int) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": "kebab/status"})
        found = self.answer(msg_id)
        assert "result" in found, found
        return found["result"]


def request(msg_id: Any, method: str, params: Any = None) -> bytes:
    payload: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        payload["params"] = params
    return json.dumps(payload).encode()


def test_a_hostile_client_gets_errors_and_the_server_keeps_serving(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", FILES)
    c = RawClient(tmp_path)
    try:
        c.send(json.loads(request(1, "kebab/status")))
        assert c.answer(1)["error"]["code"] == -32002  # before initialize
        c.send(json.loads(request(2, "initialize", {
            "processId": None, "rootUri": root.as_uri(), "capabilities": {},
            "initializationOptions": {"embed": False}})))
        assert c.answer(2)["result"]["serverInfo"]["name"] == "kebab-lsp"
        c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        assert c.status(3)["folders"][0]["root"] == str(root.resolve())

        body = request(10, "kebab/status")
        c.raw(b"Content-Length: %d\n\n" % len(body) + body)  # LF-only headers
        assert c.answer(10)["result"]["folders"]
        c.raw(b"this is not a header\r\n")  # junk between messages
        c.raw(b"Content-Length: abc\r\n\r\n" + request(11, "kebab/status"))
        c.raw(b"Content-Length: -7\r\n\r\n" + request(11, "kebab/status"))
        c.raw(b"Content-Length: 2147483648\r\n\r\n" + request(11, "kebab/status"))
        assert c.status(12)["folders"]  # all three refused, the stream resynchronised
        c.raw(b"Content-Length: 15\r\n\r\n" + request(13, "kebab/status"))  # too short
        assert c.answer(None)["error"]["code"] == -32700  # its first 15 bytes: no id yet
        assert c.status(14)["folders"]
        c.raw(b"Content-Length: 500\r\n\r\n" + request(15, "kebab/status"))  # too long
        c.send(json.loads(request(16, "kebab/status")))
        assert "result" in c.answer(15) and "result" in c.answer(16)  # both, after a stall
        broken = b'{"jsonrpc": "2.0", "id": 17, "method": "kebab/search", "params": {'
        c.raw(b"Content-Length: %d\r\n\r\n" % len(broken) + broken)
        assert c.answer(17)["error"]["code"] == -32700
        latin1 = request(18, "kebab/search", {"query": "caf\u00e9"}).replace(
            b"\\u00e9", b"\xe9")
        c.raw(b"Content-Length: %d\r\n\r\n" % len(latin1) + latin1)
        assert c.answer(18)["error"]["code"] == -32700
        c.send(json.loads(request(19, "kebab/search")))  # params omitted
        assert c.answer(19)["error"]["code"] == -32602
        c.send(json.loads(request(20, "workspace/symbol", {})))
        assert c.answer(20)["error"]["code"] == -32602
        c.send(json.loads(request(21, "kebab/search", {"query": "get_user_by_id"})))
        top = c.answer(21)["result"]["hits"][0]
        assert (top["path"], top["location"]["range"]["start"]) == (
            "app/users.py", {"line": 8, "character": 8})  # and still right

        c.send(json.loads(request(22, "workspace/symbol", {"query": "q" * 100_000})))
        assert "the limit is 1,000" in c.answer(22)["error"]["message"]
        c.send(json.loads(request(23, "workspace/symbol", {"query": "get_user"})))
        assert c.answer(23)["result"][0]["name"] == "get_user_by_id"

        c.send(json.loads(request(30, "shutdown")))
        assert c.answer(30)["result"] is None
        c.send(json.loads(request(31, "kebab/status")))
        assert c.answer(31)["error"]["code"] == -32600  # after shutdown
        c.send({"jsonrpc": "2.0", "method": "exit"})
        assert c.proc.wait(30) == 0
    finally:
        if c.proc.poll() is None:
            c.proc.kill()

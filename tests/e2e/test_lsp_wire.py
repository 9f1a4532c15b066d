"""The real server over raw stdio, fed what a broken or hostile client sends: every bad
message gets a JSON-RPC error with its id, and the next good message is answered correctly."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from e2e_support import FILES, RawClient, big_tree, write_tree


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
        assert (top["path"], top["selection"]["start"]) == (
            "app/users.py", {"line": 8, "character": 8})  # and still right

        c.send(json.loads(request(22, "workspace/symbol", {"query": "q" * 100_000})))
        assert "the limit is 1,000" in c.answer(22)["error"]["message"]
        c.send(json.loads(request(23, "workspace/symbol", {"query": "get_user"})))
        assert c.answer(23)["result"][0]["name"] == "get_user_by_id"
        # A string field given another type is the client's mistake, not a query: 123 is not
        # "123", null not "None", ["get_user"] not its repr (which found get_user_by_id).
        for n, wrong in enumerate((123, None, ["get_user"], {"q": 1}, True)):
            c.send(json.loads(request(24 + n, "workspace/symbol", {"query": wrong})))
            error = c.answer(24 + n)["error"]
            assert error["code"] == -32602, wrong
            assert "expected str @ $.params.query" in error["message"], error

        c.send(json.loads(request(30, "shutdown")))
        assert c.answer(30)["result"] is None
        c.send(json.loads(request(31, "kebab/status")))
        assert c.answer(31)["error"]["code"] == -32600  # after shutdown
        c.send({"jsonrpc": "2.0", "method": "exit"})
        assert c.proc.wait(30) == 0
    finally:
        if c.proc.poll() is None:
            c.proc.kill()


def test_exit_without_shutdown_exits_1_and_quietly(tmp_path: Path) -> None:
    c = RawClient(tmp_path)
    c.send(json.loads(request(1, "initialize", {"processId": None, "rootUri": None,
                                                "capabilities": {}})))
    assert "result" in c.answer(1)
    c.send({"jsonrpc": "2.0", "method": "exit"})
    assert c.proc.wait(30) == 1
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def test_a_client_that_stops_reading_holds_up_nothing(tmp_path: Path) -> None:
    """Answers to a client that does not read pile up in the stdout pipe; the loop must go
    on handling messages meanwhile. Seen from outside: a save sent once the pipe is full still
    reaches the index on disk."""
    import apsw

    from indexing.location import index_dir_for

    root = big_tree(tmp_path / "ws", 30)  # 750 definitions: a k=500 answer is ~0.5 MB
    c = RawClient(tmp_path, read=False)
    db = index_dir_for(root, tmp_path / "index") / "index.sqlite3"

    def names() -> set[str]:
        if not db.exists():
            return set()
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            return {r[0] for r in conn.execute("SELECT name FROM symbols")}
        except apsw.Error:
            return set()
        finally:
            conn.close()

    try:
        c.send(json.loads(request(1, "initialize", {
            "processId": None, "rootUri": root.as_uri(), "capabilities": {},
            "initializationOptions": {"embed": False, "debounceMs": 0, "workers": 1}})))
        c.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        deadline = time.monotonic() + 60
        while "handle_payload_29_24" not in names():  # the first index, seen on disk
            assert time.monotonic() < deadline, "no index appeared"
            time.sleep(0.2)
        for i in range(10):  # ~5 MB of answers: far more than a pipe holds
            c.send(json.loads(request(100 + i, "kebab/search", {
                "query": "payload retries", "mode": "lexical", "k": 500, "explain": True})))
        time.sleep(3)  # the answers are ready and the pipe is full
        (root / "late.py").write_text("def saved_while_blocked():\n    return 1\n")
        c.send({"jsonrpc": "2.0", "method": "textDocument/didSave",
                "params": {"textDocument": {"uri": (root / "late.py").as_uri()}}})
        deadline = time.monotonic() + 20
        while "saved_while_blocked" not in names():
            assert time.monotonic() < deadline, "the save waited behind unread answers"
            time.sleep(0.2)
    finally:
        c.proc.kill()

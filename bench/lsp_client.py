"""A tiny, synchronous JSON-RPC client for driving a language server over stdio.

Only what the benchmark needs: framed requests and notifications, a reader thread that routes
responses to waiting callers, and polite default answers to the requests servers send to
their client (`workspace/configuration`, `client/registerCapability`, progress creation).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any


class LspError(Exception):
    """The server answered with a JSON-RPC error."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        super().__init__(f"{method}: {error.get('code')} {error.get('message')}")
        self.error = error


class _Pending:
    __slots__ = ("done", "response")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.response: dict[str, Any] | None = None


ConfigFn = Callable[[dict[str, Any]], Any]


class LspClient:
    """One server process; `request` blocks until the answer (or `timeout`) arrives."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        configuration: ConfigFn | None = None,
        stderr_path: Path | None = None,
    ) -> None:
        self._stderr = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            cwd=str(cwd) if cwd else None,
            env={**os.environ, **(env or {})},
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._out: IO[bytes] = self.proc.stdin
        self._in: IO[bytes] = self.proc.stdout
        self._write_lock = threading.Lock()
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._next_id = 0
        self._configuration = configuration or (lambda item: None)
        self.notifications: list[tuple[str, Any]] = []
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # -- wire ------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        with self._write_lock:
            self._out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self._out.flush()

    def _read_message(self) -> dict[str, Any] | None:
        length = None
        while True:
            line = self._in.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length is None:
            return None
        data = self._in.read(length)
        result: dict[str, Any] = json.loads(data)
        return result

    def _read_loop(self) -> None:
        while True:
            try:
                msg = self._read_message()
            except (OSError, ValueError):
                msg = None
            if msg is None:
                with self._lock:
                    for pending in self._pending.values():
                        pending.done.set()
                return
            if "id" in msg and "method" in msg:
                self._answer_server_request(msg)
            elif "id" in msg:
                with self._lock:
                    waiting = self._pending.pop(int(msg["id"]), None)
                if waiting is not None:
                    waiting.response = msg
                    waiting.done.set()
            elif "method" in msg and len(self.notifications) < 10_000:
                self.notifications.append((msg["method"], msg.get("params")))

    def _answer_server_request(self, msg: dict[str, Any]) -> None:
        method = msg["method"]
        result: Any = None
        if method == "workspace/configuration":
            items = (msg.get("params") or {}).get("items") or []
            result = [self._configuration(item) for item in items]
        elif method == "workspace/workspaceFolders":
            result = []
        self._send({"id": msg["id"], "result": result})

    # -- API -------------------------------------------------------------------------------

    def request(self, method: str, params: Any = None, timeout: float = 120.0) -> Any:
        with self._lock:
            self._next_id += 1
            rid = self._next_id
            pending = self._pending[rid] = _Pending()
        self._send({"id": rid, "method": method, "params": params})
        if not pending.done.wait(timeout):
            with self._lock:
                self._pending.pop(rid, None)
            raise TimeoutError(f"{method} got no answer in {timeout:.0f} s")
        response = pending.response
        if response is None:
            raise ConnectionError(f"server exited before answering {method}")
        if "error" in response:
            raise LspError(method, response["error"])
        return response.get("result")

    def cancelled(self, method: str, params: Any = None, timeout: float = 120.0) -> str:
        """Send a request and cancel it at once; how it ended: "cancelled" (RequestCancelled)
        or "answered" (the work won the race). Any other error raises."""
        with self._lock:
            self._next_id += 1
            rid = self._next_id
            pending = self._pending[rid] = _Pending()
        self._send({"id": rid, "method": method, "params": params})
        self.notify("$/cancelRequest", {"id": rid})
        if not pending.done.wait(timeout):
            raise TimeoutError(f"{method} got neither an answer nor a cancellation")
        response = pending.response
        if response is None:
            raise ConnectionError(f"server exited before answering {method}")
        error = response.get("error")
        if error is None:
            return "answered"
        if error.get("code") == -32800:
            return "cancelled"
        raise LspError(method, error)

    def timed(self, method: str, params: Any = None, timeout: float = 120.0) -> tuple[float, Any]:
        """(seconds, result) of one round trip."""
        t0 = time.perf_counter()
        result = self.request(method, params, timeout)
        return time.perf_counter() - t0, result

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"method": method, "params": params})

    def initialize(
        self, roots: Sequence[Path], options: dict[str, Any] | None = None, timeout: float = 120.0
    ) -> Any:
        folders = [{"uri": r.resolve().as_uri(), "name": r.name} for r in roots]
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": folders[0]["uri"] if folders else None,
                "workspaceFolders": folders,
                "initializationOptions": options or {},
                "capabilities": {
                    "workspace": {
                        "workspaceFolders": True,
                        "configuration": True,
                        "symbol": {"dynamicRegistration": False},
                        "didChangeWatchedFiles": {"dynamicRegistration": False},
                    },
                    "textDocument": {"synchronization": {"didSave": True}},
                },
            },
            timeout=timeout,
        )
        self.notify("initialized", {})
        return result

    def close(self, timeout: float = 20.0) -> None:
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
            except (TimeoutError, ConnectionError, LspError, OSError):
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()  # type: ignore[union-attr]

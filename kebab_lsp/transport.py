"""LSP over stdio that survives a bad client: framing, parsing and writing.

pygls's own loop trusts every header: a wrong `Content-Length`, LF-only line ends or a body
that is not JSON leave it alive but deaf, and an editor has no way to notice and restart it.
Here:

- headers are read line by line (CRLF or LF, any case); a line that is not a header is skipped
  up to the next `Content-Length:`, so a message cut short or followed by junk costs only
  itself (the stream re-synchronises);
- a length that is not a number, or larger than `MAX_MESSAGE_BYTES`, is refused and skipped;
- a body that stops arriving before its stated length (the length was too long) is cut after
  `STALL_S` of silence: its leading JSON value is handled and the rest is read as headers;
- every body that is not UTF-8, not JSON, not JSON-RPC, or whose params do not fit the method,
  is answered with an error that carries its id when one can be found;
- requests before `initialize` get ServerNotInitialized (-32002), and requests after
  `shutdown` get InvalidRequest, instead of silence;
- responses are written by one writer thread, so a client that reads slowly holds up no
  handler and no other response (and a cancel is never stuck behind a large answer).
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from cattrs import transform_error
from cattrs.errors import BaseValidationError
from pygls.exceptions import JsonRpcException

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_HEADER_LINE = 64 * 1024
STALL_S = 2.0
READ_CHUNK = 64 * 1024
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
SERVER_NOT_INITIALIZED = -32002
_CONTENT_LENGTH = re.compile(rb"content-length:\s*(\S*)\s*$", re.IGNORECASE)
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,20})')
_ALWAYS_ALLOWED = ("initialize", "exit")


class StopReading(Exception):
    """Raised by a body handler to end the read loop (the client sent `exit`)."""


class _Buffered:
    """A byte source with push-back over an asyncio stream, so a body cut at a stall can
    return its tail to the header parser."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream
        self.buffer = bytearray()
        self.eof = False

    async def _fill(self, timeout: float | None) -> bool:
        """Read more; False at end of input or when nothing arrived within `timeout`."""
        if self.eof:
            return False
        try:
            chunk = await asyncio.wait_for(self.stream.read(READ_CHUNK), timeout)
        except TimeoutError:
            return False
        if not chunk:
            self.eof = True
            return False
        self.buffer.extend(chunk)
        return True

    async def line(self) -> bytes | None:
        """The next line without its end; None at end of input. A line longer than
        `MAX_HEADER_LINE` is returned cut (it is junk to the header parser anyway)."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0 or len(self.buffer) >= MAX_HEADER_LINE:
                cut = end if end >= 0 else MAX_HEADER_LINE
                data = bytes(self.buffer[:cut])
                del self.buffer[: cut + 1 if end >= 0 else cut]
                return data.rstrip(b"\r")
            if not await self._fill(None):
                if self.buffer:
                    data = bytes(self.buffer)
                    self.buffer.clear()
                    return data
                return None

    async def body(self, length: int) -> tuple[bytes, bool]:
        """(bytes, complete): `length` bytes, or fewer when input stalls or ends first."""
        while len(self.buffer) < length:
            if not await self._fill(STALL_S):
                break
        data = bytes(self.buffer[:length])
        del self.buffer[: len(data)]
        return data, len(data) == length

    def push_back(self, data: bytes) -> None:
        self.buffer[:0] = data


async def read_bodies(stream: asyncio.StreamReader,
                      on_body: Callable[[bytes], None],
                      on_junk: Callable[[str], None]) -> None:
    """Call `on_body` for every message body until end of input."""
    source = _Buffered(stream)
    length: int | None = None
    while True:
        line = await source.line()
        if line is None:
            return
        found = _CONTENT_LENGTH.search(line)
        if found:
            if found.start() > 0:
                on_junk(f"{found.start()} byte(s) before a header")
            value = found.group(1)
            length = int(value) if value.isdigit() else None
            if length is None or length > MAX_MESSAGE_BYTES:
                on_junk(f"refused Content-Length {value[:40]!r}")
                length = None
            continue
        if line.strip():
            if length is None:
                on_junk(f"skipped a line outside any message ({len(line)} bytes)")
            continue  # another header (Content-Type), or junk
        if length is None:
            continue  # a blank line with no length: nothing to read
        body, complete = await source.body(length)
        length = None
        if not complete and body:
            # The length was too long: take the first JSON value, read the rest as headers.
            try:
                _, end = json.JSONDecoder().raw_decode(body.decode("utf-8", "replace"))
                head = body.decode("utf-8", "replace")[:end].encode("utf-8")
            except ValueError:
                head = body
            on_junk(f"a body stopped after {len(body)} of its stated bytes")
            source.push_back(body[len(head):])
            body = head
        if body:
            try:
                on_body(body)
            except StopReading:
                return


class ThreadedWriter:
    """Writes to stdout from its own thread, in order. Owned by the server: started with the
    transport, stopped by `close`."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="kebab-stdout", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        self._queue.put(data)

    def close(self) -> None:
        self._queue.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join(5)

    def _run(self) -> None:
        while True:
            data = self._queue.get()
            if data is None:
                return
            try:
                self.stream.write(data)
                self.stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                logger.error("the client's end of stdout is gone")
                return


def id_of(body: bytes) -> Any:
    """The request id of a body that does not parse, when one can be found in it."""
    found = _ID.search(body)
    if not found:
        return None
    try:
        return json.loads(found.group(1))
    except ValueError:
        return None


class Dispatcher:
    """Checks each body and hands good messages to the pygls protocol."""

    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.initialized = False
        self.exit_code: int | None = None

    def reply_error(self, msg_id: Any, code: int, message: str) -> None:
        self.protocol._send_data({"jsonrpc": "2.0", "id": msg_id,
                                  "error": {"code": code, "message": message}})

    def handle(self, body: bytes) -> None:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.reply_error(id_of(body), PARSE_ERROR, f"message body is not UTF-8: {exc}")
            return
        try:
            data = json.loads(text)
        except ValueError as exc:
            self.reply_error(id_of(body), PARSE_ERROR, f"malformed JSON: {exc}")
            return
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            self.reply_error(data.get("id") if isinstance(data, dict) else None,
                             INVALID_REQUEST, "not a JSON-RPC 2.0 message object")
            return
        method, msg_id = data.get("method"), data.get("id")
        is_request = "id" in data and isinstance(method, str)
        if "method" in data and not isinstance(method, str):
            self.reply_error(msg_id, INVALID_REQUEST, "'method' must be a string")
            return
        if not self._allowed(data, method, is_request):
            return
        if isinstance(method, str) and "params" not in data:
            data["params"] = None  # JSON-RPC lets a request omit params
        try:
            message = self.protocol.structure_message(data)
        except JsonRpcException as exc:
            if is_request:
                self.reply_error(msg_id, INVALID_PARAMS,
                                 f"params of {method} do not fit the method: {_why(exc)}")
            else:
                logger.warning("ignored a %s notification whose params do not fit", method)
            return
        try:
            self.protocol.handle_message(message)
        except SystemExit as exc:  # pygls's `exit` handler: stop reading, keep the code
            self.exit_code = exc.code if isinstance(exc.code, int) else 0
            raise StopReading() from exc

    def _allowed(self, data: dict[str, Any], method: Any, is_request: bool) -> bool:
        if method == "initialize":
            self.initialized = True
            return True
        if not isinstance(method, str) or method in _ALWAYS_ALLOWED:
            return True  # responses to our requests, and exit, always pass
        if not self.initialized:
            if is_request:
                self.reply_error(data["id"], SERVER_NOT_INITIALIZED,
                                 f"{method}: the server is not initialized yet")
            return False
        if getattr(self.protocol, "_shutdown", False):
            if is_request:
                self.reply_error(data["id"], INVALID_REQUEST,
                                 f"{method}: the server is shutting down")
            return False
        return True


async def serve(protocol: Any, stop: threading.Event, stdin: BinaryIO | None = None) -> None:
    """Read stdin until it ends (or `stop` is set), dispatching every message."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_HEADER_LINE * 2)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                 stdin or sys.stdin.buffer)
    dispatcher = Dispatcher(protocol)

    def junk(what: str) -> None:
        logger.warning("framing: %s", what)

    task = asyncio.ensure_future(read_bodies(reader, dispatcher.handle, junk))
    while not task.done():
        if stop.is_set():
            task.cancel()
            return
        await asyncio.wait([task], timeout=0.5)
    task.result()  # a reader failure is not swallowed
    if dispatcher.exit_code is not None:  # `exit`: LSP's code (0 after shutdown, else 1)
        raise SystemExit(dispatcher.exit_code)


def _why(exc: JsonRpcException) -> str:
    """Which field of the params is wrong, and how, when the converter said (at most three)."""
    cause = exc.__cause__
    if isinstance(cause, BaseValidationError):
        return "; ".join(transform_error(cause, path="$")[:3])
    return str(exc.message)

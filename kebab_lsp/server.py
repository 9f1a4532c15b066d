"""The pygls server object: protocol plumbing shared by every handler, and the stdio entry point.
The handlers themselves live in `kebab_lsp.handlers`, the one place they are registered.

Threading (the whole table is in docs/architecture.md):
- The asyncio event loop only reads and writes messages and translates types. It never
  parses, writes the index or scans symbol tables, so the editor is answered while a large
  index builds.
- The indexing runtime's threads (writer, embed scheduler, refresher) do the indexing work;
  they report through `LspListener`, whose calls hop onto the loop and never wait on the client.
- Queries run on a small thread pool; a cancelled request sets a flag the search checks
  between stages and inside its long loops (exact text reads file after file), so the worker
  is free for the next request; where the work stopped goes to the server's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO, TypeVar

from cattrs import Converter
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter, lsp_method

from indexing.runtime import ProgressSink
from kebab_lsp import __version__
from kebab_lsp.session import Session
from kebab_lsp.transport import ThreadedWriter, serve
from search.engine import Cancelled

logger = logging.getLogger("kebab_lsp")

T = TypeVar("T")
QUERY_WORKERS = 4
PROGRESS_INTERVAL_S = 0.2

_LEVELS = {"error": types.MessageType.Error, "warning": types.MessageType.Warning,
           "info": types.MessageType.Info, "debug": types.MessageType.Log}
_PY_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO,
              "debug": logging.DEBUG}


class KebabProtocol(LanguageServerProtocol):
    """Always negotiates UTF-16 positions.

    The index stores columns in UTF-16 code units (LSP's default, which every client must
    support), and `kebab search --json` prints the same objects. pygls would otherwise pick the
    client's first preference (Neovim offers utf-8 first), and columns after non-ASCII text
    would point at the wrong character.
    """

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Any:
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            general.position_encodings = [types.PositionEncodingKind.Utf16]
        return (yield from super().lsp_initialize(params))


def strict_converter() -> Converter:
    """lsprotocol's converter, except that a string field takes a string only: cattrs would
    make `{"query": 123}` the query "123", `null` the query "None" and a list its repr, and
    answer those as if asked. A wrong type is the client's mistake, answered with -32602."""
    converter = default_converter()
    converter.register_structure_hook(str, _only_str)
    return converter


def _only_str(value: object, _type: type) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, not {type(value).__name__} {value!r:.40}")
    return value


class KebabServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("kebab-lsp", __version__, protocol_cls=KebabProtocol,
                         converter_factory=strict_converter)
        self.session = Session(LspListener(self))
        self.query_pool = ThreadPoolExecutor(QUERY_WORKERS, thread_name_prefix="kebab-query")
        self.pending_folders: list[types.WorkspaceFolder] = []
        #: What `initialized` goes on to do once the folders are open (the team index, file
        #: watchers): held here so the task lives until it is done.
        self.starting: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._early: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self._early_lock = threading.Lock()
        self._closed = False

    def client_supports(self, field: str) -> bool:
        """Whether a nested client capability is truthy, e.g. `window.work_done_progress`."""
        return bool(get_capability(self.client_capabilities, field))

    # -- messages to the client, from any thread ---------------------------------------------

    def ready(self) -> None:
        """`initialized` arrived: the client may now hear from us. Messages produced earlier
        (a settings warning, a rebuilt index) were queued, and go out now, in order."""
        with self._early_lock:
            self._loop = asyncio.get_running_loop()
            early, self._early = self._early, []
        for fn, args in early:
            fn(*args)

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        with self._early_lock:
            loop = self._loop
            if loop is None:
                self._early.append((fn, args))
                return
        if loop.is_closed():
            return
        if _on_loop(loop):
            fn(*args)
            return
        with contextlib.suppress(RuntimeError):  # the loop closed between the check and now
            loop.call_soon_threadsafe(fn, *args)

    def log(self, level: str, message: str) -> None:
        logger.log(_PY_LEVELS.get(level, logging.INFO), message)
        params = types.LogMessageParams(type=_LEVELS.get(level, types.MessageType.Log),
                                        message=message)
        self.call_on_loop(self.window_log_message, params)

    def warn_user(self, message: str) -> None:
        logger.warning(message)
        params = types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        self.call_on_loop(self.window_show_message, params)

    # -- query work off the loop ---------------------------------------------------------------

    async def run_query(self, work: Callable[[Callable[[], bool]], T]) -> T:
        """Run `work(should_stop)` on the query pool. If the request is cancelled while it
        runs, `should_stop` turns true so the work gives up at its next checkpoint, and the
        cancellation propagates so pygls answers RequestCancelled."""
        stop = threading.Event()

        def logged(should_stop: Callable[[], bool]) -> T:
            # pygls has answered RequestCancelled already, and nobody reads this exception:
            # the log is the one place that shows whether the work stopped early.
            try:
                return work(should_stop)
            except Cancelled as exc:
                logger.info("a cancelled request's work stopped: %s", str(exc) or "at a checkpoint")
                raise

        future = asyncio.get_running_loop().run_in_executor(self.query_pool, logged, stop.is_set)
        try:
            return await future
        except asyncio.CancelledError:
            stop.set()
            raise

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with our own transport (`kebab_lsp.transport`) instead of pygls's,
        which a single framing error leaves deaf."""
        self._stop_event = threading.Event()
        self._writer = ThreadedWriter(stdout or sys.stdout.buffer)
        self.protocol.set_writer(self._writer)
        try:
            asyncio.run(serve(self.protocol, self._stop_event, stdin))
        except KeyboardInterrupt:
            pass
        finally:  # a SystemExit from `exit` carries LSP's exit code out after this
            self.shutdown()
            self._writer.close()  # after every pending response went out

    def close(self) -> None:
        """Stop the runtime and the query pool; safe to call more than once. The writer stays
        until serving ends, so the answer to `shutdown` still goes out."""
        if self._closed:
            return
        self._closed = True
        self.session.close()
        self.query_pool.shutdown(wait=False, cancel_futures=True)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class _LspSink:
    """`$/progress` for one server-created token. Creating the token is a request to the
    client; it is sent from the loop, and reports made before the client answers wait here, so
    the runtime thread that reports never waits. A client that refuses gets nothing more.
    Reports are throttled so a big index does not flood the client. Touched on the loop only."""

    def __init__(self, server: KebabServer, title: str, unit: str) -> None:
        self.server = server
        self.token = f"kebab/index/{uuid.uuid4().hex}"
        self.title = title
        self.unit = unit
        self._state = "creating"  # then "open", "refused" or "ended"
        self._waiting: list[types.WorkDoneProgressReport | types.WorkDoneProgressEnd] = []
        self._last_pct = -1
        self._last_at = 0.0
        server.call_on_loop(self._create)

    def _create(self) -> None:
        asyncio.ensure_future(self._created())

    async def _created(self) -> None:
        try:
            await self.server.work_done_progress.create_async(self.token)
        except Exception as exc:  # noqa: BLE001 - a client refusing progress is not fatal
            logger.info("no progress token (%s); indexing silently", exc)
            self._state = "refused"
            return
        self.server.work_done_progress.begin(self.token, types.WorkDoneProgressBegin(
            title=self.title, message="scanning files", percentage=0, cancellable=False))
        self._state = "open"
        waiting, self._waiting = self._waiting, []
        for value in waiting:
            self._send(value)

    def _send(self, value: types.WorkDoneProgressReport | types.WorkDoneProgressEnd) -> None:
        if self._state == "creating":
            self._waiting.append(value)
        elif self._state == "open":
            if isinstance(value, types.WorkDoneProgressEnd):
                self._state = "ended"
                self.server.work_done_progress.end(self.token, value)
            else:
                self.server.work_done_progress.report(self.token, value)

    def report(self, done: int, total: int) -> None:
        # (0, 0): the walk is not done (or there is nothing to write): no share to show yet;
        # `end` says when it is finished.
        pct = 0 if total == 0 else min(100, done * 100 // total)
        now = time.monotonic()
        if pct == self._last_pct and now - self._last_at < PROGRESS_INTERVAL_S:
            return
        self._last_pct, self._last_at = pct, now
        value = types.WorkDoneProgressReport(message=f"{done}/{total} {self.unit}",
                                             percentage=pct)
        self.server.call_on_loop(self._send, value)

    def end(self, message: str) -> None:
        self.server.call_on_loop(self._send, types.WorkDoneProgressEnd(message=message))


class _LogSink:
    """Progress for clients without `window.workDoneProgress`: nothing on the wire."""

    def report(self, done: int, total: int) -> None:
        pass

    def end(self, message: str) -> None:
        pass


class LspListener:
    """The runtime's `Listener`: progress tokens, log messages and warnings the user sees."""

    def __init__(self, server: KebabServer) -> None:
        self.server = server

    def begin(self, title: str, unit: str = "files") -> ProgressSink:
        if not self.server.client_supports("window.work_done_progress"):
            return _LogSink()
        return _LspSink(self.server, title, unit)

    def log(self, level: str, message: str) -> None:
        self.server.log(level, message)

    def warn(self, message: str) -> None:
        self.server.warn_user(f"kebab: {message}")


def _configure_logging(log_level: str, log_file: str | None) -> None:
    level = logging.getLevelName(log_level.upper())
    if not isinstance(level, int):
        level = logging.INFO
    # stdout carries the protocol: logs go to a file or stderr, never stdout.
    handler: logging.Handler = (
        logging.FileHandler(log_file, encoding="utf-8") if log_file
        else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # pygls logs every message at INFO; keep it quiet unless debugging.
    logging.getLogger("pygls").setLevel(level if level <= logging.DEBUG else logging.WARNING)


def run_stdio(log_level: str = "info", log_file: str | None = None) -> None:
    """Serve LSP over stdin/stdout until `exit` (or end of input), then stop every thread."""
    from kebab_lsp.handlers import create_server

    _configure_logging(log_level, log_file)
    server = create_server()
    try:
        server.start_io()
    finally:
        server.close()

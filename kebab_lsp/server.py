"""The kebab language server: the pygls server object, the one place features are registered,
and the stdio entry point.

Threading model (why each piece runs where it does):
- The asyncio event loop only reads and writes messages and translates types. It never
  parses, writes the index or scans symbol tables, so the editor is answered while a large
  index builds.
- One writer thread (`IndexService`) performs every index write: first scans, re-scans,
  didSave and file-watcher updates, in arrival order.
- Queries (`workspace/symbol`, `kebab/search`) run on a small thread pool. SQLite in WAL mode
  lets them read while the writer commits. A cancelled request sets a `threading.Event` that
  the search checks between stages.
- Anything the writer thread wants to tell the client (progress, logs) hops onto the loop with
  `call_soon_threadsafe`, because pygls writes to stdout from the loop only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from kebab_lsp import __version__
from kebab_lsp.config import Settings
from kebab_lsp.features import Feature, Handler
from kebab_lsp.indexing_service import IndexService, ProgressSink

logger = logging.getLogger("kebab_lsp")

T = TypeVar("T")
QUERY_WORKERS = 4
PROGRESS_INTERVAL_S = 0.2

_LEVELS = {
    "error": types.MessageType.Error,
    "warning": types.MessageType.Warning,
    "info": types.MessageType.Info,
    "debug": types.MessageType.Log,
}
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


class KebabServer(LanguageServer):
    """pygls server plus the state every feature shares."""

    def __init__(self) -> None:
        super().__init__("kebab-lsp", __version__, protocol_cls=KebabProtocol)
        self.settings = Settings()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.query_pool = ThreadPoolExecutor(QUERY_WORKERS, thread_name_prefix="kebab-query")
        self.reporter = LspReporter(self)
        self.index = IndexService(self.reporter, debounce_s=self.settings.debounce_ms / 1000)
        self._closed = False
        self._close_lock = threading.Lock()

    # -- client capabilities ---------------------------------------------------------------

    def client_supports(self, dotted: str) -> bool:
        """Whether a nested client capability is truthy, e.g. `window.work_done_progress`."""
        value: Any = self.client_capabilities
        for part in dotted.split("."):
            value = getattr(value, part, None)
            if value is None:
                return False
        return bool(value)

    # -- messages to the client (loop thread or any thread) --------------------------------

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if _on_loop(loop):
            fn(*args)
            return
        # RuntimeError: the loop closed between the check and the call.
        with contextlib.suppress(RuntimeError):
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

    # -- running query work off the loop ---------------------------------------------------

    async def run_query(self, work: Callable[[Callable[[], bool]], T]) -> T:
        """Run `work(should_stop)` on the query pool. If the request is cancelled while it
        runs, `should_stop` turns true so the work gives up at its next checkpoint, and the
        cancellation propagates so pygls answers RequestCancelled."""
        stop = threading.Event()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.query_pool, work, stop.is_set)
        try:
            return await future
        except asyncio.CancelledError:
            stop.set()
            raise

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the writer and the query pool; safe to call more than once."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self.index.stop()
        self.query_pool.shutdown(wait=False, cancel_futures=True)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


class _LogSink:
    """Progress for clients without `window.workDoneProgress`: nothing on the wire."""

    def report(self, done: int, total: int) -> None:
        pass

    def end(self, message: str) -> None:
        pass


class _LspSink:
    """`$/progress` report/end for one server-created token, throttled so a big index does not
    flood the client."""

    def __init__(self, server: KebabServer, token: str, unit: str) -> None:
        self.server = server
        self.token = token
        self.unit = unit
        self._last_pct = -1
        self._last_at = 0.0

    def report(self, done: int, total: int) -> None:
        pct = 100 if total == 0 else min(100, done * 100 // total)
        now = time.monotonic()
        if pct == self._last_pct and now - self._last_at < PROGRESS_INTERVAL_S:
            return
        self._last_pct, self._last_at = pct, now
        value = types.WorkDoneProgressReport(message=f"{done}/{total} {self.unit}",
                                             percentage=pct)
        self.server.call_on_loop(self.server.work_done_progress.report, self.token, value)

    def end(self, message: str) -> None:
        value = types.WorkDoneProgressEnd(message=message)
        self.server.call_on_loop(self.server.work_done_progress.end, self.token, value)


class LspReporter:
    """The `IndexListener` the writer thread talks to: progress tokens and log messages."""

    def __init__(self, server: KebabServer) -> None:
        self.server = server

    def begin(self, title: str, unit: str = "files") -> ProgressSink:
        server = self.server
        loop = server.loop
        if loop is None or not server.client_supports("window.work_done_progress"):
            return _LogSink()
        token = f"kebab/index/{uuid.uuid4().hex}"
        try:
            created = asyncio.run_coroutine_threadsafe(
                server.work_done_progress.create_async(token), loop)
            created.result(timeout=10)
        except Exception as exc:  # noqa: BLE001 - a client refusing progress is not fatal
            logger.info("no progress token (%s); indexing silently", exc)
            return _LogSink()
        begin = types.WorkDoneProgressBegin(title=title, message="scanning files",
                                            percentage=0, cancellable=False)
        server.call_on_loop(server.work_done_progress.begin, token, begin)
        return _LspSink(server, token, unit)

    def log(self, level: str, message: str) -> None:
        self.server.log(level, message)


# -- the one place features are registered ----------------------------------------------------


def feature_classes() -> list[type[Feature]]:
    from kebab_lsp.features.commands import CommandsFeature
    from kebab_lsp.features.lifecycle import LifecycleFeature
    from kebab_lsp.features.search import SearchFeature
    from kebab_lsp.features.status import StatusFeature
    from kebab_lsp.features.symbols import SymbolsFeature
    from kebab_lsp.features.sync import SyncFeature

    return [LifecycleFeature, SyncFeature, SymbolsFeature, SearchFeature, StatusFeature,
            CommandsFeature]


def register_features(server: KebabServer) -> list[Feature]:
    """Register every feature's handlers with pygls.

    A notification several features care about gets one handler that calls theirs in
    registration order; a request must have exactly one owner.
    """
    features = [cls(server) for cls in feature_classes()]
    by_method: dict[str, list[Handler]] = defaultdict(list)
    for feature in features:
        for handler in feature.handlers():
            if handler.command:
                server.command(handler.method)(_as_function(handler.func))
            else:
                by_method[handler.method].append(handler)
    for method, handlers in by_method.items():
        if len(handlers) == 1:
            server.feature(method, handlers[0].options)(_as_function(handlers[0].func))
            continue
        if _is_request(method) and method not in _NOTIFICATION_LIKE:
            raise ValueError(f"request {method!r} has more than one handler")
        options = next((h.options for h in handlers if h.options is not None), None)
        server.feature(method, options)(_fan_out([h.func for h in handlers]))
    return features


# Requests whose result is nothing, where running several handlers is still well defined.
_NOTIFICATION_LIKE = frozenset({types.SHUTDOWN})


def _is_request(method: str) -> bool:
    """LSP requests have a result type; custom methods here (kebab/...) are all requests."""
    known = types.METHOD_TO_TYPES.get(method)
    return known is None or known[1] is not None


def _as_function(func: Callable[..., Any]) -> Callable[..., Any]:
    """pygls tags handlers with attributes, which bound methods refuse: hand it a plain
    function of the same kind (coroutine or not)."""
    if asyncio.iscoroutinefunction(func):
        async def run_async(*args: Any) -> Any:
            return await func(*args)

        return run_async

    def run(*args: Any) -> Any:
        return func(*args)

    return run


def _fan_out(funcs: list[Callable[..., Any]]) -> Callable[..., Any]:
    async def handler(params: Any) -> None:
        for func in funcs:
            result = func(params)
            if asyncio.iscoroutine(result):
                await result

    return handler


def create_server() -> KebabServer:
    server = KebabServer()
    register_features(server)
    return server


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
    _configure_logging(log_level, log_file)
    server = create_server()
    try:
        server.start_io()
    finally:
        server.close()

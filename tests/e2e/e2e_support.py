"""Support for the end-to-end tests: the fixture workspace, the recording pytest-lsp client,
and a thin session wrapper over the real `kebab serve` process. The fixtures themselves are
in `conftest.py`.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from jsonschema import Draft202012Validator
from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

import kebab_lsp

SCHEMA_PATH = Path(kebab_lsp.__file__).parent / "schema" / "search.v1.json"
INDEX_TIMEOUT_S = 30.0

# A small real workspace: definitions in four languages, a test file, and prose.
FILES: dict[str, str] = {
    "app/users.py": '''"""User lookups."""

MAX_USERS = 100


class UserService:
    """Finds users."""

    def get_user_by_id(self, user_id: int) -> dict:
        return {"id": user_id}

    def delete_user(self, user_id: int) -> None:
        pass


def parse_config(path: str) -> dict:
    """Reads the YAML config file."""
    return {}
''',
    "web/api.ts": '''export interface User {
  id: number;
  name: string;
}

export function getUserById(id: number): User {
  return { id, name: "x" };
}

export class Greeter {
  greet(name: string): string {
    return "hello " + name;
  }
}
''',
    "svc/server.go": '''package svc

type Server struct {
	Port int
}

func (s *Server) Start() error {
	return nil
}

func NewServer(port int) *Server {
	return &Server{Port: port}
}
''',
    "docs/guide.md": '''# Guide

## Installing

Run the installer and configure the retry policy.
''',
    "tests/test_users.py": '''def test_get_user_by_id():
    assert True
''',
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def big_tree(root: Path, files: int) -> Path:
    """Many similar files: enough work for a search or an index to be caught mid-way."""
    tree = {
        f"pkg/mod_{i:03}.py": "".join(
            f"def handle_payload_{i}_{j}(payload, retries={j}):\n"
            f'    """Process payload {j} with retries."""\n'
            f"    return payload.get('k{j}') or payload\n\n" for j in range(25))
        for i in range(files)
    }
    return write_tree(root, tree)


WORDS = ("parse", "load", "store", "fetch", "render", "merge", "split", "retry", "close", "open")


def crash_tree(root: Path, files: int = 450, defs: int = 4) -> Path:
    """More files than one write batch (200), so a kill can fall between batches, inside one,
    or in the parse pool's work; enough for the pool (64+ files) to run."""
    for i in range(files):
        write_module(root, i, defs, variant=0)
    return root


def write_module(root: Path, i: int, defs: int, variant: int) -> Path:
    path = root / f"pkg{i % 9}" / f"mod_{i:04}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(
        f"def {WORDS[(i + j + variant) % len(WORDS)]}_{i}_{j}_v{variant}(item, tries={j}):\n"
        f'    """{WORDS[j % len(WORDS)]} item {i}.{j}, version {variant}."""\n'
        f"    return item.get('k{j}') or {i * j + variant}\n\n" for j in range(defs)))
    return path


def load_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


LOOKUPS_SCHEMA: dict[str, Any] = json.loads(
    (SCHEMA_PATH.parent / "lookups.v1.json").read_text(encoding="utf-8"))
LOOKUP_PARAMS = {"kebab/references": "referencesParams", "kebab/symbol": "symbolParams",
                 "kebab/context": "contextParams", "kebab/similar": "similarParams"}
_LOOKUP_RESULTS = {"kebab/symbol": "symbolResult", "kebab/context": "contextResult"}


@functools.cache
def _validator(definition: str | None) -> Draft202012Validator:
    """The search schema's validator (None), or one of lookups.v1.json's definitions'."""
    if definition is None:
        return Draft202012Validator(load_schema())
    return Draft202012Validator({**LOOKUPS_SCHEMA, "$ref": f"#/$defs/{definition}"})


def conforms(value: Any, definition: str) -> Any:
    """`value` is valid under one of lookups.v1.json's definitions."""
    errors = list(_validator(definition).iter_errors(value))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    return value


def valid(result: dict[str, Any]) -> dict[str, Any]:
    """Valid under the published search schema, and every hit's selection lies in its
    location."""
    errors = sorted(_validator(None).iter_errors(result), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)
    for hit in [*result.get("hits", []), *result.get("definitions", []),
                *result.get("blocks", [])]:
        cited, best = hit["location"]["range"], hit["selection"]
        assert point(cited["start"]) <= point(best["start"]) <= point(best["end"]) \
            <= point(cited["end"]), hit
    return result


def point(pos: dict[str, int]) -> tuple[int, int]:
    return pos["line"], pos["character"]


def starts(hits: list[dict[str, Any]]) -> list[tuple[str, str, tuple[int, int]]]:
    """(path, kind of ref, start) of each usage hit."""
    out = []
    for h in hits:
        start = h["selection"]["start"]
        out.append((h["path"], h["ref"]["kind"], (start["line"], start["character"])))
    return out


async def call(s: Session, method: str, params: Any) -> Any:
    """A lookup whose params and answer are checked against the published schemas."""
    conforms(params, LOOKUP_PARAMS[method])
    answer = to_json(await s.request(method, params))
    return conforms(answer, _LOOKUP_RESULTS[method]) if method in _LOOKUP_RESULTS \
        else valid(answer)


@dataclass
class Recorder:
    """What the client saw besides responses: dynamic registrations and partial results."""

    registrations: list[types.Registration] = field(default_factory=list)
    partial: dict[Any, list[Any]] = field(default_factory=dict)


def make_client(recorder: Recorder) -> LanguageClient:
    """pytest-lsp's test client, plus handlers for `client/registerCapability` and for
    partial-result `$/progress` (whose value is a list, which the stock handler rejects)."""
    from pygls.protocol import default_converter

    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    stock_progress = features[types.PROGRESS]

    def progress(client: LanguageClient, params: types.ProgressParams) -> None:
        if isinstance(params.value, list):
            recorder.partial.setdefault(params.token, []).extend(params.value)
            return
        stock_progress(client, params)

    def register_capability(client: LanguageClient, params: types.RegistrationParams) -> None:
        recorder.registrations.extend(params.registrations)

    features[types.PROGRESS] = progress
    features[types.CLIENT_REGISTER_CAPABILITY] = register_capability
    register_lsp_features(client, features)
    return client


def capabilities(progress: bool = True, watched_files: bool = True
                 ) -> types.ClientCapabilities:
    """`watched_files=False`: a client that cannot register file watchers, as Neovim on
    Linux."""
    return types.ClientCapabilities(
        # Like Neovim: utf-8 preferred. The server must still answer in UTF-16.
        general=types.GeneralClientCapabilities(position_encodings=[
            types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16]),
        window=types.WindowClientCapabilities(work_done_progress=progress),
        workspace=types.WorkspaceClientCapabilities(
            workspace_folders=True,
            configuration=True,
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=watched_files),
            file_operations=types.FileOperationClientCapabilities(
                did_create=True, did_delete=True, did_rename=True),
            symbol=types.WorkspaceSymbolClientCapabilities(),
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True)),
    )


@dataclass
class Session:
    client: LanguageClient
    recorder: Recorder
    folders: list[Path]
    index_dir: Path
    init_result: types.InitializeResult | None = None

    @property
    def pid(self) -> int:
        server = self.client._server
        assert server is not None
        return server.pid

    async def request(self, method: str, params: Any) -> Any:
        return await self.client.protocol.send_request_async(method, params)

    async def status(self) -> Any:
        return await self.request("kebab/status", {})

    async def wait_idle(self, timeout: float = INDEX_TIMEOUT_S) -> Any:
        """Poll `kebab/status` until nothing is queued, pending or running."""
        deadline = time.monotonic() + timeout
        while True:
            status = await self.status()
            if not status.building and status.folders:
                return status
            if time.monotonic() > deadline:
                raise AssertionError(f"index still building after {timeout}s: {status}")
            await asyncio.sleep(0.05)

    async def wait_embedded(self, timeout: float = INDEX_TIMEOUT_S) -> Any:
        """Poll `kebab/status` until every folder's chunks all have vectors."""
        deadline = time.monotonic() + timeout
        while True:
            status = to_json(await self.status())
            vectors = [f["vectors"] for f in status["folders"]]
            if not status["building"] and vectors and all(
                    v["enabled"] and v["total"] and v["embedded"] == v["total"] for v in vectors):
                return status
            if time.monotonic() > deadline:
                raise AssertionError(f"embedding unfinished after {timeout}s: {status}")
            await asyncio.sleep(0.1)

    async def search(self, params: dict[str, Any]) -> dict[str, Any]:
        """`kebab/search`, as plain JSON (the client hands custom results over as
        namedtuples)."""
        result = await self.request("kebab/search", params)
        return to_json(result)

    async def symbols(self, query: str) -> list[types.SymbolInformation]:
        """workspace/symbol. pygls types the answer as `SymbolInformation` on the client even
        though the server sends `WorkspaceSymbol`s; the fields asserted on are the same."""
        result = await self.client.workspace_symbol_async(
            types.WorkspaceSymbolParams(query=query))
        return cast(list[types.SymbolInformation], list(result or []))

    async def shutdown(self) -> int:
        await self.client.shutdown_session()
        server = self.client._server
        assert server is not None
        await asyncio.wait_for(server.wait(), 10)
        assert server.returncode is not None
        return server.returncode


def descendants(pid: int) -> set[int]:
    """Every live process below `pid` (Linux /proc), e.g. indexer pool workers."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:  # a process that exited (and was reaped) has no /proc entry: it has no children
            listed = list(Path(f"/proc/{parent}/task").glob("*/children"))
        except OSError:
            continue
        for children in listed:
            try:
                kids = {int(k) for k in children.read_text().split()}
            except OSError:
                continue
            todo.extend(kids - found)
            found |= kids
    return found


def alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def assert_none_survive(pids: set[int], context: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            left = {p: Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in pids if alive(p)}
            for p in left:
                os.kill(p, signal.SIGKILL)
            raise AssertionError(f"{context}: survived the kill: {left}")
        time.sleep(0.05)


def to_json(value: Any) -> Any:
    if hasattr(value, "_asdict"):
        return {k: to_json(v) for k, v in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


StartFn = Callable[..., Awaitable[Session]]




def position(
    rel: str, needle: str, end: bool = False, files: dict[str, str] = FILES
) -> tuple[int, int]:
    """(line, character) where `needle` starts (or ends) in one of the fixture files, so
    expected ranges are derived from the text instead of typed in as magic numbers."""
    text = files[rel]
    offset = text.index(needle) + (len(needle) if end else 0)
    before = text[:offset]
    line = before.count("\n")
    return line, offset - (before.rfind("\n") + 1)


def span(rel: str, first: str, last: str, files: dict[str, str] = FILES
         ) -> tuple[tuple[int, int], tuple[int, int]]:
    return position(rel, first, files=files), position(rel, last, end=True, files=files)


def range_of(loc: types.Location) -> tuple[tuple[int, int], tuple[int, int]]:
    r = loc.range
    return (r.start.line, r.start.character), (r.end.line, r.end.character)


class RawClient:
    """A client that writes raw bytes to the real server's stdin, to send what pytest-lsp's
    client never would; `wrap` runs the server under another command (strace)."""

    def __init__(self, tmp_path: Path, wrap: list[str] | None = None,
                 read: bool = True) -> None:
        env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"), HF_HUB_OFFLINE="1")
        self.proc = subprocess.Popen(
            [*(wrap or []), sys.executable, "-m", "kebab_lsp.cli", "serve", "--log-file",
             str(tmp_path / "server.log")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.early: dict[str, dict[str, Any]] = {}  # responses by id (as JSON)
        if read:  # a client that never reads lets the server's answers pile up in the pipe
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
        """The response to `msg_id`. Responses come in the order the work finishes, so one
        that arrives early is kept for its own call; server requests on the way are answered
        with null, notifications skipped."""
        while json.dumps(msg_id) not in self.early:
            msg = self.messages.get(timeout=timeout)
            if "method" in msg and "id" in msg:
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif "method" not in msg:
                self.early[json.dumps(msg.get("id"))] = msg
        return self.early.pop(json.dumps(msg_id))

    def status(self, msg_id: int) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": "kebab/status"})
        found = self.answer(msg_id)
        assert "result" in found, found
        return found["result"]

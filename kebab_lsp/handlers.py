"""Every LSP method the server answers, one short function each, registered in one place
(`create_server`).

A handler turns protocol types into domain types, calls the session or the runtime, and turns
the answer back; ranking, SQL and threads live elsewhere. pygls passes the server as the first
argument (named `ls`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.uris import to_fs_path

from indexing.settings import SECTION, is_setting, plain
from kebab_lsp.convert import (
    context_wire,
    folder_status_wire,
    grouped_wire,
    lsp_location,
    result_wire,
    symbol_wire,
    unopened_wire,
    workspace_symbol,
)
from kebab_lsp.server import KebabServer
from search.lookups import (
    parse_context,
    parse_references,
    parse_similar,
    parse_symbol,
)
from search.request import parse_request
from search.types import InvalidQuery, SearchUnavailable

F = TypeVar("F", bound=Callable[..., Any])
REINDEX = "kebab.reindex"
WATCHER_REGISTRATION_ID = "kebab/watched-files"
PARTIAL_BATCH = 50
#: LSP's RequestFailed: the request was well formed, but the server cannot do what it asks.
REQUEST_FAILED = -32803
_ALL_FILES = types.FileOperationRegistrationOptions(filters=[types.FileOperationFilter(
    pattern=types.FileOperationPattern(glob="**/*"), scheme="file")])
_HANDLERS: list[tuple[str, Any, Callable[..., Any]]] = []
_converter = get_converter()


def handles(method: str, options: Any = None) -> Callable[[F], F]:
    def register(func: F) -> F:
        _HANDLERS.append((method, options, func))
        return func

    return register


@contextlib.contextmanager
def _rpc_errors() -> Iterator[None]:
    """What a request gets wrong is InvalidParams; a search that cannot be answered as asked
    (an explicit mode without its channel) is RequestFailed: the one mapping, for every
    request."""
    try:
        yield
    except InvalidQuery as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    except SearchUnavailable as exc:
        raise JsonRpcException(str(exc), code=REQUEST_FAILED) from exc


def create_server() -> KebabServer:
    """The server with every handler registered: the one place the surface is assembled."""
    server = KebabServer()
    for method, options, func in _HANDLERS:
        server.feature(method, options)(func)
    server.command(REINDEX)(reindex)
    return server


# -- start-up and shutdown ----------------------------------------------------------------------


@handles(types.INITIALIZE)
def initialize(ls: KebabServer, params: types.InitializeParams) -> None:
    """Only reads settings (the client waits on this); folders open on `initialized`."""
    warnings, _ = ls.session.start(params.initialization_options)
    for warning in warnings:
        ls.warn_user(warning)  # queued until the client is ready to hear it
    folders = list(params.workspace_folders or [])
    root = params.root_uri or (Path(params.root_path).as_uri() if params.root_path else None)
    if not folders and root:
        folders = [types.WorkspaceFolder(uri=root, name=_name(root))]
    ls.pending_folders = folders


@handles(types.INITIALIZED)
def initialized(ls: KebabServer, params: types.InitializedParams) -> None:
    """The folders open here, before the next message is handled: a client may send a
    command right after `initialized` (VS Code's Rebuild Index during a restart), and an
    async handler, run later as a task, had it find no folder ("rebuilding 0 folder(s)").
    What waits on the client goes on in a task (`_start`)."""
    ls.ready()
    if not ls.pending_folders:
        ls.log("warning", "no workspace folder: nothing to index")
    for folder in ls.pending_folders:
        _open_folder(ls, folder.uri, folder.name)
    ls.pending_folders = []
    ls.starting = asyncio.ensure_future(_start(ls))


async def _start(ls: KebabServer) -> None:
    await _prepare_team(ls)
    # Folders first: file events that arrived before now find their folder when the writer
    # starts, instead of being dropped as belonging to none.
    ls.session.runtime.start()
    await _register_watchers(ls)


@handles(types.SHUTDOWN)
async def shutdown(ls: KebabServer, params: Any) -> None:
    # Joining the runtime's threads can take a moment: off the loop, so replies keep flowing.
    await asyncio.get_running_loop().run_in_executor(None, ls.close)


@handles(types.EXIT)
def exit_(ls: KebabServer, params: Any) -> None:
    ls.close()


# -- configuration and folders ------------------------------------------------------------------


@handles(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: KebabServer,
                                   params: types.DidChangeConfigurationParams) -> None:
    raw = plain(params.settings)
    if not raw and ls.client_supports("workspace.configuration"):
        answer = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)]))
        raw = plain(answer[0]) if answer else None
    if isinstance(raw, dict) and raw and SECTION not in raw and not any(map(is_setting, raw)):
        return  # another extension's section: not ours to judge
    # The whole configuration, even empty (`{"kebab": {}}`, or a pull answering `{}` or
    # null): what it leaves out returns to its base value (`Session.configure`).
    warnings, changed = ls.session.configure(raw)
    for warning in warnings:
        ls.warn_user(warning)
    if changed:
        ls.log("info", f"settings changed: {', '.join(changed)}")
    if {"store", "repo"} & set(changed):
        await _prepare_team(ls)


async def _prepare_team(ls: KebabServer) -> None:
    """With a team index, its checkout's local index holds only what differs from it: the
    team's hashes are read (off the loop) before the writer scans."""
    failed = await asyncio.get_running_loop().run_in_executor(None, ls.session.prepare_team)
    if failed:
        ls.log("warning", f"team index: {failed}; the local index holds every file meanwhile")


@handles(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
def did_change_folders(ls: KebabServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
    for removed in params.event.removed or []:
        if ls.session.runtime.remove_folder(removed.uri) is not None:
            ls.log("info", f"closed workspace folder {removed.uri}")
    for added in params.event.added or []:
        _open_folder(ls, added.uri, added.name)


# -- keeping the index current ------------------------------------------------------------------


@handles(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: KebabServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.session.runtime.changed(_paths([params.text_document.uri]))


@handles(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: KebabServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.session.runtime.changed(_paths(c.uri for c in params.changes))


@handles(types.WORKSPACE_DID_CREATE_FILES, _ALL_FILES)
def did_create_files(ls: KebabServer, params: types.CreateFilesParams) -> None:
    ls.session.runtime.changed(_paths(f.uri for f in params.files))


@handles(types.WORKSPACE_DID_DELETE_FILES, _ALL_FILES)
def did_delete_files(ls: KebabServer, params: types.DeleteFilesParams) -> None:
    ls.session.runtime.changed(_paths(f.uri for f in params.files))


@handles(types.WORKSPACE_DID_RENAME_FILES, _ALL_FILES)
def did_rename_files(ls: KebabServer, params: types.RenameFilesParams) -> None:
    for rename in params.files:
        old, new = _paths([rename.old_uri]), _paths([rename.new_uri])
        if old and new:
            ls.session.runtime.renamed(old[0], new[0])


@handles(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: KebabServer, params: types.DidOpenTextDocumentParams) -> None:
    for path in _paths([params.text_document.uri]):
        ls.session.runtime.opened(path)


@handles(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: KebabServer, params: types.DidCloseTextDocumentParams) -> None:
    for path in _paths([params.text_document.uri]):
        ls.session.runtime.closed(path)


# -- answers ------------------------------------------------------------------------------------


@handles(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolOptions(resolve_provider=False))
async def workspace_symbols(ls: KebabServer,
                            params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    with _rpc_errors():
        matches = await ls.run_query(lambda stop: ls.session.symbols(params.query, stop))
    symbols = [workspace_symbol(m, params.query) for m in matches]
    token = params.partial_result_token
    if token is None:
        return symbols
    # Partial results go out as `$/progress` on the client's token; the response is then
    # empty, as the spec asks.
    for start in range(0, len(symbols), PARTIAL_BATCH):
        batch = _converter.unstructure(symbols[start : start + PARTIAL_BATCH])
        ls.progress(types.ProgressParams(token=token, value=batch))
    return []


@handles("kebab/search")
async def search(ls: KebabServer, params: Any = None) -> dict[str, Any]:
    with _rpc_errors():
        req = parse_request(params, ls.session.settings)
        result = await ls.run_query(lambda stop: ls.session.search(req, stop))
        if req.group:
            grouped = await ls.run_query(lambda stop: ls.session.group(result, stop))
            return grouped_wire(grouped, result.meta, explain=req.explain)
    return result_wire(result, explain=req.explain)


@handles("kebab/references")
async def references(ls: KebabServer, params: Any = None) -> dict[str, Any]:
    """The refs of a name: given as a symbol handle, a name, or a place in a document."""
    with _rpc_errors():
        req = parse_references(params, ls.session.settings)
        result = await ls.run_query(lambda stop: ls.session.references(req, stop))
    return result_wire(result, explain=False)


@handles("kebab/symbol")
async def symbol(ls: KebabServer, params: Any = None) -> dict[str, Any]:
    with _rpc_errors():
        handle = parse_symbol(params)
        info = await ls.run_query(lambda stop: ls.session.describe_symbol(handle, stop))
    return symbol_wire(info)


@handles("kebab/context")
async def context(ls: KebabServer, params: Any = None) -> dict[str, Any]:
    with _rpc_errors():
        req = parse_context(params)
        found = await ls.run_query(lambda stop: ls.session.context(req, stop))
    return context_wire(found)


@handles("kebab/similar")
async def similar(ls: KebabServer, params: Any = None) -> dict[str, Any]:
    with _rpc_errors():
        req = parse_similar(params, ls.session.settings)
        result = await ls.run_query(lambda stop: ls.session.similar(req, stop))
    return result_wire(result, explain=False)


@handles(types.TEXT_DOCUMENT_REFERENCES)
async def text_document_references(ls: KebabServer,
                                   params: types.ReferenceParams) -> list[types.Location] | None:
    """Served from the index's refs (by name) only when `provideReferences` is on."""
    if not ls.session.settings.provide_references:
        return None
    paths = _paths([params.text_document.uri])
    if not paths:
        return None
    pos, declaration = params.position, params.context.include_declaration

    def answer(stop: Any) -> list[types.Location]:
        return [lsp_location(root, path, span) for root, path, span in
                ls.session.references_at(paths[0], pos.line, pos.character, declaration, stop)]

    return list(await ls.run_query(answer))


@handles("kebab/status")
async def status(ls: KebabServer, params: Any = None) -> dict[str, Any]:
    """Editors poll this for a status bar: counters only, read off the loop."""
    folders = ls.session.folders()
    listed = await ls.run_query(lambda stop: [
        folder_status_wire(f, ls.session.writer_status(f)) for f in folders])
    # Read after the folder stats: a job finishing in between then shows as not building
    # with final counts, never as idle with stale ones; and a folder that was building when
    # it was read keeps the answer building, so the two never disagree.
    building = ls.session.runtime.building or any(f["building"] for f in listed)
    unopened = [unopened_wire(u) for u in ls.session.runtime.unopened_folders()]
    return {"folders": listed, "building": building, "unopened": unopened}


def reindex(ls: KebabServer, *args: Any) -> dict[str, Any]:
    """`kebab.reindex [folder URI ...]`: rebuild from scratch (every folder when none is named);
    answers at once, progress follows through `$/progress`."""
    uris = [a for a in args if a is not None]
    if not all(isinstance(a, str) for a in uris):
        raise JsonRpcInvalidParams(f"{REINDEX} takes workspace folder URIs (strings)")
    try:
        folders = ls.session.reindex(uris)
    except KeyError as exc:
        raise JsonRpcInvalidParams(f"not an open workspace folder: {exc.args[0]}") from exc
    ls.log("info", f"rebuilding {len(folders)} folder(s) from scratch")
    return {"queued": [str(f.root) for f in folders]}


# -- helpers ------------------------------------------------------------------------------------


def _paths(uris: Any) -> list[Path]:
    return [Path(p) for u in uris if u.startswith("file:") and (p := to_fs_path(u))]


def _name(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1] or uri


def _open_folder(ls: KebabServer, uri: str, name: str) -> None:
    try:
        folder = ls.session.open_folder(uri, name or _name(uri), to_fs_path(uri))
    except Exception as exc:  # noqa: BLE001 - one unusable folder must not stop the rest
        ls.warn_user(f"kebab: workspace folder {uri} is not searched: {exc}")
        return
    ls.log("info", f"opened {folder.root} (index: {folder.index.index_dir})")


async def _register_watchers(ls: KebabServer) -> None:
    """Changes made outside the editor (git checkout, formatters) arrive as watched-file
    events; only clients that allow dynamic registration can be asked for them. A client that
    cannot (Neovim on Linux) or refuses leaves them to a watcher of our own."""
    if not ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
        ls.log("info", "client cannot register file watchers dynamically; watching the "
                       "workspace folders here")
        ls.session.follow_changes(editor_reports=False)
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[types.FileSystemWatcher(glob_pattern="**/*")])
    registration = types.Registration(id=WATCHER_REGISTRATION_ID,
                                      method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                      register_options=options)
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(registrations=[registration]))
    except Exception as exc:  # noqa: BLE001 - a refusal: our own watcher instead
        ls.log("warning", f"could not register file watchers ({exc}); watching the workspace "
                          "folders here")
        ls.session.follow_changes(editor_reports=False)
    else:
        ls.session.follow_changes(editor_reports=True)
        ls.log("info", "registered workspace/didChangeWatchedFiles for **/*")

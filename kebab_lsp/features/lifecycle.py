"""Start-up, configuration, workspace folders and shutdown.

Start-up work is split on purpose: `initialize` only reads settings (the client waits on it),
`initialized` opens each folder and queues its first scan on the writer thread, so the first
requests are answered while the index builds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from kebab_lsp.config import SECTION, index_shape_changed, is_setting, parse_settings, plain
from kebab_lsp.features import Feature, Handler

WATCHER_REGISTRATION_ID = "kebab/watched-files"


class LifecycleFeature(Feature):
    _pending_folders: list[types.WorkspaceFolder]
    _warnings: list[str]

    def handlers(self) -> Iterable[Handler]:
        return (
            Handler(types.INITIALIZE, self.initialize),
            Handler(types.INITIALIZED, self.initialized),
            Handler(types.WORKSPACE_DID_CHANGE_CONFIGURATION, self.did_change_configuration),
            Handler(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, self.did_change_folders),
            Handler(types.SHUTDOWN, self.shutdown),
            Handler(types.EXIT, self.exit),
        )

    # -- start-up --------------------------------------------------------------------------

    def initialize(self, params: types.InitializeParams) -> None:
        server = self.server
        server.settings, self._warnings = parse_settings(
            params.initialization_options, server.settings)
        server.index.debounce_s = server.settings.debounce_ms / 1000
        folders = list(params.workspace_folders or [])
        if not folders:
            root_uri = params.root_uri or (
                Path(params.root_path).as_uri() if params.root_path else None)
            if root_uri:
                folders = [types.WorkspaceFolder(uri=root_uri, name=_name(root_uri))]
        self._pending_folders = folders

    async def initialized(self, params: types.InitializedParams) -> None:
        server = self.server
        server.loop = asyncio.get_running_loop()
        for warning in self._warnings:
            server.warn_user(warning)
        if not self._pending_folders:
            server.log("warning", "no workspace folder: nothing to index")
        for folder in self._pending_folders:
            self.open_folder(folder.uri, folder.name)
        self._pending_folders = []
        await self._register_watchers()

    async def _register_watchers(self) -> None:
        """Changes made outside the editor (git checkout, formatters) arrive as watched-file
        events; only clients that allow dynamic registration can be asked for them."""
        server = self.server
        if not server.client_supports("workspace.did_change_watched_files.dynamic_registration"):
            server.log("info", "client cannot register file watchers dynamically; "
                               "relying on didSave and file operation events")
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern="**/*")])
        registration = types.Registration(
            id=WATCHER_REGISTRATION_ID,
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            await server.client_register_capability_async(
                types.RegistrationParams(registrations=[registration]))
        except Exception as exc:  # noqa: BLE001 - a refusal only loses the watcher
            server.log("warning", f"could not register file watchers: {exc}")
        else:
            server.log("info", "registered workspace/didChangeWatchedFiles for **/*")

    def open_folder(self, uri: str, name: str) -> None:
        server = self.server
        path = to_fs_path(uri)
        if path is None or not Path(path).is_dir():
            server.warn_user(f"kebab: workspace folder {uri} is not a local directory; skipped")
            return
        try:
            folder = server.index.add_folder(uri, name or _name(uri), Path(path),
                                             server.settings.workspace_options())
        except Exception as exc:  # noqa: BLE001 - one unusable folder must not stop the rest
            server.warn_user(f"kebab: cannot open an index for {path}: {exc}")
            return
        server.log("info", f"opened {folder.root} (index: {folder.workspace.index_dir})")

    # -- configuration ---------------------------------------------------------------------

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        server = self.server
        raw: Any = plain(params.settings)
        if not raw and server.client_supports("workspace.configuration"):
            try:
                answer = await server.workspace_configuration_async(types.ConfigurationParams(
                    items=[types.ConfigurationItem(section=SECTION)]))
                raw = plain(answer[0]) if answer else None
            except Exception as exc:  # noqa: BLE001
                server.log("warning", f"could not read the kebab configuration: {exc}")
                return
        if isinstance(raw, dict) and SECTION not in raw and raw and not _looks_like_ours(raw):
            return  # another extension's section: not ours to judge
        new, warnings = parse_settings(raw, server.settings)
        for warning in warnings:
            server.warn_user(warning)
        old, server.settings = server.settings, new
        server.index.debounce_s = new.debounce_ms / 1000
        if index_shape_changed(old, new):
            server.log("info", "index settings changed: reopening every folder")
            for folder in server.index.folders():
                server.index.remove_folder(folder.uri)
                self.open_folder(folder.uri, folder.name)

    # -- workspace folders -----------------------------------------------------------------

    def did_change_folders(self, params: types.DidChangeWorkspaceFoldersParams) -> None:
        server = self.server
        for removed in params.event.removed or []:
            if server.index.remove_folder(removed.uri) is not None:
                server.log("info", f"closed workspace folder {removed.uri}")
        for added in params.event.added or []:
            self.open_folder(added.uri, added.name)

    # -- shutdown --------------------------------------------------------------------------

    async def shutdown(self, params: Any) -> None:
        # Joining the writer can take a moment (it stops at its next checkpoint): do it off
        # the loop so the shutdown response and other messages are not held up meanwhile.
        await asyncio.get_running_loop().run_in_executor(None, self.server.close)

    def exit(self, params: Any) -> None:
        self.server.close()


def _name(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1] or uri


def _looks_like_ours(raw: dict[str, Any]) -> bool:
    """A flat settings object is ours if any key is one of our settings."""
    return any(is_setting(k) for k in raw)

"""Keeping the index current: saves, watched files and file operations.

Every handler only turns URIs into paths and hands them to the writer thread, which debounces,
batches and hash-checks them; nothing here touches the index, so a burst of thousands of
events never stalls the loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from kebab_lsp.features import Feature, Handler

_ALL_FILES = types.FileOperationRegistrationOptions(
    filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*"),
                                       scheme="file")]
)


def uri_path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return Path(path) if path else None


class SyncFeature(Feature):
    def handlers(self) -> Iterable[Handler]:
        return (
            Handler(types.TEXT_DOCUMENT_DID_SAVE, self.did_save,
                    types.SaveOptions(include_text=False)),
            Handler(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, self.did_change_watched_files),
            Handler(types.WORKSPACE_DID_CREATE_FILES, self.did_create_files, _ALL_FILES),
            Handler(types.WORKSPACE_DID_DELETE_FILES, self.did_delete_files, _ALL_FILES),
            Handler(types.WORKSPACE_DID_RENAME_FILES, self.did_rename_files, _ALL_FILES),
            Handler(types.TEXT_DOCUMENT_DID_OPEN, self.did_open),
            Handler(types.TEXT_DOCUMENT_DID_CLOSE, self.did_close),
        )

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        """Open files are what the user is looking at: they are embedded first."""
        path = uri_path(params.text_document.uri)
        if path is not None:
            self.server.index.opened(path)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        path = uri_path(params.text_document.uri)
        if path is not None:
            self.server.index.closed(path)

    def _changed(self, uris: Iterable[str]) -> None:
        paths = [p for p in (uri_path(u) for u in uris) if p is not None]
        if paths:
            self.server.index.changed(paths)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        self._changed([params.text_document.uri])

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        # Created, changed and deleted are all "look at this path again": the writer's hash
        # check and existence check decide what actually happened.
        self._changed(change.uri for change in params.changes)

    def did_create_files(self, params: types.CreateFilesParams) -> None:
        self._changed(f.uri for f in params.files)

    def did_delete_files(self, params: types.DeleteFilesParams) -> None:
        self._changed(f.uri for f in params.files)

    def did_rename_files(self, params: types.RenameFilesParams) -> None:
        for rename in params.files:
            old, new = uri_path(rename.old_uri), uri_path(rename.new_uri)
            if old is not None and new is not None:
                self.server.index.renamed(old, new)
            elif new is not None:
                self.server.index.changed([new])

"""`kebab/status`: what each folder's index holds and whether indexing is running.

Editors poll this for a status bar, so it reads only counters (no scans) and runs off the
loop like every other read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from kebab_lsp.features import Feature, Handler
from kebab_lsp.indexing_service import Folder

METHOD = "kebab/status"


def _percent(progress: tuple[int, int] | None) -> dict[str, int] | None:
    if progress is None:
        return None
    done, total = progress
    return {"done": done, "total": total,
            "percentage": 100 if total == 0 else done * 100 // total}


def _vectors(folder: Folder, chunks: int) -> dict[str, Any]:
    ws = folder.workspace
    vindex = ws.vector_index()
    if vindex is None:
        return {"enabled": False, "reason": ws.vector_error}
    have, total = vindex.coverage(chunks)
    return {"enabled": True, "embedded": have, "total": total,
            "progress": _percent(folder.embedding)}


def folder_status(folder: Folder) -> dict[str, Any]:
    stats = folder.workspace.store.stats()
    return {
        "uri": folder.uri,
        "root": str(folder.root),
        "index_dir": str(folder.workspace.index_dir),
        "files": stats.files,
        "symbols": stats.symbols,
        "chunks": stats.chunks,
        "schema_version": stats.schema_version,
        "lexical_version": stats.lexical_version,
        "last_update": stats.last_update,
        "building": folder.workspace.building,
        "progress": _percent(folder.progress),
        "vectors": _vectors(folder, stats.chunks),
    }


class StatusFeature(Feature):
    def handlers(self) -> Iterable[Handler]:
        return (Handler(METHOD, self.status),)

    async def status(self, params: Any) -> dict[str, Any]:
        server = self.server
        folders = server.index.folders()

        def work(should_stop: Callable[[], bool]) -> list[dict[str, Any]]:
            return [folder_status(f) for f in folders]

        listed = await server.run_query(work)
        # Read after the folder stats: a job finishing in between then shows as not building
        # with final counts, never as idle with stale ones.
        building = server.index.building or any(f["building"] for f in listed)
        return {"folders": listed, "building": building}

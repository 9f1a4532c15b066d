"""`workspace/executeCommand` commands.

`kebab.reindex` rebuilds from scratch: the escape hatch for an index a user distrusts, so
nobody ever has to find and delete the cache directory by hand. It only queues the work and
answers at once; progress arrives through `$/progress` like the first index.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kebab_lsp.features import Feature, Handler, invalid_params

REINDEX = "kebab.reindex"


class CommandsFeature(Feature):
    def handlers(self) -> Iterable[Handler]:
        return (Handler(REINDEX, self.reindex, command=True),)

    def reindex(self, *args: Any) -> dict[str, Any]:
        """With no argument every folder is rebuilt; with folder URIs only those."""
        server = self.server
        folders = server.index.folders()
        wanted = [a for a in args if a is not None]
        if wanted:
            if not all(isinstance(a, str) for a in wanted):
                raise invalid_params("kebab.reindex takes workspace folder URIs (strings)")
            known = {f.uri: f for f in folders}
            missing = [a for a in wanted if a not in known]
            if missing:
                raise invalid_params(f"not an open workspace folder: {', '.join(missing)}")
            folders = [known[a] for a in wanted]
        for folder in folders:
            server.index.scan(folder, rebuild=True)
        server.log("info", f"rebuilding {len(folders)} folder(s) from scratch")
        return {"queued": [str(f.root) for f in folders]}

"""`workspace/symbol`: the matcher of every folder, merged, as `WorkspaceSymbol`s.

Naming choice for clients that filter on `name` (VS Code fuzzy-matches the typed query against
`name` and drops what does not match): for a container-qualified query such as `Class.method`
or `Class::method`, `name` is returned qualified, `Class.method` (with the query's own
separator), so the best answers survive that filter; `containerName` still carries the
container. For any other query `name` is the bare symbol name.

`location.range` is the symbol's full range (the spec says it "usually spans more than the
actual symbol's name"), so clients reveal the whole definition.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from lsprotocol import types
from lsprotocol.converters import get_converter

from kebab_lsp.convert import lsp_location
from kebab_lsp.features import Feature, Handler
from kebab_lsp.indexing_service import Folder
from search.engine import Cancelled
from search.symbols import SymbolMatch, merge_key

PARTIAL_BATCH = 50
_QUALIFIED = re.compile(r"\S(::|\.)\S*$")
_converter = get_converter()


def lsp_kind(kind: str) -> types.SymbolKind:
    """Stored kinds are LSP's names in snake_case, so the mapping is by name."""
    member = "".join(part.capitalize() for part in kind.split("_"))
    return types.SymbolKind.__members__.get(member, types.SymbolKind.Variable)


@dataclass(frozen=True, slots=True)
class FolderMatch:
    folder_index: int
    root: str
    match: SymbolMatch


def merge(per_folder: Sequence[Sequence[FolderMatch]], limit: int) -> list[FolderMatch]:
    """Best first across folders. One folder's list is already in the matcher's final order
    and is kept as is. Across folders: score, then the matcher's own tie-breaks (kind,
    non-test, then for a match shorter name and qualified name, for the empty-query listing
    path and line), then folder order, so the same workspace and query always give the same
    list."""
    if len(per_folder) == 1:
        return list(per_folder[0][:limit])

    def key(m: FolderMatch) -> tuple[tuple[float, tuple[object, ...]], int]:
        return merge_key(m.match), m.folder_index

    merged = sorted((m for items in per_folder for m in items), key=key)
    return merged[:limit]


def qualifier(query: str) -> str | None:
    """The separator of a container-qualified query (`A.b` -> `.`, `A::b` -> `::`)."""
    found = _QUALIFIED.search(query.strip())
    return found.group(1) if found else None


def to_workspace_symbol(m: FolderMatch, separator: str | None) -> types.WorkspaceSymbol:
    sym = m.match.row.symbol
    name = sym.name
    if separator and sym.container:
        name = f"{sym.container}{separator}{sym.name}"
    return types.WorkspaceSymbol(
        name=name,
        kind=lsp_kind(str(sym.kind)),
        location=lsp_location(m.root, m.match.row.path, sym.range),
        container_name=sym.container,
    )


def match_folders(folders: Sequence[Folder], query: str, limit: int,
                  should_stop: Callable[[], bool]) -> list[FolderMatch]:
    per_folder: list[list[FolderMatch]] = []
    for index, folder in enumerate(folders):
        if should_stop():
            raise Cancelled()
        result = folder.symbols.match(query, limit)
        root = str(folder.root)
        per_folder.append([FolderMatch(index, root, item) for item in result.items])
    return merge(per_folder, limit)


class SymbolsFeature(Feature):
    def handlers(self) -> Iterable[Handler]:
        return (Handler(types.WORKSPACE_SYMBOL, self.workspace_symbol,
                        types.WorkspaceSymbolOptions(resolve_provider=False)),)

    async def workspace_symbol(
        self, params: types.WorkspaceSymbolParams
    ) -> list[types.WorkspaceSymbol]:
        server = self.server
        folders = server.index.folders()
        limit = server.settings.symbol_limit
        query = params.query

        def work(should_stop: Callable[[], bool]) -> list[FolderMatch]:
            return match_folders(folders, query, limit, should_stop)

        matches = await server.run_query(work)
        separator = qualifier(query)
        symbols = [to_workspace_symbol(m, separator) for m in matches]
        token = params.partial_result_token
        if token is None:
            return symbols
        # Partial results: every batch goes out as `$/progress` on the client's token; the
        # response itself is then empty, as the spec asks.
        for start in range(0, len(symbols), PARTIAL_BATCH):
            batch = _converter.unstructure(symbols[start : start + PARTIAL_BATCH])
            server.progress(types.ProgressParams(token=token, value=batch))
        return []

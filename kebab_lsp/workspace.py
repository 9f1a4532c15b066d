"""One workspace folder's index, indexer and searcher, wired together.

Both the CLI and the server open workspaces through here, so they find the same index for the
same folder and configure it the same way.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from indexing.discover import DEFAULT_MAX_BYTES, DiscoveryOptions
from indexing.embed import Embedder, ModelSpec, default_model_spec
from indexing.location import index_dir_for, model_cache_dir
from indexing.store import Store
from indexing.vector_index import SyncSummary, VectorIndex
from search.engine import Searcher
from search.hybrid import DEFAULT_K_RRF

if TYPE_CHECKING:
    from indexing.indexer import Indexer


@dataclass(frozen=True, slots=True)
class WorkspaceOptions:
    index_dir: str | None = None
    max_file_bytes: int = DEFAULT_MAX_BYTES
    exclude: tuple[str, ...] = ()
    workers: int | None = None
    embed: bool = True
    model_dir: str | None = None
    embed_threads: int | None = None
    rrf_k: int = DEFAULT_K_RRF


_embedders: dict[tuple[str | None, int | None], Embedder] = {}
_embedders_lock = threading.Lock()


def shared_embedder(model_dir: str | None, threads: int | None,
                    cache_dir: Path | None = None) -> Embedder:
    """One embedder per model and thread cap per process: the model costs a few hundred ms and
    ~100 MB to load, and every workspace folder can share it. `cache_dir` keeps the model's
    optimized graph between processes (`Embedder._build_session`); the first caller's is used,
    as it only makes loading faster."""
    key = (model_dir, threads)
    with _embedders_lock:
        if key not in _embedders:
            spec = default_model_spec()
            if model_dir:
                spec = ModelSpec(name=Path(model_dir).name or "custom", model_dir=Path(model_dir))
            _embedders[key] = Embedder(spec, threads=threads, cache_dir=cache_dir)
        return _embedders[key]


class Workspace:
    def __init__(self, root: Path, options: WorkspaceOptions | None = None) -> None:
        self.options = options or WorkspaceOptions()
        self.root = root.resolve()
        self.index_dir = index_dir_for(self.root, self.options.index_dir)
        self.store = Store(self.index_dir)
        self.building = False
        self._vectors: VectorIndex | None = None
        self.vector_error: str | None = None if self.options.embed else "embeddings are off"
        self.searcher = Searcher(self.root, self.store, building=lambda: self.building,
                                 vectors=self.vector_index, k_rrf=self.options.rrf_k)
        self.searcher.vector_error = self.vector_error

    @cached_property
    def indexer(self) -> Indexer:
        """Built on first use: tree-sitter, the grammars and the ignore rules cost about 0.1 s
        to import, and a command-line search over an existing index never needs them."""
        from indexing.indexer import Indexer

        return Indexer(
            self.root,
            self.store,
            DiscoveryOptions(self.options.max_file_bytes, self.options.exclude),
            workers=self.options.workers,
        )

    def vector_index(self) -> VectorIndex | None:
        """The vector side, or None (with `vector_error` saying why) when it cannot run."""
        if self._vectors is None and self.vector_error is None:
            embedder = shared_embedder(self.options.model_dir, self.options.embed_threads,
                                       model_cache_dir(self.options.index_dir))
            self._vectors = VectorIndex(self.store, self.index_dir, embedder)
        return self._vectors

    def sync_vectors(self, **kwargs: object) -> SyncSummary | None:
        """Embed what the lexical index has and the vector index lacks; records the lexical
        version it caught up with, so searches can tell when vectors are stale.

        When neither the lexical index nor the vector table changed since a sync that completed
        with this model, there is nothing to do, and the diff (every chunk id on both sides) and
        the model load are skipped: that is most of a no-change `kebab index`."""
        vindex = self.vector_index()
        if vindex is None:
            return None
        started = time.perf_counter()
        if self._vectors_current(vindex):
            return SyncSummary(seconds=time.perf_counter() - started)
        ok, reason = vindex.embedder.available()
        if not ok:
            self.disable_vectors(f"embedding model unavailable: {reason}")
            return None
        version = self.store.stats().lexical_version
        summary = vindex.sync(**kwargs)  # type: ignore[arg-type]
        have, total = vindex.coverage()
        if not summary.cancelled or have == total:
            self.store.set_meta("vector_synced_lexical_version", str(version))
            self.store.set_meta("vector_synced_model", vindex.embedder.model_id)
        current = vindex.version()
        if current is not None:
            self.store.set_meta("vector_version", str(current))
        return summary

    def _vectors_current(self, vindex: VectorIndex) -> bool:
        """True only when the last completed sync saw this lexical version, used this model, and
        left the vector table at the version it still has (nobody wrote, reset or deleted it
        since). Anything else, including a table that cannot be read, means: run the sync."""
        meta = self.store.meta_value
        if meta("vector_synced_lexical_version") != str(self.store.lexical_version()):
            return False
        if meta("vector_synced_model") != vindex.embedder.model_id:
            return False
        return meta("vector_version") == str(vindex.version())

    def disable_vectors(self, reason: str) -> None:
        self.vector_error = self.searcher.vector_error = reason
        self._vectors = None

    def close(self) -> None:
        self.store.close()

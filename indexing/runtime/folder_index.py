"""One workspace folder's index: its store, its indexer and its vectors, configured from the
settings once, for the server and the command line alike.

The settings that decide what an index holds (its shape: excludes, size cap, model) are
recorded in it. Opening it with other ones says so, and the next scan brings it in line: a
scan is incremental, so it adds what the new rules admit and drops what they exclude; vectors
from another model are dropped before any is reused.
"""

from __future__ import annotations

import json
import threading
import time
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from indexing.discover import DiscoveryOptions
from indexing.embed import Embedder, ModelSpec, default_model_spec
from indexing.location import index_dir_for, model_cache_dir, remember_workspace
from indexing.settings import Settings, index_shape
from indexing.store import Store
from indexing.vector_index import SyncSummary, VectorIndex

if TYPE_CHECKING:
    from indexing.indexer import Baseline, Indexer

_SHAPE_KEY = "index_shape"
#: When the last complete scan started (wall-clock ns): a folder changed after it may hold
#: files the index lacks (`kebab_lsp.freshness.added_since`).
SCAN_START_KEY = "last_scan_started_ns"
#: Which team index a partial index leaves the rest of the files to (`Baseline.source`);
#: empty, or absent, when the index holds every file.
_PARTIAL_KEY = "partial_of"

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


def _source(baseline: Baseline | None) -> str | None:
    """The team index `baseline` was read from, as a partial index records it."""
    return baseline.source if baseline is not None else None


class FolderIndex:
    def __init__(self, root: Path, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.root = root.resolve()
        self.index_dir = index_dir_for(self.root, self.settings.index_dir)
        #: What is indexed: the walk's rules, and the folders it never enters (where the
        #: indexes live), which events under this root are also measured against.
        self.options = DiscoveryOptions.from_settings(self.settings)
        self.store = Store(self.index_dir)
        remember_workspace(self.index_dir, self.root)
        self._vectors: VectorIndex | None = None
        self.vector_error: str | None = None if self.settings.embed else "embeddings are off"
        self._shape = json.dumps(index_shape(self.settings), sort_keys=True)
        names = self._other_shape()
        self.shape_note: str | None = None if names is None else (
            f"the index at {self.index_dir} was built with other settings ({names}); the next "
            "scan brings it in line")
        #: The team index this one was last completed against (written by the writer).
        self.partial_of: str | None = self.store.meta_value(_PARTIAL_KEY) or None
        self._partial_told: str | None = None

    @cached_property
    def indexer(self) -> Indexer:
        """Built on first use: tree-sitter, the grammars and the ignore rules cost about 0.1 s
        to import, and a command-line search over an existing index never needs them."""
        from indexing.indexer import Indexer

        return Indexer(
            self.root,
            self.store,
            self.options,
            workers=self.settings.workers,
            languages=self.settings.languages,
        )

    def scanning_elsewhere(self) -> int | None:
        """The pid of the process writing this index while it scans it (`runtime.lease`)."""
        from indexing.runtime.lease import scanning_elsewhere

        return scanning_elsewhere(self.index_dir)

    def mark_scan(self, running: bool) -> None:
        from indexing.runtime.lease import mark_scan

        mark_scan(self.index_dir, running)

    def _other_shape(self) -> str | None:
        """The settings, by name, that the index's recorded shape differs in from these;
        None when it records these (or none yet)."""
        recorded = self.store.meta_value(_SHAPE_KEY)
        if recorded is None or recorded == self._shape:
            return None
        was = json.loads(recorded)
        now = index_shape(self.settings)
        return ", ".join(sorted(k for k in now if was.get(k) != now[k]))

    def built_elsewhere(self) -> str | None:
        """Why answers read here, from an index another process writes, may lack files these
        settings index (or hold ones they leave out): that process built it with other
        settings. Read live: it records its shape after each complete scan."""
        names = self._other_shape()
        if names is None:
            return None
        return (f"the index at {self.index_dir} is written by another process, with other "
                f"settings ({names}) than this one's: answers follow those, not these, until "
                "this process writes it")

    def record_scan_start(self, started_ns: int) -> None:
        """After a complete scan: what it saw is what the folders held when it started."""
        self.store.set_meta(SCAN_START_KEY, str(started_ns))

    def record_shape(self) -> None:
        """After a complete scan: the index now holds what these settings say."""
        if self.store.meta_value(_SHAPE_KEY) != self._shape:
            self.store.set_meta(_SHAPE_KEY, self._shape)
        self.shape_note = None

    def partial_note(self, baseline: Baseline | None) -> str | None:
        """What to tell the user, once, when a partial index is opened without its team index
        (or with another): it does not answer as if complete, the scan about to run with
        `baseline` indexes the files it lacks."""
        source = _source(baseline)
        if not self._partial_elsewhere(baseline):
            return None
        note = (f"the index at {self.index_dir} holds only the files that differed from the "
                f"team index {self.partial_of}; "
                + ("indexing the other files now" if source is None else
                   f"bringing it in line with the team index {source} now"))
        if note == self._partial_told:
            return None
        self._partial_told = note
        return note

    def incomplete(self, baseline: Baseline | None = None) -> str | None:
        """Why answers from this index alone lack files, when it is partial of a team index
        and is not read as the local side of that same team index (`baseline`); else None."""
        if not self._partial_elsewhere(baseline):
            return None
        return (f"this index holds only the files that differed from the team index "
                f"{self.partial_of}: the others are answered there (the store and repo "
                "settings, or --store URL --repo NAME)")

    def _partial_elsewhere(self, baseline: Baseline | None) -> bool:
        """Partial of a team index, and not read against that one's hashes."""
        return self.partial_of is not None and self.partial_of != _source(baseline)

    def record_partial(self, baseline: Baseline | None) -> None:
        """After a complete scan with `baseline`: the index is partial of that team index,
        or, without one, complete."""
        source = _source(baseline)
        if self.partial_of != source:
            self.store.set_meta(_PARTIAL_KEY, source or "")
            self.partial_of = source

    def vector_index(self) -> VectorIndex | None:
        """The vector side, or None (with `vector_error` saying why) when it cannot run."""
        if self._vectors is None and self.vector_error is None:
            embedder = shared_embedder(self.settings.model_dir, self.settings.embed_threads,
                                       model_cache_dir(self.settings.index_dir))
            self._vectors = VectorIndex(self.store, self.index_dir, embedder)
        return self._vectors

    def sync_vectors(self, **kwargs: object) -> SyncSummary | None:
        """Embed what the lexical index has and the vector index lacks, recording the lexical
        version it caught up with (`VectorIndex.sync_recorded`).

        When neither the lexical index nor the vector table changed since a sync that completed
        with this model, there is nothing to do, and the diff (every chunk id on both sides) and
        the model load are skipped: that is most of a no-change `kebab index`."""
        vindex = self.vector_index()
        if vindex is None:
            return None
        started = time.perf_counter()
        if vindex.is_current():
            return SyncSummary(seconds=time.perf_counter() - started)
        ok, reason = vindex.embedder.available()
        if not ok:
            self.disable_vectors(f"embedding model unavailable: {reason}")
            return None
        return vindex.sync_recorded(**kwargs)

    def disable_vectors(self, reason: str) -> None:
        self.vector_error = reason
        self._vectors = None

    def close(self) -> None:
        """Release every file of the index: each thread's SQLite connection and the vector
        table's handles."""
        self.store.close()
        if self._vectors is not None:
            self._vectors.vectors.close()

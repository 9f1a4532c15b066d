"""The vectors of a team index: a LanceDB dataset per repository under a shared directory,
written by the indexing job (`kebab index --store URL --repo NAME --team-vectors DIR`) and read
by every `kebab search` and editor pointed at the same directory.

Why the shape:
- One dataset per repository (`DIR/<repo as one path component>/chunks.lance`): a repository
  is the unit of indexing and of access, so the filesystem's permissions (or a mount's) can
  gate each one, as `kebab grant` gates its rows.
- The same sync as a local index's (`VectorIndex`, over the PostgreSQL store instead of
  SQLite) and the same embedder: PostgreSQL is the source of truth, a sync diffs (row key,
  embedded-text hash) and embeds only texts that changed. There is no embedding cache beside
  it: the table is its own (`TeamEmbeddings.cached_vectors`), so a chunk that only moved
  (its id changes with its line) takes its vector from its old row.
- A vector hit is a chunk id and nothing more: it becomes a hit through the PostgreSQL store,
  under the role's row-level security, so a role never sees a chunk of a repository it is not
  granted, whatever a dataset holds. The dataset itself holds chunk ids, paths, languages,
  kinds and vectors (no text); who may read it is the filesystem's to say.
- What a sync saw (the lexical version, the model, the table's version) is recorded in the
  repository's meta in PostgreSQL, where every reader granted the repository reads it, so a
  search reports stale or partial vectors as a local index's does, and refuses vectors of
  another model than its own.
- A dataset names itself (`MARKER`: its repository and an id that the repository's meta
  records too): a folder copied or mounted in another's place, which holds as many rows, is
  refused as someone else's vectors rather than counted as complete and answering nothing.
- The table is shared: its files keep the permissions the filesystem gives them, and
  compaction keeps old versions for `KEEP_VERSIONS`, so a search that began on one is not
  pulled from under it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from indexing.embed import Embedder
from indexing.postgres.store import PgStore, TeamStoreError
from indexing.store import EmbeddingSource, FileHead
from indexing.vector_index import (
    SYNCED_LEXICAL_VERSION,
    SYNCED_MODEL,
    ProgressFn,
    SyncSummary,
    VectorIndex,
)
from indexing.vectors import VectorStore

#: How long compaction keeps a shared table's old versions: longer than any search takes.
KEEP_VERSIONS = timedelta(minutes=10)
#: The table in each repository's dataset (as a local index's is named).
TABLE = "chunks"
#: The file in a dataset that says whose it is: {"repo": name, "id": hex}.
MARKER = "kebab-dataset.json"
#: The meta key that holds the id of the dataset the repository's syncs wrote.
DATASET_KEY = "vector_dataset"


class TeamVectorsError(TeamStoreError):
    """A team index's vectors cannot be written; the message says why."""


def dataset_dir(root: Path, repo: str) -> Path:
    """Where repository `repo`'s vectors live under `root`: one path component per
    repository (`acme/app` is `acme%2Fapp`), so no repository's dataset is inside another's."""
    return root / quote(repo, safe="@+-._")


class TeamEmbeddings:
    """A repository of the team index as a vector sync reads it (`EmbeddingStore`): its chunks
    from PostgreSQL, and the vectors its own table already holds as the cache."""

    def __init__(self, store: PgStore, vectors: VectorStore) -> None:
        self.store = store
        self._vectors = vectors

    def reading(self, should_stop: Callable[[], bool] | None = None
                ) -> AbstractContextManager[Any]:
        return self.store.reading(should_stop)

    def embedding_sources(self) -> list[EmbeddingSource]:
        return self.store.embedding_sources()

    def file_heads(self) -> dict[str, FileHead]:
        return self.store.file_heads()

    def chunk_count(self) -> int:
        return self.store.chunk_count()

    def leading_chunk_count(self) -> int:
        return self.store.leading_chunk_count()

    def chunked_file_count(self) -> int:
        return self.store.chunked_file_count()

    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, bytes]:
        """Vectors some row of the table holds for these texts. The table holds one model's
        vectors: a sync by another model drops them first (`VectorIndex.sync_recorded`)."""
        return self._vectors.vectors_by_hash(list(hashes))

    def cache_vectors(self, model: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Nothing to do: the rows the sync writes next are the cache."""

    def prune_embed_cache(self, model: str, needed: AbstractSet[str]) -> int:
        return 0

    def lexical_version(self) -> int:
        return self.store.lexical_version()

    def meta_value(self, key: str) -> str | None:
        return self.store.meta_value(key)

    def set_meta(self, key: str, value: str) -> None:
        self.store.set_meta(key, value)


def _marker(where: Path) -> dict[str, Any]:
    try:
        data = json.loads((where / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def claim(store: PgStore, where: Path) -> None:
    """Before a sync writes the dataset at `where`: mark it as the repository's (once), and
    record its id in the repository's meta, so readers can tell it from another's."""
    data = _marker(where)
    if not data:
        data = {"repo": store.repo, "id": uuid.uuid4().hex}
        where.mkdir(parents=True, exist_ok=True)
        (where / MARKER).write_text(json.dumps(data), encoding="utf-8")
    elif data.get("repo") != store.repo:
        raise TeamVectorsError(
            f"{where} holds the vectors of repository {data.get('repo')!r}, not of "
            f"{store.repo!r}: a folder copied or mounted in the wrong place; move it, or "
            "delete it to have them computed again")
    if store.meta_value(DATASET_KEY) != data["id"]:
        store.set_meta(DATASET_KEY, str(data["id"]))


def foreign(store: PgStore, where: Path) -> str | None:
    """Why the dataset at `where` is not the one the repository's syncs wrote, or None.
    Datasets written before they were marked are taken as they are."""
    wanted = store.meta_value(DATASET_KEY)
    data = _marker(where)
    if wanted is None or data.get("id") == wanted:
        return None
    whose = (f" (they are those of repository {data['repo']!r})"
             if data.get("repo") not in (None, store.repo) else "")
    return (f"the vectors under {where} are not the ones `kebab index` wrote for repository "
            f"{store.repo!r}{whose}: a folder copied or mounted in the wrong place; vector "
            "search would find nothing of this repository in it")


def open_vectors(store: PgStore, root: Path, embedder: Embedder) -> VectorIndex:
    """The vector side of `store`'s repository, its dataset under `root`."""
    where = dataset_dir(root, store.repo)
    vectors = VectorStore(where, embedder.dim, table=TABLE, private=False,
                          keep_versions=KEEP_VERSIONS)
    return VectorIndex(TeamEmbeddings(store, vectors), where, embedder, vectors=vectors)


def sync_repository(store: PgStore, root: Path, embedder: Embedder,
                    progress: ProgressFn | None = None) -> SyncSummary:
    """Bring the repository's dataset under `root` in step with its rows in PostgreSQL; run by
    its one writer (`kebab index`, under `PgStore.writer_lock`). Nothing changed since the
    last complete sync: nothing is read, and the model is not loaded."""
    claim(store, dataset_dir(root, store.repo))
    vindex = open_vectors(store, root, embedder)
    try:
        if vindex.is_current():
            return SyncSummary()
        ok, reason = embedder.available()
        if not ok:
            raise TeamVectorsError(f"cannot embed repository {store.repo!r}: the embedding "
                                   f"model is unavailable: {reason}")
        return vindex.sync_recorded(progress=progress)
    finally:
        vindex.vectors.close()


def status(store: PgStore, root: Path, embedder: Embedder) -> dict[str, Any]:
    """What `kebab status --team-vectors DIR` shows of the repository's vectors: where they
    are, how many of the vectors its rows want they hold, and what the last sync saw."""
    vindex = open_vectors(store, root, embedder)
    try:
        have, total = vindex.coverage()
        synced = store.meta_value(SYNCED_LEXICAL_VERSION)
        where = dataset_dir(root, store.repo)
        return {"dataset": str(where), "vectors": have,
                "total": total, "model": store.meta_value(SYNCED_MODEL),
                "synced_lexical_version": int(synced) if synced else None,
                "problem": foreign(store, where)}
    finally:
        vindex.vectors.close()


class TeamVectors:
    """Where a searcher of a team index's repository gets its vectors (`VectorSource`): the
    repository's dataset under `root`, or none, with `vector_error` saying why."""

    def __init__(self, store: PgStore, root: Path, embedder: Callable[[], Embedder]) -> None:
        self.store = store
        self.root = root
        self.vector_error: str | None = None
        self._embedder = embedder
        self._index: VectorIndex | None = None

    def vector_index(self) -> VectorIndex | None:
        """The vector side, when a sync by this process's model has written it and this role
        may read the repository (a role that is not granted it reads no meta, so it is told
        what an empty repository would be told)."""
        repo = self.store.repo
        where = dataset_dir(self.root, repo)
        synced_by = self.store.meta_value(SYNCED_MODEL)
        if synced_by is None or not (where / f"{TABLE}.lance").is_dir():
            self.vector_error = (
                f"repository {repo!r} has no vectors under {self.root} that this role may "
                f"use: `kebab index PATH --store URL --repo {repo} --team-vectors "
                f"{self.root}` writes them, and `kebab grant` lets a role read the repository")
            return None
        self.vector_error = foreign(self.store, where)
        if self.vector_error is not None:
            return None
        if self._index is None:
            self._index = open_vectors(self.store, self.root, self._embedder())
        if synced_by != self._index.embedder.model_id:
            self.vector_error = (
                f"repository {repo!r}'s vectors under {self.root} were computed by model "
                f"{synced_by}; this process embeds queries with {self._index.embedder.model_id}"
                " (the modelDir setting)")
            return None
        self.vector_error = None
        return self._index

    def close(self) -> None:
        if self._index is not None:
            self._index.vectors.close()

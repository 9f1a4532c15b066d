"""Bringing the store up to date with the files: plan by hash diff, extract, write in batches.

The plan is cheap first (size + mtime), exact second (content hash), so a no-change re-index
reads no file at all. A file whose content moved to another path is renamed in place rather
than re-extracted. Extraction can run in a process pool for large plans; writes always go
through the store's single writer, one transaction per batch.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from indexing.classify import is_generated, is_test_path
from indexing.detect import Overrides, detect_language
from indexing.discover import (
    SKIPS_META_KEY,
    DiscoveredFile,
    DiscoveryOptions,
    FileRead,
    decodable,
    discover,
    is_indexable_path,
    read_file,
)
from indexing.extract import LANGUAGE_HEAD_CHARS, extract, text_chunks
from indexing.pool import pool_context
from indexing.records import Extraction
from indexing.schema import SCHEMA_VERSION
from indexing.store import FileState, FileWrite, IndexWriter
from indexing.store.interface import EXTRACTED_BY_KEY
from indexing.store.refs import pack_refs
from indexing.store.texts import pack_text
from indexing.text import decode
from indexing.workers import Failed, Workers

log = logging.getLogger(__name__)

BATCH_FILES = 200
LARGE_BATCH_FILES = 20  # a batch this big first checkpoints the WAL (`Store.batch`)
#: Files the workers extract ahead of the writer: handing out every file at once would keep a
#: large tree's extracted files (symbols, chunks, refs) in memory, waiting for the writer.
POOL_AHEAD = 2 * BATCH_FILES
POOL_THRESHOLD = 64  # below this many files, a process pool costs more than it saves
#: The `languages` setting the index was last read with (meta key).
_LANGUAGES_KEY = "languages_setting"

ProgressFn = Callable[[int, int], None]


@dataclass(slots=True)
class IndexSummary:
    scanned: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    deleted: int = 0
    renamed: int = 0
    skipped: int = 0
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    skipped_paths: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    # Files whose chunks are new: the vector side embeds these first.
    written_paths: list[str] = field(default_factory=list)
    cancelled: bool = False
    # Files with a grammar indexed as plain text, by why (a grammar that crashed or hung its
    # worker, a parse past its CPU limit, an extraction that failed): searchable, but without
    # definitions. Counted together as skip reason `text_only`.
    fallbacks: dict[str, int] = field(default_factory=dict)
    fallback_paths: list[tuple[str, str]] = field(default_factory=list)
    # Files identical to the team index's copy (`Baseline`): not stored here, the team index
    # answers for them. Counted apart from `unchanged`, which the local index holds.
    same_as_team: int = 0

    @property
    def text_only(self) -> list[str]:
        """Files indexed as plain text because extracting their definitions failed."""
        return [path for path, _reason in self.fallback_paths]

    def skip(self, path: str, reason: str) -> None:
        self.skipped += 1
        self.skipped_by_reason[reason] = self.skipped_by_reason.get(reason, 0) + 1
        self.skipped_paths.append((path, reason))

    def fall_back(self, path: str, reason: str) -> None:
        self.fallbacks[reason] = self.fallbacks.get(reason, 0) + 1
        self.fallback_paths.append((path, reason))

    def absorb(self, part: IndexSummary) -> None:
        """Add another update's counts to this one (one log line for a batch of events)."""
        self.scanned += part.scanned
        self.new += part.new
        self.changed += part.changed
        self.unchanged += part.unchanged
        self.deleted += part.deleted
        self.renamed += part.renamed
        self.same_as_team += part.same_as_team
        self.skipped += part.skipped
        for reason, count in part.skipped_by_reason.items():
            self.skipped_by_reason[reason] = self.skipped_by_reason.get(reason, 0) + count
        self.skipped_paths.extend(part.skipped_paths)
        self.seconds += part.seconds
        self.written_paths.extend(part.written_paths)
        for path, reason in part.fallback_paths:
            self.fall_back(path, reason)

    def describe(self) -> str:
        fallbacks = "".join(f", {n} read as plain text ({why})"
                            for why, n in sorted(self.fallbacks.items()))
        return (f"scanned {self.scanned}, new {self.new}, changed {self.changed}, "
                f"unchanged {self.unchanged}, deleted {self.deleted}, renamed {self.renamed}, "
                f"skipped {self.skipped}{fallbacks}{self.team_note()} in {self.seconds:.2f}s")

    def team_note(self, always: bool = False) -> str:
        """The files left to the team index, as a clause: only when there are any, unless
        `always` (a scan against a team index says so even when it left none)."""
        return (f", {self.same_as_team} answered by the team index"
                if self.same_as_team or always else "")

    def skips_json(self) -> dict[str, object]:
        """What was left out, by reason (as `kebab status` and `kebab/status` show it)."""
        return {"total": self.skipped,
                "by_reason": dict(sorted(self.skipped_by_reason.items())),
                "text_only": len(self.text_only)}

    def as_json(self) -> dict[str, object]:
        return {
            "scanned": self.scanned,
            "new": self.new,
            "changed": self.changed,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "renamed": self.renamed,
            "same_as_team": self.same_as_team,
            "skipped": self.skipped,
            "skipped_by_reason": dict(sorted(self.skipped_by_reason.items())),
            "text_only": len(self.fallback_paths),
            "read_as_text": dict(sorted(self.fallbacks.items())),
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True, slots=True)
class _Work:
    """A file that must be (re)extracted: picklable, so it can go to a worker process."""

    path: str
    size: int
    mtime_ns: int
    data: bytes
    digest: str
    is_new: bool
    languages: Overrides = ()


def content_hash(data: bytes) -> str:
    """The one hash of a file's content, local and team index alike: comparing a checkout
    with the team index (`Baseline`, `search.overlay.Changes`) relies on that."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class Baseline:
    """What a team index holds of this root: path -> `content_hash`. A file with the same
    hash here is not stored in the local index (the team index answers for it), so that
    index holds only what was edited or added here: it is *partial*, of team index `source`
    (its URL without credentials, and the repository), and says so in its meta.

    The cost: the cheap size + time check of a scan only spares files the local index
    holds, so every file left to the team index is read and hashed again on each scan: a
    no-change scan of Django 5.1.4 (5,418 files left to the team) takes about 0.75 s warm,
    1.3 s cold, on the bench's 2-core machine."""

    source: str
    hashes: Mapping[str, str]

    def has(self, path: str, digest: str) -> bool:
        """Whether the team index holds `path` with this content."""
        return self.hashes.get(path) == digest


def extract_file(path: str, text: str, languages: Overrides = ()) -> Extraction:
    """Grammar-backed extraction where a grammar exists, line windows everywhere else, so no
    text file is unsearchable. `languages` are the user's globs to a language."""
    found = extract(path, text, languages)
    if found is not None:
        return found
    return Extraction(lang=_text_lang(path), symbols=[], chunks=text_chunks(text))


def _text_lang(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return ext or "text"


def read_as(path: str, text: str, languages: Overrides = ()) -> tuple[str, bool, bool]:
    """What a file's rows take from its path besides the path itself: its language (which
    decides its symbols and chunks), whether it is a test and whether it is generated. Rows
    moved to another path (a rename: same content) are only true there when this is equal:
    `soup.md` renamed `soup.py` must be read again as Python, not keep its Markdown
    headings."""
    lang = detect_language(path, text[:LANGUAGE_HEAD_CHARS], languages) or _text_lang(path)
    return (lang, *_flags(path, text))


def _flags(path: str, text: str) -> tuple[bool, bool]:
    """Whether the file at `path` is a test, and whether it is generated."""
    return is_test_path(path), is_generated(path, text[:600])


def text_write(work: _Work, reason: str) -> FileWrite:
    """A file whose extraction failed in its worker, as plain text: made in the parent,
    without its grammar."""
    text = decode(work.data)
    lang, is_test, generated = read_as(work.path, text, work.languages)
    extraction = Extraction(lang=lang, chunks=text_chunks(text), fallback=reason)
    return FileWrite(path=work.path, size=work.size, mtime_ns=work.mtime_ns, hash=work.digest,
                     lang=lang, text=text, extraction=extraction, is_test=is_test,
                     is_generated=generated)


def _work_size(work: _Work) -> int:
    return work.size


#: What a worker process runs on each file (`module:function`).
WORKER_TARGET = "indexing.indexer:build_write"

#: The one worker that extracts small plans (a save, a few events) out of the process, so
#: that a grammar crash or hang costs that file only; started on first use.
_small_plan_workers: Workers | None = None
_small_plan_lock = threading.Lock()


def _small_plans() -> Workers:
    global _small_plan_workers
    with _small_plan_lock:
        if _small_plan_workers is None:
            _small_plan_workers = Workers(1, pool_context(), WORKER_TARGET)
        return _small_plan_workers


def build_write(work: _Work) -> FileWrite:
    """Decode and extract one file; runs in a worker, so it touches no shared state."""
    text = decode(work.data)
    extraction = extract_file(work.path, text, work.languages)
    is_test, generated = _flags(work.path, text)
    return FileWrite(
        path=work.path,
        size=work.size,
        mtime_ns=work.mtime_ns,
        hash=work.digest,
        lang=extraction.lang,
        text=text,
        extraction=extraction,
        is_test=is_test,
        is_generated=generated,
        packed=pack_text(text),
        packed_refs=pack_refs(extraction.refs),
    )


class Indexer:
    """Keeps one workspace root's store in step with its files."""

    def __init__(
        self,
        root: Path,
        store: IndexWriter,
        options: DiscoveryOptions | None = None,
        workers: int | None = None,
        languages: Overrides = (),
    ) -> None:
        self.root = root.resolve()
        self.store = store
        self.options = options or DiscoveryOptions()
        self.workers = workers if workers is not None else max(1, (os.cpu_count() or 2))
        self.languages = languages
        self._plan_workers: Workers | None = None

    # -- full scan -------------------------------------------------------------------------

    def index(self, progress: ProgressFn | None = None, rebuild: bool = False) -> IndexSummary:
        """Scan the whole root at once. With `rebuild`, every file is re-extracted."""
        return self.scan(rebuild).run(progress)

    def scan(self, rebuild: bool = False, reread: bool = False,
             baseline: Baseline | None = None) -> ScanJob:
        """A scan of the whole root as a job that its owner advances one step at a time (the
        walk, then one write batch per step), so it can apply other work in between and stop
        it cleanly. With `reread`, files whose size and time are unchanged are read again (not
        re-extracted unless their content changed): after a change of settings, rules on
        content (secrets) may decide otherwise about them. With `baseline`, files identical to
        the team index's copy are left to it: not stored, and dropped if they were."""
        return ScanJob(self, rebuild, reread, baseline)

    def _scan_steps(self, rebuild: bool, reread: bool, summary: IndexSummary,
                    progress: list[tuple[int, int]], baseline: Baseline | None
                    ) -> Generator[None, None, None]:
        started = time.perf_counter()
        found = discover(self.root, self.options)
        yield  # the walk is done; the files are read from here on
        for path, reason in found.skipped:
            summary.skip(path, reason)
        summary.scanned = len(found.candidates)
        if rebuild:
            self.store.begin_rebuild()
        states = self.store.file_states()
        seen = {c.path for c in found.candidates}
        gone = {p: s for p, s in states.items() if p not in seen}
        languages = json.dumps(self.languages)
        recorded = self.store.meta_value(_LANGUAGES_KEY)
        # Another `languages` setting may read any file in another language, and another
        # version's extraction cut other chunks: extract them all.
        extracted_by = self.store.extracted_by()
        reextract = (rebuild or (recorded or "[]") != languages
                     or extracted_by != SCHEMA_VERSION)
        work = self._plan(found.candidates, states, gone, summary, reread, reextract,
                          baseline)
        for done, total in self._write_steps(work, summary):
            progress.append((done, total))
            summary.seconds = time.perf_counter() - started
            yield
        if gone:
            with self.store.batch():
                for path in sorted(gone):
                    self.store.delete_file(path)
                    summary.deleted += 1
        self.store.set_meta(SKIPS_META_KEY, json.dumps(summary.skips_json()))
        if recorded != languages:
            self.store.set_meta(_LANGUAGES_KEY, languages)
        if extracted_by != SCHEMA_VERSION:
            self.store.set_meta(EXTRACTED_BY_KEY, str(SCHEMA_VERSION))
        summary.seconds = time.perf_counter() - started

    def _plan(
        self,
        candidates: Sequence[DiscoveredFile],
        states: dict[str, FileState],
        gone: dict[str, FileState],
        summary: IndexSummary,
        reread: bool = False,
        reextract: bool = False,
        baseline: Baseline | None = None,
    ) -> list[_Work]:
        """With `reread`, files whose size and time are unchanged are read again; with
        `reextract`, every file is extracted again, even when its content is unchanged; with
        `baseline`, a file identical to the team index's copy is left to it (dropped here,
        with the deletions of `gone`, when the index held it)."""
        work: list[_Work] = []
        touched: list[tuple[str, int, int]] = []
        renames: list[tuple[str, str, int, int]] = []
        gone_by_hash: dict[str, list[str]] = {}
        for path, gone_state in sorted(gone.items()):
            gone_by_hash.setdefault(gone_state.hash, []).append(path)
        for cand in candidates:
            state = states.get(cand.path)
            if (not reread and not reextract and state and state.size == cand.size
                    and state.mtime_ns == cand.mtime_ns):
                if baseline is not None and baseline.has(cand.path, state.hash):
                    summary.same_as_team += 1
                    gone[cand.path] = state
                else:
                    summary.unchanged += 1
                continue
            read = self._read(cand.path, cand.abs_path, summary)
            if read is None:
                if state:  # what the index holds of it is no longer true: drop it
                    gone[cand.path] = state
                continue
            digest = content_hash(read.data)
            if baseline is not None and baseline.has(cand.path, digest):
                summary.same_as_team += 1
                if state:
                    gone[cand.path] = state
                continue
            if state and state.hash == digest and not reextract:
                summary.unchanged += 1
                if (state.size, state.mtime_ns) != (read.size, read.mtime_ns):
                    touched.append((cand.path, read.size, read.mtime_ns))
                continue
            # Content that left another path: move its rows, when they are true at this path
            # too (not when the `languages` setting changed: they were read under the old one).
            old = (self._moved_from(gone_by_hash.get(digest, []), cand.path, read.data)
                   if state is None and not reextract else None)
            if old is not None:
                gone_by_hash[digest].remove(old)
                del gone[old]
                renames.append((old, cand.path, read.size, read.mtime_ns))
                continue
            work.append(
                _Work(cand.path, read.size, read.mtime_ns, read.data, digest,
                      state is None, self.languages)
            )
        if touched or renames:
            with self.store.batch():
                for path, size, mtime in touched:
                    self.store.touch_file(path, size, mtime)
                for old, new, size, mtime in renames:
                    self.store.rename_file(old, new, size, mtime)
                    summary.renamed += 1
        return work

    def _moved_from(self, olds: Sequence[str], new: str, data: bytes) -> str | None:
        """The first of `olds` (gone paths that held exactly `data`) whose rows are also
        true at `new`, so the file can be renamed in place rather than re-extracted; None
        when there is none."""
        if not olds:
            return None
        text = decode(data)
        wanted = read_as(new, text, self.languages)
        return next((old for old in olds if read_as(old, text, self.languages) == wanted), None)

    def _read(self, rel: str, abs_path: Path, summary: IndexSummary) -> FileRead | None:
        """The file's bytes, or None with the reason counted (`discover.read_file`)."""
        read = read_file(self.root, abs_path, self.options)
        if isinstance(read, str):
            summary.skip(rel, read)
            return None
        return read

    def _write(self, work: list[_Work], summary: IndexSummary) -> None:
        for _ in self._write_steps(work, summary):
            pass

    def _write_steps(self, work: list[_Work], summary: IndexSummary
                     ) -> Generator[tuple[int, int], None, None]:
        """Extract and commit `work`, yielding (done, total) after each committed batch (and
        once before the first). Closing the iterator stops the work and its process pool."""
        total = len(work)
        yield 0, total
        if not work:
            return
        extracted: Generator[FileWrite, None, None] = self._extracted(work)
        try:
            done = 0
            batch: list[tuple[_Work, FileWrite]] = []
            for item, write in zip(work, extracted, strict=True):
                batch.append((item, write))
                if len(batch) >= BATCH_FILES:
                    done += self._commit(batch, summary)
                    batch = []
                    yield done, total
            if batch:
                done += self._commit(batch, summary)
                yield done, total
        finally:
            extracted.close()  # ends the workers still on a file
            if self._plan_workers is not None:
                self._plan_workers.close()
                self._plan_workers = None

    def _extracted(self, work: list[_Work]) -> Generator[FileWrite, None, None]:
        """Each item extracted, in order: in this process with `workers` = 1, else in worker
        processes (a pool of `workers` for a large plan, one shared worker for a small one)
        where a grammar that crashes or hangs costs its own file only."""
        if self.workers <= 1:
            yield from map(build_write, work)
            return
        _small_plans().warm()  # ready for the saves that follow a scan
        if len(work) >= POOL_THRESHOLD:
            self._plan_workers = Workers(self.workers, pool_context(), WORKER_TARGET,
                                         ahead=POOL_AHEAD)
            workers = self._plan_workers
        else:
            workers = _small_plans()
        for item, result in zip(work, workers.map(work, _work_size), strict=True):
            if isinstance(result, Failed):
                log.warning("%s: %s; indexing it as plain text", item.path, result.reason)
                yield text_write(item, result.reason)
            else:
                yield result

    def _commit(self, batch: list[tuple[_Work, FileWrite]], summary: IndexSummary) -> int:
        with self.store.batch(large=len(batch) >= LARGE_BATCH_FILES):
            for item, write in batch:
                self.store.write_file(write)
                summary.written_paths.append(item.path)
                if write.extraction.fallback:
                    summary.fall_back(item.path, write.extraction.fallback)
                if item.is_new:
                    summary.new += 1
                else:
                    summary.changed += 1
        return len(batch)

    # -- single files (didSave, watchers) --------------------------------------------------

    def update_paths(self, paths: Iterable[Path], baseline: Baseline | None = None
                     ) -> IndexSummary:
        """Bring the given files up to date: changed ones re-extracted, vanished or now-ignored
        ones dropped, unchanged ones left alone after a hash check; with `baseline`, ones
        identical to the team index's copy (a change reverted) dropped, left to it."""
        started = time.perf_counter()
        summary = IndexSummary()
        work: list[_Work] = []
        drops: list[str] = []
        for path in sorted(set(paths)):
            rel = self._relative(path)
            if rel is None:
                continue
            summary.scanned += 1
            state = self.store.file_state(rel)
            if not path.is_file() or not is_indexable_path(self.root, path, self.options):
                if state:
                    drops.append(rel)
                continue
            read = self._read(rel, path, summary)
            if read is None:
                if state:
                    drops.append(rel)
                continue
            digest = content_hash(read.data)
            if baseline is not None and baseline.has(rel, digest):
                summary.same_as_team += 1
                if state:
                    drops.append(rel)
                continue
            if state and state.hash == digest:
                summary.unchanged += 1
                continue
            work.append(_Work(rel, read.size, read.mtime_ns, read.data, digest,
                              state is None, self.languages))
        self._write(work, summary)
        if drops:
            with self.store.batch():
                for rel in drops:
                    self.store.delete_file(rel)
                    summary.deleted += 1
        summary.seconds = time.perf_counter() - started
        return summary

    def rename_path(self, old: Path, new: Path, baseline: Baseline | None = None
                    ) -> IndexSummary:
        """A rename reported by the client: move rows when content is unchanged and read the
        same way at the new path (`read_as`), and, with `baseline`, not identical to the team
        index's copy there."""
        old_rel, new_rel = self._relative(old), self._relative(new)
        if old_rel is None or new_rel is None:
            return self.update_paths([p for p in (old, new) if self._relative(p)], baseline)
        state = self.store.file_state(old_rel)
        summary = IndexSummary()
        if state and new.is_file() and is_indexable_path(self.root, new, self.options):
            read = self._read(new_rel, new, summary)
            if (read is not None and content_hash(read.data) == state.hash
                    and not (baseline is not None and baseline.has(new_rel, state.hash))
                    and self._moved_from([old_rel], new_rel, read.data) == old_rel):
                with self.store.batch():
                    self.store.delete_file(new_rel)
                    self.store.rename_file(old_rel, new_rel, read.size, read.mtime_ns)
                summary.renamed = 1
                return summary
        return self.update_paths([old, new], baseline)

    def _relative(self, path: Path) -> str | None:
        """`path` relative to the root, or None when it is outside or has a name the index
        cannot hold (discovery skips those with `undecodable_name`)."""
        try:
            rel = Path(os.path.abspath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return None
        return rel if decodable(rel) else None



class ScanJob:
    """One scan, advanced by its owner with `step()`: each step commits at most one batch of
    files (one transaction), so between steps the owner can apply other folders' saves and
    check whether to stop. `cancel()` ends it at once; what was committed stays, and the next
    scan, being incremental, picks up the rest."""

    def __init__(self, indexer: Indexer, rebuild: bool, reread: bool = False,
                 baseline: Baseline | None = None) -> None:
        self.summary = IndexSummary()
        self._progress: list[tuple[int, int]] = []
        self._steps = indexer._scan_steps(rebuild, reread, self.summary, self._progress,
                                          baseline)
        self.finished = False

    @property
    def progress(self) -> tuple[int, int]:
        """(files written, files to write), (0, 0) before the plan is known."""
        return self._progress[-1] if self._progress else (0, 0)

    def step(self) -> bool:
        """Do the next piece of work; False once the scan is complete or cancelled."""
        if self.finished:
            return False
        try:
            next(self._steps)
        except StopIteration:
            self.finished = True
            return False
        return True

    def cancel(self) -> None:
        if not self.finished:
            self._steps.close()
            self.finished = True
            self.summary.cancelled = True

    def run(self, progress: ProgressFn | None = None,
            should_stop: Callable[[], bool] | None = None) -> IndexSummary:
        """Run to the end (or until `should_stop`), reporting progress after each step."""
        while self.step():
            if progress:
                progress(*self.progress)
            if should_stop is not None and should_stop():
                self.cancel()
        return self.summary

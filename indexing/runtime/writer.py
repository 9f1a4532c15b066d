"""The writer: the one thread that writes every folder's index.

Why one thread: the store allows one writer at a time anyway, and a single thread makes the
order of writes the order of events (a save after a rename lands after the rename). Parsing may
still fan out to a process pool inside a scan; the event loop never parses or writes.

A scan is a cooperative job (`indexing.indexer.ScanJob`): the writer advances it one committed
batch at a time and, between batches, applies the due file events of *other* folders, so a
save in one folder never waits for another folder's cold index. Events of the folder being
scanned stay queued until its scan ends: applying them mid-scan could be overwritten by the
scan's older read of the same file. Stopping (shutdown, a removed folder) cancels the job at its
next step; nothing is raised through anyone's callback.

The writer also owns the rest of an index's lifecycle: closing the index of a removed folder
(after its scan stopped); retrying a folder whose writes the disk refused, with a growing
delay, until a write succeeds and a scan catches the index up (a pending retry is not work:
`wait_idle` does not wait for it); and, when it has nothing else to do, checkpointing what
small writes left in the WAL (`Store.settle`), so a save never waits for that sync. It
waits for `SETTLE_QUIET_S` without work first: saves often come in bursts (format on save,
save all, a script), and a checkpoint begun between two of them made the second wait for it.
Before checkpointing, again only after a quiet spell, it merges a full-text index that saves
left in pieces or with tombstones (`Store.merge_step`; why in `indexing.store.writes`), one
short transaction per step, so a save that comes meanwhile waits for one step at most.

A folder whose index another process writes (`Folder.writes` false: that process holds the
index's writer lease) is never written here: its scans are not queued, its file events are
dropped (the writing process sees them too), its refused writes are not retried.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from indexing.discover import DEFAULT_SKIP_DIRS, is_ignore_file
from indexing.indexer import Baseline, IndexSummary, ScanJob
from indexing.runtime.events import Clock, EventQueue, FileEvent
from indexing.runtime.folders import Folder, FolderRegistry, directory_identity
from indexing.runtime.listener import Listener, ProgressSink
from indexing.store import StoreError

Written = Callable[[Folder, Sequence[str]], None]
#: Delay before the first retry of a refused write, doubling up to the maximum.
RETRY_FIRST_S = 2.0
RETRY_MAX_S = 60.0
#: How long the writer must have had nothing to do before it checkpoints (`Store.settle`) or
#: merges a full-text index (`Store.merge_step`).
SETTLE_QUIET_S = 0.5
#: A folder's next merge begins no sooner than this many times its last merge's length after
#: that merge ended: merging Django's index takes about 0.8 s, so at most one every 16 s.
MERGE_COST_FACTOR = 20.0


@dataclass(frozen=True, slots=True)
class _Pending:
    """A queued event and the folders counted as building because of it."""

    event: FileEvent
    folders: tuple[Folder, ...]


@dataclass(slots=True)
class _Running:
    folder: Folder
    job: ScanJob
    sink: ProgressSink
    verb: str
    baseline: Baseline | None
    #: Wall-clock time the scan started (`FolderIndex.record_scan_start`).
    started_ns: int


class Writer:
    def __init__(self, registry: FolderRegistry, listener: Listener, on_written: Written,
                 debounce_s: float, clock: Clock = time.monotonic) -> None:
        self._registry = registry
        self._listener = listener
        self._on_written = on_written
        self._cond = threading.Condition()
        self._events: EventQueue[_Pending] = EventQueue(debounce_s, clock)
        self._scans: deque[tuple[Folder, bool]] = deque()
        self._running: _Running | None = None
        self._retiring: list[Folder] = []
        self._retries: dict[Folder, float] = {}  # folder -> when to retry (clock time)
        self._backoff: dict[Folder, float] = {}  # folder -> the last retry delay
        self._clock = clock
        self._last_work = float("-inf")  # clock time the last job ended
        self._merging: tuple[Folder, float] | None = None  # the merge going on, and its start
        self._merge_after: dict[Folder, float] = {}  # folder -> no merge before (clock time)
        self._eager = False  # upkeep at once, no quiet spell (`wait_upkept`)
        self._busy = False
        self._upkeeping = False  # the job running is upkeep (a merge, a checkpoint)
        self._stopping = False
        self._thread: threading.Thread | None = None

    # -- the owner's side --------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kebab-writer", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the current step; a running scan is cancelled, queued work dropped."""
        with self._cond:
            self._stopping = True
            for folder, _ in self._scans:
                folder.pending_work -= 1
            self._scans.clear()
            self._cond.notify_all()
        thread = self._thread
        if thread is not None and thread.is_alive() and threading.current_thread() is not thread:
            thread.join(timeout)

    def set_debounce(self, seconds: float) -> None:
        with self._cond:
            self._events.debounce_s = seconds
            self._cond.notify_all()

    def scan(self, folder: Folder, rebuild: bool = False, unless_queued: bool = False) -> None:
        """Queue a scan of `folder`; none for a folder another process writes, nor, with
        `unless_queued`, when a scan of it is queued and not yet begun."""
        if not folder.writes:
            return
        with self._cond:
            if unless_queued and any(f is folder for f, _ in self._scans):
                return
            folder.pending_work += 1
            self._scans.append((folder, rebuild))
            self._cond.notify_all()

    def retire(self, folder: Folder) -> None:
        """Close a removed folder's index once its running scan (if any) has stopped."""
        with self._cond:
            self._retiring.append(folder)
            self._retries.pop(folder, None)
            self._merge_after.pop(folder, None)
            self._cond.notify_all()

    def retry_later(self, folder: Folder) -> None:
        """The disk refused a write for `folder`: try again later, each time later, until a
        write succeeds (then the folder is scanned to catch up)."""
        with self._cond:
            if folder.removed or not folder.writes or folder in self._retries:
                return
            delay = min(RETRY_MAX_S, self._backoff.get(folder, RETRY_FIRST_S / 2) * 2)
            self._backoff[folder] = delay
            self._retries[folder] = self._clock() + delay
            self._cond.notify_all()

    def add(self, events: Iterable[FileEvent]) -> None:
        with self._cond:
            pending = []
            for event in events:
                owners = tuple(f for f in self._registry.snapshot()
                               if f.writes and any(f.owns(p) for p in event.paths()))
                for folder in owners:
                    folder.pending_work += 1
                pending.append(_Pending(event, owners))
            self._events.add(pending)
            self._cond.notify_all()

    @property
    def idle(self) -> bool:
        with self._cond:
            return self._idle_locked()

    @property
    def indexing(self) -> bool:
        """Work that changes what the index holds is queued or running. Upkeep (merging the
        full-text index's segments, a checkpoint) changes no answer, so it is not "building":
        after a large first index it runs for a while, and status said building meanwhile."""
        with self._cond:
            return not self._idle_locked() and not (
                self._upkeeping and self._running is None and not self._scans
                and not self._retiring and len(self._events) == 0)

    def wait_idle(self, timeout: float | None = None) -> bool:
        with self._cond:
            return self._cond.wait_for(self._idle_locked, timeout)

    def wait_upkept(self, timeout: float | None = None) -> bool:
        """Wait until idle with the upkeep done too, at once rather than in idle time: for a
        one-shot `kebab index`, which exits next and leaves no idle time."""
        with self._cond:
            self._eager = True
            self._cond.notify_all()
            return self._cond.wait_for(
                lambda: self._idle_locked() and not self._upkeep_due(), timeout)

    def _idle_locked(self) -> bool:
        return (not self._busy and self._running is None and not self._scans
                and not self._retiring and len(self._events) == 0)

    # -- the writer thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            work = self._next()
            if work is None:
                return
            try:
                work()
            except Exception as exc:  # noqa: BLE001 - one bad job must not kill the writer
                self._listener.log("error", f"indexing failed: {type(exc).__name__}: {exc}")
            finally:
                with self._cond:
                    self._busy = self._upkeeping = False
                    self._last_work = self._clock()
                    self._cond.notify_all()

    def _next(self) -> Callable[[], None] | None:
        """Block until there is work; None means stop."""
        with self._cond:
            while True:
                if self._stopping:
                    running = self._running
                    if running is not None:
                        self._busy = True
                        return lambda: self._finish(running, cancelled=True)
                    return None
                if self._running is not None:
                    self._busy = True
                    return self._step
                if self._retiring:
                    retired = self._retiring.pop(0)
                    self._busy = True
                    return lambda: self._close(retired)
                due_retry = self._due_retry()
                if due_retry is not None:
                    self._busy = True
                    return lambda: self._retry(due_retry)
                if self._scans:
                    folder, rebuild = self._scans.popleft()
                    self._busy = True
                    return lambda: self._start(folder, rebuild)
                due = self._events.take()
                if due:
                    self._busy = True
                    return lambda: self._apply(due)
                upkeep, upkeep_s = self._upkeep()
                if upkeep is not None:
                    self._busy = self._upkeeping = True
                    return upkeep
                waits = [w for w in (self._wait_s(), upkeep_s) if w is not None]
                self._cond.wait(min(waits) if waits else None)

    def _upkeep(self) -> tuple[Callable[[], None] | None, float | None]:
        """What to do when nothing else is queued, or how long until something may be:
        merging a fragmented full-text index (a merge once begun goes on at once), then
        checkpointing the WALs; each begins only after `SETTLE_QUIET_S` without work, and a
        folder's merge only `MERGE_COST_FACTOR` times its last merge's length after it."""
        now = self._clock()
        quiet_at = now if self._eager else self._last_work + SETTLE_QUIET_S
        folders = [f for f in self._registry.snapshot() if f.writes and not f.removed]
        merging = self._merging
        if merging is not None and merging[0] in folders:
            return (lambda: self._merge_step(merging[0])), None
        waits: list[float] = []
        for folder in folders:
            if folder.index.store.fragmented:
                due = max(quiet_at, self._merge_after.get(folder, float("-inf")))
                if due <= now:
                    return (lambda f=folder: self._merge_step(f)), None
                waits.append(due - now)
        unsettled = [f for f in folders if f.index.store.unsettled]
        if unsettled:
            if quiet_at <= now:
                return (lambda: self._settle(unsettled)), None
            waits.append(quiet_at - now)
        return None, min(waits) if waits else None

    def _upkeep_due(self) -> bool:
        """Whether upkeep is left that `wait_upkept` should wait for: not a merge put off
        after a failure, nor anything on an index that cannot be written."""
        now = self._clock()
        for folder in self._registry.snapshot():
            store = folder.index.store
            if (not folder.writes or folder.removed or store.write_error is not None
                    or store.read_only is not None):
                continue
            if store.unsettled or (store.fragmented
                                   and self._merge_after.get(folder, now) <= now):
                return True
        return False

    def _merge_step(self, folder: Folder) -> None:
        """One step of merging `folder`'s full-text index into one piece (`Store.merge_step`);
        the last step schedules the next merge no sooner than `MERGE_COST_FACTOR` times this
        one's length, so merging costs at most a small share of one core."""
        if self._merging is None or self._merging[0] is not folder:
            self._merging = (folder, self._clock())
        started = self._merging[1]
        try:
            more = folder.index.store.merge_step()
        except StoreError:  # the store reports its own trouble; try again much later
            more = False
            self._merge_after[folder] = self._clock() + RETRY_MAX_S
        else:
            if not more and not self._eager:
                self._merge_after[folder] = (
                    self._clock() + MERGE_COST_FACTOR * (self._clock() - started))
        if not more:
            self._merging = None

    @staticmethod
    def _settle(folders: list[Folder]) -> None:
        """Nothing else to do: checkpoint what small writes left in the WALs."""
        for folder in folders:
            folder.index.store.settle()

    def _wait_s(self) -> float | None:
        waits = [w for w in (self._events.wait_s(),) if w is not None]
        now = self._clock()
        waits.extend(max(0.0, due - now) for due in self._retries.values())
        return min(waits) if waits else None

    def _due_retry(self) -> Folder | None:
        now = self._clock()
        for folder, due in list(self._retries.items()):
            if folder.removed:
                del self._retries[folder]
            elif due <= now:
                del self._retries[folder]
                return folder
        return None

    def _retry(self, folder: Folder) -> None:
        """Can the disk take a write again? Reopen read-write if the store had to open
        read-only, write a byte's worth; if that works, scan to catch up on what failed."""
        try:
            folder.index.store.probe_write()
        except StoreError:
            self.retry_later(folder)
            return
        with self._cond:
            self._backoff.pop(folder, None)
        self.scan(folder)

    def _close(self, folder: Folder) -> None:
        try:
            folder.index.close()
        except Exception as exc:  # noqa: BLE001 - a folder that is gone must not stop others
            self._listener.log("error", f"closing the index of {folder.root} failed: {exc}")

    def _start(self, folder: Folder, rebuild: bool) -> None:
        if folder.removed:
            with self._cond:
                folder.pending_work -= 1
            return
        if folder.index.shape_note:
            self._listener.warn(folder.index.shape_note)
        baseline = folder.baseline
        partial = folder.index.partial_note(baseline)
        if partial:
            self._listener.warn(partial)
        verb = "Rebuilding" if rebuild else "Indexing"
        sink = self._listener.begin(f"{verb} {folder.name}")
        folder.progress = (0, 0)
        folder.scanned_root = directory_identity(folder.root)
        # After a change of settings, rules on content (secrets) may decide otherwise about
        # files that did not change: read them all again.
        job = folder.index.indexer.scan(rebuild, reread=folder.index.shape_note is not None,
                                        baseline=baseline)
        running = _Running(folder, job, sink, verb, baseline, time.time_ns())
        folder.index.mark_scan(True)  # readers in other processes answer as still building
        with self._cond:
            self._running = running

    def _step(self) -> None:
        running = self._running
        assert running is not None
        folder = running.folder
        if folder.removed:
            self._finish(running, cancelled=True)
            return
        try:
            more = running.job.step()
        except Exception as exc:
            folder.last_error = f"{type(exc).__name__}: {exc}"
            running.sink.end(f"failed: {exc}")
            if not isinstance(exc, StoreError):  # a store's trouble was shown by its watcher
                folder.scan_failed = folder.last_error
                self._listener.log("error", f"indexing {folder.root} failed: "
                                            f"{folder.last_error}")
            self._finish(running, cancelled=True, ended=True)
            return
        folder.progress = running.job.progress
        running.sink.report(*running.job.progress)
        with self._cond:
            others = self._events.take(keep=lambda p: folder in p.folders)
        if others:
            self._apply(others)
        if not more:
            self._finish(running, cancelled=False)

    def _finish(self, running: _Running, cancelled: bool, ended: bool = False) -> None:
        folder, job = running.folder, running.job
        job.cancel()
        folder.index.mark_scan(False)
        summary = job.summary
        if not ended:  # a failed scan leaves the last complete one on record
            folder.last_scan = summary
        folder.progress = None
        said: str | None = None
        if not cancelled:
            folder.last_error = folder.scan_failed = None
            folder.index.record_shape()
            folder.index.record_partial(running.baseline)
            folder.index.record_scan_start(running.started_ns)
            stats = folder.index.store.stats()
            team = summary.team_note(always=True) if running.baseline is not None else ""
            said = f"{stats.files} files, {stats.symbols} symbols{team}"
            self._listener.log("info", f"{running.verb.lower()} {folder.root}: "
                                       f"{summary.describe()}")
            self._on_written(folder, summary.written_paths)
        elif not ended:
            said = "stopped"
        with self._cond:
            folder.pending_work -= 1
            self._running = None
            # Ended once the scan no longer counts as work, and before anyone waiting for
            # idle wakes: a client that hears the end and asks at once finds the scan done
            # (kebab/status said building for a moment after the progress had ended). A
            # sink only queues a message, so holding the lock meanwhile costs nothing.
            if said is not None:
                running.sink.end(said)
            self._cond.notify_all()

    def _apply(self, due: list[_Pending]) -> None:
        try:
            for folder in self._registry.snapshot():
                if not folder.writes:  # another process writes it (and sees the change)
                    continue
                mine = [p.event for p in due if any(folder.owns(x) for x in p.event.paths())]
                if mine and not folder.removed:
                    try:
                        self._apply_folder(folder, mine)
                    except Exception as exc:  # noqa: BLE001 - other folders go on
                        folder.last_error = f"{type(exc).__name__}: {exc}"
                        if not isinstance(exc, StoreError):
                            self._listener.log("error", f"updating {folder.root} failed: "
                                                        f"{folder.last_error}")
        finally:
            with self._cond:
                for pending in due:
                    for folder in pending.folders:
                        folder.pending_work -= 1
                self._cond.notify_all()

    def _apply_folder(self, folder: Folder, events: list[FileEvent]) -> None:
        if any(needs_scan(folder, p) for e in events for p in e.paths()):
            # A directory or an ignore file changed: only a walk knows what that means. The
            # scan is incremental, so this costs a stat per file.
            self.scan(folder)
            return
        indexer, baseline = folder.index.indexer, folder.baseline
        total = IndexSummary()
        changed: list[Path] = []
        for event in _expand(folder, events):
            if event.kind == "renamed" and event.new_path is not None:
                if changed:
                    total.absorb(indexer.update_paths(list(dict.fromkeys(changed)), baseline))
                    changed = []
                total.absorb(indexer.rename_path(event.path, event.new_path, baseline))
            else:
                changed.append(event.path)
        if changed:
            total.absorb(indexer.update_paths(list(dict.fromkeys(changed)), baseline))
        if total.new or total.changed or total.deleted or total.renamed:
            self._listener.log("info", f"updated {folder.root}: {total.describe()}")
            rel = [r for e in events for p in e.paths() if (r := folder.relative(p))]
            self._on_written(folder, rel)


def needs_scan(folder: Folder, path: Path) -> bool:
    """An event only a walk can interpret: a directory, or a file of ignore rules. The root
    itself is one when it is no longer the directory the last scan walked: deleted, or
    created again (a re-clone, `git worktree remove` and `add`); the walk of a root that is
    gone empties the index, of a new one indexes its tree. Any other event on the root (its
    time or mode changed) asks nothing: a walk of thousands of files for it said building
    again right after the first index."""
    rel = folder.relative(path)
    if rel is None:
        return False
    if rel == ".":
        return directory_identity(folder.root) != folder.scanned_root
    if is_ignore_file(rel):
        return True
    if any(p in DEFAULT_SKIP_DIRS for p in rel.split("/")):
        return False
    return path.is_dir()


def _expand(folder: Folder, events: list[FileEvent]) -> list[FileEvent]:
    """A deleted directory arrives as one event: turn it into its indexed files."""
    out: list[FileEvent] = []
    states: list[str] | None = None
    for event in events:
        if event.kind == "changed" and not event.path.exists():
            rel = folder.relative(event.path)
            if rel and rel != ".":
                if states is None:
                    states = sorted(folder.index.store.file_states())
                under = [p for p in states if p.startswith(rel + "/")]
                out.extend(FileEvent("changed", folder.root / p) for p in under)
        out.append(event)
    return out

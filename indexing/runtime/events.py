"""File events waiting to be applied, and when they are due.

A `git checkout` or a formatter run produces bursts of file events. They are collected until
the stream has been quiet for `debounce_s` (or at most `max_delay_s` after the first one) and
then applied in arrival order, so a save after a rename lands after the rename.

This module holds no thread and reads no clock of its own: time comes in through the injected
`clock`, so the scheduling rules are unit-tested without sleeping.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

Clock = Callable[[], float]
T = TypeVar("T")
MAX_DELAY_S = 1.0


@dataclass(frozen=True, slots=True)
class FileEvent:
    kind: str  # "changed" | "renamed"
    path: Path
    new_path: Path | None = None

    def paths(self) -> tuple[Path, ...]:
        return (self.path,) if self.new_path is None else (self.path, self.new_path)


def normalize(path: Path) -> Path:
    """Resolve symlinked directories (e.g. a temp dir) but not the file itself, so a path
    from a client lines up with the resolved folder roots."""
    path = Path(os.path.abspath(path))
    return Path(os.path.realpath(path.parent)) / path.name


class EventQueue(Generic[T]):
    """Pending events in arrival order, with the debounce rule that says when they are due.
    Not thread-safe: its owner (the runtime's writer) holds the lock. Items are opaque: the
    writer queues file events with its own bookkeeping."""

    def __init__(self, debounce_s: float, clock: Clock = time.monotonic,
                 max_delay_s: float = MAX_DELAY_S) -> None:
        self.debounce_s = debounce_s
        self.max_delay_s = max_delay_s
        self._clock = clock
        self._events: list[T] = []
        self._first_at = 0.0
        self._last_at = 0.0

    def __len__(self) -> int:
        return len(self._events)

    def add(self, events: Iterable[T]) -> None:
        added = list(events)
        if not added:
            return
        now = self._clock()
        if not self._events:
            self._first_at = now
        self._events.extend(added)
        self._last_at = now

    def deadline(self) -> float | None:
        """When the pending events become due (clock time), or None when there are none."""
        if not self._events:
            return None
        return min(self._last_at + self.debounce_s, self._first_at + self.max_delay_s)

    def due(self) -> bool:
        deadline = self.deadline()
        return deadline is not None and self._clock() >= deadline

    def wait_s(self) -> float | None:
        """Seconds until due (0 when due now), or None when nothing is pending."""
        deadline = self.deadline()
        return None if deadline is None else max(0.0, deadline - self._clock())

    def take(self, keep: Callable[[T], bool] | None = None) -> list[T]:
        """Remove and return the due events, in arrival order; nothing if they are not due.
        Events for which `keep` is true stay queued (with their timing), for a folder whose
        scan is running: applying them mid-scan could be overwritten by the scan's older read
        of the same file."""
        if not self.due():
            return []
        taken = [e for e in self._events if keep is None or not keep(e)]
        kept = [e for e in self._events if keep is not None and keep(e)]
        self._events = kept
        return taken

    def clear(self) -> None:
        self._events = []

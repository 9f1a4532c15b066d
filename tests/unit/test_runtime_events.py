"""The event queue's debounce rule, with a fake clock: no threads, no sleeping."""

from __future__ import annotations

from pathlib import Path

from indexing.runtime.events import EventQueue, FileEvent


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def ev(name: str) -> FileEvent:
    return FileEvent("changed", Path("/ws") / name)


def test_a_burst_is_due_after_a_quiet_interval() -> None:
    clock = Clock()
    queue: EventQueue[FileEvent] = EventQueue(0.2, clock)
    assert queue.deadline() is None and queue.wait_s() is None and queue.take() == []
    queue.add([ev("a.py")])
    clock.now += 0.15
    queue.add([ev("b.py")])  # still bursting: the quiet interval starts again
    clock.now += 0.15
    assert not queue.due() and queue.take() == []
    assert abs((queue.wait_s() or 0) - 0.05) < 1e-9
    clock.now += 0.05
    assert queue.due()
    assert queue.take() == [ev("a.py"), ev("b.py")]  # arrival order
    assert len(queue) == 0 and queue.deadline() is None


def test_an_endless_burst_is_applied_after_the_maximum_delay() -> None:
    clock = Clock()
    queue: EventQueue[FileEvent] = EventQueue(0.2, clock, max_delay_s=1.0)
    for i in range(8):
        queue.add([ev(f"{i}.py")])
        clock.now += 0.12  # never quiet for 0.2 s
    assert not queue.due()
    clock.now = 100.0 + 1.0
    assert queue.due() and len(queue.take()) == 8


def test_kept_events_stay_queued_with_their_timing() -> None:
    clock = Clock()
    queue: EventQueue[FileEvent] = EventQueue(0.2, clock)
    queue.add([ev("scanning/a.py"), ev("other/b.py"), ev("scanning/c.py")])
    clock.now += 0.3
    taken = queue.take(keep=lambda e: "scanning" in str(e.path))
    assert taken == [ev("other/b.py")]
    assert len(queue) == 2 and queue.due()  # still due: taken as soon as the scan ends
    assert queue.take() == [ev("scanning/a.py"), ev("scanning/c.py")]


def test_zero_debounce_is_due_at_once() -> None:
    clock = Clock()
    queue: EventQueue[FileEvent] = EventQueue(0.0, clock)
    queue.add([ev("a.py")])
    assert queue.due() and queue.wait_s() == 0.0

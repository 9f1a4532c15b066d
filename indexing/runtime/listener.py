"""How the runtime reports to whoever drives it: the language server turns these calls into
`$/progress` and `window/logMessage`/`showMessage`, the command line into a progress bar and
stderr lines.

Every call comes from a runtime thread and must return at once: a listener that waits on its
client (for a progress token, say) would stall indexing behind a slow editor.
"""

from __future__ import annotations

from typing import Protocol


class ProgressSink(Protocol):
    def report(self, done: int, total: int) -> None: ...

    def end(self, message: str) -> None: ...


class Listener(Protocol):
    def begin(self, title: str, unit: str = "files") -> ProgressSink: ...

    def log(self, level: str, message: str) -> None: ...

    def warn(self, message: str) -> None:
        """Something the user should see (a rebuilt index, a dropped folder), not only log."""
        ...


class SilentSink:
    def report(self, done: int, total: int) -> None:
        pass

    def end(self, message: str) -> None:
        pass


class SilentListener:
    """For callers that only want the work done (tests, `kebab eval`)."""

    def begin(self, title: str, unit: str = "files") -> ProgressSink:
        return SilentSink()

    def log(self, level: str, message: str) -> None:
        pass

    def warn(self, message: str) -> None:
        pass

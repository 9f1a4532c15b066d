"""What a search may be narrowed to, and how a path glob becomes the regex both stores filter
by (SQLite through its REGEXP function, LanceDB through `regexp_like` in a prefilter).

Path globs have one engine: pathspec's gitignore patterns, the same ones discovery reads
`.gitignore`, `.kebabignore` and the `exclude` setting with, so a glob means the same thing
wherever a user writes one. `*` and `?` stay within one folder, `**` crosses folders, a glob
with no `/` (or only a trailing one) matches a file or folder name at any depth, and a folder
selects everything in it. A leading `!` or `#` is taken literally: a filter has no negation or
comments. The translated regex uses only syntax that Python's `re` and Rust's `regex` crate
(LanceDB) read alike.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from functools import lru_cache
from types import ModuleType

_PATHSPEC_IMPORT = threading.Lock()


def load_pathspec() -> ModuleType:
    """pathspec, imported on first use (a search without a glob never pays its 30 ms) and
    under one lock: a thread importing the package while another imports one of its pattern
    modules deadlocks in Python's import locks (the indexer reading ignore rules while a
    query checks its glob), and one of them fails with an ImportError."""
    with _PATHSPEC_IMPORT:
        import pathspec
        import pathspec.patterns.gitignore.spec  # noqa: F401 - the module `_translate` reads
    return pathspec


class InvalidGlob(ValueError):
    """A path glob that cannot be translated; the message says why."""


@dataclass(frozen=True, slots=True)
class Filters:
    """Narrowing a search by language, kind of definition and path. Both stores apply them
    before ranking is cut, so a narrow filter still yields k results when k exist."""

    langs: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    path_glob: str | None = None
    #: Only these workspace-relative paths (None: any), and never these: how a team index and
    #: a local overlay split one folder between them (`search.overlay`), before the cut.
    only_paths: frozenset[str] | None = None
    skip_paths: frozenset[str] = frozenset()

    def within(self, scope: Filters) -> Filters:
        """These filters, narrowed to the paths `scope` lets through: what one of the two
        indexes that split a folder (`search.overlay`) is asked."""
        only = self.only_paths
        if scope.only_paths is not None:
            only = scope.only_paths if only is None else only & scope.only_paths
        return replace(self, only_paths=only, skip_paths=self.skip_paths | scope.skip_paths)

    def lets_through(self, path: str) -> bool:
        """Whether the path sets let `path` through (the other filters are not asked)."""
        return ((self.only_paths is None or path in self.only_paths)
                and path not in self.skip_paths)

    @property
    def path_regex(self) -> str | None:
        """The path glob as a regex over workspace-relative paths; raises `InvalidGlob`."""
        return glob_to_regex(self.path_glob) if self.path_glob else None


@lru_cache(maxsize=256)
def glob_to_regex(glob: str) -> str:
    """The regex that matches the workspace-relative, `/`-separated paths `glob` selects."""
    text = glob.strip()
    if not text or "\0" in text:
        raise InvalidGlob("path_glob must be a non-empty glob")
    if text.count("[") != text.count("]"):
        raise InvalidGlob(f"path_glob {glob!r} has an unbalanced '['")
    if ".." in text.replace("\\", "/").split("/"):
        # Paths are workspace-relative: a glob that climbs out could only ever match nothing,
        # and a filter must not look like a way out of the workspace.
        raise InvalidGlob(f"path_glob {glob!r} climbs out of the workspace ('..'); globs are "
                          "relative to the workspace folder")
    if text[0] in "!#":  # negation and comments in a .gitignore; plain characters here
        text = "\\" + text
    regex, problem = _translate(text)
    if problem is not None:
        raise InvalidGlob(f"path_glob {glob!r} is not a valid glob: {problem}")
    if regex is None:
        raise InvalidGlob(f"path_glob {glob!r} is not a valid glob")
    return regex


def pattern_problem(pattern: str) -> str | None:
    """Why pathspec cannot read `pattern`, one gitignore line (an `exclude` or `languages`
    glob, a line of an ignore file), or None when it can. Git reads such a line as one that
    matches nothing; pathspec raises, from the whole spec, so each line is asked first."""
    return _translate(pattern)[1]


def _translate(pattern: str) -> tuple[str | None, str | None]:
    """(the regex of a gitignore line, or None for a blank line or a comment; why it cannot
    be translated, or None)."""
    load_pathspec()
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    try:
        # pathspec raises its GitIgnorePatternError (a ValueError) for a '\\' that escapes
        # nothing, at the end of the pattern or of one of its folders.
        regex, _include = GitIgnoreSpecPattern.pattern_to_regex(pattern)
        if regex is not None:
            re.compile(regex)
    except ValueError as exc:
        cause = str(exc.__cause__ or exc)
        if "no next character to escape" in cause:
            return None, "a '\\' at its end or before a '/' escapes nothing"
        if "normalized to nothing" in cause:
            return None, "it is empty without its '!' and '/'"
        return None, cause
    except re.error as exc:  # a range such as [z-a]; its position in the regex means nothing
        return None, exc.msg
    return regex, None

"""Why a filtered answer is empty when the filter, not the query, is the cause.

A language filter with a typo (`pyton`), a language the workspace does not hold, or a path glob
written as an absolute path or relative to another folder selects no file at all, and every
query under it answers nothing. That zero is true but says nothing of the query: the answer
must say which filter selected no file, and what the index holds instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from indexing.filters import Filters

#: Languages named in a note before it says "and N more".
_SHOWN = 12
#: What every note says: how an answer merged from several folders tells them apart.
SELECTS_NOTHING = "the filter selects nothing"


def unmatched(filters: Filters, langs: Mapping[str, int],
              paths: Callable[[], Iterable[str]]) -> list[str]:
    """A warning for each filter that no indexed file passes. `langs` counts the index's files
    by language; `paths` lists them, asked only when there is a glob to try."""
    notes: list[str] = []
    if filters.langs and not any(langs.get(lang) for lang in filters.langs):
        held = sorted(langs, key=lambda name: (-langs[name], name))
        shown = ", ".join(held[:_SHOWN]) + (f" and {len(held) - _SHOWN} more"
                                            if len(held) > _SHOWN else "")
        notes.append(f"no indexed file is in {_either(filters.langs)}: {SELECTS_NOTHING} "
                     f"(the index holds {shown or 'no files'})")
    regex = filters.path_regex
    if regex is not None:
        compiled = re.compile(regex)
        if not any(compiled.search(path) for path in paths()):
            notes.append(f"no indexed file matches path_glob {filters.path_glob!r}: "
                         f"{SELECTS_NOTHING} (globs are relative to the workspace folder, and a "
                         "leading '/' anchors at it)")
    return notes


def _either(langs: tuple[str, ...]) -> str:
    quoted = [repr(lang) for lang in langs]
    return quoted[0] if len(quoted) == 1 else f"any of {', '.join(quoted)}"


def in_every_folder(warnings_by_folder: list[list[str]]) -> list[str]:
    """The warnings of an answer merged from several folders: a note that a filter selects
    nothing stays only when it holds in every folder, since a filter that selects files in
    one folder is not why the answer is what it is."""
    def subject(warning: str) -> str | None:  # the filter a note is about, or None
        head, note, _rest = warning.partition(f": {SELECTS_NOTHING}")
        return head if note else None

    in_each = [{subject(w) for w in warnings} for warnings in warnings_by_folder]
    return list(dict.fromkeys(
        w for warnings in warnings_by_folder for w in warnings
        if subject(w) is None or all(subject(w) in subjects for subjects in in_each)))

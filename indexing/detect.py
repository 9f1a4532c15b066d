"""Which language a file is written in.

In order: the user's `languages` setting (globs to a language, `{"*.inc": "php"}`; the first
glob that matches wins), the file's whole name (`Makefile`, `Dockerfile.dev`, `.bashrc`), its
extension (`.tftest.hcl` before `.hcl`), and, for a file whose name has no extension, the
interpreter its shebang line runs (`#!/usr/bin/env python3`). Globs follow gitignore rules, as
`exclude` does: one without a `/` matches a file's name at any depth, one with a `/` its path
from the workspace root.

A file no rule claims has no grammar: it is indexed as plain text.
"""

from __future__ import annotations

import fnmatch
import re
from functools import cache
from typing import TYPE_CHECKING

from indexing.languages import filenames, interpreters, language_for_extension

if TYPE_CHECKING:
    from collections.abc import Callable

#: The globs of a `languages` setting, each with the canonical language it names.
Overrides = tuple[tuple[str, str], ...]

_VERSION_SUFFIX = re.compile(r"[\d.]+$")


def detect_language(path: str, head: str = "", overrides: Overrides = ()) -> str | None:
    """The language of the workspace-relative `path` whose text starts with `head`."""
    by_name = language_by_name(path, overrides)
    if by_name is not None or has_extension(path):
        return by_name
    return shebang_language(head)


def language_by_name(path: str, overrides: Overrides = ()) -> str | None:
    """The language `path` is in by its name alone (the settings, the file name, the
    extension): what a file's content cannot change."""
    for matches, lang in _compiled(overrides):
        if matches(path):
            return lang
    name = path.rsplit("/", 1)[-1]
    exact, globs = filenames()
    if name in exact:
        return exact[name]
    for pattern, glob_lang in globs:
        if fnmatch.fnmatchcase(name, pattern):
            return glob_lang
    return language_for_extension(path)


def has_extension(path: str) -> bool:
    """`a/run` has none, nor has `.bashrc`; `a/b.py` and `.eslintrc.json` have one."""
    name = path.rsplit("/", 1)[-1]
    return "." in name.lstrip(".")


def shebang_language(head: str) -> str | None:
    """The language of the interpreter a `#!` first line runs: `/bin/bash`, `/usr/bin/env
    python3 -u`, `/usr/bin/env -S node --flags`."""
    if not head.startswith("#!"):
        return None
    words = head[2:].split("\n", 1)[0].split()
    if not words:
        return None
    command = words[0].rsplit("/", 1)[-1]
    if command == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        command = rest[0].rsplit("/", 1)[-1]
    table = interpreters()
    return table.get(command) or table.get(_VERSION_SUFFIX.sub("", command))


@cache
def _compiled(overrides: Overrides) -> tuple[tuple[Callable[[str], bool], str], ...]:
    """Each glob as a matcher over workspace-relative paths, gitignore style."""
    if not overrides:
        return ()
    import pathspec

    compiled = []
    for glob, lang in overrides:
        spec = pathspec.GitIgnoreSpec.from_lines([glob])
        compiled.append((spec.match_file, lang))
    return tuple(compiled)

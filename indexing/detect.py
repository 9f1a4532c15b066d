"""Which language a file is written in.

In order: the user's `languages` setting (globs to a language, `{"*.inc": "php"}`; the first
glob that matches wins), the file's whole name (`Makefile`, `Dockerfile.dev`, `.bashrc`), its
extension (`.tftest.hcl` before `.hcl`), and, for a file whose name has no extension, the
interpreter its shebang line runs (`#!/usr/bin/env python3`). Globs follow gitignore rules, as
`exclude` does: one without a `/` matches a file's name at any depth, one with a `/` its path
from the workspace root.

One extension is shared: C, C++ and Objective-C all write their headers as `.h`, and read with
C's grammar a C++ header loses its classes and methods and an Objective-C one every
declaration. So a `.h` file's own text decides (`header_language`); a `languages` glob that
claims it still wins, as it does for every file, so a repository whose headers the guess gets
wrong can say what they are.

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

#: How much of a file's start `detect_language` reads (callers pass `text[:this]`): a shebang
#: is the first line, but a header's first declarations may follow a long licence comment,
#: include guards and export macros (libinih's `INIReader.h` opens its class after 1.2 KB).
LANGUAGE_HEAD_CHARS = 16_384

_VERSION_SUFFIX = re.compile(r"[\d.]+$")
#: The extension C, C++ and Objective-C share; the catalog gives it to C.
_SHARED_HEADER = ".h"
_HEADER_COMMENTS = re.compile(r"/\*.*?(?:\*/|$)|//[^\n]*", re.DOTALL)
#: Lines only Objective-C writes (comments are gone first: Doxygen has `@interface` too).
_OBJC_LINE = re.compile(
    r"^[ \t]*(?:@(?:interface|protocol|implementation|class|end)\b|#[ \t]*import\b)", re.M)
#: Lines only C++ writes: a class, a namespace, a template, an access label, an `enum class`,
#: `using namespace`, a `std::` name. Not `extern "C" {`, nor `#include <cstdint>`: C headers
#: write those for C++ callers, inside `#ifdef __cplusplus`.
_CPP_LINE = re.compile(
    r"^[ \t]*(?:(?:class|namespace)[ \t]+\w|template[ \t]*<|(?:public|protected|private)[ \t]*:"
    r"|enum[ \t]+(?:class|struct)\b|using[ \t]+namespace\b)|\bstd::\w",
    re.M,
)


def detect_language(path: str, head: str = "", overrides: Overrides = ()) -> str | None:
    """The language of the workspace-relative `path` whose text starts with `head`."""
    chosen = _chosen(path, overrides)
    if chosen is not None:
        return chosen
    by_name = _named(path)
    if by_name == "c" and path.lower().endswith(_SHARED_HEADER):
        return header_language(head)
    if by_name is not None or has_extension(path):
        return by_name
    return shebang_language(head)


def header_language(head: str) -> str:
    """The language a `.h` header starting with `head` is written in: `objc` when a line
    only Objective-C writes is there (`@interface`, `#import`), else `cpp` when a line only
    C++ writes is (`class`, `namespace`, `template <`), else `c`. Objective-C goes first, so
    an Objective-C++ header is read as Objective-C, as its `.mm` file is. Only the text counts
    (no other file of the repository), so a header reads the same wherever it is."""
    code = _HEADER_COMMENTS.sub("", head)
    if _OBJC_LINE.search(code):
        return "objc"
    if _CPP_LINE.search(code):
        return "cpp"
    return "c"


def language_by_name(path: str, overrides: Overrides = ()) -> str | None:
    """The language `path` is in by its name alone (the settings, the file name, the
    extension), before a `.h` header's text is read."""
    return _chosen(path, overrides) or _named(path)


def _chosen(path: str, overrides: Overrides) -> str | None:
    """The language of the user's first `languages` glob that matches `path`."""
    for matches, lang in _compiled(overrides):
        if matches(path):
            return lang
    return None


def _named(path: str) -> str | None:
    """The language of `path`'s file name or extension, by the catalog."""
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
    from indexing.filters import load_pathspec

    pathspec = load_pathspec()

    compiled = []
    for glob, lang in overrides:
        spec = pathspec.GitIgnoreSpec.from_lines([glob])
        compiled.append((spec.match_file, lang))
    return tuple(compiled)

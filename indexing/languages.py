"""The languages kebab reads with a grammar: one canonical name each, its grammar, the file
names that are written in it, and the other names people call it.

The catalog is data (`languages.toml`), read once. A canonical name is what the index records
as a file's language and what search filters match, so every way a language is named (a
`--lang js` flag, a ```` ```py ```` fence, a `languages` setting) goes through `canonical`
first. Grammars come from `tree-sitter-language-pack` (see `indexing.grammars`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from indexing.language_rules import has_definitions, language_rules

_CATALOG = Path(__file__).with_name("languages.toml")
_KEYS = frozenset({"grammar", "extensions", "aliases", "filenames", "interpreters", "docs"})


@dataclass(frozen=True, slots=True)
class LanguageInfo:
    """One language of the catalog."""

    name: str
    grammar: str
    extensions: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    #: Whole file names, or globs over the name (`Dockerfile.*`).
    filenames: tuple[str, ...] = ()
    #: What a shebang line runs, without version suffixes.
    interpreters: tuple[str, ...] = ()
    #: Where definitions find their documentation, in words (the README's table).
    docs: str = ""


@cache
def catalog() -> dict[str, LanguageInfo]:
    """Every language, by canonical name, in the catalog's order. Raises ValueError naming
    the entry when the file says something this loader does not know."""
    raw = tomllib.loads(_CATALOG.read_text("utf-8"))
    languages: dict[str, LanguageInfo] = {}
    for name, entry in raw.items():
        unknown = set(entry) - _KEYS
        if unknown:
            raise ValueError(f"{_CATALOG}: [{name}] has unknown keys {sorted(unknown)}")
        languages[name] = LanguageInfo(
            name=name,
            grammar=entry.get("grammar", name),
            extensions=tuple(e.lower() for e in entry.get("extensions", ())),
            aliases=tuple(a.lower() for a in entry.get("aliases", ())),
            filenames=tuple(entry.get("filenames", ())),
            interpreters=tuple(entry.get("interpreters", ())),
            docs=entry.get("docs", ""),
        )
    return languages


@cache
def _names() -> dict[str, str]:
    names: dict[str, str] = {}
    for info in catalog().values():
        for name in (info.name, *info.aliases):
            if names.setdefault(name, info.name) != info.name:
                raise ValueError(f"{_CATALOG}: {name!r} names both {names[name]} and {info.name}")
    return names


def canonical(name: str) -> str | None:
    """The canonical name of a language named `name` (any case, any alias: `JS`, `c#`,
    `rb`), or None when no language is called that."""
    return _names().get(name.strip().lower())


@cache
def extensions() -> dict[str, str]:
    """File name ending (lower-cased, with the dot) to canonical language name."""
    table: dict[str, str] = {}
    for info in catalog().values():
        for ext in info.extensions:
            if table.setdefault(ext, info.name) != info.name:
                raise ValueError(f"{_CATALOG}: {ext} is claimed by {table[ext]} and {info.name}")
    return table


@cache
def _longest_extension() -> int:
    return max(ext.count(".") for ext in extensions())


def language_for_extension(path: str) -> str | None:
    """The language of `path` by its name's ending (the longest that the catalog knows:
    `.tftest.hcl` before `.hcl`), or None. `indexing.detect` also reads file names, shebangs
    and the user's globs."""
    name = path.rsplit("/", 1)[-1].lower()
    parts = name.split(".")
    table = extensions()
    for dots in range(min(_longest_extension(), len(parts) - 1), 0, -1):
        ending = "." + ".".join(parts[-dots:])
        if ending == name:  # `.py` alone is a hidden file's name, not an extension
            continue
        lang = table.get(ending)
        if lang is not None:
            return lang
    return None


@cache
def filenames() -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Whole file names to language, and (glob over the name, language) pairs."""
    exact: dict[str, str] = {}
    globs: list[tuple[str, str]] = []
    for info in catalog().values():
        for name in info.filenames:
            if any(ch in name for ch in "*?["):
                globs.append((name, info.name))
            elif exact.setdefault(name, info.name) != info.name:
                raise ValueError(f"{_CATALOG}: {name} is claimed by {exact[name]} and {info.name}")
    return exact, globs


@cache
def interpreters() -> dict[str, str]:
    """What a shebang runs (`python`, `node`, `bash`) to language."""
    return {cmd: info.name for info in catalog().values() for cmd in info.interpreters}


def grammar_name(lang: str) -> str:
    """The name of `lang`'s grammar in the language pack."""
    return catalog()[lang].grammar


@cache
def code_languages() -> frozenset[str]:
    """Languages whose grammar reads a programming language (Markdown and reStructuredText
    are document formats)."""
    return frozenset(lang for lang in catalog() if language_rules(lang).extractor == "code")


@cache
def definition_languages() -> frozenset[str]:
    """Languages with definitions: patterns of their own (or a parent's), headings, or code
    embedded in `<script>` blocks."""
    return frozenset(
        lang for lang in catalog()
        if language_rules(lang).extractor != "code" or has_definitions(lang)
        or language_rules(lang).embedded != "none"
    )

"""The one declaration of every user setting: its type, default, range, documentation and what
changing it affects.

It sits in the lowest layer so that every layer reads the same object: the indexing runtime
(what goes into an index), search (request defaults) and the protocol layer (which parses
`initializationOptions` and `workspace/didChangeConfiguration` with it). The CLI's flags, the
README's settings table and the VS Code extension's `package.json` are generated from or
checked against this module, so none of them can drift.

Editors send settings in many shapes (flat, nested under `kebab`, camelCase or snake_case), and
users mistype them. A bad setting never takes anything down: it becomes a warning the caller
shows, and the previous value stays in force. A setting the client no longer sends returns to
its base value (`parse`): LSP configuration is the whole current state, not a patch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Any

import attrs

SECTION = "kebab"
MODES: tuple[str, ...] = ("auto", "lexical", "vector", "hybrid")
DEFAULT_MAX_BYTES = 1024 * 1024
MAX_K = 500
MAX_SYMBOL_LIMIT = 10_000


class Scope(StrEnum):
    """What a change to a setting affects."""

    INDEX = "index"  # what an index holds: recorded in it; a change reopens the folder
    RUNTIME = "runtime"  # how indexing runs: applied to the running runtime
    SEARCH = "search"  # how requests are answered: read per request


@attrs.frozen
class Spec:
    """The declaration of one setting, kept in its field's metadata."""

    doc: str
    scope: Scope
    kind: str  # "string", "path", "paths", "integer", "boolean", "choice", "languages"
    nullable: bool = False
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    default_doc: str = ""  # for the README when the default is computed ("cores − 1")

    def check(self, value: Any) -> tuple[Any, str | None]:
        """The validated value, or a message saying what is wrong with it."""
        if value is None and self.nullable:
            return None, None
        if self.kind in ("string", "path"):
            if isinstance(value, str) and value.strip():
                return value, None
            return None, "must be a non-empty string" + (" or null" if self.nullable else "")
        if self.kind == "paths":
            if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
                bad = _bad_pattern(value)
                return (None, bad) if bad else (tuple(value), None)
            return None, "must be a list of strings"
        if self.kind == "languages":
            return _language_globs(value)
        if self.kind == "boolean":
            return (value, None) if isinstance(value, bool) else (None, "must be true or false")
        if self.kind == "choice":
            if value in self.choices:
                return value, None
            return None, f"must be one of {', '.join(self.choices)}"
        if isinstance(value, bool) or not isinstance(value, int):
            return None, f"must be an integer{self._range()}"
        if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum):
            return None, f"must be an integer{self._range()}"
        return value, None

    def _range(self) -> str:
        if self.minimum is not None and self.maximum is not None:
            return f" in {self.minimum}..{self.maximum}"
        if self.minimum is not None:
            return f" ≥ {self.minimum}"
        return ""


def _language_globs(value: Any) -> tuple[Any, str | None]:
    """`{"*.inc": "php"}` (or, from the command line, `["*.inc=php"]`, or the pairs the model
    keeps) as ((glob, canonical language), ...) in the order given: the first glob that
    matches a file wins."""
    from indexing.languages import canonical

    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        pairs = [tuple(v.split("=", 1)) if "=" in v else (v, "") for v in value]
    elif isinstance(value, list | tuple) and all(
            isinstance(v, list | tuple) and len(v) == 2 for v in value):
        pairs = [tuple(v) for v in value]
    else:
        return None, 'must map globs to languages, like {"*.inc": "php"}'
    checked: list[tuple[str, str]] = []
    for glob, name in pairs:
        if not isinstance(glob, str) or not glob.strip() or not isinstance(name, str):
            return None, 'must map globs to languages, like {"*.inc": "php"}'
        lang = canonical(name)
        if lang is None:
            return None, f"names an unknown language {name!r} for {glob!r}"
        checked.append((glob, lang))
    bad = _bad_pattern([glob for glob, _ in checked])
    return (None, bad) if bad else (tuple(checked), None)


def _bad_pattern(patterns: Sequence[str]) -> str | None:
    """What is wrong with the first of `patterns` (gitignore-style globs) that pathspec
    cannot read, or None. Such a glob would fail every scan of the folder (or, as a language
    glob, every file read), so the setting is refused here, where a bad setting is reported
    and the one in force kept."""
    from indexing.filters import pattern_problem

    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem:
            return f"holds {pattern!r}, which is not a valid gitignore pattern: {problem}"
    return None


def _check_field(_inst: Any, attribute: attrs.Attribute[Any], value: Any) -> None:
    spec: Spec = attribute.metadata["spec"]
    _, problem = spec.check(value)
    if problem:
        raise ValueError(f"{attribute.name} {problem}")


def setting(default: Any, spec: Spec) -> Any:
    return attrs.field(default=default, validator=_check_field, metadata={"spec": spec})


@attrs.frozen
class Settings:
    index_dir: str | None = setting(None, Spec(
        "Root of the per-folder indexes.", Scope.INDEX, "path", nullable=True,
        default_doc="user cache"))
    exclude: tuple[str, ...] = setting((), Spec(
        "More gitignore-style patterns to skip.", Scope.INDEX, "paths"))
    languages: tuple[tuple[str, str], ...] = setting((), Spec(
        "Gitignore-style globs mapped to the language their files are in, "
        'like {"*.inc": "php"}; the first that matches wins.', Scope.INDEX, "languages"))
    max_file_bytes: int = setting(DEFAULT_MAX_BYTES, Spec(
        "Larger files are skipped (and counted).", Scope.INDEX, "integer", minimum=1))
    include_secrets: bool = setting(False, Spec(
        "Index files that look like credentials (`.env`, private keys, `.aws/credentials`, "
        "…), which are skipped (and counted) by default.", Scope.INDEX, "boolean"))
    model_dir: str | None = setting(None, Spec(
        "A fastembed-compatible model directory (model.onnx plus tokenizer files).",
        Scope.INDEX, "path", nullable=True, default_doc="bundled MiniLM"))
    workers: int | None = setting(None, Spec(
        "Processes that parse files; with 2 or more a save is parsed outside the server too, "
        "so a grammar that crashes or hangs costs only its file.", Scope.RUNTIME, "integer",
        nullable=True,
        minimum=1, maximum=64, default_doc="cores"))
    debounce_ms: int = setting(200, Spec(
        "Quiet time before a burst of file events is applied.", Scope.RUNTIME, "integer",
        minimum=0, maximum=10_000))
    embed: bool = setting(True, Spec(
        "Compute embeddings in the background.", Scope.RUNTIME, "boolean"))
    embed_threads: int | None = setting(None, Spec(
        "Threads for embedding.", Scope.RUNTIME, "integer", nullable=True, minimum=1,
        maximum=64, default_doc="cores − 1"))
    default_mode: str = setting("auto", Spec(
        "Mode of `kebab/search` requests that omit it.", Scope.SEARCH, "choice",
        choices=MODES))
    default_k: int = setting(20, Spec(
        "Hits of `kebab/search` requests that omit `k`.", Scope.SEARCH, "integer", minimum=1,
        maximum=MAX_K))
    symbol_limit: int = setting(100, Spec(
        "Cap on `workspace/symbol` results.", Scope.SEARCH, "integer", minimum=1,
        maximum=MAX_SYMBOL_LIMIT))
    rrf_k: int = setting(60, Spec(
        "k of reciprocal-rank fusion.", Scope.SEARCH, "integer", minimum=1, maximum=1000))
    store: str = setting("sqlite", Spec(
        "Where the index lives: sqlite (a local index per folder) or a postgresql:// URL (a "
        "team index; the password is best kept in PGPASSWORD or ~/.pgpass).", Scope.SEARCH,
        "string"))
    repo: str | None = setting(None, Spec(
        "The repository's name in a team index (letters, digits and ._/@+-).", Scope.SEARCH,
        "string", nullable=True, default_doc="none"))
    team_vectors: str | None = setting(None, Spec(
        "Where a team index's vectors live: a directory shared by the indexing job and the "
        "editors, each repository's in a dataset of its own under it; without it a team "
        "index answers by words only.", Scope.SEARCH, "string", nullable=True,
        default_doc="none"))
    provide_references: bool = setting(False, Spec(
        "Answer `textDocument/references` from the index's refs (by name, without type "
        "resolution).", Scope.SEARCH, "boolean"))


def specs() -> dict[str, Spec]:
    """Every setting's declaration, in declaration order."""
    return {f.name: f.metadata["spec"] for f in attrs.fields(Settings)}


def defaults() -> Settings:
    return Settings()


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def plain(value: Any) -> Any:
    """Payloads arrive as dicts, lists or (from pygls) namedtuples: settings code wants dicts."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def is_setting(key: str) -> bool:
    return _snake(key) in specs()


def parse(raw: Any, base: Settings, current: Settings | None = None
          ) -> tuple[Settings, list[str]]:
    """The settings `raw` states, over `base`, and one warning per entry not applied.

    `raw` is a whole configuration, as LSP sends it (pushed or pulled): a setting it names
    takes that value, and one it leaves out takes `base`'s, so removing a setting brings
    `base`'s value back instead of leaving the removed one in force. A setting it names with
    an unknown key or a bad value is reported and keeps `current`'s value (by default
    `base`'s): a typo half-way through an edit does not throw away what was in force.

    Accepts a flat object, one nested under `kebab`, or both, in camelCase or snake_case.
    Beside a `kebab` section the flat settings apply too (the section wins for a setting
    both name, and a warning says so); other flat keys there are other tools' sections, left
    alone. Without a section every key is ours, and an unknown one is reported."""
    data = plain(raw)
    if data is None:
        return base, []
    keep = current or base
    if not isinstance(data, dict):
        return keep, [f"kebab settings must be an object, got {type(data).__name__}; ignored"]
    if SECTION in data and isinstance(data[SECTION], dict):
        flat = {key: value for key, value in data.items() if key != SECTION and is_setting(key)}
        nested: dict[str, Any] = data[SECTION]
    else:
        flat, nested = data, {}
    known = specs()
    changes: dict[str, Any] = {}
    warnings: list[str] = []
    given: dict[str, str] = {}  # setting -> the key that gave it, flat ones first
    for entries, where in ((flat, ""), (nested, f" under {SECTION!r}")):
        for key in sorted(entries):
            name = _snake(key)
            spec = known.get(name)
            if spec is None:
                warnings.append(f"unknown kebab setting {key!r}{where}; ignored")
                continue
            if where and name in given:
                warnings.append(f"kebab setting {key!r} is given both flat ({given[name]!r}) and "
                                f"under {SECTION!r}; the one under {SECTION!r} applies")
            given[name] = key
            value, problem = spec.check(entries[key])
            if problem:
                warnings.append(f"kebab setting {key!r}{where} {problem} "
                                f"(got {entries[key]!r}); ignored")
                value = getattr(keep, name)
            changes[name] = value
    return attrs.evolve(base, **changes), warnings


def changed(old: Settings, new: Settings, scope: Scope) -> list[str]:
    """Names of the settings of `scope` whose values differ."""
    return [name for name, spec in specs().items()
            if spec.scope == scope and getattr(old, name) != getattr(new, name)]


def index_shape(settings: Settings) -> dict[str, Any]:
    """The settings that decide what an index holds, as recorded in it. Where the index lives
    is not part of its shape."""
    return {name: list(value) if isinstance(value, tuple) else value
            for name, spec in specs().items() if spec.scope == Scope.INDEX
            and name != "index_dir" for value in (getattr(settings, name),)}


def default_text(name: str) -> str:
    """A setting's default as documentation shows it."""
    spec = specs()[name]
    if spec.default_doc:
        return spec.default_doc
    value = getattr(defaults(), name)
    if isinstance(value, bool):
        return "true" if value else "false"
    if spec.kind == "languages":
        return "{}"
    if isinstance(value, tuple):
        return "[]"
    return str(value)


def table_rows() -> list[tuple[str, str, str]]:
    """(camelCase name, default, documentation) per setting, for the README's table."""
    return [(camel(name), default_text(name), spec.doc) for name, spec in specs().items()]


Flagger = Callable[[str, Spec], Sequence[str]]


def add_arguments(parser: Any, names: Sequence[str]) -> None:
    """argparse flags for the named settings (`--max-file-bytes N`, `--embed/--no-embed`,
    `--exclude PATTERN` and `--languages GLOB=LANG` repeated). Unset flags stay None, so
    `from_arguments` applies only what the user typed over the environment's defaults."""
    import argparse

    for name in names:
        spec = specs()[name]
        flag = "--" + name.replace("_", "-")
        help_ = f"{spec.doc} (default: {default_text(name)})"
        if spec.kind == "boolean":
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction,
                                default=None, help=help_)
        elif spec.kind == "paths":
            parser.add_argument(flag, dest=name, action="append", default=None,
                                metavar="PATTERN", help=help_ + "; repeat for more")
        elif spec.kind == "languages":
            parser.add_argument(flag, dest=name, action="append", default=None,
                                metavar="GLOB=LANG", help=help_ + "; repeat for more")
        elif spec.kind == "integer":
            parser.add_argument(flag, dest=name, type=int, default=None, metavar="N",
                                help=help_)
        elif spec.kind == "choice":
            parser.add_argument(flag, dest=name, choices=spec.choices, default=None,
                                help=help_)
        else:
            parser.add_argument(flag, dest=name, default=None, metavar="PATH", help=help_)


def from_arguments(args: Any, base: Settings, names: Sequence[str]) -> tuple[Settings, list[str]]:
    """Settings from parsed flags, checked by the same rules as an editor's settings."""
    given = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    return parse(given, base)

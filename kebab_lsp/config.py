"""Server settings, from `initializationOptions` and `workspace/didChangeConfiguration`.

Editors send settings in many shapes (flat, nested under `kebab`, camelCase or snake_case), and
users mistype them. A bad setting must never take the server down: every problem becomes a
warning the caller shows with `window/showMessage`, and the previous value stays in force.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from indexing.discover import DEFAULT_MAX_BYTES
from kebab_lsp.workspace import WorkspaceOptions
from search.hybrid import DEFAULT_K_RRF
from search.types import DEFAULT_K, MAX_K, MODES

SECTION = "kebab"
DEFAULT_SYMBOL_LIMIT = 100
MAX_SYMBOL_LIMIT = 10_000


@dataclass(frozen=True, slots=True)
class Settings:
    index_dir: str | None = None
    exclude: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_BYTES
    workers: int | None = None
    default_mode: str = "auto"
    default_k: int = DEFAULT_K
    symbol_limit: int = DEFAULT_SYMBOL_LIMIT
    debounce_ms: int = 200
    embed: bool = True
    embed_threads: int | None = None
    model_dir: str | None = None
    rrf_k: int = DEFAULT_K_RRF

    def workspace_options(self) -> WorkspaceOptions:
        return WorkspaceOptions(
            index_dir=self.index_dir,
            max_file_bytes=self.max_file_bytes,
            exclude=self.exclude,
            workers=self.workers,
            embed=self.embed,
            model_dir=self.model_dir,
            embed_threads=self.embed_threads,
            rrf_k=self.rrf_k,
        )


# Settings that decide what is in an index: changing one means reopening and re-indexing.
INDEX_SHAPING = ("index_dir", "exclude", "max_file_bytes", "workers", "embed", "embed_threads",
                 "model_dir", "rrf_k")


def _camel_to_snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def plain(value: Any) -> Any:
    """pygls hands untyped payloads over as namedtuples; settings code wants dicts and lists."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def _int_in(value: Any, low: int, high: int | None) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if value < low or (high is not None and value > high):
        return None
    return value


def _check(name: str, value: Any) -> tuple[Any, str | None]:
    """The validated value for one setting, or a message saying what is wrong with it."""
    if name == "index_dir":
        if value is None or (isinstance(value, str) and value.strip()):
            return value, None
        return None, "must be a non-empty string (a directory) or null"
    if name == "exclude":
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value), None
        return None, "must be a list of gitignore-style patterns (strings)"
    if name == "max_file_bytes":
        checked = _int_in(value, 1, None)
        return (checked, None) if checked is not None else (None, "must be a positive integer")
    if name == "workers":
        if value is None:
            return None, None
        checked = _int_in(value, 1, 64)
        return (checked, None) if checked is not None else (None, "must be an integer in 1..64")
    if name == "default_mode":
        if value in MODES:
            return value, None
        return None, f"must be one of {', '.join(MODES)}"
    if name == "default_k":
        checked = _int_in(value, 1, MAX_K)
        if checked is not None:
            return checked, None
        return None, f"must be an integer in 1..{MAX_K}"
    if name == "symbol_limit":
        checked = _int_in(value, 1, MAX_SYMBOL_LIMIT)
        if checked is not None:
            return checked, None
        return None, f"must be an integer in 1..{MAX_SYMBOL_LIMIT}"
    if name == "debounce_ms":
        checked = _int_in(value, 0, 10_000)
        return (checked, None) if checked is not None else (None, "must be an integer in 0..10000")
    if name == "embed":
        return (value, None) if isinstance(value, bool) else (None, "must be true or false")
    if name == "embed_threads":
        if value is None:
            return None, None
        checked = _int_in(value, 1, 64)
        return (checked, None) if checked is not None else (None, "must be an integer in 1..64")
    if name == "rrf_k":
        checked = _int_in(value, 1, 1000)
        return (checked, None) if checked is not None else (None, "must be an integer in 1..1000")
    if name == "model_dir":
        if value is None or (isinstance(value, str) and value.strip()):
            return value, None
        return None, "must be a directory path or null"
    return None, "is not a known setting"


_KNOWN = {f.name for f in fields(Settings)}


def is_setting(key: str) -> bool:
    return _camel_to_snake(key) in _KNOWN


def parse_settings(raw: Any, base: Settings) -> tuple[Settings, list[str]]:
    """Apply the settings in `raw` on top of `base`.

    Returns the new settings and one warning per ignored entry. Accepts a flat object or one
    nested under `kebab` (what `didChangeConfiguration` usually carries), in either camelCase
    or snake_case.
    """
    data = plain(raw)
    if data is None:
        return base, []
    if not isinstance(data, dict):
        return base, [f"kebab settings must be an object, got {type(data).__name__}; ignored"]
    if SECTION in data and isinstance(data[SECTION], dict):
        data = data[SECTION]
    changes: dict[str, Any] = {}
    warnings: list[str] = []
    for key in sorted(data):
        name = _camel_to_snake(key)
        if name not in _KNOWN:
            warnings.append(f"unknown kebab setting {key!r}; ignored")
            continue
        value, problem = _check(name, data[key])
        if problem:
            warnings.append(f"kebab setting {key!r} {problem} (got {data[key]!r}); ignored")
            continue
        changes[name] = value
    return replace(base, **changes), warnings


def index_shape_changed(old: Settings, new: Settings) -> bool:
    return any(getattr(old, name) != getattr(new, name) for name in INDEX_SHAPING)

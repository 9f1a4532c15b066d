"""Settings: one declaration; every shape editors send; bad values reported, never fatal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import attrs
import pytest

from indexing.settings import Scope, Settings, camel, changed, parse, specs, table_rows

REPO = Path(__file__).resolve().parents[2]


def test_nested_camel_case_settings_apply() -> None:
    settings, warnings = parse(
        {"kebab": {"defaultMode": "lexical", "embedThreads": 1, "rrfK": 20, "embed": False,
                   "modelDir": "/models/mini", "exclude": ["*.gen.go"]}}, Settings())
    assert warnings == []
    assert (settings.default_mode, settings.embed_threads, settings.rrf_k, settings.embed,
            settings.model_dir, settings.exclude) == ("lexical", 1, 20, False, "/models/mini",
                                                      ("*.gen.go",))


def test_bad_values_are_reported_and_ignored() -> None:
    base = Settings()
    settings, warnings = parse({"rrf_k": 0, "embed": "yes", "colour": "red", "default_k": 10},
                               base)
    assert settings.rrf_k == base.rrf_k and settings.embed is True and settings.default_k == 10
    assert len(warnings) == 3
    assert any("'colour'" in w for w in warnings)
    assert any("rrf_k" in w and "1..1000" in w for w in warnings)
    with pytest.raises(ValueError, match="max_file_bytes must be an integer ≥ 1"):
        Settings(max_file_bytes=0)  # the model itself refuses an invalid value


def test_scopes_say_what_a_change_affects() -> None:
    assert changed(Settings(), Settings(exclude=("x",)), Scope.INDEX) == ["exclude"]
    assert changed(Settings(), Settings(default_k=5), Scope.INDEX) == []
    assert changed(Settings(), Settings(debounce_ms=5), Scope.RUNTIME) == ["debounce_ms"]


def _vscode_settings() -> dict[str, dict[str, object]]:
    package = json.loads((REPO / "editors/vscode/package.json").read_text())
    return package["contributes"]["configuration"]["properties"]


def test_vscode_package_json_declares_every_server_setting_the_same_way() -> None:
    """The extension forwards `kebab.*` settings to the server; its declarations must match
    the model's names, defaults, ranges and choices."""
    declared = _vscode_settings()
    client_only = {"kebab.serverPath", "kebab.serverArgs", "kebab.interpreter",
                   "kebab.trace.server"}
    assert set(declared) - client_only == {f"kebab.{camel(n)}" for n in specs()}
    defaults = Settings()
    for name, spec in specs().items():
        entry = declared[f"kebab.{camel(name)}"]
        value = getattr(defaults, name)
        if spec.kind == "languages":
            value = dict(value)  # an object in JSON: globs to languages
        assert entry["default"] == (list(value) if isinstance(value, tuple) else value), name
        assert entry.get("minimum") == spec.minimum, name
        assert entry.get("maximum") == spec.maximum, name
        assert tuple(entry.get("enum") or ()) == spec.choices, name
        assert ("null" in entry["type"]) == spec.nullable, name
        assert entry["description"].startswith(spec.doc.rstrip(".")), name


def test_readme_settings_table_is_the_model() -> None:
    readme = (REPO / "README.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \|$", readme, re.M)
    assert [(name, default.strip("`"), doc) for name, default, doc in rows] == table_rows()


def test_settings_are_frozen_and_typed() -> None:
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        Settings().rrf_k = 3  # type: ignore[misc]

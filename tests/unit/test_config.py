"""Server settings: every shape editors send, and bad values reported, never fatal."""

from __future__ import annotations

from kebab_lsp.config import Settings, index_shape_changed, parse_settings


def test_nested_camel_case_settings_apply() -> None:
    settings, warnings = parse_settings(
        {"kebab": {"defaultMode": "lexical", "embedThreads": 1, "rrfK": 20, "embed": False,
                   "modelDir": "/models/mini"}}, Settings())
    assert warnings == []
    assert (settings.default_mode, settings.embed_threads, settings.rrf_k, settings.embed,
            settings.model_dir) == ("lexical", 1, 20, False, "/models/mini")
    opts = settings.workspace_options()
    assert (opts.rrf_k, opts.embed, opts.embed_threads, opts.model_dir) == (
        20, False, 1, "/models/mini")


def test_bad_values_are_reported_and_ignored() -> None:
    base = Settings()
    settings, warnings = parse_settings(
        {"rrf_k": 0, "embed": "yes", "colour": "red", "default_k": 10}, base)
    assert settings.rrf_k == base.rrf_k and settings.embed is True and settings.default_k == 10
    assert len(warnings) == 3
    assert any("'colour'" in w for w in warnings)
    assert any("rrf_k" in w and "1..1000" in w for w in warnings)


def test_index_shaping_settings_reopen_folders() -> None:
    assert index_shape_changed(Settings(), Settings(rrf_k=10))
    assert not index_shape_changed(Settings(), Settings(default_k=5))

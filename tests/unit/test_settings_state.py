"""Settings as LSP sends them: a whole configuration, not a patch (a setting removed returns to
its base value), and flat settings beside a `kebab` section applied or reported, never
dropped without a word."""

from __future__ import annotations

from indexing.settings import Settings, parse

BASE = Settings(index_dir="/idx", embed=False)  # what initializationOptions gave


def test_a_setting_left_out_returns_to_the_base() -> None:
    current, warnings = parse({"kebab": {"defaultK": 3, "exclude": ["testing/"]}}, BASE)
    assert (current.default_k, current.exclude, warnings) == (3, ("testing/",), [])

    for emptied in ({"kebab": {}}, {}, None):
        after, warnings = parse(emptied, BASE, current)
        assert after == BASE and warnings == [], emptied
    after, _ = parse({"kebab": {"exclude": ["testing/"]}}, BASE, current)
    assert (after.default_k, after.exclude) == (20, ("testing/",))


def test_a_bad_value_keeps_what_is_in_force() -> None:
    current = Settings(index_dir="/idx", embed=False, default_k=3)
    after, warnings = parse({"kebab": {"defaultK": 0}}, BASE, current)
    assert after.default_k == 3  # a typo mid-edit does not throw the user's value away
    assert warnings == ["kebab setting 'defaultK' under 'kebab' must be an integer in 1..500 "
                        "(got 0); ignored"]
    unreadable, warnings = parse("defaultK=0", BASE, current)
    assert unreadable == current and len(warnings) == 1


def test_flat_settings_beside_a_section_apply_or_are_reported() -> None:
    settings, warnings = parse(
        {"symbolLimit": 7, "maxFileBytes": -5, "embed": "no", "editor.tabSize": 4,
         "python": {"analysis": {}}, "kebab": {"defaultK": 3}}, Settings())
    assert (settings.symbol_limit, settings.default_k) == (7, 3)  # both levels apply
    assert (settings.max_file_bytes, settings.embed) == (Settings().max_file_bytes, True)
    assert sorted(warnings) == [
        "kebab setting 'embed' must be true or false (got 'no'); ignored",
        "kebab setting 'maxFileBytes' must be an integer ≥ 1 (got -5); ignored",
    ]  # other tools' sections beside ours are not ours to judge
    # Without a section every key is ours: an unknown one is reported.
    _, warnings = parse({"defaultK": 5, "colour": "red"}, Settings())
    assert warnings == ["unknown kebab setting 'colour'; ignored"]


def test_a_setting_given_flat_and_in_the_section_says_which_applies() -> None:
    settings, warnings = parse({"defaultK": 5, "kebab": {"default_k": 3}}, Settings())
    assert settings.default_k == 3
    assert warnings == ["kebab setting 'default_k' is given both flat ('defaultK') and under "
                        "'kebab'; the one under 'kebab' applies"]

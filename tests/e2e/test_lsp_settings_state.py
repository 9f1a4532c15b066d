"""Settings over the wire: the configuration a client sends (pushed, or pulled with
`workspace/configuration`) is the whole current state, so a setting the user removes returns to
what `initializationOptions` gave, else to its default; and flat settings beside a `kebab`
section are applied or reported, never dropped without a word."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from e2e_support import FILES, Session, StartFn
from lsprotocol import types


def changes_logged(s: Session) -> list[str]:
    return [m.message for m in s.client.log_messages
            if m.message.startswith("settings changed: ")]


async def configure(s: Session, settings: Any, expect: str) -> None:
    """Send a configuration and wait until the server says it changed `expect`."""
    before = len(changes_logged(s))
    s.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=settings))
    deadline = time.monotonic() + 10
    while len(changes_logged(s)) == before:
        assert time.monotonic() < deadline, f"no change logged after {settings!r}"
        await asyncio.sleep(0.05)
    assert expect in changes_logged(s)[-1], changes_logged(s)
    await s.wait_idle()


async def hits(s: Session) -> int:
    return len((await s.search({"query": "user", "mode": "lexical"}))["hits"])


async def files(s: Session) -> int:
    return int((await s.status()).folders[0].files)


async def test_a_removed_setting_returns_to_its_base(start_server: StartFn,
                                                     workspace: Path) -> None:
    s = await start_server([workspace], init_options={"symbolLimit": 2})
    await s.wait_idle()
    default = await hits(s)
    assert default > 1 and await files(s) == len(FILES)
    assert len(await s.symbols("e")) == 2  # from initializationOptions

    await configure(s, {"kebab": {"defaultK": 1, "exclude": ["tests/"]}}, "exclude")
    assert (await hits(s), await files(s)) == (1, len(FILES) - 1)

    # The user deletes both settings; the client sends its whole (now empty) section.
    await configure(s, {"kebab": {}}, "exclude")
    assert (await hits(s), await files(s)) == (default, len(FILES))
    assert len(await s.symbols("e")) == 2  # initializationOptions still stand under it

    # Pulled: the client says something changed and answers `workspace/configuration`.
    await configure(s, {"kebab": {"defaultK": 1}}, "default_k")
    s.client.set_configuration({}, section="kebab")
    await configure(s, None, "default_k")
    assert await hits(s) == default
    await configure(s, {"kebab": {"defaultK": 1}}, "default_k")
    s.client.set_configuration({})  # no `kebab` section at all: the answer is null
    await configure(s, None, "default_k")
    assert await hits(s) == default


async def test_flat_settings_beside_a_kebab_section(start_server: StartFn,
                                                    workspace: Path) -> None:
    s = await start_server([workspace], init_options={
        "symbolLimit": 2, "maxFileBytes": -5, "rrfK": "60", "defaultK": 5,
        "editor.tabSize": 4, "kebab": {"defaultK": 1}})
    await s.wait_idle()
    deadline = time.monotonic() + 10
    while len(s.client.messages) < 3:
        assert time.monotonic() < deadline, [m.message for m in s.client.messages]
        await asyncio.sleep(0.05)
    warnings = sorted(m.message for m in s.client.messages)
    assert warnings == [
        "kebab setting 'defaultK' is given both flat ('defaultK') and under 'kebab'; the one "
        "under 'kebab' applies",
        "kebab setting 'maxFileBytes' must be an integer ≥ 1 (got -5); ignored",
        "kebab setting 'rrfK' must be an integer in 1..1000 (got '60'); ignored",
    ]
    assert await hits(s) == 1  # the section's value
    assert len(await s.symbols("e")) == 2  # the flat one beside it applies

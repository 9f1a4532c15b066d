"""Which store an index lives in: the embedded SQLite index of a folder (the default), or a
repository of a team index on PostgreSQL. The `store` and `repo` settings are declared in
`indexing.settings` like every other; `kebab index`, `search`, `status`, `grant` and `revoke`
build their flags from them here, and the server reads them per request.
Nothing here imports psycopg, so commands that stay on SQLite never load it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from indexing.settings import Spec, specs

SQLITE = "sqlite"
_URL_SCHEMES = ("postgresql://", "postgres://")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@+-]{0,199}$")

PARAMS: dict[str, Spec] = {name: specs()[name] for name in ("store", "repo")}


class InvalidStoreChoice(ValueError):
    """A `store`/`repo` pair that names no store; the message says what to give."""


@dataclass(frozen=True, slots=True)
class TeamStore:
    """Repository `repo` of the team index at `url`."""

    url: str
    repo: str


def check_repo(name: str) -> str:
    if not _REPO.match(name):
        raise InvalidStoreChoice(
            f"invalid repository name {name!r}: use letters, digits and ._/@+- (up to 200 "
            "characters), starting with a letter or digit")
    return name


def choose(store: str | None, repo: str | None) -> TeamStore | None:
    """The team store `store` and `repo` name, or None for the local SQLite index."""
    if store is None or store == SQLITE:
        if repo is not None:
            raise InvalidStoreChoice("--repo names a repository of a team index: give "
                                     "--store postgresql://... with it")
        return None
    if not store.startswith(_URL_SCHEMES):
        raise InvalidStoreChoice(f"--store must be {SQLITE} or a postgresql:// URL, "
                                 f"got {store!r}")
    if repo is None:
        raise InvalidStoreChoice("a team index holds many repositories: say which with "
                                 "--repo NAME")
    return TeamStore(store, check_repo(repo))


def add_arguments(parser: Any, required: bool = False) -> None:
    """`--store` and `--repo` from `PARAMS`; `required` for commands that only make sense on
    a team index (grant, revoke)."""
    parser.add_argument("--store", default=None, required=required, metavar="URL",
                        help=f"{PARAMS['store'].doc} (default: {SQLITE})")
    parser.add_argument("--repo", default=None, required=required, metavar="NAME",
                        help=PARAMS["repo"].doc)


def from_arguments(args: Any) -> TeamStore | None:
    return choose(getattr(args, "store", None), getattr(args, "repo", None))

"""Which store an index lives in: the embedded SQLite index of a folder (the default), or a
repository of a team index on PostgreSQL, with its vectors, when it has them, in a shared
directory. The `store`, `repo` and `team_vectors` settings are declared in `indexing.settings`
like every other; `kebab index`, `search`, `status`, `grant` and `revoke` build their flags
from them here, and the server reads them per request.
Nothing here imports psycopg, so commands that stay on SQLite never load it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from indexing.settings import Spec, specs

SQLITE = "sqlite"
_URL_SCHEMES = ("postgresql://", "postgres://")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/@+-]{0,199}$")

PARAMS: dict[str, Spec] = {name: specs()[name] for name in ("store", "repo", "team_vectors")}


class InvalidStoreChoice(ValueError):
    """A `store`/`repo` pair that names no store; the message says what to give."""


@dataclass(frozen=True, slots=True)
class TeamStore:
    """Repository `repo` of the team index at `url`; its vectors under the directory
    `vectors`, when one is named (`indexing.postgres.team_vectors`)."""

    url: str
    repo: str
    vectors: Path | None = None


def safe_url(url: str) -> str:
    """`url` without its password (in its user part or its query), for messages."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:***@{netloc.rsplit('@', 1)[1]}"
    query = "&".join(f"{k}=***" if k == "password" else f"{k}={v}"
                     for k, v in parse_qsl(parts.query, keep_blank_values=True))
    # Not urlunsplit: it drops the empty host of a socket URL (`postgresql:///db?host=...`);
    # and the scheme as typed, since urlsplit lower-cases it ("Postgresql" is a typo to show).
    return (f"{url.split(':', 1)[0]}://{netloc}{parts.path}" + (f"?{query}" if query else "")
            + (f"#{parts.fragment}" if parts.fragment else ""))


def _shown(store: str) -> str:
    """A mistyped `--store` as a message may show it: a password stays hidden even when the
    scheme is wrong ("postgress://...") or missing ("ci:secret@db/code")."""
    if "://" in store:
        return safe_url(store)
    return f"***@{store.rsplit('@', 1)[1]}" if "@" in store else store


#: The longest name a file system gives one folder: a repository's vectors are in a folder
#: named after it, each "/" written as "%2F" (`indexing.postgres.team_vectors.dataset_dir`).
_FOLDER_NAME_MAX = 255


def check_repo(name: str) -> str:
    if not _REPO.match(name):
        raise InvalidStoreChoice(
            f"invalid repository name {name!r}: use letters, digits and ._/@+- (up to 200 "
            "characters), starting with a letter or digit")
    folder = len(name) + 2 * name.count("/")
    if folder > _FOLDER_NAME_MAX:
        raise InvalidStoreChoice(
            f"invalid repository name {name!r}: the folder its vectors are kept in (each / "
            f"written as %2F) would be named with {folder} characters; a file system allows "
            f"{_FOLDER_NAME_MAX}")
    return name


def vectors_dir(location: str) -> Path:
    """The directory `location` names: a path, or a `file://` URI. An object store's URI is
    refused with the reason: the vector store checks, creates and narrows its files on a
    local filesystem (`indexing.vectors`), and none of that is built for a bucket yet."""
    scheme = urlsplit(location).scheme
    if scheme == "file":
        return Path(unquote(urlsplit(location).path))
    if "://" in location:
        raise InvalidStoreChoice(
            f"--team-vectors {location!r}: only a directory (or a file:// URI) holds a team "
            "index's vectors so far; mount the bucket, or share a directory")
    return Path(location).expanduser()


def choose(store: str | None, repo: str | None, vectors: str | None = None
           ) -> TeamStore | None:
    """The team store `store` and `repo` name (with its vectors under `vectors`), or None
    for the local SQLite index."""
    if store is None or store == SQLITE:
        if repo is not None:
            raise InvalidStoreChoice("--repo names a repository of a team index: give "
                                     "--store postgresql://... with it")
        if vectors is not None:
            raise InvalidStoreChoice("--team-vectors names where a team index's vectors live: "
                                     "give --store postgresql://... and --repo NAME with it")
        return None
    if not store.startswith(_URL_SCHEMES):
        raise InvalidStoreChoice(f"--store must be {SQLITE} or a postgresql:// URL, "
                                 f"got {_shown(store)!r}")
    if repo is None:
        raise InvalidStoreChoice("a team index holds many repositories: say which with "
                                 "--repo NAME")
    return TeamStore(store, check_repo(repo),
                     vectors_dir(vectors) if vectors is not None else None)


def add_arguments(parser: Any, required: bool = False, vectors: bool = True) -> None:
    """`--store`, `--repo` and (with `vectors`) `--team-vectors` from `PARAMS`; `required`
    for commands that only make sense on a team index (grant, revoke)."""
    parser.add_argument("--store", default=None, required=required, metavar="URL",
                        help=f"{PARAMS['store'].doc} (default: {SQLITE})")
    parser.add_argument("--repo", default=None, required=required, metavar="NAME",
                        help=PARAMS["repo"].doc)
    if vectors:
        parser.add_argument("--team-vectors", dest="team_vectors", default=None,
                            metavar="DIR", help=PARAMS["team_vectors"].doc)


def from_arguments(args: Any) -> TeamStore | None:
    return choose(getattr(args, "store", None), getattr(args, "repo", None),
                  getattr(args, "team_vectors", None))

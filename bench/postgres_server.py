"""A throwaway PostgreSQL server for the tests and the team-index bench: the Debian package's
own binaries, started in a temporary directory on a Unix socket only (no TCP port to collide
with, nothing reachable from outside), stopped at the end. No mocks: the tests talk to a real
server.

The server refuses to run as root, so under root (as CI runs) initdb and the server run as the
`postgres` user, in a directory that user owns; under any other user they run as that user.
`make tools` installs the package when it is missing.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import psycopg

#: Roles every database of the server knows: the indexer (owns what `kebab index` creates, as
#: CI's role would) and two readers for the grants tests.
OWNER = "kebab_ci"
READERS = ("kebab_alice", "kebab_bob")


def find_bin_dir() -> Path | None:
    """The newest installed server's binaries (15 on Debian 12)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parent.parent.name))
    return Path(found[-1]).parent if found else None


class PgCluster:
    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.base = Path(tempfile.mkdtemp(prefix="kebab-pg-"))
        self.data = self.base / "data"
        self.socket_dir = self.base
        self._as: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.base, user.pw_uid, user.pw_gid)
            runuser = shutil.which("runuser")
            self._as = ([runuser, "-u", "postgres", "--"] if runuser else
                        ["su", "postgres", "-s", "/bin/sh", "-c"])
        self._names = itertools.count(1)

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin_dir / args[0]), *args[1:]]
        if self._as and self._as[0] == "su":
            cmd = [*self._as, " ".join(_quote(a) for a in cmd)]
        else:
            cmd = [*self._as, *cmd]
        subprocess.run(cmd, check=True, cwd=self.base, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=60)

    def start(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "-E", "UTF8", "--no-locale", "--no-sync")
        options = (f"-c listen_addresses='' -c unix_socket_directories={self.socket_dir} "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l",
                  str(self.base / "server.log"), "-w", "start")
        with self.admin() as conn:
            for role in (OWNER, *READERS):
                conn.execute(f'CREATE ROLE "{role}" LOGIN')

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def url(self, database: str, user: str = "postgres") -> str:
        return f"postgresql:///{database}?host={self.socket_dir}&user={user}"

    def admin(self, database: str = "postgres") -> psycopg.Connection[Any]:
        return psycopg.connect(self.url(database), autocommit=True)

    def new_database(self, icu_locale: str | None = None) -> str:
        """A fresh database owned by `OWNER`, with pg_trgm (as a DBA would set one up);
        ordered by an ICU locale's collation when one is named, else by code point."""
        name = f"kebab_test_{next(self._names)}"
        collation = (f" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '{icu_locale}'"
                     if icu_locale else "")
        with self.admin() as conn:
            conn.execute(f'CREATE DATABASE {name} OWNER "{OWNER}"{collation}')
        with self.admin(name) as conn:
            conn.execute("CREATE EXTENSION pg_trgm")
        return name


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"

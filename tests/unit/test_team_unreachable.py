"""A team index whose server does not answer: a request fails in seconds, saying why, and the
next ones within `team_retry.RETRY_S` fail at once instead of waiting again. The servers are
plain sockets on this machine (one that accepts and never speaks: libpq, left to itself, waits
on it for good; one that hangs up at once, counting the attempts) and, for a connection lost
mid-session, a real PostgreSQL that stops letting the reader in, or that vanishes without a
word (its route taken down in a network namespace of the test's own)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from psycopg import sql

from bench.postgres_server import OWNER, PgCluster
from indexing.postgres import store as pg_store
from indexing.postgres.store import PgStore, TeamStoreError
from indexing.postgres.team_index import index_repository
from indexing.runtime import SilentListener
from indexing.settings import Settings
from kebab_lsp import team_retry
from kebab_lsp.session import Session
from search.types import SearchRequest, SearchUnavailable


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port whose connections the kernel completes and nobody ever answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def test_a_server_that_never_answers_fails_after_the_connect_timeout(
        silent_port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a timeout of ours this waits until pytest's own (120 s) fails it."""
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    monkeypatch.setitem(pg_store.CONNECTION_DEFAULTS, "connect_timeout", 2)
    with pytest.raises(TeamStoreError, match="^cannot connect to the team index at .*timeout"):
        PgStore.open(f"postgresql://ci@127.0.0.1:{silent_port}/code", "app")


def test_a_timeout_the_url_or_the_environment_sets_is_obeyed(
        silent_port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ours would wait an hour here: the user's two seconds are what end the wait."""
    monkeypatch.setitem(pg_store.CONNECTION_DEFAULTS, "connect_timeout", 3600)
    url = f"postgresql://ci@127.0.0.1:{silent_port}/code"
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    with pytest.raises(TeamStoreError, match="timeout"):
        PgStore.open(f"{url}?connect_timeout=2", "app")
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "2")
    with pytest.raises(TeamStoreError, match="timeout"):
        PgStore.open(url, "app")


class HangingUp:
    """A server that closes every connection as soon as it accepts it, counting them."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._serve, name="test-hanging-up", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:  # closed: the test is over
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.listener.close()
        self._thread.join(5)


def never() -> bool:
    return False


def test_requests_after_a_failed_open_fail_at_once_until_the_retry_is_due(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = HangingUp()
    root = tmp_path / "checkout"
    root.mkdir()
    (root / "app.py").write_text("def handler():\n    return 1\n")
    local = {"indexDir": str(tmp_path / "idx"), "workers": 1, "embed": False}
    team = {**local, "store": f"postgresql://ci@127.0.0.1:{server.port}/code",
            "repo": "acme/app"}
    session = Session(SilentListener())
    try:
        session.configure(team)
        session.open_folder(root.as_uri(), "checkout", root)
        failed = session.prepare_team()
        assert failed is not None and failed.startswith("cannot connect to the team index at ")
        attempts = server.accepted
        assert attempts >= 1

        # Within the retry delay: the same error at once, saying when it is tried again.
        request = SearchRequest("handler", mode="lexical")
        for ask in (lambda: session.search(request, never),
                    lambda: session.symbols("handler", never)):
            with pytest.raises(SearchUnavailable) as caught:
                ask()
            message = str(caught.value)
            assert message.startswith(failed) and message.endswith(" s)"), message
            assert "(trying again in " in message
        assert server.accepted == attempts

        # Once it is due, the next request tries again.
        monkeypatch.setattr(team_retry, "RETRY_S", 0.0)
        with pytest.raises(SearchUnavailable) as caught:
            session.search(request, never)
        assert "trying again" not in str(caught.value)
        assert server.accepted > attempts

        # A change of store is tried at once, whatever the delay: even back to the one that
        # failed (the user may have just fixed what was wrong).
        monkeypatch.setattr(team_retry, "RETRY_S", 3600.0)
        session.configure(local)
        assert session.prepare_team() is None
        attempts = server.accepted
        session.configure(team)
        again = session.prepare_team()
        assert again is not None and "trying again" not in again
        assert server.accepted > attempts
        with pytest.raises(SearchUnavailable, match=r"\(trying again in \d+ s\)$"):
            session.search(request, never)
    finally:
        session.close()
        session.writership.close()
        server.close()


@pytest.mark.postgres
def test_a_team_index_lost_mid_session_is_not_waited_for_again_before_the_retry(
        tmp_path: Path, pg_cluster: PgCluster, pg_database: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    root = tmp_path / "checkout"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "sample_repo", root)
    index_repository(root, url, "acme/app", Settings(workers=1, embed=False))
    session = Session(SilentListener())
    session.configure({"indexDir": str(tmp_path / "idx"), "workers": 1, "embed": False,
                       "store": url, "repo": "acme/app"})

    def connect(allowed: bool) -> None:
        """Let the reader in, or not, and end its connection (what a failover does)."""
        change = "GRANT CONNECT ON DATABASE {} TO PUBLIC, {}" if allowed else \
            "REVOKE CONNECT ON DATABASE {} FROM PUBLIC, {}"
        with pg_cluster.admin() as admin:
            admin.execute(sql.SQL(change).format(sql.Identifier(pg_database),
                                                 sql.Identifier(OWNER)))
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = %s AND pid <> pg_backend_pid()", (pg_database,))

    try:
        session.open_folder(root.as_uri(), "checkout", root)
        assert session.prepare_team() is None
        session.runtime.start()
        assert session.runtime.wait_idle(60)
        request = SearchRequest("get_user_by_id", mode="lexical")
        assert session.search(request, never).hits

        connect(False)
        with pytest.raises(SearchUnavailable) as first:
            session.search(request, never)  # the connection broke, and a new one is refused
        assert "permission denied" in str(first.value), first.value
        assert "trying again" not in str(first.value)
        connect(True)  # back, but not tried again before the retry is due
        for ask in (lambda: session.search(request, never),
                    lambda: session.symbols("get_user", never)):
            with pytest.raises(SearchUnavailable) as caught:
                ask()
            assert str(caught.value).startswith(str(first.value))
            assert str(caught.value).endswith(" s)") and "(trying again in " in str(caught.value)
        monkeypatch.setattr(team_retry, "RETRY_S", 0.0)
        assert session.search(request, never).hits
    finally:
        session.close()
        session.writership.close()


#: Run in a network namespace of its own: a TCP relay on its loopback to the test server's
#: Unix socket, a team store read through it, then the loopback taken down under the open
#: connection: every packet after that is lost, as when a route to the server drops.
VANISHING_SERVER = """
import json, socket, subprocess, sys, threading
from indexing.postgres import store as pg_store
from indexing.postgres.store import PgStore, TeamStoreError

unix_socket, database, user, repo = sys.argv[1:5]
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()

def pipe(src, dst):
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass

def relay():
    while True:
        client, _ = listener.accept()
        server = socket.socket(socket.AF_UNIX)
        server.connect(unix_socket)
        for a, b in ((client, server), (server, client)):
            threading.Thread(target=pipe, args=(a, b), daemon=True).start()

threading.Thread(target=relay, daemon=True).start()
pg_store.CONNECTION_DEFAULTS["tcp_user_timeout"] = 2000
url = f"postgresql://{user}@127.0.0.1:{listener.getsockname()[1]}/{database}"
store = PgStore.open(url, repo, known=False)
store.lexical_version()
subprocess.run(["ip", "link", "set", "lo", "down"], check=True)
try:
    store.lexical_version()
    print(json.dumps({"answered": True}))
except TeamStoreError as exc:
    print(json.dumps({"error": str(exc)}))
"""


@pytest.mark.postgres
def test_a_server_that_vanishes_mid_session_fails_the_request_instead_of_holding_it(
        tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    """Without `tcp_user_timeout` the read waits out the kernel's retransmissions (about 15
    minutes), far past the 100 s allowed here."""
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -n (a network namespace) is not allowed here")
    url = pg_cluster.url(pg_database, OWNER)
    PgStore.open(url, "acme/app", create=True).close()
    script = tmp_path / "vanishing_server.py"
    script.write_text(VANISHING_SERVER)
    root = Path(__file__).parent.parent.parent
    ran = subprocess.run(
        ["unshare", "-n", sys.executable, str(script),
         str(pg_cluster.socket_dir / ".s.PGSQL.5432"), pg_database, OWNER, "acme/app"],
        capture_output=True, text=True, timeout=100, cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)})
    assert ran.returncode == 0, ran.stderr
    outcome = json.loads(ran.stdout)
    assert outcome.get("error", "").startswith("the team index at postgresql://"), outcome
    assert "timed out" in outcome["error"], outcome

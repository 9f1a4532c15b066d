"""Who reads which repository of a team index: `kebab grant` and `kebab revoke`.

A grant is a row of `kebab.grants` (repository, role) plus the table privileges a reader
needs; row-level security (`schema.policies`) does the rest, in the database, so a role
sees the rows of the repositories granted to it or to a role it belongs to, and no others.
Run by the role that owns the schema (the one CI indexes with). `statements` is the SQL, so
the README can show DBAs exactly what is run.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from indexing.postgres.schema import REPO_TABLES
from indexing.postgres.store import PgStore, TeamStoreError
from indexing.store_choice import safe_url

#: What a reader needs besides its grants: the schema, and reading every table.
_READ_TABLES = ("schema_version", "grants", *REPO_TABLES)


def statements(repo: str, role: str) -> tuple[sql.Composed, ...]:
    """The SQL `kebab grant` runs."""
    tables = sql.SQL(", ").join(sql.Identifier("kebab", t) for t in _READ_TABLES)
    who = sql.Identifier(role)
    return (
        sql.SQL("GRANT USAGE ON SCHEMA kebab TO {}").format(who),
        sql.SQL("GRANT SELECT ON {} TO {}").format(tables, who),
        sql.SQL("INSERT INTO kebab.grants(repo, grantee) VALUES ({}, {}) "
                "ON CONFLICT DO NOTHING").format(sql.Literal(repo), sql.Literal(role)),
    )


def _role_exists(store: PgStore, role: str) -> bool:
    return store.execute("SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = %s",
                    (role,)).fetchone() is not None


def grant(url: str, repo: str, role: str) -> None:
    """Let `role` (and its members) read repository `repo`."""
    store = PgStore.open(url, repo)
    try:
        if not _role_exists(store, role):
            raise TeamStoreError(f"there is no role {role!r} at {safe_url(url)}: create it "
                                 f"first (CREATE ROLE \"{role}\" LOGIN)")
        with store.transaction():
            for statement in statements(repo, role):
                store.execute(statement)
    except psycopg.Error as exc:
        raise TeamStoreError(f"cannot grant {repo!r} to {role!r}: {str(exc).strip()}") from exc
    finally:
        store.close()


def revoke(url: str, repo: str, role: str) -> bool:
    """Stop `role` reading `repo`; False when it had no such grant. A role left with no grant
    loses its table privileges too."""
    store = PgStore.open(url, repo, known=False)
    try:
        with store.transaction():
            removed = store.execute("DELETE FROM kebab.grants WHERE repo = %s AND grantee = %s "
                               "RETURNING 1", (repo, role)).fetchone() is not None
            left = store.execute("SELECT 1 FROM kebab.grants WHERE grantee = %s LIMIT 1",
                            (role,)).fetchone()
            if left is None and _role_exists(store, role):
                tables = sql.SQL(", ").join(sql.Identifier("kebab", t) for t in _READ_TABLES)
                who = sql.Identifier(role)
                for statement in (sql.SQL("REVOKE SELECT ON {} FROM {}").format(tables, who),
                                  sql.SQL("REVOKE USAGE ON SCHEMA kebab FROM {}").format(who)):
                    store.execute(statement)
        return removed
    except psycopg.Error as exc:
        raise TeamStoreError(f"cannot revoke {repo!r} from {role!r}: {str(exc).strip()}"
                             ) from exc
    finally:
        store.close()

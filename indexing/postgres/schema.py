"""The one home of the team index's PostgreSQL schema, its version and its access policies.

Everything lives in the `kebab` schema, and every table carries `repo`: a repository is the
unit of indexing (`kebab index --repo`) and of access (`kebab grant`). Row-level security lets
a role read the rows of the repositories granted to it (or to a role it is a member of) and
nothing else, so the database enforces access, not our code; the role that created the schema
owns the tables and, as owner, writes and reads every repository.

Unlike the SQLite index, a team index is not silently rebuilt when its version differs: it is
shared and may be large, so `open` refuses it with a message that says what to do.
"""

from __future__ import annotations

#: Bump when a table, column, index or the meaning of a stored value changes.
# 1: files (with their text, trigram-indexed), symbols, chunks (with a weighted tsvector),
#    refs, meta and repos per repository; grants and row-level security by repository.
# 2: `symbols.bodiless`, a callable declared without its body (`Symbol.bodiless`).
PG_SCHEMA_VERSION = 2

SCHEMA = "kebab"

#: Which of a role's rows a policy lets it see: those of repositories granted to a role it
#: is a member of (itself included). `pg_roles` and `pg_has_role` by OID never fail on a
#: role dropped after its grant; that grant just matches no one.
VISIBLE_REPOS = (
    "repo IN (SELECT g.repo FROM kebab.grants g WHERE g.grantee IN "
    "(SELECT r.rolname FROM pg_catalog.pg_roles r "
    "WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')))"
)

#: Tables a granted role reads, each filtered by `VISIBLE_REPOS`.
REPO_TABLES = ("repos", "meta", "files", "symbols", "chunks", "refs")

#: The GIN indexes searches read, each with what it covers: the trigrams of file texts, the
#: words of chunks. `DDL` creates them from here, so a name merged by `merge_pending` is always
#: one that exists.
_GIN = {"files_text_trgm": "kebab.files USING gin (text gin_trgm_ops)",
        "chunks_tsv": "kebab.chunks USING gin (tsv)"}
GIN_INDEXES = tuple(f"kebab.{name}" for name in _GIN)

DDL = """
CREATE SCHEMA IF NOT EXISTS kebab;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE kebab.schema_version(
    version integer NOT NULL
);
-- Each repository's change counter: bumped by every committed write batch.
CREATE TABLE kebab.repos(
    repo text PRIMARY KEY,
    lexical_version bigint NOT NULL DEFAULT 0,
    last_update double precision
);
CREATE TABLE kebab.meta(
    repo text NOT NULL,
    key text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (repo, key)
);
-- A file's text is stored whole (TOAST compresses it); the trigram index finds the files
-- that may hold a needle, and LIKE (then Python) confirms it exactly.
CREATE TABLE kebab.files(
    id bigserial PRIMARY KEY,
    repo text NOT NULL,
    path text NOT NULL,
    size bigint NOT NULL,
    mtime_ns bigint NOT NULL,
    hash text NOT NULL,
    lang text NOT NULL,
    is_test boolean NOT NULL DEFAULT false,
    is_generated boolean NOT NULL DEFAULT false,
    text text NOT NULL,
    UNIQUE (repo, path)
);
CREATE TABLE kebab.symbols(
    id bigserial PRIMARY KEY,
    repo text NOT NULL,
    file_id bigint NOT NULL REFERENCES kebab.files(id) ON DELETE CASCADE,
    ord integer NOT NULL,
    name text NOT NULL,
    qualified_name text NOT NULL,
    kind text NOT NULL,
    container text,
    start_line integer NOT NULL,
    start_col integer NOT NULL,
    end_line integer NOT NULL,
    end_col integer NOT NULL,
    sel_start_line integer NOT NULL,
    sel_start_col integer NOT NULL,
    sel_end_line integer NOT NULL,
    sel_end_col integer NOT NULL,
    signature text NOT NULL,
    doc text NOT NULL,
    bodiless boolean NOT NULL
);
CREATE INDEX symbols_file ON kebab.symbols(file_id);
-- `tsv`: names and their identifier parts weigh A, the path and the chunk's container B,
-- the body and its identifier parts C (`postgres/lexemes.py` builds it).
CREATE TABLE kebab.chunks(
    id bigserial PRIMARY KEY,
    repo text NOT NULL,
    chunk_id text NOT NULL,
    file_id bigint NOT NULL REFERENCES kebab.files(id) ON DELETE CASCADE,
    symbol_id bigint REFERENCES kebab.symbols(id) ON DELETE SET NULL,
    kind text NOT NULL,
    start_line integer NOT NULL,
    end_line integer NOT NULL,
    start_col integer NOT NULL DEFAULT 0,
    context text NOT NULL,
    text text NOT NULL,
    text_hash text NOT NULL,
    tsv tsvector NOT NULL,
    UNIQUE (repo, chunk_id)
);
CREATE INDEX chunks_file ON kebab.chunks(file_id);
CREATE INDEX chunks_symbol ON kebab.chunks(symbol_id);
-- Uses of names (`indexing.records.Ref`), a row each: a server can afford what the embedded
-- index packs (store/refs.py). A hash index, as names include whole string literals, longer
-- than a B-tree entry may be.
CREATE TABLE kebab.refs(
    id bigserial PRIMARY KEY,
    repo text NOT NULL,
    file_id bigint NOT NULL REFERENCES kebab.files(id) ON DELETE CASCADE,
    name text NOT NULL,
    kind text NOT NULL,
    receiver text,
    start_line integer NOT NULL,
    start_col integer NOT NULL,
    end_line integer NOT NULL,
    end_col integer NOT NULL,
    symbol_ord integer
);
CREATE INDEX refs_name ON kebab.refs USING hash (name);
CREATE INDEX refs_file ON kebab.refs(file_id);
-- Who may read which repository (`kebab grant`): a role, or any member of it.
CREATE TABLE kebab.grants(
    repo text NOT NULL,
    grantee text NOT NULL,
    PRIMARY KEY (repo, grantee)
);
""" + "".join(f"CREATE INDEX {name} ON {covers};\n" for name, covers in _GIN.items())


def policies() -> str:
    """Row-level security on every table a reader sees: a reader sees the grants of the roles
    it is a member of, and the rows of the repositories those grants name."""
    parts = [
        "ALTER TABLE kebab.grants ENABLE ROW LEVEL SECURITY;",
        "CREATE POLICY grants_own ON kebab.grants FOR SELECT USING (grantee IN "
        "(SELECT r.rolname FROM pg_catalog.pg_roles r "
        "WHERE pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')));",
    ]
    for table in REPO_TABLES:
        parts.append(f"ALTER TABLE kebab.{table} ENABLE ROW LEVEL SECURITY;")
        parts.append(f"CREATE POLICY {table}_granted ON kebab.{table} FOR SELECT "
                     f"USING ({VISIBLE_REPOS});")
    return "\n".join(parts)

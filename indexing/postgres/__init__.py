"""A team index on PostgreSQL: one database holds many repositories' indexes, built by CI
(`kebab index --store URL --repo NAME`) and read by everyone granted a repository
(`kebab search --store URL --repo NAME`). A second backend of `indexing.store.interface`:
`schema` (tables, version, access policies), `lexemes` (the words the tsvector and tsquery
hold), `store` (writes and reads of one repository), `grants` (who reads which repository).

psycopg is imported only here, so nothing that stays on SQLite pays for it.
"""

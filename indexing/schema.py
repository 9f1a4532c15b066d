"""The one home of the SQLite store's schema.

Bump `SCHEMA_VERSION` whenever a table, column, tokenizer or the meaning of a stored value
changes: an index written by another version is rebuilt from scratch (and the user is told),
which is cheaper and safer than migrating an index that can always be rebuilt from the files.
"""

from __future__ import annotations

from indexing.text import FTS_TOKENIZER

# 6: identifier parts are split in every script (`getGrößeInPixel` -> `get größe in pixel`),
#    not only in ASCII.
# 7: `chunks.start_col`: a piece of a long line is cited at its column, and pieces cover the
#    whole line; stored text has no byte-order mark and only "\n" line ends.
# 8: each text is stored once, compressed: a file's text is zlib-packed, and a chunk's text is
#    not stored when it is its lines of the file (store/texts.py); the trigram index keeps
#    which files hold a trigram, not where (`detail=none`: exact text is confirmed in the
#    file's text anyway); the unused `chunks(text_hash)` index is gone. The index shrinks from
#    5.8x the indexed text to 1.8x (Django; `python -m bench.index_size`). `embed_cache`
#    records when each vector was last needed, so unneeded ones can be pruned, and is a rowid
#    table (2.1 KB per vector, not 4.7); `changes` keeps one row per path (its last version),
#    so a file saved a thousand times is one row.

# 9: `refs`: uses of names (imports, calls, identifiers, strings) with their enclosing
#    definitions.
# 10: grammars from tree-sitter-language-pack: 122 languages with their own `lang` names
#    (`ruby`, not `rb`), definitions in 35, chunks cut along the syntax tree. (Numbered 7 on
#    the `languages` branch, written alongside 7-9 above.)
# 11: refs packed: one value per file (`ref_files`) and a (name, file) row per name it holds
#    (`ref_names`), instead of a row per ref with indexes on name and file. On Django the refs
#    shrink from 94 MB of a 161 MB index to 16 MB of 83 MB (store/refs.py).
# 12: `chunks_fts` gains `calls` and `strings`: the names a chunk calls and the string
#     literals it spells, read off its refs and moved out of `body` (`indexing.token_facts`).
# 13: a file the grammar reads as one error is parsed again one top-level block at a time
#     (`indexing.extract.recovery`): TypeScript files that lost every definition have them.
# 14: a chunk with no word in it (`}`, `> {`) has no row in `chunks_fts`
#     (`indexing.text.findable_by_words`): its definition's names ranked it first.
# 15: a long definition's first chunk starts at its decorators (Python) or attributes (Rust)
#     and holds the line that names it (`indexing.extract.syntax_windows`): it had been
#     `@classmethod` alone.
# 16: a body on the lines below its header (Python's, Lua's, Ruby's indented blocks) starts
#     with the header (`indexing.extract.syntax_windows`): a long function's or class's first
#     chunk had been its `def` or `class` line alone, its docstring and body in the next.
# 17: definitions a language-coverage hunt found missing or wrong: Go `var ( … )` specs and
#     interface methods, C function-pointer typedefs, PHP promoted properties, Lua classes
#     made by a call, Kotlin/Swift locals dropped, Ruby module and Java anonymous-class
#     methods, TypeScript constructor signatures, a lone Go alias in a `type ( … )` block,
#     Erlang EDoc across a blank line, docs above an attribute with a trailing comment, and
#     `.h` headers read as C, C++ or Objective-C by their text (`indexing.detect`).
# 18: `symbols.bodiless`, a callable declared without its body (`Symbol.bodiless`); JavaScript
#     and TypeScript class fields, TypeScript interface properties and parameter properties,
#     Dart abstract members, C/C++/Objective-C files parsed again without their macro lines,
#     JavaScript and TypeScript docs above a member's decorators.
# 19: the members of a TypeScript type alias's object type are its properties and methods
#     (`container_nodes`); a member signature inside the alias has no chunk of its own. A
#     Python function whose body is `...` alone is bodiless.
# 20: definitions in the Lisp family (Clojure, Emacs Lisp, Common Lisp, Scheme, Racket, Fennel,
#     Janet), with docstrings a pattern captures (`@doc`), and in Elm, Groovy, Starlark, Nix,
#     Make, CMake, Nim, D, Fortran, Pascal, Ada, Verilog, VHDL, Vim script and LaTeX; docs
#     without Fortran's, Pascal's, D's and CMake's comment markers or Nim's `##`.
# 21: a named JavaScript or TypeScript function bound to its own name (`app.init = function
#     init()`, `const f = function f()`) is one definition, not two nested ones; one assigned
#     to an object's property or a prototype, or a member of an object assigned to a
#     prototype, belongs to it (`app.init`, `Layer.match`); a class bound to a name is that
#     class; a CommonJS module's exported values (`exports.etag = ...`) are definitions. A
#     Lisp's discarded forms (`(comment ...)`, `#_`, `#;`) define nothing; Common Lisp's
#     defining forms count in any case (`DEFUN`).
# 22: a named function wrapped in calls and bound to its own name (`const Input =
#     forwardRef(function Input() {})`, `memo(...)`) is one definition, the binding; a
#     chain of assignments to properties (`res.contentType = res.type = function
#     contentType()`) defines each property, and the named function is none of its own.
# 23: more test files by name and folder (`indexing.classify.is_test_path`): type tests
#     (`.test-d.ts`), Ruby's `_test.rb` and `_spec.rb`, `FooTest.kt` and its JVM, PHP, Swift
#     and .NET kin, tsd's `test-d/`, and test folders in any case (`Tests/`). A file's flag is
#     recorded, so an index rebuilds to read it.
# 24: D's `unittest` blocks are definitions (`unittest`, or `Point.unittest` inside a type),
#     and so are OCaml's inline tests (`let%test "name"`, `let%expect_test`, ...) and
#     Racket's `module+` forms; these and Racket's `(module+ test ...)` are weighed as the
#     file's own tests (`indexing.classify.in_test_module`); a D method or function whose
#     body is its `;` alone (an interface's, an abstract one, an `extern` prototype) is
#     bodiless; more test files by name and folder (`indexing.classify.is_test_path`):
#     `_unittest.cc`, Elixir's and Dart's `_test`, `_spec.lua`, Django's `tests.py`, Rust's
#     `tests.rs`, .NET's `Kebab.Tests/`, Jest's `__mocks__/` and `__fixtures__/`, `e2e/`,
#     `integration_tests/`, Gradle's test source sets (`src/androidTest`, `src/commonTest`,
#     `src/testFixtures`); an Elm module's doc, the `{-| -}` below its `module`
#     line; `_` defines nothing where it binds nothing (`LanguageRules.blank_name`: Go's
#     `var _ io.Reader = ...`, Rust's `const _`, OCaml's `let _ =`), and an anonymous OCaml
#     test is named by its extension (`let%expect_test _` is `expect_test`).
SCHEMA_VERSION = 24

#: An index of this schema version or later hands its cached vectors to the index rebuilt for
#: another version (`indexing.store.carry`): since 8, `embed_cache` holds (model, embedded-text
#: hash, float32 vector, last used), and none of that depends on the rest of the schema. Raise
#: it to the new `SCHEMA_VERSION` if a bump changes that table or how a vector is encoded.
EMBED_CACHE_KEPT_SINCE = 8

# Names weigh more than paths, and paths more than bodies (bm25 column weights, in column
# order of `chunks_fts`: names, parts, path, body, calls, strings). Calls and strings are
# tokens moved out of the body (`indexing.token_facts`), so they weigh what the body does.
FTS_WEIGHTS = (10.0, 4.0, 2.0, 1.0, 1.0, 1.0)

DDL = f"""
CREATE TABLE IF NOT EXISTS meta(
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    lang TEXT NOT NULL,
    is_test INTEGER NOT NULL DEFAULT 0,
    is_generated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS files_hash ON files(hash);
-- `text` is packed (store/texts.py): TEXT, or a BLOB of zlib-compressed blocks of lines;
-- read it with unpack(text).
CREATE TABLE IF NOT EXISTS file_text(
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    text NOT NULL
);
CREATE TABLE IF NOT EXISTS symbols(
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    name TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    kind TEXT NOT NULL,
    container TEXT,
    start_line INTEGER NOT NULL,
    start_col INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    end_col INTEGER NOT NULL,
    sel_start_line INTEGER NOT NULL,
    sel_start_col INTEGER NOT NULL,
    sel_end_line INTEGER NOT NULL,
    sel_end_col INTEGER NOT NULL,
    signature TEXT NOT NULL,
    doc TEXT NOT NULL,
    bodiless INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
    symbol_id INTEGER REFERENCES symbols(id) ON DELETE SET NULL,
    kind TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    start_col INTEGER NOT NULL DEFAULT 0,
    context TEXT NOT NULL,
    -- NULL when the chunk's text is its lines of the file's text, else packed like
    -- file_text's; read it with chunk_text(c.text, c.file_id, f.hash, c.start_line,
    -- c.end_line) (store/texts.py).
    text,
    text_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
-- Without it, deleting a symbol scans every chunk for the ON DELETE SET NULL reference.
CREATE INDEX IF NOT EXISTS chunks_symbol ON chunks(symbol_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    names, parts, path, body, calls, strings,
    tokenize="{FTS_TOKENIZER}",
    content='', contentless_delete=1
);
-- Which files hold each trigram of their text (not where: detail=none). Exact-text search
-- ANDs a bounded set of the needle's trigrams to find candidate files, then confirms each
-- in `file_text`, so recall is grep's.
CREATE VIRTUAL TABLE IF NOT EXISTS text_trigram USING fts5(
    text,
    tokenize="trigram case_sensitive 1",
    content='', contentless_delete=1, detail=none
);
-- Which paths write batches touched, so in-memory caches (the symbol matcher) can patch
-- themselves instead of reloading everything: each path with the last version that touched
-- it, for the most recently touched paths only (see store/changes.py); `meta.changes_floor`
-- says how far back the log still reaches.
CREATE TABLE IF NOT EXISTS changes(
    path TEXT PRIMARY KEY,
    version INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS changes_version ON changes(version);
-- Uses of names (`indexing.records.Ref`), packed (store/refs.py): `ref_files.refs` holds every
-- ref of a file in one value, a group per name; `ref_names` says which files hold a name, where its
-- group starts in their value and how many refs of each kind it has. A name holding
-- whitespace has no `ref_names` row. No foreign key on `ref_names`: deleting a file would
-- scan the table for it; a file's rows go with its `ref_files` row (`delete_refs`).
CREATE TABLE IF NOT EXISTS ref_files(
    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
    refs BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS ref_names(
    name TEXT NOT NULL,
    file_id INTEGER NOT NULL,
    at INTEGER NOT NULL,
    imports INTEGER NOT NULL,
    calls INTEGER NOT NULL,
    identifiers INTEGER NOT NULL,
    strings INTEGER NOT NULL,
    PRIMARY KEY(name, file_id)
) WITHOUT ROWID;
-- Definitions by name: textDocument/references with includeDeclaration.
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
-- Vectors by the hash of the text embedded; `used` (unix seconds) is when a vector was last
-- needed, so ones no chunk needs any more are pruned oldest first. A rowid table, not WITHOUT
-- ROWID: a 1.5 KB vector does not fit in an index page's row (about 1 KB), so there every
-- row spilled to an overflow page of its own, 4.7 KB per vector instead of 2.1 KB.
CREATE TABLE IF NOT EXISTS embed_cache(
    model TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    used REAL NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS embed_cache_key ON embed_cache(model, text_hash);
"""

# -- The LanceDB vector table (`vectors/chunks.lance`) ---------------------------------------
#
# Versioned apart from SQLite: a SQLite rebuild costs seconds, a vector rebuild can cost minutes
# of embedding, so one must not force the other. Bump `VECTOR_SCHEMA_VERSION` whenever a
# column, its type or the meaning of a stored value changes: the table carries the version that
# wrote it, and a table of another version is dropped and rebuilt by the next sync (from the
# embedding cache where it can), never read as if it were this one.
#
# 1: chunk_id, path, lang, kind, text_hash, vector: one vector per chunk.
# 2: key and surface added: a chunk has a `code` vector and, when it leads a definition, a
#    `summary` vector.
VECTOR_SCHEMA_VERSION = 2

#: The table's columns in order, as (name, type); `vector` is a fixed-size list of float32 as
#: long as the model's vectors.
VECTOR_COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "string"),
    ("chunk_id", "string"),
    ("surface", "string"),
    ("path", "string"),
    ("lang", "string"),
    ("kind", "string"),
    ("text_hash", "string"),
    ("vector", "vector"),
)

#: Where the table's schema metadata records the version that wrote it.
VECTOR_SCHEMA_KEY = "kebab.vector_schema_version"

#: Tables written before the version was recorded carry none; their columns tell which
#: version wrote them.
UNSTAMPED_VECTOR_VERSIONS: dict[tuple[str, ...], int] = {
    ("chunk_id", "path", "lang", "kind", "text_hash", "vector"): 1,
    ("key", "chunk_id", "surface", "path", "lang", "kind", "text_hash", "vector"): 2,
}

"""Refs from the syntax tree: imports, calls with their receivers, bare mentions and short
strings, each with its UTF-16 range and the definition it sits in, in several languages."""

from __future__ import annotations

from extract_support import run

from indexing.records import Extraction, RefKind


def rows(ex: Extraction) -> list[tuple[str, str, str | None, str | None]]:
    """(kind, name, receiver, enclosing definition's qualified name) per ref."""
    return [(r.kind, r.name, r.receiver,
             ex.symbols[r.symbol].qualified_name if r.symbol is not None else None)
            for r in ex.refs]


def test_python_imports_calls_mentions_and_strings() -> None:
    ex = run("m.py", '''import os.path
from pkg.store import Store as S


class Writer:
    """Writes things: Store is named here but a docstring is not a use."""

    def flush(self):
        # Store in a comment is not a use either
        out = self.store.write(1, mode="wb")
        helper()
        return S
''')
    assert rows(ex) == [
        ("import", "os", None, None), ("import", "path", None, None),
        ("import", "pkg", None, None), ("import", "store", None, None),
        ("import", "Store", None, None), ("import", "S", None, None),
        ("identifier", "self", None, "Writer.flush"),
        ("identifier", "out", None, "Writer.flush"),
        ("identifier", "self", None, "Writer.flush"),
        ("identifier", "store", None, "Writer.flush"),
        ("call", "write", "self.store", "Writer.flush"),
        ("identifier", "mode", None, "Writer.flush"),
        ("string", "wb", None, "Writer.flush"),
        ("call", "helper", None, "Writer.flush"),
        ("identifier", "S", None, "Writer.flush"),
    ]
    write = next(r for r in ex.refs if r.name == "write")
    assert (write.span.start_line, write.span.start_col, write.span.end_col) == (9, 25, 30)


def test_definition_names_are_not_refs() -> None:
    ex = run("m.py", "def f():\n    return f()\n")
    assert rows(ex) == [("call", "f", None, "f")]
    assert ex.refs[0].span.start_line == 1


def test_utf16_columns() -> None:
    ex = run("m.py", 'x = "größe😀"; größe()\n')
    call = next(r for r in ex.refs if r.kind == RefKind.CALL)
    # "größe😀" is 8 UTF-16 units between its quotes: the call starts after `"…"; `.
    assert (call.name, call.span.start_col, call.span.end_col) == ("größe", 15, 20)


def test_typescript_go_rust_java_c() -> None:
    ts = run("a.ts", 'import { a } from "./m";\nfunction f() { const x = obj.m(1); new Foo(); }\n')
    assert rows(ts) == [("import", "a", None, None), ("import", "./m", None, None),
                        ("identifier", "x", None, "f"), ("identifier", "obj", None, "f"),
                        ("call", "m", "obj", "f"), ("call", "Foo", None, "f")]
    go = run("a.go", 'package p\nimport "fmt"\nfunc f() { fmt.Println("x"); s.a.b() }\n')
    assert [r for r in rows(go) if r[0] != "identifier"] == [
        ("import", "fmt", None, None), ("call", "Println", "fmt", "p.f"),
        ("string", "x", None, "p.f"), ("call", "b", "s.a", "p.f")]
    rust = run("a.rs", "use std::io::Read;\nfn f() { a::b(); x.m(); g::<T>(); }\n")
    assert [r for r in rows(rust) if r[0] != "identifier"] == [
        ("import", "std", None, None), ("import", "io", None, None),
        ("import", "Read", None, None), ("call", "b", "a", "f"), ("call", "m", "x", "f"),
        ("call", "g", None, "f")]
    java = run("K.java", "import a.b.C;\nclass K { void f() { o.m(1); new K(); g(); } }\n")
    assert [r for r in rows(java) if r[0] == "call"] == [
        ("call", "m", "o", "K.f"), ("call", "K", None, "K.f"), ("call", "g", None, "K.f")]
    c = run("a.c", '#include "x.h"\nvoid f() { g(1); s->m(); }\n')
    assert rows(c) == [("import", "x.h", None, None), ("call", "g", None, "f"),
                       ("identifier", "s", None, "f"), ("call", "m", "s", "f")]


def test_markdown_has_no_refs() -> None:
    assert run("a.md", "# T\n\nfoo()\n").refs == []


#: The grammars refs were first written for (before the language pack).
_FIRST_NINE = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c",
                         "cpp"})


def test_every_grammar_with_definitions_gets_a_refs_query() -> None:
    from indexing.extract.refs import _query
    from indexing.grammars import get_language
    from indexing.language_rules import has_definitions
    from indexing.languages import code_languages

    for lang in sorted(lang for lang in code_languages() if has_definitions(lang)):
        query = _query(get_language(lang))
        assert query is not None, lang
        if lang in _FIRST_NINE:  # names, strings, calls (not every grammar has all three)
            assert query.capture_count >= 3, lang

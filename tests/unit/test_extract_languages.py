"""Languages: which grammar reads which file, how queries and rules are loaded and cached,
and what each language's extraction finds. Each snippet exercises the forms that language's
queries and rules describe, with exact positions (0-based lines, UTF-16 columns)."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from extract_support import by_name, run, spans, table

from indexing import language_rules as languages
from indexing.grammars import get_language, get_parser, get_query
from indexing.languages import catalog, code_languages
from indexing.records import Span, SymbolKind

K = SymbolKind


@pytest.mark.parametrize("lang", sorted(catalog()))
def test_every_grammar_loads_and_its_query_compiles(lang: str) -> None:
    """Fails loudly, naming the language, when the language pack's grammar does not load
    with the installed tree-sitter (an ABI mismatch) or our query no longer fits it."""
    language = get_language(lang)
    tree = get_parser(lang).parse(b"x\n")
    assert tree.root_node is not None and language.abi_version >= 13
    if languages.has_definitions(lang):
        assert get_query(lang).pattern_count > 0


def test_parsers_and_queries_are_cached_per_thread() -> None:
    mine = (get_parser("python"), get_query("python"))
    assert get_parser("python") is mine[0] and get_query("python") is mine[1]
    other: list[object] = []
    thread = threading.Thread(target=lambda: other.extend([get_parser("python")]))
    thread.start()
    thread.join()
    assert other[0] is not mine[0]
    assert get_language("python") is get_language("python")


def test_rules_are_data_next_to_the_queries() -> None:
    assert languages.language_rules("python").doc == "docstring"
    assert languages.language_rules("go").package_node == "package_clause"
    assert languages.language_rules("cpp").constructor_named_like_container
    assert not languages.language_rules("c").constructor_named_like_container
    assert languages.language_rules("tsx") == replace(
        languages.language_rules("typescript"), extends="typescript")
    assert languages.language_rules("markdown").extractor == "markdown"
    assert "markdown" not in code_languages() and "cpp" in code_languages()


def test_a_child_language_starts_from_its_parents_patterns() -> None:
    c, cpp = languages.own_query_source("c"), languages.own_query_source("cpp")
    assert cpp.startswith(c) and len(cpp) > len(c)
    assert languages.own_query_source("tsx") == languages.own_query_source("typescript")


@pytest.mark.parametrize(
    ("toml", "error"),
    [
        ('doc_coment = "x"', "unknown rule 'doc_coment'"),
        ('doc = "javadoc"', "doc = 'javadoc' is not valid"),
        ('extends = "cobol"', "extends = 'cobol' is not valid"),
        ("receiver_nodes = [1]", "receiver_nodes = [1] is not valid"),
    ],
)
def test_a_rule_file_with_a_mistake_is_refused(
    toml: str, error: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "go.toml").write_text(toml + "\n", encoding="utf-8")
    monkeypatch.setattr(languages, "QUERY_DIR", tmp_path)
    languages.language_rules.cache_clear()
    try:
        with pytest.raises(ValueError, match=re.escape(error)):
            languages.language_rules("go")
    finally:
        languages.language_rules.cache_clear()


# ---- extraction, language by language


JS = """import x from "y";
/**
 * Adds two numbers.
 * @param a first
 */
export function add(a, b) { return a + b; }
// A shape.
class Shape extends Base {
  constructor(r) { super(); this.r = r; }
  /** Area. */
  area() {
    return 1;
  }
  handle = () => {};
}
const mul = (a, b) => a * b;
module.exports = { add };
"""


def test_javascript() -> None:
    ex = run("src/a.mjs", JS)
    assert table(ex) == [
        ("add", K.FUNCTION, None, "add"),
        ("Shape", K.CLASS, None, "Shape"),
        ("constructor", K.CONSTRUCTOR, "Shape", "Shape.constructor"),
        ("area", K.METHOD, "Shape", "Shape.area"),
        ("handle", K.METHOD, "Shape", "Shape.handle"),
        ("mul", K.FUNCTION, None, "mul"),
    ]
    add = by_name(ex, "add")
    assert add.range == Span(5, 7, 5, 43)
    assert add.selection == Span(5, 16, 5, 19)
    assert add.doc == "Adds two numbers.\n@param a first"
    assert add.signature == "function add(a, b) { return a + b; }"
    assert by_name(ex, "Shape").doc == "A shape."
    assert by_name(ex, "area").doc == "Area."
    assert by_name(ex, "mul").range == Span(15, 0, 15, 28)  # the whole `const` declaration
    assert spans(ex) == [
        ("code", 0, 0, None, ""),
        ("definition", 1, 5, 0, "add"),  # the JSDoc block and the export lead to the code
        ("definition", 6, 14, 1, "Shape"),
        ("definition", 9, 12, 3, "Shape.area"),
        ("definition", 15, 15, 5, "mul"),
        ("code", 16, 16, None, ""),
    ]


TS = """/** Alias doc */
export type Pair = { x: number };
enum Color { Red }
export interface Named {
  name(): string;
}
declare function g(): void;
abstract class Base<T> {
  constructor(x: T) {}
  abstract k(): void;
}
export const h = async (a: number): Promise<number> => a;
namespace NS {
  export function q() {}
}
"""


def test_typescript() -> None:
    ex = run("a.ts", TS)
    assert table(ex) == [
        ("Pair", K.TYPE_PARAMETER, None, "Pair"),
        ("x", K.PROPERTY, "Pair", "Pair.x"),
        ("Color", K.ENUM, None, "Color"),
        ("Named", K.INTERFACE, None, "Named"),
        ("name", K.METHOD, "Named", "Named.name"),
        ("g", K.FUNCTION, None, "g"),
        ("Base", K.CLASS, None, "Base"),
        ("constructor", K.CONSTRUCTOR, "Base", "Base.constructor"),
        ("k", K.METHOD, "Base", "Base.k"),
        ("h", K.FUNCTION, None, "h"),
        ("NS", K.NAMESPACE, None, "NS"),
        ("q", K.FUNCTION, "NS", "NS.q"),
    ]
    pair = by_name(ex, "Pair")
    assert pair.range == Span(1, 7, 1, 33)
    assert pair.selection == Span(1, 12, 1, 16)
    assert pair.doc == "Alias doc"
    assert by_name(ex, "h").range == Span(11, 7, 11, 57)
    assert by_name(ex, "constructor").selection == Span(8, 2, 8, 13)
    assert spans(ex) == [
        ("definition", 0, 1, 0, "Pair"),
        ("definition", 2, 2, 2, "Color"),
        ("definition", 3, 5, 3, "Named"),
        ("definition", 6, 6, 5, "g"),
        ("definition", 7, 10, 6, "Base"),
        ("definition", 11, 11, 9, "h"),
        ("definition", 12, 14, 10, "NS"),
    ]


def test_tsx() -> None:
    text = (
        "// Renders.\n"
        "export const App = (p: Props) => <div>{p.x}</div>;\n"
        "type Props = { x: string };\n"
    )
    ex = run("App.tsx", text)
    assert table(ex) == [
        ("App", K.FUNCTION, None, "App"),
        ("Props", K.TYPE_PARAMETER, None, "Props"),
        ("x", K.PROPERTY, "Props", "Props.x"),
    ]
    assert by_name(ex, "App").doc == "Renders."
    assert spans(ex) == [("definition", 0, 1, 0, "App"), ("definition", 2, 2, 1, "Props")]


GO = """package shapes

import "fmt"

// Square is a shape.
// It has four sides.
type Square[K any] struct{ side int }

type Alias = int

const (
\tSmall = 1
\tLarge = 2
)

var Default = 2

// Area computes the area.
func (s *Square[K]) Area() int {
\tfmt.Println()
\treturn s.side
}

func New() Square[int] { return Square[int]{} }

type Shape interface{ Area() int }
"""


def test_go() -> None:
    ex = run("shapes/square.go", GO)
    assert table(ex) == [
        ("Square", K.STRUCT, None, "shapes.Square"),
        ("Alias", K.TYPE_PARAMETER, None, "shapes.Alias"),
        ("Small", K.CONSTANT, None, "shapes.Small"),
        ("Large", K.CONSTANT, None, "shapes.Large"),
        ("Default", K.VARIABLE, None, "shapes.Default"),
        ("Area", K.METHOD, "Square", "shapes.Square.Area"),
        ("New", K.FUNCTION, None, "shapes.New"),
        ("Shape", K.INTERFACE, None, "shapes.Shape"),
        ("Area", K.METHOD, "Shape", "shapes.Shape.Area"),
    ]
    square = by_name(ex, "Square")
    assert square.range == Span(6, 0, 6, 37)  # includes the `type` keyword
    assert square.selection == Span(6, 5, 6, 11)
    assert square.doc == "Square is a shape.\nIt has four sides."
    area = ex.symbols[5]  # Square's, not the Shape interface's
    assert area.range == Span(18, 0, 21, 1)
    assert area.selection == Span(18, 20, 18, 24)
    assert area.signature == "func (s *Square[K]) Area() int {"
    assert area.doc == "Area computes the area."
    assert by_name(ex, "Small").range == Span(11, 1, 11, 10)
    assert spans(ex) == [
        ("code", 0, 2, None, ""),
        ("definition", 4, 6, 0, "shapes.Square"),
        ("definition", 8, 8, 1, "shapes.Alias"),
        ("code", 10, 15, None, ""),  # constants and variables stay in code chunks
        ("definition", 17, 21, 5, "shapes.Square.Area"),
        ("definition", 23, 23, 6, "shapes.New"),
        ("definition", 25, 25, 7, "shapes.Shape"),
    ]


RUST = """//! Crate docs are not item docs.

// Plain comment, in the chunk but not the doc.
/// A point.
#[derive(Debug)]
pub struct Point;

impl<T> fmt::Display for Wrapper<T> {
    /// Formats it.
    fn fmt(&self) {}
}

impl Point {
    const ORIGIN: u8 = 0;
    pub fn new() -> Self {
        Point
    }
}

trait Shape { fn area(&self); fn name() {} }
macro_rules! square { ($x:expr) => { $x * $x } }
mod geo {
    fn free() {}
    enum Dir { N }
}
static COUNT: u8 = 1;
type Id = u64;
"""


def test_rust() -> None:
    ex = run("src/lib.rs", RUST)
    assert table(ex) == [
        ("Point", K.STRUCT, None, "Point"),
        ("impl fmt::Display for Wrapper<T>", K.OBJECT, None, "impl fmt::Display for Wrapper<T>"),
        ("fmt", K.METHOD, "impl fmt::Display for Wrapper<T>", "Wrapper.fmt"),
        ("impl Point", K.OBJECT, None, "impl Point"),
        ("ORIGIN", K.CONSTANT, "impl Point", "Point.ORIGIN"),
        ("new", K.METHOD, "impl Point", "Point.new"),
        ("Shape", K.INTERFACE, None, "Shape"),
        ("area", K.METHOD, "Shape", "Shape.area"),
        ("name", K.METHOD, "Shape", "Shape.name"),
        ("square", K.FUNCTION, None, "square"),
        ("geo", K.MODULE, None, "geo"),
        ("free", K.FUNCTION, "geo", "geo.free"),
        ("Dir", K.ENUM, "geo", "geo.Dir"),
        ("COUNT", K.VARIABLE, None, "COUNT"),
        ("Id", K.TYPE_PARAMETER, None, "Id"),
    ]
    point = by_name(ex, "Point")
    assert point.range == Span(5, 0, 5, 17)
    assert point.selection == Span(5, 11, 5, 16)
    assert point.doc == "A point."
    impl = by_name(ex, "impl fmt::Display for Wrapper<T>")
    assert impl.range == Span(7, 0, 10, 1)
    assert impl.selection == Span(7, 25, 7, 35)
    assert by_name(ex, "fmt").doc == "Formats it."
    assert by_name(ex, "area").signature == "fn area(&self);"
    assert spans(ex) == [
        ("code", 0, 0, None, ""),
        ("definition", 2, 5, 0, "Point"),  # comment, doc comment and attribute included
        ("definition", 7, 10, 1, "impl fmt::Display for Wrapper<T>"),
        ("definition", 8, 9, 2, "Wrapper.fmt"),
        ("definition", 12, 17, 3, "impl Point"),
        ("definition", 14, 16, 5, "Point.new"),
        ("definition", 19, 19, 6, "Shape"),
        ("definition", 20, 20, 9, "square"),
        ("definition", 21, 24, 10, "geo"),
        ("code", 25, 25, None, ""),
        ("definition", 26, 26, 14, "Id"),
    ]


JAVA = """package com.example;

/**
 * A greeter.
 */
@Service
public class Greeter<T> extends Base {
  private int count = 1, total;
  // Builds one.
  Greeter() {}
  enum Mode { LOUD, QUIET }
  interface Hook { void call(); }
  record Pair(int a) {}
  @Override
  public String greet(String name) {
    return name;
  }
}
"""


def test_java() -> None:
    ex = run("Greeter.java", JAVA)
    assert table(ex) == [
        ("Greeter", K.CLASS, None, "Greeter"),
        ("count", K.FIELD, "Greeter", "Greeter.count"),
        ("total", K.FIELD, "Greeter", "Greeter.total"),
        ("Greeter", K.CONSTRUCTOR, "Greeter", "Greeter.Greeter"),
        ("Mode", K.ENUM, "Greeter", "Greeter.Mode"),
        ("LOUD", K.ENUM_MEMBER, "Mode", "Greeter.Mode.LOUD"),
        ("QUIET", K.ENUM_MEMBER, "Mode", "Greeter.Mode.QUIET"),
        ("Hook", K.INTERFACE, "Greeter", "Greeter.Hook"),
        ("call", K.METHOD, "Hook", "Greeter.Hook.call"),
        ("Pair", K.CLASS, "Greeter", "Greeter.Pair"),
        ("greet", K.METHOD, "Greeter", "Greeter.greet"),
    ]
    cls = ex.symbols[0]
    assert cls.range == Span(5, 0, 17, 1)  # starts at the annotation
    assert cls.selection == Span(6, 13, 6, 20)
    assert cls.signature == "public class Greeter<T> extends Base {"
    assert cls.doc == "A greeter."
    assert ex.symbols[3].doc == "Builds one."
    greet = by_name(ex, "greet")
    assert greet.range == Span(13, 2, 16, 3)
    assert greet.signature == "public String greet(String name) {"
    assert spans(ex) == [
        ("code", 0, 0, None, ""),
        ("definition", 2, 17, 0, "Greeter"),
        ("definition", 8, 9, 3, "Greeter.Greeter"),
        ("definition", 13, 16, 10, "Greeter.greet"),
    ]


C = """#include <stdio.h>
#define MAX 10
/* A point. */
typedef struct { int x; } Point;
struct Node { int v; };
union Val { int i; };
enum Color { RED };
// Finds it.
// Fast.
static char *find(int x) {
  int local(int);
  return 0;
}
int count(void);
struct Node head;
typedef struct List { int n; } List;
typedef int Id;
"""


def test_c() -> None:
    ex = run("a.h", C)
    assert table(ex) == [
        ("MAX", K.CONSTANT, None, "MAX"),
        ("Point", K.STRUCT, None, "Point"),
        ("Node", K.STRUCT, None, "Node"),
        ("Val", K.STRUCT, None, "Val"),
        ("Color", K.ENUM, None, "Color"),
        ("find", K.FUNCTION, None, "find"),  # not the local prototype inside it
        ("count", K.FUNCTION, None, "count"),
        ("List", K.TYPE_PARAMETER, None, "List"),
        ("List", K.STRUCT, None, "List"),
        ("Id", K.TYPE_PARAMETER, None, "Id"),
    ]
    find = by_name(ex, "find")
    assert find.range == Span(9, 0, 12, 1)
    assert find.selection == Span(9, 13, 9, 17)
    assert find.doc == "Finds it.\nFast."
    assert find.signature == "static char *find(int x) {"
    assert by_name(ex, "Point").doc == "A point."
    assert by_name(ex, "count").range == Span(13, 0, 13, 16)
    assert spans(ex) == [
        ("code", 0, 1, None, ""),
        ("definition", 2, 3, 1, "Point"),
        ("definition", 4, 4, 2, "Node"),
        ("definition", 5, 5, 3, "Val"),
        ("definition", 6, 6, 4, "Color"),
        ("definition", 7, 12, 5, "find"),
        ("definition", 13, 13, 6, "count"),
        ("code", 14, 14, None, ""),  # a use of `struct Node`, not a definition
        ("definition", 15, 15, 7, "List"),  # one chunk for the typedef and its struct
        ("definition", 16, 16, 9, "Id"),
    ]


C_HEADER = """typedef enum { LOUD, QUIET } Mode;
typedef struct { int x; } Point;
enum Color { RED };
#define MAX 10
int count(void);
"""


def test_cpp_reads_c_as_c_does() -> None:
    # C++ starts from C's patterns, so a C header means the same read either way; the C++
    # copy of C's patterns once lacked `typedef enum`.
    assert table(run("modes.hpp", C_HEADER)) == table(run("modes.h", C_HEADER)) == [
        ("Mode", K.ENUM, None, "Mode"),
        ("Point", K.STRUCT, None, "Point"),
        ("Color", K.ENUM, None, "Color"),
        ("MAX", K.CONSTANT, None, "MAX"),
        ("count", K.FUNCTION, None, "count"),
    ]


CPP = """namespace geo {
/// A shape.
class Shape : public Base {
 public:
  Shape();
  ~Shape() {}
  double area() const {
    return 0;
  }
};
template <typename T>
void Shape::scale(T t) {}
}
void a::b::run() {}
Shape::Shape() {}
bool operator==(const Shape&, const Shape&);
enum class Color { Red };
using Id = int;
struct Pt { int y; };
"""


def test_cpp() -> None:
    ex = run("shape.hpp", CPP)
    assert table(ex) == [
        ("geo", K.NAMESPACE, None, "geo"),
        ("Shape", K.CLASS, "geo", "geo.Shape"),
        ("Shape", K.CONSTRUCTOR, "Shape", "geo.Shape.Shape"),
        ("~Shape", K.METHOD, "Shape", "geo.Shape.~Shape"),
        ("area", K.METHOD, "Shape", "geo.Shape.area"),
        ("scale", K.METHOD, "Shape", "geo.Shape.scale"),
        ("run", K.METHOD, "b", "a.b.run"),
        ("Shape", K.CONSTRUCTOR, "Shape", "Shape.Shape"),
        ("operator==", K.METHOD, None, "operator=="),
        ("Color", K.ENUM, None, "Color"),
        ("Id", K.TYPE_PARAMETER, None, "Id"),
        ("Pt", K.STRUCT, None, "Pt"),
    ]
    shape = ex.symbols[1]
    assert shape.range == Span(2, 0, 9, 1)
    assert shape.selection == Span(2, 6, 2, 11)
    assert shape.doc == "A shape."
    scale = by_name(ex, "scale")
    assert scale.range == Span(11, 0, 11, 25)
    assert scale.selection == Span(11, 12, 11, 17)
    assert spans(ex) == [
        ("definition", 0, 12, 0, "geo"),
        ("definition", 1, 9, 1, "geo.Shape"),
        ("definition", 6, 8, 4, "geo.Shape.area"),
        ("definition", 10, 11, 5, "geo.Shape.scale"),  # the template line leads
        ("definition", 13, 13, 6, "a.b.run"),
        ("definition", 14, 14, 7, "Shape.Shape"),
        ("definition", 15, 15, 8, "operator=="),
        ("definition", 16, 16, 9, "Color"),
        ("definition", 17, 17, 10, "Id"),
        ("definition", 18, 18, 11, "Pt"),
    ]


TOP_LEVEL_VALUES = """// Shared registry of handlers.
export const registry = {
  a: 1,
};
let cache = new Map(), hits = 0;
var legacy = 1;
const square = (x) => x * x;
function local() {
  const inner = 2;
  return inner;
}
"""


def test_top_level_values_in_javascript_and_typescript() -> None:
    for path in ("values.js", "values.ts"):
        ex = run(path, TOP_LEVEL_VALUES)
        assert table(ex) == [
            ("registry", K.CONSTANT, None, "registry"),
            ("cache", K.VARIABLE, None, "cache"),
            ("hits", K.VARIABLE, None, "hits"),
            ("legacy", K.VARIABLE, None, "legacy"),
            ("square", K.FUNCTION, None, "square"),  # a function bound to a name stays one
            ("local", K.FUNCTION, None, "local"),  # `inner` is local, not a definition
        ], path
        registry = by_name(ex, "registry")
        assert registry.range == Span(1, 7, 3, 2)  # the whole `const` declaration
        assert registry.selection == Span(1, 13, 1, 21)
        assert registry.doc == "Shared registry of handlers."


SPOCK_SPEC = '''\
class CartSpec extends Specification {
    def "counts the lines it was given"() {
        expect:
        new Cart().count() == 0
    }

    private Map line(String sku) {
        [sku: sku]
    }
}
'''


def test_groovy_reads_a_spock_feature_as_a_method() -> None:
    """The grammar reads `def "name"()` with an error node (so it is no fixture, whose
    files must parse cleanly): the feature is still a method named by its string."""
    ex = run("CartSpec.groovy", SPOCK_SPEC)
    assert table(ex) == [
        ("CartSpec", K.CLASS, None, "CartSpec"),
        ("counts the lines it was given", K.METHOD, "CartSpec",
         "CartSpec.counts the lines it was given"),
        ("line", K.METHOD, "CartSpec", "CartSpec.line"),
    ]
    feature = by_name(ex, "counts the lines it was given")
    assert feature.selection == Span(1, 8, 1, 39)

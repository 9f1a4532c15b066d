"""Definitions the language queries once missed or got wrong, each on an excerpt of the real
code it was found in (a bug hunt over Debian and npm packages). Positions are 0-based,
columns UTF-16."""

from __future__ import annotations

from extract_support import by_name, run, table

from indexing.records import Span, SymbolKind

K = SymbolKind


# google/uuid 1.3.0, uuid.go (lines 37-45).
GO_VAR_BLOCK = """package uuid

const randPoolSize = 16 * 16

var (
\trander      = rand.Reader // random function
\tpoolEnabled = false
\tpoolMu      sync.Mutex
\tpoolPos     = randPoolSize     // protected with poolMu
\tpool        [randPoolSize]byte // protected with poolMu
)

func f() {
\tvar (
\t\tlocal = 1
\t)
\t_ = local
}
"""


def test_go_grouped_var_block_defines_each_variable() -> None:
    ex = run("uuid/uuid.go", GO_VAR_BLOCK)
    assert table(ex) == [
        ("randPoolSize", K.CONSTANT, None, "uuid.randPoolSize"),
        ("rander", K.VARIABLE, None, "uuid.rander"),
        ("poolEnabled", K.VARIABLE, None, "uuid.poolEnabled"),
        ("poolMu", K.VARIABLE, None, "uuid.poolMu"),
        ("poolPos", K.VARIABLE, None, "uuid.poolPos"),
        ("pool", K.VARIABLE, None, "uuid.pool"),
        ("f", K.FUNCTION, None, "uuid.f"),  # `local` in f's own `var ( ... )` is a local
    ]
    rander = by_name(ex, "rander")
    assert rander.selection == Span(5, 1, 5, 7)
    assert rander.range == Span(5, 1, 5, 26)  # its own spec, not the whole block
    assert by_name(ex, "pool").selection == Span(9, 1, 9, 5)


# golang.org/x/exp/slog (0.0~git20221028), handler.go 18-35 and value.go 330-342, shortened.
GO_INTERFACE = """package slog

// A Handler handles log records produced by a Logger..
type Handler interface {
\t// Enabled reports whether the handler handles records at the given level.
\t// The handler ignores records whose level is lower.
\tEnabled(Level) bool

\t// Handle handles the Record.
\tHandle(r Record) error
\tfmt.Stringer
}

// A LogValuer is a Value that transforms itself into a different Value.
type LogValuer interface {
\tLogValue() Value
}

func Each(f func(interface{ Close() error })) {}

type Sink struct {
\tw interface{ Flush() }
}
"""


def test_go_interface_methods_are_methods_of_the_interface() -> None:
    ex = run("slog/handler.go", GO_INTERFACE)
    assert table(ex) == [
        ("Handler", K.INTERFACE, None, "slog.Handler"),
        ("Enabled", K.METHOD, "Handler", "slog.Handler.Enabled"),
        ("Handle", K.METHOD, "Handler", "slog.Handler.Handle"),
        ("LogValuer", K.INTERFACE, None, "slog.LogValuer"),
        ("LogValue", K.METHOD, "LogValuer", "slog.LogValuer.LogValue"),
        # an anonymous interface type is no type of its own: `Close` and `Flush` are not
        ("Each", K.FUNCTION, None, "slog.Each"),
        ("Sink", K.STRUCT, None, "slog.Sink"),
    ]
    enabled = by_name(ex, "Enabled")
    assert enabled.selection == Span(6, 1, 6, 8)
    assert enabled.range == Span(6, 1, 6, 20)
    assert enabled.doc == (
        "Enabled reports whether the handler handles records at the given level.\n"
        "The handler ignores records whose level is lower."
    )
    assert by_name(ex, "Handle").doc == "Handle handles the Record."
    log_value = by_name(ex, "LogValue")
    assert log_value.selection == Span(15, 1, 15, 9)
    assert log_value.doc == ""


# @react-native-async-storage/async-storage 3.1.1, LegacyStorageModule.kt (lines 15-49,
# shortened), and a getter, an `init` block and an object expression around locals.
KOTLIN_LOCALS = """\
class LegacyStorageModule(reactContext: ReactApplicationContext) : CoroutineScope {

    private val storage = StorageSupplier.getInstance(reactContext)

    companion object {
        const val NAME = "RNCAsyncStorage"
    }

    fun multiGet(keys: ReadableArray, promise: Promise) {
        launch(createExceptionHandler(promise)) {
            val entries = storage.getValues(keys.toKeyList())
            promise.resolve(entries.toKeyValueArgument())
        }
    }

    val size: Int
        get() { val n = storage.count(); return n }

    init { val started = true }
}

object Defaults { val timeout = 30 }

val listener = object : Runnable { val calls = 0; override fun run() {} }
"""


def test_kotlin_locals_are_not_properties() -> None:
    ex = run("LegacyStorageModule.kt", KOTLIN_LOCALS)
    props = [(s.name, s.container) for s in ex.symbols if s.kind == K.PROPERTY]
    # not `entries` (a lambda's), `n` (a getter's), `started` (an init block's), nor an object
    # expression's `calls`
    assert props == [
        ("storage", "LegacyStorageModule"),
        ("NAME", "LegacyStorageModule"),  # the companion object has no name of its own
        ("size", "LegacyStorageModule"),
        ("timeout", "Defaults"),  # read by this grammar as an error holding the property
        ("listener", None),
    ]
    storage = by_name(ex, "storage")
    assert storage.selection == Span(2, 16, 2, 23)
    assert storage.qualified_name == "LegacyStorageModule.storage"
    assert by_name(ex, "timeout").selection == Span(21, 22, 21, 29)


# @react-native-async-storage/async-storage 3.1.1, apple/storage/StorageRegistry.swift
# (shortened), and a computed property and an initializer around locals.
SWIFT_LOCALS = """#if !os(visionOS) // not supported
    import SharedAsyncStorage

    @objc
    public class StorageRegistry: NSObject {
        private let lock = NSLock()
        private var storages: [String: SharedStorage] = [:]

        var count: Int { let n = storages.count; return n }

        override private init() { let ready = true }

        public func getStorage(dbName: String) -> SharedStorage {
            lock.lock()
            return storages[dbName] ?? {
                let s = SharedStorage(context: PlatformContext.Instance(), databaseName: dbName)
                storages[dbName] = s
                return s
            }()
        }
    }
#endif

enum Limits { case small; static let max = 10 }
let registry = StorageRegistry()
"""


def test_swift_locals_are_not_properties() -> None:
    ex = run("StorageRegistry.swift", SWIFT_LOCALS)
    props = [(s.name, s.container) for s in ex.symbols if s.kind == K.PROPERTY]
    # not `n` (a computed property's), `ready` (an initializer's) nor `s` (a closure's)
    assert props == [
        ("lock", "StorageRegistry"),
        ("storages", "StorageRegistry"),
        ("count", "StorageRegistry"),
        ("max", "Limits"),
        ("registry", None),
    ]
    lock = by_name(ex, "lock")
    assert lock.selection == Span(5, 20, 5, 24)
    assert lock.qualified_name == "StorageRegistry.lock"
    assert by_name(ex, "max").selection == Span(23, 37, 23, 40)


# libinih 55, ini.h (lines 50-62); glibc's signal.h (line 72) and bits/types.h (line 204);
# OpenSSL's x509v3.h (lines 41-43).
C_TYPEDEFS = """/* Typedef for prototype of handler function. */
#if INI_HANDLER_LINENO
typedef int (*ini_handler)(void* user, const char* section,
                           const char* name, const char* value,
                           int lineno);
#else
typedef int (*ini_handler)(void* user, const char* section,
                           const char* name, const char* value);
#endif

/* Typedef for prototype of fgets-style reader function. */
typedef char* (*ini_reader)(char* str, int num, void* stream);

typedef void (*__sighandler_t) (int);
typedef char *__caddr_t;
typedef void *(*X509V3_EXT_NEW)(void);
typedef void (*X509V3_EXT_FREE)(void *);

int ini_parse_file(FILE* file, ini_handler handler, void* user);
"""


def test_c_typedefs_of_function_pointers_and_pointers_are_type_aliases() -> None:
    for path in ("ini.h", "ini.hpp"):  # C++ starts from C's patterns
        ex = run(path, C_TYPEDEFS)
        assert table(ex) == [
            ("ini_handler", K.TYPE_PARAMETER, None, "ini_handler"),  # one for each branch
            ("ini_handler", K.TYPE_PARAMETER, None, "ini_handler"),
            ("ini_reader", K.TYPE_PARAMETER, None, "ini_reader"),
            ("__sighandler_t", K.TYPE_PARAMETER, None, "__sighandler_t"),
            ("__caddr_t", K.TYPE_PARAMETER, None, "__caddr_t"),
            ("X509V3_EXT_NEW", K.TYPE_PARAMETER, None, "X509V3_EXT_NEW"),
            ("X509V3_EXT_FREE", K.TYPE_PARAMETER, None, "X509V3_EXT_FREE"),
            ("ini_parse_file", K.FUNCTION, None, "ini_parse_file"),  # not its parameters
        ], path
        handler = ex.symbols[1]
        assert handler.selection == Span(6, 14, 6, 25)
        assert handler.range == Span(6, 0, 7, 64)  # the whole typedef
        reader = by_name(ex, "ini_reader")
        assert reader.selection == Span(11, 16, 11, 26)
        assert reader.range == Span(11, 0, 11, 62)
        assert reader.doc == "Typedef for prototype of fgets-style reader function."
        assert by_name(ex, "__caddr_t").selection == Span(14, 14, 14, 23)
        assert by_name(ex, "X509V3_EXT_NEW").selection == Span(15, 16, 15, 30)


# node-lru-cache 7.14.1, index.d.ts (lines 35-37 and 271-274), and overload signatures.
TS_DECLARE_CLASS = """declare class LRUCache<K, V> implements Iterable<[K, V]> {
  constructor(options: LRUCache.Options<K, V>)

  /**
   * since: 7.6.0
   */
  public getRemainingTTL(key: K): number
}

abstract class Pool {
  constructor(size: number);
  constructor(size?: number) {}
}

interface Options {
  constructor(): void
}
"""


def test_typescript_constructor_signatures_are_constructors() -> None:
    ex = run("index.d.ts", TS_DECLARE_CLASS)
    assert table(ex) == [
        ("LRUCache", K.CLASS, None, "LRUCache"),
        ("constructor", K.CONSTRUCTOR, "LRUCache", "LRUCache.constructor"),
        ("getRemainingTTL", K.METHOD, "LRUCache", "LRUCache.getRemainingTTL"),
        ("Pool", K.CLASS, None, "Pool"),
        ("constructor", K.CONSTRUCTOR, "Pool", "Pool.constructor"),  # the overload signature
        ("constructor", K.CONSTRUCTOR, "Pool", "Pool.constructor"),
        ("Options", K.INTERFACE, None, "Options"),
        ("constructor", K.METHOD, "Options", "Options.constructor"),  # an interface's method
    ]
    ctor = ex.symbols[1]
    assert ctor.selection == Span(1, 2, 1, 13)
    assert ctor.range == Span(1, 2, 1, 46)
    assert ex.symbols[4].selection == Span(10, 2, 10, 13)


# lua-argparse 0.7.1, argparse.lua (lines 304-326 and 484-498, shortened), and neovim's
# runtime/lua/vim/treesitter.lua (lines 1-6, shortened).
LUA_CLASSES = """local Argument = class({
   _minargs = 1,
   _maxargs = 1
}, {
   typechecked("name", "string"),
   option_init
})

local parsers = setmetatable({}, { __mode = 'v' })

local M = vim._defer_require('vim.treesitter', {
  _fold = ...,
})

-- Returns placeholder for `narg`-th argument.
function Argument:_get_argname(narg)
   local argname = self._argname or self:_get_default_argname()
   return argname
end

function M.get_parser(bufnr)
   local cache = setmetatable({}, {})
   function cache.clear() end
   return parsers[bufnr]
end
"""


def test_lua_a_local_made_by_a_call_is_a_definition_when_the_file_defines_functions_on_it() -> None:
    ex = run("argparse.lua", LUA_CLASSES)
    assert table(ex) == [
        ("Argument", K.VARIABLE, None, "Argument"),
        # not `parsers`: nothing is defined on it
        ("M", K.VARIABLE, None, "M"),
        ("_get_argname", K.METHOD, "Argument", "Argument._get_argname"),
        ("get_parser", K.FUNCTION, "M", "M.get_parser"),
        ("clear", K.FUNCTION, "cache", "M.get_parser.cache.clear"),  # `cache` is a local
    ]
    argument = by_name(ex, "Argument")
    assert argument.selection == Span(0, 6, 0, 14)
    assert argument.range == Span(0, 0, 6, 2)
    assert by_name(ex, "M").selection == Span(10, 6, 10, 7)


# doctrine/collections 2.1.2, Expr/Comparison.php (lines 1-12 and 25-47, shortened), and a
# documented promoted parameter on a line of its own.
PHP_PROMOTED = """<?php

namespace Doctrine\\Common\\Collections\\Expr;

class Comparison implements Expression
{
    private readonly Value $value;

    public function __construct(private readonly string $field, \
private readonly string $op, mixed $value)
    {
        $this->value = $value;
    }
}

final class Criteria
{
    public function __construct(
        /** The filter, if any. */
        private Expression|null $expression = null,
        array|null $orderings = null,
    ) {
    }
}
"""


def test_php_promoted_constructor_parameters_are_properties_of_the_class() -> None:
    ex = run("Comparison.php", PHP_PROMOTED)
    ns = "Doctrine.Common.Collections.Expr"
    assert [row for row in table(ex) if row[1] != K.NAMESPACE] == [
        ("Comparison", K.CLASS, None, f"{ns}.Comparison"),
        ("value", K.PROPERTY, "Comparison", f"{ns}.Comparison.value"),
        ("__construct", K.CONSTRUCTOR, "Comparison", f"{ns}.Comparison.__construct"),
        ("field", K.PROPERTY, "Comparison", f"{ns}.Comparison.field"),  # not `$value`
        ("op", K.PROPERTY, "Comparison", f"{ns}.Comparison.op"),
        ("Criteria", K.CLASS, None, f"{ns}.Criteria"),
        ("__construct", K.CONSTRUCTOR, "Criteria", f"{ns}.Criteria.__construct"),
        ("expression", K.PROPERTY, "Criteria", f"{ns}.Criteria.expression"),
    ]
    field = by_name(ex, "field")
    assert field.selection == Span(8, 57, 8, 62)
    assert field.range == Span(8, 32, 8, 62)
    expression = by_name(ex, "expression")
    assert expression.selection == Span(18, 33, 18, 43)
    assert expression.doc == "The filter, if any."


# The shape of @tanstack/query-core's QueryObserver constructor and an Angular-style service
# (written for this test): parameter properties, a plain parameter, and a documented one on
# a line of its own.
TS_PARAMETER_PROPERTIES = """export class QueryObserver {
  constructor(private readonly client: QueryClient, plain: number, public options?: Options) {
    this.bind(plain)
  }

  refetch(retries: number): void {}
}

export class Store {
  constructor(
    /** How long an entry lives, in ms. */
    readonly ttl = 1000,
    cache: Map<string, unknown>,
  ) {}
}
"""


def test_typescript_parameter_properties_are_properties_of_the_class() -> None:
    for path in ("observer.ts", "observer.tsx"):
        ex = run(path, TS_PARAMETER_PROPERTIES)
        assert table(ex) == [
            ("QueryObserver", K.CLASS, None, "QueryObserver"),
            ("constructor", K.CONSTRUCTOR, "QueryObserver", "QueryObserver.constructor"),
            ("client", K.PROPERTY, "QueryObserver", "QueryObserver.client"),
            ("options", K.PROPERTY, "QueryObserver", "QueryObserver.options"),
            ("refetch", K.METHOD, "QueryObserver", "QueryObserver.refetch"),
            ("Store", K.CLASS, None, "Store"),
            ("constructor", K.CONSTRUCTOR, "Store", "Store.constructor"),
            ("ttl", K.PROPERTY, "Store", "Store.ttl"),
        ], path
        assert by_name(ex, "client").selection == Span(1, 31, 1, 37)
        ttl = by_name(ex, "ttl")
        assert ttl.selection == Span(11, 13, 11, 16)
        assert ttl.doc == "How long an entry lives, in ms."


# The shape of mobx's `Annotation` and @reduxjs/toolkit's option types (written for this test):
# the members of the object type a type alias names, alone or in an intersection, belong to
# it; an object type elsewhere (a parameter's) declares no property.
TS_TYPE_ALIAS_MEMBERS = """/** How a fetch is made. */
export type FetchOptions<T> = {
  /** Where requests go. */
  baseUrl: string
  retries?: number
  prepare(headers: Headers): Headers
  nested: { inner: number }
}

export type Props = { value: string } & Base & { onChange(v: string): void; label?: string }

export type Handler = (opts: { quiet: boolean }) => void

export function start(config: { port: number }): void {}
"""


def test_typescript_type_alias_members_belong_to_the_alias() -> None:
    for path in ("options.ts", "options.tsx"):
        ex = run(path, TS_TYPE_ALIAS_MEMBERS)
        assert table(ex) == [
            ("FetchOptions", K.TYPE_PARAMETER, None, "FetchOptions"),
            ("baseUrl", K.PROPERTY, "FetchOptions", "FetchOptions.baseUrl"),
            ("retries", K.PROPERTY, "FetchOptions", "FetchOptions.retries"),
            ("prepare", K.METHOD, "FetchOptions", "FetchOptions.prepare"),
            ("nested", K.PROPERTY, "FetchOptions", "FetchOptions.nested"),  # not `inner`
            ("Props", K.TYPE_PARAMETER, None, "Props"),
            ("value", K.PROPERTY, "Props", "Props.value"),
            ("onChange", K.METHOD, "Props", "Props.onChange"),
            ("label", K.PROPERTY, "Props", "Props.label"),
            ("Handler", K.TYPE_PARAMETER, None, "Handler"),  # not `quiet`
            ("start", K.FUNCTION, None, "start"),  # not `port`
        ], path
        base_url = by_name(ex, "baseUrl")
        assert base_url.selection == Span(3, 2, 3, 9)
        assert base_url.range == Span(3, 2, 3, 17)
        assert base_url.doc == "Where requests go."
        assert by_name(ex, "prepare").bodiless
        # The alias is one chunk: a member signature inside it has none of its own.
        assert [(c.start_line, c.end_line) for c in ex.chunks if c.start_line <= 7] == [(0, 7)]


# The shape of an abstract repository in a Flutter app (written for this test): abstract
# members are declarations with no body, which no pattern matched.
DART_ABSTRACT = """abstract class Repository {
  /// Finds one item by its id.
  Future<Item> find(int id);

  /// How many items there are.
  int get count;

  set label(String value);

  void save(Item item) {
    items.add(item);
  }
}

extension Words on String {
  int get wordCount;
}

enum Level {
  low;

  bool get loud;
}
"""


def test_dart_abstract_members_are_methods_with_their_docs() -> None:
    ex = run("repo.dart", DART_ABSTRACT)
    assert table(ex) == [
        ("Repository", K.CLASS, None, "Repository"),
        ("find", K.METHOD, "Repository", "Repository.find"),
        ("count", K.METHOD, "Repository", "Repository.count"),
        ("label", K.METHOD, "Repository", "Repository.label"),
        ("save", K.METHOD, "Repository", "Repository.save"),
        ("Words", K.CLASS, None, "Words"),
        ("wordCount", K.METHOD, "Words", "Words.wordCount"),
        ("Level", K.ENUM, None, "Level"),
        ("low", K.ENUM_MEMBER, "Level", "Level.low"),
        ("loud", K.METHOD, "Level", "Level.loud"),
    ]
    find = by_name(ex, "find")
    assert find.selection == Span(2, 15, 2, 19)
    assert find.doc == "Finds one item by its id."
    assert by_name(ex, "count").doc == "How many items there are."


# The shape of react-native-safe-area-context's RNCSafeAreaProvider.h (the language hunt's
# repro `objc-header-as-c`), written for this test: the grammar read the interface after
# `NS_ASSUME_NONNULL_BEGIN` as errors, and the header gave no definition.
OBJC_NONNULL_HEADER = """#import <UIKit/UIKit.h>

NS_ASSUME_NONNULL_BEGIN

/// Tells its children the safe area insets.
@interface SafeAreaProvider : UIView

- (instancetype)initWithDispatcher:(id<Dispatcher>)dispatcher NS_DESIGNATED_INITIALIZER;

@property (nonatomic, copy) EventBlock onInsetsChange;

@end

NS_ASSUME_NONNULL_END
"""


def test_objc_header_with_nonnull_macros_has_its_definitions() -> None:
    ex = run("SafeAreaProvider.h", OBJC_NONNULL_HEADER)
    assert ex.lang == "objc"
    assert table(ex) == [
        ("SafeAreaProvider", K.CLASS, None, "SafeAreaProvider"),
        ("initWithDispatcher", K.METHOD, "SafeAreaProvider", "SafeAreaProvider.initWithDispatcher"),
        ("onInsetsChange", K.PROPERTY, "SafeAreaProvider", "SafeAreaProvider.onInsetsChange"),
    ]
    provider = by_name(ex, "SafeAreaProvider")
    assert provider.selection == Span(5, 11, 5, 27)
    assert provider.doc == "Tells its children the safe area insets."
    assert by_name(ex, "initWithDispatcher").bodiless
    crlf = run("SafeAreaProvider.h", OBJC_NONNULL_HEADER.replace("\n", "\r\n"))
    assert table(crlf) == table(ex)


# A line that looks like a macro is left out only when that repairs the parse: `API_EXPORT`
# above `int` is an error the grammar makes (the declaration starts below it), while
# `WIN_HANDLE` above `open_thing(void);` is the declaration's type, read with no error.
C_MACRO_LINES = """#include <stddef.h>

API_EXPORT
int buf_grow(struct buf *b, size_t n);

WIN_HANDLE
open_thing(void);
"""


def test_c_macro_lines_are_left_out_only_to_repair_a_parse() -> None:
    ex = run("buf.c", C_MACRO_LINES)
    assert [(s.name, s.kind, s.range.start_line) for s in ex.symbols] == [
        ("buf_grow", K.FUNCTION, 3), ("open_thing", K.FUNCTION, 5)]
    fixed = run("buf.c", C_MACRO_LINES.split("\n\nWIN_HANDLE")[0] + "\n")
    assert [(s.name, s.range.start_line) for s in fixed.symbols] == [("buf_grow", 3)]


# An Angular-style service (written for this test): a member's decorator stands between it
# and its doc comment, which was lost for every decorated member.
TS_DECORATED = """/** The service that loads users. */
@Injectable({ providedIn: 'root' })
export class UserService {
  /** Loads one user by id. */
  @Memoize()
  load(id) { return id }

  /** How many are loaded. */
  @Input() count = 0;
}
"""


def test_typescript_and_javascript_docs_above_decorators() -> None:
    for path in ("service.ts", "service.tsx", "service.js"):
        ex = run(path, TS_DECORATED)
        assert [(s.name, s.doc) for s in ex.symbols] == [
            ("UserService", "The service that loads users."),
            ("load", "Loads one user by id."),
            ("count", "How many are loaded."),
        ], path


def test_private_class_fields_bound_to_functions_are_methods() -> None:
    # `#onClick = () => {}` was a property where `onKey = () => {}` is a method.
    text = ("class Button {\n  #onClick = () => this.press();\n  onKey = () => 1;\n"
            "  #count = 0;\n}\n")
    for path in ("button.js", "button.ts"):
        assert [(s.name, s.kind) for s in run(path, text).symbols] == [
            ("Button", K.CLASS), ("#onClick", K.METHOD), ("onKey", K.METHOD),
            ("#count", K.PROPERTY)], path


# `_` binds nothing where it is a language's blank identifier or wildcard: Go's interface
# checks (prometheus/client_golang's `var _ prometheus.Collector = ...`), Rust's anonymous
# `const _`, OCaml's `let _ =` and anonymous modules (janestreet/base's tests). Where `_` is a
# name like any other (Python's gettext alias, lodash in JavaScript), it stays a definition.
BLANKS = {
    "x.go": ("package x\n\nvar _ Collector = (*Registry)(nil)\n\n"
             "var (\n\t_ io.Reader = (*R)(nil)\n\tName = \"x\"\n)\n\nconst _ = 1\n"),
    "lib.rs": "const _: () = assert!(SIZE > 0);\nconst SIZE: usize = 1;\n",
    "t.ml": ("let _ = print_string \"x\"\nmodule _ = struct let helper = 1 end\n"
             "let%expect_test _ = ()\n"),
    "i18n.py": "_ = gettext.gettext\n",
    "index.js": "const _ = require('lodash');\n",
}


def test_a_blank_name_defines_nothing_where_it_binds_nothing() -> None:
    names = {path: [s.qualified_name for s in run(path, text).symbols]
             for path, text in BLANKS.items()}
    # An anonymous OCaml test is named by its extension (`expect_test`), as D's `unittest` is.
    assert names == {"x.go": ["x.Name"], "lib.rs": ["SIZE"], "t.ml": ["helper", "expect_test"],
                     "i18n.py": ["_"], "index.js": ["_"]}

"""`Symbol.bodiless`: a callable declared without the code that runs it, in every language
that has one. A question's callable prior weighs only callables with a body
(`search.priors`), so a wrong flag either way moves answers: an implementation marked
bodiless loses its lift, an interface method left unmarked takes its implementation's."""

from __future__ import annotations

import pytest
from extract_support import run

from indexing.records import CALLABLE_KINDS

# path, source, {qualified name of a callable: bodiless}; a name given twice (a declaration
# and its definition) lists one flag per occurrence, in source order.
CASES: dict[str, tuple[str, str, dict[str, list[bool]]]] = {
    "go": ("api.go", """package v1

// API talks to the server.
type API interface {
\t// Snapshot creates a snapshot of all current data.
\tSnapshot(ctx context.Context, skipHead bool) (SnapshotResult, error)
}

func (h *httpAPI) Snapshot(ctx context.Context, skipHead bool) (SnapshotResult, error) {
\treturn h.client.Do(ctx, skipHead)
}

func NewAPI(c Client) API { return &httpAPI{client: c} }
""", {"v1.API.Snapshot": [True], "v1.httpAPI.Snapshot": [False], "v1.NewAPI": [False]}),
    "typescript": ("reaction.ts", """export interface IReactionPublic {
    dispose(): void
    trace(enterBreakPoint?: boolean): void
}

export abstract class Derivation {
    abstract onBecomeStale(): void
    constructor(name: string)
    constructor(name?: string) {}
    track(): void {
        this.onBecomeStale()
    }
}

export function autorun(view: () => void): () => void
export function autorun(view: () => void, opts: object): () => void
export function autorun(view: any, opts?: any) {
    return () => {}
}
""", {"IReactionPublic.dispose": [True], "IReactionPublic.trace": [True],
      "Derivation.onBecomeStale": [True], "Derivation.constructor": [True, False],
      "Derivation.track": [False], "autorun": [True, True, False]}),
    "rust": ("decoder.rs", """pub trait Decoder {
    /// Attempts to decode a frame from the provided buffer of bytes.
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, Self::Error>;

    /// Called when there are no more bytes available to be read.
    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Self::Item>, Self::Error> {
        self.decode(buf)
    }
}

extern "C" {
    fn abs(input: i32) -> i32;
}

pub fn framed() {}
""", {"Decoder.decode": [True], "Decoder.decode_eof": [False], "abs": [True],
      "framed": [False]}),
    "java": ("Repo.java", """interface Repository {
    Item find(long id);
    default Item first() { return find(0); }
}

abstract class Base {
    abstract void close();
    void open() { }
}
""", {"Repository.find": [True], "Repository.first": [False], "Base.close": [True],
      "Base.open": [False]}),
    "csharp": ("Store.cs", """interface IStore { void Save(); }

abstract class Store {
    public abstract void Load();
    public void Flush() { }
}
""", {"IStore.Save": [True], "Store.Load": [True], "Store.Flush": [False]}),
    "php": ("Handler.php", """<?php
interface HandlerInterface { public function handle(array $record): bool; }

abstract class AbstractHandler {
    abstract protected function write(array $record): void;
    public function close(): void { }
}
""", {"HandlerInterface.handle": [True], "AbstractHandler.write": [True],
      "AbstractHandler.close": [False]}),
    "swift": ("Cache.swift", """protocol Cache {
    func value(forKey key: String) -> Data?
}

final class MemoryCache: Cache {
    func value(forKey key: String) -> Data? { return nil }
}
""", {"Cache.value": [True], "MemoryCache.value": [False]}),
    "kotlin": ("Storage.kt", """interface Storage {
    suspend fun getKeys(): List<String>
    fun size(): Int { return 0 }
}

fun count(s: Storage) = s.size()
""", {"Storage.getKeys": [True], "Storage.size": [False], "count": [False]}),
    "scala": ("Codec.scala", """trait Codec {
  def encode(s: String): Array[Byte]
  def name: String = "utf-8"
}
""", {"Codec.encode": [True], "Codec.name": [False]}),
    "dart": ("repo.dart", """abstract class Repository {
  /// Finds one item by its id.
  Future<Item> find(int id);
  int get count;
  Repository(this.name);
  final String name;
  void save(Item item) {
    items.add(item);
  }
}

int total(Repository r) {
  return r.count;
}
""", {"Repository.find": [True], "Repository.count": [True], "Repository.Repository": [False],
      "Repository.save": [False], "total": [False]}),
    "c": ("buf.c", """int buf_grow(struct buf *b, size_t n);

int buf_grow(struct buf *b, size_t n)
{
    return 0;
}
""", {"buf_grow": [True, False]}),
    "cpp": ("widget.cpp", """class Widget {
public:
    void draw();
    int width() const { return w; }
};

void Widget::draw() { }
""", {"Widget.draw": [True, False], "Widget.width": [False]}),
    "objc": ("View.m", """@interface View : NSObject
- (void)layout;
@end

@implementation View
- (void)layout { }
@end
""", {"View.layout": [True, False]}),
    "d": ("shapes.d", """interface Shape
{
    /// The area it covers.
    double area();
    final string name() { return "shape"; }
}

abstract class Polygon : Shape
{
    abstract int sides();
    double area() { return 0; }
    this() {}
}

extern(C) int puts(const char* s);

int twice(int n) { return 2 * n; }
""", {"Shape.area": [True], "Shape.name": [False], "Polygon.sides": [True],
      "Polygon.area": [False], "Polygon.this": [False], "puts": [True], "twice": [False]}),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_callable_without_a_body_is_bodiless(lang: str) -> None:
    path, text, expected = CASES[lang]
    got: dict[str, list[bool]] = {}
    for s in run(path, text).symbols:
        if s.kind in CALLABLE_KINDS:
            got.setdefault(s.qualified_name, []).append(s.bodiless)
    assert got == expected


# The shapes of click's `@overload`ed decorators and rich's `Protocol`s (written for this test).
PY_STUBS = '''class Reader(Protocol):
    def read(self, n: int) -> bytes: ...

    def close(self) -> None:
        """Closes the stream."""
        ...


@overload
def command(name: Callable) -> Command: ...


def command(name=None):
    return Command(name)


def on_start() -> None:
    pass


def later() -> None:
    ...  # still to come
    return None
'''


def test_a_python_function_whose_body_is_an_ellipsis_is_bodiless() -> None:
    """`...` alone, after a docstring or not, declares what another implements; `pass` is a
    body that does nothing, and `...` among statements is one of them."""
    ex = run("proto.py", PY_STUBS)
    assert [(s.name, s.bodiless) for s in ex.symbols] == [
        ("Reader", False), ("read", True), ("close", True), ("command", True),
        ("command", False), ("on_start", False), ("later", False)]

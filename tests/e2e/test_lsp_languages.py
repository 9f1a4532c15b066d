"""workspace/symbol through the real server finds a definition in each of sixteen languages
(C#, Ruby, PHP, Kotlin, Swift, Elixir, Haskell, Lua, Terraform, Solidity, SQL, Protobuf,
Dart, Zig, Erlang, and a Vue file's <script>), at its exact location: the right file, kind,
container and range, the range derived from the file's text."""

from __future__ import annotations

import shutil
from pathlib import Path

from e2e_support import StartFn, range_of
from lsprotocol import types

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"

CASES = [
    # (language, fixture file, query, name, kind, container, first text, last text)
    ("ruby", "inventory.rb", "low_stock", "low_stock", "Method", "Inventory",
     "def low_stock", "count < threshold }.keys\n    end"),
    ("php", "User.php", "guest", "guest", "Method", "User",
     "public static function guest", "return new self('guest@example.com');\n    }"),
    ("kotlin", "Cart.kt", "asPrice", "asPrice", "Method", "BigDecimal",
     "fun BigDecimal.asPrice", '"%.2f %s".format(this, currency)'),
    ("swift", "Shapes.swift", "scaled", "scaled", "Method", "extension Circle",
     "func scaled(by factor", "Circle(radius: radius * factor)\n    }"),
    ("csharp", "OrderBook.cs", "Count", "Count", "Method", "OrderBook",
     "internal int Count()", "=> _orders.Count;"),
    ("elixir", "cart.ex", "total", "total", "Function", "Shop.Cart",
     "def total(%__MODULE__{items: []})", "item.price * item.qty end)\n  end"),
    ("haskell", "Cart.hs", "addLine", "addLine", "Function", None,
     "addLine :: Line -> Cart -> Cart", "old { qty = qty old + qty new }"),
    ("lua", "strings.lua", "split", "split", "Function", "M",
     "function M.split(s, sep)", "return parts\nend"),
    ("terraform", "main.tf", "web", "web", "Object", "aws_instance",
     'resource "aws_instance" "web" {', '"${local.name_prefix}-web" })\n}'),
    ("solidity", "Vault.sol", "deposit", "deposit", "Method", "Vault",
     "function deposit()", "emit Deposited(msg.sender, msg.value);\n    }"),
    ("sql", "schema.sql", "recent_orders", "recent_orders", "Interface", None,
     "CREATE VIEW recent_orders", "INTERVAL '1 day'"),
    ("protobuf", "cart.proto", "GetCart", "GetCart", "Method", "CartService",
     "rpc GetCart(GetCartRequest)", "returns (Cart);"),
    ("dart", "cart.dart", "fromJson", "fromJson", "Constructor", "Cart",
     "Cart.fromJson(", "json['owner'] as String"),
    ("zig", "point.zig", "distance", "distance", "Method", "Point",
     "fn distance(a: Point", "a.y - b.y);\n    }"),
    ("erlang", "cache_server.erl", "handle_call", "handle_call", "Function", None,
     "handle_call({get, Key}, _From, Cache) ->", "{reply, {error, unknown_call}, Cache}."),
    ("vue", "CartLine.vue", "remove", "remove", "Function", None,
     "function remove()", 'emit("remove", props.line.sku);\n}'),
]


def position(text: str, needle: str, end: bool = False) -> tuple[int, int]:
    offset = text.index(needle) + (len(needle) if end else 0)
    before = text[:offset]
    return before.count("\n"), offset - (before.rfind("\n") + 1)


async def test_a_definition_in_each_language(start_server: StartFn, tmp_path: Path) -> None:
    root = tmp_path / "polyglot"
    for lang, name, *_ in CASES:
        (root / lang).mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / lang / name, root / lang / name)
    session = await start_server([root])
    await session.wait_idle()
    for lang, file, query, name, kind, container, first, last in CASES:
        path = root / lang / file
        found = [s for s in await session.symbols(query)
                 if s.location.uri == path.resolve().as_uri() and s.name == name]
        assert len(found) == 1, (lang, query)
        symbol = found[0]
        text = path.read_text("utf-8")
        assert symbol.kind == getattr(types.SymbolKind, kind), lang
        assert symbol.container_name == container, lang
        assert range_of(symbol.location) == (position(text, first),
                                             position(text, last, end=True)), lang


async def test_a_file_the_grammar_misreads_whole_still_has_its_definitions(
    start_server: StartFn, tmp_path: Path
) -> None:
    """TypeScript's grammar reads this file as one error (indexing/extract/recovery.py): its
    definitions come from its top-level blocks, parsed one at a time."""
    root = tmp_path / "ts"
    root.mkdir()
    path = root / "listeners.ts"
    shutil.copy(FIXTURES.parent / "recovery" / "listeners.ts", path)
    session = await start_server([root])
    await session.wait_idle()
    found = [s for s in await session.symbols("notifyListeners") if s.name == "notifyListeners"]
    assert len(found) == 1
    text = path.read_text("utf-8")
    assert found[0].location.uri == path.resolve().as_uri()
    assert found[0].kind == types.SymbolKind.Function
    assert range_of(found[0].location) == (position(text, "function notifyListeners"),
                                           position(text, "return called\n}", end=True))

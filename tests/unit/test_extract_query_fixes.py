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

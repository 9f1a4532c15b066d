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

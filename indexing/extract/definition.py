"""A code definition while it is being resolved, and the kind sets that decide what it may
contain and whether it gets a chunk of its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from indexing.extract.nodes import end_row
from indexing.records import CALLABLE_KINDS, SymbolKind

if TYPE_CHECKING:
    from tree_sitter import Node

K = SymbolKind
#: Kinds whose range can enclose other definitions.
CONTAINER_KINDS = frozenset(
    {K.CLASS, K.STRUCT, K.INTERFACE, K.ENUM, K.NAMESPACE, K.MODULE, K.OBJECT}
    | CALLABLE_KINDS
)
#: Kinds inside which a function is a method.
TYPE_KINDS = frozenset({K.CLASS, K.STRUCT, K.INTERFACE, K.ENUM, K.OBJECT})
#: Kinds that name a value rather than a body of code: no chunk of their own.
VALUE_KINDS = frozenset({K.CONSTANT, K.VARIABLE, K.FIELD, K.ENUM_MEMBER, K.PROPERTY})


@dataclass
class Definition:
    """Becomes a `Symbol` once its parent, kind and qualified name are known."""

    node: Node
    name_node: Node
    kind: SymbolKind
    name: str
    scope_parts: list[str] = field(default_factory=list)
    impl_type: str | None = None
    lead_row: int = 0
    lead_byte: int = 0
    lead_col: int = 0  # UTF-16
    doc: str = ""
    parent: Definition | None = None
    qualified: str = ""
    child_scope: str = ""
    #: Where the definition ends when its node does not (a body the grammar puts beside it,
    #: later clauses of the same function).
    end_node: Node | None = None

    @property
    def last_node(self) -> Node:
        return self.end_node or self.node

    @property
    def end_row(self) -> int:
        return end_row(self.last_node)

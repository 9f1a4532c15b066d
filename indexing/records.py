"""The facts that indexing extracts from a file, as plain values.

Every other layer (the store, search, the LSP adapter) speaks in these types, so they are the
one home for what a symbol and a chunk *are*. They are frozen so that extraction results can
cross thread and process boundaries without anyone mutating them on the way.

Positions are 0-based lines and 0-based columns counted in UTF-16 code units, because that is
what LSP clients expect by default; converting once, at extraction time, keeps every reader
free of encoding work.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple


class SymbolKind(StrEnum):
    """Kinds of definitions, named after LSP's `SymbolKind` members (lower-cased).

    Keeping the LSP names means the adapter maps kinds by name, with no second table to drift.
    """

    FILE = "file"
    MODULE = "module"
    NAMESPACE = "namespace"
    PACKAGE = "package"
    CLASS = "class"
    METHOD = "method"
    PROPERTY = "property"
    FIELD = "field"
    CONSTRUCTOR = "constructor"
    ENUM = "enum"
    INTERFACE = "interface"
    FUNCTION = "function"
    VARIABLE = "variable"
    CONSTANT = "constant"
    STRING = "string"
    ENUM_MEMBER = "enum_member"
    STRUCT = "struct"
    TYPE_PARAMETER = "type_parameter"
    OBJECT = "object"


#: Definitions of code that runs when called: what `kebab/similar` rewrites and what a question
#: about behaviour is most often answered by (`search.priors`).
CALLABLE_KINDS = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.CONSTRUCTOR})


class ChunkKind(StrEnum):
    """Why a chunk exists: a definition body, code between definitions, a doc section, or a
    plain line window over a file no grammar understands."""

    DEFINITION = "definition"
    CODE = "code"
    SECTION = "section"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open range [start, end) in LSP coordinates (0-based lines, UTF-16 columns)."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int


@dataclass(frozen=True, slots=True)
class Symbol:
    """One definition found in a file."""

    name: str
    kind: SymbolKind
    container: str | None
    qualified_name: str
    range: Span
    selection: Span
    signature: str = ""
    doc: str = ""
    #: A callable declared without the code that runs it: an interface's or protocol's method,
    #: a trait's required `fn`, an overload signature, a C prototype (`LanguageRules.
    #: signature_nodes`). A question about behaviour is answered by code that runs, so
    #: `search.priors` weighs callables with a body only.
    bodiless: bool = False


@dataclass(frozen=True, slots=True)
class Chunk:
    """A searchable piece of a file.

    `start_line`/`end_line` are 0-based and inclusive; `text` is exactly those lines (or the
    part of them a split kept). `symbol` indexes into the owning `Extraction.symbols`, so a
    hit on the chunk can be cited as that definition. `context` is a short breadcrumb
    (qualified name or heading path) used for display and for the embedding header.
    `start_col` is the UTF-16 column of the text's first character on `start_line`: 0 unless
    the chunk is a piece of a line too long for one chunk, which a citation must add.
    """

    start_line: int
    end_line: int
    text: str
    kind: ChunkKind
    symbol: int | None = None
    context: str = ""
    start_col: int = 0

    def chunk_id(self, path: str) -> str:
        """A stable id from the path and the content, never from insertion order, so the same
        tree always yields the same ids (and fusion keys)."""
        return chunk_id_for(path, self.start_line, self.text)


def text_hash(text: str) -> str:
    """The key of a text wherever it is stored by content: chunks, vectors, the vector cache."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def chunk_id_for(path: str, start_line: int, text: str) -> str:
    digest = hashlib.blake2b(digest_size=8)
    digest.update(path.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(str(start_line).encode())
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class RefKind(StrEnum):
    """How a name is used where it occurs: imported, called, mentioned, or spelled in a string.
    Declared in rank order: a usage answer lists imports and calls above bare mentions."""

    IMPORT = "import"
    CALL = "call"
    IDENTIFIER = "identifier"
    STRING = "string"


class Ref(NamedTuple):
    """One use of a name in a file, read off the syntax tree. `name` is the identifier (for a
    string, its content); `kind` a `RefKind` value; `receiver` is the text a call is made on
    (`self.store` in `self.store.write()`); `symbol` indexes into `Extraction.symbols`: the
    innermost definition the use sits in, None at top level. A definition's own name is never
    a ref.

    A flat tuple rather than a dataclass holding a `Span`: a file has thousands of refs, and
    extraction results cross process boundaries, where this pickles about 8 times faster."""

    name: str
    kind: str
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    symbol: int | None = None
    receiver: str | None = None

    @property
    def span(self) -> Span:
        return Span(self.start_line, self.start_col, self.end_line, self.end_col)


@dataclass(frozen=True, slots=True)
class Extraction:
    """Everything indexing learns from one file's text."""

    lang: str
    symbols: list[Symbol] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    #: Why a file with a grammar was indexed as plain text, in its plain line windows
    #: ("grammar crashed", "parse stalled", "parse timed out", "extraction failed"); empty
    #: when it was not. Counted as skip reason `text_only` (`IndexSummary`).
    fallback: str = ""

    @property
    def text_only(self) -> bool:
        """The grammar failed (or took too long) on the file: definitions are missing."""
        return bool(self.fallback)

    def stored_chunks(self, path: str) -> Iterator[tuple[str, Chunk, Symbol | None]]:
        """(chunk id, chunk, its definition) of each chunk a store keeps: identical text at
        the same line has one id, and one row is enough."""
        seen: set[str] = set()
        for chunk in self.chunks:
            cid = chunk.chunk_id(path)
            if cid in seen:
                continue
            seen.add(cid)
            yield cid, chunk, self.symbols[chunk.symbol] if chunk.symbol is not None else None

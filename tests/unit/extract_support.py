"""What the extraction tests share: extracting a snippet (asserting that every non-blank line
landed in a chunk, which every language must guarantee) and reading the result as tables."""

from __future__ import annotations

from indexing.extract import extract
from indexing.records import Extraction, Symbol, SymbolKind


def run(path: str, text: str) -> Extraction:
    result = extract(path, text)
    assert result is not None
    assert_covered(result, text)
    return result


def assert_covered(ex: Extraction, text: str) -> None:
    covered = {i for c in ex.chunks for i in range(c.start_line, c.end_line + 1)}
    missing = [i for i, line in enumerate(text.split("\n")) if line.strip() and i not in covered]
    assert missing == []


def table(ex: Extraction) -> list[tuple[str, SymbolKind, str | None, str]]:
    return [(s.name, s.kind, s.container, s.qualified_name) for s in ex.symbols]


def by_name(ex: Extraction, name: str) -> Symbol:
    matches = [s for s in ex.symbols if s.name == name]
    assert len(matches) == 1, [s.name for s in ex.symbols]
    return matches[0]


def spans(ex: Extraction) -> list[tuple[str, int, int, int | None, str]]:
    return [(c.kind.value, c.start_line, c.end_line, c.symbol, c.context) for c in ex.chunks]

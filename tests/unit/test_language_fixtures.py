"""Every language with definitions, on a small hand-written file in that language's usual
style: the exact definitions it holds, in order.

Each `tests/fixtures/languages/<lang>/<file>` has a `<file>.expected` beside it, one
definition a line: `name | kind | container | selection | first line of doc`, `-` for none.
A selection is `line:column-line:column` counted from 1 as an editor shows it (UTF-16
columns), its end exclusive. The fixtures hold the awkward cases of their language: Ruby's
reopened classes, C#'s partial classes, Kotlin's extension functions, Swift's extensions,
PHP's traits, Go's pointer-receiver methods, Erlang's function clauses, and so on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from extract_support import run

from indexing.detect import detect_language
from indexing.languages import definition_languages
from indexing.records import Symbol

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"
HEADER = "# name | kind | container | selection"


def fixture_files() -> list[Path]:
    return sorted(p.with_suffix("") for p in FIXTURES.glob("*/*.expected"))


def read_expected(path: Path) -> list[str]:
    lines = path.read_text("utf-8").splitlines()
    assert lines and lines[0].startswith(HEADER), path
    return [line for line in lines[1:] if line.strip()]


def row(s: Symbol) -> str:
    sel = s.selection
    where = f"{sel.start_line + 1}:{sel.start_col + 1}-{sel.end_line + 1}:{sel.end_col + 1}"
    doc = s.doc.strip().split("\n")[0].strip() if s.doc.strip() else "-"
    return f"{s.name} | {s.kind.value} | {s.container or '-'} | {where} | {doc}"


@pytest.mark.parametrize(
    "path", fixture_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_definitions_of_a_hand_written_file(path: Path) -> None:
    text = path.read_text("utf-8")
    ex = run(f"{path.parent.name}/{path.name}", text)
    assert ex.lang == path.parent.name
    assert [row(s) for s in ex.symbols] == read_expected(Path(f"{path}.expected"))
    lines = text.split("\n")
    for s in ex.symbols:  # the selection is the name as written (UTF-16 columns; ASCII here)
        sel = s.selection
        assert sel.start_line == sel.end_line, s
        written = lines[sel.start_line][sel.start_col : sel.end_col]
        assert written.strip("\"':") in s.name, (s.name, written)


def test_every_language_with_definitions_has_a_fixture() -> None:
    covered = {detect_language(p.name) for p in fixture_files()}
    assert sorted(definition_languages() - covered) == []

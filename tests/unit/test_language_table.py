"""The README's language table says what is true: every language of the catalog is in it with
its file names and aliases, and every language has the definitions it claims, kind by kind,
in its hand-written file (`tests/fixtures/languages/<lang>/`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from indexing.extract import extract
from indexing.languages import catalog, definition_languages

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "languages"
HEADER = "| language | extensions and file names | definitions | chunks | documentation |"


def table() -> dict[str, list[str]]:
    """Rows by language name: [aliases, names, definitions, chunks, documentation]."""
    lines = (REPO / "README.md").read_text("utf-8").split("\n")
    start = lines.index(HEADER) + 2
    rows: dict[str, list[str]] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        match = re.fullmatch(r"\*\*(\w+)\*\*(?: \((.*)\))?", cells[0])
        if match is None:
            rows[cells[0]] = cells[1:]
            continue
        rows[match[1]] = [match[2] or "", *cells[1:]]
    return rows


def kinds_in_fixture(lang: str) -> set[str]:
    kinds: set[str] = set()
    for path in (FIXTURES / lang).iterdir():
        if path.suffix != ".expected":
            found = extract(f"{lang}/{path.name}", path.read_text("utf-8"))
            assert found is not None and found.lang == lang
            kinds |= {s.kind.value for s in found.symbols}
    return kinds


def test_the_table_lists_every_language_and_only_those() -> None:
    rows = table()
    assert rows.pop("any other text file")[2] == "lines"
    assert list(rows) == list(catalog())


@pytest.mark.parametrize("lang", list(catalog()))
def test_a_row_says_what_is_true(lang: str) -> None:
    aliases, names, definitions, chunks, _docs = table()[lang]
    info = catalog()[lang]
    assert aliases == ", ".join(info.aliases)
    expected = [f"`{n}`" for n in (*info.extensions, *info.filenames)]
    if info.interpreters:
        expected.append("`#!` " + ", ".join(info.interpreters))
    assert names == " ".join(expected)
    assert chunks == "syntax"
    if lang not in definition_languages():
        assert definitions == "no"
        return
    claimed = set(definitions.removeprefix("yes: ").split(", "))
    assert claimed == kinds_in_fixture(lang)


def test_the_features_list_counts_the_languages_the_table_holds() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    said = re.search(r"- Languages: (\d+) are read with a grammar .*?, and (\d+) of them have\s+"
                     r"definitions extracted", readme)
    assert said is not None
    assert (int(said[1]), int(said[2])) == (len(catalog()), len(definition_languages()))

"""One definition of "a word in code": the splitter, the FTS5 tokenizer, the query parser and
the symbol matcher agree, in every script, and lexical search finds non-ASCII names by their
whole name and by their parts."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from indexing import text
from indexing.extract import extract
from indexing.store import FileWrite, Store, text_hash
from indexing.text import (
    FTS_TOKENIZER,
    identifier_parts,
    split_identifier,
    token_parts,
    tokens,
    words,
)
from search.engine import Searcher
from search.query import highlight_words, parse, route, term_clause
from search.symbols import SymbolMatcher
from search.types import SearchRequest

SPLITS = [
    ("getUserById", ["get", "user", "by", "id"]),
    ("GetUserByID", ["get", "user", "by", "id"]),
    ("get_user_by_id", ["get", "user", "by", "id"]),
    ("HTTPServer2", ["http", "server", "2"]),
    ("getGrößeInPixel", ["get", "größe", "in", "pixel"]),
    ("berechne_größe", ["berechne", "größe"]),
    ("maxДлина", ["max", "длина"]),
    ("ÜberKlasse", ["über", "klasse"]),
    ("名前を取得", ["名前を取得"]),
    ("gro\u0308ßeÄndern", ["gro\u0308ße", "ändern"]),  # a decomposed ö stays in its word
    ("ǅungla", ["ǆungla"]),  # a title-case letter starts a word
]


@pytest.mark.parametrize(("word", "parts"), SPLITS)
def test_identifiers_split_by_case_in_every_script(word: str, parts: list[str]) -> None:
    assert split_identifier(word) == parts


def test_words_parts_and_tokens_agree_on_non_ascii_names() -> None:
    source = "def berechne_größe(): getGrößeInPixel + 名前を取得 + maxДлина"
    assert tokens(source) == ["def", "berechne_größe", "getGrößeInPixel", "名前を取得",
                              "maxДлина"]
    assert identifier_parts(source) == "berechne größe get größe in pixel max длина"
    assert words(source) == "def berechne größe get größe in pixel 名前を取得 max длина"
    assert token_parts("größe(x), __") == ["größe", "x", "__"]


def test_ascii_fast_paths_give_the_unicode_answer() -> None:
    sample = Path(__file__).read_text(encoding="utf-8")
    ascii_text = "".join(c for c in sample if c.isascii())
    assert text._TOKEN.findall(ascii_text) == text._ASCII_TOKEN.findall(ascii_text)
    assert text._IDENT.findall(ascii_text) == text._ASCII_IDENT.findall(ascii_text)
    for word in text._ASCII_IDENT.findall(ascii_text) + ["XMLHttpRequest2", "a1B2", "ABC"]:
        shaped = [m.span() for m in text._CAMEL.finditer(text._case_shape(word))]
        assert shaped == [m.span() for m in text._CAMEL.finditer(word)], word


AGREE = [
    "def berechne_größe(): return getGrößeInPixel(x) * 2",
    "名前を取得 = 1; maxДлина := ΑΒΓ_δ",
    "café naïve façade Ærø résumé",
    "decomposed gro\u0308ße and cafe\u0301",
    "x٣y ²x ½y Ⅻabc ǅx",
    "path/to/file_name.py:12 a-b a.b a::b",
    "עברית ٱلعربية ไทย 한국어 हिंदी",  # both cut Devanagari at its vowel signs
]


@pytest.mark.parametrize("sample", AGREE)
def test_tokens_are_cut_where_fts5_cuts_them(sample: str) -> None:
    """Byte spans, so a disagreement on any boundary shows; `porter` only rewrites terms."""
    options = FTS_TOKENIZER.split()
    assert options[:2] == ["porter", "unicode61"]
    tokenizer = apsw.Connection(":memory:").fts5_tokenizer(
        "unicode61", [o.strip("'") for o in options[2:]])
    data = sample.encode("utf-8")
    fts = [(start, end) for start, end, *_ in tokenizer(data, apsw.FTS5_TOKENIZE_DOCUMENT, None)]
    ours = []
    for match in text._TOKEN.finditer(sample):
        start = len(sample[: match.start()].encode("utf-8"))
        ours.append((start, start + len(match.group(0).encode("utf-8"))))
    assert ours == fts


def test_the_query_side_splits_as_the_index_does() -> None:
    assert term_clause("getGrößeInPixel") == '("get größe in pixel" OR "getGrößeInPixel")'
    assert term_clause("größe") == '"größe"'
    assert highlight_words(("getGrößeInPixel",)) == ("getgrößeinpixel", "größe", "pixel",
                                                     "get")
    for name in ("getGrößeInPixel", "名前を取得", "maxДлина"):
        assert route(parse(name)).name == "definition", name


SOURCE = '''def berechne_größe():
    return 1


名前を取得 = 1


def getGrößeInPixel():
    return berechne_größe() * 2


def unrelated():
    return 0
'''


@pytest.fixture
def store(tmp_path: Path) -> Store:
    extraction = extract("maße.py", SOURCE)
    assert extraction is not None
    store = Store(tmp_path / "index")
    with store.batch():
        store.write_file(FileWrite("maße.py", len(SOURCE), 1, text_hash(SOURCE), "python",
                                   SOURCE, extraction))
    return store


@pytest.mark.parametrize(
    ("query", "line"),
    [
        ("berechne_größe", "def berechne_größe():"),
        ("getGrößeInPixel", "def getGrößeInPixel():"),
        ("名前を取得", "名前を取得 = 1"),  # a value: its text is in the module's code chunk
        ("pixel", "def getGrößeInPixel():"),
        ("größe pixel", "def getGrößeInPixel():"),
        ("berechne", "def berechne_größe():"),
    ],
)
def test_lexical_search_finds_non_ascii_names_whole_and_by_parts(
    store: Store, tmp_path: Path, query: str, line: str
) -> None:
    result = Searcher(tmp_path, store).search(SearchRequest(query=query, mode="lexical"))
    assert result.hits, query
    assert result.hits[0].snippet.text.splitlines()[0] == line


def test_a_part_finds_every_name_that_holds_it(store: Store, tmp_path: Path) -> None:
    result = Searcher(tmp_path, store).search(SearchRequest(query="größe", mode="lexical"))
    found = {h.symbol for h in result.hits}
    assert {"berechne_größe", "getGrößeInPixel"} <= found
    assert "unrelated" not in found


def test_the_symbol_matcher_sees_the_same_words(store: Store) -> None:
    matcher = SymbolMatcher(store.all_symbols())
    by_word = matcher.match("größe")
    assert {m.row.symbol.name for m in by_word.items} == {"berechne_größe", "getGrößeInPixel"}
    assert [m.row.symbol.name for m in matcher.match("gip").items] == ["getGrößeInPixel"]
    assert [m.row.symbol.name for m in matcher.match("名前").items] == ["名前を取得"]

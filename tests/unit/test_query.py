"""Query syntax and intent routing: pure functions, no index."""

from __future__ import annotations

import pytest

from search.query import (
    defined_name,
    fill_terms,
    marked_name,
    name_in_words,
    name_key,
    name_spellings,
    parse,
    reads_as_sentence,
    route,
)

PROSE = [
    "returns the user's display name",
    "what's the default timeout",
    "calls close() and flush() before exit",
    "what happens when x > 5",
    "a/b testing of the C++ parser",
    "list of items [1, 2, 3] in order",
    # Code mentioned in backticks, a URL, one-letter words: still a sentence.
    "Get a `PayloadActionCreator` type for a passed `CaseReducer` @internal",
    "return True if T is `any`, otherwise return False taken from https://example.com/x",
    "where do I set `max_retries`",
]
CODE = ["foo(bar, 1)", "@storage_var", "if err != nil", "x = foo(a, b)", "std::vector<int>",
        "users[id]", "a -> b", "$HOME", "a = b + 1", "https://example.com/api/v1?id=3"]


@pytest.mark.parametrize("query", PROSE)
def test_prose_with_apostrophes_or_calls_stays_words(query: str) -> None:
    parsed = parse(query)
    assert parsed.shape == "terms"
    assert route(parsed).name == "concept"
    assert reads_as_sentence(parsed)  # whatever the mode, it reads definitions whole
    assert parsed.text == " ".join(query.split())


@pytest.mark.parametrize("query", CODE)
def test_a_query_that_is_all_code_is_exact_text(query: str) -> None:
    parsed = parse(query)
    assert parsed.shape == "code" and parsed.is_exact and parsed.exact_text == query
    assert route(parsed).name == "exact_text" and route(parsed).rule == "code fragment"
    assert not reads_as_sentence(parsed)


def test_quotes() -> None:
    quoted = parse('"the user\'s name"')
    assert (quoted.shape, quoted.exact_text, quoted.text) == ("quoted", "the user's name",
                                                              "the user's name")
    assert route(quoted).rule == "quoted string"
    raw = parse("'names:UserStore OR body:cache*'")
    assert (raw.shape, raw.fts_raw) == ("raw", "names:UserStore OR body:cache*")
    assert route(raw).name == "lexical"
    # An apostrophe is FTS5 syntax only when the query starts and ends with one.
    for text in ("'twas the night", "what's up'", "rock 'n' roll"):
        assert parse(text).shape == "terms", text


def test_backticks_quote_like_double_quotes() -> None:
    # A whole query in backticks is Markdown's inline code: exact text, without the backticks.
    code = parse("`session.get(url)`")
    assert (code.shape, code.exact_text) == ("quoted", "session.get(url)")
    assert route(code).name == "exact_text"
    # Several backticked names are a list of words, not one piece of code.
    listed = parse("`retry` `backoff`")
    assert listed.shape == "terms" and route(listed).name == "concept"


def test_identifiers_go_definitions_first() -> None:
    for text, symbol in [("getUserById", "getUserById"), ("a.b", "a.b"), ("ns::fn", "ns::fn"),
                         ("slugify()", "slugify"), ("where is slugify defined", "slugify")]:
        intent = route(parse(text))
        assert (intent.name, intent.symbol) == ("definition", symbol), text
        assert not reads_as_sentence(parse(text)), text


def test_empty() -> None:
    assert parse("   ").shape == "empty"
    assert route(parse("")).name == "lexical"


def test_the_fill_splits_a_term_that_is_several_names() -> None:
    assert fill_terms(("cfg", "parse_config(settings_path)")) == (
        "cfg", "parse_config", "settings_path")
    # Function words go; a one-letter piece ("s" of "user's") matches everything.
    assert fill_terms(("the", "user's", "name", "user")) == ("user", "name")
    assert fill_terms(("the", "of")) == ("the", "of")


def test_a_contracted_function_word_stays_one() -> None:
    # "what's" was the word "whats" to the function-word test, so its "what" went into the
    # any-term fill and matched every chunk that says "what".
    assert fill_terms(parse("what's the default timeout").terms) == ("default", "timeout")
    assert fill_terms(parse("why doesn't the retry stop").terms) == ("why", "retry", "stop")
    assert fill_terms(parse("where’s the config read").terms) == ("config", "read")
    assert fill_terms(("user's", "name")) == ("user", "name")  # not a function word


@pytest.mark.parametrize(("query", "name"), [
    ("digest auth", "DigestAuth"), ("Raw host", "raw_host"), ("http error", "HTTPError"),
    ("utf 8 decode", "utf8_decode"), ("utf8 decode", "utf8_decode"),
    ("use client default", "UseClientDefault"),
])
def test_a_name_typed_as_words_has_the_names_key(query: str, name: str) -> None:
    parsed = parse(query)
    assert reads_as_sentence(parsed)  # still answered as words
    assert name_in_words(parsed) == name_key(name)


def test_a_name_typed_as_words_is_looked_up_as_code_spells_it() -> None:
    assert name_spellings(parse("Digest auth")) == (
        "digest_auth", "DIGEST_AUTH", "DigestAuth", "digestAuth")
    assert name_spellings(parse("utf8 decode")) == (
        "utf8_decode", "UTF8_DECODE", "Utf8Decode", "utf8Decode")
    assert name_spellings(parse("how are the digest auth headers built once more")) == ()


@pytest.mark.parametrize("query", [
    "DigestAuth",  # one word: an identifier, which goes definitions-first already
    "how are the digest auth headers built once more",  # more words than a name has
    "digest auth?", "digest_auth header", '"digest auth"', "the user's name",
])
def test_other_queries_spell_no_name(query: str) -> None:
    assert name_in_words(parse(query)) is None


@pytest.mark.parametrize(("query", "name"), [
    ("#updateTimers", "#updateTimers"), (" #clear_timers ", "#clear_timers"),
    ("#include", "#include"), ("#include <stdio.h>", None), ("this.#updateTimers()", None),
    ("#[derive(Debug)]", None), ("updateTimers", None),
    # Ruby's (and Elixir's) predicates, bang methods and setters, alone or qualified.
    ("empty?", "empty?"), (" bad_request? ", "bad_request?"), ("save!", "save!"),
    ("name=", "name="), ("Response#ok?", "Response#ok?"),
    ("Rack::Utils.escape!", "Rack::Utils.escape!"),
    ("why?", "why?"), ("is it empty?", None), ("empty??", None), ("a == b", None),
    ("x != nil", None), ("?", None), ("foo?()", None),
    # Lisp-family names: words joined by `-`, arrows, earmuffs and plus-marked constants.
    ("update-in-place", "update-in-place"), ("valid-key?", "valid-key?"),
    ("set-car!", "set-car!"), ("string->symbol", "string->symbol"), ("->Record", "->Record"),
    ("*max-depth*", "*max-depth*"), ("+eps+", "+eps+"), ("built-in", "built-in"),
    ("-map", "-map"), ("--each-indexed", "--each-indexed"), ("-as->", "-as->"),
    ("some->", "some->"), ("-->", None), ("x-", None),
    ("well-known rule", None), ("a-b-", None), ("-", None), ("*x", None), ("2-3", None),
])
def test_a_marked_name_is_one_name_with_its_mark_alone(query: str, name: str | None) -> None:
    # Whether the index defines it is the searcher's question (`Searcher._defined_mark`).
    assert marked_name(parse(query)) == name


@pytest.mark.parametrize(("symbol", "name"), [
    ("#updateTimers", "#updateTimers"), ("Response#ok?", "ok?"), ("Rack::Utils.escape", "escape"),
    ("a.b.c", "c"), ("plain", "plain"),
])
def test_the_name_a_qualified_symbol_is_defined_by(symbol: str, name: str) -> None:
    assert defined_name(symbol) == name

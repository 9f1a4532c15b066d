"""From what a user typed to what the store can run.

User text never reaches a store unescaped: every term is quoted (`indexing.lexical_query`),
so `"`, `(`, `*`, `:`, `^`, `NEAR`, `AND`, `OR` and a bare `-` are just characters. Only a
query wrapped in single quotes is passed through as raw FTS5, because the user asked for that
syntax (a store that reads no FTS5 refuses it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from indexing import filters
from indexing.lexical_query import fts5_term as term_clause  # noqa: F401  (its old home)
from indexing.text import (
    IDENTIFIER_START,
    WORD_CHAR,
    has_word,
    split_identifier,
    tokens,
)
from search.types import InvalidQuery

#: `any` is never what `parse` returns: an intent that wants a ranking over any of the words
#: (the identifier parts of a piece of code, for `similar`) asks for it.
QueryShape = Literal["empty", "raw", "quoted", "code", "terms", "any"]

# Signs that a string is code rather than words: a call with arguments, a decorator or
# attribute, operators, brackets, backticks, `$`/`#` sigils. An apostrophe is not one: it sits
# inside ordinary English ("the user's name", "what's").
_CODE_SIGN = re.compile(r"\w\(.+\)|^@\w|[=;{}\[\]<>|&+*/%!`$#\\]|->|=>")
# A token that reads as an English word: letters (one apostrophe inside), or the one-letter
# words `a` and `I`, maybe a trailing punctuation mark. Code keywords are not prose even
# though they look like words.
_PROSE_TOKEN = re.compile(r"^(?:[A-Za-z][a-z]+(?:'[a-z]+)?|[aAI])[,.?!:;]?$")
# Code or a literal mentioned inside a sentence, the way Markdown, chat and doc comments write
# them: a span in backticks, a URL. They are neither prose nor a sign that the words around
# them are code ("Get a `PayloadAction` type for a passed `CaseReducer`").
_MENTION = re.compile(r"`[^`\n]*`|\bhttps?://\S+")
_CODE_KEYWORDS = frozenset({
    "if", "else", "elif", "for", "while", "return", "nil", "null", "none", "true", "false",
    "let", "const", "var", "fn", "func", "def", "new", "self", "this", "not", "and", "or",
    "in", "is", "err", "await", "async", "import", "from", "yield", "class", "struct",
    "pub", "impl", "type", "mut", "static", "void", "int", "str", "bool",
})


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """What the user typed, understood as syntax. `shape` says how the lexical arm reads it;
    `text` is what a vector arm embeds (the query without its enclosing quotes); `terms` are
    its words, for every shape that has any."""

    raw: str
    shape: QueryShape
    terms: tuple[str, ...] = ()
    exact_text: str = ""
    fts_raw: str = ""

    @property
    def text(self) -> str:
        if self.shape == "raw":
            return self.fts_raw
        if self.shape == "quoted":
            return self.exact_text
        return " ".join(self.raw.split())

    @property
    def is_exact(self) -> bool:
        """Read as exact text by the lexical arm (grep semantics)."""
        return self.shape in ("quoted", "code")


#: The most words one search ANDs together. FTS5's cost grows faster than their number (a
#: query of 1,000 words runs for seconds, 3,000 for a minute, in one statement no
#: cancellation reaches), while a question is seldom 40 words: 200 of them take a few
#: milliseconds. Quoted text is found as text, at any length.
MAX_TERMS = 200


def too_many_terms(count: int) -> str:
    return (f"the query has {count:,} words; a search by words takes at most {MAX_TERMS}: "
            "shorten it, or put it in quotes to find it as exact text")


def check_terms(parsed: ParsedQuery) -> None:
    """Raises InvalidQuery for a query that ANDs more than `MAX_TERMS` words (as read for its
    intent: `similar` reads code as any of its names, which this does not bound)."""
    count = (len(parsed.fts_raw.split()) if parsed.shape == "raw"
             else len(parsed.terms) if parsed.shape == "terms" else 0)
    if count > MAX_TERMS:
        raise InvalidQuery(too_many_terms(count))


def parse(query: str) -> ParsedQuery:
    text = query.strip()
    if not text:
        return ParsedQuery(query, "empty")
    if len(text) >= 2 and text[0] == "'" and text[-1] == "'":
        inner = text[1:-1].strip()
        if not inner:
            raise InvalidQuery("raw FTS5 query is empty: put an expression between the quotes")
        return ParsedQuery(query, "raw", fts_raw=inner)
    terms = tuple(t for t in text.split() if has_word(t))
    quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in '"`' and len(text[1:-1]) > 0
    if quoted and not (text[0] == "`" and "`" in text[1:-1]):  # "x" or `x`, not `a` or `b`
        inner = text[1:-1]
        return ParsedQuery(query, "quoted", tuple(t for t in inner.split() if has_word(t)),
                           exact_text=inner)
    if not terms or is_code_fragment(text):
        return ParsedQuery(query, "code", terms, exact_text=text)
    return ParsedQuery(query, "terms", terms=terms)


def is_code_fragment(text: str) -> bool:
    """The whole query is code: it carries a sign of code (`foo(bar, 1)`, `@storage_var`,
    `a != b`, `x[0]`) and at most a few word-like tokens around it, so prose that merely
    mentions code ("calls close() and flush() before exit", "the user's name") stays prose.
    `foo()`, `a.b` and `a::b` are not code fragments: they stay symbol-like and go
    definitions-first. Backticked spans and URLs are set aside first: a query that is one of
    them alone is code (a literal), and words around them are judged on their own."""
    rest, mentions = _MENTION.subn(" ", text)
    if mentions and not rest.strip(" ,.;:!?"):
        return mentions == 1  # a URL alone is a literal; `a`, `b` are the words of a list
    if not _CODE_SIGN.search(rest):
        return False
    tokens = rest.split()
    prose = sum(1 for t in tokens if _PROSE_TOKEN.match(t)
                and t.rstrip(",.?!:;").lower() not in _CODE_KEYWORDS)
    return prose * 2 < len(tokens) and prose < 3


def content_terms(terms: tuple[str, ...]) -> tuple[str, ...]:
    """The terms that carry meaning (all of them if every one is a function word)."""
    kept = tuple(t for t in terms if _word(t) not in COMMON_WORDS)
    return kept or terms


#: What follows the apostrophe of an English contraction: "what's", "we'll", "doesn't".
_CONTRACTED = frozenset({"s", "re", "ll", "ve", "d", "m", "t"})
_NEGATED = {"can": "can", "won": "will", "shan": "shall"}


def _word(term: str) -> str:
    """A term as one lower-case word, a contraction as the word it contracts ("what's" is
    "what", "doesn't" is "does"), so that a function word stays one when contracted."""
    parts = [t.lower() for t in tokens(term)]
    if len(parts) == 2 and parts[1] in _CONTRACTED and ("'" in term or "\u2019" in term):
        head = parts[0]
        if parts[1] == "t":  # "doesn't", and the irregular "can't", "won't", "shan't"
            return _NEGATED.get(head, head[:-1] if head.endswith("n") else head)
        return head
    return "".join(parts)


def fill_terms(terms: tuple[str, ...]) -> tuple[str, ...]:
    """The words of the any-term fill. A term that is several tokens (`parse_config(path)`,
    `len(errs)`) matches only as their phrase, which prose that mentions a call seldom holds
    ("cfg = parse_config(settings_path)" found nothing at all); in the fill, each of its
    tokens of two or more characters counts on its own."""
    words: dict[str, None] = {}
    for term in content_terms(terms):
        parts = tokens(term)
        kept = [p for p in parts if len(p) > 1] if len(parts) > 1 else []
        for word in kept or [term]:
            words.setdefault(word, None)
    return tuple(words)


# English function words: too common to mark or cite ("a" would light up inside "async"), and
# left out of the any-term fill, where they match nearly every chunk and add no ranking signal.
COMMON_WORDS = frozenset({"a", "an", "the", "of", "to", "in", "is", "it", "on", "at", "as", "and",
                       "or", "for", "with", "that", "this", "from", "be", "are", "we", "do",
                       "how", "what", "where", "which", "when", "does"})


def highlight_words(terms: tuple[str, ...]) -> tuple[str, ...]:
    """Lower-cased words to mark in snippets: each term and its identifier parts, longest
    first, without one-letter words and English function words."""
    words: set[str] = set()
    for term in terms:
        for word in tokens(term):
            words.add(word.lower())
            words.update(split_identifier(word))
    kept = {w for w in words if len(w) > 1 and w not in COMMON_WORDS}
    return tuple(sorted(kept, key=lambda w: (-len(w), w)))


def glob_to_regex(glob: str) -> str:
    """The regex a path glob filters by (`indexing.filters` owns the translation); a glob
    that does not translate is an `InvalidQuery`."""
    try:
        return filters.glob_to_regex(glob)
    except filters.InvalidGlob as exc:
        raise InvalidQuery(str(exc)) from exc


@dataclass(frozen=True, slots=True)
class Intent:
    """What the user is after, and the rule that decided it (reported in `meta.intent`)."""

    name: str  # definition | exact_text | concept | usage | similar | lexical
    rule: str
    symbol: str = ""  # the identifier a definition or usage query names


# An identifier as `indexing.text` defines one, or with `$` in it (JavaScript, PHP).
_NAME = f"(?:{IDENTIFIER_START}|\\$)(?:{WORD_CHAR}|\\$)*"
_IDENTIFIER = re.compile(f"^{_NAME}(?:(?:\\.|::|#){_NAME})*(?:\\(\\))?$")
_FIND = re.compile(
    r"^(?:find|locate|goto|go to|definition of|where is|where's)\s+(?:the\s+)?"
    r"(?:function\s+|class\s+|method\s+|type\s+)?(\S+?)(?:\s+(?:defined|declared|implemented))?"
    r"\s*\??$",
    re.IGNORECASE,
)


#: Questions about uses of a name, each with the rule `meta.intent` reports.
_USAGE: tuple[tuple[str, re.Pattern[str]], ...] = tuple((rule, re.compile(pattern, re.I)) for
                                                        rule, pattern in (
    ("who calls X", r"^who\s+(?:calls|uses|imports|references)\s+(?:the\s+)?"
                    r"(?:function\s+|method\s+|class\s+|type\s+)?(\S+?)\s*\??$"),
    ("where is X used", r"^where\s+(?:is|are)\s+(?:the\s+)?(\S+?)\s+"
                        r"(?:used|called|referenced|imported)\s*\??$"),
    ("usages of X", r"^(?:find\s+)?(?:all\s+)?(?:usages?|uses|callers|call\s+sites)\s+of\s+"
                    r"(\S+?)\s*\??$"),
    ("references to X", r"^(?:find\s+)?(?:all\s+)?(?:references?|refs?)\s+(?:to|of)\s+"
                        r"(\S+?)\s*\??$"),
))


#: A question, by its first word or its mark: "how does", "where do we", "what happens when",
#: "is there", "can I", "...?". Its answer is usually code that does something (`search.priors`).
_AUXILIARIES = r"is|are|does|do|did|can|could|should|will|would|has|have"
_QUESTION = re.compile(
    rf"^\W*(?:how|where|what|when|which|why|who|whose|{_AUXILIARIES})\b|\?\s*$",
    re.IGNORECASE,
)
_ASKS = rf"(?:{_AUXILIARIES}|was|were|happens?|gets?)"
_WH = r"(?:how|where|what|when|why)"
#: ... or after a leading clause: "in what order do the hooks run", "if I pass no credentials,
#: where does the client find them", "after an error, do we retry". A docstring's clause
#: after a comma is relative ("..., which is cached", "..., when set"), so a question word
#: there counts only with the verb that asks. On the eight eval trees these add none of the
#: 1,098 generated docstring sentences and 20 of the 531 hand-written questions (489 -> 509).
_CLAUSE_QUESTION = re.compile(
    rf"^\W*(?:in|at|on|for|from|by|with|to|under|after|before|during)\s+{_WH}\b"
    rf"|(?:[,;:]|\s[-\u2013\u2014])\s*{_WH}\s+(?:\w+\s+)?{_ASKS}\b"
    rf"|(?:[,;:]|\s[-\u2013\u2014])\s*{_ASKS}\s+(?:i|we|you|it|they)\b",
    re.IGNORECASE,
)
QUESTION = "question"
#: The rule that read an unquoted query as code. It is a guess: `auto` answers by words when
#: no file holds the text (`search.engine`).
CODE_FRAGMENT = "code fragment"
#: The rules of a name with a mark that the index defines (`marked_name`): a `#name`, and a
#: name that ends in `?`, `!` or `=`.
PRIVATE_NAME = "private name"
MARKED_NAME = "name with a mark"
#: The rule when that guess found nothing as text.
CODE_NOT_FOUND = "code fragment not found as text"
#: "where is X defined", "find X", "definition of X": the question is only about X.
FIND_PHRASE = "find phrase"
#: "find option" where the index defines `findOption`: the words are that name, not a find.
FIND_WORDS_NAME = "find phrase that spells a defined name"


def is_question(text: str) -> bool:
    text = text.strip()
    return _QUESTION.search(text) is not None or _CLAUSE_QUESTION.search(text) is not None


def usage_question(text: str) -> Intent | None:
    """"who calls X", "where is X used", "usages of X", "references to X" (and close
    variants): a usage intent naming X, or None."""
    for rule, pattern in _USAGE:
        found = pattern.match(text.strip().strip("`"))
        if found:
            name = found.group(1).strip("`'\"")
            if _IDENTIFIER.match(name):
                return Intent("usage", rule, _bare(name))
    return None


def route(parsed: ParsedQuery) -> Intent:
    """Decide the intent for `mode: auto`. Usage questions go to refs, identifiers go
    definitions-first, quoted text and code go to exact text, and everything else is natural
    language for hybrid search."""
    usage = usage_question(parsed.raw) if parsed.shape in ("terms", "code") else None
    if usage is not None:
        return usage
    if parsed.shape == "quoted":
        return Intent("exact_text", "quoted string")
    if parsed.shape == "code":
        return Intent("exact_text", CODE_FRAGMENT)
    if parsed.shape == "raw":
        return Intent("lexical", "raw FTS5 expression")
    if parsed.shape == "empty":
        return Intent("lexical", "empty query")
    text = " ".join(parsed.terms)
    if len(parsed.terms) == 1 and _IDENTIFIER.match(text):
        return Intent("definition", "identifier", _bare(text))
    found = _FIND.match(text)
    if found and _IDENTIFIER.match(found.group(1)):
        return Intent("definition", FIND_PHRASE, _bare(found.group(1)))
    return Intent("concept", QUESTION if is_question(parsed.raw) else "natural language")


#: A name with a mark that code allows in it and prose reads otherwise: a JavaScript or
#: TypeScript private member's `#` (`#updateTimers`), or a Ruby or Elixir predicate's `?`
#: (`empty?`), a bang method's `!` (`save!`) or a Ruby setter's `=` (`name=`), alone or after
#: its container (`Response#ok?`). The `#` reads as code, and `#include` should stay so; the
#: `?` reads as a question, and `why?` should stay one. So it names a definition only when the
#: index defines it (`search.engine.Searcher._defined_mark`): on rack, 8 of the 9 names a
#: definition-first search missed in `auto` were predicates, answered as questions.
#: Lisp-family names are marked too, by the characters they are spelled with: words joined by
#: `-` (`update-in-place`, `valid-key?`, `string->symbol`, dash.el's `-map`, `--map` and
#: `-as->`), `*earmuffs*` and `+constants+`.
#: Prose reads `built-in` and `*important*` otherwise, so the same check applies.
_LISP_NAME = (f"[*+]{_NAME}(?:-+>?{WORD_CHAR}+)*[*+]"
              f"|(?=\\S*-)-*>?{_NAME}(?:-+>?{WORD_CHAR}+)*(?:-+>+)?[?!*]?")

_MARKED_NAME = re.compile(f"#{_NAME}|(?:{_NAME}(?:\\.|::|#))*{_NAME}[?!=]|{_LISP_NAME}")


def marked_name(parsed: ParsedQuery) -> str | None:
    """The whole query when it is one name with a mark (`_MARKED_NAME`), or None."""
    text = parsed.raw.strip()
    return text if _MARKED_NAME.fullmatch(text) else None


def defined_name(symbol: str) -> str:
    """The name a definition of `symbol` has: `A::b`, `A.b` and Ruby's `A#b` name `b`; a
    leading `#` is part of a private name."""
    if symbol.startswith("#"):
        return symbol
    return symbol.replace("::", ".").replace("#", ".").rsplit(".", 1)[-1]


#: A word of a name typed apart ("digest auth" for `DigestAuth`, "utf 8 decode" as
#: `split_identifier` cuts `utf8_decode`): ASCII letters and digits. Five words at most: a
#: longer run of plain words is a sentence, not a name.
_NAME_WORD = re.compile(r"[A-Za-z0-9]+\Z")
MAX_NAME_WORDS = 5


def name_key(name: str) -> str:
    """A name with its case and separators dropped: `DigestAuth`, `digest_auth` and the words
    "digest auth" all give "digestauth"."""
    return "".join(split_identifier(name)).lower()


def name_in_words(parsed: ParsedQuery) -> str | None:
    """The `name_key` of the name a query spells as separate words, or None. Someone who
    types "raw host" or "use client default" is often after `raw_host` or
    `UseClientDefault`; routing still answers them as words (they may just as well be a
    topic), and the definition with exactly that name is put first among the hits found."""
    words = parsed.raw.split()
    if (parsed.shape != "terms" or not 2 <= len(words) <= MAX_NAME_WORDS
            or not all(_NAME_WORD.match(w) for w in words)):
        return None
    return "".join(words).lower()


def name_spellings(parsed: ParsedQuery) -> tuple[str, ...]:
    """How code most often writes the name a query spells as words (`name_in_words`):
    snake_case, SCREAMING_SNAKE_CASE, PascalCase and camelCase, so that its definitions can be
    looked up by name (`SearchStore.definition_lines`) when no hit is one. A name spelled
    another way (`HTTPError` from "http error") is still lifted when a hit defines it."""
    if name_in_words(parsed) is None:
        return ()
    words = [w.lower() for w in parsed.raw.split()]
    snake = "_".join(words)
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    return tuple(dict.fromkeys((snake, snake.upper(), camel[0].upper() + camel[1:], camel)))


def reads_as_sentence(parsed: ParsedQuery) -> bool:
    """Words that `auto` would answer by meaning, whatever mode the request set: not a
    name, a quoted text, code or a question about a name's uses."""
    return route(parsed).name == "concept"


def _bare(identifier: str) -> str:
    return identifier.removesuffix("()")


#: A word that is spelled as code: a capital after its first letter or at its start, an
#: underscore, a digit, a call, a member or a path.
_CODE_SPELLED = re.compile(r"^.+[A-Z]|^[A-Z]|_|\d|\(\)|\.|::")


def spelled_as_code(word: str) -> bool:
    return _CODE_SPELLED.search(word) is not None


def asked_name(parsed: ParsedQuery) -> tuple[str, ParsedQuery]:
    """The name a query asked as a definition names, and the query as the lexical arm then
    reads it. "where is Attribute defined" asks for `Attribute` and nothing else, so it is
    searched for alone: its other words matched every chunk that says "where" or "defined"
    above the class. Otherwise the first word spelled as code ("Attribute class"), alone too;
    else the last word, with the query read whole, since plain words may not be a name."""
    routed = route(parsed)
    if routed.name == "definition" and routed.symbol:
        if routed.rule == FIND_PHRASE:
            return routed.symbol, parse(routed.symbol)
        return routed.symbol, parsed
    spelled = [w for w in parsed.raw.split() if _IDENTIFIER.match(w) and spelled_as_code(w)]
    if spelled:
        return _bare(spelled[0]), parse(spelled[0])
    return _bare(parsed.terms[-1]), parsed

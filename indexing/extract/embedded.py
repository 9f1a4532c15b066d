"""Code embedded in another file: `<script>` blocks of HTML, Vue, Svelte and Astro (and Astro's
frontmatter), and fenced code blocks of Markdown.

Each block is parsed with its own language's grammar over the host file's bytes, limited to
the block (tree-sitter's included ranges), so every node, definition and chunk it yields is
at its true position in the host file. The host's own chunks leave the block's lines to it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tree_sitter import Parser, Query, QueryCursor, Range

from indexing.chunking import LineSpan
from indexing.extract.code import definitions, to_symbol
from indexing.extract.code_chunks import code_chunks
from indexing.extract.definition import Definition
from indexing.extract.nodes import MAX_DEF_DEPTH, end_row
from indexing.extract.refs import extract_refs
from indexing.grammars import get_language, parse
from indexing.language_rules import language_rules
from indexing.languages import canonical
from indexing.positions import SourceText
from indexing.records import Chunk, Extraction, Ref, Symbol

if TYPE_CHECKING:
    from tree_sitter import Node

#: `<script type="...">` values that hold code, and the language they hold.
_SCRIPT_TYPES = {
    "": "javascript", "module": "javascript", "text/javascript": "javascript",
    "application/javascript": "javascript", "text/babel": "javascript", "text/jsx": "javascript",
    "text/typescript": "typescript", "application/typescript": "typescript",
    "application/json": "json", "application/ld+json": "json", "importmap": "json",
}


@dataclass(frozen=True, slots=True)
class Region:
    """One block parsed on its own: its language, the byte ranges its code occupies, and the
    lines it takes from the host's chunks (a `<script>` element's, tags included)."""

    lang: str
    ranges: tuple[Range, ...]
    lines: LineSpan
    #: Its parse, when whoever found the block already made it (`indexing.extract.recovery`
    #: parses every block to decide whether to use them).
    root: Node | None = field(default=None, compare=False)


def _lines(node: Node) -> LineSpan:
    return node.start_point.row, end_row(node)


def script_regions(root: Node, src: SourceText) -> list[Region]:
    """`<script>` elements (their `lang` or `type` says the language; JavaScript by default;
    a template `type` is not code) and Astro's frontmatter (TypeScript)."""
    regions: list[Region] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "script_element":
            lang = _script_language(node, src)
            text = next((c for c in node.named_children if c.type == "raw_text"), None)
            if lang is not None and text is not None:
                regions.append(Region(lang, (text.range,), _lines(node)))
            continue
        if node.type == "frontmatter":
            code = next((c for c in node.named_children if c.type.endswith("js_block")), None)
            if code is not None:
                regions.append(Region("typescript", (code.range,), _lines(node)))
            continue
        stack.extend(reversed(node.named_children))
    return regions


def _script_language(element: Node, src: SourceText) -> str | None:
    attributes: dict[str, str] = {}
    tag = next((c for c in element.named_children if c.type == "start_tag"), None)
    for attribute in tag.named_children if tag is not None else []:
        if attribute.type != "attribute" or not attribute.named_child_count:
            continue
        name = src.node_text(attribute.named_children[0]).lower()
        value = src.node_text(attribute.named_children[-1]).strip("\"'") \
            if attribute.named_child_count > 1 else ""
        attributes[name] = value
    if "lang" in attributes:
        return canonical(attributes["lang"])
    return _SCRIPT_TYPES.get(attributes.get("type", "").lower())


def fence_regions(root: Node, src: SourceText) -> list[Region]:
    """Fenced code blocks whose info string names a language with a grammar for code."""
    regions: list[Region] = []
    cursor = QueryCursor(_fence_query())
    cursor.set_max_start_depth(MAX_DEF_DEPTH)
    fences = cursor.captures(root).get("fence", [])
    for node in sorted(fences, key=lambda n: n.start_byte):
        info = next((c for c in node.named_children if c.type == "info_string"), None)
        word = next((c for c in info.named_children if c.type == "language"), None) \
            if info is not None else None
        content = next((c for c in node.named_children if c.type == "code_fence_content"), None)
        lang = canonical(src.node_text(word)) if word is not None else None
        if lang is None or content is None or language_rules(lang).extractor != "code":
            continue
        regions.append(Region(lang, _without_continuations(content), _lines(node)))
    return regions


def _without_continuations(content: Node) -> tuple[Range, ...]:
    """The content's ranges around the prefixes that continue a quote or a list item on each
    line (`> `), which are Markdown, not code."""
    ranges: list[Range] = []
    start_byte, start_point = content.start_byte, content.start_point
    for marker in content.named_children:
        if marker.type != "block_continuation":
            continue
        if marker.start_byte > start_byte:
            ranges.append(Range(start_point, marker.start_point, start_byte, marker.start_byte))
        start_byte, start_point = marker.end_byte, marker.end_point
    if content.end_byte > start_byte:
        ranges.append(Range(start_point, content.end_point, start_byte, content.end_byte))
    return tuple(ranges)


class _Parsers(threading.local):
    def __init__(self) -> None:
        self.by_lang: dict[str, Parser] = {}
        self.fences: Query | None = None


_parsers = _Parsers()


def _fence_query() -> Query:
    """This thread's query for Markdown code fences (a walk in C, not in Python)."""
    if _parsers.fences is None:
        _parsers.fences = Query(get_language("markdown"), "(fenced_code_block) @fence")
    return _parsers.fences


def parse_region(src: SourceText, region: Region) -> Node:
    """`region` read with its own grammar over the host's bytes, limited to its ranges (this
    thread's parser for the language)."""
    if region.root is not None:
        return region.root
    parser = _parsers.by_lang.get(region.lang)
    if parser is None:
        parser = _parsers.by_lang[region.lang] = Parser(get_language(region.lang))
    parser.included_ranges = list(region.ranges)
    return parse(region.lang, src.data, parser).root_node


def region_extraction(
    src: SourceText, region: Region, first_symbol: int, label: str | None = None
) -> tuple[list[Symbol], list[Chunk], list[Ref]]:
    """The symbols, chunks and refs of one block, their symbols numbered from `first_symbol`.
    With a `label` (a Markdown section's path, maybe empty), every chunk's context names the
    block's language: `Install · python`, `Install > main · python` for a definition."""
    root = parse_region(src, region)
    rules = language_rules(region.lang)
    defs = definitions(region.lang, src, root)
    symbols = [to_symbol(src, rules, d) for d in defs]
    chunks = []
    for chunk in code_chunks(src, defs, root, span=region.lines):
        symbol = None if chunk.symbol is None else chunk.symbol + first_symbol
        context = chunk.context
        if label is not None:
            where = " > ".join(part for part in (label, context) if part)
            context = f"{where} · {region.lang}" if where else region.lang
        chunks.append(Chunk(chunk.start_line, chunk.end_line, chunk.text, chunk.kind, symbol,
                            context, chunk.start_col))
    refs = [ref if ref.symbol is None else ref._replace(symbol=ref.symbol + first_symbol)
            for ref in extract_refs(src, root, defs, get_language(region.lang))]
    return symbols, chunks, refs


def with_regions(
    lang: str, src: SourceText, root: Node, regions: list[Region], symbols: list[Symbol],
    defs: list[Definition], refs: list[Ref],
) -> Extraction:
    """A host file's extraction with its embedded blocks: the host's chunks around them."""
    chunks = code_chunks(src, defs, root, reserved=[r.lines for r in regions])
    symbols = list(symbols)
    refs = list(refs)
    for region in regions:
        found, region_chunks, region_refs = region_extraction(src, region, len(symbols))
        symbols.extend(found)
        chunks.extend(region_chunks)
        refs.extend(region_refs)
    chunks.sort(key=lambda c: (c.start_line, -c.end_line))
    refs.sort(key=lambda r: (r.start_line, r.start_col))
    return Extraction(lang=lang, symbols=symbols, chunks=chunks, refs=refs)

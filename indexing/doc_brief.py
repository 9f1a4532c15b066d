"""A definition's doc cut to what it says the definition does, and its code without the doc.

The whole-definition vector reads 256 tokens. A long doc (an `Args:` list, `@param` lines, a
`# Examples` section with code) filled them before the code was reached, while the questions
a developer writes ask what the code does. Its first paragraphs say what the definition is
for, and the summary vector keeps the doc as written, so docstring sentences are still
matched there (docs/bench/quality-2026-12-02b.md).
"""

from __future__ import annotations

import re

#: Where a doc stops saying what its definition does and starts listing parameters, return
#: values, errors or examples: a tag (`@param`, `:returns:`), a section header on its own
#: line (Google's `Args:`, NumPy's underlined `Parameters`), a Markdown heading (rustdoc's
#: `# Examples`), a code fence or a doctest prompt.
_SECTION = re.compile(
    r"^\s*(?:@\w|:(?:param|type|returns?|rtype|raises?|yields?)\b|>>>|```|-{3,}\s*$|#+\s"
    r"|(?:Args|Arguments|Parameters|Params|Returns|Return|Yields|Raises|Throws|Examples?"
    r"|Notes?|See Also|Attributes|Usage)\s*:?\s*$)")
#: A comment's or docstring's markers at the start or end of a line.
_MARKERS = re.compile(
    r"^\s*(?:///?!?|/\*\*?|\*/|\*|#|;+|--|[rRuUbB]?\"\"\"|[rRuUbB]?''')?\s*"
    r"|\s*(?:\*/|\"\"\"|''')\s*$")


def doc_brief(doc: str, limit: int) -> str:
    """The doc up to its first parameter list, tag or example, at most `limit` characters."""
    lines: list[str] = []
    for line in doc.splitlines():
        if _SECTION.match(line):
            break
        lines.append(line)
    return "\n".join(lines).strip()[:limit]


def without_doc(text: str, doc: str) -> str:
    """`text` without the block of lines that holds `doc`: the first run of lines that are the
    doc's, with the blank and marker-only lines among them (a JSDoc's `/**`, a docstring's
    closing quotes). A Python docstring stands after its signature, a JSDoc or rustdoc
    before it; the code that follows the block is kept whole, even a line that repeats one
    of the doc's."""
    said = {line.strip() for line in doc.splitlines()} - {""}
    kept: list[str] = []
    state = "before"
    for line in text.splitlines():
        bare = _bare(line)
        if state == "before" and bare in said:
            state = "in"
            while kept and kept[-1].strip() and not _bare(kept[-1]):  # the block's `/**`
                kept.pop()
        elif state == "in" and bare and bare not in said:
            state = "after"
        if state != "in":
            kept.append(line)
    return "\n".join(kept)


def _bare(line: str) -> str:
    return _MARKERS.sub("", line).strip()

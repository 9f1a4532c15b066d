"""Code inside other files: `<script>` blocks and Markdown fences are read with their own
grammar, their definitions at their true positions in the host file, a fence's chunks
labelled with its language."""

from __future__ import annotations

from extract_support import by_name, run, spans

from indexing.records import Span, SymbolKind

K = SymbolKind

VUE = """<template>
  <button @click="save">Save</button>
</template>

<script lang="ts">
import { defineComponent } from "vue";

/** Saves the cart. */
export function save(cart: Cart): void {
  api.post("/carts", cart);
}

interface Cart { owner: string }
</script>
"""


def test_a_vue_script_in_typescript() -> None:
    ex = run("src/Save.vue", VUE)
    assert ex.lang == "vue"
    assert [(s.name, s.kind) for s in ex.symbols] == [("save", K.FUNCTION),
                                                      ("Cart", K.INTERFACE),
                                                      ("owner", K.PROPERTY)]
    save = by_name(ex, "save")
    assert save.selection == Span(8, 16, 8, 20)
    assert save.range == Span(8, 7, 10, 1)
    assert save.doc == "Saves the cart."
    assert by_name(ex, "Cart").selection == Span(12, 10, 12, 14)  # `interface`: TypeScript
    assert ("definition", 7, 10, 0, "save") in spans(ex)


def test_script_types_that_are_not_code_stay_html() -> None:
    html = (
        '<script type="text/x-template" id="row"><li>{{ sku }}</li></script>\n'
        "<script>\nfunction init() {}\n</script>\n"
        '<script type="application/ld+json">{"@type": "Product"}</script>\n'
    )
    ex = run("index.html", html)
    assert [(s.name, s.selection) for s in ex.symbols] == [("init", Span(2, 9, 2, 13))]


def test_astro_frontmatter_is_typescript() -> None:
    text = "---\ntype Props = { sku: string };\nconst { sku } = Astro.props;\n---\n<p>{sku}</p>\n"
    ex = run("src/pages/p.astro", text)
    assert [(s.name, s.kind, s.selection) for s in ex.symbols] == [
        ("Props", K.TYPE_PARAMETER, Span(1, 5, 1, 10)),
        ("sku", K.PROPERTY, Span(1, 15, 1, 18))]


MD = """# Usage

Call it from Python:

```py
import shop


def checkout(cart):
    return shop.pay(cart)
```

- In a list:

  ```rust
  fn total() -> u32 { 0 }
  ```

```console
$ shop --help
```
"""


def test_markdown_fences_are_code_in_their_language() -> None:
    ex = run("docs/usage.md", MD)
    assert [(s.name, s.kind, s.qualified_name) for s in ex.symbols] == [
        ("Usage", K.STRING, "Usage"),
        ("checkout", K.FUNCTION, "checkout"),
        ("total", K.FUNCTION, "total"),
    ]
    assert by_name(ex, "checkout").selection == Span(8, 4, 8, 12)
    assert by_name(ex, "total").selection == Span(15, 5, 15, 10)  # indented in a list item
    contexts = {c.context for c in ex.chunks}
    assert "Usage > checkout · python" in contexts
    assert "Usage > total · rust" in contexts
    # A fence in a language without a grammar stays part of its section.
    console = next(c for c in ex.chunks if "$ shop --help" in c.text)
    assert console.kind.value == "section" and console.context == "Usage"

"""The plain baseline `kebab eval` scores next to kebab: its chunks, and each arm on a real
model and a real FTS5 table."""

from __future__ import annotations

import pytest

from indexing.embed import Embedder, default_model_spec
from indexing.extract import extract
from indexing.settings import Settings
from indexing.store import text_hash
from kebab_lsp.workspace import Workspace
from search.baseline import Baseline, baseline_spec, chunk_file, dense_text

pytestmark = pytest.mark.model

GO = """package shop

// Cart holds what a customer is about to buy.
type Cart struct {
	Items []Item
}

// Total adds up the price of every item.
func (c *Cart) Total() int {
	sum := 0
	for _, it := range c.Items {
		sum += it.Price
	}
	return sum
}
"""

PY = '''import os


class Loader:
    """Reads settings."""

    root = "."

    def read(self, name):
        """Open a settings file under the root."""
        return open(os.path.join(self.root, name)).read()
'''


def chunks_of(path: str, text: str) -> list[tuple[int, int, str]]:
    ex = extract(path, text)
    assert ex is not None
    return [(c.start_line, c.end_line, c.name) for c in chunk_file(path, text, ex.symbols)]


def test_one_chunk_per_definition_with_its_doc_comment() -> None:
    assert chunks_of("shop/cart.go", GO) == [
        (2, 5, "Cart"),     # the doc comment above the type is part of its chunk
        (7, 14, "Total"),
        (0, 1, ""),         # the package clause is a gap chunk
    ]


def test_a_class_gets_a_header_chunk_and_its_methods_their_own() -> None:
    assert chunks_of("conf.py", PY) == [
        (3, 7, "Loader"),   # class line, docstring and attributes, up to the first method
        (8, 10, "read"),
        (0, 2, ""),
    ]


def test_dense_text_leads_with_path_and_name_words() -> None:
    from search.baseline import BaselineChunk

    text = dense_text(BaselineChunk("src/userStore.py", 0, 1, "get_by_id", "def get_by_id(): ..."))
    assert text.startswith("src user store py get by id\n")


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Baseline:
    base = tmp_path_factory.mktemp("baseline")
    root = base / "repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop/cart.go").write_text(GO)
    (root / "conf.py").write_text(PY)
    (root / "README.md").write_text("# Shop\n\nThe cart adds up prices of items.\n")
    ws = Workspace(root, Settings(index_dir=str(base / "idx"), workers=1, embed=False))
    ws.indexer.index()
    embedder = Embedder(baseline_spec(default_model_spec()), threads=1)
    return Baseline(ws.store, embedder)


def test_code_files_only(baseline: Baseline) -> None:
    assert {c.path for c in baseline.chunks} == {"shop/cart.go", "conf.py"}


def test_each_arm(baseline: Baseline) -> None:
    def top(arm: str, query: str) -> str:
        path, line, _ = baseline.search(arm, query, 3)[0]
        return f"{path}:{line}"

    assert top("dense", "sum the prices in the basket") == "shop/cart.go:7"
    # OR of the words left after stopwords: "where is" and "the" do not have to match.
    assert top("bm25", "where is the settings file opened") == "conf.py:8"
    assert top("hybrid", "add up item prices") == "shop/cart.go:7"
    assert baseline.search("bm25", "where is the", 3) == []  # nothing but stopwords


def test_vectors_are_cached_in_the_store(baseline: Baseline) -> None:
    """A rerun of `kebab eval` on the same index embeds nothing for the baseline."""
    model = baseline.embedder.model_id
    assert model.endswith(":256t:mean")
    hashes = [text_hash(dense_text(c)) for c in baseline.chunks]
    assert set(baseline.store.cached_vectors(model, hashes)) == set(hashes)
    assert baseline.matrix.shape == (len(baseline.chunks), 384)

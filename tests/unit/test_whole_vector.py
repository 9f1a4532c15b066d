"""The whole-definition vector: each definition read twice as far as its code vector, under
its path and name in words, scored for sentences. A question or a phrase about what a
definition does past its first 128 tokens finds it; a name or a code fragment never reads
that vector. Real model, real LanceDB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from vector_support import synced_workspace

from indexing.records import Span
from indexing.runtime.folder_index import shared_embedder
from indexing.vector_index import SYNCED_SURFACES, WHOLE, WHOLE_TOKENS, whole_text
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest

pytestmark = pytest.mark.model

# Generic set-up first, the part a question asks about last: past what a code vector reads.
SETUP = "".join(f"    step_{i} = prepare(batch, offset={i}, retries={i + 1})\n" for i in range(14))
TREE = {
    "jobs/nightly.py": (
        "def run(batch):\n" + SETUP
        + "    # Email each customer the invoice for the month, with the PDF attached.\n"
        + "    return email_invoice_pdf_to_customers(batch)\n"),
    "jobs/cleanup.py": (
        "def sweep(folder):\n    for entry in folder.entries():\n"
        "        entry.remove_if_older_than(days=30)\n"),
    "jobs/report.py": (
        "def chart(rows):\n    return plot_bar_chart(rows, title='weekly traffic')\n"),
}
QUESTION = "where do we email customers their monthly invoice?"
PHRASE = "email customers their monthly invoice"


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    yield from synced_workspace(tmp_path, TREE)


def test_each_definition_has_one_whole_vector(ws: Workspace) -> None:
    leads = [s for s in ws.store.embedding_sources() if s.leads]
    vindex = ws.vector_index()
    assert vindex is not None
    keys = vindex.expected()
    assert sorted(k for k in keys if k.endswith(f":{WHOLE}")) == sorted(
        f"{s.chunk_id}:{WHOLE}" for s in leads)
    run = next(s for s in leads if s.context == "run")
    text = whole_text(run)
    assert text is not None and text.startswith("jobs nightly py run\ndef run(batch):")


@pytest.mark.parametrize("query", [QUESTION, PHRASE])
@pytest.mark.parametrize("mode", ["vector", "hybrid", "auto"])
def test_a_sentence_reads_each_definition_whole(ws: Workspace, query: str, mode: str) -> None:
    found = ws.searcher.search(SearchRequest(query, mode=mode, k=3))
    assert found.hits[0].path == "jobs/nightly.py"
    assert found.hits[0].citation == Span(0, 0, 16, 48)  # the whole of `run`
    assert found.hits[0].retrieval.vector_surface == WHOLE


@pytest.mark.parametrize("query", [
    "email_invoice_pdf_to_customers",  # a name
    "email_invoice_pdf_to_customers(batch)",  # code
    '"email invoice pdf"',  # a quoted text
])
@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_a_name_or_code_keeps_to_the_chunks_own_vectors(
        ws: Workspace, query: str, mode: str) -> None:
    found = ws.searcher.search(SearchRequest(query, mode=mode, k=10))
    assert found.hits
    assert all(h.retrieval.vector_surface != WHOLE for h in found.hits)


def test_the_embedder_reads_further_when_asked() -> None:
    embedder = shared_embedder(None, 1)
    long_text = TREE["jobs/nightly.py"]
    short = embedder.embed([long_text])[0]
    read_whole = embedder.embed([long_text], max_tokens=WHOLE_TOKENS)[0]
    assert float(np.dot(short, read_whole)) < 0.99  # the end of the text moved the vector
    brief = "def chart(rows): return rows"
    assert np.allclose(embedder.embed([brief])[0],
                       embedder.embed([brief], max_tokens=WHOLE_TOKENS)[0], atol=1e-5)


@pytest.mark.parametrize("recorded", [
    "code,summary,file",  # before the whole vectors
    "code/bare-wordless,summary,whole@256t,file",  # before they read a long doc's brief
])
def test_an_index_synced_before_the_whole_vectors_is_not_current(
        ws: Workspace, recorded: str) -> None:
    vindex = ws.vector_index()
    assert vindex is not None and vindex.is_current()
    ws.store.set_meta(SYNCED_SURFACES, recorded)  # as an earlier release recorded
    assert not vindex.is_current()  # so `kebab index` syncs, though no file changed
    ws.sync_vectors()
    assert vindex.is_current()


# A long doc (a parameter list past what the whole vector reads) before the code the
# question is about: the whole vector reads what the doc says the function is for, then
# the code, not the parameters.
ARGS = "".join(f"        option_{i}: the {i}th tuning knob of the batch, rarely needed.\n"
               for i in range(24))
DOCUMENTED = {
    "jobs/nightly.py": (
        "def run(batch, **options):\n"
        '    """Run the nightly batch.\n\n    Args:\n' + ARGS + '    """\n'
        "    # Email each customer the invoice for the month, with the PDF attached.\n"
        "    return email_invoice_pdf_to_customers(batch)\n"),
    **{path: text for path, text in TREE.items() if path != "jobs/nightly.py"},
}


@pytest.fixture
def documented(tmp_path: Path) -> Iterator[Workspace]:
    yield from synced_workspace(tmp_path, DOCUMENTED)


def test_a_long_doc_leaves_room_for_the_code(documented: Workspace) -> None:
    run = next(s for s in documented.store.embedding_sources() if s.context == "run")
    text = whole_text(run)
    assert text is not None and text.startswith(
        "jobs nightly py run\nRun the nightly batch.\ndef run(batch, **options):\n"
        "    # Email each customer")
    found = documented.searcher.search(SearchRequest(QUESTION, mode="vector", k=3))
    assert found.hits[0].path == "jobs/nightly.py"
    assert found.hits[0].retrieval.vector_surface == WHOLE

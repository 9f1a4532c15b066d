"""What the whole-definition vector reads of a documented definition: what its doc says it
does, not its parameter lists or examples, then its code without the doc. Pure text, no
model: the search it changes is asked in test_whole_vector.py."""

from __future__ import annotations

import pytest

from indexing.doc_brief import doc_brief, without_doc
from indexing.store import EmbeddingSource
from indexing.vector_index import whole_text

GOOGLE = "Rotate a folder's logs.\n\nKeeps a week.\n\nArgs:\n    folder: where the logs are.\n"
REST = "Rotate a folder's logs.\n\n:param folder: where the logs are.\n:returns: nothing.\n"
JSDOC = "Rotate a folder's logs.\n\n@param {string} folder where the logs are\n@public"
RUSTDOC = "Rotate a folder's logs.\n\n# Examples\n\n```\nrotate(&dir);\n```"
NUMPY = "Rotate a folder's logs.\n\nParameters\n----------\nfolder : str\n"
DOCTEST = "Rotate a folder's logs.\n>>> rotate('/var/log')\n"


@pytest.mark.parametrize("doc", [GOOGLE, REST, JSDOC, RUSTDOC, NUMPY, DOCTEST])
def test_a_brief_stops_at_the_parameters_and_examples(doc: str) -> None:
    brief = doc_brief(doc, 300)
    assert brief.startswith("Rotate a folder's logs.")
    assert "folder" not in brief.replace("a folder's", "") and "rotate(" not in brief


def test_a_brief_keeps_every_paragraph_before_them_up_to_its_limit() -> None:
    assert doc_brief(GOOGLE, 300) == "Rotate a folder's logs.\n\nKeeps a week."
    assert doc_brief(GOOGLE, 6) == "Rotate"
    assert doc_brief("Args:\n    folder: where.", 300) == ""


PYTHON = '''def rotate(folder):
    """Rotate a folder's logs.

    Args:
        folder: where the logs are.
    """
    done = gzip(folder)
    # Rotate a folder's logs.
    return done'''

JAVASCRIPT = '''/**
 * Rotate a folder's logs.
 *
 * @param {string} folder where the logs are
 */
function rotate(folder) {
  return gzip(folder);
}'''

RUST = '''/// Rotate a folder's logs.
///
/// # Examples
#[inline]
pub fn rotate(folder: &Path) {
    gzip(folder)
}'''


@pytest.mark.parametrize(("text", "doc", "code"), [
    (PYTHON, "Rotate a folder's logs.\n\nArgs:\n    folder: where the logs are.",
     "def rotate(folder):\n    done = gzip(folder)\n    # Rotate a folder's logs.\n"
     "    return done"),
    (JAVASCRIPT, "Rotate a folder's logs.\n\n@param {string} folder where the logs are",
     "function rotate(folder) {\n  return gzip(folder);\n}"),
    (RUST, "Rotate a folder's logs.\n\n# Examples",
     "#[inline]\npub fn rotate(folder: &Path) {\n    gzip(folder)\n}"),
])
def test_the_code_is_read_without_the_doc_block(text: str, doc: str, code: str) -> None:
    # Python's comment repeats the doc's first line after the block's end: it is kept.
    assert without_doc(text, doc) == code


def test_text_that_does_not_hold_its_doc_is_read_as_it_is() -> None:
    assert without_doc("def rotate(folder):\n    return gzip(folder)", "Rotate logs.") == (
        "def rotate(folder):\n    return gzip(folder)")


def _source(text: str, doc: str) -> EmbeddingSource:
    return EmbeddingSource("c1", "jobs/logs.py", "python", "function", "rotate",
                           "def rotate(folder)", doc, text, leads=True)


def test_the_whole_vector_reads_the_brief_then_the_code() -> None:
    doc = "Rotate a folder's logs.\n\nArgs:\n    folder: where the logs are."
    assert whole_text(_source(PYTHON, doc)) == (
        "jobs logs py rotate\nRotate a folder's logs.\n"
        "def rotate(folder):\n    done = gzip(folder)\n    # Rotate a folder's logs.\n"
        "    return done")
    assert whole_text(_source(PYTHON, "")) == f"jobs logs py rotate\n{PYTHON}"

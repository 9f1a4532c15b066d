"""A name query finds its definition in every mode: a Ruby predicate (`empty?`) or bang
method (`save!`) that the index defines is a name, not a question, and a definition with no
chunk of its own is reached however many other chunks mention its name. Real index, real
model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest
from search.window import FLOOR

pytestmark = pytest.mark.model

LOGGER = """class NullLogger
  def initialize(app)
    @app = app
  end

  def call(env)
    env['rack.logger'] = self
    @app.call(env)
  end

  def info(progname = nil, &block); end
  def debug(progname = nil, &block); end
  def error(progname = nil, &block); end
  def fatal(progname = nil, &block); end
  def info? ;  end
  def error? ; end
  def close! ; end
end
"""

RUBY = {
    "lib/null_logger.rb": LOGGER,
    "lib/response.rb": """class Response
  # Whether the body holds nothing at all, so no bytes need to be sent to the client.
  def empty?
    @length == 0
  end

  def ok?
    @status == 200
  end

  # Removes every header and empties the buffered body before the response is sent again.
  def reset!
    @headers.clear
    @body = []
  end
end
""",
    "lib/checks.rb": """module Checks
  # Is it empty? Callers ask this of a response, then drop it.
  def self.drop_if_blank(response)
    return nil if response.empty?
    response
  end
end
""",
}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture(scope="module")
def ruby(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    base = tmp_path_factory.mktemp("marked")
    write(base / "repo", RUBY)
    ws = Workspace(base / "repo", Settings(index_dir=str(base / "idx"), workers=1))
    ws.indexer.index()
    ws.sync_vectors()
    yield ws
    ws.close()


@pytest.mark.parametrize("mode", ["auto", "lexical", "hybrid", "vector"])
@pytest.mark.parametrize(("query", "path", "line"), [
    ("empty?", "lib/response.rb", 2), ("reset!", "lib/response.rb", 11),
    ("error?", "lib/null_logger.rb", 15), ("Response#ok?", "lib/response.rb", 6),
])
def test_a_defined_name_with_a_mark_is_answered_by_its_definition(
        ruby: Workspace, mode: str, query: str, path: str, line: int) -> None:
    # `empty?` read as a question: both arms ranked `drop_if_blank`, whose doc asks it and
    # whose body calls it, as high as the predicate itself.
    result = ruby.searcher.search(SearchRequest(query, mode=mode, k=3, explain=True))
    top = result.hits[0]
    assert (top.path, top.span.start_line) == (path, line)
    if mode == "auto":
        assert result.meta.intent == {"name": "definition", "rule": "name with a mark"}


def test_a_mark_that_names_nothing_stays_what_it_reads_as(ruby: Workspace) -> None:
    asked = ruby.searcher.search(SearchRequest("blank?", k=3))
    assert asked.meta.intent == {"name": "concept", "rule": "question"}
    told = ruby.searcher.search(SearchRequest("clear!", k=3))
    assert told.meta.intent == {"name": "concept", "rule": "natural language"}
    # An intent set by the request is obeyed: `empty?` asked as a concept stays one.
    concept = ruby.searcher.search(SearchRequest("empty?", k=3, intent="concept"))
    assert concept.meta.intent is not None and concept.meta.intent["name"] == "concept"


def test_a_one_line_definition_is_reached_beyond_the_window(tmp_path: Path) -> None:
    # More short chunks say `error` than a window holds, each above the long class chunk
    # that holds `def error` (it has no chunk of its own): bm25 put that chunk below them
    # all, where the arm stopped reading.
    files = {"lib/null_logger.rb": LOGGER}
    for i in range(FLOOR + 20):
        files[f"lib/handlers/h{i}.rb"] = (f"def handle_{i}(event)\n  error(event) if event.bad\n"
                                          "end\n")
    for i in range(3 * FLOOR):  # code that never says it: `error` is a rare word
        files[f"lib/jobs/j{i}.rb"] = f"def job_{i}(queue)\n  queue.pop\nend\n"
    write(tmp_path / "repo", files)
    ws = Workspace(tmp_path / "repo", Settings(index_dir=str(tmp_path / "idx"), workers=1,
                                                embed=False))
    try:
        ws.indexer.index()
        for mode in ("auto", "lexical"):
            result = ws.searcher.search(SearchRequest("error", mode=mode, k=5, explain=True))
            top = result.hits[0]
            assert (top.path, top.span.start_line, top.span.start_col) == (
                "lib/null_logger.rb", 12, 6), mode
            assert top.retrieval.lexical_rank is not None
            assert top.retrieval.lexical_rank > FLOOR  # found where bm25 ranks it
            assert "holds_query_definition" in [p.name for p in top.retrieval.priors]
            # The same order whatever k the window serves.
            ten = ws.searcher.search(SearchRequest("error", mode=mode, k=10))
            assert [(h.path, h.span) for h in ten.hits[:5]] == [
                (h.path, h.span) for h in result.hits]
    finally:
        ws.close()


RUST_AND_RUBY = {
    "src/pairs.rs": """/// Builds a list of pairs from the given items.
#[macro_export]
macro_rules! pair_list {
    ($($x:expr),*) => { vec![$(($x, $x)),*] };
}
""",
    "src/users.rs": """pub fn first_pairs() -> Vec<(u32, u32)> {
    pair_list!(1, 2, 3)
}

pub fn more_pairs() -> Vec<(u32, u32)> {
    let v = pair_list!(4, 5);
    v
}
""",
    "lib/store.rb": """class Store
  def save(record)
    @rows << record
  end

  def flush
    save!(nil)
  end
end
""",
}


def test_a_macro_invoked_with_its_mark_is_answered_by_its_definition(tmp_path: Path) -> None:
    # `pair_list!` was exact text, one hit per file at its first call: `macro_rules!
    # pair_list` does not hold `pair_list!`, so the definition was not among them.
    write(tmp_path / "repo", RUST_AND_RUBY)
    ws = Workspace(tmp_path / "repo", Settings(index_dir=str(tmp_path / "idx"), workers=1,
                                                embed=False))
    try:
        ws.indexer.index()
        result = ws.searcher.search(SearchRequest("pair_list!", k=5, explain=True))
        assert result.meta.intent == {"name": "definition", "rule": "name with a mark"}
        top = result.hits[0]
        assert (top.path, top.span.start_line) == ("src/pairs.rs", 2)
        assert "defines_query_case_exact" in [p.name for p in top.retrieval.priors]
        assert {h.path for h in result.hits} == {"src/pairs.rs", "src/users.rs"}
        # Ruby's `save!` is a name of its own: a Ruby `save` does not stand for it.
        bang = ws.searcher.search(SearchRequest("save!", k=5))
        assert bang.meta.intent is not None and bang.meta.intent["name"] != "definition"
        # An explicit mode keeps its channel: lexical reads `pair_list!` as the text it is.
        lexical = ws.searcher.search(SearchRequest("pair_list!", mode="lexical", k=5))
        assert [h.path for h in lexical.hits] == ["src/users.rs"]
    finally:
        ws.close()

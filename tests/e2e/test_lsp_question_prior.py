"""A question about behaviour is answered by the code that does it, over the real server: an
interface method carries the doc that restates what its implementation does, so it matches
the question's words better, and it must not also take the lift a question gives code that
runs (`search.priors.CALLABLE_FOR_QUESTION`). Found on client_golang's hand-written
questions, where `API.Snapshot` came to rank above the `httpAPI.Snapshot` that does it once
interface methods were definitions of their own (schema 17)."""

from __future__ import annotations

from pathlib import Path

from e2e_support import StartFn, valid, write_tree
from test_lsp_search import ready

API = """package v1

// API provides bindings for the server's admin endpoints.
type API interface {
\t// Snapshot creates a snapshot of all current data into a directory under the
\t// data directory and returns the name of the snapshot directory.
\tSnapshot(ctx context.Context, skipHead bool) (string, error)
}

type httpAPI struct {
\tclient Client
}

func (h *httpAPI) Snapshot(ctx context.Context, skipHead bool) (string, error) {
\tu := h.client.URL("/admin/tsdb/snapshot")
\tbody, err := h.client.Post(ctx, u, skipHead)
\tif err != nil {
\t\treturn "", err
\t}
\treturn decodeName(body)
}
"""

HANDLER = """package v1

// Handler{i} serves route {i}.
func Handler{i}(w Writer, r *Request) {{
\tw.Write(r.Body)
}}
"""


async def test_a_question_ranks_the_method_that_runs_above_its_interface_declaration(
        start_server: StartFn, tmp_path: Path) -> None:
    # Other files, so that "snapshot" and "data" are rare words (a word in most chunks of a
    # tiny tree has an inverse document frequency near zero, and every score with it).
    handlers = {f"api/v1/h{i}.go": HANDLER.format(i=i) for i in range(20)}
    s = await ready(start_server, [write_tree(tmp_path / "ws",
                                              {"api/v1/api.go": API, **handlers})])
    found = valid(await s.search({"query": "where do we snapshot the data", "mode": "lexical",
                                  "k": 5, "explain": True}))
    hits = [(h["location"]["range"]["start"]["line"], h["selection"]["start"]["line"],
             [p["name"] for p in h["retrieval"]["priors"]]) for h in found["hits"]]
    # The implementation (lines 13-22, named on 13) first with the question's lift; the
    # interface method (its doc on 4-5, named on 6) below it, weighed as a declaration.
    assert hits[:2] == [(13, 13, ["definition", "callable_for_question"]),
                        (4, 6, ["definition"])], found["hits"]
    # A docstring's words, not a question: the interface method, which holds them all, first.
    told = valid(await s.search({"query": "creates a snapshot of all current data",
                                 "mode": "lexical", "k": 5}))
    assert told["hits"][0]["selection"]["start"]["line"] == 6, told["hits"]


async def test_a_question_weighs_its_answers_when_every_word_is_common(
        start_server: StartFn, tmp_path: Path) -> None:
    # In this one file every chunk says "snapshot": bm25 is near zero for all three (FTS5
    # floors the word's inverse document frequency), and the priors must still tell them
    # apart. Scores rounded to six decimals were all 2e-06, and the factors rounded away.
    s = await ready(start_server, [write_tree(tmp_path / "ws", {"api/v1/api.go": API})])
    found = valid(await s.search({"query": "where do we snapshot", "mode": "lexical",
                                  "k": 5, "explain": True}))
    assert [h["selection"]["start"]["line"] for h in found["hits"]] == [13, 6, 4]
    first, second = found["hits"][0], found["hits"][1]
    assert first["score"] > second["score"] > 0
    assert [p["name"] for p in first["retrieval"]["priors"]] == [
        "definition", "callable_for_question"]

"""Hybrid search: RRF arithmetic, fusion on a real corpus, the embedding cache, intent routing
and degraded modes. Real model, real LanceDB; only the fallback tests break things on purpose."""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.filters import Filters
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.hybrid import above_its_code, fuse_units, lexical_weight, rrf
from search.types import SearchRequest, SearchUnavailable

pytestmark = pytest.mark.model

CORPUS = {
    "net/fetch.py": '''
import time


def fetch_with_backoff(session, url, attempts=5):
    """Call the server again after a pause when the connection drops."""
    for attempt in range(attempts):
        try:
            return session.get(url)
        except ConnectionError:
            time.sleep(2 ** attempt)
    raise TimeoutError(url)
''',
    "net/policy.py": '''
class CircuitBreaker:
    """Counts failed requests per host and opens after a threshold; there is no retry here."""

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold
        self.failures: dict[str, int] = {}
''',
    "util/strings.py": '''
def slugify(title: str) -> str:
    """Lower-case a title and join its words with dashes for use in URLs."""
    return "-".join(title.lower().split())
''',
    "util/config.py": '''
def load_settings(path):
    """Read the YAML settings file and return a dict."""
    import yaml
    with open(path) as handle:
        return yaml.safe_load(handle)
''',
    "account/profile.py": '''
DEFAULT_TIMEOUT = 30


def display_name(account):
    """The name shown next to a comment: the nickname when one is set, else the full name."""
    return account.nickname or account.full_name


def connect(host, timeout=DEFAULT_TIMEOUT):
    """Open a connection to the host, giving up after `timeout` seconds."""
    return (host, timeout)


def shutdown(stream):
    """Make sure buffered output reaches the disk before the process exits."""
    stream.flush()
    stream.close()
''',
    "tests/test_fetch.py": '''
from net.fetch import fetch_with_backoff


def test_fetch_with_backoff_gives_up():
    pass
''',
}


def indexed(base: Path, files: dict[str, str]) -> Iterator[Workspace]:
    """A workspace over `files` (under `base`/repo), indexed and embedded, closed after."""
    root = base / "repo"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip())
    ws = Workspace(root, Settings(index_dir=str(base / "idx"), workers=1))
    ws.indexer.index()
    ws.sync_vectors()
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("hybrid"), CORPUS)


def search(ws: Workspace, query: str, mode: str, k: int = 3, explain: bool = True) -> list[str]:
    result = ws.searcher.search(SearchRequest(query, mode=mode, k=k, explain=explain))
    return [h.title for h in result.hits]


def test_rrf_arithmetic_and_normalization() -> None:
    fused = rrf({"a": 1, "b": 2}, {"b": 1, "c": 3}, k_rrf=60)
    by_id = {f.chunk_id: f for f in fused}
    norm = 2 / 61
    assert by_id["b"].score == pytest.approx((1 / 62 + 1 / 61) / norm)
    assert by_id["a"].score == pytest.approx((1 / 61) / norm)
    assert by_id["c"].score == pytest.approx((1 / 63) / norm)
    assert [f.chunk_id for f in fused] == ["b", "a", "c"]
    top = rrf({"x": 1}, {"x": 1})
    assert top[0].score == pytest.approx(1.0)


def test_selective_all_terms_hits_weigh_more() -> None:
    assert [lexical_weight(n) for n in (0, 1, 3, 4, 50)] == [1.0, 1.5, 1.5, 1.0, 1.0]
    # "a" holds every term, lexical ranks it 3rd; "v" is the vector arm's first.
    plain = rrf({"x": 1, "y": 2, "a": 3}, {"v": 1})
    weighted = rrf({"x": 1, "y": 2, "a": 3}, {"v": 1}, lexical_weights={"a": 1.5})
    assert [f.chunk_id for f in plain] == ["x", "v", "y", "a"]
    assert [f.chunk_id for f in weighted] == ["a", "x", "v", "y"]
    assert weighted[0].score == pytest.approx((1.5 / 63) / (2.5 / 61))
    assert rrf({"a": 1}, {"a": 1}, lexical_weights={"a": 1.5})[0].score == pytest.approx(1.0)


def test_rrf_ties_break_by_lexical_rank_then_id() -> None:
    # "a" lexical-only rank 2 and "b" vector-only rank 2 tie on score: lexical wins the tie.
    fused = rrf({"z": 1, "a": 2}, {"z": 1, "b": 2})
    assert [f.chunk_id for f in fused] == ["z", "a", "b"]
    fused = rrf({}, {"d": 1, "c": 1})
    assert [f.chunk_id for f in fused] == ["c", "d"]


def test_a_definition_found_by_both_arms_in_different_chunks_fuses_as_one() -> None:
    # f1 and f2 are two chunks of one definition F: lexical ranks f2 1st, vector ranks f1 1st.
    # Chunk by chunk, "x" (2nd in both arms) would beat both of F's pieces.
    lexical, vector = ["f2", "x", "y"], ["f1", "x", "z"]
    assert [f.chunk_id for f in rrf({c: i + 1 for i, c in enumerate(lexical)},
                                    {c: i + 1 for i, c in enumerate(vector)})][0] == "x"
    fused = fuse_units(lexical, vector, {"f1": "F", "f2": "F"})
    assert [f.chunk_id for f in fused] == ["f2", "x", "y", "z"]  # F once, shown by f2
    top = fused[0]
    assert top.score == pytest.approx(1.0)  # first in both arms
    assert (top.lexical_rank, top.vector_rank) == (1, 1)
    assert (top.lexical_chunk, top.vector_chunk) == ("f2", "f1")
    # a unit's rank counts units: "y" is lexical's 3rd, "z" vector's 3rd
    by_id = {f.chunk_id: f for f in fused}
    assert by_id["y"].lexical_rank == 3 and by_id["z"].vector_rank == 3


def test_units_take_their_best_chunk_weight_and_break_ties_deterministically() -> None:
    fused = fuse_units(["a", "b1"], ["v"], {"b1": "B", "b2": "B"}, lexical_weights={"b1": 1.5})
    assert [f.chunk_id for f in fused] == ["b1", "a", "v"]
    assert fused == fuse_units(["a", "b1"], ["v"], {"b2": "B", "b1": "B"},
                               lexical_weights={"b1": 1.5})
    # chunks outside any definition are their own units: plain RRF
    plain = fuse_units(["a", "b"], ["b", "c"], {})
    assert [(f.chunk_id, f.score) for f in plain] == [
        (f.chunk_id, f.score) for f in rrf({"a": 1, "b": 2}, {"b": 1, "c": 2})]


def test_a_definition_is_shown_by_a_chunk_of_its_code_not_its_comment_alone() -> None:
    # F's doc comment is a chunk of its own above its first line ("f_doc"), and both arms rank
    # it above F's code ("f_code"): the hit still cites the code, with the unit's score.
    lexical, vector = ["f_doc", "x", "f_code"], ["f_doc", "f_code", "x"]
    units = {"f_doc": "F", "f_code": "F"}
    plain = fuse_units(lexical, vector, units)
    assert plain[0].chunk_id == "f_doc"
    shown = fuse_units(lexical, vector, units, above_code={"f_doc"})
    assert [f.chunk_id for f in shown] == ["f_code", "x"]
    assert shown[0].score == plain[0].score
    assert (shown[0].lexical_chunk, shown[0].vector_chunk) == ("f_doc", "f_doc")
    # found by its comment alone, the definition is shown by the comment
    alone = fuse_units(["f_doc", "x"], ["x"], units, above_code={"f_doc"})
    assert {f.chunk_id for f in alone} == {"f_doc", "x"}


def test_a_chunk_above_its_definitions_first_line_is_recognised(tmp_path: Path) -> None:
    src = "\n".join(["/// Decodes one UTF-8 sequence at the start of the slice.", *(
        f"/// Detail line {i} of a long doc comment." for i in range(60)),
        "pub fn decode_utf8(src: &[u8]) -> Option<(char, usize)> {",
        *(f"    let b{i} = src.get({i})?;" for i in range(60)), "    None", "}", ""])
    root = tmp_path / "repo"
    root.mkdir()
    (root / "utf8.rs").write_text(src)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        rows = ws.store.chunks_at("utf8.rs", 0) + ws.store.chunks_at("utf8.rs", 70)
        flags = {(r.start_line, r.end_line): above_its_code(r) for r in rows}
        assert True in flags.values() and False in flags.values(), flags
        fn_line = src.split("\n").index(
            "pub fn decode_utf8(src: &[u8]) -> Option<(char, usize)> {")
        assert all(flag == (end < fn_line) for (_, end), flag in flags.items())
    finally:
        ws.close()


def test_hybrid_recall_is_at_least_each_arm(corpus: Workspace) -> None:
    query = "retry failed requests"
    wanted = {"fetch_with_backoff", "CircuitBreaker"}
    lexical = set(search(corpus, query, "lexical", k=2))
    vector = set(search(corpus, query, "vector", k=2))
    hybrid = set(search(corpus, query, "hybrid", k=2))
    assert "CircuitBreaker" in lexical and "fetch_with_backoff" not in lexical
    assert "fetch_with_backoff" in vector
    assert wanted <= hybrid
    assert len(wanted & hybrid) >= max(len(wanted & lexical), len(wanted & vector))


def test_hybrid_hits_explain_both_arms(corpus: Workspace) -> None:
    result = corpus.searcher.search(
        SearchRequest("retry failed requests", mode="hybrid", k=5, explain=True))
    for hit in result.hits:
        r = hit.retrieval
        assert r.method == "hybrid" and r.fusion_score is not None
        assert r.fusion_score * math.prod(p.factor for p in r.priors) == pytest.approx(
            hit.score, abs=1e-5)
        assert (r.lexical_rank is None) == (r.lexical_score is None)
        assert (r.vector_rank is None) == (r.vector_score is None)
    assert result.meta.recall["ranking_scope"] == "candidate_window"
    assert result.meta.score["kind"] == "rrf_normalized+priors"
    assert result.meta.index["vector_version"] is not None


def test_vector_finds_meaning_without_words(corpus: Workspace) -> None:
    assert search(corpus, "parse a yaml configuration file", "vector", k=1) == ["load_settings"]


def test_auto_routes_by_intent(corpus: Workspace) -> None:
    def intent(q: str) -> dict[str, str] | None:
        return corpus.searcher.search(SearchRequest(q, mode="auto")).meta.intent

    assert intent("fetch_with_backoff") == {"name": "definition", "rule": "identifier"}
    assert intent("CircuitBreaker.threshold") == {"name": "definition", "rule": "identifier"}
    assert intent("slugify()") == {"name": "definition", "rule": "identifier"}
    assert intent("where is slugify defined") == {"name": "definition", "rule": "find phrase"}
    assert intent('"time.sleep"') == {"name": "exact_text", "rule": "quoted string"}
    assert intent("session.get(url)") == {"name": "exact_text", "rule": "code fragment"}
    assert intent("how do we wait between attempts") == {"name": "concept",
                                                         "rule": "question"}
    assert intent("wait between attempts when the connection drops") == {
        "name": "concept", "rule": "natural language"}


def test_auto_definition_first_and_test_demoted(corpus: Workspace) -> None:
    result = corpus.searcher.search(SearchRequest("fetch_with_backoff", mode="auto", k=5))
    top = result.hits[0]
    assert (top.path, top.symbol) == ("net/fetch.py", "fetch_with_backoff")
    names = [p.name for p in top.retrieval.priors]
    assert "defines_query_case_exact" in names and "definition" in names
    test_hits = [h for h in result.hits if h.path.startswith("tests/")]
    assert test_hits and all(any(p.name == "test_path" for p in h.retrieval.priors)
                             for h in test_hits)


def test_a_mode_set_by_request_ranks_with_the_same_priors(corpus: Workspace) -> None:
    """A mode picks the channels; the priors that re-rank `auto` re-rank every mode, and each
    hit lists the ones that changed it."""
    for mode in ("lexical", "vector", "hybrid"):
        result = corpus.searcher.search(
            SearchRequest("fetch with backoff", mode=mode, k=5, explain=True))
        assert result.hits[0].symbol == "fetch_with_backoff", (mode, result.hits)
        tests = [h for h in result.hits if h.path.startswith("tests/")]
        assert tests and all(any(p.name == "test_path" for p in h.retrieval.priors)
                             for h in tests), mode
        assert result.meta.score["kind"].endswith("+priors"), mode
    asked = corpus.searcher.search(SearchRequest(
        "how do we stop calling a host that keeps failing?", mode="vector", k=5, explain=True))
    lifted = {h.title: [p.name for p in h.retrieval.priors] for h in asked.hits}
    assert "callable_for_question" in lifted["fetch_with_backoff"], lifted


def test_auto_lifts_code_that_runs_for_a_question(corpus: Workspace) -> None:
    def priors_of(query: str) -> dict[str, list[str]]:
        result = corpus.searcher.search(SearchRequest(query, mode="auto", k=5))
        return {h.title: [p.name for p in h.retrieval.priors] for h in result.hits}

    asked = priors_of("how do we stop calling a host that keeps failing?")
    assert "callable_for_question" in asked["fetch_with_backoff"]
    assert "callable_for_question" not in asked["CircuitBreaker"]  # a class is not called
    told = priors_of("stop calling a host that keeps failing")
    assert not any("callable_for_question" in names for names in told.values())


def test_embedding_cache_survives_reindex_and_rename(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    for rel, text in CORPUS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text.lstrip())
    opts = Settings(index_dir=str(tmp_path / "idx"), workers=1)
    ws = Workspace(root, opts)
    ws.indexer.index()
    first = ws.sync_vectors()
    assert first is not None and first.embedded > 0
    ws.indexer.index()
    again = ws.sync_vectors()
    assert again is not None and (again.embedded, again.total) == (0, 0)
    os.rename(root / "util/strings.py", root / "util/text.py")
    ws.indexer.index()
    moved = ws.sync_vectors()
    # The code vector comes from the cache; only the summary, whole-definition and file vectors,
    # which name the file, are embedded again.
    assert moved is not None and (moved.embedded, moved.from_cache, moved.deleted) == (3, 1, 4)
    vindex = ws.vector_index()
    assert vindex is not None and vindex.coverage()[0] == vindex.coverage()[1]
    ws.close()
    reopened = Workspace(root, opts)  # a restart: nothing to embed
    after = reopened.sync_vectors()
    assert after is not None and after.embedded == 0 and after.total == 0
    reopened.close()


def test_missing_model_degrades_auto_and_fails_explicit_modes(tmp_path: Path,
                                                              corpus: Workspace) -> None:
    ws = Workspace(corpus.root, Settings(index_dir=str(tmp_path / "idx"),
                                                 model_dir=str(tmp_path / "no-model")))
    ws.indexer.index()
    assert ws.sync_vectors() is None
    result = ws.searcher.search(SearchRequest("retry failed requests", mode="auto", explain=True))
    assert result.hits and all(h.retrieval.method == "lexical" for h in result.hits)
    assert any("embedding model unavailable" in w for w in result.meta.warnings)
    for mode in ("vector", "hybrid"):  # a mode the caller chose is a contract
        with pytest.raises(SearchUnavailable, match=f"mode '{mode}' needs vector search.*"
                                                    "embedding model unavailable"):
            ws.searcher.search(SearchRequest("retry failed requests", mode=mode))
    ws.close()


def test_deleted_vector_table_degrades_then_recovers(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "sample_repo", root)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    ws.sync_vectors()
    shutil.rmtree(ws.index_dir / "vectors")
    with pytest.raises(SearchUnavailable, match="vector store unavailable"):
        ws.searcher.search(SearchRequest("user storage", mode="hybrid"))
    result = ws.searcher.search(SearchRequest("how is user storage kept", mode="auto",
                                              explain=True))
    assert result.hits and all(h.retrieval.method == "lexical" for h in result.hits)
    assert any("vector store unavailable" in w for w in result.meta.warnings)
    repaired = ws.sync_vectors()  # the next sync rebuilds from the embedding cache
    assert repaired is not None and repaired.embedded == 0 and repaired.from_cache > 0
    again = ws.searcher.search(SearchRequest("user storage", mode="hybrid"))
    assert all(h.retrieval.method == "hybrid" for h in again.hits)
    ws.close()


def test_incomplete_embeddings_are_reported(tmp_path: Path) -> None:
    from indexing.vector_index import WRITE_BATCH

    root = tmp_path / "repo"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "sample_repo", root)
    for i in range(WRITE_BATCH):  # more chunks than one batch of the sync embeds
        (root / f"extra_{i}.py").write_text(f"def store_user_{i}(user):\n    return user\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    # No vector yet: a mode the caller chose cannot be served, and says so; auto answers
    # lexically with a warning.
    for mode in ("vector", "hybrid"):
        with pytest.raises(SearchUnavailable, match="no chunk of this index has a vector yet"):
            ws.searcher.search(SearchRequest("user storage", mode=mode))
    auto = ws.searcher.search(SearchRequest("how is user storage kept", mode="auto"))
    assert auto.hits and any("embeddings cover 0.0%" in w for w in auto.meta.warnings)
    vindex = ws.vector_index()
    assert vindex is not None
    ws.sync_vectors(should_stop=lambda: vindex.coverage()[0] > 0)  # after the first batch
    result = ws.searcher.search(SearchRequest("user storage", mode="vector"))
    assert result.hits and result.meta.recall["complete"] is False
    assert any("embeddings cover" in w for w in result.meta.warnings)
    ws.close()


def test_first_paths_are_embedded_first(tmp_path: Path) -> None:
    """Open or just-saved files go to the front of the embedding queue."""
    from indexing.vector_index import WRITE_BATCH

    root = tmp_path / "repo"
    root.mkdir()
    per_file = 30
    files = WRITE_BATCH // per_file + 2  # more chunks than one write batch
    for i in range(files):
        body = "".join(f"def fn_{i}_{j}(x):\n    return x + {j}\n\n" for j in range(per_file))
        (root / f"m{i:02}.py").write_text(body)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    last = f"m{files - 1:02}.py"
    written: list[int] = []
    summary = ws.sync_vectors(first_paths=[last], progress=lambda done, _: written.append(done),
                              should_stop=lambda: bool(written and written[-1] > 0))
    assert summary is not None and summary.cancelled and summary.embedded == WRITE_BATCH
    vindex = ws.vector_index()
    assert vindex is not None
    embedded = vindex.vectors.chunk_ids()
    last_ids = {s.chunk_id for s in ws.store.embedding_sources() if s.path == last}
    assert last_ids <= embedded  # the last file in path order was embedded first
    ws.close()


# Prose that contains an apostrophe or a call is still prose: each mode answers it as that mode,
# never as exact text, and finds the function it describes.
PROSE_SHAPES = [
    ("returns the user's display name", "display_name"),
    ("what's the default timeout", "connect"),
    ("calls close() and flush() before exit", "shutdown"),
    ("the `display_name` for a `User`", "display_name"),  # backticked names in a sentence
]


@pytest.mark.parametrize("mode", ["lexical", "vector", "hybrid", "auto"])
@pytest.mark.parametrize(("query", "wanted"), PROSE_SHAPES)
def test_prose_shapes_in_every_mode(corpus: Workspace, mode: str, query: str,
                                    wanted: str) -> None:
    result = corpus.searcher.search(SearchRequest(query, mode=mode, k=5, explain=True))
    assert result.meta.query_plan != "exact"
    assert result.meta.intent is not None and result.meta.intent["name"] != "exact_text"
    methods = {h.retrieval.method for h in result.hits}
    assert methods == {"hybrid" if mode == "auto" else mode}
    assert wanted in [h.symbol for h in result.hits[:3]], [h.title for h in result.hits]


@pytest.mark.parametrize("query", ['"time.sleep"', "session.get(url)"])
def test_explicit_modes_never_become_exact_text(corpus: Workspace, query: str) -> None:
    auto = corpus.searcher.search(SearchRequest(query, mode="auto", explain=True))
    assert auto.meta.query_plan == "exact" and auto.hits[0].path == "net/fetch.py"
    vector = corpus.searcher.search(SearchRequest(query, mode="vector", explain=True))
    assert vector.hits and {h.retrieval.method for h in vector.hits} == {"vector"}
    hybrid = corpus.searcher.search(SearchRequest(query, mode="hybrid", explain=True))
    assert {h.retrieval.method for h in hybrid.hits} == {"hybrid"}
    top = hybrid.hits[0]  # the exact match is fused with the vector arm, not replaced by it
    assert top.path == "net/fetch.py" and top.retrieval.exact
    assert top.retrieval.vector_rank is not None
    assert not any("lexically" in w for w in vector.meta.warnings + hybrid.meta.warnings)


def test_a_sentence_found_whole_leads_the_fusion(corpus: Workspace) -> None:
    result = corpus.searcher.search(SearchRequest("call the server again after a pause",
                                                  mode="hybrid", k=5, explain=True))
    top = result.hits[0]
    assert top.symbol == "fetch_with_backoff"
    assert top.retrieval.lexical_weight == 1.5 and top.retrieval.lexical_rank == 1
    others = [h.retrieval.lexical_weight for h in result.hits[1:]]
    assert all(w in (None, 1.0) for w in others)


def test_similar_code_is_found_by_its_words_and_its_vector(corpus: Workspace) -> None:
    """`similar` runs both arms: the words renamed code keeps (calls, members, exceptions) and
    its vector; the original is first and says that both found it."""
    renamed = '''def get_retrying(client, address, tries=5):
    for n in range(tries):
        try:
            return client.get(address)
        except ConnectionError:
            time.sleep(2 ** n)
    raise TimeoutError(address)'''
    result = corpus.searcher.search(SearchRequest(renamed, intent="similar", k=3, explain=True))
    assert result.meta.intent == {"name": "similar", "rule": "intent set by request"}
    assert result.meta.query_plan.endswith("+vector") and not result.meta.warnings
    top = result.hits[0]
    assert top.title == "fetch_with_backoff"
    assert top.retrieval.lexical_rank == 1 and top.retrieval.vector_rank == 1


@pytest.fixture
def long_definition(tmp_path: Path) -> Iterator[Workspace]:
    """A function longer than one chunk: its meaning is in its first chunk (the docstring),
    the query's rare words only in its last."""
    filler = "\n".join(f"    step_{i} = prepare(step_{i - 1} if {i} else None)"
                       for i in range(1, 80))
    long_def = (f'def reconnect(session, host):\n'
                f'    """Open the connection again after waiting a little longer each time."""\n'
                f'    step_0 = None\n{filler}\n'
                f'    return zebra_quokka_handshake(session, host, step_79)\n')
    root = tmp_path / "repo"
    (root / "net").mkdir(parents=True)
    (root / "net" / "reconnect.py").write_text(long_def)
    (root / "net" / "other.py").write_text(
        'def slugify(title):\n    """Join the words of a title with dashes."""\n'
        '    return "-".join(title.split())\n')
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    try:
        ws.indexer.index()
        ws.sync_vectors()
        chunks = [c for c in ws.store.embedding_sources() if c.path == "net/reconnect.py"]
        assert len(chunks) >= 2  # the premise: the definition is several chunks
        yield ws
    finally:
        ws.close()


def test_a_long_definition_is_one_hybrid_hit_with_both_arms_votes(
        long_definition: Workspace) -> None:
    # Each arm finds a different piece of the definition.
    result = long_definition.searcher.search(SearchRequest(
        "zebra quokka handshake: connect again after waiting longer each time",
        mode="hybrid", k=10, explain=True))
    ours = [h for h in result.hits if h.path == "net/reconnect.py"]
    assert len(ours) == 1  # one definition, one hit
    r = ours[0].retrieval
    assert r.lexical_rank == 1 and r.vector_rank is not None
    assert result.hits[0].path == "net/reconnect.py"


def test_a_long_definition_is_one_vector_hit_at_its_best_chunk(
        long_definition: Workspace) -> None:
    # Every chunk is within reach of k = 10, and each of the long definition's chunks would
    # cite it again: it is one hit, ranked and scored by its best chunk.
    result = long_definition.searcher.search(SearchRequest(
        "connect again after waiting longer each time", mode="vector", k=10, explain=True))
    assert [(h.path, h.title) for h in result.hits] == [
        ("net/reconnect.py", "reconnect"), ("net/other.py", "slugify")]
    best, other = (h.retrieval for h in result.hits)
    assert (best.vector_rank, other.vector_rank) == (1, 2)
    assert best.vector_score is not None and other.vector_score is not None
    assert best.vector_score > other.vector_score


@pytest.fixture
def two_chunk_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every channel reads two chunks before it groups them by definition."""
    monkeypatch.setattr("search.window.FLOOR", 2)
    monkeypatch.setattr("search.window.SPREAD", 1)


@pytest.mark.usefixtures("two_chunk_window")
def test_a_vector_answer_reads_on_until_it_holds_k_definitions(
        long_definition: Workspace) -> None:
    # The two chunks read first are the long definition's, the nearest to the query.
    result = long_definition.searcher.search(SearchRequest(
        "connect again after waiting longer each time", mode="vector", k=2, explain=True))
    # Two definitions exist and two were asked for: the answer reads past the window.
    assert [(h.path, h.title) for h in result.hits] == [
        ("net/reconnect.py", "reconnect"), ("net/other.py", "slugify")]
    assert [h.retrieval.vector_rank for h in result.hits] == [1, 2]


@pytest.mark.usefixtures("two_chunk_window")
def test_a_hybrid_answer_reads_on_until_it_holds_k_definitions(
        long_definition: Workspace) -> None:
    # No word of it in `slugify`: only the vector arm, read past its window, finds it.
    result = long_definition.searcher.search(SearchRequest(
        "zebra quokka handshake", mode="hybrid", k=2, explain=True))
    assert [(h.path, h.title) for h in result.hits] == [
        ("net/reconnect.py", "reconnect"), ("net/other.py", "slugify")]
    assert result.hits[1].retrieval.lexical_rank is None


THEMES = {
    "style/theme.py": '"""Colour themes."""\n\n\nclass Theme:\n'
                      '    """A named set of styles, looked up by name when text is drawn.\n\n'
                      '    Styles are inherited from the default theme unless replaced; a theme\n'
                      '    can be loaded from a config file and pushed on a stack of themes.\n'
                      '    """\n\n'
                      + "".join(f"    style_{i} = 'bold colour {i} on black background'\n"
                                for i in range(12)),
    "style/console.py": "".join(f"def use_theme_{i}(theme):\n    return Theme(theme)\n\n\n"
                                for i in range(6)),
}


@pytest.fixture(scope="module")
def themes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("themes"), THEMES)


@pytest.mark.parametrize("mode", ["lexical", "hybrid", "vector", "auto"])
def test_an_identifier_puts_its_definition_first_in_every_mode(themes: Workspace,
                                                                mode: str) -> None:
    # The class's chunk is long (its doc and fields); six short functions mention `Theme`.
    # By bm25 alone they rank above it: the definition the name names comes first all the
    # same, in a mode the request sets as in `auto`, and says why.
    result = themes.searcher.search(SearchRequest("Theme", mode=mode, k=3, explain=True))
    top = result.hits[0]
    assert (top.path, top.symbol) == ("style/theme.py", "Theme")
    assert "defines_query_case_exact" in [p.name for p in top.retrieval.priors]
    assert len(result.hits) == 3


COLOUR_THEMES = {
    "style/colour_theme.py": "class ColourTheme:\n"
                             '    """A named set of styles, looked up when text is drawn."""\n\n'
                             + "".join(f"    style_{i} = 'bold colour {i} on black background'\n"
                                       for i in range(12)),
    "style/console.py": "".join(f"def use_colour_theme_{i}(colour, theme):\n"
                                f"    return ColourTheme(colour, theme)\n\n\n"
                                for i in range(6)),
}


@pytest.fixture(scope="module")
def colour_themes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("colour_themes"), COLOUR_THEMES)


@pytest.mark.parametrize("mode", ["lexical", "hybrid", "vector", "auto"])
def test_a_name_typed_as_words_puts_its_definition_first_in_every_mode(
        colour_themes: Workspace, mode: str) -> None:
    # "colour theme" spells `ColourTheme`. Six short functions hold both words, and by bm25
    # alone they rank above the class's long chunk. The query is still answered as words (it
    # may be a topic), and the definition it spells comes first, saying why.
    result = colour_themes.searcher.search(SearchRequest("Colour theme", mode=mode, k=3,
                                                         explain=True))
    assert result.meta.intent["name"] == ("concept" if mode == "auto" else mode)
    top = result.hits[0]
    assert (top.path, top.symbol) == ("style/colour_theme.py", "ColourTheme")
    assert "defines_query_words" in [p.name for p in top.retrieval.priors]
    assert len(result.hits) == 3


@pytest.mark.parametrize("query", ["how is the colour theme drawn", "colour theme?",
                                   "colour_theme style"])
def test_words_that_spell_no_name_whole_get_no_name_prior(colour_themes: Workspace,
                                                           query: str) -> None:
    # A sentence, punctuation, or words of which only some spell the name: no definition
    # is named, so nothing is lifted for it, while the words alone lift it.
    def lifted(text: str) -> list[str | None]:
        result = colour_themes.searcher.search(SearchRequest(text, mode="lexical", k=10,
                                                             explain=True))
        assert result.hits
        return [h.symbol for h in result.hits
                if "defines_query_words" in [p.name for p in h.retrieval.priors]]

    assert lifted("colour theme") == ["ColourTheme"]
    assert lifted(query) == []


TIMERS = {
    "src/observer.ts": "export class Observer {\n"
                       "  onSubscribe(): void {\n    this.#updateTimers()\n  }\n\n"
                       "  setOptions(): void {\n    this.#updateTimers()\n  }\n\n"
                       "  #updateTimers(): void {\n    this.#clearTimers()\n  }\n\n"
                       "  #clearTimers(): void {\n    return\n  }\n}\n",
    "src/native.c": "#include <stdio.h>\n\nint main(void) {\n  return 0;\n}\n",
}


@pytest.fixture(scope="module")
def timers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("timers"), TIMERS)


def test_a_private_name_the_index_defines_goes_definitions_first(timers: Workspace) -> None:
    # `#updateTimers` reads as code, for its `#`: as exact text it is one hit per file, cited
    # at its first occurrence, a call. The index defines the name, so the query names it.
    result = timers.searcher.search(SearchRequest("#updateTimers", k=3, explain=True))
    assert result.meta.intent == {"name": "definition", "rule": "private name"}
    top = result.hits[0]
    assert (top.path, top.symbol, top.span.start_line) == ("src/observer.ts", "#updateTimers", 9)
    assert "defines_query_case_exact" in [p.name for p in top.retrieval.priors]
    # A `#word` that nothing defines stays what it reads as: text.
    result = timers.searcher.search(SearchRequest("#include", k=3))
    assert result.meta.intent == {"name": "exact_text", "rule": "code fragment"}
    assert [(h.path, h.span.start_line) for h in result.hits] == [("src/native.c", 0)]


LOCAL_TYPES = {
    "src/thunk.ts": "export function createThunk(config: unknown, options: unknown) {\n"
                    "  type RejectedMeta = { reason: string }\n"
                    + "".join(f"  const step{i} = [config, options, {i}]\n" for i in range(8))
                    + "  return step7\n}\n\n"
                    + "".join(f"export function rejectWith{i}(meta: RejectedMeta) {{\n"
                              "  return meta\n}\n\n" for i in range(3)),
    # Code that never names it, so that bm25 finds the name rare, as in a real tree.
    "src/other.ts": "".join(f"export function other{i}(x: number): number {{\n"
                            f"  return x + {i}\n}}\n\n" for i in range(20)),
}


@pytest.fixture(scope="module")
def local_types(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("local_types"), LOCAL_TYPES)


@pytest.mark.parametrize("mode", ["lexical", "hybrid", "auto"])
def test_a_definition_with_no_chunk_of_its_own_is_cited_by_the_chunk_that_holds_it(
        local_types: Workspace, mode: str) -> None:
    # `RejectedMeta` is a local type: its definition is a line inside `createThunk`'s chunk,
    # which bm25 ranks below three short functions that use the name. That chunk holds the
    # definition the name names, so it comes first, cited at the definition's line.
    result = local_types.searcher.search(SearchRequest("RejectedMeta", mode=mode, k=3,
                                                       explain=True))
    top = result.hits[0]
    assert (top.path, top.symbol, top.span.start_line) == ("src/thunk.ts", "createThunk", 1)
    assert "holds_query_definition" in [p.name for p in top.retrieval.priors]


@pytest.mark.parametrize("mode", ["lexical", "hybrid", "auto"])
def test_a_name_typed_as_words_with_no_chunk_of_its_own_lifts_the_chunk_that_holds_it(
        local_types: Workspace, mode: str) -> None:
    # "rejected meta" spells `RejectedMeta`, a local type with no chunk of its own. No hit
    # defines it, so the definitions-first prior for words had nothing to lift, and the three
    # short functions that use it ranked first. Its definition is found by how code spells
    # those words, and the chunk that holds it comes first, saying why.
    result = local_types.searcher.search(SearchRequest("rejected meta", mode=mode, k=3,
                                                       explain=True))
    assert result.meta.intent["name"] == ("concept" if mode == "auto" else mode)
    top = result.hits[0]
    assert (top.path, top.symbol) == ("src/thunk.ts", "createThunk")
    assert "holds_query_words" in [p.name for p in top.retrieval.priors]
    assert len(result.hits) == 3


def test_an_empty_vector_answer_under_a_filter_says_why_and_cuts_nothing(
        corpus: Workspace) -> None:
    for mode in ("vector", "hybrid"):
        result = corpus.searcher.search(SearchRequest(
            "how are users stored", mode=mode, filters=Filters(path_glob="nowhere/**")))
        assert result.hits == [] and result.meta.recall["truncated"] is False, mode
        assert any("matches path_glob 'nowhere/**'" in w for w in result.meta.warnings), mode


def test_a_vector_answer_that_shows_every_chunk_is_not_cut_off(corpus: Workspace) -> None:
    """Every chunk is a vector candidate: an answer is cut off when some were left out, not
    whenever it has hits (a client then said "more matched" of a whole small tree)."""
    chunks = corpus.store.stats().chunks
    for mode in ("vector", "hybrid"):
        everything = corpus.searcher.search(SearchRequest("how are users stored", mode=mode,
                                                          k=chunks + 10))
        assert everything.hits and everything.meta.recall["truncated"] is False, mode
        one = corpus.searcher.search(SearchRequest("how are users stored", mode=mode, k=1))
        assert len(one.hits) == 1 and one.meta.recall["truncated"] is True, mode


EXAMPLES = {
    "src/termui.py": '''
import subprocess


def echo_via_pager(text):
    """Show long text one screen at a time through the user's pager."""
    pager = subprocess.Popen(["less"], stdin=subprocess.PIPE)
    pager.communicate(text.encode())
''',
    "examples/pager/show.py": '''
from termui import echo_via_pager


def show_long_output(lines):
    """Show long output through a pager."""
    echo_via_pager("\\n".join(lines))
''',
}


@pytest.fixture(scope="module")
def with_examples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("examples"), EXAMPLES)


def test_a_question_ranks_an_example_below_the_code_it_calls(with_examples: Workspace) -> None:
    """An example calls the project's code under the words a question uses; a question asks
    for the code. A sentence copied from the example's doc is still answered by the example.
    Without the prior, the example's fused score (1.173 / 0.85 = 1.38) is above the code's
    (1.36). Every mode applies it; in `lexical` and `vector` the example's lead is wider than
    the prior, which only re-ranks near ties."""
    ws = with_examples
    for mode in ("lexical", "vector", "hybrid", "auto"):
        asked = ws.searcher.search(SearchRequest(
            "how is long output shown through a pager?", mode=mode, k=5, explain=True))
        if mode in ("hybrid", "auto"):
            paths = [h.path for h in asked.hits]
            assert paths[:2] == ["src/termui.py", "examples/pager/show.py"], (mode, paths)
        assert all(("example_path" in [p.name for p in h.retrieval.priors])
                   == h.path.startswith("examples/") for h in asked.hits), mode
        told = ws.searcher.search(SearchRequest(
            "Show long output through a pager.", mode=mode, k=5, explain=True))
        assert told.hits[0].path == "examples/pager/show.py", mode
        assert all(p.name != "example_path" for h in told.hits
                   for p in h.retrieval.priors), mode


STORIES = {
    "src/Button.tsx": """
/** A clickable button; greyed out and ignoring clicks while disabled. */
export function Button(props: { label: string; disabled?: boolean; onClick(): void }) {
  const style = props.disabled ? { opacity: 0.5 } : {};
  return (
    <button style={style} disabled={props.disabled} onClick={props.onClick}>
      {props.label}
    </button>
  );
}
""",
    "src/Button.stories.tsx": """
import { Button } from "./Button";

export default { title: "Button" };

/** The button while disabled: greyed out, clicks ignored. */
export const Disabled = () => <Button label="Save" disabled onClick={() => {}} />;
""",
}


@pytest.fixture(scope="module")
def with_stories(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("stories"), STORIES)


def test_a_question_weighs_a_story_as_an_example(with_stories: Workspace) -> None:
    """Storybook's stories sit beside the component and render it in the states a question
    names; a question asks for the component's code. The story keeps its hit, weighed as an
    example, in every mode; a sentence is not weighed so."""
    ws = with_stories
    for mode in ("lexical", "vector", "hybrid", "auto"):
        asked = ws.searcher.search(SearchRequest(
            "how is the button shown while disabled?", mode=mode, k=5, explain=True))
        paths = [h.path for h in asked.hits]
        assert "src/Button.stories.tsx" in paths and "src/Button.tsx" in paths, (mode, paths)
        assert all(("example_path" in [p.name for p in h.retrieval.priors])
                   == h.path.endswith(".stories.tsx") for h in asked.hits), mode
        if mode in ("hybrid", "auto"):
            assert paths[0] == "src/Button.tsx", (mode, paths)
        told = ws.searcher.search(SearchRequest(
            "The button while disabled.", mode=mode, k=5, explain=True))
        assert all(p.name != "example_path" for h in told.hits
                   for p in h.retrieval.priors), mode


TESTED = {
    "src/chain.py": '''
def check_nested_group(group, chained):
    """Refuse a group nested in a chain: a chained group's commands must be plain commands."""
    if chained and group.commands:
        raise RuntimeError("cannot nest")
''',
    "tests/test_chain.py": '''
from chain import check_nested_group


def test_nested_group_in_chain_mode(group):
    """A group nested under a group in chain mode."""
    check_nested_group(group, chained=True)
''',
}


@pytest.fixture(scope="module")
def with_tests(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    yield from indexed(tmp_path_factory.mktemp("tested"), TESTED)


def test_a_question_weighs_a_test_further_but_who_calls_does_not(with_tests: Workspace) -> None:
    """Every mode weighs a test for a question (`test_for_question`, its effect on the order
    is in test_priors.py) beyond a test's own factor; "who calls X" in a mode the request sets
    is answered by a test's call too, and a sentence that is not a question is not asked."""
    ws = with_tests
    question = "what happens if I nest a group under a group in chain mode?"
    for mode in ("lexical", "vector", "hybrid", "auto"):
        asked = ws.searcher.search(SearchRequest(question, mode=mode, k=5, explain=True))
        assert {h.path for h in asked.hits} == {"src/chain.py", "tests/test_chain.py"}, mode
        for hit in asked.hits:
            names = [p.name for p in hit.retrieval.priors]
            assert ("test_for_question" in names) == hit.path.startswith("tests/"), mode
        calls = ws.searcher.search(SearchRequest("who calls check_nested_group", mode=mode,
                                                 k=5, explain=True))
        assert any(h.path.startswith("tests/") for h in calls.hits), mode
        told = ws.searcher.search(SearchRequest("A group nested under a group in chain mode.",
                                                mode=mode, k=5, explain=True))
        for answer in (calls, told):
            assert all(p.name != "test_for_question" for h in answer.hits
                       for p in h.retrieval.priors), mode

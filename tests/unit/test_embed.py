"""The embedder against the real bundled model (loaded once for the module)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from indexing.embed import (
    Embedder,
    EmbedderUnavailable,
    ModelSpec,
    default_model_spec,
    default_threads,
)

pytestmark = pytest.mark.model

BUNDLED_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                           "config.json")

CONFIG_FUNCTION = '''def load_config(path: str) -> dict:
    """Read the settings file and return it as a dict."""
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)
'''
QUERY = "function that reads a YAML config file"
UNRELATED = "The orchestra rehearsed the symphony until late in the evening."


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    emb = Embedder()
    ok, reason = emb.available()
    assert ok, reason
    return emb


@pytest.fixture(scope="module")
def fastembed_dir(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled model laid out as a fastembed model directory (weights and tokenizer files
    side by side), which is what a user passes as `--model-dir`."""
    target = tmp_path_factory.mktemp("fastembed-model")
    files = embedder.files()
    (target / "model.onnx").symlink_to(files.weights)
    for name in BUNDLED_TOKENIZER_FILES:
        (target / name).symlink_to(files.tokenizer_dir / name)
    return target


def test_vectors_are_unit_length_float32_of_dim(embedder: Embedder) -> None:
    vectors = embedder.embed([CONFIG_FUNCTION, QUERY, UNRELATED, ""])
    assert vectors.shape == (4, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.dim == 384


def test_empty_input_gives_empty_matrix(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, 384)


def test_query_matches_code_far_better_than_unrelated_text(embedder: Embedder) -> None:
    code, unrelated = embedder.embed([CONFIG_FUNCTION, UNRELATED])
    query = embedder.embed_query(QUERY)
    assert query.shape == (384,)
    related_score = float(query @ code)
    unrelated_score = float(query @ unrelated)
    assert related_score > 0.5
    assert related_score - unrelated_score > 0.4


def test_same_text_same_vector_regardless_of_batch(embedder: Embedder) -> None:
    others = [f"def helper_{i}(x):\n    return x * {i}" for i in range(10)] + ["x " * 300]
    alone = embedder.embed([CONFIG_FUNCTION])[0]
    again = embedder.embed_query(CONFIG_FUNCTION)
    in_batch = embedder.embed([*others[:5], CONFIG_FUNCTION, *others[5:]], batch_size=4)[5]
    np.testing.assert_array_equal(alone, again)
    np.testing.assert_allclose(alone, in_batch, atol=1e-5)


def test_output_order_follows_input_order_despite_length_sorting(embedder: Embedder) -> None:
    texts = ["short", "a much longer text " * 20, "medium length text here"]
    batched = embedder.embed(texts)
    singles = np.stack([embedder.embed_query(t) for t in texts])
    np.testing.assert_allclose(batched, singles, atol=1e-5)


def test_model_id_names_model_and_dim(embedder: Embedder) -> None:
    assert embedder.model_id.startswith(default_model_spec().name)
    assert "384" in embedder.model_id
    other = Embedder(ModelSpec(name=default_model_spec().name, max_tokens=256))
    assert other.model_id != embedder.model_id


def test_threads_default_leaves_a_core_free(embedder: Embedder) -> None:
    cores = os.cpu_count() or 1
    assert default_threads() == max(1, cores - 1)
    assert embedder.threads == default_threads()
    # The onnxruntime session really runs with that many intra-op threads.
    session = embedder._session
    assert session.get_session_options().intra_op_num_threads == embedder.threads


def test_user_model_dir_loads_like_the_bundled_one(
    embedder: Embedder, fastembed_dir: Path
) -> None:
    spec = ModelSpec(name="user-minilm", model_dir=fastembed_dir)
    user = Embedder(spec, threads=1)
    np.testing.assert_allclose(user.embed_query(QUERY), embedder.embed_query(QUERY), atol=1e-5)


def test_missing_model_dir_is_unavailable_with_reason(tmp_path: Path) -> None:
    emb = Embedder(ModelSpec(name="absent", model_dir=tmp_path / "nope"))
    ok, reason = emb.available()
    assert not ok
    assert reason is not None and "nope" in reason
    with pytest.raises(EmbedderUnavailable, match="does not exist"):
        emb.embed(["x"])


def test_incomplete_model_dir_names_missing_files(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"not a model")
    emb = Embedder(ModelSpec(name="partial", model_dir=tmp_path))
    with pytest.raises(EmbedderUnavailable, match="tokenizer.json"):
        emb.load()


def test_corrupt_weights_are_unavailable_not_a_crash(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "indexing" / "embedding_model"
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        (tmp_path / name).write_bytes((source / name).read_bytes())
    (tmp_path / "model.onnx").write_bytes(b"garbage, not protobuf")
    emb = Embedder(ModelSpec(name="corrupt", model_dir=tmp_path))
    ok, reason = emb.available()
    assert not ok and reason


def test_wrong_dim_is_reported(fastembed_dir: Path) -> None:
    emb = Embedder(ModelSpec(name="wrong-dim", model_dir=fastembed_dir, dim=768), threads=1)
    with pytest.raises(EmbedderUnavailable, match="768"):
        emb.load()


# -- the same vectors as when fastembed loaded the model -------------------------------------

FASTEMBED_TEXTS = [
    CONFIG_FUNCTION,
    QUERY,
    UNRELATED,
    "",
    "[CLS] [MASK] tokens that are special [SEP] [PAD] [UNK]",
    "naïve café — ünïcödé and emoji \U0001f600 and CJK 漢字",
    "def very_long(x):\n" + "    x = x + 1  # increment the counter once more\n" * 80,
]


@pytest.fixture(scope="module")
def fastembed_model(fastembed_dir: Path) -> object:
    """The model as the fastembed-based loader loaded it (fastembed is a test-only dependency:
    this is the reference the direct loader must reproduce)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = "kebab-test/minilm-int8"
    try:
        TextEmbedding.add_custom_model(
            model=name, pooling=PoolingType.MEAN, normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"), dim=384,
            model_file="model.onnx")
    except ValueError as exc:
        if "already registered" not in str(exc):
            raise
    return TextEmbedding(model_name=name, specific_model_path=str(fastembed_dir), threads=1,
                         cache_dir=str(fastembed_dir), providers=["CPUExecutionProvider"])


def test_token_ids_match_fastembeds_tokenizer(embedder: Embedder, fastembed_model: object) -> None:
    reference = fastembed_model.model.tokenizer  # type: ignore[attr-defined]
    reference.enable_truncation(max_length=embedder.spec.max_tokens)
    reference.no_padding()
    ours = embedder._tokenizer.encode_batch(FASTEMBED_TEXTS)
    theirs = reference.encode_batch(FASTEMBED_TEXTS)
    assert [e.ids for e in ours] == [e.ids for e in theirs]
    assert max(len(e.ids) for e in ours) == embedder.spec.max_tokens  # truncation happened


def test_vectors_match_fastembeds_session_bit_for_bit(fastembed_dir: Path,
                                                      fastembed_model: object) -> None:
    ours = Embedder(ModelSpec(name="direct", model_dir=fastembed_dir), threads=1)
    expected = ours.embed(FASTEMBED_TEXTS)
    # The same loop, driven by the session and tokenizer fastembed built.
    inner = fastembed_model.model  # type: ignore[attr-defined]
    inner.tokenizer.enable_truncation(max_length=ours.spec.max_tokens)
    inner.tokenizer.no_padding()
    ours._session, ours._tokenizer = inner.model, inner.tokenizer
    np.testing.assert_array_equal(ours.embed(FASTEMBED_TEXTS), expected)


def test_short_texts_match_fastembeds_own_embed(embedder: Embedder,
                                                fastembed_model: object) -> None:
    short = [t for t in FASTEMBED_TEXTS if len(embedder._tokenizer.encode(t).ids) < 100]
    theirs = np.stack(list(fastembed_model.embed(short, batch_size=1)))  # type: ignore[attr-defined]
    np.testing.assert_allclose(embedder.embed(short), theirs, atol=1e-6)


# -- the optimized-graph cache -----------------------------------------------------------------


def test_cached_optimized_graph_gives_identical_vectors(embedder: Embedder,
                                                        tmp_path: Path) -> None:
    expected = embedder.embed(FASTEMBED_TEXTS)
    first = Embedder(cache_dir=tmp_path / "models")
    np.testing.assert_array_equal(first.embed(FASTEMBED_TEXTS), expected)
    saved = list((tmp_path / "models").iterdir())
    assert [p.suffix for p in saved] == [".onnx"]  # one complete file, no temporaries left
    stamp = saved[0].stat().st_mtime_ns
    again = Embedder(cache_dir=tmp_path / "models")  # a later process: loads the saved graph
    np.testing.assert_array_equal(again.embed(FASTEMBED_TEXTS), expected)
    assert saved[0].stat().st_mtime_ns == stamp


def test_a_corrupt_cached_graph_is_rebuilt(embedder: Embedder, tmp_path: Path) -> None:
    Embedder(cache_dir=tmp_path).load()
    (saved,) = tmp_path.iterdir()
    saved.write_bytes(b"half a protobuf")
    again = Embedder(cache_dir=tmp_path)
    np.testing.assert_array_equal(again.embed(FASTEMBED_TEXTS), embedder.embed(FASTEMBED_TEXTS))
    assert saved.stat().st_size > 1_000_000


def test_an_unusable_cache_dir_is_done_without(embedder: Embedder, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    emb = Embedder(cache_dir=blocked / "models")
    np.testing.assert_array_equal(emb.embed_query(QUERY), embedder.embed_query(QUERY))

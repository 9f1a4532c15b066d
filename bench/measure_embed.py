"""Embedding throughput: kebab's `Embedder.embed` against a bare onnxruntime + tokenizers loop on
the same chunks, model files and threads, to show what kebab's own code costs on top of the
model. Passes alternate kebab, bare, kebab, bare, … so that both sides see the same load."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from bench import peers
from bench.config import PASSES, SEED
from bench.stats import load, values_figure


def embedding(index_dir: Path, n: int, passes: int = PASSES) -> dict[str, Any]:
    from indexing.runtime import shared_embedder
    from indexing.store import Store
    from indexing.vector_index import embedding_text

    store = Store(index_dir)
    try:
        sources = store.embedding_sources()
    finally:
        store.close()
    rng = random.Random(SEED)
    sample = sorted(rng.sample(range(len(sources)), min(n, len(sources))))
    texts = [embedding_text(sources[i]) for i in sample]
    embedder = shared_embedder(None, None)
    t0 = time.perf_counter()
    embedder.load()
    load_s = time.perf_counter() - t0
    embedder.embed(texts[:8])
    files = embedder.files()  # the same files it loaded
    ours: list[float] = []
    bare: list[float] = []
    cosines: list[float] = []
    loads: list[float] = []
    for _ in range(passes):
        loads.append(load())
        t0 = time.perf_counter()
        vectors = embedder.embed(texts)
        ours.append(time.perf_counter() - t0)
        bare_s, bare_vectors = peers.bare_onnx_throughput(
            files.weights, files.tokenizer_dir / "tokenizer.json", texts, embedder.threads,
            embedder.spec.max_tokens)
        bare.append(bare_s)
        cosines.append(float((vectors * bare_vectors).sum(axis=1).min()))
    rate = [len(texts) / s for s in ours]
    return {
        "sample": len(texts), "total_chunks": len(sources), "threads": embedder.threads,
        "load_s": load_s, "pass_load": loads,
        "ours_s": values_figure(ours), "ours_chunks_per_s": values_figure(rate),
        "bare_s": values_figure(bare),
        "bare_chunks_per_s": values_figure([len(texts) / s for s in bare]),
        "ratio": values_figure([o / b for o, b in zip(ours, bare, strict=True)]),
        "min_cosine_vs_bare": min(cosines),
        "extrapolated_full_s": values_figure([len(sources) / r for r in rate]),
    }

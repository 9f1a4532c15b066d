"""Where one core's embedding time goes: `python -m bench.embed_profile [TREE] [N]`.

Indexes TREE (default: click 8.1.7 from the bench corpora) into a temporary directory, embeds N
of its chunks (seed 7, default 300) with `Embedder.embed` on one thread under onnxruntime's
profiler, and prints: the share of time inside `session.run`, the share of each operator, the
arithmetic of the matrix multiplications and the rate they reach, and, for scale, what numpy's
single-threaded SGEMM reaches on the same shapes on this machine. Not part of `make bench`:
profiling slows the run down; this is for finding the limit, not for timing it.
"""

from __future__ import annotations

import collections
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads its BLAS

import numpy as np

HIDDEN, FFN, LAYERS = 384, 1536, 6  # all-MiniLM-L6-v2


def sample_texts(tree: Path, n: int) -> list[str]:
    from indexing.settings import Settings
    from indexing.vector_index import embedding_text
    from kebab_lsp.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="kebab-embed-profile-") as index_dir:
        ws = Workspace(tree, Settings(index_dir=str(index_dir), embed=False))
        ws.indexer.index()
        sources = ws.store.embedding_sources()
        ws.close()
    picked = random.Random(7).sample(sources, min(n, len(sources)))
    return [embedding_text(s) for s in picked]


def gemm_flop(shapes: list[tuple[int, int]]) -> float:
    """Multiply-adds x 2 of every matrix product in the encoder for the batches run: the four
    attention projections and the two feed-forward layers per token, and the two attention
    products (scores, weighted values) per pair of positions."""
    total = 0.0
    for batch, width in shapes:
        tokens = batch * width
        total += LAYERS * 2 * tokens * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN)
        total += LAYERS * 2 * 2 * batch * width * width * HIDDEN
    return total


def main(argv: list[str]) -> None:
    from bench import corpora
    from indexing.embed import Embedder, import_onnxruntime

    ort = import_onnxruntime()

    tree = Path(argv[0]) if argv else corpora.fetch(corpora.EVAL_CORPORA[0])
    texts = sample_texts(tree, int(argv[1]) if len(argv) > 1 else 300)
    embedder = Embedder(threads=1)
    embedder.load()
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = str(Path(tempfile.gettempdir()) / "kebab-embed-profile")
    session = ort.InferenceSession(str(embedder.files().weights), sess_options=options,
                                   providers=["CPUExecutionProvider"])
    shapes: list[tuple[int, int]] = []
    in_run = [0.0]

    class Recorder:
        """The profiled session, counting the batches and the time spent inside it."""

        def run(self, outputs: Any, feeds: dict[str, Any]) -> Any:
            shapes.append(feeds["input_ids"].shape)
            t0 = time.perf_counter()
            result = session.run(outputs, feeds)
            in_run[0] += time.perf_counter() - t0
            return result

        def get_inputs(self) -> Any:
            return session.get_inputs()

    embedder._session = Recorder()  # noqa: SLF001 - profiling the real loop
    t0 = time.perf_counter()
    embedder.embed(texts)
    wall = time.perf_counter() - t0
    trace = Path(session.end_profiling())
    by_op: collections.Counter[str] = collections.Counter()
    for event in json.loads(trace.read_text()):
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            by_op[event["args"]["op_name"]] += event["dur"] / 1e6
    trace.unlink()
    ops = sum(by_op.values())
    real = sum(len(e.ids) for e in embedder._tokenizer.encode_batch(texts))  # noqa: SLF001
    padded = sum(b * w for b, w in shapes)
    matmul = by_op["MatMul"] + by_op["FusedMatMul"]
    print(f"{len(texts)} chunks of {tree.name}: {real / len(texts):.0f} tokens each on average, "
          f"{100 * (padded - real) / padded:.1f}% padding, {len(shapes)} onnxruntime runs")
    print(f"embed: {wall:.2f} s ({len(texts) / wall:.1f} chunks/s, profiler on); "
          f"inside session.run: {100 * in_run[0] / wall:.1f}%")
    print("operators (share of operator time):")
    for op, seconds in by_op.most_common(8):
        print(f"  {op:24} {seconds:7.2f} s {100 * seconds / ops:5.1f}%")
    flop = gemm_flop(shapes)
    print(f"matrix products: {flop / 1e9:.0f} GFLOP in {matmul:.2f} s of MatMul/FusedMatMul = "
          f"{flop / matmul / 1e9:.1f} GFLOP/s")
    a = np.random.default_rng(0).random((512, HIDDEN), dtype=np.float32)
    for n in (HIDDEN, FFN):
        b = np.random.default_rng(1).random((HIDDEN, n), dtype=np.float32)
        a @ b
        reps, t0 = 200, time.perf_counter()
        for _ in range(reps):
            a @ b
        rate = reps * 2 * 512 * HIDDEN * n / (time.perf_counter() - t0) / 1e9
        print(f"numpy SGEMM, 1 thread, 512x{HIDDEN} @ {HIDDEN}x{n}: {rate:.1f} GFLOP/s")


if __name__ == "__main__":
    main(sys.argv[1:])

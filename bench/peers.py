"""The tools a user would pick instead, measured on the same tree in the same run."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import numpy as np
import numpy.typing as npt

from bench.lsp_client import LspClient, LspError
from bench.stats import load


@dataclass(frozen=True, slots=True)
class NameQuery:
    """An exact definition name and the one file (workspace-relative) that defines it."""

    name: str
    path: str


@dataclass(slots=True)
class LookupFigures:
    latencies: list[float] = field(default_factory=list)
    top1: int = 0
    found: int = 0
    asked: int = 0
    notes: list[str] = field(default_factory=list)


def uri_to_rel(uri: str, root: Path) -> str | None:
    path = Path(unquote(urlparse(uri).path))
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def score_symbols(result: Any, q: NameQuery, root: Path) -> tuple[bool, bool]:
    """(top-1 correct, found anywhere) for a workspace/symbol answer."""
    items = result or []
    hits = [(it.get("name"), uri_to_rel((it.get("location") or {}).get("uri", ""), root))
            for it in items]
    want = (q.name, q.path)
    return (bool(hits) and hits[0] == want), want in hits


# -- universal-ctags ----------------------------------------------------------------------------


def ctags_build(ctags: str, root: Path, tags: Path, languages: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([ctags, "-R", "--fields=+n", f"--languages={languages}", "-f", str(tags), "."],
                   cwd=root, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def ctags_lookup(readtags: str, tags: Path, queries: Sequence[NameQuery]) -> LookupFigures:
    """`readtags -t tags NAME`: a binary search in the sorted tags file, one process each,
    as an editor's tag jump costs it."""
    fig = LookupFigures()
    for q in queries:
        t0 = time.perf_counter()
        out = subprocess.run([readtags, "-t", str(tags), "-e", q.name],
                             capture_output=True, text=True, check=False).stdout
        fig.latencies.append(time.perf_counter() - t0)
        files = [line.split("\t")[1].removeprefix("./") for line in out.splitlines()
                 if line.count("\t") >= 2]
        fig.asked += 1
        fig.top1 += bool(files) and files[0] == q.path
        fig.found += q.path in files
    return fig


# -- ripgrep ------------------------------------------------------------------------------------


def rg_files(rg: str, root: Path, text: str) -> tuple[float, set[str]]:
    t0 = time.perf_counter()
    out = subprocess.run([rg, "-F", "-l", "--no-messages", "--", text, "."], cwd=root,
                         capture_output=True, text=True, check=False).stdout
    elapsed = time.perf_counter() - t0
    return elapsed, {line.removeprefix("./") for line in out.splitlines() if line}


# -- pyright ------------------------------------------------------------------------------------


@dataclass(slots=True)
class PyrightRun:
    passes: list[LookupFigures] = field(default_factory=list)
    first_answer_s: float | None = None  # until its first non-empty answer
    notes: list[str] = field(default_factory=list)
    pass_load: list[float] = field(default_factory=list)


def pyright_symbols(
    langserver: Path, root: Path, queries: Sequence[NameQuery], passes: int,
    ready_timeout: float, stderr_path: Path | None = None,
) -> PyrightRun:
    """workspace/symbol through one pyright-langserver, `passes` passes over `queries`, each
    after one untimed request. It answers 0 results, no error, until it has listed the files,
    so the passes start after its first non-empty answer."""
    run = PyrightRun()
    client = LspClient([str(langserver), "--stdio"], cwd=root, stderr_path=stderr_path,
                       configuration=lambda item: {} if item.get("section") else None)
    try:
        t0 = time.perf_counter()
        client.initialize([root], timeout=60)
        probe = queries[0].name
        while time.perf_counter() - t0 < ready_timeout:
            try:
                result = client.request("workspace/symbol", {"query": probe},
                                        timeout=max(1.0, ready_timeout))
            except (TimeoutError, LspError) as exc:
                run.notes.append(f"probe failed: {exc}")
                break
            if result:
                run.first_answer_s = time.perf_counter() - t0
                break
            time.sleep(0.5)
        if run.first_answer_s is None:
            run.notes.append(f"no non-empty answer within {ready_timeout:.0f} s")
            return run
        for _ in range(passes):
            run.pass_load.append(load())
            client.request("workspace/symbol", {"query": probe}, timeout=120)
            fig = LookupFigures()
            for q in queries:
                try:
                    elapsed, result = client.timed("workspace/symbol", {"query": q.name},
                                                   timeout=120)
                except (TimeoutError, LspError) as exc:
                    run.notes.append(f"{q.name}: {exc}")
                    continue
                fig.latencies.append(elapsed)
                top1, found = score_symbols(result, q, root)
                fig.asked += 1
                fig.top1 += top1
                fig.found += found
            run.passes.append(fig)
    finally:
        client.close(timeout=10)
    return run


# -- bare onnxruntime ---------------------------------------------------------------------------


def bare_onnx_throughput(
    model_path: Path, tokenizer_path: Path, texts: Sequence[str], threads: int,
    max_tokens: int = 128, batch_size: int = 32, sort_by_length: bool = True,
) -> tuple[float, npt.NDArray[np.float32]]:
    """Seconds to embed `texts` with a plain tokenizer + InferenceSession loop (mean pooling,
    L2 normalisation), and the vectors, in input order."""
    from indexing.embed import import_onnxruntime

    ort = import_onnxruntime()
    from tokenizers import Tokenizer

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model_path), sess_options=opts,
                                   providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}
    tok = Tokenizer.from_file(str(tokenizer_path))
    tok.enable_truncation(max_length=max_tokens)
    tok.no_padding()
    # Warm-up outside the clock, as the embedder's own load probe is.
    session.run(None, {"input_ids": np.ones((1, 4), np.int64),
                       **({"attention_mask": np.ones((1, 4), np.int64)}
                          if "attention_mask" in names else {}),
                       **({"token_type_ids": np.zeros((1, 4), np.int64)}
                          if "token_type_ids" in names else {})})
    out = np.empty((len(texts), 384), dtype=np.float32)
    t0 = time.perf_counter()
    encs = [e.ids for e in tok.encode_batch(list(texts))]
    order = (sorted(range(len(encs)), key=lambda i: len(encs[i])) if sort_by_length
             else list(range(len(encs))))
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        width = max(len(encs[i]) for i in idx)
        ids = np.zeros((len(idx), width), np.int64)
        mask = np.zeros((len(idx), width), np.int64)
        for row, i in enumerate(idx):
            ids[row, : len(encs[i])] = encs[i]
            mask[row, : len(encs[i])] = 1
        feeds = {"input_ids": ids}
        if "attention_mask" in names:
            feeds["attention_mask"] = mask
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(session.run(None, feeds)[0], dtype=np.float32)
        w = mask.astype(np.float32)
        pooled = np.einsum("bld,bl->bd", hidden, w) / np.maximum(w.sum(1, keepdims=True), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        out[idx] = pooled
    return time.perf_counter() - t0, out

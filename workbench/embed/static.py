"""A model2vec static model distilled once from the local MiniLM: numpy-only embedding.

Distilling needs torch once (about a minute) and saves the model under the workbench cache
(``<cache>/models/``); embedding with it never imports torch.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import EmbedderError
from ..fsutil import workbench_cache_dir
from .minilm import minilm_path
from .protocol import BaseEmbedder, normalise_rows

__all__ = ["StaticEmbedder"]

log = logging.getLogger(__name__)


class StaticEmbedder(BaseEmbedder):
    """A model2vec static model distilled once from the local MiniLM; numpy-only afterwards.

    The distilled model is saved under ``<cache>/models/``; distilling needs torch once
    (about a minute), embedding never does. ``progress`` shows a bar for long lists of texts.
    """

    name = "static"
    PCA_DIMS = 256

    def __init__(self, model_dir: str | Path | None = None, progress: bool = True):
        self.model_dir = Path(model_dir) if model_dir else workbench_cache_dir() / "models" / "minilm-static-256"
        self.progress = progress
        self._model = None

    @property
    def version(self) -> str:
        return f"model2vec-distilled-minilm-{self.PCA_DIMS}/1"

    def distill(self) -> Path:
        """Distil the static model from MiniLM into ``model_dir`` (once)."""
        if (self.model_dir / "model.safetensors").exists():
            return self.model_dir
        log.warning("distilling a static embedding model from MiniLM into %s (once, ~1 min)", self.model_dir)
        path = minilm_path()
        if os.path.isdir(path):
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from model2vec.distill import distill
        except ImportError as err:
            raise EmbedderError(
                "the static embedder needs model2vec's distiller once: pip install 'model2vec[distill]'"
            ) from err
        model = distill(model_name=path, pca_dims=self.PCA_DIMS)
        self.model_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.model_dir.with_name(self.model_dir.name + f".tmp{os.getpid()}")
        model.save_pretrained(str(tmp))
        try:
            tmp.rename(self.model_dir)  # atomic: a concurrent distiller may have won the race
        except OSError:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
        return self.model_dir

    def model(self):
        if self._model is None:
            from model2vec import StaticModel

            self._model = StaticModel.from_pretrained(str(self.distill()))
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model().encode(list(texts), show_progress_bar=self.progress and len(texts) > 6000)
        return normalise_rows(vectors)

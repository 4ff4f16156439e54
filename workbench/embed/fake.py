"""A deterministic, model-free embedder: the test double that ships with the library."""

from __future__ import annotations

import hashlib
import re
from typing import Sequence

import numpy as np

from .protocol import BaseEmbedder, normalise_rows

__all__ = ["FakeEmbedder"]


class FakeEmbedder(BaseEmbedder):
    """Deterministic, model-free vectors for tests: hashed bag of words, unit length.

    Texts sharing words get similar vectors, so clustering still has something to find.
    ``calls`` and ``embedded`` count the calls to :meth:`embed` and the texts they embedded.
    """

    name = "fake"

    def __init__(self, dims: int = 64):
        self.dims = dims
        self.calls = 0
        self.embedded = 0

    @property
    def version(self) -> str:
        return f"fake{self.dims}/1"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.embedded += len(texts)
        out = np.zeros((len(texts), self.dims), np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]{4,}", text.lower()):
                h = int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little")
                out[i, h % self.dims] += 1.0
        out[np.linalg.norm(out, axis=1) == 0, 0] = 1.0
        return normalise_rows(out)

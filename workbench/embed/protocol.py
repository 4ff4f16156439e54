"""What every embedder is: the :class:`Embedder` protocol and the :class:`BaseEmbedder` defaults.

An embedder has a ``name`` (its registry name), a ``version`` that changes whenever its vectors
would (the cache key), and ``embed(texts) -> ndarray``: one unit-length float32 row per text.
Two more members exist for embedders whose vectors depend on the whole corpus (tfidf):
``bind_corpus(texts)`` names the corpus, ``bound`` says whether one is named, and
``embed_words(words)`` puts words (label candidates) in the corpus's space. :class:`BaseEmbedder`
gives every backend the defaults: nothing to bind, always bound, words embedded as texts.
"""

from __future__ import annotations

import hashlib
import os
from abc import abstractmethod
from typing import Protocol, Sequence, runtime_checkable

import numpy as np

__all__ = ["Embedder", "BaseEmbedder", "text_hash", "normalise_rows", "progress_bar"]


@runtime_checkable
class Embedder(Protocol):
    """Texts in, unit-length float32 vectors out (see the module's docstring)."""

    name: str

    @property
    @abstractmethod
    def version(self) -> str:
        """Changes whenever the vectors would: the cache key is ``f"{name}:{version}"``."""

    @property
    def bound(self) -> bool:
        """Whether vectors may be cached: False while a corpus-relative embedder has no corpus."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text."""

    def embed_words(self, words: Sequence[str]) -> np.ndarray:
        """One row per word (or short phrase), in the same space as :meth:`embed`'s."""

    def bind_corpus(self, texts: Sequence[str], hashes: Sequence[str] | None = None) -> None:
        """Name the corpus ``texts`` (with their :func:`text_hash`, if known) vectors are relative to."""


class BaseEmbedder(Embedder):
    """The defaults of an embedder whose vector of a text depends on that text alone."""

    @property
    def bound(self) -> bool:
        return True

    def embed_words(self, words: Sequence[str]) -> np.ndarray:
        return self.embed(words)

    def bind_corpus(self, texts: Sequence[str], hashes: Sequence[str] | None = None) -> None:
        return None


def text_hash(text: str) -> str:
    """The cache's key of a text: the start of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def normalise_rows(vectors: np.ndarray, in_place: bool = False) -> np.ndarray:
    """``vectors`` as float32 rows of unit length (a zero row stays zero), made :data:`ROWS_AT_ONCE`
    rows at a time: the whole array's squares and quotients were two more copies of it (a
    gigabyte each for a million papers). ``in_place``: into ``vectors`` itself, where it is a
    float32 array the caller owns and need not keep (no copy at all)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    own = in_place and vectors.flags.c_contiguous and vectors.flags.writeable
    out = vectors if own else np.empty(vectors.shape, dtype=np.float32)
    for start in range(0, len(vectors), ROWS_AT_ONCE):
        block = vectors[start:start + ROWS_AT_ONCE]
        norms = np.linalg.norm(block, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        np.divide(block, norms, out=out[start:start + ROWS_AT_ONCE])
    return out


#: Rows :func:`normalise_rows` makes unit length at a time.
ROWS_AT_ONCE = 65_536


def progress_bar(texts: Sequence[str], desc: str, chars_per_second: float, show: bool = True):
    """A tqdm bar when ``show`` and the work is expected to take more than a couple of seconds
    (``WORKBENCH_PROGRESS=0`` in the environment turns every bar off)."""
    from tqdm.auto import tqdm

    expected = sum(map(len, texts)) / chars_per_second
    disable = not show or expected < 2.0 or os.environ.get("WORKBENCH_PROGRESS") == "0"
    return tqdm(total=len(texts), desc=desc, unit="doc", disable=disable, leave=False)

"""Embedders: texts in, unit-length float32 vectors out, cached on disk.

Every embedder follows one small protocol (:class:`Embedder`; :mod:`.protocol`): a ``name``, a
``version`` that changes whenever its vectors would, and ``embed(texts) -> ndarray``, plus
``bind_corpus``, ``bound`` and ``embed_words`` for embedders whose vectors depend on the corpus,
with defaults in :class:`BaseEmbedder`. They are chosen by name from :data:`EMBEDDERS`
(:mod:`.registry`), one module per backend (:mod:`.minilm`, :mod:`.static`, :mod:`.tfidf`,
:mod:`.fake`), and import their heavy libraries (torch, sentence-transformers, model2vec) only
when they first embed, so ``import workbench`` stays fast and a fully cached build never imports
torch. :mod:`.cache` keeps the vectors: :class:`EmbeddingCache`, :func:`embed_with_cache`, and
:class:`WordVectors`, the word-embedding function the topic model's labels use.
"""

from .cache import EmbeddingCache, WordVectors, embed_with_cache
from .fake import FakeEmbedder
from .minilm import MiniLMEmbedder
from .protocol import BaseEmbedder, Embedder, text_hash
from .registry import EMBEDDERS, get_embedder
from .static import StaticEmbedder
from .tfidf import TfidfEmbedder

__all__ = [
    "Embedder",
    "BaseEmbedder",
    "EMBEDDERS",
    "get_embedder",
    "EmbeddingCache",
    "embed_with_cache",
    "WordVectors",
    "FakeEmbedder",
    "MiniLMEmbedder",
    "StaticEmbedder",
    "TfidfEmbedder",
    "text_hash",
]

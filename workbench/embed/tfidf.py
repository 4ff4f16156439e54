"""TF-IDF reduced by truncated SVD: vectors without any model, relative to the corpus.

The one embedder whose vectors depend on the whole corpus: it overrides the protocol's
``bind_corpus``, ``bound`` and ``embed_words`` (see :class:`TfidfEmbedder`).
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from ..corpus.paper import bounded_text
from .protocol import BaseEmbedder, normalise_rows, text_hash

__all__ = ["TfidfEmbedder"]


class TfidfEmbedder(BaseEmbedder):
    """TF-IDF (unigrams and bigrams, English stop words) reduced by truncated SVD. No model.

    Its vectors depend on the whole corpus: :meth:`bind_corpus` names the corpus (its hash
    enters the cache key) and the vectorizer is fitted on it the first time anything is embedded;
    later texts (label words, search queries) are projected into the same space.

    The cost is that of the two scikit-learn calls and no more: the corpus's vectors are the
    SVD's own ``fit_transform`` output (not a second ``transform`` of every text), and the
    vocabulary is bounded (terms in two papers or more, at most ``max_features`` of them, float32):
    with every bigram of 5,000 abstracts kept, the SVD's dense work grew with a vocabulary of
    hundreds of thousands of terms (72-91 s and 4 GB).
    """

    name = "tfidf"

    def __init__(self, n_components: int = 256, seed: int = 42, max_features: int = 2**16):
        self.n_components = n_components
        self.seed = seed
        self.max_features = max_features
        self._corpus: list[str] | None = None
        self._corpus_key = ""
        self._fitted = None
        self._corpus_rows: dict[str, int] = {}
        self._corpus_vectors: np.ndarray | None = None

    @property
    def version(self) -> str:
        return f"tfidf-svd{self.n_components}-s{self.seed}-v{self.max_features}/2{self._corpus_key}"

    @property
    def bound(self) -> bool:
        """Whether a corpus is named (else vectors depend on each call's texts: never cached)."""
        return self._corpus is not None

    def vectorizer_params(self, n_texts: int) -> dict:
        """The ``TfidfVectorizer`` parameters for a corpus of ``n_texts`` (small ones keep every term)."""
        return {"stop_words": "english", "ngram_range": (1, 2), "sublinear_tf": True, "dtype": np.float32,
                "min_df": 1 if n_texts < 200 else 2, "max_features": self.max_features}

    def bind_corpus(self, texts: Sequence[str], hashes: Sequence[str] | None = None) -> None:
        """Name the corpus the vectorizer is fitted on (each text by its start, as
        :func:`~workbench.embed.embed_with_cache` embeds it); ``hashes`` are its texts'
        :func:`~workbench.embed.text_hash`, if known."""
        if hashes is None:
            texts = [bounded_text(t) for t in texts]
            hashes = [text_hash(t) for t in texts]
        h = hashlib.sha256()
        for th in hashes:
            h.update(th.encode())
        key = ":" + h.hexdigest()[:16]
        if key != self._corpus_key:
            self._corpus, self._corpus_key, self._fitted = list(texts), key, None

    def _fit(self, texts: Sequence[str]) -> None:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        vec = TfidfVectorizer(**self.vectorizer_params(len(texts)))
        try:
            X = vec.fit_transform(texts)
        except ValueError:  # nothing but stop words, or no term in two papers
            vec = TfidfVectorizer(ngram_range=(1, 1), token_pattern=r"(?u)\S+", dtype=np.float32)
            X = vec.fit_transform([t or "empty" for t in texts])
        k = min(self.n_components, X.shape[0] - 1, X.shape[1] - 1)
        svd = TruncatedSVD(n_components=k, random_state=self.seed) if k >= 2 else None
        Y = svd.fit_transform(X) if svd is not None else X.toarray()
        self._fitted = (vec, svd)
        self._corpus_rows = {t: i for i, t in enumerate(texts)}
        self._corpus_vectors = normalise_rows(Y)

    def _transform(self, texts: Sequence[str]) -> np.ndarray:
        vec, svd = self._fitted
        X = vec.transform(list(texts))
        return normalise_rows(svd.transform(X) if svd is not None else X.toarray())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._fitted is None:
            self._fit(self._corpus if self._corpus is not None else list(texts))
        rows = [self._corpus_rows.get(t) for t in texts]
        if all(r is not None for r in rows):  # the corpus itself: the SVD already gave its vectors
            return self._corpus_vectors[rows]
        out = np.empty((len(texts), self._corpus_vectors.shape[1]), np.float32)
        known = [i for i, r in enumerate(rows) if r is not None]
        out[known] = self._corpus_vectors[[rows[i] for i in known]]
        new = [i for i, r in enumerate(rows) if r is None]
        out[new] = self._transform([texts[i] for i in new])
        return out

    def embed_words(self, words: Sequence[str]) -> np.ndarray:
        """Words projected into the corpus's space (the vectorizer fitted on the corpus first)."""
        return self._transform(words) if self._fitted is not None else self.embed(words)

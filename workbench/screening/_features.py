"""Feature matrices for ranking: TF-IDF of the review's texts and its cached embeddings.

A review computes its :class:`Features` once (TF-IDF over every paper, as ASReview LAB does,
so words seen only in unscreened papers still have a weight) and keeps them for the whole
screening session; every re-rank after a decision reuses them. Embeddings are never computed
here: pass the (n, d) array the review already cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..errors import InputError

__all__ = ["COLUMN_COPY_LIMIT", "TFIDF_PARAMS", "Features", "title_block"]

# Sublinear TF-IDF of words and word pairs, words in more than 95 % of the papers dropped:
# the parameters ASReview LAB 2's ELAS u4 settled on for SYNERGY, which measured best here too.
TFIDF_PARAMS = {"ngram_range": (1, 2), "sublinear_tf": True, "min_df": 1, "max_df": 0.95}

#: The most TF-IDF entries :meth:`Features.keep_columns` copies column by column (~480 MB; the
#: 50,000 papers of benchmarks/scale.py have 14.5 million, a million papers ~300 million).
COLUMN_COPY_LIMIT = 60_000_000


def title_block(titles: Sequence[str], **tfidf_params) -> sp.csr_matrix:
    """TF-IDF of the titles alone (the texts' settings; one empty column when no title has a
    word), for models that weigh title words apart (``ModelSpec.title_weight``)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    titles = [t if isinstance(t, str) else "" for t in titles]
    try:
        return TfidfVectorizer(**{**TFIDF_PARAMS, **tfidf_params}).fit_transform(titles).tocsr().astype(np.float32)
    except ValueError:  # no title has a word
        return sp.csr_matrix((len(titles), 1), dtype=np.float32)


@dataclass
class Features:
    """The matrices a :class:`~workbench.screening.Ranker` reads, one row per paper.

    ``tfidf`` (sparse CSR, rows L2-normalised) and ``terms`` (its column names) come from
    :meth:`from_texts`; ``embeddings`` is the review's cached (n, d) array, L2-normalised here.
    Either may be missing, but not both. ``matrix("both", w)`` is TF-IDF and embeddings side by
    side, the embedding block scaled by ``w`` (built on first use, then kept).
    """

    tfidf: sp.csr_matrix | None = None
    terms: np.ndarray | None = None
    embeddings: np.ndarray | None = None
    titles: sp.csr_matrix | None = None  # TF-IDF of the titles alone (for ``title_weight`` models)
    _both: dict = field(default_factory=dict, repr=False)
    _blocks: dict = field(default_factory=dict, repr=False)
    _by_column: dict = field(default_factory=dict, repr=False)  # title weight -> (CSC copy, entries per column)

    def __post_init__(self):
        if self.tfidf is None and self.embeddings is None:
            raise InputError("Features got neither TF-IDF nor embeddings; pass texts, an (n, d) array, or both")
        if self.embeddings is not None:
            emb = np.asarray(self.embeddings, dtype=np.float32)
            if emb.ndim != 2 or not np.all(np.isfinite(emb)):
                raise InputError(
                    f"embeddings must be a finite (n, d) array; got shape {emb.shape}"
                    " (pass the review's cached embeddings as they are)"
                )
            norms = np.linalg.norm(emb, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            self.embeddings = emb / norms
        if self.titles is not None and self.titles.shape[0] != len(self):
            raise InputError(f"{self.titles.shape[0]} titles for {len(self)} papers; give one title per paper ('' for none)")
        if self.tfidf is not None and self.embeddings is not None and self.tfidf.shape[0] != self.embeddings.shape[0]:
            raise InputError(
                f"TF-IDF has {self.tfidf.shape[0]} rows but embeddings {self.embeddings.shape[0]};"
                " both must have one row per paper, in the same order"
            )

    @classmethod
    def from_texts(cls, texts: Sequence[str] | None = None, embeddings=None, titles: Sequence[str] | None = None,
                   **tfidf_params) -> Features:
        """TF-IDF (words and word pairs) of ``texts``, plus ``embeddings`` if given, and with
        ``titles`` the TF-IDF of the titles apart (same settings)."""
        tfidf = terms = None
        title_tfidf = None if titles is None else title_block(titles, **tfidf_params)
        if texts is not None:
            texts = [t if isinstance(t, str) else "" for t in texts]
            from sklearn.feature_extraction.text import TfidfVectorizer

            params = {**TFIDF_PARAMS, **tfidf_params}
            vectorizer = TfidfVectorizer(**params)
            try:
                tfidf = vectorizer.fit_transform(texts)
            except ValueError as err:
                # A handful of papers: every word is in "more than 95 %" of them (of one paper,
                # all are), so max_df leaves none. Keep them all; no word at all is an error.
                vectorizer = TfidfVectorizer(**{**params, "max_df": 1.0})
                try:
                    tfidf = vectorizer.fit_transform(texts)
                except ValueError:
                    raise InputError(f"no words to rank by in {len(texts)} texts (no title or abstract "
                                     "has a word); give titles or abstracts") from err
            tfidf = tfidf.tocsr().astype(np.float32)
            terms = vectorizer.get_feature_names_out()
        return cls(tfidf=tfidf, terms=terms, embeddings=embeddings, titles=title_tfidf)

    def __len__(self) -> int:
        return self.tfidf.shape[0] if self.tfidf is not None else self.embeddings.shape[0]

    def embedding_block(self, center: bool = False, dims: int = 0) -> np.ndarray:
        """The embeddings as a model reads them, rows L2-normalised: as given, or ``center``ed
        (the review's mean embedding subtracted, which removes the direction every paper shares)
        and, with ``dims``, projected on their first ``dims`` principal components."""
        if self.embeddings is None:
            raise InputError("no embeddings: pass the review's cached (n, d) embeddings")
        key = (bool(center or dims), int(dims))
        if key == (False, 0):
            return self.embeddings
        if key not in self._blocks:
            E = self.embeddings - self.embeddings.mean(axis=0, dtype=np.float64).astype(np.float32)
            if 0 < dims < E.shape[1]:
                # the covariance's top eigenvectors (d x d, cheap at any n), signs fixed so the
                # largest loading is positive: the same block for the same embeddings
                vals, vecs = np.linalg.eigh(E.T.astype(np.float64) @ E)
                vecs = vecs[:, np.argsort(-vals, kind="stable")[:dims]]
                vecs *= np.sign(vecs[np.abs(vecs).argmax(axis=0), np.arange(dims)])
                E = E @ vecs.astype(np.float32)
            norms = np.linalg.norm(E, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            self._blocks[key] = np.ascontiguousarray(E / norms, dtype=np.float32)
        return self._blocks[key]

    def sparse_rows(self, rows, scale: float, center: bool = False, dims: int = 0) -> sp.csr_matrix:
        """Rows ``rows`` of :meth:`embedding_block` times ``scale`` as a CSR matrix: what a ranker
        stacks beside the decided papers' TF-IDF rows at every refit. The same matrix as
        ``sp.csr_matrix(block * scale)[rows]`` (zeros left out), made from those rows alone."""
        dense = self.embedding_block(center, dims)[np.asarray(rows, dtype=np.int64)] * np.float32(scale)
        nonzero = dense != 0
        indptr = np.zeros(len(dense) + 1, dtype=np.int32)
        np.cumsum(nonzero.sum(axis=1), out=indptr[1:])
        indices = np.broadcast_to(np.arange(dense.shape[1], dtype=np.int32), dense.shape)[nonzero]
        return sp.csr_matrix((dense[nonzero], indices, indptr), shape=dense.shape)

    def words(self, title_weight: float = 0.0) -> sp.csr_matrix:
        """The TF-IDF block a model reads: the texts' and, with ``title_weight``, the titles'
        beside it scaled by that weight (built once, then kept; its first columns are ``terms``)."""
        if not title_weight:
            return self.tfidf
        if self.titles is None:
            raise InputError("a title-weighted model needs the titles: Features.from_texts(texts, titles=...)")
        key = ("titles", float(title_weight))
        if key not in self._both:
            self._both[key] = sp.hstack([self.tfidf, self.titles * np.float32(title_weight)], format="csr", dtype=np.float32)
        return self._both[key]

    def keep_columns(self, title_weight: float = 0.0) -> None:
        """Keep :meth:`words` column by column as well (as much memory again, so only up to
        :data:`COLUMN_COPY_LIMIT` entries): a refit's scores then read only the columns its
        weights use (:meth:`word_scores`). A screening view does this while the user reads."""
        T = self.words(title_weight)
        key = float(title_weight)
        if key not in self._by_column and T.nnz <= COLUMN_COPY_LIMIT and T.has_sorted_indices:
            C = T.tocsc()
            self._by_column[key] = (C, np.diff(C.indptr))

    def word_scores(self, weights: np.ndarray, cols: np.ndarray | None = None, title_weight: float = 0.0) -> np.ndarray:
        """``words(title_weight) @ weights``, ``weights`` being zero outside the columns ``cols``:
        read from the copy :meth:`keep_columns` keeps, column by column, where those columns
        hold under half the entries (each paper's terms added in the same order, so the same
        sums to the bit), else row by row."""
        kept = self._by_column.get(float(title_weight))
        if kept is not None and cols is not None:
            C, per_column = kept
            if 2 * int(per_column[cols].sum()) < C.nnz:
                return C[:, cols] @ weights[cols]
        return self.words(title_weight) @ weights

    def blocks(self, kind: str, center: bool = False, dims: int = 0) -> tuple:
        """(TF-IDF or None, embedding block or None): what a ``kind`` model reads."""
        if kind not in ("tfidf", "emb", "both"):
            raise InputError(f"unknown feature kind {kind!r}; expected 'tfidf', 'emb' or 'both'")
        if kind in ("tfidf", "both") and self.tfidf is None:
            raise InputError(f"a {kind!r} model needs TF-IDF: build Features.from_texts(texts, ...)")
        if kind in ("emb", "both") and self.embeddings is None:
            raise InputError(f"a {kind!r} model needs embeddings: pass the review's cached (n, d) embeddings")
        return (self.tfidf if kind != "emb" else None,
                self.embedding_block(center, dims) if kind != "tfidf" else None)

    def matrix(self, kind: str, embedding_weight: float = 1.0, center: bool = False, dims: int = 0):
        """The matrix for ``kind``: ``"tfidf"``, ``"emb"`` or ``"both"`` (TF-IDF and the
        embedding block side by side, the block scaled by ``embedding_weight``; ``center``,
        ``dims``: see :meth:`embedding_block`). A ranker never builds the side-by-side matrix
        (it fits on the decided rows only); this is for reading a model's weights against."""
        tfidf, block = self.blocks(kind, center, dims)
        if block is None:
            return tfidf
        if tfidf is None:
            return block
        key = (embedding_weight, bool(center or dims), int(dims))
        if key not in self._both:
            emb = sp.csr_matrix(block * np.float32(embedding_weight))
            self._both[key] = sp.hstack([tfidf, emb], format="csr", dtype=np.float32)
        return self._both[key]

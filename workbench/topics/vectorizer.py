"""The labels' ``CountVectorizer``, fed from the one document-term matrix a build counts
(:class:`~workbench.topics.terms.DocumentTerms`). Its own module, imported when topics are
found: scikit-learn takes ~1.4 s to import, which every command that opens a review paid."""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from .terms import DocumentTerms

__all__ = ["SharedVectorizer"]


class SharedVectorizer(CountVectorizer):
    """The labels' CountVectorizer, whose ``fit_transform`` of BERTopic's joined topic documents
    comes from a :class:`DocumentTerms` (the same matrix, counted once). Documents it cannot
    place (anything but the joined papers of ``labels``) are counted as CountVectorizer counts them."""

    def share(self, terms: DocumentTerms, texts: Sequence[str], labels: Sequence[int]) -> "SharedVectorizer":
        self._shared = (terms, texts, np.asarray(labels))
        self._row_of = None  # each paper's text -> its row, made at the first transform
        return self

    def fit_transform(self, raw_documents, y=None):
        shared = getattr(self, "_shared", None)
        groups = _groups(raw_documents, *shared[1:]) if shared is not None else None
        if (groups is None or isinstance(self.min_df, float) or self.max_df != 1.0 or self.max_features
                or len(groups) < self.min_df):  # (CountVectorizer says why it cannot)
            return super().fit_transform(raw_documents, y)
        matrix, self.vocabulary_ = shared[0].topic_counts(groups, self.min_df)
        self.fixed_vocabulary_ = False
        return matrix

    def get_feature_names_out(self, input_features=None):
        """CountVectorizer's, made once per vocabulary (BERTopic and the labels ask three times;
        sorting the ~300,000 terms of 50,000 papers takes a quarter of a second each time)."""
        made = getattr(self, "_names", (None, None))
        if made[0] is not getattr(self, "vocabulary_", None) or made[0] is None:
            made = self._names = (self.vocabulary_, super().get_feature_names_out(input_features))
        return made[1].copy()

    def transform(self, raw_documents):
        """Papers of the corpus (BERTopic's samples of each topic) as rows of the shared matrix,
        in the fitted vocabulary's columns: what CountVectorizer would count, without tokenising
        them again; anything else counted as CountVectorizer counts it."""
        shared = getattr(self, "_shared", None)
        ours = shared is not None and hasattr(self, "vocabulary_") and not self.binary
        if ours and getattr(self, "_row_of", None) is None:
            self._row_of = _row_of(shared[1])
        rows = _rows(raw_documents, self._row_of) if ours else None
        if rows is None:
            return super().transform(raw_documents)
        import scipy.sparse as sp

        terms = shared[0]
        if getattr(self, "_columns", (None,))[0] is not self.vocabulary_:
            columns = np.full(len(terms.vocabulary), -1, dtype=np.int64)
            for term, column in self.vocabulary_.items():
                j = terms.vocabulary.get(term)
                if j is not None:
                    columns[j] = column
            self._columns = (self.vocabulary_, columns)
        sub = terms.matrix[rows]
        columns = self._columns[1][sub.indices]
        kept = columns >= 0
        row_of = np.repeat(np.arange(len(rows)), np.diff(sub.indptr))
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of[kept], minlength=len(rows)))])
        X = sp.csr_matrix((sub.data[kept].astype(self.dtype), columns[kept], indptr),
                          shape=(len(rows), len(self.vocabulary_)))
        X.sort_indices()
        return X


def _groups(raw_documents, texts: Sequence[str], labels: np.ndarray) -> list[list[int]] | None:
    """The rows of ``texts`` each of ``raw_documents`` joins (as BERTopic joins a topic's papers:
    with spaces, new lines and tabs as spaces), or None when one of them is not such a join."""
    rows_of: dict[tuple[int, bytes], list[int]] = {}  # by a digest: not a second copy of the corpus
    for topic in np.unique(labels):
        rows = np.flatnonzero(labels == topic).tolist()
        joined = " ".join(texts[r] for r in rows).replace("\n", " ").replace("\t", " ")
        rows_of[_digest(joined or "emptydoc")] = rows
        del joined
    groups = [rows_of.get(_digest(doc)) if isinstance(doc, str) else None for doc in raw_documents]
    return None if any(g is None for g in groups) else groups


def _row_of(texts: Sequence[str]) -> dict[str, int]:
    """Each text's first row."""
    index: dict[str, int] = {}
    for row, text in enumerate(texts):
        index.setdefault(text, row)
    return index


def _rows(raw_documents, row_of: dict[str, int]) -> list[int] | None:
    """The row each document is (``row_of``), or None when one of them is not a paper's text."""
    if isinstance(raw_documents, str):
        return None
    rows = [row_of.get(doc) if isinstance(doc, str) else None for doc in raw_documents]
    return None if any(r is None for r in rows) else rows


def _digest(text: str) -> tuple[int, bytes]:
    return len(text), hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).digest()

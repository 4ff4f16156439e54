"""The labels' ``CountVectorizer``, fed from the one document-term matrix a build counts
(:class:`~workbench.topics.terms.DocumentTerms`). Its own module, imported when topics are
found: scikit-learn takes ~1.4 s to import, which every command that opens a review paid."""

from __future__ import annotations

from typing import Sequence

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from .terms import DocumentTerms

__all__ = ["SharedVectorizer", "paper_rows", "proxies", "real_documents"]

#: BERTopic is handed each paper as this character and its row ("\\x0017"), not its text: it
#: joins each topic's documents into one and copies the joins twice to clean them (three copies
#: of every text, ~4 GB at a million papers), where only the rows matter here. No token holds
#: the character, so no word is taken for a paper.
PROXY = "\x00"


def proxies(n: int) -> list[str]:
    """The documents BERTopic is handed for ``n`` papers (see :data:`PROXY`)."""
    return [f"{PROXY}{row}" for row in range(n)]


def _proxy_rows(doc) -> list[int] | None:
    """The rows of the papers a document of proxies joins (BERTopic joins with spaces), or None."""
    if not isinstance(doc, str) or not doc.startswith(PROXY):
        return None
    try:
        return [int(part[1:]) for part in doc.split(" ")]
    except ValueError:
        return None


def real_documents(raw_documents, texts: Sequence[str], cleaned: bool = True) -> list:
    """``raw_documents`` with each document of proxies the text BERTopic would have had: the
    papers' texts joined with spaces, new lines and tabs as spaces where BERTopic cleans them
    (``cleaned``: its topic documents; a paper it samples is not cleaned); others as they are."""
    out = []
    for doc in raw_documents:
        rows = _proxy_rows(doc)
        if rows is None:
            out.append(doc)
        elif len(rows) == 1 and not cleaned:
            out.append(texts[rows[0]])
        else:
            out.append(" ".join(texts[r] for r in rows).replace("\n", " ").replace("\t", " "))
    return out


class SharedVectorizer(CountVectorizer):
    """The labels' CountVectorizer, whose ``fit_transform`` of BERTopic's joined topic documents
    comes from a :class:`DocumentTerms` (the same matrix, counted once). BERTopic's documents
    are the papers' :func:`proxies`; anything else, or what it cannot count from the matrix, is
    counted as CountVectorizer counts it (proxies as the texts they stand for)."""

    def share(self, terms: DocumentTerms, texts: Sequence[str]) -> "SharedVectorizer":
        self._shared = (terms, texts)
        return self

    def unshare(self) -> "SharedVectorizer":
        """Let go of the matrix and texts :meth:`share` gave (after the fit: what is counted
        later is counted as CountVectorizer counts it)."""
        self._shared = None
        return self

    def _real(self, raw_documents, cleaned: bool = True):
        shared = getattr(self, "_shared", None)
        if shared is None or isinstance(raw_documents, str):
            return raw_documents
        return real_documents(raw_documents, shared[1], cleaned)

    def fit_transform(self, raw_documents, y=None):
        shared = getattr(self, "_shared", None)
        groups = _groups(raw_documents) if shared is not None else None
        if (groups is None or isinstance(self.min_df, float) or self.max_df != 1.0 or self.max_features
                or len(groups) < self.min_df):  # (CountVectorizer says why it cannot)
            return super().fit_transform(self._real(raw_documents), y)
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
        rows = paper_rows(raw_documents) if ours else None
        if rows is None:
            return super().transform(self._real(raw_documents, cleaned=False))
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


def _groups(raw_documents) -> list[list[int]] | None:
    """The rows each of ``raw_documents`` joins (documents of :func:`proxies`), or None when one
    of them is something else."""
    if isinstance(raw_documents, str):
        return None
    groups = [_proxy_rows(doc) for doc in raw_documents]
    return None if any(g is None for g in groups) else groups


def paper_rows(raw_documents) -> list[int] | None:
    """The row each document stands for (one proxy each), or None when one of them is not a paper."""
    groups = _groups(raw_documents)
    if groups is None or any(len(g) != 1 for g in groups):
        return None
    return [g[0] for g in groups]

"""c-TF-IDF from counts that were made in pieces: words of topics too large for one process.

:func:`topic_term_counts` counts, in one piece of a corpus (a partition), how often each word
or two-word phrase occurs in each topic's papers, with the tokenizer and stop words the
single-machine topics use (:mod:`.represent`), as a :class:`TermCounts` (a sparse topic x term
matrix). Pieces add up (``a + b``, :func:`summed` for many at once: a Dask build sums them in a
tree of tasks); :func:`ctfidf_words` then weighs the summed counts as BERTopic's
``ClassTfidfTransformer`` does by default (each topic's counts as shares of its words, times
``log(1 + average words per topic / the word's count in all topics)``) and keeps each topic's
best words. Summing counts is exact: a topic's counts are the same whichever partitions its
papers were in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..scripts import tokens
from .labels import stop_words
from .represent import documents

__all__ = ["COUNT_COLUMNS", "TermCounts", "topic_term_counts", "summed", "ctfidf_words"]

#: The columns of :meth:`TermCounts.frame` (one row per topic and term that occurs).
COUNT_COLUMNS = ["topic", "term", "count"]


@dataclass(frozen=True)
class TermCounts:
    """How often each term occurs in each topic: ``matrix[i, j]`` is the count of ``terms[j]``
    in topic ``topics[i]`` (topics sorted, terms in no particular order, both unique)."""

    topics: np.ndarray  # int64
    terms: np.ndarray  # object (str)
    matrix: object  # scipy.sparse.csr_matrix of int64

    @classmethod
    def from_frame(cls, frame) -> "TermCounts":
        """From a frame of ``topic, term, count`` rows (a topic and term twice: summed)."""
        import pandas as pd
        from scipy import sparse

        topics, rows = np.unique(frame["topic"].to_numpy(np.int64), return_inverse=True)
        codes, terms = pd.factorize(frame["term"])
        matrix = sparse.csr_matrix((frame["count"].to_numpy(np.int64), (rows, codes)),
                                   shape=(len(topics), len(terms)), dtype=np.int64)
        matrix.eliminate_zeros()
        return cls(topics, np.asarray(terms, dtype=object), matrix)

    def frame(self):
        """The counts as a DataFrame ``topic, term, count``, one row per topic and term that occurs."""
        import pandas as pd

        coo = self.matrix.tocoo()
        return pd.DataFrame({"topic": self.topics[coo.row], "term": self.terms[coo.col],
                             "count": coo.data.astype(np.int64)})

    def __add__(self, other: "TermCounts") -> "TermCounts":
        return summed([self, other])


def topic_term_counts(texts: Sequence[str], labels: Sequence[int]) -> TermCounts:
    """How often each term (word or two-word phrase) occurs in each topic's ``texts``; texts are
    cut as the topic model cuts them (:func:`~workbench.topics.represent.documents`)."""
    from scipy import sparse
    from sklearn.feature_extraction.text import CountVectorizer

    labels = np.asarray(labels, dtype=np.int64)
    if len(labels) != len(texts):
        raise ValueError(f"{len(labels)} topic labels for {len(texts)} texts; expected one per text")
    topics, rows = np.unique(labels, return_inverse=True)
    vectorizer = CountVectorizer(stop_words=stop_words(), ngram_range=(1, 2), tokenizer=tokens, token_pattern=None)
    try:
        counts = vectorizer.fit_transform(documents(texts)) if len(texts) else None
    except ValueError:  # no word at all (only stop words)
        counts = None
    if counts is None:
        return TermCounts(topics, np.zeros(0, object), sparse.csr_matrix((len(topics), 0), dtype=np.int64))
    member = sparse.csr_matrix((np.ones(len(rows), np.int64), (rows, np.arange(len(rows)))), shape=(len(topics), len(rows)))
    per_topic = sparse.csr_matrix(member @ counts, dtype=np.int64)
    return TermCounts(topics, vectorizer.get_feature_names_out().astype(object), per_topic)


def summed(pieces: Iterable[TermCounts]) -> TermCounts:
    """The counts of ``pieces`` added up (one matrix over the union of their topics and terms)."""
    import pandas as pd
    from scipy import sparse

    pieces = list(pieces)
    if len(pieces) == 1:
        return pieces[0]
    topics = np.unique(np.concatenate([p.topics for p in pieces]))
    terms = pd.Index(np.concatenate([p.terms for p in pieces]), dtype=object).unique()
    coos = [p.matrix.tocoo() for p in pieces]
    rows = np.concatenate([np.searchsorted(topics, p.topics)[c.row] for p, c in zip(pieces, coos)])
    cols = np.concatenate([terms.get_indexer(p.terms)[c.col] for p, c in zip(pieces, coos)])
    data = np.concatenate([c.data for c in coos])
    # a cell's entries from several pieces are summed
    total = sparse.csr_matrix((data, (rows, cols)), shape=(len(topics), len(terms)), dtype=np.int64)
    return TermCounts(topics, terms.to_numpy(dtype=object), total)


def ctfidf_words(counts, top_n_words: int = 10, min_topics: int = 2) -> dict[int, list[tuple[str, float]]]:
    """Each topic's ``top_n_words`` terms by c-TF-IDF, from summed ``counts`` (a
    :class:`TermCounts`, or a frame of ``topic, term, count`` rows).

    Terms found in fewer than ``min_topics`` topics are left out, as BERTopic's vectorizer
    (``min_df=2`` over the topics' joined documents) leaves them out of a large corpus; with
    fewer than two topics every term counts. Ties go to the term first in alphabetical order.
    """
    counts = counts if isinstance(counts, TermCounts) else TermCounts.from_frame(counts)
    X = counts.matrix.tocsc()
    terms = counts.terms
    words: dict[int, list[tuple[str, float]]] = {int(t): [] for t in counts.topics}
    if int((np.diff(counts.matrix.indptr) > 0).sum()) >= 2 and min_topics > 1:
        keep = np.flatnonzero(np.diff(X.indptr) >= min_topics)  # a column's entries: the topics it occurs in
        X, terms = X[:, keep], terms[keep]
    X = X.tocsr()
    if not X.nnz:
        return words
    topic_total = np.asarray(X.sum(axis=1)).ravel()
    term_total = np.asarray(X.sum(axis=0)).ravel()
    weight = np.log(int(topic_total.mean()) / np.maximum(term_total, 1) + 1)  # BERTopic: int(X.sum(axis=1).mean())
    for row, topic in enumerate(counts.topics):
        cols = X.indices[X.indptr[row]:X.indptr[row + 1]]
        if not len(cols):
            continue
        score = X.data[X.indptr[row]:X.indptr[row + 1]] / topic_total[row] * weight[cols]
        if len(score) > top_n_words:  # every term tied with the n-th best stays in for the tie-break
            kept = score >= np.partition(score, len(score) - top_n_words)[len(score) - top_n_words]
            cols, score = cols[kept], score[kept]
        best = sorted(zip(-score, terms[cols]))[:top_n_words]
        words[int(topic)] = [(str(term), float(-s)) for s, term in best]
    return words

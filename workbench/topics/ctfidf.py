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

The terms are an Arrow string array (``pyarrow``, which the Dask build needs anyway): a third of
the memory of Python strings, pickled between workers as one buffer, and summed through one
Arrow hash table. A million abstracts carry tens of millions of distinct phrases through the
sums, and as Python objects they were what pushed the workers past 7 GB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..corpus.writing_systems import tokens, words
from .labels import stop_words
from .represent import documents

__all__ = ["COUNT_COLUMNS", "TermCounts", "topic_term_counts", "summed", "term_buckets", "Weighing",
           "topic_totals", "weighing", "best_words", "merged_words", "ctfidf_words"]

#: The columns of :meth:`TermCounts.frame` (one row per topic and term that occurs).
COUNT_COLUMNS = ["topic", "term", "count"]
#: A count of one term in one topic (sums over terms or topics are taken in int64).
COUNT_DTYPE = np.int32


def _strings(values):
    """``values`` (strings) as an Arrow array of strings with 64-bit offsets."""
    import pyarrow as pa

    return pa.array(values if isinstance(values, (list, np.ndarray)) else list(values), pa.large_string())


def _take(terms, positions):
    import pyarrow as pa

    return terms.take(pa.array(np.asarray(positions, dtype=np.int64)))


@dataclass(frozen=True)
class TermCounts:
    """How often each term occurs in each topic: ``matrix[i, j]`` is the count of ``terms[j]``
    in topic ``topics[i]`` (topics sorted, terms in no particular order, both unique)."""

    topics: np.ndarray  # int64
    terms: object  # pyarrow.LargeStringArray
    matrix: object  # scipy.sparse.csr_matrix of int32 (sums are taken in int64)

    @classmethod
    def from_frame(cls, frame) -> "TermCounts":
        """From a frame of ``topic, term, count`` rows (a topic and term twice: summed)."""
        import pandas as pd
        from scipy import sparse

        topics, rows = np.unique(frame["topic"].to_numpy(np.int64), return_inverse=True)
        codes, terms = pd.factorize(frame["term"])
        matrix = sparse.csr_matrix((frame["count"].to_numpy(COUNT_DTYPE), (rows, codes)),
                                   shape=(len(topics), len(terms)), dtype=COUNT_DTYPE)
        matrix.eliminate_zeros()
        return cls(topics, _strings(terms), matrix)

    def frame(self):
        """The counts as a DataFrame ``topic, term, count``, one row per topic and term that occurs."""
        import pandas as pd

        coo = self.matrix.tocoo()
        return pd.DataFrame({"topic": self.topics[coo.row], "term": _take(self.terms, coo.col).to_numpy(zero_copy_only=False),
                             "count": coo.data.astype(np.int64)})

    def __add__(self, other: "TermCounts") -> "TermCounts":
        return summed([self, other])


def topic_term_counts(texts: Sequence[str], labels: Sequence[int]) -> TermCounts:
    """How often each term (word or two-word phrase) occurs in each topic's ``texts``; texts are
    cut as the topic model cuts them (:func:`~workbench.topics.represent.documents`).

    The terms are what scikit-learn's ``CountVectorizer`` (the single-machine topics' tokenizer
    and stop words, words and two-word phrases) makes of each text, counted straight into a
    topic x term matrix: no document x term matrix, and no sorted vocabulary."""
    import pyarrow as pa
    import pyarrow.compute as pc
    from array import array
    from collections import defaultdict

    from scipy import sparse

    labels = np.asarray(labels, dtype=np.int64)
    if len(labels) != len(texts):
        raise ValueError(f"{len(labels)} topic labels for {len(texts)} texts; expected one per text")
    topics, rows = np.unique(labels, return_inverse=True)
    vocabulary: defaultdict = defaultdict()
    vocabulary.default_factory = vocabulary.__len__  # a new word gets the next number
    ids, per_text = array("q"), np.zeros(len(labels), np.int64)
    for i, text in enumerate(documents(texts)):  # CountVectorizer's analyzer: lower case, tokens, stop words out
        text = text.lower()
        found = words(text) if text.isascii() else tokens(text)  # ASCII: tokens() but its 1-letter words
        ids.extend(map(vocabulary.__getitem__, found))
        per_text[i] = len(found)
    # The stop words and ASCII's 1-letter words are dropped by number, and the two-word phrases
    # are pairs of numbers, each coded as one int64 (a word w: w; a phrase v w: (v + 1) * V + w)
    # and counted with numpy: a term's string is made once, not once per occurrence.
    stop = frozenset(stop_words())
    names = _strings(list(vocabulary))
    dropped = np.array([w in stop or (len(w) == 1 and w.isascii()) for w in vocabulary], dtype=bool)
    numbers = np.frombuffer(ids, np.int64)
    kept = ~dropped[numbers]
    text_of = np.repeat(np.arange(len(labels)), per_text)[kept]
    numbers, V = numbers[kept], max(len(vocabulary), 1)
    per_text = np.bincount(text_of, minlength=len(labels))
    row_of = rows[text_of]
    followed = np.ones(len(numbers), bool)
    followed[np.cumsum(per_text)[per_text > 0] - 1] = False  # a text's last word starts no phrase
    starts = np.flatnonzero(followed)
    codes = np.concatenate([numbers, (numbers[starts] + 1) * V + numbers[starts + 1]])
    terms, columns = np.unique(codes, return_inverse=True)
    matrix = sparse.csr_matrix((np.ones(len(codes), COUNT_DTYPE), (np.concatenate([row_of, row_of[starts]]), columns)),
                               shape=(len(topics), len(terms)), dtype=COUNT_DTYPE)  # repeated cells: summed
    single = int(np.searchsorted(terms, V))
    first, second = _take(names, terms[single:] // V - 1), _take(names, terms[single:] % V)
    phrases = pc.binary_join_element_wise(first, second, pa.scalar(" ", pa.large_string()))
    return TermCounts(topics, pa.concat_arrays([_take(names, terms[:single]), phrases]), matrix)


def summed(pieces: Iterable[TermCounts]) -> TermCounts:
    """The counts of ``pieces`` added up (one matrix over the union of their topics and terms)."""
    import pyarrow as pa
    from scipy import sparse

    pieces = list(pieces)
    if len(pieces) == 1:
        return pieces[0]
    topics = np.unique(np.concatenate([p.topics for p in pieces]))
    pieces = [p for p in pieces if len(p.terms)]  # (Arrow drops empty chunks)
    # one hash table over every piece's terms: the union, and each piece's terms' places in it
    encoded = pa.chunked_array([p.terms for p in pieces], pa.large_string()).dictionary_encode()
    if encoded.num_chunks != len(pieces):
        raise AssertionError(f"{encoded.num_chunks} chunks encoded for {len(pieces)} pieces")
    terms = encoded.chunk(0).dictionary if pieces else _strings([])
    coos = [p.matrix.tocoo() for p in pieces]
    rows = np.concatenate([np.searchsorted(topics, p.topics)[c.row] for p, c in zip(pieces, coos)] + [np.zeros(0, np.int64)])
    cols = np.concatenate([encoded.chunk(i).indices.to_numpy()[c.col] for i, c in enumerate(coos)] + [np.zeros(0, np.int64)])
    data = np.concatenate([c.data for c in coos] + [np.zeros(0, COUNT_DTYPE)])
    # a cell's entries from several pieces are summed
    total = sparse.csr_matrix((data, (rows, cols)), shape=(len(topics), len(terms)), dtype=COUNT_DTYPE)
    return TermCounts(topics, terms, total)


def term_buckets(counts: TermCounts, k: int) -> list[TermCounts]:
    """``counts`` cut into ``k`` pieces by term, each with every topic of ``counts``. A term's
    piece is the same in every piece of the corpus and in every process (a hash of its text,
    not Python's salted ``hash``), so piece ``j`` of every partition, summed, is piece ``j`` of
    the whole: sums of many partitions shuffled by term instead of one table of every term."""
    import pandas as pd

    bucket = pd.util.hash_array(counts.terms.to_numpy(zero_copy_only=False)) % np.uint64(k)
    X = counts.matrix.tocsc()
    pieces = []
    for j in range(k):
        cols = np.flatnonzero(bucket == j)
        pieces.append(TermCounts(counts.topics, _take(counts.terms, cols), X[:, cols].tocsr()))
    return pieces


@dataclass(frozen=True)
class Weighing:
    """What c-TF-IDF weighs every piece's counts by, found from all pieces' :func:`topic_totals`."""

    topics: np.ndarray  # every topic, sorted
    topic_total: np.ndarray  # per topic, its count of the terms that are kept
    average: int  # BERTopic: int(X.sum(axis=1).mean())
    min_topics: int  # a term is kept if it occurs in this many topics (1: every term)


def topic_totals(counts: TermCounts, min_topics: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per topic of ``counts``: its count of every term, and of the terms in ``min_topics``
    topics or more (a piece cut by :func:`term_buckets` holds each of its terms whole)."""
    X = counts.matrix.tocsc()
    in_topics = np.diff(X.indptr)  # a column's entries: the topics it occurs in
    every = np.asarray(X.sum(axis=1, dtype=np.int64)).ravel()
    kept = np.asarray(X[:, np.flatnonzero(in_topics >= min_topics)].sum(axis=1, dtype=np.int64)).ravel()
    return counts.topics, every, kept


def weighing(totals: Iterable[tuple], min_topics: int = 2) -> Weighing:
    """The :class:`Weighing` of the pieces whose :func:`topic_totals` are ``totals``. Terms found
    in fewer than ``min_topics`` topics are left out, as BERTopic's vectorizer (``min_df=2``
    over the topics' joined documents) leaves them out of a large corpus; with fewer than two
    topics that have words, every term counts."""
    totals = list(totals)
    topics = np.unique(np.concatenate([t[0] for t in totals])) if totals else np.zeros(0, np.int64)
    every, kept = np.zeros(len(topics), np.int64), np.zeros(len(topics), np.int64)
    for piece_topics, piece_every, piece_kept in totals:
        rows = np.searchsorted(topics, piece_topics)
        every[rows] += piece_every
        kept[rows] += piece_kept
    if int((every > 0).sum()) >= 2 and min_topics > 1:
        return Weighing(topics, kept, int(kept.mean()), min_topics)
    return Weighing(topics, every, int(every.mean()) if len(topics) else 0, 1)


def best_words(counts: TermCounts, weigh: Weighing, top_n_words: int = 10) -> dict[int, list[tuple[float, str]]]:
    """Each topic's best ``top_n_words`` terms of ``counts`` by c-TF-IDF, as ``(score, term)``,
    and every term tied with the last of them (for :func:`merged_words`'s tie-break)."""
    X = counts.matrix.tocsc()
    terms = counts.terms
    if weigh.min_topics > 1:
        keep = np.flatnonzero(np.diff(X.indptr) >= weigh.min_topics)
        X, terms = X[:, keep], _take(terms, keep)
    X = X.tocsr()
    found: dict[int, list[tuple[float, str]]] = {}
    if not X.nnz:
        return found
    topic_total = weigh.topic_total[np.searchsorted(weigh.topics, counts.topics)]
    term_total = np.asarray(X.sum(axis=0, dtype=np.int64)).ravel()
    weight = np.log(weigh.average / np.maximum(term_total, 1) + 1)
    for row, topic in enumerate(counts.topics):
        cols = X.indices[X.indptr[row]:X.indptr[row + 1]]
        if not len(cols):
            continue
        score = X.data[X.indptr[row]:X.indptr[row + 1]] / topic_total[row] * weight[cols]
        if len(score) > top_n_words:  # every term tied with the n-th best stays in for the tie-break
            kept = score >= np.partition(score, len(score) - top_n_words)[len(score) - top_n_words]
            cols, score = cols[kept], score[kept]
        found[int(topic)] = [(float(s), term) for s, term in zip(score, _take(terms, cols).to_pylist())]
    return found


def merged_words(found: Iterable[dict], topics, top_n_words: int = 10) -> dict[int, list[tuple[str, float]]]:
    """Each topic's ``top_n_words`` of the :func:`best_words` of all pieces, best first; ties go to
    the term first in alphabetical order. Every topic of ``topics`` is a key."""
    found = list(found)
    words: dict[int, list[tuple[str, float]]] = {}
    for topic in map(int, topics):
        best = sorted((-s, term) for piece in found for s, term in piece.get(topic, ()))[:top_n_words]
        words[topic] = [(term, -s) for s, term in best]
    return words


def ctfidf_words(counts, top_n_words: int = 10, min_topics: int = 2) -> dict[int, list[tuple[str, float]]]:
    """Each topic's ``top_n_words`` terms by c-TF-IDF, from summed ``counts`` (a
    :class:`TermCounts`, or a frame of ``topic, term, count`` rows), best first: BERTopic's
    ``ClassTfidfTransformer`` with the terms :func:`weighing` keeps. Ties go to the term first
    in alphabetical order. The same as :func:`merged_words` of the :func:`best_words` of its
    :func:`term_buckets`, which is how a partitioned build finds them."""
    counts = counts if isinstance(counts, TermCounts) else TermCounts.from_frame(counts)
    weigh = weighing([topic_totals(counts, min_topics)], min_topics)
    return merged_words([best_words(counts, weigh, top_n_words)], counts.topics, top_n_words)

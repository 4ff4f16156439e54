"""One document-term matrix per corpus, shared by every computation of topic words.

BERTopic's c-TF-IDF vectorises each topic's papers joined into one document, so every fit (a
build, a refit, "Show themes") tokenises the whole corpus again, and the joined documents of
topics holding one non-ASCII paper go through the slow any-script tokenizer. :class:`DocumentTerms`
counts each paper's unigrams and bigrams once, as the labels' ``CountVectorizer`` does (lower
case, :func:`workbench.scripts.tokens`, stop words dropped before bigrams are made), and
:meth:`DocumentTerms.topic_counts` gives BERTopic the matrix it would have counted for any
partition into topics: the rows of a topic's papers summed, plus the bigrams joining makes
(the last word of one paper with the first of the next), the terms found in fewer topics than
``min_df`` dropped, the rest in sorted order, each row's entries in the order of their first
occurrence in the joined document (BERTopic breaks ties between equal scores by that order).
:class:`SharedVectorizer` hands it to BERTopic, and answers BERTopic's ``transform`` of
sampled papers (its representative documents) from the same rows; tests compare both with
CountVectorizer's.
The last corpus's matrix is kept (:func:`document_terms`), so a refit or "Show themes" in the
same process counts no word again.
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections import Counter, defaultdict
from itertools import filterfalse, islice
from typing import Callable, Sequence

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from .._memory import release_free_memory
from ..scripts import tokens
from .labels import stop_words

__all__ = ["DocumentTerms", "SharedVectorizer", "counted_elsewhere", "document_terms", "texts_key"]


class DocumentTerms:
    """Each paper's unigram and bigram counts; see the module docstring."""

    def __init__(self, texts: Sequence[str]):
        stop = frozenset(stop_words()).__contains__
        # A new term gets the next number as it is first looked up (the dictionary's size then):
        # the loop below is calls of C functions, no Python code per term
        vocabulary: dict[str, int] = defaultdict()
        vocabulary.default_factory = vocabulary.__len__
        number = vocabulary.__getitem__
        # machine integers, not lists of Python ints: 8 bytes an entry instead of ~36 (about 10
        # million entries at 50,000 papers: ~300 MB less at the build's peak)
        ids, counts, indptr = array("q"), array("q"), array("q", [0])
        unigrams = []  # entries of each row that are unigrams (the row's first ones)
        ends = []  # (first, last) kept token of each paper, None without one
        for text in texts:
            words = list(filterfalse(stop, tokens(text.lower())))
            grams = Counter(words)
            unigrams.append(len(grams))
            grams.update(map(" ".join, zip(words, islice(words, 1, None))))
            ids.extend(map(number, grams))
            counts.extend(grams.values())
            indptr.append(len(ids))
            ends.append((words[0], words[-1]) if words else None)
        import scipy.sparse as sp

        vocabulary.default_factory = None  # (a lookup of an unknown term is a KeyError again)
        self.vocabulary = vocabulary
        self.terms = list(vocabulary)
        # Each row's entries in the order they first occur in the paper, unigrams first (not
        # sorted); 32-bit where they fit (~80 MB less at 50,000 papers, held through c-TF-IDF)
        counts_, ids_ = np.frombuffer(counts, dtype=np.int64), np.frombuffer(ids, dtype=np.int64)  # (views)
        small = len(ids) < 2**31 and len(vocabulary) < 2**31
        index = np.int32 if small else np.int64
        self.matrix = sp.csr_matrix((counts_.astype(np.int32 if small and (not len(counts_) or counts_.max() < 2**31)
                                                    else np.int64), ids_.astype(index),
                                     np.array(indptr, dtype=index)), shape=(len(indptr) - 1, len(vocabulary)))
        del ids_, counts_, ids, counts
        self.unigrams = np.asarray(unigrams, dtype=np.int64)
        self.ends = ends
        release_free_memory()  # the papers' counters and word lists: freed, given back

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def to_file(self, path: str | os.PathLike) -> None:
        """Write the counts to ``path`` (numpy's ``.npz``, no pickle): the terms one per line (a
        term holds no line end: tokens are words, a bigram two of them and a space)."""
        terms = "\n".join(self.terms)
        if terms.count("\n") != max(len(self.terms) - 1, 0):
            raise ValueError("a term holds a line end")
        ends = ["" if e is None else e[0] for e in self.ends], ["" if e is None else e[1] for e in self.ends]
        text = {name: np.frombuffer(value.encode("utf-8", "surrogatepass"), dtype=np.uint8)
                for name, value in (("terms", terms), ("firsts", "\n".join(ends[0])), ("lasts", "\n".join(ends[1])))}
        with open(path, "wb") as f:
            np.savez(f, data=self.matrix.data, indices=self.matrix.indices, indptr=self.matrix.indptr,
                     shape=np.asarray(self.matrix.shape, dtype=np.int64), unigrams=self.unigrams, **text)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "DocumentTerms":
        """The counts :meth:`to_file` wrote."""
        import scipy.sparse as sp

        with np.load(path, allow_pickle=False) as f:
            def lines(name: str) -> list[str]:
                return f[name].tobytes().decode("utf-8", "surrogatepass").split("\n")

            self = cls.__new__(cls)
            self.matrix = sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"].tolist()))
            self.unigrams = f["unigrams"]
            self.terms = lines("terms") if self.matrix.shape[1] else []
            firsts, lasts = (lines("firsts"), lines("lasts")) if self.matrix.shape[0] else ([], [])
        self.vocabulary = dict(zip(self.terms, range(len(self.terms))))
        self.ends = [(a, b) if a else None for a, b in zip(firsts, lasts)]
        if len(self.terms) != self.matrix.shape[1] or len(self.ends) != self.matrix.shape[0]:
            raise ValueError(f"{path}: {len(self.terms)} terms and {len(self.ends)} papers for a matrix of {self.matrix.shape}")
        return self

    def topic_counts(self, groups: Sequence[Sequence[int]], min_df: int):
        """The document-term matrix (CSR, int64) of the documents made by joining the papers of
        each group (rows, in order) with spaces, and its vocabulary (term -> column), as
        ``CountVectorizer(min_df=min_df)`` of the labels counts them: the same values, and each
        row's entries in the same order."""
        import scipy.sparse as sp

        extra: dict[str, int] = {}
        rows = [self._joined(np.asarray(group, dtype=np.int64), extra) for group in groups]
        n_terms = len(self.vocabulary) + len(extra)
        found_in = np.zeros(n_terms, dtype=np.int32)  # (per term, ~3 million at 50,000 papers: 32 bits)
        for order, _ in rows:
            found_in[order] += 1
        kept = np.flatnonzero(found_in >= min_df)
        del found_in
        if not len(kept):
            raise ValueError("After pruning, no terms remain. Try a lower min_df or a higher max_df.")
        terms, more, first_extra = self.terms, list(extra), len(self.terms)

        def name(j: int) -> str:
            return terms[j] if j < first_extra else more[j - first_extra]

        by_name = sorted(kept.tolist(), key=name)
        column = np.full(n_terms, -1, dtype=np.int64 if n_terms >= 2**31 else np.int32)
        column[by_name] = np.arange(len(by_name))
        for i, (order, values) in enumerate(rows):  # the terms dropped go now (most of them, once)
            keep = column[order] >= 0
            rows[i] = order[keep], values[keep]
        # CountVectorizer numbers terms as it first meets them, document after document, and
        # keeps each row's entries in that order (it sorts the row's indices before renaming them).
        seen = np.full(n_terms, np.iinfo(np.int64).max, dtype=np.int64)
        offset = 0
        for order, _ in rows:
            np.minimum.at(seen, order, np.arange(offset, offset + len(order)))
            offset += len(order)
        indices, data, indptr = [], [], [0]
        for ids, vals in rows:
            sort = np.argsort(seen[ids], kind="stable")
            indices.append(column[ids[sort]])
            data.append(vals[sort])
            indptr.append(indptr[-1] + len(ids))
        itype = np.int32 if indptr[-1] < 2**31 else np.int64
        matrix = sp.csr_matrix((np.concatenate(data).astype(np.int64), np.concatenate(indices).astype(itype),
                                np.asarray(indptr, dtype=itype)), shape=(len(groups), len(by_name)))
        # the vocabulary as CountVectorizer leaves it: terms in the order first met, numbered by name
        return matrix, {name(j): int(column[j]) for j in kept[np.argsort(seen[kept], kind="stable")].tolist()}

    def _joined(self, group: np.ndarray, extra: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        """The terms of the group's papers joined into one document: their ids in the order they
        first occur in it (its unigrams, then its bigrams), and their counts."""
        import pandas as pd

        sub = self.matrix[group]
        boundary, before = [], []  # the bigrams joining makes, and the paper each comes before
        previous = None
        for k, row in enumerate(group.tolist()):
            if self.ends[row] is None:
                continue
            if previous is not None:
                term = f"{previous} {self.ends[row][0]}"
                j = self.vocabulary.get(term)
                boundary.append(extra.setdefault(term, len(self.vocabulary) + len(extra)) if j is None else j)
                before.append(k)
            previous = self.ends[row][1]
        # Each row's entries are its unigrams, then its bigrams. The joined document's terms in
        # order: every paper's unigrams, then every paper's bigrams, each paper's after the
        # bigram joining it to the one before (no array of every entry's position: the largest
        # topic's were the build's peak).
        unigrams = self.unigrams[group]
        lengths = np.empty(2 * len(group), dtype=np.int64)
        lengths[0::2], lengths[1::2] = unigrams, np.diff(sub.indptr) - unigrams
        is_unigram = np.repeat(np.tile([True, False], len(group)), lengths)
        bigrams = sub.indices[~is_unigram]
        if boundary:
            wide = max(boundary) >= 2**31
            at = np.concatenate([[0], np.cumsum(lengths[1::2])])[before]  # (bigrams before paper k)
            bigrams = np.insert(bigrams.astype(np.int64) if wide else bigrams, at,
                                np.asarray(boundary, dtype=np.int64 if wide else bigrams.dtype))
        order = pd.unique(np.concatenate([sub.indices[is_unigram], bigrams]))
        del is_unigram, bigrams
        n_terms = len(self.vocabulary) + len(extra)
        totals = np.bincount(sub.indices, weights=sub.data, minlength=n_terms)
        if boundary:
            np.add.at(totals, np.asarray(boundary), 1)
        counts = np.rint(totals[order])
        small = n_terms < 2**31 and (not len(counts) or counts.max() < 2**31)  # 32 bits where they fit
        return order.astype(np.int32 if small else np.int64), counts.astype(np.int32 if small else np.int64)


_last: tuple[str, DocumentTerms] | None = None
#: Where the matrix of a corpus may be counted already, in another process (a build's second
#: process, ``review._words_beside``): called with the corpus's :func:`texts_key` before its
#: texts are counted here, it gives their :class:`DocumentTerms`, or None (then counted here).
counted_elsewhere: Callable[[str], DocumentTerms | None] | None = None


def texts_key(texts: Sequence[str]) -> str:
    """What :func:`document_terms` knows a corpus by."""
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        h.update(text.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def document_terms(texts: Sequence[str]) -> DocumentTerms:
    """The :class:`DocumentTerms` of ``texts``, counted once per corpus (the last one is kept)."""
    global _last
    key = texts_key(texts)
    if _last is None or _last[0] != key:
        _last = None  # the previous corpus's matrix goes before this one is made
        found = counted_elsewhere(key) if counted_elsewhere is not None else None
        _last = (key, DocumentTerms(texts) if found is None else found)
    return _last[1]


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

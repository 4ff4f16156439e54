"""One document-term matrix per corpus, shared by every computation of topic words.

BERTopic's c-TF-IDF vectorises each topic's papers joined into one document, so every fit (a
build, a refit, "Show themes") tokenises the whole corpus again, and the joined documents of
topics holding one non-ASCII paper go through the slow any-script tokenizer. :class:`DocumentTerms`
counts each paper's unigrams and bigrams once, as the labels' ``CountVectorizer`` does (lower
case, :func:`workbench.corpus.writing_systems.tokens`, stop words dropped before bigrams are made), and
:meth:`DocumentTerms.topic_counts` gives BERTopic the matrix it would have counted for any
partition into topics: the rows of a topic's papers summed, plus the bigrams joining makes
(the last word of one paper with the first of the next), the terms found in fewer topics than
``min_df`` dropped, the rest in sorted order, each row's entries in the order of their first
occurrence in the joined document (BERTopic breaks ties between equal scores by that order).
:class:`SharedVectorizer` hands it to BERTopic, and answers BERTopic's ``transform`` of
sampled papers (its representative documents) from the same rows; tests compare both with
CountVectorizer's.
A fitted :class:`~workbench.topics.TopicModel` keeps the matrix it used (``terms_``), and a refit
or "Show themes" of the same review hands it to the next fit (``fit(..., terms=)``), which
counts no word again; a matrix counted for other texts is never used (:func:`document_terms`).
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections import Counter, defaultdict
import tempfile
from itertools import chain, filterfalse, islice
from typing import Callable, Iterable, Sequence

import numpy as np

from .._runtime.memory import release_free_memory
from ..corpus.writing_systems import tokens
from .labels import stop_words

__all__ = ["DocumentTerms", "Counted", "document_terms", "texts_key"]


class DocumentTerms:
    """Each paper's unigram and bigram counts; see the module docstring. ``key``: the
    :func:`texts_key` of the texts counted (given where the caller has it already)."""

    def __init__(self, texts: Sequence[str], key: str | None = None):
        self.key = texts_key(texts) if key is None else key
        vocabulary, ids, counts, indptr, unigrams, ends = _counted(texts)
        import scipy.sparse as sp

        self.vocabulary = vocabulary
        self.terms = list(vocabulary)
        # Each row's entries in the order they first occur in the paper, unigrams first (not
        # sorted); 32-bit where they fit (~80 MB less at 50,000 papers, held through c-TF-IDF)
        counts_, ids_ = np.frombuffer(counts, dtype=np.int32), np.frombuffer(ids, dtype=np.int32)  # (views)
        index = np.int32 if len(ids) < 2**31 else np.int64
        self.matrix = sp.csr_matrix((counts_, ids_ if index is np.int32 else ids_.astype(index),
                                     np.array(indptr, dtype=index)), shape=(len(indptr) - 1, len(vocabulary)))
        del ids_, counts_, ids, counts
        self.unigrams = np.asarray(unigrams, dtype=np.int64)
        self.ends = ends
        release_free_memory()  # the papers' counters and word lists: freed, given back

    @staticmethod
    def count_to_file(texts: Iterable[str], key: str, path: str | os.PathLike, every: int = 1 << 22) -> None:
        """Write what ``DocumentTerms(texts, key).to_file(path)`` writes, without holding the
        counts: each paper's term numbers and counts go to temporary files (beside ``path``) as
        they are made, and into ``path`` from there. Only the vocabulary is held (the counts of
        a million papers are ~200 million entries, 1.6 GB). ``texts`` may be any iterable,
        read once (the texts themselves need not be held either). ``every``: the entries held
        before they are written out."""
        folder = os.path.dirname(os.path.abspath(path))
        with tempfile.TemporaryFile(dir=folder) as ids_file, tempfile.TemporaryFile(dir=folder) as counts_file:
            def spill(ids: array, counts: array) -> None:
                ids.tofile(ids_file)
                counts.tofile(counts_file)

            vocabulary, ids, counts, indptr, unigrams, ends = _counted(texts, spill, every)
            spill(ids, counts)
            del ids, counts
            n = indptr[-1]
            index = np.int32 if n < 2**31 else np.int64
            with _NpzWriter(path) as out:
                out.copied("data", counts_file, np.int32, n)
                out.copied("indices", ids_file, np.int32, n)  # (a wider matrix's are widened when loaded)
                out.array("indptr", np.asarray(indptr, dtype=index))
                out.array("shape", np.asarray([len(indptr) - 1, len(vocabulary)], dtype=np.int64))
                del indptr
                out.array("unigrams", np.asarray(unigrams, dtype=np.int64))
                out.array("key", np.frombuffer(key.encode("ascii"), dtype=np.uint8))
                out.lines("terms", vocabulary, folder)
                vocabulary.clear()
                out.lines("firsts", ("" if e is None else e[0] for e in ends), folder)
                out.lines("lasts", ("" if e is None else e[1] for e in ends), folder)

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
                     shape=np.asarray(self.matrix.shape, dtype=np.int64), unigrams=self.unigrams,
                     key=np.frombuffer(self.key.encode("ascii"), dtype=np.uint8), **text)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "DocumentTerms":
        """The counts :meth:`to_file` wrote."""
        import scipy.sparse as sp

        with np.load(path, allow_pickle=False) as f:
            def lines(name: str) -> list[str]:
                return str(f[name].data, "utf-8", "surrogatepass").split("\n")  # (decoded from the array: no copy of its bytes)

            self = cls.__new__(cls)
            self.matrix = sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"].tolist()))
            self.unigrams = f["unigrams"]
            self.key = f["key"].tobytes().decode("ascii")
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

    def _joined(self, group: np.ndarray, extra: dict[str, int], chunk: int = 50_000) -> tuple[np.ndarray, np.ndarray]:
        """The terms of the group's papers joined into one document: their ids in the order they
        first occur in it (its unigrams, then its bigrams), and their counts. ``chunk`` papers'
        rows at a time (the largest topic's rows of a million papers, copied whole with their
        positions and bigrams, made the labels' peak: ~1 GB above the matrix)."""
        import pandas as pd

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
        n_terms = len(self.vocabulary) + len(extra)
        wide = bool(boundary) and max(boundary) >= 2**31
        boundary_ids = np.asarray(boundary, dtype=np.int64 if wide else self.matrix.indices.dtype)
        before_at = np.asarray(before, dtype=np.int64)
        # Each row's entries are its unigrams, then its bigrams. The joined document's terms in
        # order: every paper's unigrams, then every paper's bigrams, each paper's after the
        # bigram joining it to the one before: the terms first met in each chunk of papers,
        # unigrams over all chunks first, then bigrams.
        seen = np.zeros(n_terms, dtype=bool)
        totals = np.zeros(n_terms, dtype=np.float64)
        firsts, bigram_chunks = [], []

        def first_met(ids: np.ndarray) -> None:
            found = pd.unique(ids)
            found = found[~seen[found]]
            seen[found] = True
            firsts.append(found)

        for start in range(0, len(group), chunk):
            rows = group[start:start + chunk]
            sub = self.matrix[rows]
            unigrams = self.unigrams[rows]
            lengths = np.empty(2 * len(rows), dtype=np.int64)
            lengths[0::2], lengths[1::2] = unigrams, np.diff(sub.indptr) - unigrams
            is_unigram = np.repeat(np.tile([True, False], len(rows)), lengths)
            first_met(sub.indices[is_unigram])
            bigrams = sub.indices[~is_unigram]
            lo, hi = np.searchsorted(before_at, [start, start + len(rows)])
            if hi > lo:
                at = np.concatenate([[0], np.cumsum(lengths[1::2])])[before_at[lo:hi] - start]  # (bigrams before paper k)
                bigrams = np.insert(bigrams.astype(np.int64) if wide else bigrams, at, boundary_ids[lo:hi])
            bigram_chunks.append(bigrams)
            totals[:sub.indices.max(initial=-1) + 1] += np.bincount(sub.indices, weights=sub.data)
            del sub, is_unigram, bigrams
        for bigrams in bigram_chunks:
            first_met(bigrams)
        del bigram_chunks
        order = np.concatenate(firsts) if firsts else np.zeros(0, dtype=self.matrix.indices.dtype)
        if boundary:
            np.add.at(totals, np.asarray(boundary), 1)
        counts = np.rint(totals[order])
        small = n_terms < 2**31 and (not len(counts) or counts.max() < 2**31)  # 32 bits where they fit
        return order.astype(np.int32 if small else np.int64), counts.astype(np.int32 if small else np.int64)


def _counted(texts: Iterable[str], spill: Callable[[array, array], None] | None = None, every: int = 1 << 22):
    """Each text's unigram and bigram counts (see :class:`DocumentTerms`): the vocabulary (term
    -> number, in the order first met), the terms' numbers and counts (machine integers), the
    rows' ends in them, each row's unigrams and each paper's first and last kept token.
    ``spill(ids, counts)``: called with the numbers and counts whenever ``every`` are held,
    which are then let go of (the rows' ends count them all)."""
    stop = frozenset(stop_words()).__contains__
    # A new term gets the next number as it is first looked up (the dictionary's size then):
    # the loop below is calls of C functions, no Python code per term
    vocabulary: dict[str, int] = defaultdict()
    vocabulary.default_factory = vocabulary.__len__
    number = vocabulary.__getitem__
    # machine integers, not lists of Python ints: 4 bytes an entry instead of ~36 (about 10
    # million entries at 50,000 papers, 200 million at a million); a term's number and its
    # count in one paper fit in 32 bits
    ids, counts, indptr = array("i"), array("i"), array("q", [0])
    spilled = 0
    unigrams = []  # entries of each row that are unigrams (the row's first ones)
    ends = []  # (first, last) kept token of each paper, None without one
    for text in texts:
        words = list(filterfalse(stop, tokens(text.lower())))
        grams = Counter(words)
        unigrams.append(len(grams))
        grams.update(map(" ".join, zip(words, islice(words, 1, None))))
        ids.extend(map(number, grams))
        counts.extend(grams.values())
        indptr.append(spilled + len(ids))
        ends.append((words[0], words[-1]) if words else None)
        if spill is not None and len(ids) >= every:
            spill(ids, counts)
            spilled += len(ids)
            ids, counts = array("i"), array("i")
    vocabulary.default_factory = None  # (a lookup of an unknown term is a KeyError again)
    return vocabulary, ids, counts, indptr, unigrams, ends


class _NpzWriter:
    """Writes an ``.npz`` as ``np.savez`` does (uncompressed, no pickle), member by member, the
    large ones copied from files rather than held."""

    def __init__(self, path: str | os.PathLike):
        import zipfile

        self._zip = zipfile.ZipFile(path, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True)

    def array(self, name: str, value: np.ndarray) -> None:
        with self._zip.open(f"{name}.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array(f, np.asanyarray(value), allow_pickle=False)

    def copied(self, name: str, source, dtype, n: int, chunk: int = 1 << 24) -> None:
        """``n`` values of ``dtype`` from the file object ``source`` (from its start)."""
        dtype = np.dtype(dtype)
        source.flush()
        source.seek(0)
        with self._zip.open(f"{name}.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_2_0(
                f, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": (int(n),)})
            left = int(n) * dtype.itemsize
            while left:
                block = source.read(min(chunk, left))
                if not block:
                    raise ValueError(f"{name}: {left} bytes missing from its temporary file")
                f.write(block)
                left -= len(block)

    def lines(self, name: str, strings: Iterable[str], folder: str, every: int = 100_000) -> None:
        """``strings`` joined by line ends, UTF-8 (surrogates passed), as ``to_file`` writes them."""
        with tempfile.TemporaryFile(dir=folder) as tmp:
            size, first, batch = 0, True, []
            for line in chain(strings, [None]):
                if line is not None:
                    batch.append(line)
                if len(batch) >= every or (line is None and batch):
                    text = "\n".join(batch)
                    if text.count("\n") != len(batch) - 1:
                        raise ValueError("a term holds a line end")
                    data = (("" if first else "\n") + text).encode("utf-8", "surrogatepass")
                    tmp.write(data)
                    size, first, batch = size + len(data), False, []
            self.copied(name, tmp, np.uint8, size)

    def __enter__(self) -> "_NpzWriter":
        return self

    def __exit__(self, *exc) -> None:
        self._zip.close()



#: What a fit may be handed as the corpus's counts: the :class:`DocumentTerms` counted before, or
#: a function that gives them for a :func:`texts_key` when the labels need them (a build's words
#: counted in another process, ``review.build._words_beside``), or None where it has none.
Counted = Callable[[str], "DocumentTerms | None"]


def texts_key(texts: Sequence[str]) -> str:
    """What :func:`document_terms` knows a corpus by."""
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        h.update(text.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def document_terms(texts: Sequence[str], counted: "DocumentTerms | Counted | None" = None) -> DocumentTerms:
    """The :class:`DocumentTerms` of ``texts``: ``counted`` (or what it gives for their key) when
    it counted these texts, else counted now."""
    key = texts_key(texts)
    found = counted(key) if callable(counted) else counted
    return found if found is not None and found.key == key else DocumentTerms(texts, key)

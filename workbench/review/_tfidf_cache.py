"""The ranked queue's features, kept on disk in the review's ``cache/`` for the next kernel.

Building the TF-IDF of words and word pairs is the one slow step of a review's first re-rank
(about 20 s at 50,000 papers on two cores); every later re-rank in that kernel reuses it.
Without a copy on disk every new kernel, CLI call and colleague paid it again.

An entry's key is made of everything the matrix depends on (the texts, the vectorizer's
parameters, scikit-learn's version and the feature code), so a changed review or a new version
is never served a stale one. Making every paper's text to find that key took seconds at 50,000
papers, so an entry also names the papers.jsonl files its texts were read from (``file-<digest>``,
a digest of the file's bytes and of the code that makes a paper's text from it): a new kernel
reading the same file finds its entry by that digest. Entries are written under a temporary
name and renamed, and only the latest is kept. A damaged entry is built again, never an error.

The matrix is kept as its three arrays (``.npy``), mapped into memory when loaded (copy on
write), and the terms one a line, decoded one by one as an explanation asks for them: a new
kernel's first ranked card does not wait for 116 MB to be copied nor 1.2 million terms to be
split (50,000 papers).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..screening import Features
from ..screening._features import TFIDF_PARAMS
from ..readers.cache import code_digest

__all__ = ["FOLDER", "EntryKey", "TermList", "features_key", "load_or_build"]

log = logging.getLogger(__name__)

FOLDER = Path("cache") / "screening-tfidf"  # under the review folder
_VERSION = 3
_ARRAYS = ("data", "indices", "indptr")  # the CSR matrix's, one .npy file each


@dataclass(frozen=True)
class EntryKey:
    """A review's entry: ``key`` (its texts' digest) and ``file`` (the digest of the papers.jsonl
    the texts are read from, or None when they are held in memory)."""

    key: str
    file: str | None


def _header() -> bytes:
    return json.dumps([_VERSION, sorted(map(str, TFIDF_PARAMS.items())), version("scikit-learn"),
                       code_digest("screening/_features.py")]).encode()


def features_key(review) -> EntryKey:
    """``review``'s entry: found by the digest of the file its texts are read from when an entry
    names that file, else by the digest of the texts."""
    folder = Path(review.path) / FOLDER
    digest = review.texts_digest()
    file = None if digest is None else hashlib.sha256(_header() + digest.encode()).hexdigest()[:32]
    if file is not None:
        known = [e.parent.name for e in folder.glob(f"*/file-{file}")] if folder.is_dir() else []
        if known:
            return EntryKey(known[0], file)
    h = hashlib.sha256(_header())
    for t in review.texts():
        h.update(t.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return EntryKey(h.hexdigest()[:32], file)


class TermList(Sequence):
    """A kept entry's terms (``terms.txt``, one a line), each decoded when asked for."""

    def __init__(self, data: bytes):
        self._data = data
        ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
        self._starts = np.concatenate([[0], ends + 1])
        self._ends = np.append(ends, len(data))

    def __len__(self) -> int:
        return len(self._starts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"term {i} of {len(self)}")
        return self._data[self._starts[i]:self._ends[i]].decode("utf-8")


def _load(entry: Path, n: int) -> Features | None:
    try:
        data, indices, indptr = (np.load(entry / f"{name}.npy", mmap_mode="c", allow_pickle=False) for name in _ARRAYS)
        terms = TermList((entry / "terms.txt").read_bytes())
        if (len(indptr) != n + 1 or len(data) != len(indices) or indptr[0] != 0 or indptr[-1] != len(data)
                or (len(indices) and not 0 <= indices.min() <= indices.max() < len(terms))
                or np.any(np.diff(indptr) < 0)):  # (a damaged file read as a matrix could crash)
            raise ValueError(f"arrays of {len(indptr) - 1} rows, {len(data)} entries and {len(terms)} terms do not agree")
        tfidf = sp.csr_matrix((data, indices, indptr), shape=(n, len(terms)), copy=False)
    except (OSError, ValueError, KeyError) as err:
        log.info("screening TF-IDF cache %s unreadable or not of %d papers (%s); building it again", entry, n, err)
        return None
    return Features(tfidf=tfidf, terms=terms)


def _save(folder: Path, key: str, features: Features) -> None:
    """Write the entry under a temporary name, rename it into place, drop older entries."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder))
    try:
        for name in _ARRAYS:
            np.save(tmp / f"{name}.npy", getattr(features.tfidf, name))
        (tmp / "terms.txt").write_text("\n".join(map(str, features.terms)), encoding="utf-8")
        os.replace(tmp, folder / key)
    except OSError as err:  # a full disk or a read-only review: the queue works without the copy
        log.warning("could not keep the screening TF-IDF in %s (%s); the next kernel builds it again", folder, err)
        shutil.rmtree(tmp, ignore_errors=True)
        return
    for old in folder.iterdir():
        if old.name != key:
            shutil.rmtree(old, ignore_errors=True)


def load_or_build(review, entry: EntryKey | None) -> Features:
    """The TF-IDF :class:`Features` of ``review``'s texts: from its ``entry`` (see
    :func:`features_key`) when there, else built and kept there (``entry`` None: not kept)."""
    if entry is None:
        return Features.from_texts(review.texts())
    folder = Path(review.path) / FOLDER
    features = _load(folder / entry.key, len(review)) if (folder / entry.key).is_dir() else None
    if features is None:
        shutil.rmtree(folder / entry.key, ignore_errors=True)
        features = Features.from_texts(review.texts())
        _save(folder, entry.key, features)
    if entry.file is not None and (folder / entry.key).is_dir():
        try:  # the next kernel reading this file finds the entry without making every text
            (folder / entry.key / f"file-{entry.file}").touch()
        except OSError:
            pass
    return features

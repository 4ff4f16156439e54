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
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..screening import Features
from ..screening._features import TFIDF_PARAMS
from ..readers.cache import code_digest

__all__ = ["FOLDER", "EntryKey", "features_key", "load_or_build"]

log = logging.getLogger(__name__)

FOLDER = Path("cache") / "screening-tfidf"  # under the review folder
_VERSION = 2


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


def _load(entry: Path, n: int) -> Features | None:
    try:
        tfidf = sp.load_npz(entry / "tfidf.npz").tocsr()
        terms = np.asarray((entry / "terms.txt").read_text(encoding="utf-8").split("\n"), dtype=object)
    except (OSError, ValueError, KeyError) as err:
        log.info("screening TF-IDF cache %s unreadable (%s); building it again", entry, err)
        return None
    if tfidf.shape != (n, len(terms)):
        log.info("screening TF-IDF cache %s has shape %s for %d papers and %d terms; building it again",
                 entry, tfidf.shape, n, len(terms))
        return None
    return Features(tfidf=tfidf, terms=terms)


def _save(folder: Path, key: str, features: Features) -> None:
    """Write the entry under a temporary name, rename it into place, drop older entries."""
    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=folder))
    try:
        sp.save_npz(tmp / "tfidf.npz", features.tfidf, compressed=False)
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

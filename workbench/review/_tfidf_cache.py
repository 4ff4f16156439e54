"""The ranked queue's TF-IDF, kept on disk in the review's ``cache/`` for the next kernel.

Building the TF-IDF of words and word pairs is the one slow step of a review's first re-rank
(about 20 s at 50,000 papers on two cores); every later re-rank in that kernel reuses it.
Without a copy on disk every new kernel, CLI call and colleague paid it again. The matrix is
kept under a key made of everything it depends on (the texts, the vectorizer's parameters,
scikit-learn's version and the feature code), so a changed review or a new version is never
served a stale one; entries are written under a temporary name and renamed, and only the
latest is kept. A damaged entry is built again, never an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..screening import Features
from ..screening._features import TFIDF_PARAMS
from ..readers.cache import code_digest

__all__ = ["FOLDER", "load_or_build"]

log = logging.getLogger(__name__)

FOLDER = Path("cache") / "screening-tfidf"  # under the review folder
_VERSION = 1


def _key(texts: list[str]) -> str:
    import sklearn

    h = hashlib.sha256()
    h.update(json.dumps([_VERSION, sorted(map(str, TFIDF_PARAMS.items())), sklearn.__version__,
                         code_digest("screening/_features.py")]).encode())
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:32]


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


def load_or_build(review_path: Path | None, texts: list[str]) -> Features:
    """The TF-IDF :class:`Features` of ``texts``: from ``review_path/cache/screening-tfidf`` when
    an entry for exactly these texts and this code is there, else built and kept there."""
    if review_path is None:
        return Features.from_texts(texts)
    folder = Path(review_path) / FOLDER
    key = _key(texts)
    if (folder / key).is_dir():
        features = _load(folder / key, len(texts))
        if features is not None:
            return features
        shutil.rmtree(folder / key, ignore_errors=True)
    features = Features.from_texts(texts)
    _save(folder, key, features)
    return features

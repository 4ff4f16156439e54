"""What a review embeds and clusters for each paper, and its embeddings from a Dask build's cache.
(Its papers.jsonl is read back by :func:`workbench.corpus.texts.read_papers`.)"""

from __future__ import annotations

import hashlib
import json
import logging
import os

import numpy as np

from ..corpus.paper import Paper, bounded_text
from ..corpus.texts import shorten
from ..embed import text_hash
from ..readers.cache import code_digest

__all__ = ["document_text", "parquet_embeddings", "row_embeddings", "text_starts", "texts_file_digest"]

log = logging.getLogger(__name__)

STARTS = "text-starts"  # under the review's cache/: text_starts, by the papers file
ROWS = "embeddings-rows"  # under the review's cache/: row_embeddings, by the papers file and embedder


def document_text(paper: Paper) -> str:
    """What is embedded and clustered: "Title. Abstract", or the abstract alone when the title
    adds nothing to it (``Paper.title_derived``), or the title alone when there is no abstract.

    Title + abstract measured better than the abstract alone on the labelled corpora
    (docs/benchmarks.md); a title made from the abstract would only count its words twice.
    """
    text, title = paper.text, paper.title
    if not text:
        return title
    if not title or paper.title_derived:
        return text
    return f"{title} {text}" if title.endswith((".", "?", "!")) else f"{title}. {text}"


def parquet_embeddings(review):
    """The papers' embeddings from a Dask build's Parquet cache (None when one is missing)."""
    from ..distributed import ParquetCache
    where = review.manifest["embedding_cache"]
    embedder = review.manifest["embedder"]
    cache = ParquetCache(review.path / where["path"], f"{embedder['name']}:{embedder['version']}")
    return cache.lookup([text_hash(bounded_text(t)) for t in review.texts()])


def texts_file_digest(review) -> str | None:
    """A digest of the papers.jsonl ``review``'s texts are read from (its bytes and the code
    that makes texts from it), or None when its texts are held in memory (a build's, an
    update's). What the caches of things made from every text are found by in a new kernel,
    without reading every text (a generation's file is never rewritten). See
    :meth:`workbench.review.Review.texts_digest`, which remembers it."""
    source = review.paper_texts.file_of(review.papers)
    if source is None:
        return None
    h = hashlib.sha256(code_digest("corpus/texts.py", "corpus/paper.py", "review/_text.py").encode())
    with open(source, "rb") as lines:  # never the store's files
        while block := lines.read(16 * 2**20):
            h.update(block)
    return h.hexdigest()[:32]


def text_starts(review, width: int = 260) -> list[str]:
    """Each paper's clean text on one line, cut after a word at ``width`` characters
    (:func:`~workbench.corpus.texts.shorten`), in map order; kept in the review's cache by the
    file the texts are read from (:meth:`~workbench.review.Review.texts_digest`), the latest only."""
    digest = review.texts_digest()
    if digest is None:
        return [shorten(text, width) for _, text in review.paper_texts]
    folder = review.path / "cache" / STARTS
    path = folder / f"{digest}-{width}.json"
    try:
        starts = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        starts = None
    if isinstance(starts, list) and len(starts) == len(review.papers):
        return starts
    starts = [shorten(text, width) for _, text in review.paper_texts]
    tmp = folder / f".tmp-{os.getpid()}-{path.name}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(starts, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
        for old in folder.glob("*.json"):
            if old.name != path.name:
                old.unlink(missing_ok=True)
    except OSError as err:  # a read-only review: the map works without the copy
        log.warning("could not keep the texts' starts in %s (%s)", folder, err)
        tmp.unlink(missing_ok=True)
    return starts


def row_embeddings(review, read) -> np.ndarray:
    """``read()`` (the papers' embeddings, from the review's text-keyed cache), kept in the
    papers' order in the review's cache by the file the texts are read from and the embedder
    (:meth:`~workbench.review.Review.texts_digest`), the latest only: a new kernel loads one array instead of
    making every text and looking each up (seconds at 50,000 papers)."""
    digest = review.texts_digest()
    if digest is None:
        return read()
    embedder = json.dumps(review.manifest.get("embedder"), sort_keys=True).encode()
    folder = review.path / "cache" / ROWS
    path = folder / f"{digest}-{hashlib.sha256(embedder).hexdigest()[:16]}.npy"
    try:
        held = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        held = None
    if held is not None and held.ndim == 2 and len(held) == len(review.papers):
        return held
    vectors = read()
    tmp = folder / f".tmp-{os.getpid()}-{path.name}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        np.save(tmp, np.asarray(vectors))
        os.replace(tmp, path)
        for old in folder.glob("*.npy"):
            if old.name != path.name:
                old.unlink(missing_ok=True)
    except OSError as err:  # a read-only review: the embeddings are read by text next time
        log.warning("could not keep the embeddings in the papers' order in %s (%s)", folder, err)
        tmp.unlink(missing_ok=True)
    return vectors

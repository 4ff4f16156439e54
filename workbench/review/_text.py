"""What a review embeds and clusters for each paper, and its embeddings from a Dask build's cache.
(Its papers.jsonl is read back by :func:`workbench.corpus.texts.read_papers`.)"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading

import numpy as np

from ..corpus.paper import Paper, bounded_text
from ..corpus.texts import shorten
from ..embed import text_hash
from ..readers.cache import code_digest

__all__ = ["EMBEDDER", "document_text", "file_digest", "keep_for_new_kernels", "parquet_embeddings", "row_embeddings", "text_starts",
           "texts_file_digest"]

log = logging.getLogger(__name__)

STARTS = "text-starts"  # under the review's cache/: text_starts, by the papers file
ROWS = "embeddings-rows"  # under the review's cache/: row_embeddings, by the papers file and embedder
DIGESTS = "texts-digest"  # under the review's cache/: kept_digest, by the papers file's place, size, time

# Held while a review's embedder runs or its embeddings are loaded: a tokenizer may not be used by
# two threads at once ("Already borrowed"), and the warm-ups of the search and of the queue run in
# threads of their own beside the kernel's.
EMBEDDER = threading.RLock()


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
    """A digest of the papers.jsonl ``review``'s texts are read from (:func:`file_digest`), or
    None when its texts are held in memory (a build's, an update's). What the caches of things
    made from every text are found by in a new kernel, without reading every text (a
    generation's file is never rewritten). See :meth:`workbench.review.Review.texts_digest`,
    which remembers it."""
    source = review.paper_texts.file_of(review.papers)
    return None if source is None else kept_digest(review, source)


def kept_digest(review, source) -> str:
    """:func:`file_digest` of ``source`` (a papers.jsonl of ``review``), kept in the review's
    cache by the file's place, size, modification time and inode and by the code that makes
    texts: a new kernel reads five numbers instead of the whole file (a generation's file is never
    rewritten; a file written again, or a copied review, is read and digested again)."""
    state = os.stat(source)
    where = f"{os.path.realpath(source)}\0{state.st_size}\0{state.st_mtime_ns}\0{state.st_ino}\0{state.st_dev}"
    key = hashlib.sha256((_texts_code() + where).encode()).hexdigest()[:32]
    path = review.path / "cache" / DIGESTS / f"{key}.txt"
    try:
        digest = path.read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        digest = ""
    if len(digest) == 32:
        return digest
    digest = file_digest(source)
    _keep(path, lambda tmp: tmp.write_text(digest, encoding="ascii"), "*.txt")
    return digest


def _texts_code() -> str:
    return code_digest("corpus/texts.py", "corpus/paper.py", "review/_text.py")


def file_digest(source) -> str:
    """A digest of a papers.jsonl's bytes and of the code that makes texts from it."""
    h = hashlib.sha256(_texts_code().encode())
    with open(source, "rb") as lines:  # never the store's files
        while block := lines.read(16 * 2**20):
            h.update(block)
    return h.hexdigest()[:32]


def keep_for_new_kernels(review, papers_file) -> None:
    """Keep in the review's cache what a new kernel would otherwise make from every text (the
    map's text starts, the embeddings in the papers' order), from what ``review`` holds in
    memory (a build's, an update's), under the digest of ``papers_file``: the
    papers.jsonl of ``review``'s papers that a kernel opening the review reads its texts from.
    An entry already there for that file is left as it is, and the starts only from texts held
    in memory (a review read from its file makes them when a map needs them)."""
    digest = kept_digest(review, papers_file)
    starts = _starts_path(review, digest, 260)
    if not starts.is_file() and review.texts_digest() is None:
        _keep(starts, lambda tmp: _write_starts(tmp, (shorten(text, 260) for _, text in review.paper_texts)), "*.json")
    rows = _rows_path(review, digest)
    if review.embeddings_loaded and not rows.is_file():
        _keep(rows, lambda tmp: np.save(tmp, np.asarray(review.embeddings())), "*.npy")


def _write_starts(path, starts) -> None:
    """``json.dumps(list(starts), ensure_ascii=False)`` written to ``path``, one text at a time
    (a million papers' list and its JSON were ~1 GB of a build's save)."""
    with open(path, "w", encoding="utf-8") as out:
        out.write("[")
        for k, start in enumerate(starts):
            out.write((", " if k else "") + json.dumps(start, ensure_ascii=False))
        out.write("]")


def _starts_path(review, digest: str, width: int):
    return review.path / "cache" / STARTS / f"{digest}-{width}.json"


def _rows_path(review, digest: str):
    embedder = json.dumps(review.manifest.get("embedder"), sort_keys=True).encode()
    return review.path / "cache" / ROWS / f"{digest}-{hashlib.sha256(embedder).hexdigest()[:16]}.npy"


def _keep(path, write, pattern: str) -> bool:
    """``write(tmp)`` then ``tmp`` renamed to ``path``, the other entries of its folder
    (``pattern``) dropped: the latest only. A read-only review keeps nothing (False)."""
    folder = path.parent
    tmp = folder / f".tmp-{os.getpid()}-{threading.get_ident()}-{path.name}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write(tmp)  # (its name ends as ``path``'s: np.save adds no ".npy")
        os.replace(tmp, path)
        for old in folder.glob(pattern):
            if old.name != path.name:
                old.unlink(missing_ok=True)
        return True
    except OSError as err:  # a read-only review: made again next time
        log.warning("could not keep %s in %s (%s)", path.name, folder, err)
        tmp.unlink(missing_ok=True)
        return False


def text_starts(review, width: int = 260) -> list[str]:
    """Each paper's clean text on one line, cut after a word at ``width`` characters
    (:func:`~workbench.corpus.texts.shorten`), in map order; kept in the review's cache by the
    file the texts are read from (:meth:`~workbench.review.Review.texts_digest`), the latest only."""
    digest = review.texts_digest()
    if digest is None:
        return [shorten(text, width) for _, text in review.paper_texts]
    path = _starts_path(review, digest, width)
    try:
        starts = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        starts = None
    if isinstance(starts, list) and len(starts) == len(review.papers):
        return starts
    starts = [shorten(text, width) for _, text in review.paper_texts]
    _keep(path, lambda tmp: tmp.write_text(json.dumps(starts, ensure_ascii=False), encoding="utf-8"), "*.json")
    return starts


def row_embeddings(review, read) -> np.ndarray:
    """``read()`` (the papers' embeddings, from the review's text-keyed cache), kept in the
    papers' order in the review's cache by the file the texts are read from and the embedder
    (:meth:`~workbench.review.Review.texts_digest`), the latest only: a new kernel loads one array instead of
    making every text and looking each up (seconds at 50,000 papers). A build, an update and a
    refit keep it already (:func:`keep_for_new_kernels`)."""
    digest = review.texts_digest()
    if digest is None:
        return read()
    path = _rows_path(review, digest)
    try:
        held = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        held = None
    if held is not None and held.ndim == 2 and len(held) == len(review.papers):
        return held
    vectors = read()
    _keep(path, lambda tmp: np.save(tmp, np.asarray(vectors)), "*.npy")
    return vectors

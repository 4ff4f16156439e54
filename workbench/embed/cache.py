"""Vectors cached on disk, so that nothing is embedded twice.

:class:`EmbeddingCache` is a SQLite file keyed by (embedder key, hash of the clean text): a
second build of the same corpus embeds nothing, and adding ten papers embeds those ten.
:func:`embed_with_cache` embeds a list of texts through it; :class:`WordVectors` is the
word-embedding function the topic model is handed for its labels (the embedder's
``embed_words``, through the same cache).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import EmbedderError
from ..corpus.paper import bounded_text
from .protocol import Embedder, text_hash

__all__ = ["EmbeddingCache", "embed_with_cache", "WordVectors"]


#: A new cache file's page size. A row of a WITHOUT ROWID table holds at most ~1/4 of a page
#: before the rest goes to overflow pages of its own: with SQLite's default 4,096 bytes a vector
#: of 256 float32 (1 kB) took a 4 kB overflow page (50,000 vectors: a 223 MB file, 1.24 s to
#: write); with 32 kB pages rows of up to ~2,000 dimensions stay in their B-tree page (57 MB,
#: 0.3 s). Files made before keep their pages and are read as ever.
PAGE_SIZE = 32768


def _cache_read_only(path: Path) -> bool:
    """Whether this process may not write the cache (a review folder shared read-only)."""
    if path.exists():
        return not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
    folder = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    return folder is not None and not os.access(folder, os.W_OK)


class EmbeddingCache:
    """Vectors on disk, keyed by (embedder key, text hash). One SQLite file, safe to share."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.read_only = _cache_read_only(self.path)
        self._kept: dict[tuple[str, str], np.ndarray] = {}  # new vectors of a read-only cache
        self._closed = False
        if self.read_only:  # a review folder you may only read: use what is cached, keep the rest in memory
            try:
                self._db = sqlite3.connect(f"file:{self.path.resolve()}?mode=ro", uri=True, timeout=30)
                self._db.execute("SELECT 1 FROM vectors LIMIT 1")
            except sqlite3.Error:  # no cache there (or not readable): an empty one in memory
                self._db = sqlite3.connect(":memory:")
                self._create_table()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists()
        self._db = sqlite3.connect(self.path, timeout=30)
        if new:  # SQLite makes 0644: give it the user's umask (a team's shared folder)
            from .._runtime.fsutil import default_file_mode

            try:
                os.chmod(self.path, default_file_mode())
            except OSError:
                pass
        if new:  # (only before the first table: the page size of a file is fixed then)
            self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._create_table()

    def _create_table(self) -> None:
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL,"
            " dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID"
        )

    def close(self) -> None:
        self._db.close()
        self._closed = True

    @property
    def is_open(self) -> bool:
        return not self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def get(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 900):
            chunk = unique[start : start + 900]
            marks = ",".join("?" * len(chunk))
            for h, dim, blob in self._db.execute(
                f"SELECT hash, dim, vec FROM vectors WHERE model = ? AND hash IN ({marks})", [model, *chunk]
            ):
                found[h] = np.frombuffer(blob, dtype=np.float32, count=dim)
        if self._kept:
            found.update((h, self._kept[model, h]) for h in unique if (model, h) in self._kept)
        return found

    def put(self, model: str, hashes: Sequence[str], vectors: np.ndarray) -> None:
        if self.read_only:
            self._kept.update(((model, h), np.asarray(v, np.float32)) for h, v in zip(hashes, vectors))
            return
        # in key order: each row lands after the last in the table's B-tree (at 50,000 vectors
        # 1.9 s against 3.0 s in the order given, whose hashes are random)
        rows = sorted(zip(hashes, range(len(hashes))))
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
                ((model, h, vectors[i].shape[0], np.ascontiguousarray(vectors[i], np.float32).tobytes()) for h, i in rows),
            )

    def count(self, model: str | None = None) -> int:
        if model is None:
            return self._db.execute("SELECT count(*) FROM vectors").fetchone()[0]
        return self._db.execute("SELECT count(*) FROM vectors WHERE model = ?", [model]).fetchone()[0]


def embed_with_cache(
    texts: Sequence[str], embedder: Embedder, cache: EmbeddingCache | None, corpus: bool = False,
    before: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, dict]:
    """Embed ``texts``, computing only those the cache does not hold.

    ``corpus=True`` says these texts are the whole corpus (corpus-relative embedders such as
    tfidf fit on it). A text longer than :data:`~workbench.corpus.paper.MAX_TEXT_CHARS` is embedded
    by its start (:func:`~workbench.corpus.paper.bounded_text`). Returns the (n, d) float32 matrix in
    input order and stats: ``{"cached", "embedded", "seconds"}``. ``before(n)`` is called with the
    number of texts to embed before they are (not when the cache holds them all).
    """
    t0 = time.perf_counter()
    texts = [bounded_text(t) for t in texts]
    hashes = [text_hash(t) for t in texts]
    if corpus:
        embedder.bind_corpus(texts, hashes)
    matrix, missing = _through_cache(texts, hashes, embedder, cache, embedder.embed, before)
    stats = {
        "cached": sum(1 for h in hashes if h not in missing),
        "embedded": len(missing),
        "seconds": round(time.perf_counter() - t0, 3) if texts else 0.0,
    }
    return matrix, stats


def _through_cache(texts: list[str], hashes: list[str], embedder: Embedder, cache: EmbeddingCache | None,
                   compute: Callable[[Sequence[str]], np.ndarray],
                   before: Callable[[int], None] | None = None) -> tuple[np.ndarray, set[str]]:
    """The vectors of ``texts`` (by their ``hashes``): from ``cache``, the rest from ``compute``
    (each distinct text once; ``before(n)`` first) and put in the cache. Returns them and the
    hashes computed."""
    if not embedder.bound:
        cache = None  # a corpus-relative embedder with no corpus: its vectors mean nothing later
    key = f"{embedder.name}:{embedder.version}"
    found = cache.get(key, hashes) if cache is not None else {}
    missing = list(dict.fromkeys(h for h in hashes if h not in found))
    if missing:
        if before is not None:
            before(len(missing))
        by_hash = dict(zip(hashes, texts))
        new = np.asarray(compute([by_hash[h] for h in missing]), dtype=np.float32)
        if new.shape[0] != len(missing) or not np.all(np.isfinite(new)):
            raise EmbedderError(
                f"embedder {embedder.name!r} returned {new.shape} for {len(missing)} texts or non-finite"
                " values; expected one finite vector per text"
            )
        if cache is not None:
            cache.put(key, missing, new)
        found.update(zip(missing, new))
    if not texts:
        return np.zeros((0, 1), np.float32), set()
    # (np.array of equal-length rows: 0.03 s for 50,000, where np.vstack takes 0.5 s)
    return np.array([found[h] for h in hashes], dtype=np.float32), set(missing)


class WordVectors:
    """Words in, one vector per word out: the embedder's ``embed_words`` through the cache.

    What a :class:`~workbench.topics.TopicModel` is handed to embed its candidate label words.
    ``cache`` is the path of an :class:`EmbeddingCache` (None: no cache); it is opened for each
    call and closed after it, so a model kept for later (``reduce_to``) never meets a closed one.
    ``lock``: held around each call where other threads use the same embedder (a tokenizer may
    not serve two threads at once).
    """

    def __init__(self, embedder: Embedder, cache: str | Path | None = None, lock=None):
        self.embedder = embedder
        self.cache = None if cache is None else Path(cache)
        self.lock = lock if lock is not None else contextlib.nullcontext()

    def __repr__(self) -> str:
        return f"WordVectors({self.embedder.name!r}, cache={str(self.cache) if self.cache else None!r})"

    def __call__(self, words: Sequence[str]) -> np.ndarray:
        words = [bounded_text(w) for w in words]
        hashes = [text_hash(w) for w in words]
        with self.lock:
            if self.cache is None:
                return _through_cache(words, hashes, self.embedder, None, self.embedder.embed_words)[0]
            with EmbeddingCache(self.cache) as cache:
                return _through_cache(words, hashes, self.embedder, cache, self.embedder.embed_words)[0]

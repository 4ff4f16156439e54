"""Embedding partitions on the workers, through the shared Parquet cache.

Each task takes one partition of papers, packed with the text each paper is embedded by (the
review's ``text_of``, "Title. Abstract": :mod:`.packed`), and returns the partition's vectors: from its
Parquet file when the cache has it (:class:`~workbench.distributed.cache.ParquetCache`), else
embedded and written there. The vectors stay on the workers, one block per partition, for the
topics and the map. A worker process keeps one copy of each embedder it has loaded, so a
model is read once per process, not once per partition.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .._runtime.memory import release_free_memory
from ..embed import text_hash
from ..errors import EmbedderError, InputError
from ..corpus.paper import bounded_text
from .cache import ParquetCache

__all__ = ["embed_partitions", "partition_texts"]

_LOADED: dict[str, object] = {}  # embedder key -> the embedder this worker process loaded


def _embedder(embedder):
    key = f"{embedder.name}:{embedder.version}"
    return _LOADED.setdefault(key, embedder)


def partition_texts(papers: list, text_of: Callable) -> list[str]:
    """The texts embedded and clustered for a partition's papers (cut as the caches cut them)."""
    return [bounded_text(text_of(p)) for p in papers]


def _embed_partition(papers, embedder, cache_root: str) -> tuple[np.ndarray, dict]:
    """One partition's vectors and stats (cached, embedded, seconds); ``papers``: a
    :class:`~.packed.PackedPapers`."""
    t0 = time.perf_counter()
    release_free_memory()  # the papers of the partitions packed before (glibc keeps freed pages until trimmed)
    texts = papers.texts()
    hashes = [text_hash(t) for t in texts]
    embedder = _embedder(embedder)
    cache = ParquetCache(cache_root, f"{embedder.name}:{embedder.version}")
    vectors = cache.get(hashes)
    if vectors is not None:
        return vectors, {"cached": len(texts), "embedded": 0, "seconds": time.perf_counter() - t0}
    unique = list(dict.fromkeys(hashes))
    by_hash = dict(zip(hashes, texts))
    new = np.asarray(embedder.embed([by_hash[h] for h in unique]), dtype=np.float32)
    if new.shape[0] != len(unique) or not np.all(np.isfinite(new)):
        raise EmbedderError(f"embedder {embedder.name!r} returned {new.shape} for {len(unique)} texts or"
                            " non-finite values; expected one finite vector per text")
    row = {h: i for i, h in enumerate(unique)}
    vectors = new[[row[h] for h in hashes]]
    cache.put(hashes, vectors)
    return vectors, {"cached": 0, "embedded": len(texts), "seconds": time.perf_counter() - t0}


def _vectors(pair):
    return pair[0]


def _stats(pair):
    return pair[1]


def embed_partitions(client, partitions, embedder, cache_root,
                     watch: Callable = lambda futures: None) -> tuple[list, dict]:
    """Futures of each partition's vectors (``partitions``: futures of :class:`~.packed.PackedPapers`),
    and the stats summed (cached, embedded, seconds of work)."""
    if not embedder.bound:
        raise InputError(f"the {embedder.name!r} embedder fits the whole corpus at once, which a "
                         "partitioned build cannot do; use --embedder static or minilm with --dask")
    done = client.map(_embed_partition, partitions, embedder=embedder,
                      cache_root=str(cache_root), pure=False)
    watch(done)
    stats = client.gather(client.map(_stats, done))
    total = {k: sum(s[k] for s in stats) for k in ("cached", "embedded")}
    total["worker_seconds"] = round(sum(s["seconds"] for s in stats), 3)
    return client.map(_vectors, done), total

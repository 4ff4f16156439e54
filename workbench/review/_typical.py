"""Each topic's most typical papers, remembered on disk for the topics they were found for.

Finding them needs every paper's embedding (a gigabyte for a million 256-d papers), and the
explore view shows them as it opens. So they are kept in the review's build cache
(:meth:`~._reuse.BuildCache.typical`: ``cache/typical/<key>.json``), keyed by the review's
generation of files, the embedder, ``n`` and the topic labels as they are now (a human edit that
moves papers changes the labels, and so the key): a kernel that opens the review again, or
another process, reads them without loading the embeddings. Writing them is best effort (a
read-only folder finds them each time), and a damaged entry is found again.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .build._reuse import BuildCache, digest
from ..topics import representatives

__all__ = ["MEMO", "remember", "typical_papers"]

#: Where they are kept, under the review folder.
MEMO = Path("cache") / "typical"


def _key(review, n: int) -> str:
    embedder = review.manifest.get("embedder", {})
    return digest(review.generation or review.manifest.get("built_at", ""), embedder.get("name"),
                  embedder.get("version"), n, np.ascontiguousarray(review.labels, dtype=np.int64).tobytes())


def typical_papers(review, n: int) -> dict[int, list[str]]:
    """The ids of each topic's ``n`` most typical papers (see :meth:`Review.representatives`)."""
    def find() -> dict[int, list[str]]:
        ids = review.ids
        rows = representatives(review.embeddings(), review.labels, n)
        return {topic: [ids[r] for r in found] for topic, found in rows.items()}

    return BuildCache(review.path).typical(_key(review, n), find)


def remember(review, n: int, found: dict[int, list[str]]) -> None:
    """Keep ``found`` as the review's ``n`` typical papers of its topics as they are now (found
    where the embeddings are: a Dask build's workers)."""
    BuildCache(review.path).typical(_key(review, n), lambda: found)

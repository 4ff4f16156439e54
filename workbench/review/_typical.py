"""Each topic's most typical papers, remembered on disk for the topics they were found for.

Finding them needs every paper's embedding (a gigabyte for a million 256-d papers), and the
explore view shows them as it opens. So they are kept in ``cache/typical.json`` under the
review, keyed by the review's generation of files, the embedder, ``n`` and a digest of the topic
labels as they are now (a human edit that moves papers changes the labels, and so the key): a
kernel that opens the review again, or another process, reads them without loading the
embeddings. The file is a cache: writing it is best effort (a read-only folder computes them
each time), and a damaged one is ignored.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..fsutil import atomic_write_text

__all__ = ["MEMO", "typical_papers"]

MEMO = Path("cache") / "typical.json"
#: The labellings remembered (the latest ones): a few edits back and forth stay cached.
KEEP = 8


def _key(review, n: int) -> str:
    labels = hashlib.blake2b(np.asarray(review.labels, dtype=np.int64).tobytes(), digest_size=12).hexdigest()
    embedder = review.manifest.get("embedder", {})
    files = review.generation or review.manifest.get("built_at", "")
    return "|".join(str(part) for part in (files, embedder.get("name"), embedder.get("version"), n, labels))


def _load(path: Path) -> dict:
    try:
        memo = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return memo if isinstance(memo, dict) else {}


def typical_papers(review, n: int) -> dict[int, list[str]]:
    """The ids of each topic's ``n`` most typical papers (see :meth:`Review.representatives`)."""
    from ..topics import representatives

    key, path = _key(review, n), review.path / MEMO
    found = _load(path).get(key)
    if isinstance(found, dict):
        return {int(topic): list(ids) for topic, ids in found.items()}
    ids = review.ids
    rows = representatives(review.embeddings(), review.labels, n)
    typical = {topic: [ids[r] for r in found] for topic, found in rows.items()}
    memo = _load(path)  # with what another process may have written meanwhile
    memo.pop(key, None)
    memo[key] = {str(topic): found for topic, found in typical.items()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(dict(list(memo.items())[-KEEP:])))
    except OSError:
        pass  # a cache: the next open computes them again
    return typical

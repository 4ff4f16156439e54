"""Nearest neighbours of the papers, computed once and shared by the topic space and the map.

Both UMAPs of a build (the 5-d clustering space in :mod:`workbench.topics` and the 2-d map in
:mod:`workbench.space.layout`) start from the same cosine k-nearest-neighbour graph of the embeddings.
:func:`nearest_neighbors` computes it once and keeps the last few results in memory, keyed by a
hash of the embeddings and the seed. Graphs are built with at least 30 neighbours and sliced
for smaller requests, so the map and the topic space share one graph and a result never depends
on what ran before it in the process.

Up to :data:`EXACT_MAX` papers the graph is exact (blocked matrix products, which use every
core and give the same answer every run); above, pynndescent's seeded NN-descent, which UMAP
would run itself, single-threaded so that it stays deterministic (at 50,000 papers it takes
about 26 s here against 42 s for the exact graph, ~11 s of it compiling pynndescent's code,
which :mod:`workbench.space._nndescent` now keeps on disk).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

__all__ = ["nearest_neighbors", "remember_neighbors", "umap_epochs", "umap_init", "EXACT_MAX", "MIN_K"]

EXACT_MAX = 20_000
MIN_K = 30
_BLOCK = 512
_MEMO: "OrderedDict[tuple, tuple[np.ndarray, np.ndarray]]" = OrderedDict()
_MEMO_SIZE = 2


def umap_epochs(n: int) -> int | None:
    """UMAP optimisation epochs for ``n`` papers: UMAP's own 500 up to 5,000, then 200, then 100.

    UMAP itself drops from 500 to 200 epochs only above 10,000 points; layouts of thousands of
    points settle well before that, and the epochs are most of UMAP's time once the
    neighbours are known.
    """
    if n <= 5_000:
        return None
    return 200 if n <= 20_000 else 100


def umap_init(n: int) -> str:
    """UMAP's starting layout: the spectral one up to 20,000 papers, PCA above.

    The spectral layout's eigenvectors take 10 s per UMAP at 50,000 papers here and grow faster
    than the rest; PCA of the embeddings takes a fraction of a second and is as repeatable.
    """
    return "spectral" if n <= 20_000 else "pca"


def _key(X: np.ndarray, seed: int) -> tuple:
    digest = hashlib.blake2b(np.ascontiguousarray(X).view(np.uint8).ravel(), digest_size=16).hexdigest()
    return (digest, X.shape, int(seed))


def nearest_neighbors(X: np.ndarray, n_neighbors: int, seed: int = 42) -> tuple[np.ndarray, np.ndarray]:
    """Indices and cosine distances of each row's ``n_neighbors`` nearest rows (itself first).

    Returns copies: UMAP edits the arrays it is given.
    """
    X = np.asarray(X, dtype=np.float32)
    n = len(X)
    k = min(n_neighbors, n)
    exact = n <= EXACT_MAX
    # A graph is always built with at least MIN_K neighbours and sliced, so the map (15) and the
    # topic space (30) share one graph whichever asks first, and ties break the same way.
    k_built = min(n, max(k, MIN_K))
    key = _key(X, seed) + (k_built,)
    hit = _MEMO.get(key)
    if hit is None:
        hit = _exact(X, k_built) if exact else _nndescent(X, k_built, seed)
        _remember(key, hit)
    _MEMO.move_to_end(key)
    indices, dists = hit
    return indices[:, :k].copy(), dists[:, :k].copy()


def remember_neighbors(X: np.ndarray, seed: int, indices: np.ndarray, dists: np.ndarray) -> None:
    """Keep a graph :func:`nearest_neighbors` gave for ``X`` and ``seed`` in another process (its
    ``MIN_K`` or more neighbours), so that it is not computed again here."""
    _remember(_key(np.asarray(X, dtype=np.float32), seed) + (indices.shape[1],), (indices, dists))


def _remember(key: tuple, hit: tuple[np.ndarray, np.ndarray]) -> None:
    """Keep ``hit`` as the newest of the last :data:`_MEMO_SIZE` graphs."""
    _MEMO[key] = hit
    _MEMO.move_to_end(key)
    while len(_MEMO) > _MEMO_SIZE:
        _MEMO.popitem(last=False)


def _unit(X: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return X / norms


def _exact(X: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    U = _unit(X)
    n = len(U)
    indices = np.empty((n, k), dtype=np.int32)
    dists = np.empty((n, k), dtype=np.float32)
    rows = np.arange(_BLOCK)
    for start in range(0, n, _BLOCK):
        sim = U[start : start + _BLOCK] @ U.T
        m = len(sim)
        sim[rows[:m], start + rows[:m]] = np.inf  # each paper is its own nearest neighbour
        part = np.argpartition(-sim, k - 1, axis=1)[:, :k] if k < n else np.tile(np.arange(n), (m, 1))
        top = np.take_along_axis(sim, part, axis=1)
        order = np.lexsort((part, -top), axis=1)  # by similarity, ties by index: repeatable
        indices[start : start + m] = np.take_along_axis(part, order, axis=1)
        best = np.take_along_axis(top, order, axis=1)
        best[:, 0] = 1.0
        dists[start : start + m] = np.clip(1.0 - best, 0.0, 2.0)
    return indices, dists


def _nndescent(X: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from umap.umap_ import nearest_neighbors as umap_nn

    from ._nndescent import cached_nn_descent

    with cached_nn_descent():
        indices, dists, _ = umap_nn(
            X, k, "cosine", {}, True, np.random.RandomState(seed), low_memory=True,
            use_pynndescent=True, n_jobs=1, verbose=False,
        )  # fmt: skip
    return indices.astype(np.int32), dists.astype(np.float32)

"""Nearest neighbours of the papers, computed once and shared by the topic space and the map.

Both UMAPs of a build (the 5-d clustering space in :mod:`workbench.topics` and the 2-d map in
:mod:`workbench.space.layout`) start from the same cosine k-nearest-neighbour graph of the
embeddings: a :class:`NeighbourGraph`, computed by whichever needs it first and handed to the
other (``TopicModel.fit(..., graph=)``, ``MapLayout.fit(..., graph=)``; the fitted model keeps
it as ``graph_``, so a refit of the same review reuses it). A graph is built with at least
:data:`MIN_K` neighbours and sliced for smaller requests, so the map (15) and the topic space
(30) share one graph and a result never depends on which asked first; a graph that does not fit
the request (other embeddings, another seed for NN-descent, another number of neighbours to
build) is not used, and one is computed instead.

Up to :data:`EXACT_MAX` papers the graph is exact (blocked matrix products, which use every
core and give the same answer every run); above, pynndescent's seeded NN-descent, which UMAP
would run itself, single-threaded so that it stays deterministic (at 50,000 papers it takes
about 26 s here against 42 s for the exact graph, ~11 s of it compiling pynndescent's code,
which :mod:`workbench.space._nndescent` now keeps on disk).
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["EXACT_MAX", "MIN_K", "NeighbourGraph", "neighbour_graph", "umap_epochs", "umap_init"]

EXACT_MAX = 20_000
MIN_K = 30
_BLOCK = 512


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


def _digest(X: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(X).view(np.uint8).ravel(), digest_size=16).hexdigest()


def _built_k(n: int, n_neighbors: int) -> int:
    """The neighbours a graph for ``n_neighbors`` of ``n`` papers is built with: at least MIN_K."""
    return min(n, max(min(n_neighbors, n), MIN_K))


class NeighbourGraph:
    """Indices and cosine distances of each paper's nearest papers (itself first), for one set
    of embeddings: what both UMAPs start from (see the module docstring). Made by :meth:`of`."""

    def __init__(self, indices: np.ndarray, dists: np.ndarray, *, seed: int, exact: bool, digest: str):
        self.indices, self.dists = indices, dists
        self.seed, self.exact, self.digest = int(seed), exact, digest

    @classmethod
    def of(cls, X: np.ndarray, seed: int = 42, n_neighbors: int = MIN_K) -> "NeighbourGraph":
        """The graph of the embeddings ``X`` for ``n_neighbors`` (built with at least MIN_K)."""
        X = np.asarray(X, dtype=np.float32)
        k, exact = _built_k(len(X), n_neighbors), len(X) <= EXACT_MAX
        indices, dists = _exact(X, k) if exact else _nndescent(X, k, seed)
        return cls(indices, dists, seed=seed, exact=exact, digest=_digest(X))

    def fits(self, X: np.ndarray, n_neighbors: int, seed: int) -> bool:
        """Whether this is the graph :meth:`of` would give for ``X``, ``n_neighbors`` and ``seed``
        (the exact graph does not depend on the seed)."""
        X = np.asarray(X, dtype=np.float32)
        return (self.indices.shape == (len(X), _built_k(len(X), n_neighbors)) and (self.exact or self.seed == int(seed))
                and self.digest == _digest(X))

    def knn(self, n_neighbors: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices and distances of each paper's ``n_neighbors`` nearest (copies: UMAP edits the
        arrays it is given)."""
        k = min(n_neighbors, len(self.indices))
        return self.indices[:, :k].copy(), self.dists[:, :k].copy()


def neighbour_graph(X: np.ndarray, n_neighbors: int, seed: int, graph: NeighbourGraph | None = None) -> NeighbourGraph:
    """``graph`` when it fits ``X``, ``n_neighbors`` and ``seed`` (:meth:`NeighbourGraph.fits`),
    else the graph computed now."""
    if graph is not None and graph.fits(X, n_neighbors, seed):
        return graph
    return NeighbourGraph.of(X, seed, n_neighbors)


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

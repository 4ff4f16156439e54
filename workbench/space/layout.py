"""The 2-D map: where each paper sits on the screen.

:class:`MapLayout` is a seeded 2-D UMAP of the embeddings (cosine), fitted once per build and
kept with the review, so the map only moves when the corpus or the seed does. It starts from the
same nearest-neighbour graph as the topic space where it is handed one (``fit(X, graph=)``, a
:class:`workbench.space.neighbors.NeighbourGraph`). Above 5,000 papers it runs fewer optimisation epochs than UMAP's default: a map of
thousands of points settles long before (see ``workbench.space.neighbors.umap_epochs``); above
20,000 it starts from PCA rather than the slower spectral layout. Below
:data:`MIN_PAPERS_FOR_UMAP` papers it uses PCA instead and says so in ``method_``.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import InputError
from .neighbors import NeighbourGraph, neighbour_graph, umap_epochs, umap_init

__all__ = ["MapLayout", "MIN_PAPERS_FOR_UMAP", "scale_map"]

MIN_PAPERS_FOR_UMAP = 40


class MapLayout:
    """2-D coordinates for the map.

    Parameters
    ----------
    n_neighbors : int
        UMAP's neighbourhood: larger keeps more of the global structure.
    min_dist : float
        How tightly UMAP packs points (0.1 leaves room to see each paper).
    n_epochs : int or None
        UMAP's optimisation epochs; None: 500 up to 5,000 papers, 200 up to 20,000, 100 above.
    seed : int

    Attributes (after ``fit``)
    --------------------------
    coords_ : ndarray (n, 2), scaled to [-10, 10] on the larger axis
    method_ : "umap", "pca" or "point"
    """

    def __init__(self, n_neighbors: int = 15, min_dist: float = 0.1, n_epochs: int | None = None, seed: int = 42):
        self.n_neighbors = n_neighbors
        self.min_dist = min_dist
        self.n_epochs = n_epochs
        self.seed = seed

    def fit(self, embeddings, graph: NeighbourGraph | None = None) -> "MapLayout":
        """Lay out ``embeddings``; ``graph``: their neighbour graph where the caller has it (the
        topic model's ``graph_``), used when it fits (else computed)."""
        X = np.asarray(embeddings, dtype=np.float32)
        if X.ndim != 2 or len(X) == 0:
            raise InputError(f"embeddings of shape {X.shape}; expected a non-empty (papers, dims) matrix")
        n = len(X)
        if n >= MIN_PAPERS_FOR_UMAP:
            from umap import UMAP

            from .._runtime.numba_cache import enable_numba_cache

            enable_numba_cache()
            k = min(self.n_neighbors, n - 1)
            epochs = self.n_epochs or umap_epochs(n)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                coords = UMAP(
                    n_components=2,
                    n_neighbors=k,
                    min_dist=self.min_dist,
                    n_epochs=epochs,
                    init=umap_init(n),
                    metric="cosine",
                    random_state=self.seed,
                    n_jobs=1,
                    low_memory=True,
                    precomputed_knn=neighbour_graph(X, k, self.seed, graph).knn(k),
                ).fit_transform(X)
            self.method_ = "umap"
        elif n >= 3:
            from sklearn.decomposition import PCA

            with warnings.catch_warnings():  # identical papers have no variance to explain
                warnings.simplefilter("ignore")
                coords = PCA(n_components=2, random_state=self.seed).fit_transform(X)
            self.method_ = "pca"
        else:
            coords = np.array([[-1.0, 0.0], [1.0, 0.0]][:n]) if n == 2 else np.zeros((1, 2))
            self.method_ = "point"
        self.coords_ = scale_map(coords)
        return self


def scale_map(coords: np.ndarray) -> np.ndarray:
    """A map's coordinates as every map is kept: centred, the larger axis in [-10, 10]."""
    coords = np.asarray(coords, dtype=np.float64)
    centred = coords - coords.mean(axis=0)
    span = np.abs(centred).max()
    return np.round(centred / span * 10.0, 5) if span > 0 else centred


def place_by_neighbours(new, old, coords, labels=(), k: int = 10, chunk: int = 2048):
    """Place papers into a fitted map without refitting: each new paper at the similarity-weighted
    mean of its ``k`` most similar old papers' ``coords`` (cosine of the embeddings), and in the
    weighted majority of their values in each array of ``labels`` (topics, fine topics).

    ``coords`` may be any per-paper float array (the 2-d map, the 5-d clustering space). Returns
    ``(coords of the new papers, [labels of the new papers per array])``; the old papers'
    values are never touched. k-nearest neighbours stand in for UMAP's ``transform`` (which does
    the same on its fuzzy graph) because the review keeps no fitted UMAP.
    """
    new = np.asarray(new, dtype=np.float32)
    old = np.asarray(old, dtype=np.float32)
    if old.ndim != 2 or len(old) == 0 or new.ndim != 2 or new.shape[1] != old.shape[1]:
        raise InputError(f"embeddings of shapes {new.shape} (new) and {old.shape} (old); expected "
                         "(papers, dims) matrices with the same dims and at least one old paper")
    coords = np.asarray(coords, dtype=np.float64)
    labels = [np.asarray(a) for a in labels]
    k = max(1, min(k, len(old)))
    unit_old = old / np.maximum(np.linalg.norm(old, axis=1, keepdims=True), 1e-12)
    placed = np.zeros((len(new), coords.shape[1]))
    voted = [np.zeros(len(new), dtype=a.dtype) for a in labels]
    for start in range(0, len(new), chunk):
        block = new[start:start + chunk]
        sims = (block / np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-12)) @ unit_old.T
        nearest = most_similar(sims, k)
        weights = np.maximum(np.take_along_axis(sims, nearest, axis=1), 0.0) + 1e-6
        weights /= weights.sum(axis=1, keepdims=True)
        placed[start:start + len(block)] = np.einsum("nk,nkd->nd", weights, coords[nearest])
        for out, values in zip(voted, labels):
            out[start:start + len(block)] = _weighted_vote(values[nearest], weights)
    return placed, voted


def most_similar(sims: np.ndarray, k: int, blocks: int = 64) -> np.ndarray:
    """Per row of ``sims``, the columns of its ``k`` largest values, largest first (ties: the
    smaller column; which of the values tied with the k-th: any, as with ``np.argpartition``),
    in a fraction of ``np.argpartition``'s time on long rows."""
    n, m = sims.shape
    width = m // blocks  # the columns cut into ``blocks`` interleaved blocks of ``width``
    if width < k:
        candidates = np.broadcast_to(np.arange(m), (n, m))
    else:
        # The k largest values lie in the k blocks with the largest maxima (any other block's
        # values are each below k values of those): only those blocks' values are compared.
        heads = sims[:, :blocks * width].reshape(n, blocks, width).max(axis=1)
        best = np.argpartition(heads, -k, axis=1)[:, -k:]
        candidates = (best[:, :, None] + width * np.arange(blocks)).reshape(n, -1)
        candidates = np.hstack([candidates, np.broadcast_to(np.arange(blocks * width, m), (n, m - blocks * width))])
    values = np.take_along_axis(sims, candidates, axis=1)
    top = np.argpartition(values, -k, axis=1)[:, -k:]
    nearest, values = np.take_along_axis(candidates, top, axis=1), np.take_along_axis(values, top, axis=1)
    return np.take_along_axis(nearest, np.lexsort((nearest, -values), axis=1), axis=1)


def _weighted_vote(candidates: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row, the value of ``candidates`` with the largest summed weight (ties: the nearest's)."""
    out = np.empty(len(candidates), dtype=candidates.dtype)
    for i, (row, w) in enumerate(zip(candidates, weights)):
        values, inverse = np.unique(row, return_inverse=True)
        totals = np.bincount(inverse, weights=w)
        best = np.flatnonzero(totals == totals.max())
        out[i] = values[best[0]] if len(best) == 1 else row[np.argmax(w * np.isin(row, values[best]))]
    return out

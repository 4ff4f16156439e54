"""The 2-D map: where each paper sits on the screen.

:class:`MapLayout` is a seeded 2-D UMAP of the embeddings (cosine), fitted once per build and
kept with the review, so the map only moves when the corpus or the seed does. It starts from the
same nearest-neighbour graph as the topic space (:mod:`workbench._neighbors` computes it once per
process). Above 5,000 papers it runs fewer optimisation epochs than UMAP's default: a map of
thousands of points settles long before (see ``workbench._neighbors.umap_epochs``); above
20,000 it starts from PCA rather than the slower spectral layout. Below
:data:`MIN_PAPERS_FOR_UMAP` papers it uses PCA instead and says so in ``method_``.
"""

from __future__ import annotations

import warnings

import numpy as np

from .errors import InputError

__all__ = ["MapLayout", "MIN_PAPERS_FOR_UMAP"]

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

    def fit(self, embeddings) -> "MapLayout":
        X = np.asarray(embeddings, dtype=np.float32)
        if X.ndim != 2 or len(X) == 0:
            raise InputError(f"embeddings of shape {X.shape}; expected a non-empty (papers, dims) matrix")
        n = len(X)
        if n >= MIN_PAPERS_FOR_UMAP:
            from umap import UMAP

            from ._neighbors import nearest_neighbors, umap_epochs, umap_init
            from ._numba_cache import enable_numba_cache

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
                    precomputed_knn=nearest_neighbors(X, k, self.seed),
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
        self.coords_ = _scale(np.asarray(coords, dtype=np.float64))
        return self


def _scale(coords: np.ndarray) -> np.ndarray:
    centred = coords - coords.mean(axis=0)
    span = np.abs(centred).max()
    return np.round(centred / span * 10.0, 5) if span > 0 else centred

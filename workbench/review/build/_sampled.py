"""The topics and map of a very large corpus in one process: fitted on a seeded sample, the rest placed.

Above :data:`SAMPLE_ABOVE` papers a single-process build does what a Dask build does
(:mod:`workbench.distributed.topics`): the 5-d UMAP, HDBSCAN and the map's 2-d UMAP are fitted
on a seeded sample of :data:`workbench.distributed.topics.SAMPLE_SIZE` papers (the Dask build's
default sample), and every other paper is placed at the similarity-weighted mean of its 10 most
similar sample papers, in their weighted-majority topic, :data:`BLOCK` papers at a time. The
topics are then merged along their Ward tree and labelled from every paper's words, as a whole
fit's are (:meth:`workbench.topics.TopicModel.fit_from_topics`).

A whole fit of a million papers needs its neighbour graph, UMAP's fuzzy graph and optimisation
arrays, and HDBSCAN's trees of every paper at once, on top of the texts and embeddings the
build holds: 8.2 GB for the build at 1,000,000. A sample's fit takes a fraction of that, and the
placing holds one block's similarities. The build says so in ``build.json``: topics method
``bertopic-sample`` with a note, map method ``umap-sample``. Up to :data:`SAMPLE_ABOVE` papers
nothing changes.
"""

from __future__ import annotations

import numpy as np

from ...space.layout import scale_map

__all__ = ["BLOCK", "SAMPLE_ABOVE", "SampledFit", "sampled"]

#: More papers than this are fitted on a sample (see the module docstring).
SAMPLE_ABOVE = 500_000
#: The papers placed at a time (their rows of the embeddings are copied for it).
BLOCK = 50_000


def sampled(n: int) -> bool:
    """Whether a single-process build of ``n`` papers fits its topics and map on a sample."""
    return n > SAMPLE_ABOVE


class SampledFit:
    """The sample's fit of the embeddings ``X`` and every paper placed, made once, when the
    topics (:meth:`topics`) or the map (:meth:`layout`) first ask for it."""

    def __init__(self, X: np.ndarray, params: dict, seed: int):
        self.X, self.params, self.seed = X, dict(params), int(seed)
        self._placed: dict | None = None

    def _place(self) -> dict:
        if self._placed is None:
            from ...distributed.topics import SAMPLE_SIZE, fit_sample, place_partition, sample_positions

            X, n = self.X, len(self.X)
            positions = sample_positions(n, SAMPLE_SIZE, self.seed)
            fit = fit_sample(np.ascontiguousarray(X[positions], dtype=np.float32), positions, self.params, self.seed)
            dims = fit.reduced.shape[1]
            reduced = np.empty((n, dims), np.float32)
            coords = np.empty((n, 2), np.float32)
            fine = np.empty(n, dtype=int)
            for lo in range(0, n, BLOCK):
                part = place_partition(X[lo:lo + BLOCK], lo, fit)
                hi = lo + len(part["fine"])
                reduced[lo:hi], coords[lo:hi], fine[lo:hi] = part["reduced"], part["coords"], part["fine"]
            self._placed = {"reduced": reduced, "coords": coords, "fine": fine, "size": len(positions),
                            "min_cluster_size": fit.min_cluster_size, "outlier_share": fit.outlier_share}
        return self._placed

    def topics(self, texts, word_vectors=None, terms=None):
        """The fitted :class:`~workbench.topics.TopicModel` (``self.params``): the placed papers'
        topics merged and labelled as a whole fit's are."""
        from ...topics import TopicModel

        placed = self._place()
        model = TopicModel(**self.params).fit_from_topics(texts, self.X, placed["fine"], placed["reduced"],
                                                          word_vectors, terms=terms)
        model.method_ = "bertopic-sample"
        model.note_ = (f"topics fitted on a seeded sample of {placed['size']:,} papers and placed for the rest "
                       "(each paper by its 10 most similar sample papers)")
        model.min_cluster_size_ = int(placed["min_cluster_size"])
        model.outlier_share_ = float(placed["outlier_share"])  # (the sample's)
        return model

    def layout(self) -> tuple[np.ndarray, str]:
        """The map's coordinates (scaled as :class:`~workbench.space.layout.MapLayout` scales
        them) and method."""
        return scale_map(self._place()["coords"]), "umap-sample"

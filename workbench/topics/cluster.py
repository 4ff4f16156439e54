"""The clustering: which papers belong together, before any words or labels.

Seeded UMAP takes the embeddings to a few dimensions (5) from their cosine nearest-neighbour graph
(:class:`workbench.space.neighbors.NeighbourGraph`: given where a caller has it, the map's UMAP
starts from the same graph); HDBSCAN finds dense topics there and leaves the rest as outliers
(:data:`~workbench.corpus.paper.OUTLIER`); :func:`reassign_outliers` then gives every outlier a
topic, by a vote of its nearest assigned neighbours or by the nearest topic centroid.

Below :data:`MIN_PAPERS_FOR_BERTOPIC` papers UMAP and HDBSCAN have too little to work with:
:func:`small_corpus` says how many topics agglomerative clustering makes instead (or one).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..corpus.paper import OUTLIER
from ..space.neighbors import NeighbourGraph, neighbour_graph, umap_epochs, umap_init

__all__ = [
    "MIN_PAPERS_FOR_BERTOPIC",
    "default_min_cluster_size",
    "default_min_samples",
    "small_corpus",
    "agglomerative_topics",
    "umap_space",
    "hdbscan_topics",
    "topic_centroids",
    "reassign_outliers",
]

MIN_PAPERS_FOR_BERTOPIC = 40


def default_min_cluster_size(n: int) -> int:
    """HDBSCAN's smallest topic, scaled to the corpus: 6 for 133 papers, 42 for 7,000, 112 for 50,000."""
    return int(max(5, min(500, round(0.5 * math.sqrt(n)))))


def default_min_samples(min_cluster_size: int) -> int:
    return max(2, min_cluster_size // 3)


def small_corpus(n: int) -> tuple[int, str, str]:
    """For ``n`` papers, too few for UMAP + HDBSCAN: the number of topics, the method and the note saying so."""
    k = max(1, min(n // 3, round(math.sqrt(n / 2))))
    note = (
        f"{n} papers are too few for UMAP + HDBSCAN (they need about {MIN_PAPERS_FOR_BERTOPIC});"
        + (f" grouped into {k} topics by agglomerative clustering." if k > 1 else " all in one topic.")
    )
    return k, ("agglomerative" if k > 1 else "single"), note


def agglomerative_topics(embeddings: np.ndarray, k: int) -> np.ndarray:
    """``k`` topics by average-linkage clustering on cosine distance (one topic when ``k`` is 1)."""
    if k == 1:
        return np.zeros(len(embeddings), dtype=int)
    from sklearn.cluster import AgglomerativeClustering

    return AgglomerativeClustering(n_clusters=k, metric="cosine", linkage="average").fit_predict(embeddings)


def umap_space(embeddings: np.ndarray, n_neighbors: int, n_components: int, n_epochs: int | None, seed: int,
               graph: NeighbourGraph | None = None) -> tuple[np.ndarray, NeighbourGraph]:
    """The seeded UMAP space HDBSCAN clusters in (float32, ``n_components`` columns), and the
    neighbour graph it started from: ``graph`` where it fits, else computed."""
    from umap import UMAP

    from .._runtime.numba_cache import enable_numba_cache

    enable_numba_cache()
    n = len(embeddings)
    k = min(n_neighbors, n - 1)
    graph = neighbour_graph(embeddings, k, seed, graph)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reducer = UMAP(
            n_neighbors=k,
            n_components=n_components,
            n_epochs=n_epochs or umap_epochs(n),
            init=umap_init(n),
            min_dist=0.0,
            metric="cosine",
            random_state=seed,
            n_jobs=1,
            low_memory=True,
            precomputed_knn=graph.knn(k),
        )
        return reducer.fit_transform(embeddings).astype(np.float32), graph


def hdbscan_topics(reduced: np.ndarray, min_cluster_size: int, min_samples: int, selection: str) -> np.ndarray:
    """HDBSCAN's topic of each paper in the UMAP space (:data:`~workbench.corpus.paper.OUTLIER` for none)."""
    from hdbscan import HDBSCAN

    clusterer = HDBSCAN(
        min_cluster_size=min_cluster_size,
        min_samples=min_samples,
        metric="euclidean",
        cluster_selection_method=selection,
        prediction_data=False,
        core_dist_n_jobs=1,
    )
    return clusterer.fit_predict(reduced)


def topic_centroids(embeddings: np.ndarray, labels: np.ndarray) -> tuple[list[int], np.ndarray]:
    """The topics (outliers left out) and the unit-length mean embedding of each."""
    topics = sorted(set(labels.tolist()) - {OUTLIER})
    if not topics:
        return [], np.zeros((0, embeddings.shape[1]), np.float32)
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    starts = np.searchsorted(sorted_labels, topics)
    sums = np.add.reduceat(embeddings[order].astype(np.float64), starts, axis=0)
    # reduceat starts at the first real topic, so outliers (sorted first) are never summed in
    centroids = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return topics, centroids.astype(np.float32)


def reassign_outliers(embeddings: np.ndarray, labels: np.ndarray, reduced: np.ndarray | None = None,
                      strategy: str = "embeddings", n_neighbors: int = 10) -> np.ndarray:
    """Give every outlier (:data:`~workbench.corpus.paper.OUTLIER`) a topic.

    ``"embeddings"``: the topic whose mean embedding is most similar (BERTopic's embeddings
    strategy with threshold 0). ``"neighbors"``: the most common topic among its
    ``n_neighbors`` nearest assigned papers in the clustering space ``reduced``.
    """
    labels = np.asarray(labels).copy()
    out = labels == OUTLIER
    if not out.any() or out.all():
        return labels
    if strategy == "neighbors" and reduced is not None:
        from sklearn.neighbors import NearestNeighbors

        k = min(n_neighbors, int((~out).sum()))
        _, idx = NearestNeighbors(n_neighbors=k).fit(reduced[~out]).kneighbors(reduced[out])
        votes = labels[~out][idx]
        labels[out] = [np.bincount(row - row.min()).argmax() + row.min() for row in votes]
        return labels
    topics, centroids = topic_centroids(embeddings, labels)
    X = embeddings[out].astype(np.float32)
    labels[out] = np.asarray(topics)[np.argmax(X @ centroids.T, axis=1)]
    return labels

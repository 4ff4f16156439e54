"""Topics and the map of a corpus too large to fit at once: fit on a sample, place the rest.

How Dask-ML and RAPIDS scale scikit-learn-shaped pipelines: fit the expensive model on a
seeded sample that fits in one process, then apply it to every partition in parallel.

- :func:`fit_sample` (one task): on the sample's embeddings, the 5-d UMAP and HDBSCAN the
  single-machine topics use (:mod:`workbench.topics.cluster`), with HDBSCAN's prediction data
  kept; the sample's outliers reassigned by their nearest assigned neighbours; HDBSCAN's topics
  merged along their Ward tree (:func:`workbench.topics.merge_topics`); and the 2-d UMAP of the
  map (:mod:`workbench.space.layout`'s parameters).
- :func:`place_partition` (one task per partition): each paper at the similarity-weighted mean
  of its 10 most similar sample papers in both spaces, in their weighted-majority topic
  (``placing="neighbours"``, the default), or ``UMAP.transform`` into both spaces,
  ``hdbscan.approximate_predict`` for the topic and the same neighbour vote for outliers
  (``placing="transform"``); the sample's merge applied. Papers of the sample keep what the
  fit gave them.

When the sample would be every paper (a corpus of up to ``sample_size`` papers, or of fewer than
:data:`MIN_PAPERS`, too few to sample from) :func:`fit_whole` fits on all of them as a build on
one machine does (:class:`workbench.topics.TopicModel`'s clustering, agglomerative below 40
papers; :class:`workbench.space.layout.MapLayout`'s map, PCA or a point below 15), and every paper
keeps what that fit gave it: a distributed build works at any size.

Each step takes the fitted :class:`SampleFit` as an argument, so another implementation of a
step (cuML's UMAP and HDBSCAN on a GPU) can replace it without touching the rest.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ..space.neighbors import umap_epochs, umap_init
from ..space.layout import MapLayout, place_by_neighbours
from ..errors import InputError
from ..corpus.paper import OUTLIER
from ..topics import TopicModel, merge_topics, reassign_outliers
from ..topics.cluster import default_min_cluster_size, default_min_samples

__all__ = ["MIN_PAPERS", "PLACINGS", "SAMPLE_SIZE", "SampleFit", "checked_placing", "fit_sample", "fit_whole",
           "place_partition", "sample_positions", "typical_rows"]

#: The smallest sample fitted on: a corpus of fewer papers is fitted whole (:func:`fit_whole`).
MIN_PAPERS = 200
#: The papers a sample holds unless told otherwise (``DaskPlan.sample_size``; a single-process
#: build of a very large corpus, :mod:`workbench.review.build._sampled`, fits on as many).
SAMPLE_SIZE = 20_000
OUTLIER_NEIGHBOURS = 10
#: How the papers outside the sample are placed: ``transform`` (UMAP.transform into both spaces,
#: hdbscan.approximate_predict, the outlier vote) or ``neighbours`` (each at the similarity-
#: weighted mean of its 10 most similar sample papers' coordinates, in their weighted majority
#: topic: :func:`workbench.space.layout.place_by_neighbours`, what an update of a review does).
#: ``neighbours`` is the default: on the labelled corpora (benchmarks/sample_quality.py, 11,376
#: papers, a 20 % sample) it kept more of the full fit's agreement with the labels (NMI -0.030
#: against -0.054 below the full fit, seed 0) in a seventh of the time, and it needs no
#: pynndescent search index on the workers.
PLACINGS = ("neighbours", "transform")
DEFAULT_PLACING = "neighbours"


@dataclass
class SampleFit:
    """What the sample taught: the fitted models and the sample's own results."""

    positions: np.ndarray  # the sample's positions in the corpus, sorted
    topic_space: object  # umap.UMAP, 5-d
    clusterer: object  # hdbscan.HDBSCAN, with prediction data when placing by transform
    neighbours: object  # sklearn NearestNeighbors over the sample's assigned papers (topic space)
    neighbour_labels: np.ndarray  # their topics (HDBSCAN's)
    merged: dict  # HDBSCAN's topic -> merged topic
    map_space: object  # umap.UMAP, 2-d
    reduced: np.ndarray  # the sample's 5-d coordinates
    fine: np.ndarray  # the sample's HDBSCAN topics, outliers reassigned
    coords: np.ndarray  # the sample's 2-d map coordinates (unscaled)
    min_cluster_size: int
    outlier_share: float
    reduce_outliers: bool
    placing: str = "neighbours"  # or "transform" (see PLACINGS)
    embeddings: np.ndarray | None = None  # the sample's, for placing by neighbours
    method: str = "bertopic-sample"  # fitted whole (fit_whole): the single machine's "bertopic", "agglomerative", ...
    note: str = ""  # what the single machine's topic model says of a small corpus
    map_method: str = "umap-sample"  # fitted whole: "umap", "pca" or "point"


def checked_placing(placing: str | None) -> str:
    """``placing`` (None: :data:`DEFAULT_PLACING`), or an error naming the choices."""
    placing = placing or DEFAULT_PLACING
    if placing not in PLACINGS:
        raise InputError(f"placing={placing!r}; expected one of {', '.join(PLACINGS)}")
    return placing


def sample_positions(n: int, size: int, seed: int) -> np.ndarray:
    """``size`` positions of ``n`` (at least :data:`MIN_PAPERS`; all when ``n`` is no more),
    chosen by ``seed``, sorted."""
    size = max(int(size), MIN_PAPERS)
    if n <= size:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))


def fit_whole(X: np.ndarray, params: dict, seed: int) -> SampleFit:
    """Topics and map of every paper, fitted as a build on one machine fits them (see the module):
    the "sample" is the whole corpus, so no paper is placed."""
    X = np.asarray(X, dtype=np.float32)
    n = len(X)
    model = TopicModel(**{k: params[k] for k in ("min_cluster_size", "min_samples", "n_neighbors", "n_components",
                                                   "cluster_selection", "reduce_outliers", "nr_topics",
                                                   "merge_variance", "n_epochs") if k in params}, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        labels = model.cluster(X)
    layout = MapLayout(seed=seed).fit(X)
    merged = {int(a): int(b) for a, b in zip(model.fine_labels_, labels)}
    reduced = model.reduced_embeddings_
    if reduced is None:  # too few papers for UMAP: the topics were found in the embedding space
        reduced = np.zeros((n, 0), np.float32)
    return SampleFit(np.arange(n), None, None, None, np.zeros(0, int), merged, None, np.asarray(reduced, np.float32),
                     np.asarray(model.fine_labels_, int), layout.coords_.astype(np.float32), model.min_cluster_size_,
                     model.outlier_share_, model.reduce_outliers, checked_placing(params.get("placing")), None,
                     model.method_, model.note_, layout.method_)


def _umap(n: int, dims: int, n_neighbors: int, min_dist: float, n_epochs, seed: int):
    from umap import UMAP

    from .._runtime.numba_cache import enable_numba_cache

    enable_numba_cache()
    return UMAP(n_components=dims, n_neighbors=min(n_neighbors, n - 1), min_dist=min_dist, metric="cosine",
                n_epochs=n_epochs or umap_epochs(n), init=umap_init(n), random_state=seed, n_jobs=1,
                low_memory=True)


def fit_sample(X: np.ndarray, positions: np.ndarray, params: dict, seed: int) -> SampleFit:
    """Fit the topic space, HDBSCAN, the merge and the map on the sample ``X`` (see the module)."""
    from hdbscan import HDBSCAN
    from sklearn.neighbors import NearestNeighbors

    placing = checked_placing(params.get("placing"))
    transform = placing == "transform"
    X = np.asarray(X, dtype=np.float32)
    n = len(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        topic_space = _umap(n, params.get("n_components", 5), params.get("n_neighbors", 30), 0.0,
                            params.get("n_epochs"), seed).fit(X)
        reduced = topic_space.embedding_.astype(np.float32)
        mcs = params.get("min_cluster_size") or default_min_cluster_size(n)
        clusterer = HDBSCAN(min_cluster_size=mcs, min_samples=params.get("min_samples") or default_min_samples(mcs),
                            metric="euclidean", cluster_selection_method=params.get("cluster_selection", "leaf"),
                            prediction_data=transform, core_dist_n_jobs=1).fit(reduced)
        raw = np.asarray(clusterer.labels_, dtype=int)
        map_space = _umap(n, 2, 15, 0.1, None, seed).fit(X)
    for space in (topic_space, map_space) if transform else ():  # builds the search index now: one pickled
        space.transform(X[:2])  # unbuilt fails to rebuild on a worker above 4,096 papers (pynndescent)
    reduce_outliers = params.get("reduce_outliers", True)
    fine = reassign_outliers(X, raw, reduced, "neighbors") if reduce_outliers else raw
    assigned = raw != OUTLIER
    if not assigned.any():
        raise InputError(f"HDBSCAN found no topic in a sample of {n} papers (min_cluster_size={mcs}); "
                         "pass a smaller min_cluster_size or a larger sample_size")
    neighbours = NearestNeighbors(n_neighbors=min(OUTLIER_NEIGHBOURS, int(assigned.sum()))).fit(reduced[assigned])
    if params.get("nr_topics"):
        merged_labels = merge_topics(X, fine, k=int(params["nr_topics"]))
    elif params.get("merge_variance", 0.009):
        merged_labels = merge_topics(X, fine, max_variance=float(params.get("merge_variance", 0.009)))
    else:
        merged_labels = fine
    merged = {int(a): int(b) for a, b in zip(fine, merged_labels)}
    return SampleFit(positions, topic_space, clusterer, neighbours, raw[assigned], merged, map_space, reduced,
                     fine, map_space.embedding_.astype(np.float32), mcs, float((~assigned).mean()), reduce_outliers,
                     placing, X if placing == "neighbours" else None)


def _vote(fit: SampleFit, reduced: np.ndarray) -> np.ndarray:
    """The most common topic among each point's nearest assigned sample papers (ties: the smaller)."""
    _, idx = fit.neighbours.kneighbors(reduced)
    votes = fit.neighbour_labels[idx]
    return np.array([np.bincount(row - row.min()).argmax() + row.min() for row in votes], dtype=int)


def place_partition(X: np.ndarray, offset: int, fit: SampleFit) -> dict:
    """One partition's topic-space coordinates, HDBSCAN topic, merged topic and map coordinates."""
    import hdbscan

    X = np.asarray(X, dtype=np.float32)
    n = len(X)
    positions = np.arange(offset, offset + n)
    in_sample = np.isin(positions, fit.positions)
    sample_rows = np.searchsorted(fit.positions, positions[in_sample])
    reduced = np.empty((n, fit.reduced.shape[1]), np.float32)
    coords = np.empty((n, 2), np.float32)
    fine = np.empty(n, dtype=int)
    reduced[in_sample], coords[in_sample], fine[in_sample] = (fit.reduced[sample_rows], fit.coords[sample_rows],
                                                              fit.fine[sample_rows])
    rest = ~in_sample
    if rest.any() and fit.placing == "neighbours":
        both = np.hstack([fit.reduced, fit.coords])
        placed, (fine[rest],) = place_by_neighbours(X[rest], fit.embeddings, both, [fit.fine])
        reduced[rest], coords[rest] = placed[:, :fit.reduced.shape[1]], placed[:, fit.reduced.shape[1]:]
    elif rest.any():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reduced[rest] = fit.topic_space.transform(X[rest])
            coords[rest] = fit.map_space.transform(X[rest])
            labels, _ = hdbscan.approximate_predict(fit.clusterer, reduced[rest])
        labels = np.asarray(labels, dtype=int)
        out = labels == OUTLIER
        if fit.reduce_outliers and out.any():
            labels[out] = _vote(fit, reduced[rest][out])
        fine[rest] = labels
    merged = np.array([fit.merged.get(int(t), int(t)) for t in fine], dtype=int)
    return {"reduced": reduced, "coords": coords, "fine": fine, "labels": merged}


# ----------------------------------------------------------------------------- typical papers

def _unit(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


def _topic_sums(X: np.ndarray, labels: np.ndarray) -> dict[int, tuple[np.ndarray, int]]:
    U = _unit(X)
    return {int(t): (U[labels == t].sum(axis=0), int((labels == t).sum())) for t in np.unique(labels) if t != OUTLIER}


def _best(X: np.ndarray, labels: np.ndarray, offset: int, directions: dict, n: int) -> dict[int, list]:
    U, out = _unit(X), {}
    for topic, direction in directions.items():
        rows = np.flatnonzero(labels == topic)
        scores = U[rows] @ direction
        out[topic] = [(float(scores[i]), offset + int(rows[i])) for i in np.argsort(-scores, kind="stable")[:n]]
    return out


def typical_rows(client, vectors: list, labels: np.ndarray, offsets: list[int], n: int = 2) -> dict[int, list[int]]:
    """What :func:`workbench.topics.representatives` gives for every paper's embedding and
    ``labels``, from the vectors where they are (one future per partition at ``offsets``): each
    topic's mean direction summed over the partitions, then each partition's ``n`` nearest it,
    the best ``n`` of those (ties: the earlier row). Only the sums and candidates travel."""
    ends = [*offsets[1:], len(labels)]
    pieces = [labels[lo:hi] for lo, hi in zip(offsets, ends)]
    totals: dict[int, list] = {}
    for part in client.gather(client.map(_topic_sums, vectors, pieces)):
        for topic, (total, count) in part.items():
            acc = totals.setdefault(topic, [0.0, 0])
            acc[0], acc[1] = acc[0] + total, acc[1] + count
    directions = {}
    for topic, (total, count) in sorted(totals.items()):
        centre = total / count
        directions[topic] = centre / max(np.linalg.norm(centre), 1e-12)
    found = client.gather(client.map(_best, vectors, pieces, offsets, directions=directions, n=n))
    out = {OUTLIER: []} if (labels == OUTLIER).any() else {}
    for topic in directions:
        candidates = sorted((c for part in found for c in part.get(topic, [])), key=lambda c: (-c[0], c[1]))
        out[topic] = [position for _, position in candidates[:n]]
    return dict(sorted(out.items()))

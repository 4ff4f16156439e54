"""The topic model: embeddings in, a topic and a labelled theme for every paper out.

:class:`TopicModel` has the scikit-learn shape: parameters live in ``__init__``; ``fit`` does
the work, returns ``self`` and sets attributes ending in ``_``; one ``seed`` makes runs
repeatable. It takes precomputed embeddings, so it never loads a model to embed documents; the
few word embeddings its labels need come from a ``word_vectors`` function it is handed.

The steps, each in its own module: the clustering (:mod:`.cluster`: seeded UMAP, HDBSCAN,
outliers reassigned), the merging of HDBSCAN's many small topics along their Ward tree
(:mod:`.hierarchy`), and their words and labels (:mod:`.represent`, :mod:`.labels`). The same
tree cut at a number gives ``nr_topics`` and :meth:`TopicModel.reduce_to` ("show me 8 themes")
without rerunning UMAP or HDBSCAN. :func:`seed_labelings` reruns the clustering with other
seeds for :mod:`.stability`.
"""

from __future__ import annotations

import time
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Sequence

import numpy as np

from .._runtime.memory import release_free_memory
from ..errors import InputError
from ..corpus.paper import OUTLIER
from .cluster import (
    MIN_PAPERS_FOR_BERTOPIC, agglomerative_topics, default_min_cluster_size, default_min_samples,
    hdbscan_topics, reassign_outliers, small_corpus, umap_space
)
from .hierarchy import MERGE_VARIANCE, hierarchy_frame, merge_topics
from ..space.neighbors import NeighbourGraph
from .represent import EmbedWords, documents, represent, seeded
from .terms import Counted, DocumentTerms
from .stability import topic_stability

__all__ = ["TopicModel", "seed_labelings"]

_CHOICES = {"cluster_selection": ("eom", "leaf"), "representation": ("keybert", "mmr", None),
            "outlier_strategy": ("embeddings", "neighbors")}


class TopicModel:
    """Topics of a corpus from its embeddings.

    Parameters
    ----------
    min_cluster_size : int or None
        HDBSCAN's smallest topic; None scales it with the number of papers.
    min_samples : int or None
        HDBSCAN's density; None uses ``max(2, min_cluster_size // 3)``.
    n_neighbors, n_components : int
        UMAP's neighbourhood size and the dimension clustered in (5).
    cluster_selection : {"eom", "leaf"}
        HDBSCAN's cluster selection method.
    reduce_outliers : bool
        Reassign HDBSCAN's outliers to a topic (see ``outlier_strategy``).
    representation : {"keybert", "mmr", None}
        How labels are chosen from the c-TF-IDF candidates (needs ``word_vectors`` in ``fit``).
    nr_topics : int or None
        Merge HDBSCAN's topics down to at most this many, along their Ward hierarchy.
    seed : int
        One seed for UMAP, the representation and everything random.
    outlier_strategy : {"embeddings", "neighbors"}
        How outliers get a topic: the most similar topic centroid, or a vote of their nearest
        assigned neighbours in the clustering space.
    merge_variance : float or None
        Merge HDBSCAN's topics along their Ward hierarchy while a merge adds less than this
        share of the corpus's variance (0.009: 0.9 %), keeping at least 8 topics; None keeps
        them as they are. Ignored when ``nr_topics`` is given: that cuts the same hierarchy at
        a number instead.
    n_epochs : int or None
        UMAP's optimisation epochs; None: 500 up to 5,000 papers, 200 up to 20,000, 100 above.

    Attributes (after ``fit``)
    --------------------------
    labels_ : ndarray of int, one topic per paper (-1 = unassigned), topic 0 the largest
    topic_info_ : DataFrame with topic, label, size, words
    words_ : dict topic -> list of (word, score)
    representative_ : dict topic -> the rows (positions in ``texts``) of its two most typical
        papers, nearest the mean of its embeddings (none for -1); shown beside the label
    reduced_embeddings_ : the 5-d UMAP space HDBSCAN clustered in (None for the fallbacks)
    fine_labels_ : HDBSCAN's topics (outliers reassigned), before merging: the leaves of the
        Ward tree that ``nr_topics``, :meth:`reduce_to` and :meth:`fit_from_topics` cut
    min_cluster_size_ : the smallest topic HDBSCAN was asked for
    outlier_share_ : share of papers HDBSCAN left unassigned before reassignment
    timings_ : seconds per stage (umap, hdbscan, outliers, merge, labels)
    method_ : "bertopic", "agglomerative" or "single"
    note_ : a sentence describing any fallback, else ""
    model_ : the fitted ``bertopic.BERTopic`` (words and labels of the final topics)
    n_papers_ : the number of papers fitted
    graph_ : the embeddings' neighbour graph the UMAP started from, or the one handed to the fit
        (:class:`workbench.space.neighbors.NeighbourGraph`; None where neither): hand it to the
        map's layout and to a refit of the same embeddings
    terms_ : the texts' document-term matrix the labels counted (or were handed), for a refit
        of the same texts (:class:`workbench.topics.terms.DocumentTerms`; after
        :meth:`release_terms`, where to get it again; None for a model restored from saved results)
    """

    def __init__(
        self,
        min_cluster_size: int | None = None,
        min_samples: int | None = None,
        n_neighbors: int = 30,
        n_components: int = 5,
        cluster_selection: str = "leaf",
        reduce_outliers: bool = True,
        representation: str | None = "keybert",
        top_n_words: int = 10,
        nr_topics: int | None = None,
        seed: int = 42,
        outlier_strategy: str = "neighbors",
        merge_variance: float | None = MERGE_VARIANCE,
        n_epochs: int | None = None,
    ):
        # the space: UMAP
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.n_epochs = n_epochs
        # the topics: HDBSCAN and its outliers
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.cluster_selection = cluster_selection
        self.reduce_outliers = reduce_outliers
        self.outlier_strategy = outlier_strategy
        # (and merging them into themes)
        self.merge_variance = merge_variance
        self.nr_topics = nr_topics
        # the words: c-TF-IDF and labels
        self.representation = representation
        self.top_n_words = top_n_words
        self.seed = seed  # one seed for everything random

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in self.__init__.__code__.co_varnames[1 : self.__init__.__code__.co_argcount]}

    def set_params(self, **params) -> "TopicModel":
        valid = self.get_params()
        for key, value in params.items():
            if key not in valid:
                raise InputError(f"unknown topic parameter {key!r}; expected one of: {', '.join(valid)}")
            setattr(self, key, value)
        return self

    # ------------------------------------------------------------------ fitting

    def _check(self, texts, embeddings) -> np.ndarray:
        embeddings = np.asarray(embeddings, dtype=np.float32)
        if texts is not None and len(texts) == 0 or len(embeddings) == 0:
            raise InputError("no papers to find topics in; read some sources first")
        if embeddings.ndim != 2 or (texts is not None and embeddings.shape[0] != len(texts)):
            raise InputError(
                f"embeddings of shape {embeddings.shape} do not match {len(texts) if texts is not None else '?'} texts;"
                " expected one row per text"
            )
        if not np.all(np.isfinite(embeddings)):
            raise InputError("embeddings contain NaN or infinite values; re-embed the corpus")
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                *first, last = map(repr, choices)
                raise InputError(f"{name}={getattr(self, name)!r}; expected {', '.join(first)} or {last}")
        if self.nr_topics is not None and int(self.nr_topics) < 1:
            raise InputError(f"nr_topics={self.nr_topics}; expected a number of topics >= 1 or None")
        return embeddings

    def cluster(self, embeddings, graph: NeighbourGraph | None = None) -> np.ndarray:
        """The topic of each paper, without words or labels: UMAP, HDBSCAN, outliers, merging.

        The fast part of :meth:`fit` (what stability checks rerun with other seeds). Topic
        numbers are arbitrary here; :meth:`fit` renumbers them by size. ``graph``: as for :meth:`fit`.
        """
        X = self._check(None, embeddings)
        return self._cluster(X, graph)

    def _cluster(self, X: np.ndarray, graph: NeighbourGraph | None) -> np.ndarray:
        n = len(X)
        self.timings_ = {}
        self.graph_ = graph
        self.min_cluster_size_ = self.min_cluster_size or default_min_cluster_size(n)
        self.reduced_embeddings_ = None
        self.outlier_share_ = 0.0
        if n < MIN_PAPERS_FOR_BERTOPIC:
            k, self.method_, self.note_ = small_corpus(n)
            labels = agglomerative_topics(X, k)
        else:
            self.method_, self.note_ = "bertopic", ""
            labels = self._density_topics(X, graph)
        self.fine_labels_ = np.asarray(labels, dtype=int)
        return self._merge(X, self.fine_labels_)

    def _density_topics(self, X: np.ndarray, graph: NeighbourGraph | None) -> np.ndarray:
        """UMAP, then HDBSCAN in its space, then (``reduce_outliers``) every outlier given a topic."""
        mcs = self.min_cluster_size_
        with self._timed("umap"):
            reduced, self.graph_ = umap_space(X, self.n_neighbors, self.n_components, self.n_epochs, self.seed, graph)
        with self._timed("hdbscan"):
            labels = hdbscan_topics(reduced, mcs, self.min_samples or default_min_samples(mcs), self.cluster_selection)
        self.reduced_embeddings_ = reduced
        self.outlier_share_ = float((labels == OUTLIER).mean())
        if self.reduce_outliers:
            with self._timed("outliers"):
                labels = reassign_outliers(X, labels, reduced, self.outlier_strategy)
        return labels

    def _merge(self, X: np.ndarray, fine: np.ndarray) -> np.ndarray:
        """HDBSCAN's topics merged along their Ward tree: to ``nr_topics``, or by ``merge_variance``."""
        with self._timed("merge"):
            if self.nr_topics:
                labels = merge_topics(X, fine, k=int(self.nr_topics))
            elif self.merge_variance:
                labels = merge_topics(X, fine, max_variance=float(self.merge_variance))
            else:
                labels = fine
        return np.asarray(labels, dtype=int)

    @contextmanager
    def _timed(self, stage: str):
        start = time.perf_counter()
        yield
        self.timings_[stage] = time.perf_counter() - start

    def fit(self, texts: Sequence[str], embeddings, word_vectors: EmbedWords | None = None, *,
            graph: NeighbourGraph | None = None, terms: DocumentTerms | Counted | None = None) -> "TopicModel":
        """Find topics in ``texts`` given their ``embeddings`` (one row per text).

        ``word_vectors`` embeds the candidate label words (a function: words in, one row per
        word out, in the space of ``embeddings``, e.g. :class:`workbench.embed.WordVectors`);
        without it labels are the plain c-TF-IDF words. What the caller computed before for the
        same papers is not computed again: ``graph``, the embeddings' neighbour graph (used when
        it fits them, see :mod:`workbench.space.neighbors`); ``terms``, the texts' document-term
        matrix, or a function giving it for their key (used when it counted these texts, see
        :func:`workbench.topics.terms.document_terms`). The fitted ``graph_`` and ``terms_`` are
        what the next fit of the same papers may be handed.
        """
        texts = documents(texts)
        X = self._check(texts, embeddings)
        with warnings.catch_warnings(), seeded(self.seed):
            warnings.simplefilter("ignore")
            self._label(texts, X, self._cluster(X, graph), word_vectors, terms)
        return self

    def _label(self, texts, X, labels, word_vectors, terms) -> None:
        """Words and labels for the final topics (timed), and what reduce_to needs kept."""
        with self._timed("labels"):
            found = represent(texts, X, labels, word_vectors, self.representation, self.top_n_words, self.seed, terms)
        self.model_, self.labels_, self.words_, self.topic_info_ = found.model, found.labels, found.words, found.topic_info
        self.representative_, self.terms_ = found.representative, found.terms
        self.n_papers_ = len(texts)
        self._data = (texts, X, word_vectors)

    def release_terms(self, counted: Counted) -> "TopicModel":
        """Let go of the document-term matrix the fit counted or was handed (``terms_``: every
        paper's words and bigrams, gigabytes at a million papers, held by the labels'
        vectorizer too) where ``counted`` gives it back for its key (a build's cache keeps it):
        a later fit of the same papers (:meth:`reduce_to`, a refit) asks ``counted`` then."""
        terms = self.terms_
        if terms is None or callable(terms):
            return self
        self.terms_ = counted
        vectorizer = getattr(self.model_, "vectorizer_model", None)
        if hasattr(vectorizer, "unshare"):
            vectorizer.unshare()
        del terms
        release_free_memory()
        return self

    def reduce_to(self, k: int) -> "TopicModel":
        """A copy of this fitted model with its topics merged down to at most ``k``.

        Cuts the hierarchy of HDBSCAN's topics at ``k`` (as ``nr_topics=k`` does in :meth:`fit`,
        with the same result), then recomputes words and labels; UMAP and HDBSCAN are not rerun.
        Repeatable.
        """
        self._require_fitted()
        texts, X, word_vectors = self._data
        new = TopicModel(**{**self.get_params(), "nr_topics": int(k)})
        new.fit_from_topics(texts, X, self.fine_labels_, self.reduced_embeddings_, word_vectors,
                            graph=self.graph_, terms=self.terms_)
        for attr in ("min_cluster_size_", "outlier_share_", "method_", "note_"):
            setattr(new, attr, getattr(self, attr))
        return new

    def fit_from_topics(self, texts: Sequence[str], embeddings, fine_labels, reduced=None,
                        word_vectors: EmbedWords | None = None, *, graph: NeighbourGraph | None = None,
                        terms: DocumentTerms | Counted | None = None) -> "TopicModel":
        """What :meth:`fit` does after HDBSCAN, from HDBSCAN's topics found before.

        ``fine_labels`` is a fitted model's ``fine_labels_`` (a review keeps them) and
        ``reduced`` its ``reduced_embeddings_`` (None after a small corpus's fallback): they are
        merged by this model's ``nr_topics`` or ``merge_variance`` and given words and labels.
        Seconds instead of a refit's UMAP and HDBSCAN; the same topics, ``method_`` and
        ``note_`` as a refit with the same seed. ``outlier_share_`` is not known here (NaN).
        ``graph`` and ``terms``: as for :meth:`fit` (no UMAP runs here: ``graph`` is only kept).
        """
        texts = documents(texts)
        X = self._check(texts, embeddings)
        fine = np.asarray(fine_labels, dtype=int)
        if fine.shape != (len(texts),):
            raise InputError(f"{len(fine)} topic labels for {len(texts)} papers; expected one per paper (refit the review)")
        self.timings_ = {}
        self.min_cluster_size_ = self.min_cluster_size or default_min_cluster_size(len(texts))
        self.reduced_embeddings_ = reduced
        self.outlier_share_ = float("nan")
        self.graph_ = graph
        if reduced is not None:
            self.method_, self.note_ = "bertopic", ""
        elif len(texts) < MIN_PAPERS_FOR_BERTOPIC:  # the fallback's topics: said as the fit said them
            _, self.method_, self.note_ = small_corpus(len(texts))
        else:  # topics of a review that did not keep its clustering space
            self.method_, self.note_ = "agglomerative", ""
        self.fine_labels_ = fine
        labels = self._merge(X, fine)
        with warnings.catch_warnings(), seeded(self.seed):
            warnings.simplefilter("ignore")
            self._label(texts, X, labels, word_vectors, terms)
        return self

    # ------------------------------------------------------------------ after fitting

    def hierarchy(self, texts: Sequence[str] | None = None):
        """How the topics would merge further: the rest of the Ward tree :meth:`reduce_to` cuts.

        One row per merge, cheapest first, in BERTopic's ``hierarchical_topics`` columns (see
        :func:`~workbench.topics.hierarchy.hierarchy_frame`); ``texts`` is accepted for that
        signature and unused.
        """
        self._require_fitted()
        info = self.topic_info_
        names = dict(zip(info.topic.astype(int), info.label))
        sizes = dict(zip(info.topic.astype(int), info["size"]))
        return hierarchy_frame(self._data[1], self.labels_, names, sizes)

    def topic_stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """How often each topic's papers stay together when the model is refitted with ``seeds``.

        A DataFrame topic, label, size, stability (0..1; see :mod:`workbench.topics.stability`).
        """
        self._require_fitted()
        runs = seed_labelings(self._data[1], self.get_params(), seeds)
        scores = topic_stability(self.labels_, runs)
        info = self.topic_info_.copy()
        info["stability"] = [scores.get(int(t), float("nan")) for t in info.topic]
        return info

    def save(self, path: str | Path) -> None:
        """Save the fitted BERTopic model with safetensors (no pickle)."""
        self._require_fitted()
        if self.model_ is None:  # restored from saved results: the files BERTopic wrote then
            import shutil

            shutil.copytree(self._saved, path, copy_function=_link_or_copy)
            return
        self.model_.save(str(path), serialization="safetensors", save_ctfidf=True, save_embedding_model=False)

    def restored(self, saved: Path, data: tuple) -> None:
        """Finish a model restored from saved results (:mod:`.results`): ``saved``, the folder
        its BERTopic model was saved in; ``data``, its (texts, embeddings, word vectors)."""
        self.model_, self._saved, self._data = None, Path(saved), data
        self.graph_ = self.terms_ = None

    def _require_fitted(self):
        if not hasattr(self, "labels_"):
            raise InputError("this TopicModel is not fitted yet; call fit(texts, embeddings) first")


def _link_or_copy(src, dst):
    import os
    import shutil

    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def seed_labelings(embeddings, params: dict, seeds: Sequence[int]) -> list[np.ndarray]:
    """The topic of each paper when the model with ``params`` is refitted with each of ``seeds``
    (the clustering only: :meth:`TopicModel.cluster`)."""
    return [TopicModel(**{**params, "seed": int(seed)}).cluster(embeddings) for seed in seeds]

"""Topics: UMAP -> HDBSCAN -> outliers reassigned -> c-TF-IDF labels, behind a scikit-learn-shaped class.

:class:`TopicModel` takes precomputed embeddings, so it never loads a model to embed documents;
the embedder is only asked for the few word embeddings its label representation needs (and
those go through the same disk cache). Parameters live in ``__init__``; ``fit`` does the work,
returns ``self`` and sets attributes ending in ``_``; one ``seed`` makes runs repeatable.

The clustering (seeded UMAP to 5-d, HDBSCAN, outliers reassigned by their neighbours) is done
here; HDBSCAN's many small topics are then merged along their Ward hierarchy into themes
(:mod:`workbench.hierarchy`), and BERTopic is handed the final topic of every paper and computes
c-TF-IDF and KeyBERT-inspired words once, from which :mod:`workbench.labels` picks the labels.
The same hierarchy cut at a number gives ``nr_topics`` and :meth:`TopicModel.reduce_to` ("show
me 8 themes") without rerunning UMAP or HDBSCAN.

Below :data:`MIN_PAPERS_FOR_BERTOPIC` papers UMAP and HDBSCAN have too little to work with:
the model falls back to agglomerative clustering on the embeddings (or one topic) and says so
in ``method_`` and ``note_``. BERTopic stays inside this module.
"""

from __future__ import annotations

import logging
import math
import sys
import time
import warnings
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import InputError
from .hierarchy import MERGE_VARIANCE, merge_topics, ward_merges
from .labels import candidate_words, common_words, rank_words, readable_label, stop_words, topic_text
from .records import bounded_text
from .scripts import join_cjk, tokens

__all__ = ["TopicModel", "MIN_PAPERS_FOR_BERTOPIC", "import_bertopic", "merge_topics", "reassign_outliers"]

log = logging.getLogger(__name__)

MIN_PAPERS_FOR_BERTOPIC = 40
OUTLIER = -1


class _Refuse(MetaPathFinder):
    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"{fullname} is not needed by the workbench's BERTopic", name=fullname)
        return None


@contextmanager
def _without(*names):
    """Make ``import name`` fail inside the block, unless it is imported already."""
    finder = _Refuse(n for n in names if n not in sys.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def import_bertopic():
    """Import BERTopic without torch, transformers, sentence-transformers or datamapplot.

    ``import bertopic`` eagerly imports all of those (about 11 s and 1 GB here) for optional
    backends and plots the workbench does not use; it treats each as optional when missing.
    Hiding them during the import keeps a cached build torch-free; they import normally later.
    """
    if "bertopic" not in sys.modules:
        with _without("torch", "transformers", "sentence_transformers", "datamapplot"):
            import bertopic  # noqa: F401
            import bertopic.representation  # noqa: F401
        # BERTopic resets its logger to WARNING on every fit and warns about steps the workbench
        # takes on purpose (custom topic lists after outlier reduction, saving without a model).
        logging.getLogger("BERTopic").addFilter(lambda record: record.levelno >= logging.ERROR)
    import bertopic

    return bertopic


def _backend(embedder, cache, known=None):
    """Wrap a workbench embedder (and its cache) as a BERTopic embedding backend.

    ``known`` maps texts to vectors already at hand (the corpus being modelled): the
    representative documents KeyBERT asks for are looked up there, never re-embedded.
    """
    from bertopic.backend import BaseEmbedder

    from .embed import embed_with_cache

    class CachedBackend(BaseEmbedder):
        def embed(self, documents, verbose=False):
            documents = list(documents)
            if known is not None and documents and all(d in known for d in documents):
                return np.vstack([known[d] for d in documents])
            vectors, _ = embed_with_cache(documents, embedder, cache if cache is not None and cache.is_open else None)
            return vectors

        def embed_words(self, words, verbose=False):
            if hasattr(embedder, "embed_words"):  # corpus-relative embedders (tfidf)
                return embedder.embed_words(list(words))
            return self.embed(words, verbose)

    return CachedBackend()


def default_min_cluster_size(n: int) -> int:
    """HDBSCAN's smallest topic, scaled to the corpus: 6 for 133 papers, 42 for 7,000, 112 for 50,000."""
    return int(max(5, min(500, round(0.5 * math.sqrt(n)))))


def default_min_samples(min_cluster_size: int) -> int:
    return max(2, min_cluster_size // 3)


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
    """Give every outlier (-1) a topic.

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
        How labels are chosen from the c-TF-IDF candidates.
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
    reduced_embeddings_ : the 5-d UMAP space HDBSCAN clustered in (None for the fallbacks)
    fine_labels_ : HDBSCAN's topics (outliers reassigned), before merging: the leaves of the
        Ward tree that ``nr_topics``, :meth:`reduce_to` and :meth:`fit_from_topics` cut
    outlier_share_ : share of papers HDBSCAN left unassigned before reassignment
    timings_ : seconds per stage (umap, hdbscan, outliers, merge, labels)
    method_ : "bertopic", "agglomerative" or "single"
    note_ : a sentence describing any fallback, else ""
    model_ : the fitted ``bertopic.BERTopic`` (words and labels of the final topics)
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
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.cluster_selection = cluster_selection
        self.reduce_outliers = reduce_outliers
        self.representation = representation
        self.top_n_words = top_n_words
        self.nr_topics = nr_topics
        self.seed = seed
        self.outlier_strategy = outlier_strategy
        self.merge_variance = merge_variance
        self.n_epochs = n_epochs

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
        if self.cluster_selection not in ("eom", "leaf"):
            raise InputError(f"cluster_selection={self.cluster_selection!r}; expected 'eom' or 'leaf'")
        if self.representation not in ("keybert", "mmr", None):
            raise InputError(f"representation={self.representation!r}; expected 'keybert', 'mmr' or None")
        if self.outlier_strategy not in ("embeddings", "neighbors"):
            raise InputError(f"outlier_strategy={self.outlier_strategy!r}; expected 'embeddings' or 'neighbors'")
        if self.nr_topics is not None and int(self.nr_topics) < 1:
            raise InputError(f"nr_topics={self.nr_topics}; expected a number of topics >= 1 or None")
        return embeddings

    def cluster(self, embeddings) -> np.ndarray:
        """The topic of each paper, without words or labels: UMAP, HDBSCAN, outliers, merging.

        The fast part of :meth:`fit` (what stability checks rerun with other seeds). Topic
        numbers are arbitrary here; :meth:`fit` renumbers them by size.
        """
        X = self._check(None, embeddings)
        return self._cluster(X)

    def _cluster(self, X: np.ndarray) -> np.ndarray:
        n = len(X)
        self.timings_ = timings = {}
        mcs = self.min_cluster_size or default_min_cluster_size(n)
        self.min_cluster_size_ = mcs
        self.reduced_embeddings_ = None
        self.outlier_share_ = 0.0
        if n < MIN_PAPERS_FOR_BERTOPIC:
            k = max(1, min(n // 3, round(math.sqrt(n / 2))))
            self.method_ = "agglomerative" if k > 1 else "single"
            self.note_ = (
                f"{n} papers are too few for UMAP + HDBSCAN (they need about {MIN_PAPERS_FOR_BERTOPIC});"
                + (f" grouped into {k} topics by agglomerative clustering." if k > 1 else " all in one topic.")
            )
            if k == 1:
                labels = np.zeros(n, dtype=int)
            else:
                from sklearn.cluster import AgglomerativeClustering

                labels = AgglomerativeClustering(n_clusters=k, metric="cosine", linkage="average").fit_predict(X)
        else:
            from hdbscan import HDBSCAN

            self.method_, self.note_ = "bertopic", ""
            t = time.perf_counter()
            reduced = self._umap(X)
            timings["umap"] = time.perf_counter() - t
            t = time.perf_counter()
            clusterer = HDBSCAN(
                min_cluster_size=mcs,
                min_samples=self.min_samples or default_min_samples(mcs),
                metric="euclidean",
                cluster_selection_method=self.cluster_selection,
                prediction_data=False,
                core_dist_n_jobs=1,
            )
            labels = clusterer.fit_predict(reduced)
            timings["hdbscan"] = time.perf_counter() - t
            self.reduced_embeddings_ = reduced
            self.outlier_share_ = float((labels == OUTLIER).mean())
            if self.reduce_outliers:
                t = time.perf_counter()
                labels = reassign_outliers(X, labels, reduced, self.outlier_strategy)
                timings["outliers"] = time.perf_counter() - t
        self.fine_labels_ = np.asarray(labels, dtype=int)
        return self._merge(X, self.fine_labels_)

    def _merge(self, X: np.ndarray, fine: np.ndarray) -> np.ndarray:
        """HDBSCAN's topics merged along their Ward tree: to ``nr_topics``, or by ``merge_variance``."""
        t = time.perf_counter()
        if self.nr_topics:
            labels = merge_topics(X, fine, k=int(self.nr_topics))
        elif self.merge_variance:
            labels = merge_topics(X, fine, max_variance=float(self.merge_variance))
        else:
            labels = fine
        self.timings_["merge"] = time.perf_counter() - t
        return np.asarray(labels, dtype=int)

    def _umap(self, X: np.ndarray) -> np.ndarray:
        from umap import UMAP

        from ._neighbors import nearest_neighbors, umap_epochs, umap_init
        from ._numba_cache import enable_numba_cache

        enable_numba_cache()
        k = min(self.n_neighbors, len(X) - 1)
        knn = nearest_neighbors(X, k, self.seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reducer = UMAP(
                n_neighbors=k,
                n_components=self.n_components,
                n_epochs=self.n_epochs or umap_epochs(len(X)),
                init=umap_init(len(X)),
                min_dist=0.0,
                metric="cosine",
                random_state=self.seed,
                n_jobs=1,
                low_memory=True,
                precomputed_knn=knn,
            )
            return reducer.fit_transform(X).astype(np.float32)

    def fit(self, texts: Sequence[str], embeddings, embedder=None, cache=None) -> "TopicModel":
        """Find topics in ``texts`` given their ``embeddings`` (one row per text).

        ``embedder`` (and its ``cache``) embed the candidate label words; without it labels
        are the plain c-TF-IDF words.
        """
        texts = _documents(texts)
        X = self._check(texts, embeddings)
        with warnings.catch_warnings(), _seeded(self.seed):
            warnings.simplefilter("ignore")
            self._label(texts, X, self._cluster(X), embedder, cache)
        return self

    def _label(self, texts, X, labels, embedder, cache) -> None:
        """Words and labels for the final topics (timed), and what reduce_to needs kept."""
        t = time.perf_counter()
        self._represent(texts, X, labels, embedder, cache)
        self.timings_["labels"] = time.perf_counter() - t
        self.n_papers_ = len(texts)
        self._data = (texts, X, embedder, cache)

    def _represent(self, texts, X, labels, embedder, cache) -> None:
        """Words and labels of the given topics (c-TF-IDF + KeyBERT), topics renumbered by size."""
        bertopic = import_bertopic()
        from bertopic.cluster import BaseCluster
        from bertopic.dimensionality import BaseDimensionalityReduction
        from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance
        from sklearn.feature_extraction.text import CountVectorizer

        n = len(texts)
        # Small corpora keep every word; large ones drop words seen in fewer than 2 papers. Words of
        # any script; Chinese and Japanese characters are tokens (bigrams: their words).
        vectorizer = CountVectorizer(stop_words=stop_words(), ngram_range=(1, 2), min_df=1 if n < 200 else 2,
                                     tokenizer=tokens, token_pattern=None)
        if embedder is None:
            rep = None
        elif self.representation == "keybert":
            rep = _sorted_vocab(KeyBERTInspired)(top_n_words=self.top_n_words, random_state=self.seed)
        elif self.representation == "mmr":
            rep = MaximalMarginalRelevance(diversity=0.3, top_n_words=self.top_n_words)
        else:
            rep = None
        known = dict(zip(texts, X))
        model = bertopic.BERTopic(
            embedding_model=_backend(embedder, cache, known) if embedder is not None else None,
            umap_model=BaseDimensionalityReduction(),
            hdbscan_model=BaseCluster(),
            vectorizer_model=vectorizer,
            representation_model=rep,
            top_n_words=self.top_n_words,
            calculate_probabilities=False,
            verbose=False,
            # "english" (the default, used when no embedding model is given) would delete every
            # letter outside A-Z from the documents: no words at all for Chinese or Greek topics.
            language="multilingual",
        )
        with warnings.catch_warnings(), _seeded(self.seed):
            warnings.simplefilter("ignore")
            model.fit(texts, embeddings=X, y=np.asarray(labels, dtype=int))
        from ._memory import release_free_memory

        release_free_memory()
        self.model_ = model
        self.labels_ = np.asarray(model.topics_, dtype=int)
        candidates = candidate_words(model, self.labels_, self.top_n_words)
        self.words_ = rank_words(texts, self.labels_, candidates, self.top_n_words)
        self.topic_info_ = self._topic_info(texts)

    def reduce_to(self, k: int) -> "TopicModel":
        """A copy of this fitted model with its topics merged down to at most ``k``.

        Cuts the hierarchy of HDBSCAN's topics at ``k`` (as ``nr_topics=k`` does in :meth:`fit`,
        with the same result), then recomputes words and labels; UMAP and HDBSCAN are not rerun.
        Repeatable.
        """
        self._require_fitted()
        texts, X, embedder, cache = self._data
        new = TopicModel(**{**self.get_params(), "nr_topics": int(k)})
        new.fit_from_topics(texts, X, self.fine_labels_, self.reduced_embeddings_, embedder, cache)
        for attr in ("min_cluster_size_", "outlier_share_", "method_", "note_"):
            setattr(new, attr, getattr(self, attr))
        return new

    def fit_from_topics(self, texts: Sequence[str], embeddings, fine_labels, reduced=None, embedder=None, cache=None) -> "TopicModel":
        """What :meth:`fit` does after HDBSCAN, from HDBSCAN's topics found before.

        ``fine_labels`` is a fitted model's ``fine_labels_`` (a review keeps them): they are
        merged by this model's ``nr_topics`` or ``merge_variance`` and given words and labels.
        Seconds instead of a refit's UMAP and HDBSCAN; the same topics as a refit with the same
        seed. ``outlier_share_`` is not known here (NaN).
        """
        texts = _documents(texts)
        X = self._check(texts, embeddings)
        fine = np.asarray(fine_labels, dtype=int)
        if fine.shape != (len(texts),):
            raise InputError(f"{len(fine)} topic labels for {len(texts)} papers; expected one per paper (refit the review)")
        self.timings_ = {}
        self.min_cluster_size_ = self.min_cluster_size or default_min_cluster_size(len(texts))
        self.reduced_embeddings_ = reduced
        self.outlier_share_ = float("nan")
        self.method_, self.note_ = ("bertopic" if reduced is not None else "agglomerative"), ""
        self.fine_labels_ = fine
        labels = self._merge(X, fine)
        with warnings.catch_warnings(), _seeded(self.seed):
            warnings.simplefilter("ignore")
            self._label(texts, X, labels, embedder, cache)
        return self

    def _topic_info(self, texts: Sequence[str] | None = None):
        import pandas as pd

        sizes = pd.Series(self.labels_).value_counts()
        top = {t: [w for w, _ in words] for t, words in self.words_.items()}
        common = common_words([w for t, w in top.items() if t != OUTLIER])
        rows = []
        for topic, words in top.items():
            # a phrase common enough to be a top word shows in the topic's first 2,000 papers
            text = topic_text(texts, self.labels_, topic) if texts is not None else None
            label = "Unassigned" if topic == OUTLIER else readable_label(words, common=common, text=text) or f"Topic {topic}"
            # Chinese and Japanese n-grams are characters joined by spaces ("强 化"): written back as the text does
            rows.append({"topic": topic, "label": join_cjk(label), "size": int(sizes.get(topic, 0)),
                         "words": [join_cjk(w) for w in words]})
        return pd.DataFrame(rows, columns=["topic", "label", "size", "words"]).sort_values("topic").reset_index(drop=True)

    # ------------------------------------------------------------------ after fitting

    def hierarchy(self, texts: Sequence[str] | None = None):
        """How the topics would merge further: the rest of the Ward tree :meth:`reduce_to` cuts.

        One row per merge, cheapest first: ``Parent_ID`` (new ids after the topics'),
        ``Parent_Name`` (the largest member topic's label and how many topics it joins),
        ``Topics`` (the member topics), ``Child_Left_ID``/``Child_Right_ID`` and their names,
        and ``Distance``, the share of the corpus's variance the merge adds. The columns are
        BERTopic's ``hierarchical_topics``; ``texts`` is accepted for its signature and unused.
        """
        import pandas as pd

        self._require_fitted()
        columns = ["Parent_ID", "Parent_Name", "Topics", "Child_Left_ID", "Child_Left_Name",
                   "Child_Right_ID", "Child_Right_Name", "Distance"]
        topics, merges, total = ward_merges(self._data[1], self.labels_)
        info = self.topic_info_.set_index("topic")
        names = {t: info.label[t] for t in topics}
        members = {t: [t] for t in topics}
        size = {t: int(info["size"][t]) for t in topics}
        current = list(topics)
        rows = []
        for step, (i, j, cost) in enumerate(merges):
            left, right = current[i], current[j]
            parent = (max(topics) + 1 if topics else 0) + step
            members[parent] = sorted(members[left] + members[right])
            size[parent] = size[left] + size[right]
            largest = max(members[parent], key=lambda t: (size[t], -t))
            names[parent] = f"{names[largest]} (+{len(members[parent]) - 1} topics)"
            rows.append([parent, names[parent], members[parent], left, names[left], right, names[right],
                         cost / total if total > 0 else 0.0])
            current[i] = parent
        return pd.DataFrame(rows, columns=columns)

    def topic_stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """How often each topic's papers stay together when the model is refitted with ``seeds``.

        A DataFrame topic, label, size, stability (0..1; see :mod:`workbench.stability`).
        """
        self._require_fitted()
        from .stability import seed_labelings, topic_stability

        X = self._data[1]
        runs = seed_labelings(X, self.get_params(), seeds)
        scores = topic_stability(self.labels_, runs)
        info = self.topic_info_.copy()
        info["stability"] = [scores.get(int(t), float("nan")) for t in info.topic]
        return info

    def save(self, path: str | Path) -> None:
        """Save the fitted BERTopic model with safetensors (no pickle)."""
        self._require_fitted()
        self.model_.save(str(path), serialization="safetensors", save_ctfidf=True, save_embedding_model=False)

    def _require_fitted(self):
        if not hasattr(self, "labels_"):
            raise InputError("this TopicModel is not fitted yet; call fit(texts, embeddings) first")


def _documents(texts: Sequence[str]) -> list[str]:
    """The texts topic words are taken from: each cut to its first MAX_TEXT_CHARS characters (a
    50 MB abstract would make BERTopic's vocabulary, its c-TF-IDF matrix and the saved model grow
    with it), an empty one as "(empty)"."""
    return [bounded_text(t) if t.strip() else "(empty)" for t in map(str, texts)]


def _sorted_vocab(keybert_class):
    """KeyBERTInspired with its candidate words in sorted order.

    It embeds ``list(set(words))``, whose order changes with Python's per-process string hash
    seed; float rounding then differs in the last bit and ties between words break differently
    from one process to the next. Sorted, the same corpus gets the same labels in every process.
    """

    class SortedKeyBERT(keybert_class):
        def _extract_embeddings(self, topic_model, topics, representative_docs, repr_doc_indices, repr_embeddings=None):
            from sklearn.metrics.pairwise import cosine_similarity

            if repr_embeddings is None:
                repr_embeddings = topic_model._extract_embeddings(representative_docs, method="document", verbose=False)
            topic_embeddings = [np.mean(repr_embeddings[i[0] : i[-1] + 1], axis=0) for i in repr_doc_indices]
            vocab = sorted({word for words in topics.values() for word in words})
            word_embeddings = topic_model._extract_embeddings(vocab, method="document", verbose=False)
            return cosine_similarity(topic_embeddings, word_embeddings), vocab

    return SortedKeyBERT


@contextmanager
def _seeded(seed: int):
    """Seed Python's and numpy's global generators for the block, then restore them."""
    import random

    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed)
    try:
        yield
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)

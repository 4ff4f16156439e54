"""Topics: BERTopic (UMAP -> HDBSCAN -> c-TF-IDF) behind a small scikit-learn-shaped class.

:class:`TopicModel` takes precomputed embeddings, so it never loads a model to embed documents;
the embedder is only asked for the few word embeddings its label representation needs (and
those go through the same disk cache). Parameters live in ``__init__``; ``fit`` does the work,
returns ``self`` and sets attributes ending in ``_``; one ``seed`` makes runs repeatable.

Below :data:`MIN_PAPERS_FOR_BERTOPIC` papers UMAP and HDBSCAN have too little to work with:
the model falls back to agglomerative clustering on the embeddings (or one topic) and says so
in ``method_`` and ``note_``. BERTopic stays inside this module.
"""

from __future__ import annotations

import logging
import math
import sys
import warnings
from contextlib import contextmanager
from functools import lru_cache
from importlib.abc import MetaPathFinder
from pathlib import Path
from typing import Sequence

import numpy as np

from .errors import InputError

__all__ = ["TopicModel", "MIN_PAPERS_FOR_BERTOPIC", "import_bertopic"]

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


def _backend(embedder, cache):
    """Wrap a workbench embedder (and its cache) as a BERTopic embedding backend."""
    from bertopic.backend import BaseEmbedder

    from .embed import embed_with_cache

    class CachedBackend(BaseEmbedder):
        def embed(self, documents, verbose=False):
            vectors, _ = embed_with_cache(list(documents), embedder, cache)
            return vectors

        def embed_words(self, words, verbose=False):
            if hasattr(embedder, "embed_words"):  # corpus-relative embedders (tfidf)
                return embedder.embed_words(list(words))
            return self.embed(words, verbose)

    return CachedBackend()


# Words every abstract uses whatever its topic: they make labels that tell topics apart worse.
SCHOLARLY_STOP_WORDS = frozenset(
    """abstract achieve achieved achieves al approach approaches aim aims based conduct conducted
    demonstrate demonstrated demonstrates different effective effectively et existing experiment
    experiments extensive finally findings furthermore however improve improved improves including
    introduce introduced introduces key leverage leverages leveraging method methods moreover novel
    new paper papers present presented presents propose proposed proposes recent recently result
    results shows shown significant significantly state studies study use used uses using various
    work works""".split()
)


@lru_cache(maxsize=1)
def stop_words() -> list[str]:
    """English stop words plus the words of scholarly prose (``propose``, ``method``, ``results``)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return sorted(ENGLISH_STOP_WORDS | SCHOLARLY_STOP_WORDS)


def readable_label(words: Sequence[str], k: int = 3) -> str:
    """The first ``k`` words that are not a variant of a word already chosen.

    ``["agents", "agent", "ai agents", "memory"]`` -> ``"agents, memory"`` (+ the next distinct one).
    """
    chosen: list[str] = []
    seen: set[str] = set()
    for word in words:
        stems = {t[:-1] if t.endswith("s") and len(t) > 3 else t for t in word.split()}
        if stems <= seen:
            continue
        chosen.append(word)
        seen |= stems
        if len(chosen) == k:
            break
    return ", ".join(chosen)


def default_min_cluster_size(n: int) -> int:
    """HDBSCAN's smallest topic, scaled to the corpus: 5 for 133 papers, 33 for 7,000."""
    return int(max(5, min(500, round(0.4 * math.sqrt(n)))))


def default_min_samples(min_cluster_size: int) -> int:
    return max(2, min_cluster_size // 3)


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
        Reassign HDBSCAN's outliers to their most similar topic (by embeddings).
    representation : {"keybert", "mmr", None}
        How labels are chosen from the c-TF-IDF candidates.
    nr_topics : int or None
        Merge topics down to this many (through BERTopic's topic reduction).
    seed : int
        One seed for UMAP, the representation and everything random.

    Attributes (after ``fit``)
    --------------------------
    labels_ : ndarray of int, one topic per paper (-1 = unassigned)
    topic_info_ : DataFrame with topic, label, size, words
    words_ : dict topic -> list of (word, score)
    reduced_embeddings_ : the 5-d UMAP space HDBSCAN clustered in
    method_ : "bertopic", "agglomerative" or "single"
    note_ : a sentence describing any fallback, else ""
    model_ : the fitted ``bertopic.BERTopic``
    """

    def __init__(
        self,
        min_cluster_size: int | None = None,
        min_samples: int | None = None,
        n_neighbors: int = 15,
        n_components: int = 5,
        cluster_selection: str = "eom",
        reduce_outliers: bool = True,
        representation: str | None = "keybert",
        top_n_words: int = 10,
        nr_topics: int | None = None,
        seed: int = 42,
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

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in self.__init__.__code__.co_varnames[1 : self.__init__.__code__.co_argcount]}

    # ------------------------------------------------------------------ fitting

    def _check(self, texts, embeddings) -> np.ndarray:
        embeddings = np.asarray(embeddings, dtype=np.float32)
        if len(texts) == 0:
            raise InputError("no papers to find topics in; read some sources first")
        if embeddings.ndim != 2 or embeddings.shape[0] != len(texts):
            raise InputError(
                f"embeddings of shape {embeddings.shape} do not match {len(texts)} texts;"
                " expected one row per text"
            )
        if not np.all(np.isfinite(embeddings)):
            raise InputError("embeddings contain NaN or infinite values; re-embed the corpus")
        if self.cluster_selection not in ("eom", "leaf"):
            raise InputError(f"cluster_selection={self.cluster_selection!r}; expected 'eom' or 'leaf'")
        if self.representation not in ("keybert", "mmr", None):
            raise InputError(f"representation={self.representation!r}; expected 'keybert', 'mmr' or None")
        return embeddings

    def _components(self, n: int, embedder, cache):
        from hdbscan import HDBSCAN
        from sklearn.feature_extraction.text import CountVectorizer
        from umap import UMAP

        from ._numba_cache import enable_numba_cache

        enable_numba_cache()
        bertopic = import_bertopic()
        from bertopic.dimensionality import BaseDimensionalityReduction
        from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance

        mcs = self.min_cluster_size or default_min_cluster_size(n)
        self.min_cluster_size_ = mcs
        if n < MIN_PAPERS_FOR_BERTOPIC:
            from sklearn.cluster import AgglomerativeClustering

            k = max(1, min(n // 3, round(math.sqrt(n / 2))))
            self.method_ = "agglomerative" if k > 1 else "single"
            self.note_ = (
                f"{n} papers are too few for UMAP + HDBSCAN (they need about {MIN_PAPERS_FOR_BERTOPIC});"
                + (f" grouped into {k} topics by agglomerative clustering." if k > 1 else " all in one topic.")
            )
            reducer = BaseDimensionalityReduction()
            clusterer = AgglomerativeClustering(n_clusters=k, metric="cosine", linkage="average") if k > 1 else _OneCluster()
        else:
            self.method_, self.note_ = "bertopic", ""
            reducer = UMAP(
                n_neighbors=min(self.n_neighbors, n - 1),
                n_components=self.n_components,
                min_dist=0.0,
                metric="cosine",
                random_state=self.seed,
                n_jobs=1,
                low_memory=True,
            )
            clusterer = HDBSCAN(
                min_cluster_size=mcs,
                min_samples=self.min_samples or default_min_samples(mcs),
                metric="euclidean",
                cluster_selection_method=self.cluster_selection,
                prediction_data=False,
            )
        # Small corpora keep every word; large ones drop words seen in fewer than 2 papers.
        vectorizer = CountVectorizer(stop_words=stop_words(), ngram_range=(1, 2), min_df=1 if n < 200 else 2)
        if self.representation == "keybert":
            rep = KeyBERTInspired(top_n_words=self.top_n_words, random_state=self.seed)
        elif self.representation == "mmr":
            rep = MaximalMarginalRelevance(diversity=0.3, top_n_words=self.top_n_words)
        else:
            rep = None
        return bertopic.BERTopic(
            embedding_model=_backend(embedder, cache) if embedder is not None else None,
            umap_model=reducer,
            hdbscan_model=clusterer,
            vectorizer_model=vectorizer,
            representation_model=rep if embedder is not None else None,
            top_n_words=self.top_n_words,
            nr_topics=self.nr_topics,
            calculate_probabilities=False,
            verbose=False,
        )

    def fit(self, texts: Sequence[str], embeddings, embedder=None, cache=None) -> "TopicModel":
        """Find topics in ``texts`` given their ``embeddings`` (one row per text).

        ``embedder`` (and its ``cache``) embed the candidate label words; without it labels
        are the plain c-TF-IDF words.
        """
        texts = [t if t.strip() else "(empty)" for t in map(str, texts)]
        embeddings = self._check(texts, embeddings)
        n = len(texts)
        model = self._components(n, embedder, cache)
        with warnings.catch_warnings(), _seeded(self.seed):
            warnings.simplefilter("ignore")
            labels, _ = model.fit_transform(texts, embeddings=embeddings)
            labels = np.asarray(labels)
            if self.reduce_outliers and (labels == OUTLIER).any() and (labels != OUTLIER).any():
                labels = np.asarray(
                    model.reduce_outliers(texts, labels, strategy="embeddings", embeddings=embeddings, threshold=0.0)
                )
                model.update_topics(
                    texts,
                    topics=labels.tolist(),
                    top_n_words=self.top_n_words,
                    vectorizer_model=model.vectorizer_model,
                    representation_model=model.representation_model,
                )
                labels = np.asarray(model.topics_)
        self.model_ = model
        self.labels_ = labels.astype(int)
        self.reduced_embeddings_ = getattr(model.umap_model, "embedding_", None)
        self.words_ = {
            int(t): [(w, float(s)) for w, s in (model.get_topic(t) or []) if w]
            for t in sorted(set(self.labels_.tolist()))
        }
        self.topic_info_ = self._topic_info()
        self.n_papers_ = n
        return self

    def _topic_info(self):
        import pandas as pd

        sizes = pd.Series(self.labels_).value_counts()
        rows = []
        for topic, words in self.words_.items():
            top = [w for w, _ in words]
            label = "Unassigned" if topic == OUTLIER else readable_label(top) or f"Topic {topic}"
            rows.append({"topic": topic, "label": label, "size": int(sizes.get(topic, 0)), "words": top})
        return pd.DataFrame(rows, columns=["topic", "label", "size", "words"]).sort_values("topic").reset_index(drop=True)

    # ------------------------------------------------------------------ after fitting

    def hierarchy(self, texts: Sequence[str]):
        """BERTopic's topic hierarchy (which topics merge at which distance), as a DataFrame."""
        self._require_fitted()
        if len(self.topic_info_) < 3:
            import pandas as pd

            return pd.DataFrame(columns=["Parent_ID", "Parent_Name", "Topics", "Child_Left_ID", "Child_Right_ID", "Distance"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.model_.hierarchical_topics(list(texts))

    def save(self, path: str | Path) -> None:
        """Save the fitted BERTopic model with safetensors (no pickle)."""
        self._require_fitted()
        self.model_.save(str(path), serialization="safetensors", save_ctfidf=True, save_embedding_model=False)

    def _require_fitted(self):
        if not hasattr(self, "labels_"):
            raise InputError("this TopicModel is not fitted yet; call fit(texts, embeddings) first")


class _OneCluster:
    """A clusterer that puts everything in topic 0 (for one or two papers)."""

    def fit(self, X, y=None):
        self.labels_ = np.zeros(len(X), dtype=int)
        return self

    def fit_predict(self, X, y=None):
        return self.fit(X).labels_

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


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

"""Topics: UMAP -> HDBSCAN -> outliers reassigned -> c-TF-IDF labels, behind a scikit-learn-shaped class.

:class:`TopicModel` takes precomputed embeddings, so it never loads a model to embed documents;
the embedder is only asked for the few word embeddings its label representation needs (and
those go through the same disk cache). Parameters live in ``__init__``; ``fit`` does the work,
returns ``self`` and sets attributes ending in ``_``; one ``seed`` makes runs repeatable.

The clustering (seeded UMAP to 5-d, HDBSCAN, outliers reassigned by their neighbours, then
HDBSCAN's many small topics merged along their Ward hierarchy into themes) is done here;
BERTopic is then handed the final topic of every paper and computes c-TF-IDF words and
KeyBERT-inspired labels once. The same hierarchy cut at a number gives ``nr_topics`` and
:meth:`TopicModel.reduce_to` ("show me 8 themes") without rerunning UMAP or HDBSCAN.

Below :data:`MIN_PAPERS_FOR_BERTOPIC` papers UMAP and HDBSCAN have too little to work with:
the model falls back to agglomerative clustering on the embeddings (or one topic) and says so
in ``method_`` and ``note_``. BERTopic stays inside this module.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
import sys
import time
import warnings
from contextlib import contextmanager
from functools import lru_cache
from importlib.abc import MetaPathFinder
from pathlib import Path
from typing import Collection, Sequence

import numpy as np

from .errors import InputError

__all__ = ["TopicModel", "MIN_PAPERS_FOR_BERTOPIC", "import_bertopic", "merge_topics", "reassign_outliers"]

log = logging.getLogger(__name__)

MIN_PAPERS_FOR_BERTOPIC = 40
_NON_WORD = re.compile(r"[^\w]+")
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


def readable_label(words: Sequence[str], k: int = 3, common: Collection[str] = (), text: str | None = None) -> str:
    """The first ``k`` words that say what sets the topic apart, each a new word.

    Skipped: a variant of a word already chosen (``["agents", "agent", "ai agents", "memory"]`` ->
    ``"agents, memory"`` + the next distinct one); a word in ``common`` (among the top words of
    most topics: ``"language models"`` in a corpus about language models); and, when the topic's
    ``text`` (lower case, see :func:`_as_written`) is given, a word or phrase that never occurs
    in it as written, or only as the tail of a longer phrase (c-TF-IDF builds bigrams after dropping stop words, so "learning from human
    feedback" gives "learning human"), completed when it is the start of a longer one
    ("deep research" -> "deep research agents"). If that leaves nothing, the plain first words.
    """
    chosen: list[str] = []
    for word in words:
        if text is not None:
            word = _as_written(word, text)
        if word is None or word in common or any(f" {c} " in f" {word} " for c in common if " " in c):
            continue
        stems = _stems(word)
        if any(stems <= _stems(c) for c in chosen):
            continue  # a variant, or a part, of a word already chosen
        covered = [c for c in chosen if _stems(c) < stems]
        if covered:  # "reinforcement" chosen, now "reinforcement learning": keep the phrase
            chosen = [word if c == covered[0] else c for c in chosen if c == covered[0] or c not in covered]
            continue
        chosen.append(word)
        if len(chosen) == k:
            break
    if not chosen and (common or text is not None):
        return readable_label(words, k)
    return ", ".join(chosen)


def _stem(token: str) -> str:
    return token[:-1] if token.endswith("s") and len(token) > 3 else token


def _stems(word: str) -> set[str]:
    return {_stem(t) for t in word.split()}


def _as_written(phrase: str, text: str, longest: int = 3) -> str | None:
    """``phrase`` as ``text`` (lower case, words between single spaces) uses it, or None.

    None when it never occurs as written, or when it is mostly the tail of a longer phrase
    ("models" of "language models", "learning rl" of "reinforcement learning rl"); completed,
    up to ``longest`` words, when it is mostly followed by the same word ("large" -> "large
    language models"). "Mostly": 80 % of at least three occurrences; stop words do not count.
    """
    found = _spans(phrase, text)
    if not found:
        return None
    if len(found) < 3:
        return phrase
    stop = _stop_set()
    before, count = Counter(_stem(text[text.rfind(" ", 0, start - 1) + 1 : start - 1]) for start, _ in found).most_common(1)[0]
    if count >= 0.8 * len(found) and before and before not in stop:
        return None
    while len(phrase.split()) < longest:
        after = [text[end + 1 : text.find(" ", end + 1)] for _, end in found]
        stem, count = Counter(map(_stem, after)).most_common(1)[0]
        if count < 0.8 * len(found) or not stem or stem in stop:
            break
        phrase = f"{phrase} {Counter(w for w in after if _stem(w) == stem).most_common(1)[0][0]}"
        found = _spans(phrase, text)
    return phrase


def _spans(phrase: str, text: str, most: int = 500) -> list[tuple[int, int]]:
    """Where `` phrase `` occurs in ``text``: (start of the phrase, end of its last word), the first ``most``."""
    spans = []
    for match in re.finditer(f" {re.escape(phrase)} ", text):
        spans.append((match.start() + 1, match.end() - 1))
        if len(spans) == most:
            break
    return spans


@lru_cache(maxsize=1)
def _stop_set() -> frozenset[str]:
    return frozenset(stop_words())


def common_words(words_by_topic: Sequence[Sequence[str]], share: float = 0.5) -> set[str]:
    """Words among the top words of more than ``share`` of the topics (with four topics or more)."""
    if len(words_by_topic) < 4:
        return set()
    counts = Counter(w for words in words_by_topic for w in set(words))
    return {w for w, c in counts.items() if c > share * len(words_by_topic)}


# Merging by distance never takes the topics below this many (nor below what HDBSCAN found).
MIN_MERGED_TOPICS = 8


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


# Merging stops short of a merge that would add more than this share of the corpus's variance.
MERGE_VARIANCE = 0.009


def _unit_rows(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float32)
    norms = np.linalg.norm(X, axis=1)
    if np.allclose(norms, 1.0, atol=1e-3):
        return X
    return X / np.maximum(norms, 1e-12)[:, None]


def ward_merges(embeddings: np.ndarray, labels: np.ndarray) -> tuple[list[int], list[tuple[int, int, float]], float]:
    """The topics' Ward hierarchy: which two topics merge, in order, and what each merge costs.

    Returns ``(topics, merges, total)``: the topics (outliers left out), the merges as
    ``(i, j, cost)`` with ``i``, ``j`` positions in ``topics`` (the merged group keeps ``i``),
    and the corpus's total variance. A merge's cost is how much it adds to the within-topic
    sum of squares of the unit-length embeddings (Ward's criterion, weighted by topic sizes:
    ``n_i n_j / (n_i + n_j) * |c_i - c_j|^2``); each step merges the cheapest pair, so costs
    only grow. The k-means objective, restricted to unions of HDBSCAN's topics.
    """
    from scipy import sparse

    labels = np.asarray(labels)
    topics = sorted(set(labels.tolist()) - {OUTLIER})
    X = _unit_rows(embeddings)
    total_sum = X.sum(axis=0, dtype=np.float64)
    total = float((X.astype(np.float64) ** 2).sum() - total_sum @ total_sum / len(X))
    if len(topics) < 2:
        return topics, [], total
    rows = np.flatnonzero(labels != OUTLIER)
    position = np.searchsorted(topics, labels[rows])
    onehot = sparse.csr_matrix((np.ones(len(rows), np.float32), (position, rows)), shape=(len(topics), len(X)))
    S = np.asarray(onehot @ X, dtype=np.float64)
    n = np.bincount(position, minlength=len(topics)).astype(np.float64)
    C = S / n[:, None]
    t = len(topics)

    def costs(i):
        return n[i] * n / (n[i] + n) * ((C - C[i]) ** 2).sum(axis=1)

    M = np.vstack([costs(i) for i in range(t)])
    np.fill_diagonal(M, np.inf)
    alive = np.ones(t, dtype=bool)
    merges = []
    for _ in range(t - 1):
        i, j = sorted(divmod(int(np.argmin(M)), t))
        merges.append((i, j, float(M[i, j])))
        S[i] += S[j]
        n[i] += n[j]
        C[i] = S[i] / n[i]
        alive[j] = False
        M[j, :] = M[:, j] = np.inf
        row = costs(i)
        row[~alive] = np.inf
        row[i] = np.inf
        M[i, :] = M[:, i] = row
    return topics, merges, total


def merge_topics(embeddings: np.ndarray, labels: np.ndarray, k: int | None = None, max_variance: float | None = None) -> np.ndarray:
    """Merge topics along their Ward hierarchy (:func:`ward_merges`): down to ``k``, or by cost.

    ``k`` applies merges until at most ``k`` topics are left; ``max_variance`` applies every
    merge that adds less than that share of the corpus's total variance (a scale that does
    not depend on the embedder or the corpus size), never going below
    :data:`MIN_MERGED_TOPICS` topics. Outliers stay outliers. Deterministic.
    """
    labels = np.asarray(labels)
    if k is not None and k < 1:
        raise InputError(f"nr_topics={k}; expected a number of topics >= 1")
    topics, merges, total = ward_merges(embeddings, labels)
    t = len(topics)
    if k is not None:
        n_merges = max(0, t - int(k))
    elif max_variance is not None:
        n_merges = next((m for m, (_, _, cost) in enumerate(merges) if cost >= max_variance * total), len(merges))
        n_merges = min(n_merges, max(0, t - MIN_MERGED_TOPICS))
    else:
        n_merges = 0
    if n_merges == 0:
        return labels.copy()
    parent = list(range(t))

    def root(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for i, j, _ in merges[:n_merges]:
        parent[root(j)] = root(i)
    roots = [root(a) for a in range(t)]
    mapping = dict(zip(topics, np.unique(roots, return_inverse=True)[1].tolist()))
    mapping[OUTLIER] = OUTLIER
    return np.array([mapping[t] for t in labels.tolist()], dtype=int)


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
        t = time.perf_counter()
        self._fine_labels = labels = np.asarray(labels, dtype=int)
        if self.nr_topics:
            labels = merge_topics(X, labels, k=int(self.nr_topics))
        elif self.merge_variance:
            labels = merge_topics(X, labels, max_variance=float(self.merge_variance))
        timings["merge"] = time.perf_counter() - t
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
        texts = [t if t.strip() else "(empty)" for t in map(str, texts)]
        X = self._check(texts, embeddings)
        with warnings.catch_warnings(), _seeded(self.seed):
            warnings.simplefilter("ignore")
            labels = self._cluster(X)
            t = time.perf_counter()
            self._represent(texts, X, labels, embedder, cache)
            self.timings_["labels"] = time.perf_counter() - t
        self.n_papers_ = len(texts)
        self._data = (texts, X, embedder, cache)
        return self

    def _represent(self, texts, X, labels, embedder, cache) -> None:
        """Words and labels of the given topics (c-TF-IDF + KeyBERT), topics renumbered by size."""
        bertopic = import_bertopic()
        from bertopic.cluster import BaseCluster
        from bertopic.dimensionality import BaseDimensionalityReduction
        from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance
        from sklearn.feature_extraction.text import CountVectorizer

        n = len(texts)
        # Small corpora keep every word; large ones drop words seen in fewer than 2 papers.
        vectorizer = CountVectorizer(stop_words=stop_words(), ngram_range=(1, 2), min_df=1 if n < 200 else 2)
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
        )
        with warnings.catch_warnings(), _seeded(self.seed):
            warnings.simplefilter("ignore")
            model.fit(texts, embeddings=X, y=np.asarray(labels, dtype=int))
        from ._memory import release_free_memory

        release_free_memory()
        self.model_ = model
        self.labels_ = np.asarray(model.topics_, dtype=int)
        candidates = _candidate_words(model, self.labels_, self.top_n_words)
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
        new._check(texts, X)
        for attr in ("min_cluster_size_", "reduced_embeddings_", "outlier_share_", "method_", "note_", "n_papers_"):
            setattr(new, attr, getattr(self, attr))
        new._fine_labels = self._fine_labels
        new._represent(texts, X, merge_topics(X, self._fine_labels, k=int(k)), embedder, cache)
        new._data = self._data
        return new

    def _topic_info(self, texts: Sequence[str] | None = None):
        import pandas as pd

        sizes = pd.Series(self.labels_).value_counts()
        top = {t: [w for w, _ in words] for t, words in self.words_.items()}
        common = common_words([w for t, w in top.items() if t != OUTLIER])
        rows = []
        for topic, words in top.items():
            text = None
            if texts is not None:  # a phrase common enough to be a top word shows in 2,000 papers
                sample = np.flatnonzero(self.labels_ == topic)[:2000]
                text = " " + _NON_WORD.sub(" ", " ".join(texts[i] for i in sample).lower()) + " "
            label = "Unassigned" if topic == OUTLIER else readable_label(words, common=common, text=text) or f"Topic {topic}"
            rows.append({"topic": topic, "label": label, "size": int(sizes.get(topic, 0)), "words": words})
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


def _candidate_words(model, labels: np.ndarray, n: int) -> dict[int, list[str]]:
    """Each topic's words from its representation (KeyBERT's picks), then its top c-TF-IDF words."""
    topics = sorted(set(labels.tolist()))
    vocabulary = model.vectorizer_model.get_feature_names_out()
    ctfidf = model.c_tf_idf_.tocsr()
    candidates = {}
    for row, topic in enumerate(topics):
        picked = [w for w, _ in (model.get_topic(topic) or []) if w]
        values = ctfidf[row].toarray().ravel() if row < ctfidf.shape[0] else np.zeros(0)
        top = [vocabulary[i] for i in np.argsort(-values, kind="stable")[:n] if values[i] > 0]
        candidates[int(topic)] = list(dict.fromkeys(picked + top))
    return candidates


# Words are scored on at most this many papers (evenly spaced through the corpus).
WORD_SAMPLE = 5_000


def rank_words(texts: Sequence[str], labels: np.ndarray, candidates: dict[int, list[str]], n: int = 10) -> dict[int, list[tuple[str, float]]]:
    """Each topic's candidate words ranked by how well they find its papers: F1 of "the paper
    contains the word" against "the paper is in the topic".

    A word in every paper of the corpus finds all of the topic's papers and many others (low
    precision); a rare word finds few (low recall); the best label words do both. KeyBERT's
    picks alone drift to words near the topic's few representative papers ("ai assistant" for
    papers on policy optimisation); c-TF-IDF's alone are mostly single words. Ranking both by
    F1 raised the share of a label word's papers that are in its topic on every labelled corpus
    (docs/benchmarks.md). Words that are only digits ("95" of "95% CI") are dropped.
    """
    from sklearn.feature_extraction.text import CountVectorizer

    labels = np.asarray(labels)
    vocabulary = sorted({w for words in candidates.values() for w in words if not w.replace(" ", "").isdigit()})
    if not vocabulary:
        return {t: [] for t in candidates}
    sample = np.unique(np.linspace(0, len(texts) - 1, min(len(texts), WORD_SAMPLE)).astype(int))
    vectorizer = CountVectorizer(vocabulary=vocabulary, ngram_range=(1, 2), binary=True, token_pattern=r"(?u)\b\w+\b")
    has = vectorizer.transform([texts[i] for i in sample]).tocsc()
    column = {w: j for j, w in enumerate(vocabulary)}
    found = np.asarray(has.sum(axis=0)).ravel()
    sample_labels = labels[sample]
    ranked = {}
    for topic, words in candidates.items():
        inside = sample_labels == topic
        scored = []
        for order, word in enumerate(words):
            if word not in column:
                continue
            j = column[word]
            rows = has.indices[has.indptr[j] : has.indptr[j + 1]]
            hits = int(inside[rows].sum())
            f1 = 2 * hits / (found[j] + inside.sum()) if hits else 0.0
            scored.append((-f1, order, word))
        ranked[topic] = [(word, -score) for score, _, word in sorted(scored)[:n]]
    return ranked


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

"""Words and labels of given topics, computed once by BERTopic and chosen by :mod:`.labels`.

BERTopic is handed the final topic of every paper (its UMAP and HDBSCAN steps are empty) and
the papers' embeddings; it computes c-TF-IDF and, when a word-embedding function is given, the
KeyBERT-inspired words (or MMR). :func:`represent` then ranks those candidates by how well they
find the topic's papers, writes each topic's label as the papers write it, and finds each
topic's most typical papers (:func:`representatives`).

The word-embedding function is any ``Callable[[Sequence[str]], np.ndarray]`` (one unit-length
row per word; :class:`workbench.embed.WordVectors` caches them): the topics never see an
embedder or its cache. Texts of the corpus itself are looked up in its embeddings, never
embedded again.
"""

from __future__ import annotations

import random
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .._runtime.memory import release_free_memory
from ..corpus.paper import OUTLIER, bounded_text
from ..corpus.writing_systems import join_cjk, tokens
from .labels import (
    candidate_words, common_words, frequent_words, LABEL_BETA, rank_hits, readable_label,
    stop_words, topic_text, word_hits
)
from .shims import import_bertopic
from .terms import Counted, DocumentTerms, document_terms

__all__ = ["EmbedWords", "LABEL_WORDS", "Representation", "TOPIC_COLUMNS", "represent", "representatives", "documents",
           "seeded", "topic_frame"]

#: The columns of a topic table (:func:`topic_frame`), as a review and its files keep it.
TOPIC_COLUMNS = ["topic", "label", "size", "words"]

#: A label has at most this many words ("reinforcement learning, rl, reward").
LABEL_WORDS = 4

# Words in, one unit-length row per word out (in the space of the papers' embeddings).
EmbedWords = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Representation:
    """What :func:`represent` found: BERTopic's fitted model, the topics renumbered by size,
    each topic's ranked words, the topic table (topic, label, size, words), each topic's
    representative papers (rows of the texts, :func:`representatives`) and the corpus's
    document-term matrix it counted or was handed (for the next fit on these texts)."""

    model: Any  # bertopic.BERTopic, kept inside the topics package
    labels: np.ndarray
    words: dict[int, list[tuple[str, float]]]
    topic_info: Any  # pandas.DataFrame
    representative: dict[int, list[int]]
    terms: DocumentTerms


def represent(texts: Sequence[str], embeddings: np.ndarray, labels: np.ndarray, word_vectors: EmbedWords | None,
              representation: str | None, top_n_words: int, seed: int,
              terms: DocumentTerms | Counted | None = None) -> Representation:
    """Words and labels of the topics ``labels`` (one per text), topics renumbered by size.

    Without ``word_vectors`` the words are the plain c-TF-IDF words (no KeyBERT, no MMR).
    ``terms``: the texts' document-term matrix counted before, or where to get it
    (:func:`~workbench.topics.terms.document_terms`); else it is counted here.
    """
    bertopic = import_bertopic()
    from bertopic.cluster import BaseCluster
    from bertopic.dimensionality import BaseDimensionalityReduction

    from .vectorizer import proxies, real_documents

    terms = document_terms(texts, terms)
    backend = rep = None
    if word_vectors is not None:
        backend = _backend(word_vectors, embeddings)
        rep = _representation_model(representation, top_n_words, seed, backend)
    model = bertopic.BERTopic(
        embedding_model=backend,
        umap_model=_no_space(BaseDimensionalityReduction),
        hdbscan_model=BaseCluster(),
        # the corpus's document-term matrix, counted once for every fit on these texts
        vectorizer_model=_vectorizer(len(texts)).share(terms, texts),
        representation_model=rep,
        top_n_words=top_n_words,
        calculate_probabilities=False,
        verbose=False,
        # "english" (the default, used when no embedding model is given) would delete every
        # letter outside A-Z from the documents: no words at all for Chinese or Greek topics.
        language="multilingual",
    )
    with warnings.catch_warnings(), seeded(seed):
        warnings.simplefilter("ignore")
        # each paper by its row (vectorizer.proxies): the vectorizer and the backend know the rows
        model.fit(proxies(len(texts)), embeddings=embeddings, y=np.asarray(labels, dtype=int))
    model.representative_docs_ = {t: real_documents(docs, texts, cleaned=False)
                                  for t, docs in model.representative_docs_.items()}
    release_free_memory()  # tokenising for c-TF-IDF peaks at hundreds of MB of small strings
    final = np.asarray(model.topics_, dtype=int)
    words, pool = _ranked_words(model, texts, final, top_n_words)
    return Representation(model, final, words, topic_frame(texts, final, words, pool),
                          representatives(embeddings, final), terms)


def _no_space(base):
    """BERTopic's empty dimensionality step giving no columns: its clustering step (BERTopic's
    empty one) reads only the topics handed in, and BERTopic keeps a ``nan_to_num`` copy of
    what this step returns through the whole fit (the embeddings: 1 GB at a million papers)."""

    class NoSpace(base):
        def transform(self, X):
            return np.empty((len(X), 0), dtype=np.float32)

    return NoSpace()


def _ranked_words(model, texts, labels, top_n_words: int):
    """Each topic's words: its candidates (:func:`~workbench.topics.labels.candidate_words`)
    ranked by F1, the best ``top_n_words`` of them; and all of them ranked by F-beta
    (:data:`~workbench.topics.labels.LABEL_BETA`), what its label is chosen from: words found
    in the topic more than elsewhere. The papers are counted once for both."""
    counted = word_hits(texts, labels, candidate_words(model, labels, top_n_words))
    longest = max(map(len, counted.values()), default=0)
    return rank_hits(counted, top_n_words), rank_hits(counted, longest, LABEL_BETA)


def _vectorizer(n: int):
    """Words of any script; Chinese and Japanese characters are tokens (bigrams: their words).
    Small corpora keep every word; large ones drop words seen in fewer than 2 papers."""
    from .vectorizer import SharedVectorizer

    return SharedVectorizer(stop_words=stop_words(), ngram_range=(1, 2), min_df=1 if n < 200 else 2,
                            tokenizer=tokens, token_pattern=None)


def _representation_model(representation: str | None, top_n_words: int, seed: int, backend):
    from bertopic.representation import KeyBERTInspired, MaximalMarginalRelevance

    if representation == "keybert":
        return _sorted_vocab(KeyBERTInspired, backend.embed)(top_n_words=top_n_words, random_state=seed)
    if representation == "mmr":
        return MaximalMarginalRelevance(diversity=0.3, top_n_words=top_n_words)
    return None


def _backend(word_vectors: EmbedWords, embeddings: np.ndarray):
    """``word_vectors`` as a BERTopic embedding backend.

    The papers' ``embeddings`` are at hand (the corpus being modelled): the representative
    documents KeyBERT asks for (papers' proxies: :func:`~.vectorizer.proxies`) are looked up
    there, never re-embedded.
    """
    from bertopic.backend import BaseEmbedder

    from .vectorizer import paper_rows

    class WordBackend(BaseEmbedder):
        def embed(self, documents, verbose=False):
            documents = list(documents)
            rows = paper_rows(documents) if documents else None
            if rows is not None:
                return np.asarray(embeddings[rows])
            return np.asarray(word_vectors(documents), dtype=np.float32)

    return WordBackend()


def _sorted_vocab(keybert_class, embed: EmbedWords):
    """KeyBERTInspired with its candidate words in sorted order, embedded by ``embed`` (the
    backend BERTopic would call itself).

    It embeds ``list(set(words))``, whose order changes with Python's per-process string hash
    seed; float rounding then differs in the last bit and ties between words break differently
    from one process to the next. Sorted, the same corpus gets the same labels in every process.
    """

    class SortedKeyBERT(keybert_class):
        def _extract_embeddings(self, topic_model, topics, representative_docs, repr_doc_indices, repr_embeddings=None):
            from sklearn.metrics.pairwise import cosine_similarity

            if repr_embeddings is None:
                repr_embeddings = embed(representative_docs)
            topic_embeddings = [np.mean(repr_embeddings[i[0] : i[-1] + 1], axis=0) for i in repr_doc_indices]
            vocab = sorted({word for words in topics.values() for word in words})
            return cosine_similarity(topic_embeddings, embed(vocab)), vocab

    return SortedKeyBERT


def topic_frame(texts: Sequence[str] | None, labels: np.ndarray, words: dict[int, list[tuple[str, float]]],
                candidates: dict[int, list[tuple[str, float]]] | None = None):
    """The topic table: topic, label, size, words.

    The label is made from ``candidates`` (each topic's candidate words as labels rank them,
    by F0.5; ``words`` by default): at most three words or phrases and :data:`LABEL_WORDS`
    words, none made only of the corpus's most common words or their forms
    (:func:`~workbench.topics.labels.frequent_words`, with two topics or more) nor among the top
    words of most topics; with ``texts``, written as the topic's papers write them.
    """
    import pandas as pd

    sizes = pd.Series(labels).value_counts()
    top = {t: [w for w, _ in ranked] for t, ranked in words.items()}
    pool = {t: [w for w, _ in ranked] for t, ranked in (candidates or words).items()}
    common = common_words([w for t, w in top.items() if t != OUTLIER])
    several = len(set(top) - {OUTLIER}) > 1
    frequent = frequent_words(texts) if texts is not None and several else set()
    rows = []
    for topic, topic_words in top.items():
        # a phrase common enough to be a top word shows in the topic's first 2,000 papers
        text = topic_text(texts, labels, topic) if texts is not None else None
        label = "Unassigned" if topic == OUTLIER else readable_label(
            pool.get(topic, topic_words), common=common, text=text, frequent=frequent, max_words=LABEL_WORDS
        ) or f"Topic {topic}"
        # Chinese and Japanese n-grams are characters joined by spaces ("强 化"): written back as the text does
        rows.append({"topic": topic, "label": join_cjk(label), "size": int(sizes.get(topic, 0)),
                     "words": [join_cjk(w) for w in topic_words]})
    return pd.DataFrame(rows, columns=TOPIC_COLUMNS).sort_values("topic").reset_index(drop=True)


def representatives(embeddings: np.ndarray, labels: np.ndarray, n: int = 2, chunk: int = 8192) -> dict[int, list[int]]:
    """The rows of each topic's ``n`` most typical papers: nearest (cosine) the mean direction
    of the topic's embeddings, ties to the earlier row. Unassigned papers (-1) get none.
    ``chunk`` rows at a time are made unit length (in 64 bits), never a copy of them all."""
    labels = np.asarray(labels)
    out: dict[int, list[int]] = {}
    for topic in sorted(set(labels.tolist())):
        rows = np.flatnonzero(labels == topic)
        if topic == OUTLIER:
            out[int(topic)] = []
            continue
        blocks = [rows[start:start + chunk] for start in range(0, len(rows), chunk)]
        centre = np.zeros(np.shape(embeddings)[1])
        for block in blocks:
            centre += _unit(embeddings[block]).sum(axis=0)
        centre /= len(rows)
        direction = centre / max(np.linalg.norm(centre), 1e-12)
        scores = np.concatenate([_unit(embeddings[block]) @ direction for block in blocks])
        out[int(topic)] = [int(r) for r in rows[np.argsort(-scores, kind="stable")[:n]]]
    return out


def _unit(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    return X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)


def documents(texts: Sequence[str]) -> list[str]:
    """The texts topic words are taken from: each cut to its first MAX_TEXT_CHARS characters (a
    50 MB abstract would make BERTopic's vocabulary, its c-TF-IDF matrix and the saved model grow
    with it), an empty one as "(empty)"."""
    return [bounded_text(t) if t.strip() else "(empty)" for t in map(str, texts)]


@contextmanager
def seeded(seed: int):
    """Seed Python's and numpy's global generators for the block, then restore them."""
    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed)
    try:
        yield
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)

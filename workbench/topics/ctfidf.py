"""c-TF-IDF from counts that were made in pieces: words of topics too large for one process.

:func:`topic_term_counts` counts, in one piece of a corpus (a partition), how often each word
or two-word phrase occurs in each topic's papers, with the tokenizer and stop words the
single-machine topics use (:mod:`.represent`). The pieces' counts are summed elsewhere (a Dask
group-by); :func:`ctfidf_words` then weighs the summed counts as BERTopic's
``ClassTfidfTransformer`` does by default (each topic's counts as shares of its words, times
``log(1 + average words per topic / the word's count in all topics)``) and keeps each topic's
best words. Summing counts is exact: a topic's counts are the same whichever partitions its
papers were in.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..scripts import tokens
from .labels import stop_words
from .represent import documents

__all__ = ["COUNT_COLUMNS", "topic_term_counts", "ctfidf_words"]

#: The columns of :func:`topic_term_counts`' frame (and of the summed counts).
COUNT_COLUMNS = ["topic", "term", "count"]


def topic_term_counts(texts: Sequence[str], labels: Sequence[int]):
    """How often each term (word or two-word phrase) occurs in each topic's ``texts``.

    A DataFrame ``topic, term, count`` with one row per topic and term that occurs; texts are
    cut as the topic model cuts them (:func:`~workbench.topics.represent.documents`).
    """
    import pandas as pd
    from scipy import sparse
    from sklearn.feature_extraction.text import CountVectorizer

    labels = np.asarray(labels, dtype=np.int64)
    if len(labels) != len(texts):
        raise ValueError(f"{len(labels)} topic labels for {len(texts)} texts; expected one per text")
    empty = pd.DataFrame({"topic": np.zeros(0, np.int64), "term": np.zeros(0, object), "count": np.zeros(0, np.int64)})
    if not len(texts):
        return empty
    vectorizer = CountVectorizer(stop_words=stop_words(), ngram_range=(1, 2), tokenizer=tokens, token_pattern=None)
    try:
        counts = vectorizer.fit_transform(documents(texts))
    except ValueError:  # no word at all (only stop words)
        return empty
    topics, rows = np.unique(labels, return_inverse=True)
    member = sparse.csr_matrix((np.ones(len(rows)), (rows, np.arange(len(rows)))), shape=(len(topics), len(rows)))
    per_topic = (member @ counts).tocoo()
    terms = vectorizer.get_feature_names_out()
    return pd.DataFrame({"topic": topics[per_topic.row], "term": terms[per_topic.col],
                         "count": per_topic.data.astype(np.int64)})


def ctfidf_words(counts, top_n_words: int = 10, min_topics: int = 2) -> dict[int, list[tuple[str, float]]]:
    """Each topic's ``top_n_words`` terms by c-TF-IDF, from summed ``counts`` (``topic, term, count``).

    Terms found in fewer than ``min_topics`` topics are left out, as BERTopic's vectorizer
    (``min_df=2`` over the topics' joined documents) leaves them out of a large corpus; with
    fewer than two topics every term counts. Ties go to the term first in alphabetical order.
    """
    frame = counts[["topic", "term", "count"]]
    if frame["topic"].nunique() >= 2 and min_topics > 1:
        spread = frame.groupby("term")["topic"].transform("nunique")
        frame = frame[spread >= min_topics]
    if frame.empty:
        return {int(t): [] for t in counts["topic"].unique()}
    topic_total = frame.groupby("topic")["count"].transform("sum")
    term_total = frame.groupby("term")["count"].transform("sum")
    average = int(frame.groupby("topic")["count"].sum().mean())  # BERTopic: int(X.sum(axis=1).mean())
    score = frame["count"] / topic_total * np.log(average / term_total + 1)
    ranked = frame.assign(score=score).sort_values(["topic", "score", "term"], ascending=[True, False, True])
    best = ranked.groupby("topic", sort=True).head(top_n_words)
    words: dict[int, list[tuple[str, float]]] = {int(t): [] for t in counts["topic"].unique()}
    for topic, term, value in zip(best["topic"], best["term"], best["score"]):
        words[int(topic)].append((str(term), float(value)))
    return words

"""The shared document-term matrix gives BERTopic exactly what CountVectorizer counts."""

import random

import numpy as np
import pytest

from workbench.topics.represent import _vectorizer
from workbench.topics.terms import DocumentTerms, document_terms, texts_key
from workbench.topics.vectorizer import proxies

WORDS = ("the model reward agent learning of and a deep rl πολύ 强化 学习 é données tasks set 12 alpha "
         "Σ ΣΣ agents").split()


def corpus(n: int, seed: int = 0) -> list[str]:
    """Papers of every kind the joins meet: stop words only, one word, empty-ish, any script."""
    rng = random.Random(seed)
    texts = ["".join(rng.choice([w + " ", w + ". ", w + "-", w + "\u0301 "]) for w in rng.choices(WORDS, k=rng.randrange(0, 40)))
             or "the" for _ in range(n)]
    return texts + ["(empty)", "reward", "the of and", "Σ ΣΣΣΣ agents", "model"]


@pytest.mark.parametrize("chunk", [50_000, 1, 7])  # (a topic's papers taken so many at a time)
@pytest.mark.parametrize("k, min_df", [(1, 1), (2, 1), (2, 2), (5, 1), (5, 2), (9, 1), (9, 2)])
def test_topic_counts_are_countvectorizers_counts_of_the_joined_topics(k, min_df, chunk, monkeypatch):
    monkeypatch.setattr(DocumentTerms._joined, "__defaults__", (chunk,))
    texts = corpus(400, seed=k)
    rng = random.Random(min_df)
    labels = np.asarray([rng.randrange(k) for _ in texts])
    groups = [np.flatnonzero(labels == t).tolist() for t in np.unique(labels)]
    reference = _vectorizer(10 if min_df == 1 else 1000)
    expected = reference.fit_transform([" ".join(texts[r] for r in g) for g in groups])
    got, vocabulary = DocumentTerms(texts).topic_counts(groups, min_df)
    assert type(got) is type(expected) and got.shape == expected.shape
    for part in ("indptr", "indices", "data"):  # the same entries in the same order (BERTopic's ties)
        assert getattr(got, part).dtype == getattr(expected, part).dtype
        assert np.array_equal(getattr(got, part), getattr(expected, part))
    assert list(vocabulary.items()) == list(reference.vocabulary_.items())


def _joins(docs: list[str], labels: np.ndarray, k: int) -> list[str]:
    """The topic documents BERTopic makes of ``docs``: each topic's joined with spaces, cleaned."""
    return [" ".join(d for d, l in zip(docs, labels) if l == topic).replace("\n", " ").replace("\t", " ")
            for topic in range(k)]


def test_the_shared_vectorizer_counts_the_joined_papers_as_countvectorizer_counts_their_texts():
    """BERTopic is handed each paper's proxy, not its text: the topics' joins of proxies are
    counted as CountVectorizer counts the joins of the texts, and anything else is counted."""
    texts = corpus(300)
    texts[3] = "reward\nagents\tmodel"  # (BERTopic cleans new lines and tabs in its joins)
    labels = np.asarray([i % 4 for i in range(len(texts))])
    shared = _vectorizer(1000).share(document_terms(texts), texts)
    plain = _vectorizer(1000)
    got = shared.fit_transform(_joins(proxies(len(texts)), labels, 4))
    assert np.array_equal(got.toarray(), plain.fit_transform(_joins(texts, labels, 4)).toarray())
    assert shared.vocabulary_ == plain.vocabulary_
    one = _vectorizer(1000).share(document_terms(texts), texts)  # one topic, min_df 2: CountVectorizer's own answer
    with pytest.raises(ValueError) as theirs:
        _vectorizer(1000).fit_transform(_joins(texts, np.zeros(len(texts), int), 1))
    with pytest.raises(ValueError, match=str(theirs.value)[:40]):
        one.fit_transform(_joins(proxies(len(texts)), np.zeros(len(texts), int), 1))
    other = ["reward agents learning", "deep model of agents", "πολύ 强化 学习 reward"]
    assert np.array_equal(shared.fit_transform(other).toarray(), plain.fit_transform(other).toarray())
    assert shared.vocabulary_ == plain.vocabulary_


def test_counts_handed_over_are_used_for_their_own_texts_only():
    texts = corpus(50)
    counted = document_terms(texts)
    assert document_terms(list(texts), counted) is counted  # the same texts: not counted again
    assert document_terms(texts, lambda key: counted) is counted  # (or asked for by their key)
    other = document_terms(texts[:-1], counted)
    assert other is not counted and other.key == texts_key(texts[:-1]) != counted.key and len(other) == len(texts) - 1
    asked = []
    assert document_terms(texts, lambda key: asked.append(key)) is not counted and asked == [texts_key(texts)]


def test_papers_of_the_corpus_are_transformed_as_countvectorizer_transforms_them():
    texts = corpus(400, seed=3)
    labels = np.asarray([i % 5 for i in range(len(texts))])
    shared = _vectorizer(1000).share(document_terms(texts), texts)
    plain = _vectorizer(1000)
    shared.fit_transform(_joins(proxies(len(texts)), labels, 5)), plain.fit_transform(_joins(texts, labels, 5))
    rng = random.Random(1)
    docs = proxies(len(texts))
    for rows in (rng.sample(range(len(texts)), 60), range(len(texts) - 5, len(texts)), [0], [len(texts) - 4] * 2):
        got, expected = shared.transform([docs[r] for r in rows]), plain.transform([texts[r] for r in rows])
        assert got.shape == expected.shape and got.dtype == expected.dtype
        for part in ("indptr", "indices", "data"):
            assert np.array_equal(getattr(got, part), getattr(expected, part)), part
    assert shared._columns[0] is shared.vocabulary_  # the shared matrix answered
    other = ["reward agents learning", "deep model of agents"]  # not papers of the corpus
    assert np.array_equal(shared.transform(other).toarray(), plain.transform(other).toarray())

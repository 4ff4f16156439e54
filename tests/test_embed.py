"""Embedders and the disk cache: hits, partial hits, corpus-relative keys, bad vectors."""

import numpy as np
import pytest

from workbench.embed import (
    EMBEDDERS,
    BaseEmbedder,
    Embedder,
    EmbeddingCache,
    FakeEmbedder,
    TfidfEmbedder,
    WordVectors,
    embed_with_cache,
    get_embedder,
)
from workbench.errors import EmbedderError, InputError

from conftest import seed_abstracts


def test_registry_names_the_three_real_embedders_and_the_test_double():
    assert {"minilm", "static", "tfidf"} <= set(EMBEDDERS)
    with pytest.raises(InputError, match="unknown embedder 'bert'; choose one of: minilm"):
        get_embedder("bert")


def test_second_embedding_of_the_same_texts_embeds_nothing(tmp_path):
    texts = seed_abstracts()
    fake = FakeEmbedder()
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        first, stats1 = embed_with_cache(texts, fake, cache, corpus=True)
        second, stats2 = embed_with_cache(texts, fake, cache, corpus=True)
    assert stats1["embedded"] == 133 and stats1["cached"] == 0
    assert stats2["embedded"] == 0 and stats2["cached"] == 133
    assert fake.embedded == 133
    np.testing.assert_array_equal(first, second)
    assert first.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, rtol=1e-5)


def test_adding_ten_papers_embeds_those_ten(tmp_path):
    texts = seed_abstracts()
    fake = FakeEmbedder()
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        embed_with_cache(texts[:100], fake, cache)
        _, stats = embed_with_cache(texts[:110], fake, cache)
        assert stats == {"cached": 100, "embedded": 10, "seconds": stats["seconds"]}
        assert cache.count() == 110


def test_cache_survives_reopening_and_is_keyed_by_embedder(tmp_path):
    texts = seed_abstracts()[:20]
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        embed_with_cache(texts, FakeEmbedder(dims=64), cache)
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        _, same = embed_with_cache(texts, FakeEmbedder(dims=64), cache)
        _, other = embed_with_cache(texts, FakeEmbedder(dims=32), cache)
    assert same["embedded"] == 0
    assert other["embedded"] == 20


def test_duplicate_texts_are_embedded_once(tmp_path):
    fake = FakeEmbedder()
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        vectors, stats = embed_with_cache(["same text here", "same text here", "other words"], fake, cache)
    assert fake.embedded == 2 and stats["embedded"] == 2
    np.testing.assert_array_equal(vectors[0], vectors[1])


def test_tfidf_vectors_are_corpus_relative_and_project_words(tmp_path):
    texts = seed_abstracts()
    tfidf = TfidfEmbedder()
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        X, _ = embed_with_cache(texts, tfidf, cache, corpus=True)
        key_full = tfidf.version
        embed_with_cache(texts[:50], tfidf, cache, corpus=True)
        assert tfidf.version != key_full, "another corpus gets another cache key"
        _, again = embed_with_cache(texts, TfidfEmbedder(), cache, corpus=True)
    assert again["embedded"] == 0
    assert X.shape == (133, 132)
    words = TfidfEmbedder()
    words.bind_corpus(texts)
    w = words.embed_words(["reward model", "multimodal", "agents"])
    assert w.shape == (3, 132) and np.all(np.isfinite(w))


def test_an_embedder_returning_garbage_is_refused(tmp_path):
    class Broken(FakeEmbedder):
        def embed(self, texts):
            out = super().embed(texts)
            out[0, 0] = np.nan
            return out

    with pytest.raises(EmbedderError, match="non-finite"):
        embed_with_cache(["a text", "another text"], Broken(), None)


def test_tfidf_corpus_vectors_are_the_two_scikit_learn_calls_and_nothing_more():
    """The embed stage's vectors of the corpus are TruncatedSVD.fit_transform of
    TfidfVectorizer.fit_transform (normalised), not a second transform of every text."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = seed_abstracts()
    texts = texts + [" ".join(reversed(t.split())) for t in texts]  # 266 texts: terms in 2+ papers only
    tfidf = TfidfEmbedder()
    X, stats = embed_with_cache(texts, tfidf, None, corpus=True)
    bare = TruncatedSVD(n_components=256, random_state=42).fit_transform(
        TfidfVectorizer(**tfidf.vectorizer_params(len(texts))).fit_transform(texts))
    bare /= np.linalg.norm(bare, axis=1, keepdims=True)
    np.testing.assert_allclose(X, bare, atol=1e-5)
    assert stats["embedded"] == len(set(texts)) and tfidf.vectorizer_params(len(texts))["min_df"] == 2
    # a text outside the corpus is projected into the same space
    assert tfidf.embed(["reward models for agents"]).shape == (1, 256)


def test_a_huge_text_is_embedded_by_its_first_characters(tmp_path):
    from workbench.records import MAX_TEXT_CHARS, bounded_text

    huge = "agents plan with memory " * 100_000  # 2.4 million characters
    assert len(bounded_text(huge)) <= MAX_TEXT_CHARS and huge.startswith(bounded_text(huge))
    fake = FakeEmbedder()
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        X, _ = embed_with_cache([huge, bounded_text(huge)], fake, cache)
    assert fake.embedded == 1  # the same text once cut: embedded once
    np.testing.assert_array_equal(X[0], X[1])


def test_every_registered_embedder_follows_the_protocol_without_loading_a_model():
    for name in EMBEDDERS:
        embedder = get_embedder(name, progress=False)
        assert isinstance(embedder, Embedder) and embedder.name == name
        assert getattr(embedder, "progress", False) is False, "progress=False reaches the embedders that draw bars"


def test_the_base_class_gives_the_defaults_and_tfidf_overrides_them():
    fake = FakeEmbedder()
    texts = seed_abstracts()[:10]
    before = fake.version
    fake.bind_corpus(texts)
    assert fake.bound and fake.version == before, "binding a corpus changes nothing for an embedder of single texts"
    np.testing.assert_array_equal(fake.embed_words(["reward model", "agents"]), fake.embed(["reward model", "agents"]))

    tfidf = TfidfEmbedder()
    assert not tfidf.bound
    tfidf.bind_corpus(texts)
    assert tfidf.bound and tfidf.version != TfidfEmbedder().version


def test_an_object_that_is_not_an_embedder_is_refused_and_a_minimal_one_gets_the_defaults():
    with pytest.raises(InputError, match="is not an embedder; expected a registry name .* bind_corpus"):
        get_embedder(object())

    class Ones(BaseEmbedder):
        name = "ones"
        version = "1"

        def embed(self, texts):
            return np.ones((len(texts), 3), np.float32) / np.sqrt(3)

    ones = get_embedder(Ones())
    X, stats = embed_with_cache(["a", "b"], ones, None, corpus=True)
    assert X.shape == (2, 3) and stats["embedded"] == 2
    assert WordVectors(ones)(["word"]).shape == (1, 3)


def test_word_vectors_embed_each_word_once_through_the_cache_opened_per_call(tmp_path):
    fake = FakeEmbedder()
    words = WordVectors(fake, tmp_path / "cache" / "e.sqlite")
    first = words(["reward model", "agents"])
    second = words(["agents", "memory planning"])
    assert fake.embedded == 3, "'agents' came from the cache the second time"
    np.testing.assert_array_equal(first[1], second[0])
    np.testing.assert_array_equal(second, fake.embed(["agents", "memory planning"]))
    with EmbeddingCache(tmp_path / "cache" / "e.sqlite") as cache:
        assert cache.count(f"fake:{fake.version}") == 3, "every word was written, and the file was let go"


def test_word_vectors_use_the_embedders_embed_words():
    texts = seed_abstracts()
    tfidf = TfidfEmbedder()
    tfidf.bind_corpus(texts)
    words = ["reward model", "multimodal", "agents"]
    np.testing.assert_array_equal(WordVectors(tfidf)(words), tfidf.embed_words(words))

    class Counted(FakeEmbedder):
        word_calls = 0

        def embed_words(self, words):
            self.word_calls += 1
            return super().embed_words(words)

    counted = Counted()
    WordVectors(counted)(words)
    assert counted.word_calls == 1

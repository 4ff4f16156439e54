"""The ranked queue: exact orders on a tiny corpus, determinism, the cold start, exploration, "why"."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.errors import InputError
from workbench.screening import MODELS, Features, Ranker, top_n

# A tiny review: paper 0 is the include and paper 1 the exclude the reviewer starts from.
TEXTS = [
    "honey bee pollination of apple orchards",  # 0 include
    "stock market volatility and interest rates",  # 1 exclude
    "wild bee pollination of apple orchards in spring",  # 2 five of the include's words
    "honey bee colony losses in winter",  # 3 two of its words
    "pollination services of bumblebees",  # 4 one word ("of" and "pollination")
    "interest rates and bond market returns",  # 5 the exclude's words
    "football match attendance in england",  # 6 no word of either
    "bee",  # 7 one word, all its weight on an include word
]


@pytest.fixture
def features():
    return Features.from_texts(TEXTS)


@pytest.mark.parametrize("model", ["svm-tfidf", "lr-tfidf", "nb-tfidf"])
def test_papers_like_the_include_come_first_and_like_the_exclude_last(features, model):
    ranker = Ranker(model, seed=0).fit(features, [0, 1], [1, 0])
    # 2 shares most of the include's words; 7 is nothing but "bee"; 3 shares "honey bee", 4
    # only "pollination"; 6 shares nothing with either; 5 is written like the exclude.
    assert ranker.ranking().tolist() == [2, 7, 3, 4, 6, 5]
    assert ranker.next(3).tolist() == [2, 7, 3]
    assert ranker.mode_ == "ranked" and ranker.n_includes_ == 1 and ranker.n_labelled_ == 2


def test_skipped_papers_stay_out_of_the_queue(features):
    ranker = Ranker("svm-tfidf", seed=0).fit(features, [0, 1], [1, 0])
    assert ranker.next(3, skip=[7]).tolist() == [2, 3, 4]  # 7 is marked "maybe"
    cold = Ranker(seed=7).fit(features, [1], [0])
    assert 7 not in cold.ranking(skip=[7]).tolist() and len(cold.ranking(skip=[7])) == 6


def test_a_new_decision_changes_the_order(features):
    ranker = Ranker("svm-tfidf", seed=0).fit(features, [0, 1], [1, 0])
    before = ranker.ranking().tolist()
    # the reviewer excludes paper 2 (wild bees, spring): its words now count against a paper
    after = ranker.fit(features, [0, 1, 2], [1, 0, 0]).ranking().tolist()
    assert 2 not in after
    assert after == [7, 3, 4, 6, 5]
    assert before[0] == 2


def test_same_seed_same_queue_and_scores(features):
    a = Ranker("svm-tfidf", seed=3).fit(features, [0, 1, 5], [1, 0, 0])
    b = Ranker("svm-tfidf", seed=3).fit(Features.from_texts(TEXTS), [0, 1, 5], [1, 0, 0])
    assert a.ranking().tolist() == b.ranking().tolist()
    np.testing.assert_array_equal(a.scores_, b.scores_)


def test_partial_sort_matches_a_full_stable_sort_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(50):
        m = int(rng.integers(1, 40))
        cand = np.sort(rng.choice(100, m, replace=False))
        scores = rng.integers(0, 4, m).astype(float)  # many ties
        full = cand[np.argsort(-scores, kind="stable")]
        for n in (0, 1, m // 2, m):
            assert top_n(cand, scores, n).tolist() == full[:n].tolist()


def test_before_an_include_and_an_exclude_the_queue_is_a_seeded_random_order(features):
    ranker = Ranker(seed=7).fit(features, [1], [0])
    assert ranker.mode_ == "cold" and ranker.scores_ is None
    expected = [int(i) for i in np.random.default_rng(7).permutation(8) if i != 1]
    assert ranker.ranking().tolist() == expected
    assert ranker.next(2).tolist() == expected[:2]


def test_cold_start_by_topic_takes_one_paper_per_topic_in_turn(features):
    groups = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    ranker = Ranker(seed=7).fit(features, [1], [0])  # one decision, in topic 0
    order = [int(i) for i in np.random.default_rng(7).permutation(8)]
    first_of = {g: [i for i in order if groups[i] == g and i != 1] for g in (0, 1, 2)}
    # topics 1 and 2 have no decision yet: their first papers come before topic 0's
    picks = ranker.next(4, groups=groups).tolist()
    assert picks[:3] == [first_of[1][0], first_of[2][0], first_of[0][0]]
    assert picks[3] == first_of[1][1]


def test_exploration_shows_the_best_paper_of_the_least_screened_topic(features):
    groups = np.array([0, 1, 0, 0, 0, 1, 2, 0])
    ranker = Ranker("svm-tfidf", seed=0, explore_until=5, explore_every=2).fit(features, [0, 1], [1, 0])
    # two decisions made, so pick 0 of this round is an exploration pick (2 % 2 == 0): topic 2
    # has no decision (paper 6); then the ranked order resumes; pick 2 explores again (topic 1,
    # one decision; its only undecided paper is 5)
    assert ranker.next(4, groups=groups).tolist() == [6, 2, 5, 7]
    # with enough includes, no exploration
    plain = Ranker("svm-tfidf", seed=0, explore_until=1, explore_every=2).fit(features, [0, 1], [1, 0])
    assert plain.next(4, groups=groups).tolist() == [2, 7, 3, 4]


def test_random_exploration_is_repeatable(features):
    a = Ranker("svm-tfidf", seed=4, explore_until=5, explore_every=1).fit(features, [0, 1], [1, 0]).next(6)
    b = Ranker("svm-tfidf", seed=4, explore_until=5, explore_every=1).fit(features, [0, 1], [1, 0]).next(6)
    assert a.tolist() == b.tolist() and sorted(a.tolist()) == [2, 3, 4, 5, 6, 7]


def test_why_words_for_a_linear_model_on_tfidf(features):
    ranker = Ranker("svm-tfidf", seed=0).fit(features, [0, 1], [1, 0])
    why = ranker.explain(3)
    assert why.kind == "words" and why.score == pytest.approx(ranker.scores_[3])
    words = [w for w, _ in why.items]
    assert set(words) <= {"honey", "bee", "honey bee"} and "honey bee" in words
    assert all(c > 0 for _, c in why.items)
    assert ranker.explain(6).items == ()  # nothing in paper 6 pushed it up
    assert str(why).startswith("words: ")


def test_why_nearest_included_papers_without_tfidf_weights():
    emb = np.array([[1, 0, 0], [0, 1, 0], [0.9, 0.1, 0], [0.1, 0.9, 0], [0.6, 0, 0.8], [0, 0, 1]], dtype=float)
    f = Features(embeddings=emb)
    ranker = Ranker("svm-emb", seed=0).fit(f, [0, 1, 4], [1, 0, 1])
    why = ranker.explain(2, k=2)
    assert why.kind == "neighbours"
    assert [row for row, _ in why.items] == [0, 4]  # paper 0 is nearer to paper 2 than paper 4 is
    assert why.items[0][1] == pytest.approx(0.9 / np.linalg.norm([0.9, 0.1, 0]))


def test_both_features_rank_with_words_and_embeddings(features):
    emb = np.random.default_rng(0).normal(size=(8, 4))
    emb[2] = emb[0]  # paper 2 also means the same as the include
    f = Features.from_texts(TEXTS, embeddings=emb)
    ranker = Ranker(seed=0).fit(f, [0, 1], [1, 0])  # default model with embeddings
    assert MODELS[ranker.name].features == "both"
    assert ranker.ranking()[0] == 2
    assert ranker.explain(2).kind == "words"
    assert "seed=0" in ranker.version and ranker.name in ranker.version


def test_text_only_features_fall_back_to_a_tfidf_model(features):
    assert MODELS[Ranker().fit(features, [0, 1], [1, 0]).name].features == "tfidf"


@pytest.mark.parametrize(
    "labelled, labels, match",
    [([0, 1], [1], "2 labelled rows but 1 labels"), ([0, 9], [1, 0], "0..7"), ([0, 0], [1, 0], "labelled twice"),
     ([0, 1], [1, 2], "0 \\(exclude\\) or 1")],
)
def test_bad_decisions_say_what_was_wrong(features, labelled, labels, match):
    with pytest.raises(InputError, match=match):
        Ranker("svm-tfidf").fit(features, labelled, labels)


def test_errors_for_missing_features_unknown_models_and_unfitted_rankers(features):
    with pytest.raises(InputError, match="needs embeddings"):
        Ranker("svm-emb").fit(features, [0, 1], [1, 0])
    with pytest.raises(InputError, match="unknown screening model 'bert'"):
        Ranker("bert").fit(features, [0, 1], [1, 0])
    with pytest.raises(InputError, match="not fitted"):
        Ranker().next(1)
    with pytest.raises(InputError, match="one row per paper"):
        Features.from_texts(TEXTS, embeddings=np.ones((3, 2)))
    with pytest.raises(InputError, match="no words"):
        Features.from_texts(["", "  "])


@pytest.mark.parametrize("texts", [["malaria bed nets"], ["malaria bed nets", "malaria bed nets"]])
def test_features_of_one_paper_or_of_identical_ones_keep_their_words(texts):
    """max_df=0.95 drops the words in over 95 % of the papers: with one paper (or papers that say
    the same) that is every word; then every word is kept instead."""
    f = Features.from_texts(texts)
    assert f.tfidf.shape == (len(texts), 5) and list(f.terms)[:2] == ["bed", "bed nets"]


# ----------------------------------------------------------------------------- "why" in phrases

STOP = {"a", "an", "and", "from", "in", "is", "it", "of", "the", "to", "we", "with"}
WHY_TEXTS = [
    "A reward model trained with human feedback (RLHF) in terms of the policy.",  # 0 include
    "Stock market volatility in terms of interest rates.",  # 1 exclude
    "We train a Reward Model from human feedback (RLHF) and measure it in terms of accuracy.",  # 2
    "Interest rates of the stock market, in terms of the reward model.",  # 3
]


def test_why_shows_the_decisive_phrases_as_the_abstract_writes_them_never_stop_word_fragments():
    f = Features.from_texts(WHY_TEXTS)
    ranker = Ranker("svm-tfidf", seed=0).fit(f, [0, 1], [1, 0])
    why = ranker.explain(2, text=WHY_TEXTS[2])
    shown = [p for p, _ in why.items]
    # "reward model" stands for its words (each word once), written as the abstract writes it;
    # "feedback rlhf" crosses a bracket, so it is no phrase: "RLHF" and "human feedback" are
    assert set(shown) == {"Reward Model", "human feedback", "RLHF"}
    assert all(c > 0 for _, c in why.items)
    # what pulled paper 3 down: the exclude's words, as the abstract writes them
    down = ranker.explain(3, text=WHY_TEXTS[3])
    assert {p for p, _ in down.against} == {"Interest rates", "stock market"}
    assert [p for p, _ in down.items] == ["reward model"]
    assert all(c < 0 for _, c in down.against)
    # never a fragment edged by a stop word ("in terms", "terms of", "of the", "with human")
    for phrase, _ in why.items + why.against + down.items + down.against:
        words = phrase.lower().split()
        assert words[0] not in STOP and words[-1] not in STOP, phrase
    # the most similar included paper is named beside the words
    assert [row for row, _ in why.like] == [0]


def test_phrases_sum_a_terms_contributions_into_its_content_words():
    from workbench.screening import phrases

    terms = ["in terms", "terms", "terms of", "of the", "scale", "scale high", "high"]
    contrib = [0.1, 0.2, 0.1, 0.5, 0.05, 0.3, 0.05]
    got = phrases(terms, contrib, text="Scale High systems, in terms of cost.", k=5)
    # "of the" says nothing and is left out; "in terms", "terms of" and "terms" are one word;
    # "scale high" holds "scale" and "high", which are not listed again
    assert got == (("Scale High", pytest.approx(0.4)), ("terms", pytest.approx(0.4)))
    assert phrases(["of the", "in"], [1.0, 1.0]) == ()


@pytest.mark.parametrize("text, pair, phrase", [
    ("Scale High systems.", ("scale", "high"), "Scale High"),  # case kept
    ("the scale-high systems", ("scale", "high"), "scale-high"),  # a hyphen between
    ("vitamin D deficiency in İstanbul", ("vitamin", "deficiency"), "vitamin D deficiency"),  # a letter between; lower() longer
    ("upscale high, scale (high)", ("scale", "high"), None),  # part of a word; across a bracket
    ("scale_high and scale high", ("scale", "high"), "scale high"),  # an underscore joins words
    ("Scale, high. SCALE   HIGH", ("scale", "high"), "SCALE HIGH"),  # spaces made one
])
def test_a_word_pair_is_a_phrase_only_where_the_text_writes_it_as_one(text, pair, phrase):
    from workbench.screening import phrases

    got = phrases([" ".join(pair), pair[0], pair[1]], [1.0, 0.1, 0.1], text=text, k=5)
    if phrase is None:  # no phrase: its contribution goes to its words
        assert sorted(p for p, _ in got) == sorted(pair)
    else:
        assert got == ((phrase, pytest.approx(1.2)),)


@pytest.mark.parametrize("rank, queued, expected", [(1, 100, "high"), (10, 100, "high"), (11, 100, "medium"),
                                                     (50, 100, "medium"), (51, 100, "low"), (1, 1, "high"),
                                                     (2, 3, "medium"), (3, 3, "low")])
def test_a_rank_reads_as_high_medium_or_low_by_its_place_in_the_queue(rank, queued, expected):
    from workbench.screening import band

    assert band(rank, queued) == expected


def test_a_model_is_described_in_words():
    from workbench.screening import describe_model

    assert describe_model("svm-both(ratio=9.8,embedding_weight=0.1)/1;seed=42") == (
        "a linear classifier (SVM) on the words and word pairs of the titles and abstracts, with their "
        "meaning (embeddings) beside them, learning from the decisions made so far")
    assert "svm" not in describe_model("svm-tfidf")


@pytest.mark.parametrize("center, dims", [(False, 0), (True, 0), (True, 8)])
def test_a_refit_stacks_the_same_embedding_rows_as_the_whole_scaled_block(center, dims):
    """The decided papers' embedding rows, made from those rows alone, are the rows of the whole
    block as a sparse matrix: the same entries, zeros left out, so the same fit and ranking."""
    import scipy.sparse as sp

    rng = np.random.default_rng(7)
    emb = rng.normal(size=(300, 32)).astype(np.float32)
    emb[4, 5] = 0.0
    features = Features(embeddings=emb)
    whole = sp.csr_matrix(features.embedding_block(center, dims) * np.float32(0.3))
    for rows in (np.array([4, 9, 0, 4, 299]), np.arange(300), np.array([], dtype=np.int64)):
        part = features.sparse_rows(rows, 0.3, center, dims)
        expected = whole[rows]
        assert part.shape == expected.shape and part.dtype == expected.dtype
        assert (part.indptr == expected.indptr).all() and (part.indices == expected.indices).all()
        assert (part.data == expected.data).all()


def test_scores_read_column_by_column_are_the_same_to_the_bit():
    """With the words kept column by column (a screening view's warm-up), a refit's scores read
    only the columns its weights use: the same scores and order as the product row by row."""
    rng = np.random.default_rng(3)
    vocabulary = [f"w{i}" for i in range(400)]
    texts = [" ".join(rng.choice(vocabulary, size=int(rng.integers(20, 60)))) for _ in range(300)]
    plain = Features.from_texts(texts)
    columns = Features.from_texts(texts)
    columns.keep_columns()
    labelled, labels = [0, 1, 2, 3, 4], [1, 0, 0, 1, 0]
    one = Ranker("svm-tfidf", seed=0).fit(plain, labelled, labels)
    two = Ranker("svm-tfidf", seed=0).fit(columns, labelled, labels)
    assert np.array_equal(one.scores_, two.scores_) and list(one.ranking()) == list(two.ranking())
    w = np.zeros(plain.tfidf.shape[1], dtype=np.float32)
    cols = np.flatnonzero(np.isin(np.arange(len(w)), rng.choice(len(w), 30, replace=False)))
    w[cols] = rng.normal(size=len(cols)).astype(np.float32)
    assert np.array_equal(columns.word_scores(w, cols), plain.tfidf @ w)  # a few columns: read by column
    assert np.array_equal(columns.word_scores(w, np.arange(len(w))), plain.tfidf @ w)  # most: by row

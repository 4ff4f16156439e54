"""The model variants: the embedding block (centred, principal components), embeddings only
until k includes, and fusion of two models' scores, each against a computation by hand."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.screening import DEFAULT_MODEL, MODELS, Features, ModelSpec, Ranker

TEXTS = [  # the ranker tests' tiny review
    "honey bee pollination of apple orchards",  # 0 include
    "stock market volatility and interest rates",  # 1 exclude
    "wild bee pollination of apple orchards in spring",  # 2 include
    "honey bee colony losses in winter",
    "pollination services of bumblebees",
    "interest rates and bond market returns",
    "football match attendance in england",
    "bee",
]


@pytest.fixture
def features():
    emb = np.random.default_rng(1).normal(size=(len(TEXTS), 6)) + 3.0  # a large shared direction
    return Features.from_texts(TEXTS, embeddings=emb)


def test_the_embedding_block_centred_and_on_principal_components(features):
    E = features.embeddings  # as given, rows L2-normalised
    assert features.embedding_block() is E
    centred = features.embedding_block(center=True)
    by_hand = E - E.mean(axis=0)
    by_hand /= np.linalg.norm(by_hand, axis=1, keepdims=True)
    np.testing.assert_allclose(centred, by_hand, atol=1e-6)
    # two principal components: the projection on the top two right singular vectors of the
    # centred embeddings, each signed so its largest loading is positive, rows normalised
    pcs = features.embedding_block(center=True, dims=2)
    _, _, vt = np.linalg.svd(E - E.mean(axis=0), full_matrices=False)
    v = vt[:2].T * np.sign(vt[:2].T[np.abs(vt[:2].T).argmax(axis=0), [0, 1]])
    proj = (E - E.mean(axis=0)) @ v
    np.testing.assert_allclose(pcs, proj / np.linalg.norm(proj, axis=1, keepdims=True), atol=1e-5)
    assert features.embedding_block(center=True, dims=2) is pcs  # built once
    both = features.matrix("both", 0.5, center=True, dims=2)
    assert both.shape == (len(TEXTS), features.tfidf.shape[1] + 2)
    np.testing.assert_allclose(both[:, features.tfidf.shape[1]:].toarray(), 0.5 * pcs, atol=1e-6)


def test_the_embedding_weight_by_includes(features):
    spec = ModelSpec("steps", "svm", "both", embedding_weight=0.1, embedding_steps=((2, 0.3), (4, 0.0)))
    assert [spec.weight_at(k) for k in range(6)] == [0.1, 0.1, 0.3, 0.3, 0.0, 0.0]
    assert [spec.features_at(k) for k in (1, 3, 4)] == ["both", "both", "tfidf"]
    capped = ModelSpec("capped", "svm", "both", embedding_max_decided=3)
    assert [capped.features_at(1, n) for n in (2, 3, 4)] == ["both", "both", "tfidf"]
    # with one include the model is svm-both at weight 0.1, score for score
    one = Ranker(spec, seed=0).fit(features, [0, 1], [1, 0])
    plain = Ranker(ModelSpec("w", "svm", "both", embedding_weight=0.1), seed=0).fit(features, [0, 1], [1, 0])
    np.testing.assert_allclose(one.scores_, plain.scores_)


def test_embeddings_only_until_k_includes(features):
    spec = ModelSpec("svm-both-until2", "svm", "both", embedding_steps=((2, 0.0),))
    tfidf = Ranker("svm-tfidf", seed=0)
    # one include: the embeddings are in, the scores are not the TF-IDF model's
    one = Ranker(spec, seed=0).fit(features, [0, 1], [1, 0])
    assert not np.allclose(one.scores_, tfidf.fit(features, [0, 1], [1, 0]).scores_)
    np.testing.assert_allclose(one.scores_, Ranker("svm-both-w0.3", seed=0).fit(features, [0, 1], [1, 0]).scores_)
    # two includes: the same model as svm-tfidf, score for score
    two = Ranker(spec, seed=0).fit(features, [0, 1, 2], [1, 0, 1])
    np.testing.assert_allclose(two.scores_, tfidf.fit(features, [0, 1, 2], [1, 0, 1]).scores_)
    assert "embedding_steps=2:0.0" in two.version
    # past embedding_max_decided decided papers, TF-IDF alone too
    capped = ModelSpec("capped", "svm", "both", embedding_max_decided=3)
    np.testing.assert_allclose(Ranker(capped, seed=0).fit(features, [0, 1, 5, 6], [1, 0, 0, 0]).scores_,
                               tfidf.fit(features, [0, 1, 5, 6], [1, 0, 0, 0]).scores_)


def test_the_default_model_exact_order_words_first_while_few_includes():
    # embeddings in four directions: bees, markets, sport, other; paper 7 ("bee") is all words
    # and no bee embedding, papers 3 and 4 read like the include in both
    emb = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 0, 0.2], [0.8, 0, 0, 0.6], [0.9, 0, 0, 0.4],
                    [0, 1, 0, 0.1], [1, 0, 0, 0], [0, 0, 0, 1]], dtype=float)
    f = Features.from_texts(TEXTS, embeddings=emb)
    default = Ranker(seed=0).fit(f, [0, 1], [1, 0])
    assert default.name == DEFAULT_MODEL == "svm-both"
    # with one include the embeddings weigh 0.1: the words' order, as svm-tfidf has it
    assert default.ranking().tolist() == [2, 7, 3, 4, 6, 5]
    assert Ranker("svm-tfidf", seed=0).fit(f, [0, 1], [1, 0]).ranking().tolist() == [2, 7, 3, 4, 6, 5]
    # at weight 0.3 the embeddings would put the bee-like papers 3 and 4 before the bare "bee"
    assert Ranker("svm-both-w0.3", seed=0).fit(f, [0, 1], [1, 0]).ranking().tolist() == [2, 3, 4, 7, 6, 5]
    assert default.version == ("svm-both(ratio=9.8,embedding_weight=0.1,embedding_steps=10:0.3,"
                               "embedding_max_decided=2000)/1;seed=0")


def test_the_default_model_weighs_embeddings_more_from_10_includes_and_drops_them_past_2000():
    n = 2100
    texts = [f"paper {i % 7} about {'bees' if i % 3 == 0 else 'markets'} and topic {i % 11}" for i in range(n)]
    emb = np.stack([np.cos(np.arange(n) * 0.37 + k) for k in range(5)], axis=1)
    f = Features.from_texts(texts, embeddings=emb)
    y = (np.arange(n) % 3 == 0).astype(int)

    def scores(model, rows):
        return Ranker(model, seed=0).fit(f, rows, y[rows]).scores_

    def both(w):
        return ModelSpec("w", "svm", "both", embedding_weight=w)

    nine, ten = np.arange(27), np.arange(30)  # 9 and 10 includes among them
    np.testing.assert_allclose(scores(None, nine), scores(both(0.1), nine))
    np.testing.assert_allclose(scores(None, ten), scores(both(0.3), ten))
    assert not np.allclose(scores(None, ten), scores(both(0.1), ten))
    np.testing.assert_allclose(scores(None, np.arange(2000)), scores(both(0.3), np.arange(2000)), rtol=1e-5)
    np.testing.assert_allclose(scores(None, np.arange(2001)), scores("svm-tfidf", np.arange(2001)))


def test_trust_in_the_embeddings_grows_with_the_includes(features):
    spec = ModelSpec("curve", "svm", "both", embedding_curve=(0.5, 20), embedding_max_decided=2000)
    # w = 0.5 * n / (n + 20) with n includes: 1/42, 0.1 at 5, 1/6 at 10, 0.25 at 20, 0.4 at 80
    assert [spec.weight_at(n) for n in (1, 5, 10, 20, 80)] == [round(0.5 / 21, 6), 0.1, round(1 / 6, 6), 0.25, 0.4]
    assert spec.weight_at(20, 2001) == 0.0 and spec.features_at(20, 2001) == "tfidf"
    assert "embedding_curve=0.5:20" in spec.version
    # two includes: the model at weight 0.5 * 2 / 22, score for score
    fitted = Ranker(spec, seed=0).fit(features, [0, 1, 2], [1, 0, 1])
    fixed = Ranker(ModelSpec("w", "svm", "both", embedding_weight=round(1 / 22, 6)), seed=0).fit(features, [0, 1, 2], [1, 0, 1])
    np.testing.assert_allclose(fitted.scores_, fixed.scores_)


def test_after_n_excludes_in_a_row_another_model_ranks_until_an_include(features):
    spec = ModelSpec("safe", "svm", "both", embedding_weight=0.3, switch_after=4, switch_to="svm-tfidf")
    own, other = Ranker("svm-both-w0.3", seed=0), Ranker("svm-tfidf", seed=0)

    def check(rows, labels, like):
        got = Ranker(spec, seed=0).fit(features, rows, labels)
        np.testing.assert_allclose(got.scores_, like.fit(features, rows, labels).scores_)
        return got

    # the decisions in the order made: three excludes at the end, then four
    check([0, 1, 5, 6], [1, 0, 0, 0], own)
    stuck = check([0, 1, 5, 6, 7], [1, 0, 0, 0, 0], other)
    assert stuck.excludes_in_a_row_ == 4 and stuck.name == "safe"
    assert "switch_after=4:svm-tfidf(" in stuck.version
    # an include ends the run: back to the model's own ranking
    check([1, 5, 6, 7, 0], [0, 0, 0, 0, 1], own)
    assert Ranker(spec, seed=0).fit(features, [1, 5, 6, 7, 0], [0, 0, 0, 0, 1]).excludes_in_a_row_ == 0


def test_title_words_weighted_apart():
    titles = ["Honey bees", "Markets", "Wild bees", "Colony losses", "Bumblebees", "Bond markets", "Football", "Bee"]
    f = Features.from_texts(TEXTS, titles=titles)
    assert f.titles.shape[0] == len(TEXTS) and f.words() is f.tfidf
    block = f.words(0.5)
    assert block.shape[1] == f.tfidf.shape[1] + f.titles.shape[1] and f.words(0.5) is block
    np.testing.assert_allclose(block[:, f.tfidf.shape[1]:].toarray(), 0.5 * f.titles.toarray(), atol=1e-6)
    spec = ModelSpec("titles", "svm", "tfidf", title_weight=0.5)
    ranker = Ranker(spec, seed=0).fit(f, [0, 1], [1, 0])
    w, b = ranker.weights_
    np.testing.assert_allclose(ranker.scores_, np.asarray(block @ w).reshape(-1) + b, rtol=1e-5, atol=1e-6)
    assert "title_weight=0.5" in ranker.version
    assert ranker.explain(2).kind == "words"
    with pytest.raises(Exception, match="needs the titles"):
        Ranker(spec, seed=0).fit(Features.from_texts(TEXTS), [0, 1], [1, 0])


def _standardised(scores, undecided):
    u = scores[undecided]
    return (scores - u.mean()) / u.std()


def test_z_fusion_is_the_mean_of_standardised_scores_and_explains_by_words(features):
    spec = ModelSpec("fuse", "fuse", "tfidf", components=("svm-tfidf", "nb-tfidf"), fusion="z")
    fused = Ranker(spec, seed=0).fit(features, [0, 1], [1, 0])
    undecided = np.ones(len(TEXTS), dtype=bool)
    undecided[[0, 1]] = False
    parts = [Ranker(m, seed=0).fit(features, [0, 1], [1, 0]).scores_ for m in ("svm-tfidf", "nb-tfidf")]
    np.testing.assert_allclose(fused.scores_, np.mean([_standardised(p, undecided) for p in parts], axis=0), atol=1e-5)
    # the mean of linear scores is linear: the combined word weights give the same order
    w, _ = fused.weights_
    assert np.argsort(-(features.tfidf @ w)[undecided], kind="stable").tolist() == \
        np.argsort(-fused.scores_[undecided], kind="stable").tolist()
    why = fused.explain(3)
    assert why.kind == "words" and "honey bee" in [t for t, _ in why.items]
    assert fused.version.startswith("fuse(z:svm-tfidf(") and "+nb-tfidf(" in fused.version


def test_reciprocal_rank_fusion_by_hand(features):
    spec = ModelSpec("rrf", "fuse", "tfidf", components=("svm-tfidf", "nb-tfidf"), fusion="rrf")
    fused = Ranker(spec, seed=0).fit(features, [0, 1, 5], [1, 0, 0])
    expected = np.zeros(len(TEXTS))
    for m in ("svm-tfidf", "nb-tfidf"):
        s = Ranker(m, seed=0).fit(features, [0, 1, 5], [1, 0, 0]).scores_
        order = sorted(range(len(s)), key=lambda i: (-s[i], i))  # rank 0 = best, ties by row
        expected += np.array([1 / (60 + order.index(i)) for i in range(len(s))])
    np.testing.assert_allclose(fused.scores_, expected / 2)
    assert fused.ranking()[0] == 2  # the paper most like the include, by both models


@pytest.mark.parametrize("model", ["svm-tfidf", "svm-emb", "svm-both", "svm-both-w0.3", "nb-tfidf"])
def test_scores_are_the_side_by_side_matrix_times_the_weights(features, model):
    # the ranker fits and scores block by block; its (w, b) read against matrix() give its scores
    ranker = Ranker(model, seed=0).fit(features, [0, 1, 3], [1, 0, 1])
    spec, at = ranker.spec_, (ranker.n_includes_, ranker.n_labelled_)
    X = features.matrix(spec.features_at(*at), spec.weight_at(*at), spec.embedding_center, spec.embedding_dims)
    w, b = ranker.weights_
    np.testing.assert_allclose(ranker.scores_, np.asarray(X @ w).reshape(-1) + b, rtol=1e-5, atol=1e-6)


def test_svm_both_titles_ranks_a_paper_titled_like_the_include_higher_exact_order():
    titles = ["Malaria bed nets", "Bond markets", "Village survey", "Malaria bed nets in villages", "Markets",
              "Bed nets", "Football", "Rain"]
    abstracts = ["bed nets cut malaria in villages", "bond market returns", "bed nets and malaria in a village survey",
                 "a village survey of households", "stock market returns", "nets for fishing boats",
                 "football attendance", "rainfall and crops"]
    texts = [f"{t}. {a}" for t, a in zip(titles, abstracts)]
    f = Features.from_texts(texts, embeddings=np.eye(8)[:, :4] + 0.1, titles=titles)
    # with words and embeddings alone, paper 2 (bed nets and malaria in its abstract) comes
    # before paper 5 (fishing nets); with the titles weighed apart, 5's title "Bed nets" lifts it
    assert Ranker("svm-both", seed=0).fit(f, [0, 1], [1, 0]).ranking().tolist() == [3, 2, 5, 6, 7, 4]
    assert Ranker("svm-both-titles", seed=0).fit(f, [0, 1], [1, 0]).ranking().tolist() == [3, 5, 2, 6, 7, 4]


# -- the evidence-weighted fusion ("hedge") -----------------------------------------------------
BEES = ["bee pollination of apple orchards", "wild bee pollination in spring orchards",
        "honey bee pollination and fruit set", "bumble bee pollination of apple flowers",
        "solitary bee pollination services in orchards", "bee visits and pollination of pear orchards"]
OTHER = ["stock market volatility and interest rates", "football match attendance in england",
         "bond market returns after rate rises", "protein folding by molecular dynamics",
         "urban traffic flow and congestion pricing", "deep learning for image segmentation",
         "soil carbon under grassland management", "election turnout and voter age",
         "coral reef bleaching and sea temperature", "battery cathode materials for storage",
         "child language acquisition in bilingual homes", "galaxy rotation curves and dark matter"]


def _bee_review(embeddings_agree: bool) -> Features:
    """Six includes about bee pollination among twelve excludes. The words find the includes;
    the embeddings put the later includes either beside the first (``embeddings_agree``) or
    opposite it, among the excludes."""
    texts = BEES + OTHER
    rng = np.random.default_rng(3)
    axis = np.zeros(8)
    axis[0] = 1.0
    emb = rng.normal(scale=0.2, size=(len(texts), 8))
    emb[0] += axis
    emb[1:6] += axis if embeddings_agree else -axis
    emb[6:] += -axis if embeddings_agree else axis
    return Features.from_texts(texts, embeddings=emb)


HEDGE = ModelSpec("hedge", "fuse", "both", components=("svm-tfidf", "svm-emb"), fusion="hedge")
ORDER, LABELS = [0, 6, 1, 7, 2, 3], [1, 0, 1, 0, 1, 1]  # decisions in the order they were made


def _weights_by_hand(features, spec, order, labels):
    losses = np.zeros(len(spec.components))
    for p in [p for p, y in enumerate(labels) if y == 1][-spec.hedge_window:]:
        rows, y = order[:p], labels[:p]
        if not 0 < sum(y) < p:
            continue
        for m, name in enumerate(spec.components):
            s = Ranker(name, seed=0).fit(features, rows, y).scores_
            queue = sorted((i for i in range(len(s)) if i not in rows), key=lambda i: (-s[i], i))
            losses[m] += np.log1p(queue.index(order[p]))
    w = np.exp(-spec.hedge_rate * (losses - losses.min()))
    return (1 - spec.hedge_share) * w / w.sum() + spec.hedge_share / len(w)


@pytest.mark.parametrize("agree", [False, True])
def test_hedge_weights_move_to_the_member_that_ranked_the_includes_higher(agree):
    features = _bee_review(agree)
    fused = Ranker(HEDGE, seed=0).fit(features, ORDER, LABELS)
    tfidf, emb = fused.member_weights_
    if agree:  # both rank the later includes among the first: little reason to prefer either
        assert abs(tfidf - emb) < 0.1
    else:  # the embeddings ranked the second include last of the 16 papers then open, the words 3rd
        assert tfidf > emb + 0.25
    np.testing.assert_allclose(fused.member_weights_, _weights_by_hand(features, HEDGE, ORDER, LABELS))
    assert fused.member_weights_.sum() == pytest.approx(1.0)
    assert fused.member_weights_.min() >= HEDGE.hedge_share / 2
    assert "hedge=0.5:10:0.1" in fused.version


def test_hedge_weights_are_uniform_before_an_include_is_found_by_a_model():
    fused = Ranker(HEDGE, seed=0).fit(_bee_review(False), [0, 6, 7], [1, 0, 0])  # the prior include only
    np.testing.assert_allclose(fused.member_weights_, [0.5, 0.5])
    rrf = Ranker(ModelSpec("rrf", "fuse", "both", components=HEDGE.components, fusion="rrf"), seed=0)
    np.testing.assert_allclose(fused.scores_, rrf.fit(_bee_review(False), [0, 6, 7], [1, 0, 0]).scores_)


def test_hedge_record_is_the_same_refitted_decision_by_decision_or_at_once():
    features = _bee_review(False)
    stepwise = Ranker(HEDGE, seed=0)
    for k in range(2, len(ORDER) + 1):  # a replay: one decision at a time, the same ranker
        stepwise.fit(features, ORDER[:k], LABELS[:k])
    at_once = Ranker(HEDGE, seed=0).fit(features, ORDER, LABELS)  # a fresh ranker rebuilds the record
    np.testing.assert_array_equal(stepwise.member_weights_, at_once.member_weights_)
    np.testing.assert_array_equal(stepwise.scores_, at_once.scores_)
    # a changed decision is a different history: the record is rebuilt, not reused
    changed = LABELS[:3] + [1] + LABELS[4:]
    np.testing.assert_allclose(stepwise.fit(features, ORDER, changed).member_weights_,
                               _weights_by_hand(features, HEDGE, ORDER, changed))


def test_hedge_fusion_invariants():
    features = _bee_review(False)
    # members that agree fuse to their own order
    same = ModelSpec("same", "fuse", "both", components=("svm-tfidf", "svm-tfidf"), fusion="hedge")
    fused = Ranker(same, seed=0).fit(features, ORDER, LABELS)
    alone = Ranker("svm-tfidf", seed=0).fit(features, ORDER, LABELS)
    np.testing.assert_allclose(fused.member_weights_, [0.5, 0.5])
    assert fused.ranking().tolist() == alone.ranking().tolist()
    # all the weight on the better member (no share, a steep rate): its queue, paper for paper
    steep = ModelSpec("steep", "fuse", "both", components=HEDGE.components, fusion="hedge",
                      hedge_rate=1000.0, hedge_share=0.0)
    fused = Ranker(steep, seed=0).fit(features, ORDER, LABELS)
    np.testing.assert_array_equal(fused.member_weights_, [1.0, 0.0])
    assert fused.ranking().tolist() == alone.ranking().tolist()
    # rate 0: plain reciprocal-rank fusion; the words that explain it are the word-reading member's
    flat = ModelSpec("flat", "fuse", "both", components=HEDGE.components, fusion="hedge", hedge_rate=0.0)
    rrf = ModelSpec("rrf", "fuse", "both", components=HEDGE.components, fusion="rrf")
    fused = Ranker(flat, seed=0).fit(features, ORDER, LABELS)
    np.testing.assert_allclose(fused.scores_, Ranker(rrf, seed=0).fit(features, ORDER, LABELS).scores_)
    np.testing.assert_array_equal(fused.weights_[0], alone.weights_[0])
    assert fused.explain(4).kind == "words"


def test_hedge_members_may_be_specs_with_parameters_of_their_own():
    # a member given as a ModelSpec (its params a dict) fuses as the same member by name
    features = _bee_review(False)
    by_spec = ModelSpec("by-spec", "fuse", "both", components=tuple(MODELS[c] for c in HEDGE.components), fusion="hedge")
    np.testing.assert_array_equal(Ranker(by_spec, seed=0).fit(features, ORDER, LABELS).member_weights_,
                                  Ranker(HEDGE, seed=0).fit(features, ORDER, LABELS).member_weights_)
    # a member with a name of the registry but other parameters is fitted with its own
    harder = ModelSpec("svm-tfidf", "svm", "tfidf", params={"C": 100.0})
    other = ModelSpec("other", "fuse", "both", components=(harder, "svm-emb"), fusion="hedge")
    fitted = Ranker(other, seed=0).fit(features, ORDER, LABELS)
    assert harder.version in fitted.version
    np.testing.assert_allclose(fitted.member_weights_,
                               _weights_by_hand(features, other, ORDER, LABELS))


def test_relevance_feedback_scores_by_hand_and_explains_by_neighbours():
    features = _bee_review(True)
    ranker = Ranker("knn-emb", seed=0).fit(features, [0, 6, 1, 7], [1, 0, 1, 0])
    E = features.embeddings
    expected = np.max(E @ E[[0, 1]].T, axis=1) - np.max(E @ E[[6, 7]].T, axis=1)
    np.testing.assert_allclose(ranker.scores_, expected, atol=1e-6)
    assert set(ranker.ranking()[:4].tolist()) == {2, 3, 4, 5}  # the other includes, beside the first two
    assert ranker.explain(2).kind == "neighbours"
    # as a member of a fusion the words come from the member that reads them
    fused = Ranker(ModelSpec("f", "fuse", "both", components=("knn-emb", "svm-tfidf"), fusion="rrf"), seed=0)
    fused.fit(features, [0, 6, 1, 7], [1, 0, 1, 0])
    np.testing.assert_array_equal(fused.weights_[0], Ranker("svm-tfidf", seed=0).fit(features, [0, 6, 1, 7], [1, 0, 1, 0]).weights_[0])


def test_hedge_record_handed_from_the_previous_fit_gives_the_same_queue():
    # a live queue fits a new Ranker after every decision and hands it the last one
    features = _bee_review(False)
    previous = None
    for k in range(2, len(ORDER) + 1):
        previous = Ranker("svm-hedge", seed=0).fit(features, ORDER[:k], LABELS[:k], previous=previous)
    at_once = Ranker("svm-hedge", seed=0).fit(features, ORDER, LABELS)
    np.testing.assert_array_equal(previous.member_weights_, at_once.member_weights_)
    assert previous.ranking().tolist() == at_once.ranking().tolist()
    # another model's or seed's fit is not read
    other = Ranker("svm-hedge", seed=1).fit(features, ORDER, LABELS, previous=at_once)
    np.testing.assert_array_equal(other.member_weights_, Ranker("svm-hedge", seed=1).fit(features, ORDER, LABELS).member_weights_)


# -- one member drawn per refit, credited for the includes it shows ("exp3") -----------------------
EXP3 = ModelSpec("exp3", "fuse", "both", components=("svm-tfidf", "svm-emb"), fusion="exp3")


def _exp3_by_hand(features, spec, order, labels, seed):
    """EXP3's log-weights after ``order``: at each include found by a model, the member drawn
    then (probabilities from the log-weights so far, the draw seeded by (seed, decisions so far,
    2)) gains rate (by default gamma / K) / its probability if the include was its top undecided paper."""
    k, gamma = len(spec.components), spec.exp3_gamma
    rate = spec.exp3_rate or gamma / k
    log_w = np.zeros(k)
    for p in [p for p, y in enumerate(labels) if y == 1]:
        rows, y = order[:p], labels[:p]
        if not 0 < sum(y) < p:
            continue
        w = np.exp(log_w - log_w.max())
        pi = (1 - gamma) * w / w.sum() + gamma / k
        m = min(int(np.searchsorted(np.cumsum(pi), np.random.default_rng([seed, p, 2]).random() * pi.sum(),
                                    side="right")), k - 1)
        if Ranker(spec.components[m], seed=seed).fit(features, rows, y).next(1)[0] == order[p]:
            log_w[m] += rate / pi[m]
    return log_w


def _follow_the_queue(spec, features, includes, seed, steps):
    """Decisions as a reviewer makes them: the queue's first paper each time, from include 0 and exclude 6."""
    ranker, order, labels = Ranker(spec, seed=seed), [0, 6], [1, 0]
    for _ in range(steps):
        paper = int(ranker.fit(features, order, labels).next(1)[0])
        order.append(paper)
        labels.append(int(paper in includes))
    return ranker.fit(features, order, labels), order, labels


def ranks_of(scores):
    """Each paper's place (0 = first), best first, ties by row index."""
    rank = np.empty(len(scores))
    rank[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
    return rank


def test_exp3_shows_the_drawn_members_top_paper_first_and_fuses_the_rest():
    features = _bee_review(False)
    drawn = set()
    for k in range(2, len(ORDER) + 1):
        fused = Ranker(EXP3, seed=0).fit(features, ORDER[:k], LABELS[:k])
        if fused.mode_ != "ranked":
            continue
        member = Ranker(EXP3.components[fused.drawn_], seed=0).fit(features, ORDER[:k], LABELS[:k])
        assert fused.next(1)[0] == member.next(1)[0]
        # the rest: reciprocal ranks weighed by the probabilities to be drawn
        by_hand = sum(p / (60.0 + ranks_of(Ranker(c, seed=0).fit(features, ORDER[:k], LABELS[:k]).scores_))
                      for p, c in zip(fused.member_weights_, EXP3.components))
        rest = [i for i in np.argsort(-by_hand, kind="stable") if i not in ORDER[:k] and i != member.next(1)[0]]
        assert fused.ranking()[1:].tolist() == rest
        drawn.add(fused.drawn_)
    assert drawn == {0, 1}
    assert fused.member_weights_.sum() == pytest.approx(1.0)
    assert fused.member_weights_.min() >= EXP3.exp3_gamma / 2
    assert "exp3=0.1" in fused.version


def test_exp3_record_is_the_same_refitted_decision_by_decision_at_once_or_handed_on():
    features = _bee_review(False)
    includes = set(range(6))
    stepwise, order, labels = _follow_the_queue(EXP3, features, includes, seed=1, steps=12)
    at_once = Ranker(EXP3, seed=1).fit(features, order, labels)  # a fresh ranker rebuilds the record
    previous = None
    for k in range(2, len(order) + 1):  # a live queue: a new ranker per decision, handed the last
        previous = Ranker(EXP3, seed=1).fit(features, order[:k], labels[:k], previous=previous)
    for other in (at_once, previous):
        np.testing.assert_array_equal(stepwise.member_weights_, other.member_weights_)
        assert stepwise.drawn_ == other.drawn_
        assert stepwise.ranking().tolist() == other.ranking().tolist()
    log_w = _exp3_by_hand(features, EXP3, order, labels, seed=1)
    w = np.exp(log_w - log_w.max())
    np.testing.assert_allclose(stepwise.member_weights_, 0.9 * w / w.sum() + 0.05)
    # a changed decision is a different history: the record is rebuilt, not reused
    changed = labels[:3] + [1 - labels[3]] + labels[4:]
    log_w = _exp3_by_hand(features, EXP3, order, changed, seed=1)
    w = np.exp(log_w - log_w.max())
    np.testing.assert_allclose(stepwise.fit(features, order, changed).member_weights_, 0.9 * w / w.sum() + 0.05)
    # a rate of its own in place of gamma / K
    fast = ModelSpec("fast", "fuse", "both", components=EXP3.components, fusion="exp3", exp3_rate=1.0)
    log_w = _exp3_by_hand(features, fast, order, labels, seed=1)
    w = np.exp(log_w - log_w.max())
    np.testing.assert_allclose(Ranker(fast, seed=1).fit(features, order, labels).member_weights_, 0.9 * w / w.sum() + 0.05)
    assert "exp3=0.1:1.0" in Ranker(fast, seed=1).fit(features, order, labels).version


def _words_know_embeddings_do_not(seed=4) -> Features:
    """Twelve includes about bee pollination among 48 excludes on other topics; the embeddings
    are noise, unrelated to either."""
    rng = np.random.default_rng(seed)
    texts = [f"{BEES[i % len(BEES)]} {OTHER[i % len(OTHER)].split()[-1]}" for i in range(12)]
    texts += [f"{OTHER[i % len(OTHER)]} {OTHER[(i * 5 + 1) % len(OTHER)]}" for i in range(48)]
    return Features.from_texts(texts, embeddings=rng.normal(size=(len(texts), 8)))


def test_exp3_weights_move_to_the_member_whose_draws_find_includes():
    features = _words_know_embeddings_do_not()
    for seed in range(6):  # (gamma 0.1: an include shown by a member drawn at even odds adds 0.1)
        fused, order, labels = _follow_the_queue(EXP3, features, set(range(12)), seed=seed, steps=20)
        words, meanings = _exp3_by_hand(features, EXP3, order, labels, seed)
        assert words > meanings + 0.25
        assert fused.member_weights_[0] > fused.member_weights_[1] + 0.1

"""The ranker's SVM is LinearSVC's objective at its minimum, however the refits come."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from workbench.screening import Features, Kernels, ModelSpec, Ranker

WORDS = ("bee pollen honey hive orchard apple bloom wild colony queen nectar flower market stock bond "
         "rate price trade bank loan credit football match goal league season cell gene protein").split()


@pytest.fixture(scope="module")
def review():
    rng = np.random.default_rng(4)
    texts = [" ".join(rng.choice(WORDS[:12] if i % 3 == 0 else WORDS, size=int(rng.integers(4, 12))))
             for i in range(120)]
    labels = np.array([1 if i % 3 == 0 and i % 2 == 0 else 0 for i in range(120)])
    embeddings = rng.normal(size=(120, 16)) + labels[:, None] * 0.8
    return texts, labels, embeddings


def balanced(y, ratio=9.8):
    n1, n0 = (y == 1).sum(), (y == 0).sum()
    w = np.where(y == 1, 1.0, n1 / (ratio * n0))
    return w * (len(y) / w.sum())


def liblinear_scores(X, rows, y, C):
    """LinearSVC on the same rows and weights, run to a tolerance far below the gaps tested."""
    clf = LinearSVC(C=C, loss="squared_hinge", dual=True, tol=1e-8, max_iter=100_000, random_state=0)
    clf.fit(X[rows], y, sample_weight=balanced(y))
    return clf.decision_function(X)


@pytest.mark.parametrize("model, C", [("svm-tfidf", 0.11), ("svm-both", 0.11), ("svm-emb", 0.11),
                                      (ModelSpec("svm-emb-c20", "svm", "emb", params={"C": 20.0}), 20.0)])
def test_the_scores_are_linearsvcs_at_its_minimum(review, model, C):
    # C=20 leaves several papers beyond the margin: the active set changes before it settles
    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    rows = np.arange(0, 120, 2)[:45]
    ranker = Ranker(model, seed=0).fit(features, rows, labels[rows])
    kind = ranker.spec_.features_at(ranker.n_includes_, ranker.n_labelled_)
    X = features.matrix(kind, ranker.spec_.weight_at(ranker.n_includes_, ranker.n_labelled_))
    expected = liblinear_scores(X, rows, labels[rows], C)
    np.testing.assert_allclose(ranker.scores_, expected, atol=1e-6)
    beyond = (np.where(labels[rows] == 1, 1, -1) * ranker.scores_[rows] > 1).sum()
    assert beyond > 0 or C < 1  # at C=20 the active set leaves papers out before it settles
    assert ranker.next(5).tolist() == [int(r) for r in np.argsort(-expected, kind="stable") if r not in set(rows)][:5]


def test_refits_that_keep_the_products_give_a_fresh_rankers_scores(review):
    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    order = list(np.random.default_rng(1).permutation(120)[:60])
    order = [r for r in order if labels[r] == 1][:1] + [r for r in order if labels[r] == 0][:1] + order
    order = list(dict.fromkeys(order))
    kept = Ranker("svm-both", seed=0)
    for k in range(2, 60, 7):
        rows = order[:k]
        if labels[rows].min() == labels[rows].max():
            continue
        fresh = Ranker("svm-both", seed=0).fit(features, rows, labels[rows])
        np.testing.assert_allclose(kept.fit(features, rows, labels[rows]).scores_, fresh.scores_, atol=1e-9)
    # a decision taken back, and the rows in another order: the products kept still serve
    rows = order[:20][::-1][1:]
    fresh = Ranker("svm-both", seed=0).fit(features, rows, labels[rows])
    np.testing.assert_allclose(kept.fit(features, rows, labels[rows]).scores_, fresh.scores_, atol=1e-9)
    # other Features (another review): nothing is carried over
    other = Features.from_texts(texts[::-1], embeddings=embeddings[::-1])
    fresh = Ranker("svm-both", seed=0).fit(other, rows, labels[::-1][rows])
    np.testing.assert_array_equal(kept.fit(other, rows, labels[::-1][rows]).scores_, fresh.scores_)


def test_another_loss_is_fitted_by_liblinear(review):
    texts, labels, _ = review
    features = Features.from_texts(texts)
    rows = np.arange(40)
    spec = ModelSpec("svm-hinge", "svm", "tfidf", params={"loss": "hinge"})
    ranker = Ranker(spec, seed=0).fit(features, rows, labels[rows])
    assert isinstance(ranker.model_, LinearSVC) and ranker.model_.loss == "hinge"


def test_rankers_handed_the_same_kernels_give_a_fresh_rankers_scores(review):
    # the live queue fits a new ranker per decision, each handed the review's Kernels
    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    kernels = Kernels()
    rows = [0, 1]
    for row in range(2, 40):
        rows.append(row)
        shared = Ranker("svm-both", seed=0, kernels=kernels).fit(features, rows, labels[rows])
        fresh = Ranker("svm-both", seed=0).fit(features, rows, labels[rows])
        np.testing.assert_allclose(shared.scores_, fresh.scores_, atol=1e-9)
    earlier = Ranker("svm-both", seed=0, kernels=kernels).fit(features, rows[:10], labels[rows[:10]])
    np.testing.assert_allclose(earlier.scores_, Ranker("svm-both", seed=0).fit(features, rows[:10], labels[rows[:10]]).scores_,
                               atol=1e-9)


def test_the_kept_factor_solves_as_an_outright_factorisation_while_the_class_weights_move(review):
    # A replay's refits: one row more each time, the balanced weights (the diagonal) moving with
    # every decision; the kept factor grows and preconditions conjugate gradients, and each
    # solve is the one a fresh Cholesky factorisation gives.
    from scipy.linalg import cho_factor, cho_solve

    from workbench.screening._svm import Factor, Gram

    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    gram = Gram([(features.tfidf, 1.0), (embeddings.astype(np.float32), 0.3**2)], constant=1.0)
    order = [0, 1] + [r for r in np.random.default_rng(2).permutation(120) if r > 1]
    factor, paths = Factor(), []
    for k in range(2, 100):
        rows = order[:k]
        y = labels[rows]
        K = gram.kernel(rows)
        d = 0.5 / (0.11 * balanced(y))
        b = np.where(y == 1, 1.0, -1.0)
        A = np.array(K)
        A[np.diag_indices(k)] += d
        expected = cho_solve(cho_factor(A), b)
        np.testing.assert_allclose(factor.solve(K, d, b), expected, rtol=1e-10, atol=1e-12)
        paths.append(factor.iterations)
    assert sum(i > 0 for i in paths) > 50  # most refits by conjugate gradients on the kept factor
    assert 0 < paths.count(-1) <= 20  # the first solve, then a fresh factorisation now and then when it has drifted
    # a solve over fewer rows (an earlier state of the decisions) reads the factor's start
    y = labels[order[:40]]
    K = gram.kernel(order[:40])
    A = np.array(K)
    A[np.diag_indices(40)] += 0.5 / (0.11 * balanced(y))
    np.testing.assert_allclose(factor.solve(K, 0.5 / (0.11 * balanced(y)), np.where(y == 1, 1.0, -1.0)),
                               np.linalg.solve(A, np.where(y == 1, 1.0, -1.0)), rtol=1e-10, atol=1e-12)


def test_refits_on_the_kept_factor_are_linearsvcs_minimum_and_a_moved_active_set_is_solved_outright(review):
    # svm-both at C=0.11 keeps every paper inside the margin; at C=20 papers leave the active
    # set, which the kept factor (over every row) cannot solve: those rounds factorise afresh
    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    order = [0, 1] + [r for r in np.random.default_rng(3).permutation(120) if r > 1]
    for model, C in [("svm-both", 0.11), (ModelSpec("svm-emb-c20", "svm", "emb", params={"C": 20.0}), 20.0)]:
        kept, moved = Ranker(model, seed=0), 0
        for k in range(2, 90):
            rows = order[:k]
            y = labels[rows]
            if y.min() == y.max():
                continue
            scores = kept.fit(features, rows, y).scores_
            if k % 11 == 0:
                kind = kept.spec_.features_at(kept.n_includes_, kept.n_labelled_)
                X = features.matrix(kind, kept.spec_.weight_at(kept.n_includes_, kept.n_labelled_))
                np.testing.assert_allclose(scores, liblinear_scores(X, rows, y, C), atol=1e-6)
            np.testing.assert_allclose(scores, Ranker(model, seed=0).fit(features, rows, y).scores_, atol=1e-9)
            moved += int((np.where(y == 1, 1, -1) * scores[rows] > 1).any())
        assert (moved > 0) == (C > 1)


def test_a_changed_decision_on_the_same_rows_gives_a_fresh_rankers_scores(review):
    # the live queue: a paper's exclude turned into an include moves its diagonal far from the
    # kept factor's; the solve still ends at the minimum
    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    kernels = Kernels()
    rows = list(range(50))
    y = labels[rows].copy()
    for _ in range(2):
        Ranker("svm-both", seed=0, kernels=kernels).fit(features, rows, y)
        y[np.flatnonzero(y == 0)[3]] = 1
        shared = Ranker("svm-both", seed=0, kernels=kernels).fit(features, rows, y)
        np.testing.assert_allclose(shared.scores_, Ranker("svm-both", seed=0).fit(features, rows, y).scores_, atol=1e-9)


def test_a_decision_taken_back_keeps_the_rows_decided_since_and_the_factor_serves_again(review):
    # the live queue: a decision taken back (the paper leaves the fitted rows) or changed (it
    # moves to the end, as the latest); the kept kernel is cut to the rows fitted, so the
    # refits after it grow the kept factor again instead of factorising afresh every time
    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    kernels = Kernels()
    rows = list(range(40))
    sequence = [rows, rows[:10] + rows[11:], rows[:10] + rows[11:] + [10], rows[:10] + rows[11:] + [10, 40],
                rows[:10] + rows[11:] + [10, 40, 41]]
    paths = []
    for fitted in sequence:
        y = labels[fitted]
        shared = Ranker("svm-both", seed=0, kernels=kernels).fit(features, fitted, y)
        np.testing.assert_allclose(shared.scores_, Ranker("svm-both", seed=0).fit(features, fitted, y).scores_, atol=1e-9)
        (gram,) = kernels._grams.values()
        assert list(gram.rows) == list(fitted)  # exactly the rows fitted, in their order
        paths.append(gram.factor.iterations)
    assert paths[1] == -1  # cut to the rows fitted: factorised afresh
    assert any(i >= 0 for i in paths[2:])  # and grown again after it (conjugate gradients on the kept factor)


def test_presumed_excludes_drawn_afresh_do_not_grow_the_kept_kernel(review):
    texts, labels, embeddings = review
    features = Features.from_texts(texts, embeddings=embeddings)
    kernels = Kernels()
    for k in range(4, 30):
        rows = list(range(k))
        Ranker("svm-tfidf-pn", seed=0, kernels=kernels).fit(features, rows, labels[rows])
        (gram,) = kernels._grams.values()
        assert len(gram.rows) <= k + 100

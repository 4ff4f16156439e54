"""Stopping: the estimate of what is left and the rules, against values worked out by hand."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from workbench.errors import InputError
from workbench.screening import (
    ScreeningHistory, estimate_remaining, hypergeometric_test, irrelevant_in_a_row, min_ranked_p,
    ranked_p_values, stopping_advice
)


def hypergeom_cdf(k, N, K, n):
    """P(X <= k) drawing n of N papers of which K are relevant, from the definition."""
    return sum(comb(K, x) * comb(N - K, n - x) for x in range(k + 1)) / comb(N, n)


def test_estimate_from_a_random_sample_of_two_with_no_include():
    # 3 papers read in ranked order, then 2 drawn at random from the 7 - wait: the urn is
    # every paper unread when the sample began: 5 of them; the sample finds no include.
    h = ScreeningHistory([1, 0, 0, 0, 0], n_total=8, sampled=[False, False, False, True, True])
    est = estimate_remaining(h)
    # P(no include in 2 of 5 | K): K=3 -> C(2,2)/C(5,2) = 1/10 > 0.025; K=4 -> 0.
    # So K lies in 0..3, and none was found in the sample: 0 to 3 left, point estimate 0.
    assert (est.point, est.low, est.high) == (0.0, 0, 3)
    assert est.numbers["urn"] == 5 and "random sample of 2" in est.method


def test_estimate_from_a_random_sample_of_five_with_one_include():
    h = ScreeningHistory([0, 1, 0, 0, 0], n_total=10, sampled=[True] * 5)
    est = estimate_remaining(h)
    # urn 10, sample 5, 1 include. Lower end: P(X >= 1 | K=1) = 1 - C(9,5)/C(10,5) = 0.5 > 0.025,
    # so K >= 1. Upper end: P(X <= 1 | K=5) = (1 + 5*5)/252 = 0.103 > 0.025;
    # P(X <= 1 | K=6) = (0 + 6*1)/252 = 0.024 < 0.025. So K in 1..5: 0..4 left besides the one
    # found; point estimate 1 * (10 - 5) / 5 = 1.
    assert (est.point, est.low, est.high) == (1.0, 0, 4)
    assert hypergeom_cdf(1, 10, 6, 5) < 0.025 < hypergeom_cdf(1, 10, 5, 5)


def test_estimate_without_a_sample_uses_the_last_ranked_decisions_and_says_so():
    h = ScreeningHistory([1, 1, 0, 1] + [0] * 6, n_total=20)
    est = estimate_remaining(h, window=6)
    assert est.numbers == {"sample": 6, "sample_includes": 0, "urn": 16, "unread": 10, "bulk": 0}
    assert est.point == 0 and est.low == 0 and "upper estimate" in est.method
    # the largest K with P(no include in 6 of 16 | K) > 0.025
    assert hypergeom_cdf(0, 16, est.high, 6) > 0.025 >= hypergeom_cdf(0, 16, est.high + 1, 6)


def test_ranked_p_values_by_hand():
    read = np.array([1, 1, 0, 1, 0, 0, 0, 0, 0, 0])  # 10 of 20 papers read, 3 includes
    p = ranked_p_values(read, n_unread=10, target=0.9)
    # last 1 paper as the sample: k=0, 3 includes before it; recall < 90 % needs a total of at
    # least floor(3/0.9)+1 = 4, so the urn (10 unread + 1) holds at least 1: P(X=0) = 10/11
    assert p[0] == pytest.approx(10 / 11)
    # last 6 papers: k=0, urn 16 holding at least 1: P(X=0) = C(15,6)/C(16,6) = 10/16
    assert p[5] == pytest.approx(0.625)
    # last 7 papers: they hold one include (paper 3); 2 before; urn 17 holding >= 4 - 2 = 2
    assert p[6] == pytest.approx(hypergeom_cdf(1, 17, 2, 7))


def test_the_shortcut_finds_the_same_smallest_p_as_every_window():
    rng = np.random.default_rng(0)
    for _ in range(200):
        t = int(rng.integers(1, 120))
        read = (rng.random(t) < rng.uniform(0.02, 0.4)).astype(int)
        unread = int(rng.integers(0, 300))
        target = float(rng.choice([0.8, 0.9, 0.95]))
        assert min_ranked_p(read, unread, target) == pytest.approx(ranked_p_values(read, unread, target).min(), abs=1e-12)


def test_the_test_with_a_random_sample_by_hand():
    # 50 of 100 papers read in ranked order (9 includes), then 30 of the other 50 drawn at
    # random: none relevant. Recall < 90 % would need >= floor(9/0.9)+1 = 11 includes in all,
    # i.e. >= 2 among the 50 unread: P(0 in 30 | 50, 2) = (20*19)/(50*49) = 0.1551.
    labels = [1] * 9 + [0] * 41 + [0] * 30
    h = ScreeningHistory(labels, n_total=100, sampled=[False] * 50 + [True] * 30)
    advice = hypergeometric_test(h, target=0.9, confidence=0.95)
    assert advice.numbers["p"] == pytest.approx(380 / 2450)
    assert advice.numbers["k_target"] == 2 and advice.numbers["urn"] == 50
    assert not advice.stop
    assert advice.claim.startswith("recall >= 90 % cannot yet be claimed with 95 % confidence")


def test_enough_excludes_in_ranked_order_support_the_claim():
    # 20 includes, then 780 excludes in ranked order; 200 of 1000 papers unread. Recall < 95 %
    # needs floor(20/0.95)+1 = 22 includes, so 2 among the last 780 read and the 200 unread:
    # finding none in those 780 has p = (200*199)/(980*979) = 0.0415 < 0.05.
    h = ScreeningHistory([1] * 20 + [0] * 780, n_total=1000)
    advice = hypergeometric_test(h)
    assert advice.numbers["sample"] == 780 and advice.numbers["p"] == pytest.approx(200 * 199 / (980 * 979))
    # with 380 excludes read and 600 unread the same test is far from it: (600*599)/(980*979)
    early = hypergeometric_test(ScreeningHistory([1] * 20 + [0] * 380, n_total=1000))
    assert not early.stop and early.numbers["p"] == pytest.approx(600 * 599 / (980 * 979))
    assert advice.stop
    assert advice.claim.startswith("recall >= 95 % with 95 % confidence (hypergeometric test, p = ")
    n, urn, K = advice.numbers["sample"], advice.numbers["urn"], advice.numbers["k_target"]
    # the chosen window: the last n papers, no include among them, urn = 600 unread + n,
    # recall < 95 % needs floor(20/0.95)+1 = 22 includes, i.e. K = 2 in the urn
    assert (urn, K, advice.numbers["sample_includes"]) == (200 + n, 2, 0)
    assert advice.numbers["p"] == pytest.approx(hypergeom_cdf(0, urn, 2, n)) and advice.numbers["p"] < 0.05
    assert "Callaghan" in advice.rule


def test_bulk_decisions_are_left_out_of_the_counts_and_named():
    labels = [1] * 20 + [0] * 380 + [0] * 50
    bulk = [False] * 400 + [True] * 50  # 50 excluded from the map without reading
    h = ScreeningHistory(labels, n_total=1000, bulk=bulk)
    advice = hypergeometric_test(h)
    assert advice.numbers["read"] == 400 and advice.numbers["unread"] == 600 and advice.numbers["bulk"] == 50
    # the 50 bulk excludes are no evidence: the same p as if they were not decided at all
    plain = hypergeometric_test(ScreeningHistory(labels[:400], n_total=1000))
    assert advice.numbers["p"] == plain.numbers["p"]
    assert "50 papers decided in bulk count as unread" in advice.claim
    row = irrelevant_in_a_row(h, 100)
    assert row.numbers["streak"] == 380 and "50 bulk decisions not counted" in row.claim


def test_n_irrelevant_in_a_row():
    h = ScreeningHistory([1, 0, 0, 1] + [0] * 99, n_total=500)
    assert irrelevant_in_a_row(h, 100).stop is False
    assert irrelevant_in_a_row(h, 99).stop is True
    assert irrelevant_in_a_row(h, 100).numbers["streak"] == 99
    assert "no statistical claim" in irrelevant_in_a_row(h, 100).claim


def test_advice_lists_the_statistical_rule_first_and_serialises():
    advice = stopping_advice(ScreeningHistory([1, 0, 0], n_total=10))
    assert [a.rule.split()[0] for a in advice] == ["Callaghan", "100"]
    assert advice[0].to_dict()["numbers"]["read"] == 3


def test_bad_histories_say_what_was_wrong():
    with pytest.raises(InputError, match="0 or 1"):
        ScreeningHistory([1, 2], n_total=5)
    with pytest.raises(InputError, match="bulk has 1 entries for 2"):
        ScreeningHistory([1, 0], n_total=5, bulk=[True])
    with pytest.raises(InputError, match="n_total=1"):
        ScreeningHistory([1, 0], n_total=1)
    with pytest.raises(InputError, match="must be the last"):
        ScreeningHistory([1, 0, 0], n_total=5, sampled=[False, True, False])
    with pytest.raises(InputError, match="strictly between"):
        hypergeometric_test(ScreeningHistory([1, 0], n_total=5), target=1.0)


def _every_window(read, n_unread, target):
    """(n, p) of the smallest p over every window of the last papers read, the first of equals."""
    ps = ranked_p_values(read, n_unread, target)
    return int(np.argmin(ps)) + 1, ps[int(np.argmin(ps))]


def _every_k(k, urn, n, confidence):
    """The interval's ends tried at every possible number of includes in the urn."""
    from scipy.stats import hypergeom

    alpha = 1 - confidence
    K = np.arange(k, urn - (n - k) + 1)
    lower_ok = hypergeom.sf(k - 1, urn, K, n) > alpha / 2
    upper_ok = hypergeom.cdf(k, urn, K, n) > alpha / 2
    return int(K[lower_ok].min()) - k, int(K[upper_ok].max()) - k


def _histories(rng, count):
    for case in range(count):
        t = int(rng.integers(1, 400))
        labels = (rng.random(t) < rng.uniform(0.0, 0.5) * rng.random()).astype(int)
        if case % 5 == 0:  # a long run of excludes at the end, as late in a review
            labels[t // 3:] = 0
        if case % 11 == 0:
            labels[:] = 1
        unread = int(rng.integers(0, 3000)) if case % 4 else int(rng.integers(0, 20))
        sampled = None
        if case % 3 == 0:  # the last decisions a random sample
            sampled = np.zeros(t, dtype=bool)
            sampled[int(rng.integers(0, t)):] = True
        yield ScreeningHistory(labels, n_total=t + unread, sampled=sampled), float(rng.choice([0.8, 0.9, 0.95]))


def test_the_fast_test_and_estimate_equal_the_computation_over_every_window_and_every_k():
    """The test reads one window per include and the interval is found by bisection: the same
    claim and p (to the bit), window and interval as trying every window and every K."""
    rng = np.random.default_rng(45)
    for h, target in _histories(rng, 200):
        advice = hypergeometric_test(h, target=target)
        est = estimate_remaining(h)
        read, sampled = h.read, h.sampled[~h.bulk]
        if not sampled.any() and len(read):
            n, p = _every_window(read, h.n_unread, target)
            assert (advice.numbers["sample"], advice.numbers["p"]) == (n, p)
            assert advice.numbers["sample_includes"] == int(read[-n:].sum())
        if est.numbers.get("sample"):
            numbers = est.numbers
            assert (est.low, est.high) == _every_k(numbers["sample_includes"], numbers["urn"], numbers["sample"], 0.95)
    # a larger review's first decisions
    est = estimate_remaining(ScreeningHistory([1, 0] + [0] * 30, n_total=10_000))
    assert (est.low, est.high) == _every_k(1, 10_000, 32, 0.95) and est.numbers["urn"] == 10_000

"""Agreement statistics against scikit-learn and values worked by hand."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from sklearn.metrics import cohen_kappa_score

from workbench.errors import InputError
from workbench.team import agreement, cohen_kappa, gwet_ac1, nominal_alpha, raw_agreement


def rows_from_table(cells: dict[tuple[str, str], int], first="ana", second="ben") -> list[tuple]:
    """Decision rows for two reviewers from a contingency table {(first's, second's): papers}."""
    rows, n = [], 0
    for (a, b), count in cells.items():
        for _ in range(count):
            n += 1
            rows += [(f"p{n}", first, a), (f"p{n}", second, b)]
    return rows


# ana's decisions in rows, ben's in columns; 10 papers in the overlap.
THREE_WAY = {("include", "include"): 2, ("include", "exclude"): 1, ("exclude", "exclude"): 5,
             ("exclude", "maybe"): 1, ("maybe", "maybe"): 1}


def test_three_categories_by_hand():
    report = agreement(rows_from_table(THREE_WAY))
    (pair,) = report.pairs
    assert (pair.first, pair.second, pair.overlap) == ("ana", "ben", 10)
    observed = Fraction(2 + 5 + 1, 10)
    # margins: ana include 3, exclude 6, maybe 1; ben include 2, exclude 6, maybe 2
    kappa_chance = Fraction(3 * 2 + 6 * 6 + 1 * 2, 100)
    assert pair.raw.value == pytest.approx(float(observed))
    assert pair.kappa.value == pytest.approx(float((observed - kappa_chance) / (1 - kappa_chance)))
    # Gwet: pi = mean shares (5/20, 12/20, 3/20); chance = sum pi(1-pi) / (q-1), q = 3
    pis = [Fraction(5, 20), Fraction(12, 20), Fraction(3, 20)]
    ac1_chance = sum(p * (1 - p) for p in pis) / 2
    assert pair.ac1.value == pytest.approx(float((observed - ac1_chance) / (1 - ac1_chance)))
    assert pair.table == ((2, 1, 0), (0, 5, 1), (0, 0, 1))
    assert str(pair).startswith("ana vs ben: 10 papers screened by both; raw agreement 0.80, Cohen's kappa 0.64")


def test_kappa_equals_scikit_learn_on_random_decisions():
    rng = random.Random(17)
    choices = ("include", "exclude", "maybe")
    for _ in range(20):
        n = rng.randint(10, 60)
        a = [rng.choices(choices, weights=(1, 6, 1))[0] for _ in range(n)] + list(choices)
        b = [x if rng.random() < 0.7 else rng.choice(choices) for x in a[:n]] + list(choices)
        assert cohen_kappa(a, b).value == pytest.approx(cohen_kappa_score(a, b, labels=list(choices)))


def test_rare_includes_kappa_low_ac1_high_two_point_scale():
    # 100 papers, both include 1, each includes 2 the other excludes, both exclude 95
    a = ["include"] * 3 + ["exclude"] * 97
    b = ["include", "exclude", "exclude", "include", "include"] + ["exclude"] * 95
    scale = ("include", "exclude")
    observed = Fraction(96, 100)
    kappa_chance = Fraction(3 * 3 + 97 * 97, 100 * 100)
    ac1_chance = 2 * Fraction(3, 100) * Fraction(97, 100) / (2 - 1)
    assert cohen_kappa(a, b, scale).value == pytest.approx(float((observed - kappa_chance) / (1 - kappa_chance)))
    assert cohen_kappa(a, b, scale).value == pytest.approx(cohen_kappa_score(a, b))
    assert gwet_ac1(a, b, scale).value == pytest.approx(float((observed - ac1_chance) / (1 - ac1_chance)))
    assert gwet_ac1(a, b, scale).value > 0.9 and cohen_kappa(a, b, scale).value < 0.4


def test_krippendorff_nominal_example_with_missing_values():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: four observers,
    # twelve units, missing values; nominal alpha = 0.743. None = not coded.
    coders = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
        [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
    ]
    units = {u: [c[u] for c in coders if c[u] is not None] for u in range(12)}
    assert nominal_alpha(units).value == pytest.approx(0.743, abs=5e-4)


def test_krippendorff_binary_two_coders():
    # Krippendorff (2011), section A: two observers, ten units, binary data; alpha = 0.095.
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert nominal_alpha({u: [a[u], b[u]] for u in range(10)}).value == pytest.approx(0.095, abs=5e-4)


def test_alpha_across_three_reviewers_with_partial_overlap_by_hand():
    rows = [("p1", "ana", "include"), ("p1", "ben", "include"), ("p1", "cy", "exclude"),
            ("p2", "ana", "exclude"), ("p2", "cy", "exclude"),
            ("p3", "ben", "maybe"), ("p3", "cy", "exclude"),
            ("p4", "ana", "include")]  # p4 has one decision: not pairable
    report = agreement(rows)
    # pairable values: include 2, exclude 4, maybe 1 -> n = 7
    # disagreement per unit: p1 (9 - 5)/2 = 2, p2 0, p3 (4 - 2)/1 = 2
    n, disagree, expected = 7, 2 + 0 + 2, 7 * 7 - (2 * 2 + 4 * 4 + 1)
    assert report.alpha.value == pytest.approx(1 - (n - 1) * disagree / expected)
    assert report.reviewers == ("ana", "ben", "cy") and report.papers == 4
    assert [(p.first, p.second, p.overlap) for p in report.pairs] == [("ana", "ben", 1), ("ana", "cy", 2),
                                                                     ("ben", "cy", 2)]
    lines = report.lines()
    assert len(lines) == 4 and lines[-1].startswith("all 3 reviewers: Krippendorff's alpha ")


def test_maybe_is_its_own_category():
    rows = rows_from_table({("include", "maybe"): 3, ("exclude", "exclude"): 3})
    (pair,) = agreement(rows).pairs
    assert pair.raw.value == pytest.approx(0.5)


def test_degenerate_cases_are_nan_with_a_reason():
    only_include = agreement(rows_from_table({("include", "include"): 4}))
    (pair,) = only_include.pairs
    assert math.isnan(pair.kappa.value) and "no variation" in pair.kappa.reason
    assert "n/a (both reviewers decided 'include' on all 4 papers" in str(pair.kappa)
    assert pair.raw.value == 1.0 and pair.ac1.value == 1.0
    assert math.isnan(only_include.alpha.value) and "every decision is 'include'" in only_include.alpha.reason

    apart = agreement([("p1", "ana", "include"), ("p2", "ben", "exclude")])
    (pair,) = apart.pairs
    assert pair.overlap == 0
    assert all(math.isnan(s.value) and s.reason == "no papers screened by both" for s in pair.statistics())
    assert math.isnan(apart.alpha.value) and "two reviewers" in apart.alpha.reason

    alone = agreement([("p1", "ana", "include")])
    assert alone.pairs == () and "needs two reviewers" in alone.lines()[0]
    assert math.isnan(raw_agreement([], []).value)


def test_frame_has_a_row_per_pair():
    frame = agreement(rows_from_table(THREE_WAY) + [("p1", "cy", "include")]).to_frame()
    assert list(frame["first"] + "-" + frame["second"]) == ["ana-ben", "ana-cy", "ben-cy"]
    assert frame.loc[1, "overlap"] == 1 and math.isnan(frame.loc[1, "Cohen's kappa"])
    assert "no variation" in frame.loc[1, "why undefined"]


@pytest.mark.parametrize("rows, message", [
    ([("p1", "ana", "yes")], "decision 'yes' is not one of include, exclude, maybe"),
    ([("p1", "", "include")], "reviewer must be named"),
    ([("p1", "ana", "include"), ("p1", "ana", "exclude")], "ana decided paper p1 twice (rows 1 and 2)"),
    ([("p1", "ana")], "expected (paper, reviewer, decision"),
])
def test_bad_rows_are_named(rows, message):
    with pytest.raises(InputError, match=None) as info:
        agreement(rows)
    assert message in str(info.value)


def test_rows_as_mappings_and_objects():
    class Decision:  # the store's Decision has these attributes
        def __init__(self, paper_id, reviewer, decision):
            self.paper_id, self.reviewer, self.decision = paper_id, reviewer, decision

    rows = [{"paper": "p1", "reviewer": "ana", "decision": "include"}, Decision("p1", "ben", "include"),
            {"paper_id": "p2", "reviewer": "ana", "decision": "exclude"}, Decision("p2", "ben", "maybe")]
    (pair,) = agreement(rows).pairs
    assert pair.overlap == 2 and pair.raw.value == 0.5


def test_a_maybe_on_a_two_point_scale_is_an_error():
    with pytest.raises(InputError, match="'maybe' is not one of include, exclude"):
        agreement([("p1", "ana", "maybe")], categories=("include", "exclude"))
    with pytest.raises(InputError, match="not in the scale"):
        cohen_kappa(["maybe"], ["include"], ("include", "exclude"))

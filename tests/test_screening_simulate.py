"""Simulation: metrics by hand, the replay on a tiny review, the JSON and table shapes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from workbench.errors import InputError
from workbench.screening import Features, asreview_priors, atd, recall_at, simulate, stopping_points, wss

# Two kinds of paper: about bees (the includes) and about markets.
BEES = ["honey bee pollination of apple orchards", "wild bee pollination in spring orchards",
        "bee colony losses and pollination", "pollination of apple blossoms by honey bees",
        "bumblebee and honey bee foraging on orchards"]
OTHER = ["stock market volatility", "interest rates and bond returns", "market returns in spring",
         "football attendance in england", "bond market liquidity", "honey prices on the commodity market",
         "exchange rates and interest", "orchard land prices in the market", "volatility of returns",
         "the interest of football fans"]
TEXTS = BEES + OTHER
LABELS = np.array([1] * 5 + [0] * 10)


def test_metrics_by_hand():
    found = [1, 0, 1, 0, 0, 0, 0, 0, 0, 0]  # 10 papers after the priors, 2 includes
    assert recall_at(found, 0.10) == 0.5  # after 1 paper
    assert recall_at(found, 0.25) == 0.5  # after floor(2.5) = 2 papers
    assert recall_at(found, 0.30) == 1.0
    assert atd(found) == 2.0  # found at positions 1 and 3
    # WSS@95: 95 % of 2 includes is the 1st (insights slices at k/2 <= 0.95); found at index 0
    # here; a random reader's curve round(linspace(0, 2, 10)) = 0,0,0,1,... reaches 1 at index 3:
    # (3 - 0) / 10 = 0.3
    assert wss(found, 0.95) == pytest.approx(0.3)
    # one include, found last: a random reader's curve round(linspace(0, 1, 10)) reaches it at
    # index 5, this order at index 9: (5 - 9) / 10
    assert wss([0] * 9 + [1], 0.95) == pytest.approx(-0.4)
    with pytest.raises(ValueError, match="at least one"):
        atd([0, 0, 0])


def test_priors_are_drawn_as_asreview_draws_them():
    inc, exc = np.flatnonzero(LABELS == 1), np.flatnonzero(LABELS == 0)
    assert asreview_priors(LABELS, 3) == (int(np.random.RandomState(3).choice(inc, 1, replace=False)[0]),
                                          int(np.random.RandomState(3).choice(exc, 1, replace=False)[0]))


def test_priors_match_asreview_on_a_synergy_review(shared_data):
    import pandas as pd

    df = pd.read_csv(shared_data / "corpora" / "synergy" / "synergy_v1_flat.csv")
    labels = df[df.dataset == "Donners_2021"]["label_included"].to_numpy()
    # what `asreview simulate --n-prior-included 1 --n-prior-excluded 1 --prior-seed 1` (2.2)
    # started from on this file, read from its project file
    assert asreview_priors(labels, 1) == (38, 72)


def test_a_replay_finds_the_bees_first_and_is_repeatable():
    sim = simulate(TEXTS, LABELS, seeds=[1, 2], model="svm-tfidf")
    for run in sim.runs:
        assert run.order[:2].tolist() == [run.prior_include, run.prior_exclude]
        # the four other bee papers are read right after the priors
        assert sorted(run.order[2:6].tolist()) == sorted(set(range(5)) - {run.prior_include})
        assert len(run.order) == 6  # it stops at the last include
        # 13 papers after the priors: 25 % is 3 papers, 3 of the 4 bee papers left
        assert run.metrics()["recall@25%"] == 0.75 and run.metrics()["atd"] == 2.5
        assert recall_at(run.found, 4 / 13) == 1.0
    again = simulate(Features.from_texts(TEXTS), LABELS, seeds=[1, 2], model="svm-tfidf")
    assert [r.order.tolist() for r in again.runs] == [r.order.tolist() for r in sim.runs]


def test_json_has_the_cli_shape():
    sim = simulate(TEXTS, LABELS, seeds=[1, 2, 3], model="nb-tfidf")
    data = json.loads(json.dumps(sim.to_json()))
    for key in ("wss@95", "recall@5%", "recall@10%", "recall@25%", "atd", "runs", "model", "records", "includes"):
        assert key in data
    assert data["records"] == 15 and data["includes"] == 5 and data["seeds"] == [1, 2, 3]
    assert len(data["runs"]) == 3
    assert data["wss@95"] == pytest.approx(np.mean([r["wss@95"] for r in data["runs"]]), abs=1e-4)
    assert set(data["runs"][0]["stopping"]) == {"hypergeometric", "sample-after-50", "50-in-a-row", "100-in-a-row", "200-in-a-row"}
    table = sim.table()
    assert table.splitlines()[0] == "nb-tfidf: 15 records, 5 includes, 3 seeds"
    assert any(line.startswith("mean ") for line in table.splitlines())


def test_the_baseline_is_svm_tfidf_on_the_same_seeds_with_the_paired_difference():
    sim = simulate(TEXTS, LABELS, seeds=[1, 2, 3], model="nb-tfidf", baseline=True)
    alone = simulate(TEXTS, LABELS, seeds=[1, 2, 3], model="svm-tfidf")
    base = sim.baseline
    assert base.model == "svm-tfidf" and base.baseline is None
    assert [r.order.tolist() for r in base.runs] == [r.order.tolist() for r in alone.runs]
    assert [(r.prior_include, r.prior_exclude) for r in base.runs] == [(r.prior_include, r.prior_exclude) for r in sim.runs]
    diff = sim.differences()
    by_seed = [a.metrics()["wss@95"] - b.metrics()["wss@95"] for a, b in zip(sim.runs, base.runs)]
    assert diff["wss@95"]["mean"] == pytest.approx(np.mean(by_seed), abs=1e-4)
    lo, hi = diff["wss@95"]["interval"]
    assert lo <= diff["wss@95"]["mean"] <= hi
    data = json.loads(json.dumps(sim.to_json()))
    assert data["baseline"]["model"] == "svm-tfidf" and [r["seed"] for r in data["baseline"]["runs"]] == [1, 2, 3]
    assert data["baseline"]["recall@10%"] == pytest.approx(alone.summary()["recall@10%"], abs=1e-4)
    assert set(data["difference"]) == {"wss@95", "recall@5%", "recall@10%", "recall@25%", "atd"}
    lines = sim.table().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("beside it, svm-tfidf"))
    assert [line.split()[0] for line in lines[at + 1:at + 6]] == ["1", "2", "3", "mean", "diff"]
    assert lines[at + 5].split()[1] == f"{diff['wss@95']['mean']:+.3f}"
    # the twin itself has no baseline, and none is asked for by default
    assert simulate(TEXTS, LABELS, seeds=[1], model="svm-tfidf", baseline=True).baseline is None
    assert simulate(TEXTS, LABELS, seeds=[1], model="nb-tfidf").baseline is None
    assert "baseline" not in simulate(TEXTS, LABELS, seeds=[1], model="nb-tfidf").to_json()


def test_stopping_points_by_hand():
    seq = [1, 0, 1, 0, 0, 0]  # then only excludes, 20 papers in all, 2 includes
    pts = stopping_points(seq, n_includes=2, n_total=20, rules=["3-in-a-row", "10-in-a-row", "hypergeometric"])
    assert pts["3-in-a-row"] == {"screened": 6, "recall": 1.0, "work_saved": 0.7}
    assert pts["10-in-a-row"]["screened"] == 13
    # the test cannot reject before reading 2 includes out of 20 with enough excludes after them
    assert 6 < pts["hypergeometric"]["screened"] <= 20 and pts["hypergeometric"]["recall"] == 1.0
    missed = stopping_points([1, 0, 0, 0], n_includes=3, n_total=20, rules=["3-in-a-row"])
    assert missed["3-in-a-row"] == {"screened": 4, "recall": round(1 / 3, 4), "work_saved": 0.8}


def test_bad_input_says_what_was_wrong():
    with pytest.raises(InputError, match="15 papers but 3 labels"):
        simulate(TEXTS, [1, 0, 1])
    with pytest.raises(InputError, match="at least one include and one exclude"):
        simulate(TEXTS, [0] * 15)
    with pytest.raises(InputError, match="prior include row 7 must be labelled 1"):
        simulate(TEXTS, LABELS, seeds=[1], priors={1: (7, 8)})
    with pytest.raises(InputError, match="unknown stopping rule"):
        stopping_points([1], 1, 5, rules=["whenever"])


# The default model's replay of the seed abstracts (includes: those that mention "learning"; the
# fake embedder's vectors), seeds 1 and 2, as the ranker before issue 47 gave it (commit ab1a9ad):
# a faster refit must read the same decisions in the same order.
ORDER_SEED_1 = (
    [87, 102, 42, 7, 25, 48, 109, 38, 100, 1, 123, 105, 120, 97, 39, 54, 35, 89, 33, 26, 91, 36,
     112, 124, 90, 126, 22, 13, 114, 107, 69, 52, 62, 66, 92, 103, 86, 117, 53, 95, 11, 88, 3, 51,
     82, 78, 44, 116, 93, 2, 0, 5, 96, 27, 61, 40, 31, 47, 73, 16, 30, 9, 74, 77, 41, 49, 43, 127,
     34, 28, 132, 32, 17, 68, 94, 10, 29, 46, 23, 71, 21, 57, 111, 113, 18, 45, 64, 122, 58, 106,
     115, 108, 55, 128, 131, 130, 8, 99, 67, 65, 72, 20, 129, 110, 98, 104, 19, 15, 83, 118, 81, 85,
     4, 80, 79, 12, 59, 60, 125, 37]
)
ORDER_SEED_2 = (
    [100, 44, 42, 87, 7, 38, 1, 48, 109, 97, 105, 95, 69, 25, 123, 103, 52, 35, 112, 120, 107, 54,
     36, 91, 89, 33, 22, 26, 124, 90, 78, 66, 39, 126, 13, 11, 88, 114, 2, 92, 62, 51, 86, 82, 117,
     53, 116, 3, 93, 43, 0, 5, 108, 45, 27, 32, 49, 127, 47, 74, 96, 16, 31, 102, 40, 34, 30, 28,
     17, 73, 61, 41, 132, 72, 128, 18, 10, 23, 64, 29, 122, 21, 99, 94, 77, 46, 111, 9, 8, 58, 68,
     113, 106, 115, 55, 71, 57, 131, 67, 20, 130, 129, 65, 110, 98, 104, 19, 15, 83, 118, 81, 85, 4,
     80, 79, 12, 59, 60, 125, 37]
)


def test_the_default_models_replay_keeps_its_order():
    from conftest import seed_abstracts
    from workbench.embed import FakeEmbedder

    texts = seed_abstracts()
    labels = np.array([int("learning" in t.lower()) for t in texts])
    assert labels.sum() == 53, "the fixture crosses the default model's step at 10 includes"
    features = Features.from_texts(texts, embeddings=FakeEmbedder().embed(texts))
    sim = simulate(features, labels, seeds=[1, 2])
    assert sim.model == "svm-both"
    assert sim.runs[0].order.tolist() == list(ORDER_SEED_1)
    assert sim.runs[1].order.tolist() == list(ORDER_SEED_2)

"""A very large single-process build fits its topics and map on a seeded sample and places the
rest (``review.build._sampled``); below the threshold nothing changes."""

import csv
import random

import numpy as np
import pytest

import workbench
import workbench.distributed.topics
from workbench.review.build import _sampled

THEMES = [["protein", "folding", "enzyme", "binding", "structure", "kinase", "ligand", "residue"],
          ["galaxy", "stellar", "redshift", "cosmic", "telescope", "orbit", "planet", "nebula"],
          ["reward", "policy", "agent", "learning", "bandit", "exploration", "value", "markov"],
          ["soil", "crop", "yield", "irrigation", "nitrogen", "harvest", "wheat", "drought"]]


@pytest.fixture
def papers(tmp_path):
    """600 abstracts of four themes, each with words of its own."""
    rng = random.Random(7)
    path = tmp_path / "papers.csv"
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["title", "abstract"])
        for i in range(600):
            words = THEMES[i % 4]
            out.writerow([f"Study {i} of {rng.choice(words)}",
                          " ".join(rng.choice(words) for _ in range(30)) + f" sample{i} cohort{i % 37}."])
    return path


def test_a_build_above_the_threshold_fits_a_sample_and_places_the_rest(tmp_path, monkeypatch, papers):
    whole = workbench.build([papers], review=tmp_path / "whole", embedder="fake", seed=3, progress=False)
    assert whole.manifest["topics"]["method"] == "bertopic" and whole.manifest["map"]["method"] == "umap"
    n = len(whole.papers)
    monkeypatch.setattr(_sampled, "SAMPLE_ABOVE", n - 1)
    monkeypatch.setattr(workbench.distributed.topics, "SAMPLE_SIZE", 200)  # the one a Dask build samples
    monkeypatch.setattr(_sampled, "BLOCK", 64)  # (placed in several blocks)
    review = workbench.build([papers], review=tmp_path / "sampled", embedder="fake", seed=3, progress=False)
    topics, layout = review.manifest["topics"], review.manifest["map"]
    assert topics["method"] == "bertopic-sample" and "sample of 200 papers" in topics["note"]
    assert layout["method"] == "umap-sample"
    labels = np.asarray(review.labels)
    assert len(labels) == n and (labels >= 0).all() and topics["count"] >= 2  # every paper placed in a topic
    assert set(review.topics.topic) == set(labels.tolist())
    from sklearn.metrics import adjusted_rand_score

    themes = np.asarray([int(p.title.split()[1]) % 4 for p in review.papers])
    assert adjusted_rand_score(themes, labels) > 0.9 * adjusted_rand_score(themes, whole.labels)  # as good as a whole fit
    coords = np.asarray(review.coords)
    assert coords.shape == (n, 2) and np.isfinite(coords).all() and np.isclose(np.abs(coords).max(), 10.0)
    assert len(np.unique(coords.round(3), axis=0)) > n * 0.9  # placed papers are spread, not piled on a few points
    again = workbench.build([papers], review=tmp_path / "again", embedder="fake", seed=3, progress=False)
    assert np.array_equal(again.labels, review.labels) and np.array_equal(again.coords, review.coords)  # seeded
    reopened = workbench.open_review(tmp_path / "sampled")
    assert np.array_equal(reopened.labels, labels) and reopened.manifest["topics"]["method"] == "bertopic-sample"
    fewer = workbench.show_themes(reopened, 2)  # the sampled topics' tree cut, as a whole fit's
    assert len(set(np.asarray(fewer.labels).tolist()) - {-1}) <= 2


def test_a_build_at_the_threshold_fits_every_paper(tmp_path, monkeypatch, papers):
    n = len(workbench.build([papers], review=tmp_path / "a", embedder="fake", seed=3, progress=False).papers)
    monkeypatch.setattr(_sampled, "SAMPLE_ABOVE", n)
    review = workbench.build([papers], review=tmp_path / "b", embedder="fake", seed=3, progress=False)
    assert review.manifest["topics"]["method"] == "bertopic" and review.manifest["map"]["method"] == "umap"
    assert _sampled.sampled(_sampled.SAMPLE_ABOVE + 1) and not _sampled.sampled(_sampled.SAMPLE_ABOVE)

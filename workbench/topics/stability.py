"""How much of a topic model survives a change of seed.

UMAP's layout depends on its seed, and so, a little, do the topics found in it. Refitting with a
few other seeds and comparing says which topics are solid and which are an accident of one run:

- :func:`topic_stability`: for each topic of a reference run, how often its papers stay together
  in the other runs: the share of pairs of its papers that share a topic there, averaged over
  runs (1.0: every pair always together; papers left unassigned count as apart);
- :func:`mean_pairwise_ari`: the mean adjusted Rand index over all pairs of runs, one number for
  the whole model.

The runs themselves come from :func:`workbench.topics.model.seed_labelings` (the clustering only,
no words or labels, so each costs a fraction of a full fit); this module only scores them.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

import numpy as np

from ..corpus.paper import OUTLIER

__all__ = ["topic_stability", "mean_pairwise_ari"]


def _pairs(counts: np.ndarray) -> float:
    return float((counts * (counts - 1)).sum() / 2)


def topic_stability(reference, others: Sequence) -> dict[int, float]:
    """For each topic of ``reference``, the mean share of its paper pairs kept together in ``others``.

    ``reference`` and every run in ``others`` give one topic per paper (same papers, same order).
    Topics of one paper score 1.0; with no other runs every topic scores 1.0.
    """
    reference = np.asarray(reference)
    others = [np.asarray(o) for o in others]
    for o in others:
        if o.shape != reference.shape:
            raise ValueError(f"a run has {o.shape[0]} labels, the reference {reference.shape[0]}; expected one per paper")
    scores: dict[int, float] = {}
    for topic in sorted(set(reference.tolist()) - {OUTLIER}):
        members = np.flatnonzero(reference == topic)
        total = len(members) * (len(members) - 1) / 2
        if total == 0 or not others:
            scores[int(topic)] = 1.0
            continue
        kept = []
        for run in others:
            labels = run[members]
            labels = labels[labels != OUTLIER]
            _, counts = np.unique(labels, return_counts=True)
            kept.append(_pairs(counts) / total)
        scores[int(topic)] = round(float(np.mean(kept)), 4)
    return scores


def mean_pairwise_ari(labelings: Sequence) -> float:
    """Mean adjusted Rand index over every pair of runs (1.0 = the runs agree exactly)."""
    from sklearn.metrics import adjusted_rand_score

    runs = [np.asarray(r) for r in labelings]
    if len(runs) < 2:
        return 1.0
    return float(np.mean([adjusted_rand_score(a, b) for a, b in combinations(runs, 2)]))

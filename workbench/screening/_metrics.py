"""Screening metrics of one simulated review, defined as asreview-insights defines them.

Each takes ``found``: the labels (1 include, 0 exclude) in the order the papers were screened,
*after* the starting include and exclude, padded with 0 to every remaining paper (a
simulation may stop once the last include is found). So for a review of N papers with R
includes, ``found`` has N - 2 entries of which R - 1 are 1. Using asreview-insights'
definitions (and its treatment of the priors) makes the workbench's numbers and ASReview's
comparable one to one; the benchmark checks that both give the same values on ASReview's runs.

- ``recall_at(found, 0.10)``: the share of the includes found after screening the first
  ``floor(0.10 * len(found))`` papers.
- ``wss(found, 0.95)``: work saved over sampling at 95 % recall: the papers a reader in random
  order would have read before reaching the 95 % recall point, minus those read here, as a
  share of all papers (insights' rounding of the random reader's curve included). As in
  insights, "95 % recall" is the largest whole number of includes ``k`` with
  ``k / includes <= 0.95`` (7 of 8, say), or the last include when there is one.
- ``atd(found)``: average time to discovery: the mean position (1-based) at which each
  include was found, in papers.
"""

from __future__ import annotations

import numpy as np

__all__ = ["atd", "recall_at", "recall_curve", "wss"]


def _check(found) -> np.ndarray:
    found = np.asarray(found, dtype=np.int64).reshape(-1)
    if found.sum() == 0:
        raise ValueError("no include after the starting ones: the metrics need at least one")
    return found


def recall_curve(found) -> tuple[np.ndarray, np.ndarray]:
    """(share screened, recall) after each paper."""
    found = _check(found)
    n = len(found)
    return np.arange(1, n + 1) / n, np.cumsum(found) / found.sum()


def recall_at(found, fraction: float) -> float:
    x, y = recall_curve(found)
    i = np.searchsorted(x, fraction, side="right")
    return float(y[i - 1])  # as insights: i = 0 wraps round to the last value


def wss(found, recall: float = 0.95) -> float:
    found = _check(found)
    n, n_pos = len(found), int(found.sum())
    when = np.searchsorted(np.cumsum(found), np.arange(1, n_pos + 1))
    when_random = np.searchsorted(np.round(np.linspace(0, n_pos, n)), np.arange(1, n_pos + 1))
    y = (when_random - when) / n
    i = np.searchsorted(np.arange(1, n_pos + 1) / n_pos, recall, side="right")
    return float(y[i - 1])  # as insights: with one include left (i = 0) this is its own point


def atd(found) -> float:
    found = _check(found)
    return float(np.mean(np.flatnonzero(found) + 1))

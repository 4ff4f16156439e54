"""Matching one topic run's topics to the topics before it, by the papers they share.

:func:`match_topics` compares two runs (Jaccard similarity of the papers both assigned, optimal
one-to-one assignment with :func:`scipy.optimize.linear_sum_assignment`) and says what matched,
split, merged, is new or gone. :func:`match_run` adds the topics a person named that a refit lost
(two topics merged into one, and the name of one of them went with it): each is compared by the
papers it had in the last run that held it, and a new topic that matches it best takes its
identity back, and with it its name. A name given by a person is not lost for good because one
refit merged its topic into another.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ..corpus.paper import OUTLIER

__all__ = ["match_run", "match_topics"]


def _overlap(previous: Mapping[str, int], current: Mapping[str, int]):
    """``(previous topics, current topics, papers shared, Jaccard)`` over the papers both runs
    assigned to a topic (not the outliers)."""
    import numpy as np

    prev_topics = sorted({t for t in previous.values() if t != OUTLIER})
    cur_topics = sorted({t for t in current.values() if t != OUTLIER})
    pi = {t: i for i, t in enumerate(prev_topics)}
    ci = {t: j for j, t in enumerate(cur_topics)}
    inter = np.zeros((len(prev_topics), len(cur_topics)))
    rows, cols = [], []
    for pid, t in current.items():
        p = previous.get(pid)
        if p is not None and p != OUTLIER and t != OUTLIER:
            rows.append(pi[p])
            cols.append(ci[t])
    np.add.at(inter, (np.array(rows, dtype=int), np.array(cols, dtype=int)), 1)
    union = inter.sum(axis=1, keepdims=True) + inter.sum(axis=0, keepdims=True) - inter
    jac = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    return prev_topics, cur_topics, inter, jac


def match_topics(previous: Mapping[str, int], current: Mapping[str, int], *,
                 min_jaccard: float = 0.2, share: float = 0.5) -> dict:
    """Match ``current`` topics to ``previous`` ones by the papers both runs assigned.

    Returns a dict with ``matched`` (current -> previous), ``jaccard`` (current -> score),
    ``split`` (previous -> current topics that each came mostly, >= ``share``, from it),
    ``merged`` (current -> previous topics that each went mostly into it), ``new`` and
    ``gone``. Only papers in both runs count, so new sources do not blur the comparison.
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    out = {"matched": {}, "jaccard": {}, "split": {}, "merged": {}, "new": [], "gone": []}
    prev_topics, cur_topics, inter, jac = _overlap(previous, current)
    if not prev_topics or not cur_topics:
        out["new"], out["gone"] = cur_topics, prev_topics
        return out
    r, c = linear_sum_assignment(jac, maximize=True)
    for i, j in zip(r, c):
        if jac[i, j] >= min_jaccard:
            out["matched"][cur_topics[j]] = prev_topics[i]
            out["jaccard"][cur_topics[j]] = round(float(jac[i, j]), 4)
    prev_size, cur_size = inter.sum(axis=1, keepdims=True), inter.sum(axis=0, keepdims=True)
    from_prev = np.divide(inter, cur_size, out=np.zeros_like(inter), where=cur_size > 0)
    into_cur = np.divide(inter, prev_size, out=np.zeros_like(inter), where=prev_size > 0)
    for i, p in enumerate(prev_topics):
        children = [cur_topics[j] for j in range(len(cur_topics))
                    if from_prev[i, j] >= share and into_cur[i, j] >= 0.1]
        if len(children) >= 2:
            out["split"][p] = children
    for j, t in enumerate(cur_topics):
        parents = [prev_topics[i] for i in range(len(prev_topics))
                   if into_cur[i, j] >= share and from_prev[i, j] >= 0.1]
        if len(parents) >= 2:
            out["merged"][t] = parents
    _new_and_gone(out, prev_topics, cur_topics)
    return out


def _new_and_gone(out: dict, prev_topics: list[int], cur_topics: list[int]) -> None:
    in_split = {t for kids in out["split"].values() for t in kids}
    in_merge = {p for ps in out["merged"].values() for p in ps}
    matched_prev = set(out["matched"].values())
    taken = set(out["matched"]) | set(out.get("restored", ()))
    out["new"] = [t for t in cur_topics if t not in taken and t not in in_split]
    out["gone"] = [p for p in prev_topics if p not in matched_prev and p not in in_merge]


def _lost_row(run: Mapping[str, int], topic: int, current: Mapping[str, int], cur_topics: list[int]) -> list[float]:
    """Jaccard of a lost topic (``topic`` in an earlier ``run``) with each current topic, over the
    papers both runs assigned to a topic."""
    both = [pid for pid, t in run.items() if t != OUTLIER and current.get(pid, OUTLIER) != OUTLIER]
    mine = [pid for pid in both if run[pid] == topic]
    inter = Counter(current[pid] for pid in mine)
    sizes = Counter(current[pid] for pid in both)
    return [inter[t] / (len(mine) + sizes[t] - inter[t]) if inter[t] else 0.0 for t in cur_topics]


def match_run(previous: Mapping[str, int], current: Mapping[str, int], lost: Mapping[int, tuple[Mapping[str, int], int]],
              *, min_jaccard: float = 0.2) -> dict:
    """:func:`match_topics`, with the topic identities in ``lost`` (``{tid: (the assignments of the
    last run that held it, its topic there)}``) competing for the current topics too, in one
    optimal assignment: ``restored`` maps a current topic to the lost identity it takes back."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    out = match_topics(previous, current, min_jaccard=min_jaccard)
    out["restored"] = {}
    prev_topics, cur_topics, _, jac = _overlap(previous, current)
    if not lost or not cur_topics:
        return out
    tids = sorted(lost)
    rows = [_lost_row(*lost[tid], current, cur_topics) for tid in tids]
    full = np.vstack([jac.reshape(len(prev_topics), len(cur_topics)), np.array(rows)])
    r, c = linear_sum_assignment(full, maximize=True)
    pairs = [(i, j) for i, j in zip(r, c) if full[i, j] >= min_jaccard]
    if not any(i >= len(prev_topics) for i, _ in pairs):
        return out  # no lost topic came back: the plain match stands
    out["matched"], out["jaccard"] = {}, {}
    for i, j in pairs:
        if i < len(prev_topics):
            out["matched"][cur_topics[j]] = prev_topics[i]
        else:
            out["restored"][cur_topics[j]] = tids[i - len(prev_topics)]
        out["jaccard"][cur_topics[j]] = round(float(full[i, j]), 4)
    _new_and_gone(out, prev_topics, cur_topics)
    return out

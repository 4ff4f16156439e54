"""The topics' Ward hierarchy: how HDBSCAN's many small topics merge into themes.

:func:`ward_merges` orders every merge of the topics by what it adds to the within-topic
variance of the (unit-length) embeddings; :func:`merge_topics` applies them, down to ``k``
themes or until a merge would add more than a share of the corpus's variance. The default
topics, ``nr_topics=k``, :meth:`TopicModel.reduce_to` and :meth:`TopicModel.hierarchy` all cut
this one tree; :func:`hierarchy_frame` lists what is left of it above the current topics.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..corpus.paper import OUTLIER

__all__ = ["MIN_MERGED_TOPICS", "MERGE_VARIANCE", "ward_merges", "merge_topics", "hierarchy_frame"]

# Merging by distance never takes the topics below this many (nor below what HDBSCAN found).
MIN_MERGED_TOPICS = 8


# Merging stops short of a merge that would add more than this share of the corpus's variance.
MERGE_VARIANCE = 0.009


def _unit_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``X`` with unit-length rows (itself when they are already) and each row's squared length."""
    X = np.asarray(X, dtype=np.float32)
    squares = np.einsum("ij,ij->i", X, X)  # no temporary the size of X, as np.linalg.norm makes
    if np.allclose(squares, 1.0, atol=2e-3):
        return X, squares
    norms = np.sqrt(np.maximum(squares, 1e-24))
    return X / norms[:, None], np.ones(len(X), dtype=np.float32)


def ward_merges(embeddings: np.ndarray, labels: np.ndarray) -> tuple[list[int], list[tuple[int, int, float]], float]:
    """The topics' Ward hierarchy: which two topics merge, in order, and what each merge costs.

    Returns ``(topics, merges, total)``: the topics (outliers left out), the merges as
    ``(i, j, cost)`` with ``i``, ``j`` positions in ``topics`` (the merged group keeps ``i``),
    and the corpus's total variance. A merge's cost is how much it adds to the within-topic
    sum of squares of the unit-length embeddings (Ward's criterion, weighted by topic sizes:
    ``n_i n_j / (n_i + n_j) * |c_i - c_j|^2``); each step merges the cheapest pair, so costs
    only grow. The k-means objective, restricted to unions of HDBSCAN's topics.
    """
    from scipy import sparse

    labels = np.asarray(labels)
    topics = sorted(set(labels.tolist()) - {OUTLIER})
    X, squares = _unit_rows(embeddings)
    total_sum = X.sum(axis=0, dtype=np.float64)
    total = float(squares.sum(dtype=np.float64)) - float(total_sum @ total_sum) / len(X)
    if len(topics) < 2:
        return topics, [], total
    rows = np.flatnonzero(labels != OUTLIER)
    position = np.searchsorted(topics, labels[rows])
    onehot = sparse.csr_matrix((np.ones(len(rows), np.float32), (position, rows)), shape=(len(topics), len(X)))
    S = np.asarray(onehot @ X, dtype=np.float64)
    n = np.bincount(position, minlength=len(topics)).astype(np.float64)
    C = S / n[:, None]
    t = len(topics)

    def costs(i):
        return n[i] * n / (n[i] + n) * ((C - C[i]) ** 2).sum(axis=1)

    M = np.vstack([costs(i) for i in range(t)])
    np.fill_diagonal(M, np.inf)
    alive = np.ones(t, dtype=bool)
    merges = []
    for _ in range(t - 1):
        i, j = sorted(divmod(int(np.argmin(M)), t))
        merges.append((i, j, float(M[i, j])))
        S[i] += S[j]
        n[i] += n[j]
        C[i] = S[i] / n[i]
        alive[j] = False
        M[j, :] = M[:, j] = np.inf
        row = costs(i)
        row[~alive] = np.inf
        row[i] = np.inf
        M[i, :] = M[:, i] = row
    return topics, merges, total


def merge_topics(embeddings: np.ndarray, labels: np.ndarray, k: int | None = None, max_variance: float | None = None) -> np.ndarray:
    """Merge topics along their Ward hierarchy (:func:`ward_merges`): down to ``k``, or by cost.

    ``k`` applies merges until at most ``k`` topics are left; ``max_variance`` applies every
    merge that adds less than that share of the corpus's total variance (a scale that does
    not depend on the embedder or the corpus size), never going below
    :data:`MIN_MERGED_TOPICS` topics. Outliers stay outliers. Deterministic.
    """
    labels = np.asarray(labels)
    if k is not None and k < 1:
        raise InputError(f"nr_topics={k}; expected a number of topics >= 1")
    topics, merges, total = ward_merges(embeddings, labels)
    t = len(topics)
    if k is not None:
        n_merges = max(0, t - int(k))
    elif max_variance is not None:
        n_merges = next((m for m, (_, _, cost) in enumerate(merges) if cost >= max_variance * total), len(merges))
        n_merges = min(n_merges, max(0, t - MIN_MERGED_TOPICS))
    else:
        n_merges = 0
    if n_merges == 0:
        return labels.copy()
    parent = list(range(t))

    def root(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for i, j, _ in merges[:n_merges]:
        parent[root(j)] = root(i)
    roots = [root(a) for a in range(t)]
    mapping = dict(zip(topics, np.unique(roots, return_inverse=True)[1].tolist()))
    mapping[OUTLIER] = OUTLIER
    return np.array([mapping[label] for label in labels.tolist()], dtype=int)


HIERARCHY_COLUMNS = ["Parent_ID", "Parent_Name", "Topics", "Child_Left_ID", "Child_Left_Name",
                     "Child_Right_ID", "Child_Right_Name", "Distance"]


def hierarchy_frame(embeddings: np.ndarray, labels: np.ndarray, names: dict[int, str], sizes: dict[int, int]):
    """How the topics ``labels`` would merge further along their Ward tree, one row per merge.

    Cheapest first: ``Parent_ID`` (new ids after the topics'), ``Parent_Name`` (the largest
    member topic's name from ``names`` and how many topics it joins), ``Topics`` (the member
    topics), ``Child_Left_ID``/``Child_Right_ID`` and their names, and ``Distance``, the share
    of the corpus's variance the merge adds: BERTopic's ``hierarchical_topics`` columns.
    """
    import pandas as pd

    topics, merges, total = ward_merges(embeddings, labels)
    name = {t: names[t] for t in topics}
    members = {t: [t] for t in topics}
    size = {t: int(sizes[t]) for t in topics}
    current = list(topics)
    rows = []
    for step, (i, j, cost) in enumerate(merges):
        left, right = current[i], current[j]
        parent = (max(topics) + 1 if topics else 0) + step
        members[parent] = sorted(members[left] + members[right])
        size[parent] = size[left] + size[right]
        largest = max(members[parent], key=lambda t: (size[t], -t))
        name[parent] = f"{name[largest]} (+{len(members[parent]) - 1} topics)"
        rows.append([parent, name[parent], members[parent], left, name[left], right, name[right],
                     cost / total if total > 0 else 0.0])
        current[i] = parent
    return pd.DataFrame(rows, columns=HIERARCHY_COLUMNS)

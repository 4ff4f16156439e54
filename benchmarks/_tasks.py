"""Screening tasks made from the other labelled corpora, for choosing the ranked queue's model.

The nine SYNERGY reviews are few, and the queue's model was first chosen on them. These tasks
add reviews it was never tuned on: "relevant" is one label of a topic-labelled corpus, drawn
down to a prevalence of 2-10 %, the rest drawn from the other labels, in a shuffled order.
They are easier than a real review's inclusion criteria (a field or a condition, not a
question), so they are reported apart from SYNERGY and weigh as much as SYNERGY, not more, in
the leave-one-review-out choice (benchmarks/screening_loo.py).

Every task is fixed: its corpus, label, prevalence and seed are listed in ``TASKS``. The tasks
of one corpus share a pool of 450 records drawn once (``POOL_SEED``; the medical corpus's from
its first 1,500 rows): a task's excludes are the pool's records of the other labels, its
includes are drawn from the label's records outside the pool, as many as give the prevalence,
and the rows are shuffled (``numpy.random.default_rng(seed)``). So the tasks need few texts
embedded (about 1,100 in all) but are not independent of each other: their excludes overlap.
The medical corpus's titles are inside the abstracts, so a record's text is the abstract
alone, as ``document_text`` makes it.
"""

from __future__ import annotations

import numpy as np
from _common import load_corpus

# (name, corpus, label, prevalence, seed)
TASKS = (
    ("arxiv_q-bio", "arxiv_lite", "quantitative biology", 0.05, 11),
    ("arxiv_q-fin", "arxiv_lite", "quantitative finance", 0.03, 12),
    ("arxiv_stat", "arxiv_lite", "statistics", 0.08, 13),
    ("arxiv_econ", "arxiv_lite", "economics", 0.02, 14),
    ("arxiv_eess", "arxiv_lite", "electrical engineering and systems science", 0.04, 15),
    ("medical_neoplasms", "medical", "1", 0.02, 21),
    ("medical_digestive", "medical", "2", 0.06, 22),
    ("medical_nervous", "medical", "3", 0.10, 23),
    ("medical_cardio", "medical", "4", 0.04, 24),
)
POOL, POOL_SEED, MEDICAL_ROWS = 450, 10, 1500


def load_tasks() -> dict:
    """``{task name: DataFrame(title, abstract, text, label_included)}`` in ``TASKS`` order."""
    import pandas as pd

    corpora, out = {}, {}
    for name, corpus, label, prevalence, seed in TASKS:
        if corpus not in corpora:
            c = load_corpus(corpus)
            rows = np.arange(len(c)) if corpus != "medical" else np.arange(MEDICAL_ROWS)
            pool = np.sort(np.random.default_rng(POOL_SEED).choice(rows, POOL, replace=False))
            corpora[corpus] = (c, rows, pool, c.texts("document"))
        c, rows, pool, texts = corpora[corpus]
        code = c.label_names.index(label)
        rng = np.random.default_rng(seed)
        neg = pool[c.labels[pool] != code]
        outside = np.setdiff1d(rows[c.labels[rows] == code], pool)
        n_pos = max(1, round(prevalence * len(neg) / (1 - prevalence)))
        picked = np.concatenate([rng.choice(outside, n_pos, replace=False), neg])
        picked = picked[rng.permutation(len(picked))]
        out[name] = pd.DataFrame({
            "title": [c.titles[i] if c.has_titles else "" for i in picked],
            "abstract": [c.abstracts[i] for i in picked],
            "text": [texts[i] for i in picked],
            "label_included": (c.labels[picked] == code).astype(int),
        })
    return out

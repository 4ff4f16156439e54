"""Screening tasks made from the other labelled corpora, for choosing the ranked queue's model.

The nine SYNERGY reviews are few, and the queue's model was first chosen on them. These tasks
add reviews it was never tuned on: "relevant" is one label of a topic-labelled corpus, drawn
down to a prevalence of 2-10 %, the rest drawn from the other labels, in a shuffled order.
They are easier than a real review's inclusion criteria (a field or a condition, not a
question), so they are reported apart from SYNERGY and weigh as much as SYNERGY, not more, in
the leave-one-review-out choice (benchmarks/screening_loo.py).

Every task is fixed: its label, size, number of relevant records and seed are listed in
``TASKS``, and the draw is ``numpy.random.default_rng(seed)``. The medical corpus's records are
drawn from its first 1,500 rows only (fewer texts to embed once); its titles are inside the
abstracts, so a record's text is the abstract alone, as ``document_text`` makes it.
"""

from __future__ import annotations

import numpy as np
from _common import load_corpus

# (name, corpus, label, records, relevant, seed)
TASKS = (
    ("arxiv_q-bio", "arxiv_lite", "quantitative biology", 800, 40, 11),
    ("arxiv_q-fin", "arxiv_lite", "quantitative finance", 1000, 30, 12),
    ("arxiv_stat", "arxiv_lite", "statistics", 600, 48, 13),
    ("arxiv_econ", "arxiv_lite", "economics", 1000, 20, 14),
    ("arxiv_eess", "arxiv_lite", "electrical engineering and systems science", 700, 28, 15),
    ("medical_neoplasms", "medical", "1", 1000, 20, 21),
    ("medical_digestive", "medical", "2", 800, 48, 22),
    ("medical_nervous", "medical", "3", 600, 60, 23),
    ("medical_cardio", "medical", "4", 1000, 40, 24),
)
MEDICAL_ROWS = 1500


def load_tasks() -> dict:
    """``{task name: DataFrame(title, abstract, text, label_included)}`` in ``TASKS`` order."""
    import pandas as pd

    corpora, out = {}, {}
    for name, corpus, label, n, relevant, seed in TASKS:
        if corpus not in corpora:
            c = load_corpus(corpus)
            keep = np.arange(len(c)) if corpus != "medical" else np.arange(MEDICAL_ROWS)
            corpora[corpus] = (c, keep, c.texts("document"))
        c, keep, texts = corpora[corpus]
        code = c.label_names.index(label)
        rng = np.random.default_rng(seed)
        pos = keep[c.labels[keep] == code]
        neg = keep[c.labels[keep] != code]
        rows = np.concatenate([rng.choice(pos, relevant, replace=False), rng.choice(neg, n - relevant, replace=False)])
        rows = rows[rng.permutation(len(rows))]
        out[name] = pd.DataFrame({
            "title": [c.titles[i] if c.has_titles else "" for i in rows],
            "abstract": [c.abstracts[i] for i in rows],
            "text": [texts[i] for i in rows],
            "label_included": (c.labels[rows] == code).astype(int),
        })
    return out

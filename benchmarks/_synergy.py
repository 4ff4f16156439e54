"""The nine SYNERGY reviews as the screening benchmark reads them: one table per review.

Every record of a review is kept (also the few without an abstract: a reviewer screens them
too, by title), in file order, so row ``i`` of a review is record ``i`` for both the workbench
and ASReview. ``text`` is what the workbench embeds and ranks: :func:`workbench.review.document_text`
of the clean title and abstract.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from _common import DATA, bench_cache_dir

SYNERGY = DATA / "synergy" / "synergy_v1_flat.csv"


def load_reviews() -> dict:
    """``{review name: DataFrame(title, abstract, text, label_included)}``, sorted by name."""
    import pandas as pd

    from workbench.corpus.paper import Paper
    from workbench.corpus.clean import clean_text
    from workbench.review import document_text

    df = pd.read_csv(SYNERGY)
    out = {}
    for name, group in sorted(df.groupby("dataset"), key=lambda kv: kv[0]):
        titles = [clean_text(t) for t in group["title"].fillna("")]
        abstracts = [clean_text(a) for a in group["abstract"].fillna("")]
        texts = [document_text(Paper(id="", title=t, abstract=a, text=a)) for t, a in zip(titles, abstracts)]
        out[name] = pd.DataFrame(
            {"title": titles, "abstract": abstracts, "text": texts,
             "label_included": group["label_included"].astype(int).to_numpy()}
        ).reset_index(drop=True)
    return out


def embeddings(texts: list[str], embedder_name: str) -> np.ndarray:
    """The texts' vectors from the benchmark's embedding cache (computed once, then read)."""
    from workbench.embed import EmbeddingCache, embed_with_cache, get_embedder

    path = Path(bench_cache_dir()) / "embeddings.sqlite"
    with EmbeddingCache(path) as cache:
        X, _ = embed_with_cache(texts, get_embedder(embedder_name), cache, corpus=False)
    return X

"""Finding papers in a review: by keywords (any script), by meaning, and by likeness.

Keyword search matches every query word at a word start in the title or abstract (the character
bigrams of Chinese, Japanese and Korean words anywhere); meaning search embeds the query with the
review's own embedder and ranks papers by cosine similarity of their cached embeddings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from ._review import Review

__all__ = ["SearchResult", "keyword_search", "nearest", "query_terms", "semantic_search"]


@dataclass
class SearchResult:
    """Keyword hits (every query word in the title or abstract) and semantic neighbours."""

    query: str
    keyword: list[str] = field(default_factory=list)
    semantic: list[tuple[str, float]] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        """Keyword hits first, then semantic neighbours not already listed."""
        seen = dict.fromkeys(self.keyword)
        for pid, _ in self.semantic:
            seen.setdefault(pid)
        return list(seen)


def query_terms(query: str) -> list[str]:
    """The terms of a search query worth matching: lower-case words without stop words, and the
    character bigrams of Chinese, Japanese and Korean (written without spaces between words;
    see :func:`workbench.scripts.search_terms`)."""
    from ..topics import stop_words
    from ..scripts import search_terms

    return search_terms(query, frozenset(stop_words()))


def keyword_search(review: Review, query: str) -> list[str]:
    """Ids of the papers whose title or abstract has every term of ``query``, most hits first."""
    from ..scripts import term_pattern

    terms = query_terms(query)
    if not terms:
        return []
    patterns = [re.compile(term_pattern(t)) for t in terms]
    hits = [
        (sum(len(p.findall(text)) for p in patterns), pid)
        for pid, text in zip(review.ids, review.haystack())
        if all(p.search(text) for p in patterns)
    ]
    return [pid for _, pid in sorted(hits, key=lambda h: (-h[0], h[1]))]


def semantic_search(review: Review, query: str, k: int = 10) -> list[tuple[str, float]]:
    """The ``k`` papers nearest in meaning to ``query``, with cosine similarity."""
    if not query.strip():
        return []
    return nearest(review, review.embed_texts([query])[0], k)


def nearest(review: Review, vector: np.ndarray, k: int, exclude: Sequence[int] = ()) -> list[tuple[str, float]]:
    """The ``k`` papers whose embeddings are nearest ``vector`` (rows in ``exclude`` left out)."""
    sims = review.embeddings() @ np.asarray(vector, dtype=np.float32)
    if len(exclude):
        sims = sims.copy()
        sims[list(exclude)] = -np.inf
    order = np.argsort(-sims, kind="stable")[:k]
    ids = review.ids
    return [(ids[i], round(float(sims[i]), 4)) for i in order if np.isfinite(sims[i])]

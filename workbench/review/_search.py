"""Finding papers in a review: by keywords (any script), by meaning, and by likeness.

Keyword search matches every query word at a word start in the title or abstract (a quoted
phrase, ``"reward model"``, as that phrase; the character bigrams of Chinese, Japanese and
Korean words anywhere) and scores a hit by its number of matches; meaning search embeds the
query with the review's own embedder and scores papers by cosine similarity of their cached
embeddings. A :class:`SearchResult` keeps the two apart: each :class:`SearchHit` says how the
paper was found and its score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..corpus.writing_systems import TermFinder, search_terms
from ..topics import stop_words
from ._haystack import candidates
from ._text import EMBEDDER


__all__ = ["KEYWORD", "MEANING", "SearchHit", "SearchResult", "keyword_matches", "keyword_search", "nearest", "prepare_search",
           "query_terms", "search", "semantic_search"]

_QUOTES = re.compile("[\"\u201c\u201d]")


#: How a paper was found: every query term in its title or abstract, or near the query in meaning.
KEYWORD, MEANING = "keyword", "meaning"


@dataclass(frozen=True)
class SearchHit:
    """One paper a search found: ``kind`` is :data:`KEYWORD` (``score``: how often the query's
    terms occur in its title and abstract) or :data:`MEANING` (``score``: cosine similarity of
    its embedding to the query's, -1..1)."""

    id: str
    kind: str
    score: float

    def describe(self) -> str:
        """The hit in words: ``"keyword, 3 matches"``, ``"meaning, similarity 0.62"``."""
        if self.kind == KEYWORD:
            n = int(self.score)
            return f"keyword, {n} match{'es' if n != 1 else ''}"
        return f"meaning, similarity {self.score:.2f}"


@dataclass
class SearchResult:
    """Keyword hits (every query term in the title or abstract) and semantic neighbours.

    ``keyword`` are the ids of the keyword hits, most matches first, and ``matches`` their
    number of matches; ``semantic`` the nearest papers in meaning with their similarity;
    ``terms`` what the query was split into (a quoted phrase is one term).
    """

    query: str
    keyword: list[str] = field(default_factory=list)
    semantic: list[tuple[str, float]] = field(default_factory=list)
    matches: dict[str, int] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        """Keyword hits first, then semantic neighbours not already listed."""
        return [hit.id for hit in self.hits]

    @property
    def hits(self) -> list[SearchHit]:
        """Every paper found, once: the keyword hits (kind ``keyword``, most matches first), then
        the semantic neighbours that are not keyword hits (kind ``meaning``, nearest first)."""
        hits = [SearchHit(pid, KEYWORD, float(self.matches.get(pid, 0))) for pid in self.keyword]
        seen = set(self.keyword)
        hits += [SearchHit(pid, MEANING, float(sim)) for pid, sim in self.semantic if pid not in seen]
        return hits

    def hit(self, paper_id: str) -> SearchHit | None:
        """How ``paper_id`` was found (None: it was not)."""
        return next((h for h in self.hits if h.id == paper_id), None)


def query_terms(query: str) -> list[str]:
    """The terms of a search query worth matching: lower-case words without stop words, quoted
    phrases (``"reward model"``) as one term each, and the character bigrams of Chinese,
    Japanese and Korean (written without spaces between words; see
    :func:`workbench.corpus.writing_systems.search_terms`)."""
    return search_terms(query, frozenset(stop_words()))


def prepare_search(review) -> None:
    """Load what a first search needs (the stop words' library, the papers' lower-case texts, the
    embedder's model with one text through it, the papers' embeddings), so that it answers as fast as later ones: run it
    while the user reads (a view starts it in a thread). Touches no database. The embedder and
    the embeddings are used under the review's embedder lock (``_text.EMBEDDER``: a tokenizer
    may not serve two threads at once, "Already borrowed"), so a search asked meanwhile waits
    for them, as :meth:`~workbench.review.Review.embed_texts` takes it too."""
    query_terms("warm up")
    review.haystack()
    if review.manifest.get("embedder", {}).get("name") not in (None, "tfidf"):
        with EMBEDDER:
            review.embedder().embed(["warm up"])
    review.embeddings()


def search(review, query: str, k: int = 10, semantic: bool = True) -> SearchResult:
    """Keyword hits with their number of matches and (with ``semantic``) the ``k`` papers
    nearest in meaning to ``query``."""
    found = keyword_matches(review, query)
    result = SearchResult(query=query, keyword=[pid for pid, _ in found], matches=dict(found),
                          terms=query_terms(query))
    if semantic:
        result.semantic = semantic_search(review, query, k)
    return result


def keyword_search(review, query: str) -> list[str]:
    """Ids of the papers whose title or abstract has every term of ``query``, most hits first."""
    return [pid for pid, _ in keyword_matches(review, query)]


def keyword_matches(review, query: str) -> list[tuple[str, int]]:
    """(id, number of matches) of the papers whose title or abstract has every term of
    ``query`` (a quoted phrase as a phrase), most matches first, then by id."""
    terms = query_terms(query)
    if not terms:
        return []
    finders = [TermFinder(t) for t in terms]
    ids, hits = review.ids, []
    for k, text in candidates(review, [w for f in finders for w in f.words]):  # every term's words in it
        counts = [f.count(text) for f in finders]
        if all(counts):
            hits.append((ids[k], sum(counts)))
    return sorted(hits, key=lambda h: (-h[1], h[0]))


def semantic_search(review, query: str, k: int = 10) -> list[tuple[str, float]]:
    """The ``k`` papers nearest in meaning to ``query``, with cosine similarity."""
    query = _QUOTES.sub(" ", query).strip()  # the words of a quoted phrase carry its meaning
    if not query:
        return []
    vector = review.embed_texts([query])[0]
    return nearest(review, vector, k)


def nearest(review, vector: np.ndarray, k: int, exclude: Sequence[int] = ()) -> list[tuple[str, float]]:
    """The ``k`` papers whose embeddings are nearest ``vector`` (rows in ``exclude`` left out)."""
    sims = review.embeddings() @ np.asarray(vector, dtype=np.float32)
    if len(exclude):
        sims = sims.copy()
        sims[list(exclude)] = -np.inf
    order = np.argsort(-sims, kind="stable")[:k]
    ids = review.ids
    return [(ids[i], round(float(sims[i]), 4)) for i in order if np.isfinite(sims[i])]

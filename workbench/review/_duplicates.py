"""Pairs of papers that may be one paper: what a person is asked to settle.

Deduplication merges what its rules are sure of (:mod:`workbench.dedupe`). The pairs it leaves
apart but whose titles are alike (rapidfuzz ``ratio`` >= ``low``, 85 by default, compared within
the same blocks dedupe uses: titles sharing their first or last three words) are candidates: a
person says "same paper" or "different" (``store.duplicates.settle``), and a settled pair is never
proposed again. Each candidate says why it was not merged (different DOIs, different years and
first authors, numbering that differs, a title below the merge threshold).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..dedupe.rules import DEFAULT_THRESHOLD, first_author_key, title_key

__all__ = ["DuplicateCandidate", "candidates"]

LOW = 85.0


@dataclass(frozen=True)
class DuplicateCandidate:
    """Two papers of the review that may be one: their ids, titles, how alike, and why apart."""

    first: str
    second: str
    score: float
    why_apart: str
    first_title: str = ""
    second_title: str = ""


def _why_apart(p, q, score: float) -> str:
    for name, label in (("doi", "DOIs"), ("arxiv_id", "arXiv ids"), ("pmid", "PMIDs")):
        a, b = getattr(p, name), getattr(q, name)
        if a and b and a != b:
            return f"different {label} ({a} and {b})"
    if score < DEFAULT_THRESHOLD:
        return f"titles {score:.0f}% alike, below the merge threshold {DEFAULT_THRESHOLD:.0f}%"
    authors = first_author_key(p), first_author_key(q)
    if all(authors) and authors[0] != authors[1]:
        return f"different first authors ({authors[0]} and {authors[1]})"
    if p.year != q.year:
        return f"different years ({p.year} and {q.year})"
    return "numbering in the titles differs, or too short to compare"


def candidates(papers, settled: set[frozenset], low: float = LOW) -> list[DuplicateCandidate]:
    """Pairs of ``papers`` with titles at least ``low`` % alike that no verdict in ``settled``
    covers, most alike first."""
    from rapidfuzz import fuzz, process

    titles = [title_key(p.title) for p in papers]
    blocks: dict[tuple, list[int]] = defaultdict(list)
    for i, title in enumerate(titles):
        words = title.split()
        if len(words) >= 3:
            blocks[("first", *words[:3])].append(i)
            blocks[("last", *words[-3:])].append(i)
    seen: dict[tuple[int, int], float] = {}
    for members in blocks.values():
        if len(members) < 2:
            continue
        scores = process.cdist([titles[i] for i in members], [titles[i] for i in members], scorer=fuzz.ratio,
                               score_cutoff=low)
        for a, b in zip(*scores.nonzero()):
            if a < b:
                seen[(members[a], members[b])] = float(scores[a, b])
    out = []
    for (i, j), score in seen.items():
        p, q = papers[i], papers[j]
        if frozenset((p.id, q.id)) not in settled:
            out.append(DuplicateCandidate(p.id, q.id, round(score, 1), _why_apart(p, q, score), p.title, q.title))
    return sorted(out, key=lambda c: (-c.score, c.first, c.second))

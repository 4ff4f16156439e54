"""Who and where: the venues, authors and years of a set of papers.

Authors are counted by :func:`~workbench.field.names.author_key` (one count per paper, however
many ways the paper's sources wrote the name) and shown as they are written most often; venues by
:func:`~workbench.field.names.venue_key`. Papers without a venue, authors or year are counted as
such.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..corpus.paper import Paper
from .names import author_key, display_names, venue_key

__all__ = ["MAX_COAUTHORS", "FieldSummary", "coauthor_pairs", "summarise"]

#: Papers with more authors than this (consortia) count for the authors, not for co-authorship.
MAX_COAUTHORS = 25


@dataclass
class FieldSummary:
    """``venues``/``authors``: DataFrames (name, papers), the most frequent first (ties by name);
    ``years``: {year: papers}, oldest first; ``no_*``: papers without one; ``coauthors``: the
    co-authorship of these papers, pairs of authors (names normalised) by the papers they share
    (papers with more than :data:`MAX_COAUTHORS` authors, consortia, are left out of it)."""

    papers: int
    venues: object
    authors: object
    years: dict[int, int]
    no_venue: int
    no_authors: int
    no_year: int
    coauthors: object = None  # DataFrame (author, coauthor, papers): the pairs writing together most

    def describe(self, n: int = 3) -> str:
        """One line: ``120 papers, 2001-2020 (4 without a year); venues: ...; authors: ...``."""
        years = f"{min(self.years)}-{max(self.years)}" if self.years else "no years"
        venues = ", ".join(f"{r.name} ({r.papers})" for r in self.venues.head(n).itertuples()) or "none"
        authors = ", ".join(f"{r.name} ({r.papers})" for r in self.authors.head(n).itertuples()) or "none"
        return (f"{self.papers} papers, {years} ({self.no_year} without a year); "
                f"venues: {venues}; authors: {authors}")


def _ranked(counts: Counter, written, key, top: int | None):
    """The ``top`` keys by count as (name as written, papers); ties by name."""
    import pandas as pd

    if top:  # only the names of the keys that can make the list (ties at the cut included)
        cut = sorted(counts.values(), reverse=True)[min(top, len(counts)) - 1] if counts else 0
        counts = Counter({k: n for k, n in counts.items() if n >= cut})
    names = display_names(written, key, set(counts))
    rows = sorted(((names[k], n) for k, n in counts.items()), key=lambda r: (-r[1], r[0].casefold()))
    return pd.DataFrame(rows[:top] if top else rows, columns=["name", "papers"])


def coauthor_pairs(papers: Sequence[Paper], top: int | None = 10):
    """(author, coauthor, papers): pairs of authors by the papers they wrote together, most first."""
    import pandas as pd

    pairs: Counter = Counter()
    for p in papers:
        keys = sorted({author_key(a) for a in p.authors} - {""})
        if 1 < len(keys) <= MAX_COAUTHORS:
            pairs.update((a, b) for i, a in enumerate(keys) for b in keys[i + 1:])
    ranked = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:top] if top else sorted(
        pairs.items(), key=lambda kv: (-kv[1], kv[0]))
    wanted = {k for (a, b), _ in ranked for k in (a, b)}
    names = display_names((a for p in papers for a in p.authors), author_key, wanted)
    return pd.DataFrame([(names[a], names[b], n) for (a, b), n in ranked], columns=["author", "coauthor", "papers"])


def summarise(papers: Sequence[Paper], top: int | None = 10) -> FieldSummary:
    """The venues, authors and years of ``papers`` (``top``: how many venues and authors; None: all)."""
    authors: Counter = Counter()
    venues: Counter = Counter()
    years: Counter = Counter()
    for p in papers:
        authors.update({author_key(a) for a in p.authors} - {""})
        if p.venue and venue_key(p.venue):
            venues[venue_key(p.venue)] += 1
        if p.year is not None:
            years[p.year] += 1
    return FieldSummary(
        papers=len(papers),
        venues=_ranked(venues, (p.venue for p in papers if p.venue), venue_key, top),
        authors=_ranked(authors, (a for p in papers for a in p.authors), author_key, top),
        years=dict(sorted(years.items())),
        no_venue=sum(1 for p in papers if not (p.venue and venue_key(p.venue))),
        no_authors=sum(1 for p in papers if not p.authors),
        no_year=sum(1 for p in papers if p.year is None),
        coauthors=coauthor_pairs(papers, top),
    )

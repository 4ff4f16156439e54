"""The part of :class:`~workbench.review.Review` that sees the field (``review.field``): the citation links inside
the review, snowballing (citation searching beyond it), topics over time, and who and where
(venues, authors, years, co-authorship).

Everything reads the topics as they are now (``Review.labels`` and ``topic_labels()``, after
renames, merges, moves and undo; a review showing themes gives the themes), so the figures
follow the edits. The work is done by :mod:`workbench.field`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .. import field
from ..store import check_output
from . import _snowball

__all__ = ["ReviewField", "write_field_figures"]


class ReviewField:
    """Citations inside the review, topics over time, and who and where (``review.field``)."""

    def __init__(self, review):
        self.review = review
        self._field_links = None  # (the papers they were found among, the links)

    def __repr__(self) -> str:
        return f"<ReviewField of {self.review!r}>"

    def links(self) -> field.Links:
        """The citation links among the review's papers (computed once per review):
        ``.pairs`` of (citing id, cited id), ``.references`` (works the sources name),
        ``.resolved`` (those inside the review), ``.of(id)``, ``.times_cited()``."""
        cached = self._field_links
        if cached is None or cached[0] is not self.review.papers:
            cached = (self.review.papers, field.resolve_links(self.review.papers))
            self._field_links = cached
        return cached[1]

    def citations(self, paper_id: str) -> field.Citations:
        """Which papers of this review ``paper_id`` cites and which cite it (``.describe()``:
        "cites N / cited by M in this review")."""
        self.review.row(paper_id)  # an unknown id is an error naming the review
        return self.links().of(paper_id)

    def coupling(self, ids: Sequence[str]):
        """Bibliographic coupling of ``ids``: a DataFrame (rows and columns: the ids) of the
        cited works each pair has in common (the diagonal: the works each cites), from the
        references their sources carry."""
        import pandas as pd

        ids = list(ids)
        return pd.DataFrame(field.coupling([self.review.papers[r] for r in self.review.rows(ids)], self.review.papers), index=ids, columns=ids)

    def links_frame(self):
        """One row per link: citing, cited (ids), their titles and their topics now."""
        import pandas as pd

        labels = self.review.labels
        rows = [{"citing": a, "cited": b, "citing_title": self.review.paper(a).title, "cited_title": self.review.paper(b).title,
                 "citing_topic": int(labels[self.review.row(a)]), "cited_topic": int(labels[self.review.row(b)])}
                for a, b in self.links().pairs]
        return pd.DataFrame(rows, columns=["citing", "cited", "citing_title", "cited_title",
                                           "citing_topic", "cited_topic"])

    def most_cited(self, n: int = 5) -> dict[int, list[tuple[str, int]]]:
        """Per topic (now), its ``n`` papers most cited by other papers of the review:
        ``{topic: [(id, times cited), ...]}``, most cited first (ties in map order); papers
        nobody in the review cites are left out, and so are topics without any."""
        counts = self.links().times_cited()
        out: dict[int, list[tuple[str, int]]] = {}
        for pid in sorted(counts, key=lambda i: (-counts[i], self.review.row(i))):
            topic = int(self.review.labels[self.review.row(pid)])
            if len(out.setdefault(topic, [])) < n:
                out[topic].append((pid, counts[pid]))
        return out

    def over_time(self, window: int = 10) -> field.OverTime:
        """Papers per topic (now) per year, shares and trends (see :mod:`workbench.field.trends`:
        the slope of each topic's share over the last ``window`` years)."""
        return field.over_time([p.year for p in self.review.papers], self.review.labels, self.review.topic_labels(), window)

    def field_summary(self, ids: Sequence[str] | None = None, top: int | None = 10, topic: int | None = None):
        """Venues, authors (names normalised) and years of the papers ``ids`` (default: all), or
        of the papers of ``topic`` (now): a :class:`workbench.field.FieldSummary`."""
        return field.summarise(self._field_papers(ids, topic), top)

    def _field_papers(self, ids: Sequence[str] | None, topic: int | None) -> list:
        if topic is not None:
            return [p for p, t in zip(self.review.papers, self.review.labels) if int(t) == int(topic)]
        if ids is not None:
            return [self.review.papers[i] for i in self.review.rows(ids)]
        return list(self.review.papers)

    def links_around(self, ids: Sequence[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """The citation links touching the papers ``ids`` (a selection): (the links among
        them, the links between one of them and a paper outside), as (citing, cited) ids."""
        return self.links().around(ids)

    def coauthors(self, ids: Sequence[str] | None = None, topic: int | None = None, top: int | None = 20):
        """The co-authorship of the papers ``ids`` (default: all) or of ``topic`` (now): a
        ``networkx.Graph`` of the ``top`` authors by papers (names normalised), edges weighted
        by the papers written together (see :func:`workbench.field.coauthorship`)."""
        return field.coauthorship(self._field_papers(ids, topic), top)

    def coauthor_figure(self, ids: Sequence[str] | None = None, topic: int | None = None, top: int = 20,
                        labels: int = 12, title: str = ""):
        """:meth:`coauthors` drawn (a matplotlib Figure): dot size = papers, line width = papers
        written together, groups of co-authors in the map's palette, the ``labels`` largest named."""
        from ..field.figures import plot_coauthors

        graph = self.coauthors(ids, topic, top)
        whose = (f"topic {topic}: {self.review.topic_labels().get(int(topic), 'Unassigned')}" if topic is not None
                 else f"{graph.graph['papers']} selected papers" if ids is not None else "all papers")
        return plot_coauthors(graph, title or f"Who writes with whom: {whose}"[:90], labels=labels)

    def over_time_figure(self, shares: bool = False, top: int = 8, title: str = ""):
        """The topics-over-time figure (a matplotlib Figure): papers per topic per year as a
        stacked area, the ``top`` largest topics in their map colours, a bar for the papers
        without a year; ``shares``: each year's shares instead of counts."""
        from ..field.figures import plot_over_time

        return plot_over_time(self.over_time(), self.review.topic_labels(), title, top=top, shares=shares)

    def field_figure(self, ids: Sequence[str] | None = None, title: str = ""):
        """Papers per year, top venues and top authors of ``ids`` (default: all) as a Figure."""
        from ..field.figures import plot_field

        return plot_field(self.field_summary(ids), title)

    def ids_in_year(self, year: int | None) -> list[str]:
        """The ids of the papers of ``year`` (None: those without a year), in map order (what a
        click on a year selects)."""
        return [p.id for p in self.review.papers if p.year == year]

    def snowball(self, direction: str = "backward", from_="included", reviewer: str | None = None, *,
                 store=None) -> field.Snowball:
        """The works outside the review that its included papers cite (backward) or that cite them
        (forward), ranked by how many point to each (``from_``: ``"included"``, ``"all"`` or ids),
        read as ``reviewer`` or through ``store`` (a session's open store):
        :func:`workbench.review._snowball.snowball`."""
        return _snowball.snowball(self.review, direction, from_, reviewer, store)


def write_field_figures(review, folder: str | os.PathLike, title: str = "") -> dict[str, Path]:
    """``over_time.png``/``.svg``, ``field.png``/``.svg`` and ``coauthors.png``/``.svg`` (the
    review's co-authorship) into ``folder`` (refused when it is a review's state:
    :func:`workbench.store.check_output`); returns the paths by name (``over_time_png``, ...)."""
    from ..field.figures import save_figure

    check_output(folder, folder=True, purpose="the field figures")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    if review.field.over_time().chartable:  # else no chart: too few papers carry a year (the report says so)
        out.update({f"over_time_{k}": v for k, v in save_figure(review.field.over_time_figure(title=title),
                                                               folder / "over_time").items()})
    fig = review.field.field_figure()
    out.update({f"field_{k}": v for k, v in save_figure(fig, folder / "field").items()})
    fig = review.field.coauthor_figure()
    out.update({f"coauthors_{k}": v for k, v in save_figure(fig, folder / "coauthors").items()})
    return out

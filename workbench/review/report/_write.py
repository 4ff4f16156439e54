"""The review's report: ``report.md``, ``report.html``, a static map and the exports, written into
the review folder (``<review>/report/`` by default).

The report has the review's title (the ``title`` setting in the store, set with ``workbench
title``; by default the review folder's name), the screening counts (screened, included,
excluded, maybe, undecided) of each reviewer, the PRISMA 2020 counts (for a review screened as a
systematic review), the included, excluded and maybe papers of the
reviewer it is written for with their reasons, notes and the other reviewers' decisions, and one
section per topic: label, size, words, screening, representative, included and tagged papers,
notes. The Markdown and the HTML say the same; all paper text is escaped in the HTML and shown
as text in the Markdown.

Modules: ``_report_content`` (what the report says, read once), ``_report_render`` (Markdown and
HTML), ``_report_map`` (the datamapplot PNG), ``_report_field`` (the "Field" part: topics over
time, citation links, venues and authors; its figures over_time.png/.svg, field.png/.svg
and coauthors.png/.svg).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..._runtime.fsutil import atomic_write_text
from ...space.palette import topic_colours
from ...store import check_output
from ._content import (
    ReportContent,
    TopicSection,
    report_content,
    review_title,
    topic_sections,
)
from .._field import write_field_figures
from .._prisma import write_diagram
from ._map import label_colours, write_static_map
from ._render import to_html, to_markdown
from .._review import Review

__all__ = ["ReportContent", "TopicSection", "label_colours", "report_content", "report_topic_colours",
           "review_title", "topic_sections", "write_exports", "write_report", "write_static_map"]


def report_topic_colours(review: Review) -> dict[int, str] | None:
    """The report map's colour of each topic id (``{topic id: "#rrggbb"}``): the palette the
    explore map and ``map.html`` share (:mod:`workbench.space.palette`), keyed by topic id."""
    sizes = review.papers_frame().groupby("topic").size()
    return topic_colours({int(t): int(n) for t, n in sizes.items()})


def write_exports(store, folder: str | os.PathLike) -> dict[str, Path]:
    check_output(folder, folder=True, purpose="the exports")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for fmt, suffix in (("csv", "csv"), ("bibtex", "bib"), ("ris", "ris"), ("jsonl", "jsonl")):
        path = folder / f"annotations.{suffix}"
        store.files.export(fmt, path)
        out[fmt] = path
    return out


def write_report(review: Review, folder: str | os.PathLike | None = None, image: bool = True,
                 reviewer: str | None = None, title: str | None = None,
                 prisma: bool | None = None) -> dict[str, Path]:
    """Write report.md, report.html, map.png and the exports into ``folder`` (default:
    ``<review>/report``); the decisions listed are ``reviewer``'s (default: the store's).

    ``title`` sets the review's title first (kept in its store, as ``workbench title`` does, and
    recorded in the history as ``reviewer``); by default the title already set is used.
    ``prisma``: the PRISMA 2020 counts as a table (and, with ``image``, prisma.svg and
    prisma.png); None: for a review screened as a systematic review (search provenance, full-text
    or final decisions, or team settings), not for an exploratory map of papers.
    """
    folder = Path(folder or review.path / "report")
    check_output(folder, folder=True, purpose="the report")
    folder.mkdir(parents=True, exist_ok=True)
    with review.store(reviewer=reviewer) as store:
        if title is not None:
            store.settings.set("title", title)
        content = report_content(review, store, prisma=prisma)
        written = {}
        if image:
            written["map"] = write_static_map(review, folder / "map.png", content.title,
                                              report_topic_colours(review))
        if image and content.prisma is not None:
            written["prisma_svg"], written["prisma_png"] = write_diagram(content.prisma, folder)
        if image:
            written.update(write_field_figures(review, folder))
        field_images = tuple(f"{name}.png" for name in ("over_time", "field", "coauthors")
                             if f"{name}_png" in written) if image else ()
        atomic_write_text(folder / "report.md", to_markdown(content))
        atomic_write_text(folder / "report.html", to_html(content, "map.png" if image else None,
                                                          "prisma.png" if "prisma_png" in written else None,
                                                          field_images))
        written.update(markdown=folder / "report.md", html=folder / "report.html")
        written.update(write_exports(store, folder))
    return written

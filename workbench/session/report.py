"""The team's numbers for a notebook cell: agreement per pair of reviewers with Krippendorff's
alpha (:func:`agreement_table`) and the PRISMA 2020 flow diagram with its counts
(:func:`prisma_figure`). Plain Python: each returns an object that Jupyter shows as HTML (its
``html`` is the same text, for tests), computed by the review's API (``review.team.agreement``,
``review.team.conflicts``, ``review.team.prisma``).
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import WorkbenchError
from ..corpus.paper import STAGE_NAMES, TITLE_ABSTRACT
from .text import escape

__all__ = ["Shown", "agreement_table", "prisma_figure"]



@dataclass(frozen=True)
class Shown:
    """HTML for a notebook cell; ``data`` holds what it was made from (for tests and scripts)."""

    html: str
    data: dict = field(default_factory=dict)

    def _repr_html_(self) -> str:
        return self.html


def _number(stat) -> str:
    if stat.value is None or (isinstance(stat.value, float) and math.isnan(stat.value)):
        return f"<span class='wb-meta' title='{escape(stat.reason)}'>n/a</span>"
    return f"{stat.value:.2f}"


def agreement_table(review, stage: str = TITLE_ABSTRACT) -> Shown:
    """Agreement per pair of reviewers on the papers both screened at ``stage`` (raw agreement,
    Cohen's kappa, Gwet's AC1, the overlap), Krippendorff's alpha across all reviewers, and the
    open conflicts; n/a values say why on hover and below the table."""
    report = review.team.agreement(stage)
    conflicts = len(review.team.conflicts(stage))
    head = (f"<h4>Agreement at {STAGE_NAMES[stage]}</h4>"
            f"<div class='wb-meta'>{len(report.reviewers)} reviewers · {report.papers} papers screened · "
            f"{conflicts} open conflict{'s' if conflicts != 1 else ''}</div>")
    if len(report.reviewers) < 2:
        body = f"<p class='wb-meta'>{escape(report.lines()[0])}</p>"
        return Shown(head + body, {"report": report, "conflicts": conflicts})
    rows = "".join(
        f"<tr><td>{escape(p.first)}</td><td>{escape(p.second)}</td><td>{p.overlap}</td>"
        f"<td>{_number(p.raw)}</td><td>{_number(p.kappa)}</td><td>{_number(p.ac1)}</td></tr>" for p in report.pairs)
    why = [f"{p.first} vs {p.second}: {s.name}: {s.reason}" for p in report.pairs for s in p.statistics()
           if not s.defined]
    table = ("<table class='wb-agreement'><tr><th>reviewer</th><th>reviewer</th><th>papers both screened</th>"
             "<th>raw agreement</th><th>Cohen's kappa</th><th>Gwet's AC1</th></tr>" + rows + "</table>")
    alpha = f"<p>Across all reviewers: Krippendorff's alpha {_number(report.alpha)}</p>"
    notes = "".join(f"<li>{escape(w)}</li>" for w in why + ([f"alpha: {report.alpha.reason}"]
                                                            if not report.alpha.defined else []))
    return Shown(head + table + alpha + (f"<ul class='wb-meta'>{notes}</ul>" if notes else ""),
                 {"report": report, "conflicts": conflicts})


def prisma_figure(review, write: bool = True, update: bool | None = None, table: bool = True) -> Shown:
    """The PRISMA 2020 flow diagram of the review (``review.team.prisma``: drawn to
    ``report/prisma.svg`` and ``prisma.png`` with ``write``) shown inline, and its counts as a
    table (``table=False``: not, where the report above already shows them); a review updated by
    a search with its provenance gets the updated-review diagram of its latest update, said above
    it (``update=False``: the plain one, ``True``: the updated one). Counts that do not add up
    are said in a sentence instead (nothing is drawn)."""
    try:
        counts = review.team.prisma(write=write, update=update)
    except WorkbenchError as err:
        return Shown(f"<p class='wb-err'>No PRISMA diagram: {escape(str(err))}</p>", {"error": str(err)})
    latest = review.updates.latest() if counts.updated and update is not False else None
    said = ""
    if latest is not None:
        files = ", ".join(Path(f).name for f in latest.files)
        said = (f"<p class='wb-meta wb-prisma-update'>PRISMA 2020 for an updated review: the update of "
                f"{escape(latest.since)} ({escape(files)}) against the studies included before it; "
                "<code>prisma_figure(review, update=False)</code> draws the plain diagram over every record.</p>")
    png = Path(review.path) / "report" / "prisma.png"
    image = ""
    if write and png.exists():
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        image = f"<img class='wb-prisma' alt='PRISMA 2020 flow diagram' src='data:image/png;base64,{data}' style='max-width:100%'>"
    rows = "".join(f"<tr><td>{escape(stage)}</td><td>{escape(box)}</td><td class='wb-n'>{n}</td></tr>"
                   for stage, box, n in counts.rows())
    counts_table = (f"<table class='wb-prisma-counts'><tr><th>stage</th><th>box</th><th>n</th></tr>{rows}</table>"
                    if table or not image else "")
    return Shown(said + image + counts_table, {"counts": counts, "png": png if image else None, "update": latest})

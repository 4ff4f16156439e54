"""Drawing the PRISMA 2020 flow diagram (of :class:`~.prisma.PrismaCounts`) with matplotlib, laid out like the official templates.

Columns (left to right): the phase bars, the previous version's studies (updated reviews only),
the databases-and-registers flow and its side boxes (records removed, excluded, not retrieved,
reports excluded), then the other-methods flow and its side boxes when there are other methods.
Rows: the column headers, identification, records screened, reports sought, reports assessed,
studies included, and the totals (updated reviews only). Every box in a row has the row's
height, so the side arrows run straight. The layout is plain data (:func:`layout`), the drawing
one pass over it; text stays text in the SVG (``svg.fonttype: none``).
"""

from __future__ import annotations

import io
import textwrap
from dataclasses import dataclass
from itertools import pairwise

from .prisma import PrismaCounts

__all__ = ["figure", "layout", "render_diagram"]

FONT_PT = 9
LINE_IN = FONT_PT * 1.35 / 72  # one line of text, in inches
PAD_IN = 0.09
BOX_IN, GAP_IN, PHASE_IN, ROW_GAP_IN, MARGIN_IN = 2.9, 0.4, 0.42, 0.32, 0.2
WRAP_CHARS = 44
HEADER_CHARS = 34  # bold text is wider
MIN_INCLUDED_IN = 0.85
GOLD, GREY, BLUE = "#FFC000", "#D9D9D9", "#9DC3E6"


@dataclass(frozen=True)
class Box:
    col: str
    row: str
    lines: tuple[str, ...]
    fill: str = "white"
    bold: bool = False


def _n(label: str, n: int) -> str:
    return f"{label} (n = {n})"


def _wrap(lines: list[str], width: int = WRAP_CHARS) -> tuple[str, ...]:
    """Lines wrapped to the box; an indented line is an item of a list, and "(n = 12)" never breaks."""
    out = []
    for line in lines:
        indent = "    " if line.startswith("  ") else ""
        glued = line.strip().replace(" (n = ", "\u00a0(n\u00a0=\u00a0")
        wrapped = textwrap.wrap(glued, width, initial_indent=indent, subsequent_indent=indent + "  ") or [""]
        out += [w.replace("\u00a0", " ") for w in wrapped]
    return tuple(out)


def _header(text: str) -> tuple[str, ...]:
    return tuple(textwrap.wrap(text, HEADER_CHARS))


def _listed(title: str, items, total: int | None = None) -> list[str]:
    head = _n(title, total) if total is not None else title + ":"
    return [head] + [f"  {_n(name, n)}" for name, n in items]


def _main_boxes(c: PrismaCounts) -> list[Box]:
    ident = ["Records identified from:", _n("Databases", sum(c.databases.values()))]
    ident += [f"  {_n(k, v)}" for k, v in c.databases.items()]
    if c.registers:
        ident += [_n("Registers", sum(c.registers.values()))] + [f"  {_n(k, v)}" for k, v in c.registers.items()]
    removed = ["Records removed before screening:", _n("  Duplicate records removed", c.duplicates_removed),
               _n("  Records marked as ineligible by automation tools", c.removed_by_automation),
               _n("  Records removed for other reasons", c.removed_other)]
    screened = [_n("Records screened", c.records_screened)]
    if c.records_awaiting:
        screened.append(_n("  Awaiting screening or a second screen", c.records_awaiting))
    excluded = _listed("Records excluded", c.excluded_reasons.items(), c.records_excluded)
    if c.excluded_ranked is not None:
        excluded.append(_n("  of which screened in ranked order", c.excluded_ranked))
    sought = [_n("Reports sought for retrieval", c.reports_sought)]
    if c.reports_awaiting:
        sought.append(_n("  Awaiting assessment", c.reports_awaiting))
    new = "new " if c.updated else ""
    included = [_n("New studies included in review" if c.updated else "Studies included in review", c.studies_included),
                _n(f"Reports of {new}included studies", c.included_reports)]
    head = f"Identification of {new}studies via databases and registers"
    return [Box("main", "header", _header(head), GOLD, True), Box("main", "ident", _wrap(ident)),
            Box("main_side", "ident", _wrap(removed)), Box("main", "screened", _wrap(screened)),
            Box("main_side", "screened", _wrap(excluded)), Box("main", "sought", _wrap(sought)),
            Box("main_side", "sought", _wrap([_n("Reports not retrieved", c.reports_not_retrieved)])),
            Box("main", "assessed", _wrap([_n("Reports assessed for eligibility", c.reports_assessed)])),
            Box("main_side", "assessed", _wrap(_excluded_reports(c.reports_excluded))),
            Box("main", "included", _wrap(included))]


def _excluded_reports(reasons) -> list[str]:
    if not reasons:
        return [_n("Reports excluded", 0)]
    return _listed("Reports excluded", reasons.items(), sum(reasons.values()))


def _extra_boxes(c: PrismaCounts) -> list[Box]:
    boxes = []
    if c.other is not None:
        o = c.other
        boxes += [Box("other", "header", _header("Identification of studies via other methods"), GREY, True),
                  Box("other", "ident", _wrap(_listed("Records identified from", o.identified.items()))),
                  Box("other", "sought", _wrap([_n("Reports sought for retrieval", o.sought)]
                                               + ([_n("  Awaiting assessment", o.awaiting)] if o.awaiting else []))),
                  Box("other_side", "sought", _wrap([_n("Reports not retrieved", o.not_retrieved)])),
                  Box("other", "assessed", _wrap([_n("Reports assessed for eligibility", o.assessed)])),
                  Box("other_side", "assessed", _wrap(_excluded_reports(o.excluded)))]
    if c.updated:
        prev_reports = c.previous_reports if c.previous_reports is not None else c.previous_studies
        boxes += [Box("previous", "header", _header("Previous studies"), GREY, True),
                  Box("previous", "ident", _wrap([
                      _n("Studies included in previous version of review", c.previous_studies),
                      _n("Reports of studies included in previous version of review", prev_reports)])),
                  Box("main", "total", _wrap([
                      _n("Total studies included in review", c.previous_studies + c.studies_included),
                      _n("Reports of total included studies", prev_reports + c.included_reports)]))]
    return boxes


@dataclass(frozen=True)
class Layout:
    boxes: tuple[Box, ...]
    x: dict[str, float]  # left edge of each column
    y: dict[str, float]  # top of each row (y grows downwards)
    height: dict[str, float]  # each row's height
    size: tuple[float, float]  # figure width, height in inches


def layout(c: PrismaCounts) -> Layout:
    """Where every box goes, in inches from the top left."""
    boxes = tuple(_main_boxes(c) + _extra_boxes(c))
    cols = (["previous"] if c.updated else []) + ["main", "main_side"] + (["other", "other_side"] if c.other else [])
    x, left = {}, MARGIN_IN + PHASE_IN + GAP_IN / 2
    for col in cols:
        x[col], left = left, left + BOX_IN + GAP_IN
    rows = ["header", "ident", "screened", "sought", "assessed", "included"] + (["total"] if c.updated else [])
    y, height, top = {}, {}, MARGIN_IN
    for row in rows:
        lines = max(len(b.lines) for b in boxes if b.row == row)
        y[row], height[row] = top, lines * LINE_IN + 2 * PAD_IN
        if row == rows[-1] == "included":  # room for the phase bar's label
            height[row] = max(height[row], MIN_INCLUDED_IN)
        top += height[row] + ROW_GAP_IN
    return Layout(boxes, x, y, height, (left - GAP_IN + MARGIN_IN, top - ROW_GAP_IN + MARGIN_IN))


def _phases(lay: Layout) -> list[tuple[str, float, float]]:
    last = "total" if "total" in lay.y else "included"
    span = [("Identification", "ident", "ident"), ("Screening", "screened", "assessed"), ("Included", "included", last)]
    return [(name, lay.y[a], lay.y[b] + lay.height[b]) for name, a, b in span]


def _arrow(ax, points: list[tuple[float, float]]) -> None:
    """A line through ``points`` with an arrowhead at the last one."""
    for (x0, y0), (x1, y1) in pairwise(points[:-1]):
        ax.plot([x0, x1], [y0, y1], color="black", linewidth=1, solid_capstyle="butt")
    ax.annotate("", xy=points[-1], xytext=points[-2],
                arrowprops={"arrowstyle": "-|>", "color": "black", "linewidth": 1, "shrinkA": 0, "shrinkB": 0})


def _arrows(ax, lay: Layout) -> None:
    mid_x = {col: left + BOX_IN / 2 for col, left in lay.x.items()}
    mid_y = {row: top + lay.height[row] / 2 for row, top in lay.y.items()}
    down = ["ident", "screened", "sought", "assessed", "included"] + (["total"] if "total" in lay.y else [])
    for upper, lower in pairwise(down):
        _arrow(ax, [(mid_x["main"], lay.y[upper] + lay.height[upper]), (mid_x["main"], lay.y[lower])])
    for row in ("ident", "screened", "sought", "assessed"):
        _arrow(ax, [(lay.x["main"] + BOX_IN, mid_y[row]), (lay.x["main_side"], mid_y[row])])
    if "other" in lay.x:
        for upper, lower in (("ident", "sought"), ("sought", "assessed")):
            _arrow(ax, [(mid_x["other"], lay.y[upper] + lay.height[upper]), (mid_x["other"], lay.y[lower])])
        for row in ("sought", "assessed"):
            _arrow(ax, [(lay.x["other"] + BOX_IN, mid_y[row]), (lay.x["other_side"], mid_y[row])])
        _arrow(ax, [(mid_x["other"], lay.y["assessed"] + lay.height["assessed"]),
                    (mid_x["other"], mid_y["included"]), (lay.x["main"] + BOX_IN, mid_y["included"])])
    if "previous" in lay.x:
        _arrow(ax, [(mid_x["previous"], lay.y["ident"] + lay.height["ident"]),
                    (mid_x["previous"], mid_y["total"]), (lay.x["main"], mid_y["total"])])


def figure(c: PrismaCounts):
    """The diagram as a matplotlib Figure (no pyplot: nothing is shown or kept open)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch

    lay = layout(c)
    fig = Figure(figsize=lay.size)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, lay.size[0])
    ax.set_ylim(lay.size[1], 0)
    ax.axis("off")
    for box in lay.boxes:
        left, top, h = lay.x[box.col], lay.y[box.row], lay.height[box.row]
        ax.add_patch(FancyBboxPatch((left, top), BOX_IN, h, boxstyle="round,pad=0,rounding_size=0.06",
                                    facecolor=box.fill, edgecolor="black", linewidth=1))
        first = top + (h - len(box.lines) * LINE_IN) / 2 if box.row == "header" else top + PAD_IN
        for i, line in enumerate(box.lines):
            centred = box.row == "header"
            ax.text(left + (BOX_IN / 2 if centred else PAD_IN), first + i * LINE_IN, line, fontsize=FONT_PT,
                    ha="center" if centred else "left", va="top", parse_math=False,
                    fontweight="bold" if box.bold else "normal")
    for name, top, bottom in _phases(lay):
        ax.add_patch(FancyBboxPatch((MARGIN_IN, top), PHASE_IN, bottom - top, facecolor=BLUE, edgecolor=BLUE,
                                    boxstyle="round,pad=0,rounding_size=0.08"))
        ax.text(MARGIN_IN + PHASE_IN / 2, (top + bottom) / 2, name, rotation=90, ha="center", va="center",
                fontsize=FONT_PT + 1, fontweight="bold", parse_math=False)
    _arrows(ax, lay)
    return fig


def render_diagram(counts: PrismaCounts, *, check: bool = True, dpi: int = 200) -> tuple[str, bytes]:
    """The flow diagram as SVG text and PNG bytes (the review writes them, checking where: see
    :func:`workbench.review.write_diagram`). The counts are checked first unless ``check=False``."""
    import matplotlib

    if check:
        counts.check()
    fig = figure(counts)
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "workbench-prisma"}):
        svg = io.StringIO()
        fig.savefig(svg, format="svg", metadata={"Date": None})
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=dpi, metadata={"Software": None})
    return svg.getvalue(), png.getvalue()

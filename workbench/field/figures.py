"""The field's figures (matplotlib, on the map's palette), saved as PNG and SVG.

* :func:`plot_over_time`: papers per topic per year as a stacked area (the ``top`` largest
  topics in their map colours, the rest as "other topics", the unassigned papers grey), with a
  bar beside it for the papers without a year, so none is dropped silently;
* :func:`plot_field`: papers per year, the top venues and the top authors of a set of papers;
* :func:`plot_coauthors`: the co-authorship graph of :func:`~workbench.field.coauthors.coauthorship`
  (its connected groups in the palette's colours, lone authors grey, the largest named).
"""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Mapping
from pathlib import Path

from .._runtime.fsutil import atomic_write_bytes
from ..space.palette import OUTLIER_COLOUR, PALETTE, topic_colours
from .summary import FieldSummary
from .trends import NO_YEAR, OverTime

__all__ = ["plot_coauthors", "plot_field", "plot_over_time", "save_figure"]

OTHER_COLOUR = "#dddddd"


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, stem: str | os.PathLike) -> dict[str, Path]:
    """``<stem>.png`` and ``<stem>.svg`` (text stays text, the same bytes for the same figure),
    each written whole through a rename; the figure is closed."""
    import matplotlib

    plt = _pyplot()
    stem = Path(stem)
    out = {}
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "workbench-field"}):
        for ext in ("png", "svg"):
            path = stem.with_suffix(f".{ext}")
            data = io.BytesIO()
            fig.savefig(data, format=ext, dpi=120, bbox_inches="tight",
                        metadata={"Date": None} if ext == "svg" else None)
            atomic_write_bytes(path, data.getvalue())
            out[ext] = path
    plt.close(fig)
    return out


def _layers(over: OverTime, labels: Mapping[int, str], top: int):
    """(name, colour, counts per year) for each band, bottom first."""
    counts = over.counts
    years = over.years
    topics = [t for t in counts.index if t >= 0]
    largest = sorted(topics, key=lambda t: (-int(counts.loc[t].sum()), t))[:top]
    colours = topic_colours(topics)
    bands = [(f"{t}: {labels.get(t, f'Topic {t}')}"[:40], colours[t], counts.loc[t]) for t in largest]
    rest = [t for t in topics if t not in largest]
    if rest:
        bands.append((f"{len(rest)} other topics", OTHER_COLOUR, counts.loc[rest].sum(axis=0)))
    if -1 in counts.index:
        bands.append(("Unassigned", OUTLIER_COLOUR, counts.loc[-1]))
    return years, bands


def _first_shown(years: list[int], totals, tail: float = 0.02) -> int:
    """The first year drawn: where the earliest ``tail`` of the papers with a year ends (a long
    thin tail of old papers would squeeze the decades that matter)."""
    cumulative = totals.cumsum() / max(float(totals.sum()), 1.0)
    return next((y for y in years if cumulative[y] >= tail), years[0]) if years else 0


def _no_year_bar(side, bands, no_year: int) -> None:
    bottom = 0
    for name, colour, row in bands:
        side.bar([0], [int(row[NO_YEAR])], bottom=bottom, color=colour, edgecolor="white", linewidth=0.4)
        bottom += int(row[NO_YEAR])
    side.set_xticks([0], [NO_YEAR])
    side.set_title(f"{no_year}", fontsize=9)
    side.spines[["top", "right"]].set_visible(False)
    side.set_ylabel("papers", fontsize=8)
    if not no_year:
        side.set_yticks([])


def plot_over_time(over: OverTime, labels: Mapping[int, str], title: str = "", top: int = 8, shares: bool = False):
    """The figure (see the module docstring); ``shares``: each year's shares instead of counts."""
    plt = _pyplot()
    years, bands = _layers(over, labels, top)
    fig, (ax, side) = plt.subplots(1, 2, figsize=(10, 4.8), gridspec_kw={"width_ratios": [12, 1]})
    totals = sum(b[2][years] for b in bands) if bands else None
    notes = [f"Trend: {over.measure}."]
    if years and bands:
        values = [(b[2][years] / totals.where(totals > 0)).fillna(0) * 100 if shares else b[2][years] for b in bands]
        ax.stackplot(years, *values, colors=[b[1] for b in bands], labels=[b[0] for b in bands],
                     edgecolor="white", linewidth=0.4)
        first = _first_shown(years, totals)
        ax.set_xlim(first, years[-1])
        before = int(totals[[y for y in years if y < first]].sum())
        if before:
            notes.insert(0, f"{before} papers of {years[0]}-{first - 1} lie left of the axis.")
    ax.set_ylabel("share of the year's papers (%)" if shares else "papers per year")
    ax.set_xlabel("year")
    ax.spines[["top", "right"]].set_visible(False)
    handles, names = ax.get_legend_handles_labels()
    fig.legend(handles, names, loc="upper left", bbox_to_anchor=(0.06, 0.0), ncol=3, fontsize=8, frameon=False)
    ax.set_title(title or "Papers per topic per year", loc="left", fontsize=11)
    _no_year_bar(side, bands, over.no_year)
    rows = (len(bands) + 2) // 3
    fig.text(0.01, -0.04 - 0.045 * rows, " ".join(notes), fontsize=7, color="#555555")
    return fig


def _series(counts: Mapping[int, int]):
    import pandas as pd

    return pd.Series(counts, dtype=float)


def _barh(ax, frame, title: str, colour: str) -> None:
    names = [n if len(n) <= 45 else n[:44] + "…" for n in frame["name"]][::-1]
    ax.barh(names, list(frame["papers"])[::-1], color=colour)
    ax.set_title(title, loc="left", fontsize=10)
    ax.tick_params(axis="y", labelsize=8)
    ax.spines[["top", "right"]].set_visible(False)


def plot_field(summary: FieldSummary, title: str = "", colour: str = PALETTE[0]):
    """Papers per year (with those without a year), the top venues and the top authors."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), gridspec_kw={"width_ratios": [4, 3, 3]})
    years = list(summary.years)
    ax = axes[0]
    ax.bar(years, [summary.years[y] for y in years], color=colour, width=0.85)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
    ax.tick_params(axis="x", labelsize=8)
    if years:
        first = _first_shown(years, _series(summary.years))
        ax.set_xlim(first - 0.6, (max(years) + 2.6) if summary.no_year else max(years) + 0.6)
        before = sum(n for y, n in summary.years.items() if y < first)
        if before:
            ax.annotate(f"{before} papers before {first} not shown", (0.02, 0.97), xycoords="axes fraction",
                        fontsize=7, color="#555555", va="top")
    if summary.no_year:
        x = (max(years) + 2) if years else 0
        ax.bar([x], [summary.no_year], color=OUTLIER_COLOUR, width=0.85)
        ticks = [int(t) for t in ax.get_xticks() if years and first <= t <= max(years)]
        ax.set_xticks(ticks + [x], [str(t) for t in ticks] + [NO_YEAR])
    ax.set_title(title or f"{summary.papers} papers per year", loc="left", fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    _barh(axes[1], summary.venues, f"Top venues ({summary.no_venue} papers without one)", colour)
    _barh(axes[2], summary.authors, f"Top authors ({summary.no_authors} papers without any)", colour)
    fig.tight_layout()
    return fig


def _group_colours(graph) -> dict[str, str]:
    """Each author's colour: the i-th largest group of co-authors (more than one author) the
    palette's i-th colour, lone authors grey."""
    import networkx as nx

    groups = sorted(nx.connected_components(graph),
                    key=lambda g: (-len(g), -sum(graph.nodes[k]["papers"] for k in g), min(g)))
    colours = {}
    for i, group in enumerate(g for g in groups if len(g) > 1):
        colours.update({k: PALETTE[i % len(PALETTE)] for k in group})
    return {k: colours.get(k, OUTLIER_COLOUR) for k in graph}


def _caption(graph) -> str:
    g = graph.graph
    heaviest = max((w for _, _, w in graph.edges(data="weight")), default=0)
    text = (f"The {g['shown']} authors with most papers, of {g['authors']} authors of {g['papers']} papers "
            f"(names normalised to surname and initial). A line joins authors who wrote papers together "
            f"(thicker: more; the most: {heaviest}); a dot's size is the author's papers.")
    if g["consortia"]:
        text += (f" {g['consortia']} paper{'s' if g['consortia'] > 1 else ''} with more than 25 authors "
                 "drew no lines.")
    return text


def _box_layout(group, graph) -> dict:
    """Positions of one group of co-authors inside a unit box centred on 0 (three or more: a
    seeded spring layout from a circle, each axis partly evened out by rank so a dense core does
    not pile up; deterministic)."""
    import networkx as nx
    import numpy as np

    nodes = sorted(group)
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    if len(nodes) == 2:
        return {nodes[0]: (-0.3, 0.12), nodes[1]: (0.3, -0.12)}  # aslant: their names do not meet
    sub = graph.subgraph(nodes)
    start = nx.circular_layout(sub)  # nodes in key order round a circle, then a seeded spring layout
    pos = nx.spring_layout(sub, pos=start, k=2.2 / len(nodes) ** 0.5, iterations=120, seed=42, weight=None)
    xy = np.array([pos[k] for k in nodes])
    xy = (xy - xy.min(axis=0)) / np.maximum(np.ptp(xy, axis=0), 1e-9)  # the box, edge to edge
    ranks = xy.argsort(axis=0).argsort(axis=0) / (len(nodes) - 1)  # evenly spaced, same order
    xy = 0.4 * xy + 0.6 * ranks - 0.5  # a dense core pulled apart, the shape kept
    return {k: (float(x) * 0.84, float(y) * 0.84) for k, (x, y) in zip(nodes, xy)}


def _layout(graph) -> dict:
    """Each group of co-authors in a box of its own (side ~ the square root of its size), the
    boxes packed in rows, largest first, lone authors last: no group lies over another."""
    import networkx as nx

    groups = sorted(nx.connected_components(graph), key=lambda g: (-len(g), min(g)))
    width = max(3.0, 1.6 * len(graph) ** 0.5)
    pos, x, y, row = {}, 0.0, 0.0, 0.0
    for group in groups:
        side = max(1.0, 1.5 * len(group) ** 0.5)
        if x and x + side > width:
            x, y, row = 0.0, y - row, 0.0
        for k, (px, py) in _box_layout(group, graph).items():
            pos[k] = (x + side / 2 + px * side, y - side / 2 + py * side)
        x, row = x + side, max(row, side)
    return pos


def plot_coauthors(graph, title: str = "", labels: int = 12):
    """The co-authorship graph: dot size = papers, line width = papers written together, the
    ``labels`` authors with most papers named under their dots (ties by key)."""
    import networkx as nx

    plt = _pyplot()
    pos = _layout(graph) if len(graph) else {}
    xy = list(pos.values()) or [(0.0, 0.0)]
    wide = max(x for x, _ in xy) - min(x for x, _ in xy) + 1.5
    high = max(y for _, y in xy) - min(y for _, y in xy) + 1.5
    size = (7.5, max(3.5, 7.5 * high / wide)) if wide >= high else (max(5.0, 7.5 * wide / high), 7.5)
    fig, ax = plt.subplots(figsize=size)
    ax.set_axis_off()
    fig.suptitle(title or "Who writes with whom", x=0.01, ha="left", fontsize=11)
    if not len(graph):
        ax.text(0.5, 0.5, "no authors in these papers", ha="center", va="center", color="#555555")
        return fig
    most = max(graph.nodes[k]["papers"] for k in graph)
    heaviest = max((w for _, _, w in graph.edges(data="weight")), default=1)
    weights = [w / heaviest for _, _, w in graph.edges(data="weight")]  # weak ties faint, strong ones stand out
    nx.draw_networkx_edges(graph, pos, ax=ax, edge_color=[(0.45, 0.45, 0.45, 0.2 + 0.6 * w) for w in weights],
                           width=[0.6 + 3.4 * w for w in weights])
    colours = _group_colours(graph)
    nodes = list(graph)
    sizes = {k: 50 + 450 * graph.nodes[k]["papers"] / most for k in nodes}
    nx.draw_networkx_nodes(graph, pos, ax=ax, nodelist=nodes, node_color=[colours[k] for k in nodes],
                           node_size=[sizes[k] for k in nodes], edgecolors="white", linewidths=0.8)
    for k in sorted(graph, key=lambda k: (-graph.nodes[k]["papers"], k))[:labels]:
        node = graph.nodes[k]
        ax.annotate(f"{node['name'][:36]} ({node['papers']})", pos[k], xytext=(0, -(sizes[k] ** 0.5 / 2 + 2)),
                    textcoords="offset points", ha="center", va="top", fontsize=7.5,
                    bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.8})
    ax.set_aspect("equal")
    ax.margins(0.1)
    fig.text(0.01, 0.0, textwrap.fill(_caption(graph), int(size[0] * 19)), fontsize=7, color="#555555", va="top")
    return fig

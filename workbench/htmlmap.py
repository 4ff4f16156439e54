"""An interactive map of a review as one self-contained HTML file (plotly, works offline).

Points are coloured by topic id with the palette every map of the review shares
(:mod:`workbench.palette`), sized by the number of papers; the legend, beside the map, lists
``<topic>: <label> (<papers>)`` in topic order (click an entry to hide a topic, double-click to
isolate it); hovering shows the title, authors, year, topic and the first words of the
abstract; zoom and pan with the mouse.
"""

from __future__ import annotations

import html
import os
import textwrap
from pathlib import Path

import pandas as pd

from .palette import point_size, topic_colours

__all__ = ["map_figure", "write_map_html"]

ABSTRACT_CHARS = 240  # of the abstract in a point's hover


def _hover(title: str, authors, year, label: str, abstract: str = "") -> str:
    who = ", ".join(list(authors)[:3]) + (" et al." if len(authors) > 3 else "")
    when = "" if pd.isna(year) else str(int(year))
    parts = [f"<b>{html.escape(title)}</b>"]
    if who or when:
        parts.append(html.escape(" · ".join(x for x in (who, when) if x)))
    parts.append(html.escape(label))
    if abstract:
        # shorten() splits and wraps all of its text; the first 720 characters make the same line
        short = textwrap.shorten(" ".join(abstract.split())[: 3 * ABSTRACT_CHARS], ABSTRACT_CHARS, placeholder=" …")
        parts.append("<i>" + "<br>".join(html.escape(line) for line in textwrap.wrap(short, 70)) + "</i>")
    return "<br>".join(parts)


def map_figure(review):
    """``review``'s map as a plotly figure (one trace per topic); all paper text is escaped."""
    import plotly.graph_objects as go

    frame = review.papers_frame()
    frame["abstract"] = [p.text for p in review.papers]
    sizes = frame.groupby("topic").size()
    colours = topic_colours({int(t): int(n) for t, n in sizes.items()})
    size = point_size(len(frame))
    fig = go.Figure()
    for topic in sorted(sizes.index, key=lambda t: (t < 0, t)):  # topic order, the unassigned last
        group = frame[frame.topic == topic]
        label = group["topic_label"].iloc[0]
        name = f"{topic}: {label}" if topic >= 0 else "Unassigned"
        fig.add_trace(
            go.Scattergl(
                x=group["x"],
                y=group["y"],
                mode="markers",
                name=html.escape(f"{name[:60]} ({len(group)})"),
                marker={"size": size if topic >= 0 else max(3, size - 2), "opacity": 0.9 if topic >= 0 else 0.6,
                        "color": colours[int(topic)]},
                text=[_hover(t, a, y, name, ab) for t, a, y, ab in
                      zip(group["title"], group["authors"], group["year"], group["abstract"])],
                customdata=group["id"],
                hovertemplate="%{text}<extra>%{customdata}</extra>",
            )
        )
    n_topics = int((review.topics.topic >= 0).sum())
    fig.update_layout(
        title=html.escape(f"{review.path.name}: {len(frame)} papers, {n_topics} topics"),
        template="plotly_white",
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x"},
        legend={"itemsizing": "constant", "title": {"text": "topic (papers)"}, "traceorder": "normal"},
        height=800,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


def write_map_html(review, path: str | os.PathLike) -> Path:
    """Write ``review``'s map to ``path`` (see :func:`map_figure`)."""
    fig = map_figure(review)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    fig.write_html(tmp, include_plotlyjs=True, full_html=True, config={"scrollZoom": True, "displaylogo": False})
    tmp.replace(path)
    return path

"""An interactive map of a review as one self-contained HTML file (plotly, works offline).

Points are coloured by topic (click a legend entry to hide a topic, double-click to isolate it);
hovering shows the title, authors, year and topic; zoom and pan with the mouse.
"""

from __future__ import annotations

import html

import pandas as pd
import os
from pathlib import Path

__all__ = ["write_map_html"]


def _hover(title: str, authors, year, label: str) -> str:
    who = ", ".join(list(authors)[:3]) + (" et al." if len(authors) > 3 else "")
    when = "" if pd.isna(year) else str(int(year))
    parts = [f"<b>{html.escape(title)}</b>"]
    if who or when:
        parts.append(html.escape(" · ".join(x for x in (who, when) if x)))
    parts.append(html.escape(label))
    return "<br>".join(parts)


def write_map_html(review, path: str | os.PathLike) -> Path:
    """Write ``review``'s map to ``path``; every piece of paper text is HTML-escaped."""
    import plotly.graph_objects as go

    frame = review.papers_frame()
    fig = go.Figure()
    for topic, group in frame.groupby("topic", sort=True):
        label = group["topic_label"].iloc[0]
        name = f"{topic}: {label}" if topic >= 0 else "Unassigned"
        fig.add_trace(
            go.Scattergl(
                x=group["x"],
                y=group["y"],
                mode="markers",
                name=html.escape(name[:60]),
                marker={"size": 7 if len(frame) < 5000 else 4, "opacity": 0.85},
                text=[_hover(t, a, y, name) for t, a, y in zip(group["title"], group["authors"], group["year"])],
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
        legend={"itemsizing": "constant", "title": {"text": "topic"}},
        height=800,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    fig.write_html(tmp, include_plotlyjs=True, full_html=True, config={"scrollZoom": True, "displaylogo": False})
    tmp.replace(path)
    return path

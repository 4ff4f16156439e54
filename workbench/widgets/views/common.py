"""Pieces every view shares: the style sheet, status messages, escaped lists of papers."""

from __future__ import annotations

import ipywidgets as W

from ...errors import WorkbenchError
from ..text import escape

STYLE = """
<style>
.wb-card { font-size: 14px; line-height: 1.45; max-width: 60rem; }
.wb-card h3 { margin: 0.2em 0; }
.wb-meta { color: #555; font-size: 12px; }
.wb-abstract { margin-top: 0.5em; }
mark.wb-hit { background: #ffe58a; }
mark.wb-shared { background: #c7e9c0; }
mark.wb-distinct { background: #fdd0a2; }
.wb-tagchip { display: inline-block; background: #eef; border-radius: 8px; padding: 0 6px; margin: 0 2px; font-size: 12px; }
.wb-bars td, .wb-bars th { padding: 1px 6px; font-size: 12px; vertical-align: middle; }
.wb-bar { background: #69c; height: 12px; }
.wb-list { max-height: 18em; overflow-y: auto; font-size: 13px; }
.jupyter-widgets.jupyter-button { width: auto; min-width: max-content; flex-shrink: 0; }
</style>
"""


def style() -> W.HTML:
    return W.HTML(STYLE)


class Status(W.HTML):
    """One line under a view: what the last action did, or what went wrong and what to do."""

    def ok(self, text: str) -> None:
        self.value = f"<span style='color:#2a6'>✓ {escape(text)}</span>"

    def busy(self, text: str) -> None:
        self.value = f"<span style='color:#888'>… {escape(text)}</span>"

    def error(self, text: str) -> None:
        self.value = f"<span style='color:#c33'>✗ {escape(text)}</span>"


FAILED = object()


def guarded(status: Status, action, *args, **kwargs):
    """Run a user action; a WorkbenchError becomes a status line (and ``FAILED``), not a traceback."""
    try:
        return action(*args, **kwargs)
    except WorkbenchError as err:
        status.error(str(err))
        return FAILED


def tag_chips(tags) -> str:
    return "".join(f"<span class='wb-tagchip'>{escape(t)}</span>" for t in tags)


def paper_list(review, ids, limit: int = 50, found=None) -> str:
    """The papers ``ids`` as a list; with ``found`` (a search result) how each was found."""
    rows = []
    hits = {h.id: h for h in found.hits} if found is not None else {}
    for pid in list(ids)[:limit]:
        paper = review.paper(pid)
        how = f" <span class='wb-meta wb-{hits[pid].kind}'>({escape(hits[pid].describe())})</span>" if pid in hits else ""
        rows.append(f"<li><code>{escape(pid[:8])}</code> {escape(paper.title)}{how}</li>")
    more = f"<li>… and {len(ids) - limit} more</li>" if len(ids) > limit else ""
    return f"<ul class='wb-list'>{''.join(rows)}{more}</ul>"


def topic_bars(topics, stability: dict | None = None) -> str:
    """Topic sizes as a bar chart with their top words (HTML, escaped), each topic's stability
    across seeds when it has been checked, and the titles of its most typical papers when
    ``topics`` has a ``representative`` column (``Review.topics_frame(representatives=2)``)."""
    biggest = max(int(topics["size"].max()), 1) if len(topics) else 1
    stability = stability or {}
    typical = "representative" in topics
    rows = []
    for t in topics.sort_values("size", ascending=False).itertuples():
        width = int(240 * t.size / biggest)
        words = escape(", ".join(list(t.words)[:6]))
        score = stability.get(int(t.topic))
        cell = ""
        if stability:
            cell = f"<td class='wb-meta'>{score:.0%}</td>" if score is not None and score == score else "<td></td>"
        titles = "".join(f"<div>{escape(title)}</div>" for title in t.representative) if typical else ""
        rows.append(
            f"<tr><td>{t.topic}</td><td>{escape(t.label)}</td><td>{t.size}</td>{cell}"
            f"<td><div class='wb-bar' style='width:{width}px'></div></td>"
            + (f"<td class='wb-meta wb-typical'>{titles}</td>" if typical else "")
            + f"<td class='wb-meta'>{words}</td></tr>"
        )
    head = "<th title='share of its papers that stay together when the topics are found with other seeds'>stable</th>" if stability else ""
    head_typical = "<th title='the papers nearest the centre of the topic'>typical papers</th>" if typical else ""
    return (f"<table class='wb-bars'><tr><th>topic</th><th>label</th><th>size</th>{head}<th></th>{head_typical}"
            "<th>top words</th></tr>" + "".join(rows) + "</table>")

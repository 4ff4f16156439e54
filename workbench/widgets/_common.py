"""Pieces every view shares: the style sheet, the view's frame with its keys, escaped lists."""

from __future__ import annotations

import logging
import threading

import ipywidgets as W

from ..session.text import escape
from ._keys import Keys

STYLE = """
<style>
.wb-view { outline: none; }
.wb-view:focus { box-shadow: inset 3px 0 0 #1c6dd0; }
.wb-view:focus .wb-keyhelp { color: #1c6dd0; }
.wb-card { font-size: 14px; line-height: 1.45; max-width: 62rem; }
.wb-card h3 { margin: 0.2em 0; }
.wb-meta { color: #555; font-size: 12px; }
.wb-abstract { margin-top: 0.5em; }
.wb-details { display: inline; }
.wb-details summary { display: inline; cursor: pointer; color: #777; }
.wb-keyhelp { color: #666; font-size: 12px; margin: 2px 0 4px 0; }
.wb-keyhelp kbd { border: 1px solid #bbb; border-bottom-width: 2px; border-radius: 3px; padding: 0 4px; font-size: 11px; background: #fafafa; }
mark.wb-hit { background: #ffe58a; }
mark.wb-shared { background: #c7e9c0; }
mark.wb-distinct { background: #fdd0a2; }
.wb-tagchip { display: inline-block; background: #e7f0fb; border: 1px solid #9bbbe6; border-radius: 8px; padding: 0 6px; margin: 0 2px; font-size: 12px; }
.wb-bars td, .wb-bars th { padding: 1px 6px; font-size: 12px; vertical-align: middle; text-align: left; }
.wb-bar { background: #69c; height: 12px; }
.wb-list { max-height: 18em; overflow-y: auto; font-size: 13px; }
.wb-result { font-size: 13px; margin-left: 6px; }
.wb-ok { color: #1a7f37; }
.wb-err { color: #c0262d; font-weight: 600; }
.wb-info { color: #8a5a00; }
.wb-busy-note { color: #555; }
.wb-spinner { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.35em; vertical-align: -0.1em; border: 2px solid #b8c7dc; border-top-color: #1c6dd0; border-radius: 50%; animation: wb-spin 0.8s linear infinite; }
@keyframes wb-spin { to { transform: rotate(360deg); } }
.jupyter-button.wb-busy { cursor: progress; background-image: linear-gradient(90deg, #e8e8e8 25%, #d0d8e8 50%, #e8e8e8 75%); background-size: 200% 100%; animation: wb-busy 1.2s linear infinite; }
@keyframes wb-busy { from { background-position: 100% 0; } to { background-position: -100% 0; } }
.jupyter-button.wb-tag-on { background: #1c6dd0; color: #fff; border: 2px solid #124a8f; font-weight: 600; }
.jupyter-button.wb-tag-off { background: #fff; color: #444; border: 1px dashed #8a8a8a; }
.jupyter-button.wb-decision-off { background: #f4f4f4; color: #333; }
.jupyter-button.wb-decision-on { font-weight: 700; outline: 3px solid #222; outline-offset: -3px; }
.wb-screen .wb-abstract { max-height: 40vh; overflow-y: auto; padding-right: 6px; }
.wb-banner { background: #fff4d6; border: 1px solid #e5c46b; border-radius: 4px; padding: 4px 8px; font-size: 13px; }
.jupyter-widgets.jupyter-button { width: auto; min-width: max-content; flex-shrink: 0; }
.wb-bars td { line-height: 1.35; }
.wb-bars td.wb-label { min-width: 12em; }
.wb-bars td.wb-typical { min-width: 18em; max-width: 32em; padding-top: 3px; padding-bottom: 3px; }
.wb-typical div + div { margin-top: 3px; }
.wb-votes { border-collapse: collapse; margin: 4px 0; }
.wb-votes th, .wb-votes td { border: 1px solid #d0d7de; padding: 2px 8px; }
.wb-votes th { background: #f3f6fa; }
.wb-new { background: #e6f4ea; border: 1px solid #7cc08a; border-radius: 8px; padding: 0 6px; color: #1a5e2a; }
.wb-pair { border-collapse: collapse; width: 100%; max-width: 76rem; }
.wb-pair td.wb-side { vertical-align: top; width: 50%; border: 1px solid #d0d7de; padding: 6px 8px; font-size: 13px; }
.wb-criteria { background: #f6f8fa; border-left: 3px solid #1c6dd0; padding: 4px 8px; margin-left: 12px; font-size: 13px; }
</style>
"""


def style() -> W.HTML:
    return W.HTML(STYLE)


def view_frame(children, keys: Keys, name: str) -> W.VBox:
    """The view's outer box: the style sheet, ``keys`` and ``children``, marked ``wb-view``
    (where :class:`~.keys.Keys` listens) and ``wb-<name>``."""
    box = W.VBox([style(), keys, *children])
    box.add_class("wb-view")
    box.add_class(f"wb-{name}")
    return box


def key_help(items) -> W.HTML:
    """A help line: ``items`` are (keys, what) pairs, e.g. ("j →", "next")."""
    parts = [" ".join(f"<kbd>{escape(k)}</kbd>" for k in keys.split()) + f" {escape(what)}" for keys, what in items]
    return W.HTML("<div class='wb-keyhelp'>" + " · ".join(parts) + "</div>")


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


def topic_bars(topics, stability: dict | None = None, preview=None) -> str:
    """Topic sizes as a bar chart with their top words (HTML, escaped), in topic order, each
    topic's stability across seeds when it has been checked, and the titles of its most typical
    papers when ``topics`` has a ``representative`` column
    (``Review.topics_frame(representatives=2)``). ``preview``: the k of themes being looked at
    (not saved), said above the table."""
    biggest = max(int(topics["size"].max()), 1) if len(topics) else 1
    stability = stability or {}
    typical = "representative" in topics
    rows = []
    for t in topics.sort_values("topic").itertuples():
        width = int(240 * t.size / biggest)
        words = escape(", ".join(list(t.words)[:6]))
        score = stability.get(int(t.topic))
        cell = ""
        if stability:
            cell = f"<td class='wb-meta'>{score:.0%}</td>" if score is not None and score == score else "<td></td>"
        titles = "".join(f"<div>{escape(title)}</div>" for title in t.representative) if typical else ""
        rows.append(
            f"<tr><td>{t.topic}</td><td class='wb-label'>{escape(t.label)}</td><td>{t.size}</td>{cell}"
            f"<td><div class='wb-bar' style='width:{width}px'></div></td>"
            + (f"<td class='wb-meta wb-typical'>{titles}</td>" if typical else "")
            + f"<td class='wb-meta'>{words}</td></tr>"
        )
    head = "<th title='share of its papers that stay together when the topics are found with other seeds'>stable</th>" if stability else ""
    head_typical = "<th title='the papers nearest the centre of the topic'>typical papers</th>" if typical else ""
    shown = int((topics.topic >= 0).sum())
    if preview is not None:
        what = "the default topics" if preview == "default" else f"{preview} themes"
        caption = f"<caption class='wb-info'>Looking at {escape(what)} ({shown} topics): not saved</caption>"
    else:
        caption = f"<caption class='wb-meta'>{shown} topics (saved)</caption>"
    return (f"<table class='wb-bars wb-topics'>{caption}<tr><th>topic</th><th>label</th><th>size</th>{head}"
            f"<th></th>{head_typical}<th>top words</th></tr>" + "".join(rows) + "</table>")


def warm_up(fn, *args, delay: float = 1.0) -> threading.Timer:
    """Run ``fn(*args)`` in a background thread ``delay`` seconds from now (the view drawn first):
    what a view's first actions need, loaded while the user reads. A failure is logged, never
    shown (the action itself will say what is wrong, where the user looks)."""
    def quietly():
        try:
            fn(*args)
        except Exception as err:  # noqa: BLE001 - a warm-up must never break the view
            logging.getLogger(__name__).info("warming up %s failed: %s", getattr(fn, "__name__", fn), err)

    timer = threading.Timer(delay, quietly)
    timer.daemon = True
    timer.start()
    return timer

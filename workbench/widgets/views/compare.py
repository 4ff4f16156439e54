"""The compare view: 2-4 papers side by side, shared and distinctive terms marked, pairwise
similarity, nearest neighbours, and a note that attaches to every compared paper."""

from __future__ import annotations

import ipywidgets as W

from ..compare import Comparison
from ..session import Session
from ..text import escape
from .common import FAILED, Status, guarded, style, tag_chips

__all__ = ["CompareView"]

AUTO = W.Layout(width="auto")  # a button as wide as its text


class CompareView:
    def __init__(self, session: Session, ids=()):
        self.session = session
        self.status = Status()
        self.comparison: Comparison | None = None
        self.ids_text = W.Text(value=", ".join(ids), placeholder="2-4 ids or id prefixes, comma separated", description="papers", layout=W.Layout(width="40em"))
        self.ids_text.on_submit(lambda _: self.on_compare())
        self.compare_button = W.Button(description="Compare", icon="columns", layout=AUTO)
        self.compare_button.on_click(lambda _: self.on_compare())
        self.search_text = W.Text(placeholder="find papers to compare", description="search")
        self.search_text.on_submit(lambda _: self.on_search())
        self.results = W.SelectMultiple(options=[], rows=6, layout=W.Layout(width="60em"))
        self.use_results = W.Button(description="Compare the chosen", icon="columns", layout=AUTO)
        self.use_results.on_click(lambda _: self.on_use_results())
        self.columns = W.HTML()
        self.note = W.Textarea(placeholder="a note on these papers (attached to each)", rows=2, layout=W.Layout(width="40em"))
        self.note_button = W.Button(description="Add note to all", icon="sticky-note", layout=AUTO)
        self.note_button.on_click(lambda _: self.on_note())
        self.widget = W.VBox([
            style(),
            W.HBox([self.ids_text, self.compare_button]),
            W.HBox([self.search_text]),
            W.HBox([self.results, self.use_results]),
            self.columns,
            W.HBox([self.note, self.note_button]),
            self.status,
        ])
        if len(ids) >= 2:
            self.on_compare()

    def on_search(self) -> None:
        result = guarded(self.status, self.session.search, self.search_text.value)
        if result is FAILED:
            return
        review = self.session.review
        self.results.options = [(f"{review.paper(h.id).title} ({h.describe()})", h.id) for h in result.hits[:30]]

    def on_use_results(self) -> None:
        self.ids_text.value = ", ".join(self.results.value)
        self.on_compare()

    def on_compare(self) -> None:
        ids = [i.strip() for i in self.ids_text.value.split(",") if i.strip()]
        comparison = guarded(self.status, Comparison, self.session, ids)
        if comparison is FAILED:
            return
        self.comparison = comparison
        self.render()
        self.status.ok(f"comparing {len(comparison.ids)} papers")

    def render(self) -> None:
        c = self.comparison
        papers = c.papers()
        shared, _ = c.terms()
        cols = "".join(_card(p, 100 // len(papers)) for p in papers)
        self.columns.value = (
            f"<div class='wb-meta'>shared terms: {', '.join(f'<mark class=wb-shared>{escape(t)}</mark>' for t in shared)}</div>"
            f"<table><tr>{cols}</tr></table>"
            f"<b>pairwise similarity</b>{_similarity_table(c.similarity(), {p.id: p.title for p in papers})}"
        )

    def on_note(self) -> None:
        if self.comparison is None:
            self.status.error("compare some papers first")
            return
        if guarded(self.status, self.comparison.note, self.note.value) is not FAILED:
            self.status.ok(f"note added to {len(self.comparison.ids)} papers")
            self.note.value = ""
            self.render()


def _card(p, width: int) -> str:
    """One compared paper's column (``p``'s text is escaped HTML already)."""
    neighbours = "".join(f"<li>{t} <span class='wb-meta'>({s:.2f})</span></li>" for _, t, s in p.neighbours)
    notes = "".join(f"<li>{n}</li>" for n in p.notes)
    distinct = ", ".join(f"<mark class=wb-distinct>{t}</mark>" for t in p.distinctive)
    return (
        f"<td style='vertical-align:top;width:{width}%'><div class='wb-card'>"
        f"<h3>{p.title}</h3><div class='wb-meta'>{p.authors}<br>topic: {p.topic_label} · id <code>{escape(p.id)}</code></div>"
        f"<div class='wb-meta'>tags: {tag_chips(p.tags) or 'none'}</div>"
        f"<div class='wb-meta'>distinctive: {distinct}</div>"
        f"<div class='wb-abstract'>{p.abstract_html}</div>"
        + (f"<div class='wb-meta'>notes:<ul>{notes}</ul></div>" if notes else "")
        + f"<div class='wb-meta'>nearest neighbours:<ul>{neighbours}</ul></div></div></td>"
    )


def _similarity_table(sim, titles: dict[str, str]) -> str:
    """The pairwise similarities, rows and columns named by the papers' titles (escaped
    already), wrapped rather than cut."""
    cell = "style='max-width:16em;white-space:normal;text-align:left;font-weight:normal;vertical-align:bottom'"
    header = "<tr><th></th>" + "".join(f"<th {cell}>{titles[b]}</th>" for b in sim.columns) + "</tr>"
    rows = "".join(
        f"<tr><th {cell}>{titles[a]}</th>" + "".join(f"<td>{sim.loc[a, b]:.2f}</td>" for b in sim.columns) + "</tr>"
        for a in sim.index
    )
    return f"<table class='wb-bars'>{header}{rows}</table>"

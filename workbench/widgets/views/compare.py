"""The compare view: 2-4 papers side by side, shared and distinctive terms marked, pairwise
similarity, nearest neighbours, and a note that attaches to every compared paper."""

from __future__ import annotations

import ipywidgets as W

from ..compare import Comparison
from ..session import Session
from ..text import escape
from .common import FAILED, Status, guarded, style, tag_chips

__all__ = ["CompareView"]


class CompareView:
    def __init__(self, session: Session, ids=()):
        self.session = session
        self.status = Status()
        self.comparison: Comparison | None = None
        self.ids_text = W.Text(value=", ".join(ids), placeholder="2-4 ids or id prefixes, comma separated", description="papers", layout=W.Layout(width="40em"))
        self.ids_text.on_submit(lambda _: self.on_compare())
        self.compare_button = W.Button(description="Compare", icon="columns")
        self.compare_button.on_click(lambda _: self.on_compare())
        self.search_text = W.Text(placeholder="find papers to compare", description="search")
        self.search_text.on_submit(lambda _: self.on_search())
        self.results = W.SelectMultiple(options=[], rows=6, layout=W.Layout(width="60em"))
        self.use_results = W.Button(description="Compare the chosen")
        self.use_results.on_click(lambda _: self.on_use_results())
        self.columns = W.HTML()
        self.note = W.Textarea(placeholder="a note on these papers (attached to each)", rows=2, layout=W.Layout(width="40em"))
        self.note_button = W.Button(description="Add note to all", icon="sticky-note")
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
        self.results.options = [(f"{pid[:8]} {self.session.review.paper(pid).title}", pid) for pid in result.ids[:30]]

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
        sim = c.similarity()
        cols = []
        for p in papers:
            neighbours = "".join(f"<li><code>{escape(n[:8])}</code> {t} ({s:.2f})</li>" for n, t, s in p.neighbours)
            notes = "".join(f"<li>{n}</li>" for n in p.notes)
            cols.append(
                f"<td style='vertical-align:top;width:{100 // len(papers)}%'><div class='wb-card'>"
                f"<h3>{p.title}</h3><div class='wb-meta'><code>{escape(p.id)}</code> · {p.authors}<br>topic: {p.topic_label}</div>"
                f"<div class='wb-meta'>tags: {tag_chips(p.tags) or 'none'}</div>"
                f"<div class='wb-meta'>distinctive: {', '.join(f'<mark class=wb-distinct>{t}</mark>' for t in p.distinctive)}</div>"
                f"<div class='wb-abstract'>{p.abstract_html}</div>"
                + (f"<div class='wb-meta'>notes:<ul>{notes}</ul></div>" if notes else "")
                + f"<div class='wb-meta'>nearest neighbours:<ul>{neighbours}</ul></div></div></td>"
            )
        sim_rows = "".join(
            "<tr><th><code>" + escape(a[:8]) + "</code></th>" + "".join(f"<td>{sim.loc[a, b]:.2f}</td>" for b in sim.columns) + "</tr>"
            for a in sim.index
        )
        header = "<tr><th></th>" + "".join(f"<th><code>{escape(b[:8])}</code></th>" for b in sim.columns) + "</tr>"
        self.columns.value = (
            f"<div class='wb-meta'>shared terms: {', '.join(f'<mark class=wb-shared>{escape(t)}</mark>' for t in shared)}</div>"
            f"<table><tr>{''.join(cols)}</tr></table>"
            f"<b>pairwise similarity</b><table>{header}{sim_rows}</table>"
        )

    def on_note(self) -> None:
        if self.comparison is None:
            self.status.error("compare some papers first")
            return
        if guarded(self.status, self.comparison.note, self.note.value) is not FAILED:
            self.status.ok(f"note added to {len(self.comparison.ids)} papers")
            self.note.value = ""
            self.render()

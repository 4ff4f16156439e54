"""The compare view: 2-4 papers side by side, shared and distinctive terms marked, pairwise
similarity, nearest neighbours, and a note that attaches to every compared paper. Enter in the
ids or search box does what its button does, Ctrl+Enter adds the note; Undo takes back your
last change and Reload reads what changed elsewhere."""

from __future__ import annotations

import ipywidgets as W

from ..session.compare import Comparison
from ..session.session import Session
from ..session.text import escape, titles_line
from ._common import key_help, tag_chips, view_frame
from ._feedback import FAILED, Act
from ._follow import Following
from ._keys import Keys
from ._team import NameBox

__all__ = ["CompareView"]

HELP = (("Enter", "in a box does what its button does"), ("Ctrl+Enter", "adds the note"))


class CompareView:
    def __init__(self, session: Session, ids=()):
        self.session = session
        self.comparison: Comparison | None = None
        self.keys = Keys()
        self.ids_text = W.Text(value=", ".join(ids), placeholder="2-4 ids or id prefixes, comma separated",
                               description="papers", layout=W.Layout(width="40em"))
        self.compare_act = Act("Compare", icon="columns", busy_text="comparing")
        self.compare_act.on_click(self.on_compare)
        self.keys.submit(self.ids_text, "ids", self.on_compare)
        self.search_text = W.Text(placeholder="find papers to compare (Enter searches)", description="search")
        self.search_act = Act("Search", icon="search", busy_text="searching")
        self.search_act.on_click(self.on_search)
        self.keys.submit(self.search_text, "search", self.on_search)
        self.results = W.SelectMultiple(options=[], rows=6, layout=W.Layout(width="60em"))
        self.use_act = Act("Compare the chosen", icon="columns")
        self.use_act.on_click(self.on_use_results)
        self.columns = W.HTML()
        self.note = W.Textarea(placeholder="a note on these papers, attached to each (Ctrl+Enter adds it)", rows=2,
                               layout=W.Layout(width="40em"))
        self.note_act = Act("Add note to all", icon="sticky-note")
        self.note_act.on_click(self.on_note)
        self.keys.submit(self.note, "note", self.on_note)
        self.undo_act = Act("Undo", icon="undo", tooltip="take back your last change")
        self.undo_act.on_click(self.on_undo)
        self.reload_act = Act("Reload", icon="refresh", tooltip="read changes made in other notebooks or the command line")
        self.reload_act.on_click(self.on_reload)
        self.names = NameBox(session, self.keys, doing="working")  # who writes the notes (asked in team use)
        self.names.render()
        # Before each action: what changed elsewhere is read, and every view follows it
        self.following = Following(session, self.keys, self.reload_act.line, self.redraw)
        self.widget = view_frame([
            self.names.widget,
            self.following.widget,
            W.HBox([self.ids_text, self.compare_act.widget]),
            W.HBox([self.search_text, self.search_act.widget]),
            W.HBox([self.results, self.use_act.widget]),
            key_help(HELP),
            self.columns,
            W.HBox([self.note, self.note_act.widget]),
            W.HBox([self.undo_act.widget, self.reload_act.widget]),
        ], self.keys, "compare")
        session.subscribe(self.following.guard(self._on_change))
        if len(ids) >= 2:
            self.on_compare()

    def on_search(self) -> None:
        def ok(result):
            review = self.session.review
            self.results.options = [(f"{review.paper(h.id).title} ({h.describe()})", h.id) for h in result.hits[:30]]
            return f"{len(result.ids)} papers found; choose 2-4 of them"

        self.search_act.run(self.session.review.search, self.search_text.value, ok=ok)

    def on_use_results(self) -> None:
        self.ids_text.value = ", ".join(self.results.value)
        self.use_act.run(self._compare, ok=lambda c: f"comparing {len(c.ids)} papers")

    def on_compare(self) -> None:
        self.compare_act.run(self._compare, ok=lambda c: f"comparing {len(c.ids)} papers")

    def _compare(self) -> Comparison:
        ids = [i.strip() for i in self.ids_text.value.split(",") if i.strip()]
        comparison = Comparison(self.session, ids)
        if self.comparison is None or comparison.ids != self.comparison.ids:
            self.note_act.reset()  # its answer spoke of the papers compared before
            self.undo_act.reset()
        self.comparison = comparison
        self.render()
        return comparison

    def render(self) -> None:
        c = self.comparison
        papers = c.papers()
        shared, _ = c.terms()
        cols = "".join(_card(p, 100 // len(papers)) for p in papers)
        titles = {p.id: p.title for p in papers}
        coupled = c.coupling()
        self.columns.value = (
            f"<div class='wb-meta'>shared terms: {', '.join(f'<mark class=wb-shared>{escape(t)}</mark>' for t in shared)}</div>"
            f"<table><tr>{cols}</tr></table>"
            f"<b>pairwise similarity</b>{_similarity_table(c.similarity(), titles)}"
            + ("" if coupled is None else "<b>bibliographic coupling</b> <span class='wb-meta'>(cited works in "
               f"common; the diagonal: works each cites)</span>{_similarity_table(coupled, titles, '{:d}')}")
        )

    def on_note(self) -> None:
        if self.comparison is None:
            self.note_act.line.error("compare some papers first")
            return
        named = titles_line([self.session.review.paper(p).title for p in self.comparison.ids], limit=4, width=32)
        if self.note_act.run(self.comparison.note, self.note.value, ok=f"note added to {named}") is not FAILED:
            self.note.value = ""

    def on_undo(self) -> None:
        self.undo_act.run(self.session.undo, ok=lambda u: u.text)

    def on_reload(self) -> None:
        self.reload_act.run(self.following.reload, ok=lambda text: text)

    def redraw(self) -> None:
        """The compared papers drawn again from the session (Reopen, after it could not follow)."""
        self.names.render()
        if self.comparison is not None:
            self._compare()

    def _on_change(self, event: str, ids) -> None:
        """Tags, notes and topic names of the compared papers follow every change in this kernel."""
        if event == "reviewer":
            self.names.render()
        if self.comparison is None or event in ("stability", "queue", "reviewer"):
            return
        if event in ("topics", "undo", "reload") or set(ids) & set(self.comparison.ids):
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


def _similarity_table(sim, titles: dict[str, str], fmt: str = "{:.2f}") -> str:
    """The pairwise similarities, rows and columns named by the papers' titles (escaped
    already), wrapped rather than cut."""
    cell = "style='max-width:16em;white-space:normal;text-align:left;font-weight:normal;vertical-align:bottom'"
    header = "<tr><th></th>" + "".join(f"<th {cell}>{titles[b]}</th>" for b in sim.columns) + "</tr>"
    rows = "".join(
        f"<tr><th {cell}>{titles[a]}</th>" + "".join(f"<td>{fmt.format(sim.loc[a, b])}</td>" for b in sim.columns) + "</tr>"
        for a in sim.index
    )
    return f"<table class='wb-bars'>{header}{rows}</table>"

"""02's folded panels for a living review: **Add a new search** (the files of a rerun search and
their provenance; the new papers then fill the queue's "new since" filter) and **Possible
duplicates** (pairs that may be one paper, side by side: Same paper, Different, Undo).

The state is :class:`~workbench.widgets.living.LivingActions` (on the session) and
:class:`~workbench.widgets.living.DuplicateQueue`; every button answers beside itself (:class:`Act`).
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as W

from ..review import NEW_SINCE
from ..session.living import DuplicateQueue, PairCard, SideCard
from ..session.text import escape
from ._common import tag_chips
from ._feedback import FAILED, Act

__all__ = ["DuplicatesPanel", "LivingPanels", "UpdatePanel"]

TITLES = ("Add a new search", "Possible duplicates")


class UpdatePanel:
    """The files of a new search, its provenance (PRISMA-S), and **Add to the review**."""

    def __init__(self, view):
        self.view = view
        self.session = view.session
        self.files = W.Textarea(placeholder="the new search's exports, one per line (e.g. ../pubmed-2025.ris)",
                                rows=2, layout=W.Layout(width="36rem"))
        self.database = W.Text(placeholder="e.g. PubMed", description="database", layout=W.Layout(width="18rem"))
        self.searched = W.Text(placeholder="YYYY-MM-DD", description="searched on", layout=W.Layout(width="16rem"))
        self.query = W.Text(placeholder="the query, as run (optional)", description="query",
                            layout=W.Layout(width="36rem"))
        self.update_act = Act("Add to the review", icon="plus-circle", busy_text="reading and placing the new records",
                              tooltip="read the files, merge duplicates into the papers they repeat, place the new "
                                      "papers on the map without refitting, and tag them 'new since' today")
        self.update_act.on_click(self.on_update)
        for name, box in (("files", self.files), ("database", self.database), ("searched", self.searched),
                          ("query", self.query)):  # Enter (Ctrl+Enter in the files) adds them
            view.keys.submit(box, f"update-{name}", self.on_update)
        self.result = W.HTML()
        help_text = ("<div class='wb-meta'>Duplicates of papers already in the review join them (their decisions, "
                     "tags and notes stay); new papers are placed on the map as it is and listed under "
                     "<b>show: new since</b> today. Nothing is refitted: `workbench build` is the refit.</div>")
        self.widget = W.VBox([W.HTML(help_text), self.files, W.HBox([self.database, self.searched]), self.query,
                              self.update_act.widget, self.result])

    def on_update(self, confirmed: bool = False) -> None:
        again = self.session.living.read_before(self.files.value)
        if again and not confirmed:
            names = ", ".join(Path(f).name for f in again)
            self.update_act.ask(f"{names} was read into this review before; reading it again replaces its counts "
                                "in the PRISMA diagram (a rerun search goes in a new file); read it again?",
                                "Yes, read it again", self._update)
            return
        self._update()

    def _update(self):
        done = self.update_act.run(self.session.living.update, self.files.value, self.database.value,
                                   self.searched.value, self.query.value, ok=lambda d: d.headline)
        if done is FAILED:
            return done
        self.result.value = "<ul class='wb-meta wb-update'>" + "".join(
            f"<li>{escape(line)}</li>" for line in done.lines[1:]) + "</ul>"
        # the next search starts empty: its files, database, date and query are its own
        self.files.value = self.database.value = self.searched.value = self.query.value = ""
        if done.report.new:
            self.view.show_filter(NEW_SINCE + done.report.since)
        return done


def _side(side: SideCard) -> str:
    decisions = "; ".join(f"{escape(who)}: {escape(what)}" for who, what in side.decisions.items()) or "none"
    notes = "".join(f"<li>{escape(n)}</li>" for n in side.notes)
    new = f" · <span class='wb-new'>new since {escape(side.new_since)}</span>" if side.new_since else ""
    sources = ", ".join(escape(Path(s.rpartition(':')[0] or s).name) for s in side.sources[:3])
    return (f"<td class='wb-side'><div class='wb-meta'><code>{escape(side.id)}</code>{new}</div>"
            f"<b>{escape(side.title)}</b><div class='wb-meta'>{escape(side.authors)}"
            f"{' · ' + str(side.year) if side.year else ''} · DOI {escape(side.doi) or 'none'} · from {sources or '?'}</div>"
            f"<div class='wb-abstract'>{escape(side.abstract)}</div>"
            f"<div class='wb-meta'>decisions: {decisions} · tags: {tag_chips(side.tags) or 'none'}</div>"
            + (f"<div class='wb-meta'>notes:<ul>{notes}</ul></div>" if notes else "") + "</td>")


def pair_html(card: PairCard | None, left: int) -> str:
    if card is None:
        return "<div class='wb-card'><i>No pairs left to settle.</i></div>"
    return (f"<div class='wb-meta'>pair {card.position} of {left} left · titles {card.score:.0f}% alike · "
            f"kept apart because: {escape(card.why_apart)}</div>"
            f"<table class='wb-pair'><tr>{_side(card.first)}{_side(card.second)}</tr></table>")


class DuplicatesPanel:
    """The pairs that may be one paper, one at a time, side by side (read when first opened)."""

    def __init__(self, view):
        self.view = view
        self.session = view.session
        self.queue: DuplicateQueue | None = None
        self.acting = False  # True while one of this panel's own actions runs
        self.count = W.HTML()
        self.pair = W.HTML()
        self.same_act = Act("Same paper", icon="compress", style="warning",
                            tooltip="one paper: merge them (the decisions, tags and notes follow); Undo takes it back")
        self.same_act.on_click(lambda: self.settle("same"))
        self.different_act = Act("Different", icon="not-equal",
                                 tooltip="two papers: kept apart for good, by every later update and rebuild")
        self.different_act.on_click(lambda: self.settle("different"))
        self.undo_act = Act("Undo", icon="undo", tooltip="take back your last change (a verdict: the pair comes back)")
        self.undo_act.on_click(self.on_undo)
        self.prev_button = W.Button(description="◀ previous pair", layout=W.Layout(width="auto"))
        self.prev_button.on_click(lambda _: self.move(-1))
        self.next_button = W.Button(description="next pair ▶", layout=W.Layout(width="auto"))
        self.next_button.on_click(lambda _: self.move(1))
        for act in (self.same_act, self.different_act, self.undo_act):  # side by side, each answer beside it
            act.widget.layout.flex = "0 1 auto"
        self.widget = W.VBox([
            W.HBox([self.count, self.prev_button, self.next_button], layout=W.Layout(align_items="center")),
            self.pair,
            W.HBox([self.same_act.widget, self.different_act.widget, self.undo_act.widget],
                   layout=W.Layout(align_items="center", flex_flow="row wrap")),
        ])

    def open(self) -> None:
        """Read the pairs (the first time, or again) and show the first."""
        if self.queue is None:
            self.queue = DuplicateQueue(self.session)
        else:
            self.queue.refresh()
        self.render()

    def render(self) -> None:
        q = self.queue
        if q is None:
            return
        self.count.value = f"<b class='wb-dup-count'>{q.left} pair{'s' if q.left != 1 else ''} left to settle</b>"
        self.pair.value = pair_html(q.card(), q.left)
        self.view.living.retitle(q.left)

    def move(self, step: int) -> None:
        if self.queue is not None:
            self.queue.next() if step > 0 else self.queue.previous()
            self.render()

    def settle(self, verdict: str):
        if self.queue is None:
            self.open()
        act = self.same_act if verdict == "same" else self.different_act
        action = self.queue.same if verdict == "same" else self.queue.different
        return self._run(act, action)

    def _run(self, act: Act, action):
        self.acting = True
        try:
            result = act.run(action, ok=lambda _: self.queue.last)
        finally:
            self.acting = False
        self.render()
        return result

    def on_undo(self):
        if self.queue is None:
            self.open()
        return self._run(self.undo_act, self.queue.undo)


class LivingPanels:
    """Both panels, folded until opened (``widget``: an Accordion under 02's queue)."""

    def __init__(self, view):
        self.update = UpdatePanel(view)
        self.duplicates = DuplicatesPanel(view)
        self.widget = W.Accordion(children=[self.update.widget, self.duplicates.widget], titles=TITLES,
                                  selected_index=None)
        self.widget.add_class("wb-living")
        self.widget.observe(self._opened, names="selected_index")

    def _opened(self, change) -> None:
        if change["new"] == 1:
            self.duplicates.open()

    def retitle(self, left: int) -> None:
        self.widget.set_title(1, f"{TITLES[1]} ({left} pair{'s' if left != 1 else ''} left)")

    def changed(self, event: str) -> None:
        """Another action in this kernel changed the review: the open duplicates list follows."""
        if event in ("reload", "undo") and self.duplicates.queue is not None and not self.duplicates.acting:
            self.duplicates.queue.refresh()
            self.duplicates.render()

    def play(self, action: dict) -> None:
        """Scripted actions: ``{"update": "a.ris\\nb.ris", "database": ..., "searched": ..., "query":
        ..., "again": True}`` (typed in the panel, then the button), ``{"duplicates": "same" |
        "different" | "undo" | "next" | "open"}``."""
        if "update" in action:
            u = self.update
            u.files.value = action["update"] if isinstance(action["update"], str) else "\n".join(action["update"])
            u.database.value, u.searched.value = action.get("database", ""), action.get("searched", "")
            u.query.value = action.get("query", "")
            u.on_update(confirmed=bool(action.get("again")))
        what = action.get("duplicates")
        if what:
            self.widget.selected_index = 1
            d = self.duplicates
            {"same": lambda: d.settle("same"), "different": lambda: d.settle("different"), "undo": d.on_undo,
             "next": lambda: d.move(1), "open": d.open}[what]()

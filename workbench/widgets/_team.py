"""The screening view's team controls: who is screening (the name asked on first use), the
stage, the open conflicts and their resolution, the inclusion criteria beside the card, the
team's exclusion reasons, and every reviewer's vote on the card (as the blind rule allows).
"""

from __future__ import annotations

import ipywidgets as W

from ..corpus.paper import DECISIONS, FULL_TEXT, NOT_RETRIEVED, STAGE_NAMES, STAGES, TITLE_ABSTRACT
from ..session.text import escape
from ._feedback import FAILED, Act

__all__ = ["NameBox", "TeamBar", "votes_html"]



def votes_html(card) -> str:
    """Every reviewer's decision and reason side by side (those this reviewer may see), and the
    final decision; "" when nobody else's vote is shown and there is no final decision."""
    if card is None or (len(card.votes) < 2 and card.final is None and not _others(card)):
        return ""
    head = "".join(f"<th>{escape(v.reviewer)}</th>" for v in card.votes)
    cells = "".join(f"<td><b>{escape(v.decision)}</b>" + (f"<br><span class='wb-meta'>{escape(v.reason)}</span>"
                                                           if v.reason else "") + "</td>" for v in card.votes)
    final = ""
    if card.final is not None:
        why = f" ({escape(card.final_reason)})" if card.final_reason else ""
        final = (f"<div class='wb-meta wb-final'>final decision: <b>{escape(card.final)}</b>{why}, "
                 f"resolved by {escape(card.resolved_by or '')}</div>")
    table = f"<table class='wb-bars wb-votes'><tr>{head}</tr><tr>{cells}</tr></table>" if card.votes else ""
    return f"<div class='wb-team'>{table}{final}</div>"


def _others(card) -> bool:
    return any(v.reviewer != card.votes[0].reviewer for v in card.votes)


class NameBox:
    """Who is working: "screening as Ana", or (team use, no name yet) a banner asking for one; a
    name box and **Screen as** (Enter too). Any view that writes shows one; ``then()`` runs after
    a name is taken (the view shows itself again)."""

    def __init__(self, session, keys, then=None, doing: str = "screening"):
        self.session = session
        self.doing = doing
        self.then = then
        self.who = W.HTML()
        self.name = W.Text(placeholder="your name (e.g. Ana)", layout=W.Layout(width="14rem"))
        self.name_act = Act("Screen as", icon="user", tooltip="record your decisions, tags and notes under this name")
        self.name_act.on_click(self.on_name)
        keys.submit(self.name, "reviewer", self.on_name)
        self.widget = W.HBox([self.who, self.name, self.name_act.widget], layout=W.Layout(align_items="center"))

    def render(self, where: str = "") -> None:
        s = self.session
        if s.team.needs_name():
            self.who.value = ("<span class='wb-banner wb-who'>This review is screened as a team: type your name "
                              "and press <b>Screen as</b> before your first change</span>")
        else:
            self.who.value = (f"<span class='wb-who'>{self.doing} as <b>{escape(s.reviewer)}</b>"
                              + (f" · {escape(where)}" if where else "") + "</span>")

    def on_name(self) -> None:
        if self.name_act.run(self.session.team.set_reviewer, self.name.value,
                             ok=lambda name: f"{self.doing} as {name}") is not FAILED:
            self.name.value = ""
            self.render()
            if self.then is not None:
                self.then()


class TeamBar:
    """The team controls of one :class:`~.screen.ScreenView` (built with it)."""

    def __init__(self, view):
        self.view = view
        self.queue = view.queue
        self.session = view.session
        self.names = NameBox(self.session, view.keys, then=self.on_named)
        self.stage = W.Dropdown(options=[(STAGE_NAMES[s], s) for s in STAGES], value=self.queue.stage,
                                description="stage", layout=W.Layout(width="14rem"))
        self.stage.observe(lambda _: self.on_stage(), names="value")
        self.conflicts = W.HTML()
        self.header = W.HBox([self.names.widget, self.stage, self.conflicts],
                             layout=W.Layout(align_items="center", flex_flow="row wrap"))
        self.final = W.Dropdown(options=DECISIONS, value="include", description="final", layout=W.Layout(width="12rem"))
        self.final.add_class("wb-final")
        self.final_reason = W.Combobox(placeholder="why (for an exclusion: the reason PRISMA counts)",
                                       ensure_option=False, layout=W.Layout(width="24rem"))
        self.resolve_act = Act("Resolve", icon="gavel", tooltip="record the final decision, resolved by you")
        self.resolve_act.on_click(self.on_resolve)
        view.keys.submit(self.final_reason, "resolve", self.on_resolve)  # Enter in the why box resolves
        self._answered = None  # the card shown when Resolve last answered (its answer goes with it)
        self.resolve_row = W.HBox([self.final, self.final_reason, self.resolve_act.widget],
                                  layout=W.Layout(align_items="center"))
        self.criteria = W.HTML(layout=W.Layout(width="22rem", flex="0 0 auto"))

    def render(self) -> None:
        """Who is screening, the open conflicts, the criteria, the reasons and the resolve row."""
        s, q = self.session, self.queue
        if self._answered is not None and q.current_id != self._answered:
            self.resolve_act.reset()  # it spoke of the conflict shown then
            self._answered = None
        self.names.render(STAGE_NAMES[q.stage])
        n = q.open_conflicts()
        self.conflicts.value = (f"<span class='wb-meta wb-conflicts'>{n} open conflict{'s' if n != 1 else ''}"
                                + (" (show: conflicts)" if n and q.show != "conflicts" else "") + "</span>")
        text = s.store.team.criteria() or ""
        self.criteria.value = ("<div class='wb-criteria wb-meta'><b>Inclusion criteria</b><br>"
                               + escape(text).replace("\n", "<br>") + "</div>") if text else ""
        reasons = [r.name for r in s.store.team.exclusion_reasons()] + ([NOT_RETRIEVED] if q.stage == FULL_TEXT else [])
        self.view.card.reasons = [r for r in reasons if r != NOT_RETRIEVED]  # not retrieved has its button
        self.final_reason.options = reasons
        self.final.options = DECISIONS if q.stage == TITLE_ABSTRACT else ("include", "exclude", NOT_RETRIEVED)
        self.resolve_row.layout.display = "flex" if q.show == "conflicts" else "none"
        self.view.card.decisions = list(DECISIONS) if q.stage == TITLE_ABSTRACT else ["include", "exclude", NOT_RETRIEVED]

    def on_named(self) -> None:
        """A name was taken: the queue is this reviewer's now (a reason goes to their own decisions)."""
        self.queue.reason_for = None
        self.queue.refilter()
        self.view.render()

    def on_stage(self) -> None:
        if self.view.quiet:
            return
        self.queue.stage = self.stage.value
        self.queue.order = "map" if self.stage.value == FULL_TEXT else self.queue.order
        self.view.act(self.view.filter_act, self.queue.refilter, ok=lambda n: f"{n} papers in the queue")

    def on_resolve(self) -> None:
        if self.view.act(self.resolve_act, self.queue.resolve, self.final.value, self.final_reason.value,
                          ok=lambda _: self.queue.last) is not FAILED:
            self.final_reason.value = ""
            self._answered = self.queue.current_id

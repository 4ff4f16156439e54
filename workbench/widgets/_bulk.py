"""Screening from the map: include or exclude a topic or a map selection in one action, after a
preview of what it touches, and hand a topic's undecided papers to 02's queue first.

The state is :class:`~workbench.widgets.mapscreen.MapScreening` (in the session); this is the
row of widgets among the selection's actions. "Decide in bulk…" never writes at once: it says how many
papers the decision touches and how many are already decided, and waits for Yes or Cancel.
The explore view's Undo takes the whole decision back.
"""

from __future__ import annotations

import ipywidgets as W

from ..session.mapscreen import BULK_DECISIONS
from ..session.session import Session
from ._feedback import Act

__all__ = ["BulkTools"]


class BulkTools:
    """``selection()`` -> (ids, what): the explore view's selection and where it came from."""

    def __init__(self, session: Session, selection):
        self.session = session
        self.selection = selection
        # no label: the button beside it says "in bulk" (the column beside the map is narrow)
        self.decision = W.ToggleButtons(options=list(BULK_DECISIONS), value="exclude",
                                        style={"button_width": "auto"},
                                        tooltips=["exclude every paper of the selection", "include every paper of the selection"])
        self.change_decided = W.Checkbox(value=False, indent=False, layout=W.Layout(width="auto"),
                                         description="also change papers I already decided")
        self.reason = W.Text(placeholder="reason (optional; recorded with each)",
                             layout=W.Layout(flex="1 1 10rem", width="auto", min_width="9rem"))
        self.bulk_act = Act("Decide in bulk…", icon="check-square-o", busy_text="deciding",
                            tooltip="decide the selection (a topic, a lasso) in one action: says first how many "
                                    "papers it touches; one Undo takes it back")
        self.bulk_act.on_click(self.on_bulk)
        self.screen_act = Act("Screen these next", icon="list-ol", busy_text="sending",
                              tooltip="send the selection's undecided papers to the screening queue of 02 "
                                      "(show: sent from the map), in the queue's order")
        self.screen_act.on_click(self.on_screen)
        wrap = W.Layout(flex_flow="row wrap", align_items="center")
        # the rows of the bulk decision (the button beside the choice, which it says, and what
        # else may go with it); "Screen these next" (``screen_act.widget``) is placed by the view
        self.widget = W.HBox([self.decision, self.bulk_act.widget, self.reason, self.change_decided], layout=wrap)
        self.widget.add_class("wb-bulk-tools")

    def follow(self, what: str) -> None:
        """Name the buttons after the selection: "Screen topic 4 next" for a topic's papers."""
        topic = what.split(":")[0] if what.startswith("topic ") else ""
        self.bulk_act.button.description = f"Decide {topic} in bulk…" if topic else "Decide in bulk…"
        self.screen_act.button.description = f"Screen {topic} next" if topic else "Screen these next"

    def on_bulk(self) -> None:
        """Preview the bulk decision beside the button; it is made only when Yes is clicked."""
        ids, what = self.selection()
        if not ids:
            self.bulk_act.line.error("no papers selected; lasso some on the map or click a topic in the legend")
            return
        plan = self.session.map.plan_bulk(ids, self.decision.value, what, self.change_decided.value)
        if not plan.ids:
            self.bulk_act.line.info(f"nothing to {plan.decision}: every one of the {len(plan.selected)} papers of "
                                    f"{what} is already decided ({plan.describe_decided()}); tick "
                                    "'also change papers I already decided' to change them")
            return
        self.bulk_act.ask(plan.text + "? They will be marked as decided in bulk: the stopping estimate counts "
                          "them as unread.", plan.yes, self.session.map.decide_bulk, plan, self.reason.value,
                          ok=lambda n: (f"{plan.decision}: {n} papers of {what}, marked as decided in bulk "
                                        "(the stopping estimate does not count them as read); Undo takes them all back"),
                          then=lambda _: setattr(self.reason, "value", ""))

    def on_screen(self) -> None:
        """Send the selection's undecided papers (all of them if none is undecided) to 02."""
        ids, what = self.selection()
        if not ids:
            self.screen_act.line.error("no papers selected; lasso some on the map or click a topic in the legend")
            return
        undecided = self.session.map.undecided_of(ids)
        chosen = undecided or list(ids)
        note = "" if undecided else " (every one is already decided)"

        def ok(n):
            return (f"{n} {'undecided ' if undecided else ''}papers sent to the screening queue of 02 from {what}{note}: "
                    "in 02_tag_and_screen press Reload to screen them (show: sent from the map)")

        self.screen_act.run(self.session.send_to_queue, chosen, what, ok=ok)

"""The screening view: one paper at a time, tag toggles, decisions, notes, keyboard shortcuts.

Every click goes straight to the :class:`~workbench.widgets.queue.ScreeningQueue` and from
there to the store: there is no save button. Keys (once the view has the focus: click the
paper): j/→ next, k/← previous, 1-9 toggle the n-th tag, i include, e exclude, m maybe, u undo;
never while typing in a box. Enter in a box does what its button does (Ctrl+Enter in the note).
The paper, its actions, its point on the map and the progress and stopping panel are one
component (:class:`~._screencard.ScreenCard`); what an action did is said on the card, naming
the paper by its short title, and cleared when another card shows. A reason goes to the paper
just decided (decide, then give a reason), by a chip or the box, until the next decision.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..session.progress import ProgressWatch
from ..session.queue import FILTERS, KEYS, Card, ScreeningQueue, order_names
from ._common import key_help, view_frame
from ._feedback import FAILED, Act, Line, Told, run_reporting
from ._follow import Following
from ._keys import Keys
from ._living import LivingPanels
from ._screencard import ScreenCard
from ._team import TeamBar, votes_html

__all__ = ["ScreenView", "card_state", "map_codes"]

CODES = {"include": 1, "exclude": 2, "maybe": 3}  # a paper's colour on the card's map (0: undecided)
FILTER_NAMES = {"undecided": "undecided", "all": "all papers", "untagged": "untagged",
                "sent": "sent from the map", "include": "included", "exclude": "excluded", "maybe": "maybe",
                "conflicts": "conflicts to resolve"}
HELP = (("j →", "next"), ("k ←", "previous"), ("i", "include"), ("e", "exclude"), ("m", "maybe"),
        ("1–9", "toggle tag n"), ("u", "undo"), ("Enter", "submits a box (a reason: the paper just decided)"),
        ("Ctrl+Enter", "saves the note"))


def map_codes(review, decided: dict[str, str]) -> bytes:
    """One byte per paper of ``review`` in map order: its colour on the card's map (:data:`CODES`)
    by ``decided`` (``{paper id: decision}``; papers not in the review are left out)."""
    codes = np.zeros(len(review), dtype=np.uint8)
    kept = [pid for pid in decided if pid in review]
    codes[np.asarray(review.rows(kept), dtype=np.int64)] = [CODES.get(decided[pid], 0) for pid in kept]
    return codes.tobytes()


def card_state(card: Card) -> dict:
    """What the card component shows of ``card`` (its ``*_html`` fields escaped by the queue)."""
    year = f" · {card.year}" if card.year else ""
    details = ""
    if card.rank is not None:
        details = f"score {card.score:.3f}" + (f" · model {card.model}" if card.model else "")
    return {
        "id": card.id, "position": card.position, "total": card.total, "new_since": card.new_since or "",
        "match": card.match, "title_html": card.title_html,
        "byline_html": f"{card.authors}{year} · {card.collection} · topic {card.topic}: {card.topic_label}",
        "relevance_html": card.relevance, "why_html": card.why, "details_html": details,
        "decision": card.decision or "", "reason": card.reason or "", "tags": list(card.tags),
        "votes_html": votes_html(card), "citations_html": card.citations, "abstract_html": card.abstract_html,
        "notes_html": list(card.notes),
    }


class ScreenView:
    def __init__(self, queue: ScreeningQueue):
        self.queue = queue
        self.session = queue.session
        self.keys = Keys(on_key=self.on_key, shortcuts=list(KEYS))
        self._quiet = False  # True while the view itself changes a filter's options
        self._acting = False  # True while one of this view's own actions runs
        self._said_on: tuple | None = None  # the paper on screen and the reviewer when the card's message was said
        self._said_n = 0
        self._codes_key = None  # what the map's colours were drawn from
        self.progress_watch = ProgressWatch(self.session)
        self._build()
        self.render()
        self.show_where()
        self.session.subscribe(self.following.guard(self._on_change))

    # ------------------------------------------------------------------ layout

    def _topic_options(self):
        return [("all topics", "all")] + [
            (f"{t.topic}: {t.label}", int(t.topic)) for t in self.session.review.topics.itertuples() if t.topic >= 0]

    def _order_options(self):
        """The orders, each saying what the queue does (whether a model ranks it yet)."""
        ranking = self.queue.ranking
        ranked = ranking is not None and ranking.mode == "ranked"
        return [(name, order) for order, name in order_names(ranked).items()]

    def _show_order(self) -> None:
        """The order menu says what the queue does now (its words, and an order the queue chose)."""
        options = self._order_options()
        if list(self.order.options) != options or self.order.value != self.queue.order:
            self._quiet = True
            try:
                self.order.options = options
                self.order.value = self.queue.order
            finally:
                self._quiet = False

    def _show_options(self):
        """The filters, and one "new since DATE" per update of the review (latest first)."""
        dates = self.session.living.new_dates()
        return [(FILTER_NAMES[f], f) for f in FILTERS] + [(f"new since {d}", f"new since {d}") for d in dates]

    def _build_filters(self) -> W.Widget:
        """The row of filters and the order."""
        self.show = W.Dropdown(options=self._show_options(), value=self.queue.show,
                               description="show", layout=W.Layout(width="14rem"))
        self.show.add_class("wb-show")
        self.topic = W.Dropdown(options=self._topic_options(), description="topic", layout=W.Layout(width="18rem"),
                                value="all" if self.queue.topic is None else self.queue.topic)
        self.order = W.Dropdown(options=self._order_options(), value=self.queue.order, description="order",
                                layout=W.Layout(width="24rem"))
        self.search = W.Text(value=self.queue.search, placeholder="keywords", description="search",
                             layout=W.Layout(width="16rem"))
        self.filter_act = Act("Filter", icon="filter", tooltip="apply the filters and the search")
        self.filter_act.on_click(self.on_filter)
        for w in (self.show, self.topic, self.order):
            w.observe(lambda _: None if self._quiet else self.on_filter(), names="value")
        self.keys.submit(self.search, "search", self.on_filter)
        self.reload_act = Act("Reload", icon="refresh", tooltip="read changes made in other notebooks or the command line")
        self.reload_act.on_click(self.on_reload)
        return W.HBox([self.show, self.topic, self.order, self.search, self.filter_act.widget, self.reload_act.widget],
                      layout=W.Layout(flex_flow="row wrap", align_items="center"))

    def _build(self) -> None:
        filters = self._build_filters()
        self.card = ScreenCard(on_action=self.on_action)
        self.team = TeamBar(self)
        self.living = LivingPanels(self)  # folded: a new search, possible duplicates
        # Before each action: what changed elsewhere is read, and every view follows it
        self.following = Following(self.session, self.keys, self.reload_act.line, self.redraw)
        self.widget = view_frame([
            self.team.header,
            self.following.widget,
            filters,
            self.team.resolve_row,
            self.card,
            W.HBox([key_help(HELP), self.team.criteria], layout=W.Layout(flex_flow="row wrap")),
            self.living.widget,
        ], self.keys, "screen")

    # ------------------------------------------------------------------ rendering

    def show_where(self, force: bool = False) -> None:
        """The progress and stopping panel, recomputed when the decisions, the reviewer or the
        review changed since it was last drawn (a move to another card costs nothing)."""
        panel, fresh = self.progress_watch.current(force)
        if fresh or force:
            self.card.panel = panel.to_dict()

    def say(self, kind: str, text: str) -> None:
        """The card's message line: about the card now on screen, cleared when it changes."""
        self.card.message = {"kind": kind, "text": text, "n": self._said_n} if text else {}
        self._said_n += 1
        self._said_on = (self.queue.current_id, self.session.reviewer)

    def render(self) -> None:
        self.team.render()
        self._show_order()
        q = self.queue
        card = q.card()
        pid = card.id if card is not None else None
        if self._said_on != (pid, self.session.reviewer):  # a message belongs to the card it was said on
            self.card.message = {}
            self._said_on = (pid, self.session.reviewer)
        self.card.tags = [{"name": t, "n": n, "on": card is not None and t in card.tags}
                          for n, t in enumerate(q.tags(), start=1)]
        target = q.reason_for
        self.card.reason_for = ({"id": target.paper_id, "title": target.title, "decision": target.decision,
                                 "pending": target.pending} if target is not None else {})
        # the paper before the map and the panel: the browser draws each change as it comes
        if card is None:
            what = f" ({q.sent_what})" if q.show == "sent" and q.sent_what else ""
            self.card.card = {"empty": f"No papers match these filters{what}."}
        else:
            self.card.card = card_state(card)
        decided = q.decided()  # one read of the decisions for the progress bar and the map
        screened, total = q.progress(decided)
        by_you = " by you or settled" if q.session.team.active() else ""  # (what progress() counts)
        self.card.progress = {"screened": screened, "total": total, "label": f"{screened} of {total} screened{by_you}"}
        self._show_map(pid, decided)
        self.show_where()

    def _show_map(self, pid: str | None, decided: dict) -> None:
        """The map beside the card: the paper on screen ringed, the papers screened in their colour."""
        key = (self.session.store.latest_change(), self.session.reviewer, self.queue.stage, len(self.session.ids))
        if self._codes_key is None or key[3] != self._codes_key[3]:  # the first time, or an update placed papers
            self.card.set_map(self.session.saved.coords)
        if key != self._codes_key:
            self.card.map_codes = map_codes(self.session.review, decided)
            self._codes_key = key
        self.card.current = self.session.rows_of([pid])[0] if pid is not None else -1

    # ------------------------------------------------------------------ actions

    def _act(self, act: Act | Line, action, *args, ok=None):
        """Run an action of this view, report it beside its control, then show the queue again."""
        self._acting = True
        try:
            if isinstance(act, Act):
                result = act.run(action, *args, ok=ok or (lambda _: self.queue.last))
            else:
                result = run_reporting(act, lambda: action(*args), ok or (lambda _: self.queue.last))
        finally:
            self._acting = False
        self.render()
        return result

    def _card_act(self, action, *args, ok=None):
        """Run an action of the card, show the card again, then say what it did on the card
        (after the card changed: the message is about what the user sees now)."""
        told = Told()
        self._acting = True
        try:
            result = run_reporting(told, lambda: action(*args), ok or (lambda _: self.queue.last))
        finally:
            self._acting = False
        self.render()
        self.say(told.kind, told.text)
        return result

    def act(self, act: Act | Line, action, *args, ok=None):
        """Run ``action(*args)`` as one of this view's actions (for its parts, e.g. the team bar)."""
        return self._act(act, action, *args, ok=ok)

    @property
    def quiet(self) -> bool:
        """True while the view itself changes a control's value (no action should follow)."""
        return self._quiet

    def on_filter(self) -> None:
        topic = self.topic.value
        self._act(self.filter_act, self.queue.refilter, self.show.value, None if topic == "all" else topic,
                  self.search.value, self.order.value, ok=lambda n: f"{n} papers in the queue")

    def on_stopping(self) -> None:
        """Log the stopping claim in the store (the panel shows it at all times)."""
        self._card_act(self.queue.stopping, ok=lambda r: "the claim is logged in the history ("
                       + ("you may stop" if r.stop else "keep screening") + ")")
        self.show_where(force=True)

    def on_reload(self) -> None:
        what = self._act(self.reload_act, self.following.reload, ok=lambda text: text)
        if what is FAILED:
            return
        # Papers sent from the map since the queue last looked are shown; else the same filters again.
        self._act(self.filter_act, lambda: self.queue.take_sent() or f"{self.queue.refilter()} papers in the queue",
                  ok=lambda said: said)
        self._show_filters()

    def redraw(self) -> None:
        """The view drawn again from the session (Reopen, after it could not follow)."""
        self.queue.refilter()
        self._show_filters()
        self.render()
        self.show_where()

    def show_filter(self, show: str) -> None:
        """Show the queue under another filter (e.g. an update's "new since DATE"), others cleared."""
        self._act(self.filter_act, self.queue.refilter, show, None, "", ok=lambda n: f"{n} papers in the queue")
        self._show_filters()

    def _show_filters(self) -> None:
        """The filter controls say what the queue shows (after a change made by the view)."""
        self._quiet = True
        try:
            self.show.options = self._show_options()
            self.show.value = self.queue.show
            self.topic.value = "all" if self.queue.topic is None else self.queue.topic
            self.search.value = self.queue.search
        finally:
            self._quiet = False

    def on_action(self, action: str, value) -> None:
        """What the card sent: a click on one of its controls, or Enter in one of its boxes."""
        text = "" if value is None else str(value)
        handlers = {
            "decide": lambda: self.on_decide(text),
            "reason": lambda: self.on_reason(text),
            "tag": lambda: self.on_add_tag(text),
            "toggle": lambda: self.on_toggle(text),
            "note": lambda: self.on_note(text),
            "move": lambda: self.on_key(text),
            "undo": lambda: self.on_key("u"),
            "log_claim": self.on_stopping,
            "go": lambda: self.on_map_point(int(value)),
        }
        handlers[action]()

    def on_toggle(self, tag: str) -> None:
        self._card_act(self.queue.toggle_tag, tag)

    def on_add_tag(self, text: str) -> None:
        if self._card_act(self.queue.add_tag, text) is not FAILED:
            self.card.clear_box("tag")

    def on_decide(self, decision: str, reason: str = "") -> None:
        if self._card_act(self.queue.decide, decision, reason) is not FAILED and (
                self.queue.reason_for is not None and self.queue.reason_for.pending):
            self.say("info", self.queue.last)  # nothing decided yet: the reason comes first here

    def on_reason(self, text: str) -> None:
        """A reason (a chip or the box): it goes to the paper just decided, wherever the queue is."""
        if self._card_act(self.queue.give_reason, text) is not FAILED:
            self.card.clear_box("reason")

    def on_note(self, text: str) -> None:
        if self._card_act(self.queue.note, text) is not FAILED:
            self.card.clear_box("note")

    def on_map_point(self, row: int) -> None:
        """A click on the map beside the card: open that paper when it is in the queue."""
        pid = self.session.ids_at([row])[0]
        title = self.queue.short_title(pid)
        self._card_act(self.queue.go, pid, ok=lambda _: f"opened “{title}” from the map")

    def on_key(self, key: str) -> None:
        action = KEYS.get(key, (None, None))[0]
        if action is None or action in ("next", "previous"):  # moving: the card itself is the answer
            self._card_act(self.queue.press, key, ok=lambda _: "")
            return
        self._card_act(self.queue.press, key)

    def _on_change(self, event: str, ids) -> None:
        """Another view in this kernel changed something: show it here too."""
        if event in ("topics", "reload", "undo"):
            self._quiet = True
            try:
                current = self.topic.value
                self.topic.options = self._topic_options()
                self.topic.value = current if current in [v for _, v in self.topic.options] else "all"
                self.show.options = self._show_options()
                if self.queue.show in [v for _, v in self.show.options]:
                    self.show.value = self.queue.show
            finally:
                self._quiet = False
            self.living.changed(event)
        if event == "duplicates" and not self._acting:  # a paper merged away leaves the queue at once
            self.queue.refilter()
        if event == "reload" and not self._acting:  # changes read from elsewhere (a merge, a decision)
            if set(self.queue.ids) - set(self.session.review.ids) or set(self.queue.ids) & self.session.saved.updates.merged_away():
                self.queue.refilter()
            self.show_where()
        if event == "queue" and not self._acting:
            news = self.queue.take_sent()
            if news:
                self.filter_act.line.ok(news)
                self._show_filters()
        if not self._acting:
            self.render()

    # ------------------------------------------------------------------ scripted actions (headless runs)

    def play(self, actions) -> None:
        """Replay actions through the same handlers a click or a key press uses.

        Each action is a dict: ``{"key": "j"}``, ``{"toggle_tag": name}``, ``{"add_tag": "a, b"}``,
        ``{"decide": "include", "reason": ...}``, ``{"reason": text}`` (for the paper just decided),
        ``{"note": text}``, ``{"go": id}``,
        ``{"search": "reward model"}`` (as typed into the search box, then Enter); team review:
        ``{"reviewer": "Ana"}`` (typed in the name box), ``{"stage": "full_text"}``,
        ``{"show": "conflicts"}``, ``{"resolve": "include", "reason": ...}``; a living review:
        ``{"update": "new.ris", "database": "PubMed", "searched": "2025-03-01"}`` (then the new
        papers are shown), ``{"show": "new"}``, ``{"duplicates": "same" | "different" | "undo"}``.
        """
        for action in actions or []:
            if "reviewer" in action:
                self.keys.enter("reviewer", action["reviewer"])
            if "stage" in action:
                self.team.stage.value = action["stage"]
            if "show" in action:  # as picked in the dropdown; "new": the latest update's papers
                if action["show"] in [v for _, v in self.show.options]:
                    self.show.value = action["show"]
                else:
                    self.show_filter(action["show"])
            if "resolve" in action:
                self.team.final.value = action["resolve"]
                self.team.final_reason.value = action.get("reason", "")
                self.team.on_resolve()
            if "go" in action:
                self._act(Line(), self.queue.go, action["go"], ok="shown")
            if "search" in action:
                self.keys.enter("search", action["search"])
            if "key" in action:
                self.keys.press(action["key"])
            if "toggle_tag" in action:
                self.on_toggle(action["toggle_tag"])
            if "add_tag" in action:
                self.card.act("tag", action["add_tag"])
            if "decide" in action:
                self.on_decide(action["decide"], action.get("reason", ""))
            elif "reason" in action and "resolve" not in action:  # a reason for the paper just decided
                self.card.act("reason", action["reason"])
            if "note" in action:
                self.card.act("note", action["note"])
            if "update" in action or "duplicates" in action:
                self.living.play(action)

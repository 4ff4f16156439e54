"""The screening view: one paper at a time, tag toggles, decisions, notes, keyboard shortcuts.

Every click goes straight to the :class:`~workbench.widgets.queue.ScreeningQueue` and from
there to the store: there is no save button. Keys (once the view has the focus: click the
paper): j/→ next, k/← previous, 1-9 toggle the n-th tag, i include, e exclude, m maybe, u undo;
never while typing in a box. Enter in a box does what its button does (Ctrl+Enter in the note).
What each action did is said beside the control that did it.
"""

from __future__ import annotations

import ipywidgets as W

from ..session.queue import FILTERS, KEYS, ORDERS, ScreeningQueue, order_names
from ..session.text import escape
from ._common import key_help, tag_chips, view_frame
from ._feedback import FAILED, Act, Line, run_reporting
from ._follow import Following
from ._keys import Keys
from ._living import LivingPanels
from ._team import TeamBar, votes_html

__all__ = ["ScreenView"]

DECISION_STYLE = {"include": ("success", "i"), "exclude": ("danger", "e"), "maybe": ("warning", "m")}
FILTER_NAMES = {"undecided": "undecided", "all": "all papers", "untagged": "untagged",
                "sent": "sent from the map", "include": "included", "exclude": "excluded", "maybe": "maybe",
                "conflicts": "conflicts to resolve"}
HELP = (("j →", "next"), ("k ←", "previous"), ("i", "include"), ("e", "exclude"), ("m", "maybe"),
        ("1–9", "toggle tag n"), ("u", "undo"), ("Enter", "submits a box"), ("Ctrl+Enter", "saves the note"))


class ScreenView:
    def __init__(self, queue: ScreeningQueue):
        self.queue = queue
        self.session = queue.session
        self.keys = Keys(on_key=self.on_key, shortcuts=list(KEYS))
        self._quiet = False  # True while the view itself changes a filter's options
        self._acting = False  # True while one of this view's own actions runs
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
        """The row of filters and the order, and the stopping advice under it."""
        self.show = W.Dropdown(options=self._show_options(), value=self.queue.show,
                               description="show", layout=W.Layout(width="15rem"))
        self.show.add_class("wb-show")
        self.topic = W.Dropdown(options=self._topic_options(), description="topic", layout=W.Layout(width="22rem"),
                                value="all" if self.queue.topic is None else self.queue.topic)
        self.order = W.Dropdown(options=self._order_options(), value=self.queue.order, description="order",
                                layout=W.Layout(width="26rem"))
        self.search = W.Text(value=self.queue.search, placeholder="keywords", description="search")
        self.filter_act = Act("Filter", icon="filter", tooltip="apply the filters and the search")
        self.filter_act.on_click(self.on_filter)
        for w in (self.show, self.topic, self.order):
            w.observe(lambda _: None if self._quiet else self.on_filter(), names="value")
        self.keys.submit(self.search, "search", self.on_filter)
        self.reload_act = Act("Reload", icon="refresh", tooltip="read changes made in other notebooks or the command line")
        self.reload_act.on_click(self.on_reload)
        self.stop_act = Act("When can I stop?", icon="flag-checkered",
                            tooltip="relevant papers left, and what you may claim if you stop now (logged)")
        self.stop_act.on_click(self.on_stopping)
        self.stopping = W.HTML()
        self.where = W.HTML()  # included so far, and the relevant papers estimated still unscreened
        return W.VBox([
            W.HBox([self.show, self.topic, self.order, self.search, self.filter_act.widget, self.reload_act.widget],
                   layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.where, self.stop_act.widget, self.stopping], layout=W.Layout(align_items="center")),
        ])

    def _build(self) -> None:
        filters = self._build_filters()
        self.prev_button = W.Button(description="◀ previous (k)", layout=W.Layout(width="auto"))
        self.prev_button.on_click(lambda _: self.on_key("k"))
        self.next_button = W.Button(description="next (j) ▶", layout=W.Layout(width="auto"))
        self.next_button.on_click(lambda _: self.on_key("j"))
        self.undo_act = Act("Undo (u)", icon="undo", tooltip="take back your last change and show its paper")
        self.undo_act.on_click(lambda: self.on_key("u"))
        self.progress = W.IntProgress(min=0, max=1, layout=W.Layout(width="12em"))
        self.progress_label = W.HTML()

        self.decision_buttons = {}
        for decision, (_, key) in DECISION_STYLE.items():
            b = W.Button(description=f"{decision} ({key})", layout=W.Layout(width="auto"))
            b.on_click(lambda _, d=decision: self.on_decide(d))
            self.decision_buttons[decision] = b
        self.not_retrieved = W.Button(description="not retrieved", layout=W.Layout(width="auto"),
                                      tooltip="full text: the report could not be obtained")
        self.not_retrieved.on_click(lambda _: self.on_decide("not retrieved"))
        # The team's exclusion reasons to pick from; free text still allowed.
        self.reason = W.Combobox(placeholder="reason (pick or type; Enter keeps the decision, adds the reason)",
                                 ensure_option=False, layout=W.Layout(width="24rem"))
        self.keys.submit(self.reason, "reason", self.on_reason)
        self.decision_line = Line()

        self.card = W.HTML()
        self.tags_box = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        self.new_tag = W.Text(placeholder="new tag(s), comma separated")
        self.add_tag_act = Act("Add tag", icon="plus")
        self.add_tag_act.on_click(self.on_add_tag)
        self.keys.submit(self.new_tag, "tag", self.on_add_tag)
        self.note = W.Textarea(placeholder="note on this paper (Ctrl+Enter saves it)", rows=2, layout=W.Layout(width="40em"))
        self.note_act = Act("Add note", icon="sticky-note")
        self.note_act.on_click(self.on_note)
        self.keys.submit(self.note, "note", self.on_note)

        bar = W.VBox([  # the abstract scrolls in its box, so these stay in view
            W.HBox([self.prev_button, self.next_button, self.undo_act.widget, self.progress, self.progress_label],
                   layout=W.Layout(align_items="center")),
            W.HBox([*self.decision_buttons.values(), self.not_retrieved, self.reason, self.decision_line],
                   layout=W.Layout(align_items="center")),
            key_help(HELP),
        ])
        self.team = TeamBar(self)
        self.living = LivingPanels(self)  # folded: a new search, possible duplicates
        # Before each action: what changed elsewhere is read, and every view follows it
        self.following = Following(self.session, self.keys, self.reload_act.line, self.redraw)
        self.widget = view_frame([
            self.team.header,
            self.following.widget,
            filters,
            bar,
            self.team.resolve_row,
            W.HBox([self.card, self.team.criteria]),
            self.tags_box,
            W.HBox([self.new_tag, self.add_tag_act.widget]),
            W.HBox([self.note, self.note_act.widget]),
            self.living.widget,
        ], self.keys, "screen")

    # ------------------------------------------------------------------ rendering

    def show_where(self) -> None:
        """Papers included so far and the relevant papers estimated still unscreened (95 %)."""
        report = self.session.stopping(log=False)
        left = report.estimate
        estimate = (f"about {left.point:.0f} relevant left ({left.confidence:.0%}: {left.low}–{left.high})"
                    if report.read else "no estimate before a paper is read")
        bulk = f" · {report.bulk} decided in bulk, not counted" if report.bulk else ""
        self.where.value = f"<span class='wb-meta'>{report.relevant} relevant so far · {escape(estimate)}{bulk}</span>"

    def render(self) -> None:
        self.team.render()
        self._show_order()
        card = self.queue.card()
        screened, total = self.queue.progress()
        self.progress.max, self.progress.value = max(total, 1), screened
        by_you = " by you or settled" if self.queue.session.team.active() else ""  # (what progress() counts)
        self.progress_label.value = f"{screened} of {total} screened{by_you}"
        if card is None:
            what = f" ({escape(self.queue.sent_what)})" if self.queue.show == "sent" and self.queue.sent_what else ""
            self.card.value = f"<div class='wb-card'><i>No papers match these filters{what}.</i></div>"
            self.tags_box.children = ()
            self._show_decision(None)
            return
        decision = (f"<b>{escape(card.decision)}</b>" + (f" ({escape(card.reason)})" if card.reason else "")
                    if card.decision else "undecided")
        notes = "".join(f"<li>{n}</li>" for n in card.notes)
        relevance = ""
        if card.rank is not None:
            details = f"score {card.score:.3f} · model {card.model}" if card.model else f"score {card.score:.3f}"
            relevance = (f"<div class='wb-meta wb-relevance'><b>{card.relevance}</b>"
                         + (f" · why: {card.why}" if card.why else "")
                         + f" <details class='wb-details'><summary>details</summary>{details}</details></div>")
        elif card.why:
            relevance = f"<div class='wb-meta wb-relevance'>{card.why}</div>"
        year = f" · {card.year}" if card.year else ""
        new = f" · <span class='wb-new'>new since {escape(card.new_since)}</span>" if card.new_since else ""
        self.card.value = (
            f"<div class='wb-card'><div class='wb-meta'>{card.position} of {card.total} in this queue · "
            f"<code>{escape(card.id)}</code>{new}" + (f" · found by {escape(card.match)}" if card.match else "") + "</div>"
            f"<h3>{card.title_html}</h3>"
            f"<div class='wb-meta'>{card.authors}{year} · {card.collection} · topic {card.topic}: {card.topic_label}</div>"
            f"<div class='wb-meta'>decision: {decision} · tags: {tag_chips(card.tags) or 'none'}</div>"
            + votes_html(card)
            + relevance + card.citations
            + f"<div class='wb-abstract'>{card.abstract_html}</div>"
            + (f"<div class='wb-meta'>notes:<ul>{notes}</ul></div>" if notes else "")
            + "</div>"
        )
        self._show_decision(card.decision)
        self._show_tags(card.tags)

    def _show_decision(self, current: str | None) -> None:
        """The paper's decision is the filled button, with a tick; the others are plain."""
        for decision, b in self.decision_buttons.items():
            on = decision == current
            style, key = DECISION_STYLE[decision]
            b.button_style = style if on else ""
            b.description = f"✓ {decision} ({key})" if on else f"{decision} ({key})"
            b.remove_class("wb-decision-off" if on else "wb-decision-on")
            b.add_class("wb-decision-on" if on else "wb-decision-off")

    def _show_tags(self, tags_on) -> None:
        """One button per tag, numbered in the order tags were made: on is filled with a tick,
        off is a dashed outline; a click (or its number key) toggles it."""
        buttons = []
        for n, tag in enumerate(self.queue.tags(), start=1):
            on = tag in tags_on
            label = f"{n} · {tag}" if n <= 9 else tag
            b = W.Button(description=("✓ " if on else "") + label, tooltip=f"{'remove' if on else 'add'} tag {tag}",
                         layout=W.Layout(width="auto"))
            b.add_class("wb-tag-on" if on else "wb-tag-off")
            b.on_click(lambda _, t=tag: self.on_toggle(t))
            buttons.append(b)
        self.tags_box.children = tuple(buttons)

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
        if act in (self.decision_line, self.undo_act):
            self.show_where()
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
        report = self._act(self.stop_act, self.queue.stopping, ok=lambda r: "the claim is logged in the history")
        if report is not FAILED:
            self.stopping.value = "<br>".join(escape(line) for line in report.lines())

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

    def on_toggle(self, tag: str) -> None:
        self._act(self.add_tag_act.line, self.queue.toggle_tag, tag)

    def on_add_tag(self) -> None:
        if self._act(self.add_tag_act, self.queue.add_tag, self.new_tag.value) is not FAILED:
            self.new_tag.value = ""

    def on_decide(self, decision: str) -> None:
        if self._act(self.decision_line, self.queue.decide, decision, self.reason.value) is not FAILED:
            self.reason.value = ""

    def on_reason(self) -> None:
        """Enter in the reason box: the paper keeps its decision and gets the reason."""
        pid = self.queue.current_id
        current = self.session.store.decisions.of(pid) if pid else None
        if current is None:
            self.decision_line.error("choose a decision for this paper (include, exclude or maybe); the reason goes with it")
            return
        if self._act(self.decision_line, self.queue.decide, current.decision, self.reason.value, False,
                     ok=lambda _: f"reason saved with {current.decision}") is not FAILED:
            self.reason.value = ""

    def on_note(self) -> None:
        if self._act(self.note_act, self.queue.note, self.note.value) is not FAILED:
            self.note.value = ""

    def on_key(self, key: str) -> None:
        action = KEYS.get(key, (None, None))[0]
        where = {"decide": self.decision_line, "undo": self.undo_act, "tag_number": self.add_tag_act.line}.get(action)
        if where is None:  # moving: the card itself is the answer
            self._act(Line(), self.queue.press, key)
            return
        self._act(where, self.queue.press, key)

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
        ``{"decide": "include", "reason": ...}``, ``{"note": text}``, ``{"go": id}``,
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
                self.keys.enter("tag", action["add_tag"])
            if "decide" in action:
                self.reason.value = action.get("reason", "")
                self.on_decide(action["decide"])
            if "note" in action:
                self.keys.enter("note", action["note"])
            if "update" in action or "duplicates" in action:
                self.living.play(action)

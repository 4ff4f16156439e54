"""The explore view: topic tools, the map (jupyter-scatter) with its legend, search, the
selection as a sortable table whose rows open the paper (and light it up on the map), its
citation links drawn on the map (ticked "show citation links"), and what
can be done to the selection, down to deciding a topic or a lasso in bulk (after a preview) and
sending its undecided papers to 02's screening queue. State lives in
:class:`~workbench.session.session.Session`; each button answers beside itself (busy, then the
result or the error), Enter in a box does what its button does, an action on more than 20
papers asks first, and a search never replaces a selection unless asked to.

One screen: the map's tools, the map and, beside it, the opened paper's card (the card component
02 screens with, :class:`~._screencard.ScreenCard` in its "paper" mode, with ◀ ▶ and the keys
j/k through the selection) above the actions on the selection and Undo, sized by
:mod:`._room` to what the user sees of the cell; the selection's table and the rest below."""

from __future__ import annotations

import ipywidgets as W

from ..corpus.paper import DECISIONS
from ..review import prepare_search
from ..session.session import Session
from ..session.text import escape, titles_line
from ._bulk import BulkTools
from ._card import paper_card, table_rows
from ._common import key_help, view_frame, warm_up
from ._feedback import FAILED, Act
from ._field import FieldPanel
from ._follow import Following
from ._keys import Keys
from ._mapview import COLOUR_BY, MapPanel
from ._room import GAP, LEGEND_BESIDE, SIDE_MIN, Room, plan
from ._screencard import ScreenCard
from ._table import PaperTable
from ._team import NameBox
from ._themes import ThemeTools

__all__ = ["COLOUR_BY", "ExploreView"]

HELP = (("j k", "next / previous paper of the selection"), ("Enter", "in a box does what its button does"),
        ("Ctrl+Enter", "adds the note"), ("", "actions on more than 20 papers ask first; Undo takes back your last change"))
NO_PAPER = "Click a point on the map, or select papers and press next ▶ (or j), to open a paper here."


class ExploreView:
    """Widgets around a session; ``widget`` is what the notebook displays."""

    def __init__(self, session: Session, height: int = 520):
        self.session = session
        self.selected: list[str] = []
        self.selected_what = ""  # where the selection came from, in words (for "Screen these")
        self.selected_found = None  # the search that made the selection, if one did
        self.hits: list[str] = []  # the last search's papers, while they are not the selection
        self.found = None  # that search (workbench.review.SearchResult): how each paper was found
        self.keys = Keys(on_key=self.on_key, shortcuts=["j", "k"])
        self._build(height)
        session.subscribe(self.following.guard(self._on_change))
        # what a first search needs is loaded while the user reads (a second later: the map first)
        warm_up(prepare_search, session.review)

    # ------------------------------------------------------------------ layout

    def _build(self, height: int) -> None:
        s = self.session
        self.title = W.HTML(self._title())
        self.reload_act = Act("Reload", icon="refresh", tooltip="read changes made in other notebooks or the command line")
        self.reload_act.on_click(self.on_reload)
        self.undo_act = Act("Undo", icon="undo", tooltip="take back your last change and light up its papers")
        self.undo_act.on_click(self.on_undo)
        self.topic_tools = ThemeTools(s, self.keys)
        self.names = NameBox(s, self.keys, doing="working")  # who tags and notes (asked in team use)
        self.names.render()
        self.map = MapPanel(s, height, on_select=self._on_select, on_pick=self.select_topic)
        self.scatter, self.colour = self.map.scatter, self.map.colour
        # Before each action: what changed elsewhere is read, and every view follows it
        self.following = Following(s, self.keys, self.reload_act.line, self.redraw)
        self._build_search()
        actions = self._build_actions()
        self.field = FieldPanel(s, on_year=lambda ids, what: self.select(ids, what=what))
        # One screen: the map's tools, then the map and beside it the card above the actions
        self.room = Room(on_change=self.fit)
        self.side = W.VBox([self.selection_html, self.card, actions],
                           layout=W.Layout(flex="1 1 360px", min_width="0", overflow="hidden"))
        self.side.add_class("wb-side")
        self.split = W.HBox([self.map.widget, self.side],
                            layout=W.Layout(flex_flow="row wrap", align_items="flex-start", gap="14px"))
        self.split.add_class("wb-split")
        onescreen = W.VBox([
            self.room,
            W.HBox([self.colour, self.map.select_mode, self.map.links_row, self.map.line],
                   layout=W.Layout(flex_flow="row wrap", align_items="center")),
            W.HBox([self.search_text, self.search_act.widget, self.hits_box],
                   layout=W.Layout(align_items="center", flex_flow="row wrap")),
            self.split,
        ])
        onescreen.add_class("wb-onescreen")
        self.widget = view_frame([
            W.HBox([self.title, self.reload_act.widget], layout=W.Layout(align_items="center")),
            self.following.widget,
            self.names.widget,
            key_help(HELP),
            self.topic_tools.widget,
            onescreen,
            self.table,
            W.HBox([self.recluster_act.widget], layout=W.Layout(margin="6px 0 0 0")),
            self.recluster_out,
            self.field.widget,
        ], self.keys, "explore")

    @property
    def frame(self):
        """The papers as the map shows them (a new table after the map was drawn again)."""
        return self.map.frame

    def _title(self) -> str:
        s = self.session
        n_topics = int((s.review.topics.topic >= 0).sum())
        return f"<h3 style='margin:0 1em 0 0'>{escape(s.review.path.name)}: {len(s.review.papers)} papers, {n_topics} topics</h3>"

    def _build_search(self) -> None:
        self.search_text = W.Text(placeholder="keywords or a question (Enter searches)", description="search",
                                  layout=W.Layout(width="26rem"))
        self.search_act = Act("Search", icon="search", busy_text="searching")
        self.search_act.on_click(self.on_search)
        self.keys.submit(self.search_text, "search", self.on_search)
        self.select_hits = W.Button(description="Select these", layout=W.Layout(width="auto"))
        self.select_hits.on_click(lambda _: self.use_hits(replace=True))
        self.add_hits = W.Button(description="Add to the selection", layout=W.Layout(width="auto"))
        self.add_hits.on_click(lambda _: self.use_hits(replace=False))
        self.hits_box = W.HBox([self.select_hits, self.add_hits], layout=W.Layout(display="none"))

    def _build_actions(self):
        """The selection (a count, a card of the opened paper, a table whose rows open the paper)
        and what can be done to it: tag, note, decide, decide in bulk, send to 02's queue, undo
        (all beside the card), re-cluster (under the table)."""
        self.selection_html = W.HTML("<i>Drag on the map to select papers (lasso or box), or click a topic in the legend.</i>")
        self.table = PaperTable(on_open=self.open_paper)
        self.table.layout = W.Layout(display="none")
        self.card = ScreenCard(on_action=self.on_card_action, mode="paper", card={"empty": NO_PAPER},
                               layout=W.Layout(flex="0 1 auto", min_height="0"))
        short = {"description_width": "initial"}  # a label as wide as its word: the column beside the map is narrow
        self.tag_text = W.Text(placeholder="tag(s), comma separated", description="tag", style=short,
                               layout=W.Layout(flex="1 1 10rem", width="auto", min_width="9rem"))
        self.tag_act = Act("Tag selected", icon="tag", busy_text="tagging")
        self.tag_act.on_click(self.on_tag)
        self.keys.submit(self.tag_text, "tag", self.on_tag)
        self.note_text = W.Textarea(placeholder="a note for every selected paper (Ctrl+Enter adds it)", rows=1,
                                    description="note", style=short,
                                    layout=W.Layout(flex="1 1 10rem", width="auto", min_width="9rem"))
        self.note_act = Act("Note selected", icon="sticky-note", busy_text="adding the note")
        self.note_act.on_click(self.on_note)
        self.keys.submit(self.note_text, "note", self.on_note)
        self.decision = W.Dropdown(options=DECISIONS, description="decide", style=short,
                                   layout=W.Layout(width="auto", flex="0 0 auto"))
        self.reason = W.Text(placeholder="reason (optional; Enter decides)",
                             layout=W.Layout(flex="1 1 8rem", width="auto", min_width="7rem"))
        self.decide_act = Act("Decide selected", icon="check", busy_text="deciding")
        self.decide_act.on_click(self.on_decide)
        self.keys.submit(self.reason, "reason", self.on_decide)
        self.bulk = BulkTools(self.session, lambda: (list(self.selected), self.selected_what))
        self.keys.submit(self.bulk.reason, "bulk-reason", self.bulk.on_bulk)  # Enter asks, as the button does
        self.screen_act = self.bulk.screen_act
        self.recluster_act = Act("Re-cluster selection", icon="sitemap", busy_text="finding sub-topics")
        self.recluster_act.on_click(self.on_recluster)
        self.recluster_out = W.HTML()
        def wrap():
            return W.Layout(flex_flow="row wrap", align_items="center")

        for act in (self.tag_act, self.note_act, self.decide_act, self.bulk.bulk_act, self.screen_act, self.undo_act):
            # in the narrow column beside the map: the answer beside its button while there is room,
            # else under it (an empty answer takes no room)
            act.widget.layout.flex_flow, act.widget.layout.flex = "row wrap", "1 1 auto"
            act.line.layout.min_width = "0"
        actions = W.VBox([
            W.HBox([self.tag_text, self.tag_act.widget], layout=wrap()),
            W.HBox([self.note_text, self.note_act.widget], layout=wrap()),
            W.HBox([self.decision, self.reason, self.decide_act.widget], layout=wrap()),
            self.bulk.widget,
            W.HBox([self.screen_act.widget, self.undo_act.widget], layout=wrap()),
        ], layout=W.Layout(flex="none"))
        actions.add_class("wb-actions")
        return actions

    # ------------------------------------------------------------------ map and selection

    def recolour(self) -> None:
        """Colour the map by the chosen column, read fresh from the store (another notebook may
        have tagged or decided since)."""
        self.map.recolour()

    def refresh_columns(self, topics: bool = False) -> set[str]:
        return self.map.refresh_columns(topics)

    def _on_select(self, rows) -> None:
        ids = self.session.ids_at(rows)
        if set(ids) == set(self.selected):  # the map echoing a selection made here
            return
        self.select(ids, from_map=True, what="a selection on the map")

    def select(self, ids, from_map: bool = False, what: str = "a selection", found=None) -> None:
        """Make ``ids`` the selection (a lasso on the map, a topic, search hits, an undo lighting
        up); ``what`` says where it came from, ``found`` (a search result) how each paper was found."""
        changed = list(ids) != self.selected
        self.selected, self.selected_what, self.selected_found = list(ids), what, found
        self.hits_box.layout.display = "none"
        if changed:
            self._forget_answers()
        if not from_map:
            self.scatter.selection(self.session.rows_of(self.selected))
        self._show_selection()
        self.session.save_selection(self.selected)

    def select_topic(self, topic: int) -> None:
        """Select the papers of ``topic`` (what a click on its legend entry does)."""
        topic = int(topic)
        ids = [pid for pid, t in zip(self.session.ids, self.session.review.labels) if int(t) == topic]
        self.select(ids, what=f"topic {topic}: {self.session.topic_label(topic)}")

    def _show_selection(self, keep_page: bool = False) -> None:
        n = len(self.selected)
        self.selection_html.value = (f"<b class='wb-selcount'>{n} selected</b> <span class='wb-meta'>"
                                     f"({escape(self.selected_what)}; click a row to open the paper)</span>")
        self.table.show(table_rows(self.frame, self.session.rows_of(self.selected), self.selected_found),
                        keep_page=keep_page, ranked=self.selected_found is not None and not keep_page)
        self.table.layout.display = "" if n else "none"
        self.bulk.follow(self.selected_what)
        self.field.show_selection(self.selected)
        self.map.show_links(self.selected)
        if n == 1 and self.table.opened != self.selected[0]:  # one paper (a click on its point): its card at once
            self.open_paper(self.selected[0])
        elif self.table.opened and self.table.opened not in self.selected:
            self.close_paper()
        elif self.table.opened:
            self._show_card()
        else:
            self.card.card = {"empty": NO_PAPER}

    def _forget_answers(self) -> None:
        """The answers of the selection's actions (and a question waiting for Yes) speak of the
        previous selection: they go when the selection changes."""
        for act in (self.tag_act, self.note_act, self.decide_act, self.recluster_act, self.bulk.bulk_act,
                    self.bulk.screen_act):
            act.reset()
        self.recluster_out.value = ""

    def _named(self, n: int) -> tuple[str, str]:
        """The selection in a message: its papers by short title, or how many, and then where
        they came from: ("“A” and “B”", "") or ("46 papers", " (topic 0: …)")."""
        if n <= 2:
            return titles_line([self.session.review.paper(p).title for p in self.selected[:n]]), ""
        return f"{n} papers", f" ({self.selected_what})" if self.selected_what else ""

    def open_paper(self, paper_id: str) -> None:
        """Show the paper's card beside the map and light it up on the map."""
        self.table.opened = paper_id
        self._show_card()
        self.map.light_up(paper_id)

    def close_paper(self) -> None:
        """No paper opened: the card says how to open one, and no point is lit up."""
        self.table.opened = ""
        self.card.card = {"empty": NO_PAPER}
        self.map.light_up(None)

    def _show_card(self) -> None:
        """The opened paper's card as it is now, with its place in the selection's table."""
        pid, ids = self.table.opened, self.table.ids()
        where = f"{ids.index(pid) + 1} of {len(ids)} selected" if pid in ids else "opened"
        self.card.card = paper_card(self.session, pid, where=where)

    def step(self, by: int) -> None:
        """Open the next (``by`` = 1) or previous (-1) paper of the selection, in the table's
        order (the first one when none is opened yet), and show its row's page in the table."""
        ids = self.table.ids()
        if not ids:
            self.card.card = {"empty": "No papers selected: " + NO_PAPER[0].lower() + NO_PAPER[1:]}
            return
        at = ids.index(self.table.opened) if self.table.opened in ids else (-1 if by > 0 else len(ids))
        pid = ids[min(max(at + by, 0), len(ids) - 1)]
        self.table.go(ids.index(pid) // self.table.page_size)
        self.table.open_row(pid)

    def on_key(self, key: str) -> None:
        """j: the selection's next paper, k: the previous one (in the view, not in a box)."""
        if key in ("j", "k"):
            self.step(1 if key == "j" else -1)

    def on_card_action(self, action: str, value) -> None:
        """What the card sent: its ◀ ▶ moves (the card shows no other controls in this view)."""
        if action == "move":
            self.on_key(str(value))

    def fit(self, width: int, height: int, above: int = 80) -> None:
        """Size the map and the column beside it to what the user sees of the cell (``width`` x
        ``height`` px, measured in the browser by :class:`._room.Room`; ``above``: the rows
        over the map), so that the map, the opened paper's card and the actions fit one screen."""
        sizes = plan(width, height, self.map.aspect, above)
        self.map.fit(sizes.map_width, sizes.map_height, sizes.legend, LEGEND_BESIDE + GAP)
        side = self.side.layout
        if sizes.side_width:
            side.flex, side.min_width = f"1 1 {sizes.side_width}px", f"{min(sizes.side_width, SIDE_MIN)}px"
            side.max_height = f"{sizes.side_height}px"
        else:  # too narrow for both: the card and the actions under the map
            side.flex, side.min_width, side.max_height = "1 1 100%", "0", None

    def use_hits(self, replace: bool) -> None:
        """The last search's papers become the selection (``replace``) or join it."""
        chosen = self.hits if replace else list(dict.fromkeys(self.selected + self.hits))
        self.select(chosen, what=f"search: {self.search_text.value}" if replace else "a selection and search hits",
                    found=self.found)
        self.search_act.line.ok(f"{len(chosen)} selected")

    # ------------------------------------------------------------------ actions (one per button)

    def on_tag(self, confirmed: bool = False) -> None:
        tags = [t.strip() for t in self.tag_text.value.split(",") if t.strip()]
        n, (named, where) = len(self.selected), self._named(len(self.selected))
        self.tag_act.run_many(n, "tag", self.session.tag, self.selected, *tags, confirmed=confirmed,
                              ok=lambda _: f"tagged {named}: {', '.join(tags)}{where}",
                              then=lambda _: setattr(self.tag_text, "value", ""))

    def on_note(self, confirmed: bool = False) -> None:
        n, (named, where) = len(self.selected), self._named(len(self.selected))
        self.note_act.run_many(n, "add the note to", self.session.note, self.selected, self.note_text.value,
                               confirmed=confirmed, ok=lambda _: f"note added to {named}{where}",
                               then=lambda _: setattr(self.note_text, "value", ""))

    def on_decide(self, confirmed: bool = False) -> None:
        n, decision, (named, where) = len(self.selected), self.decision.value, self._named(len(self.selected))
        self.decide_act.run_many(n, decision, self.session.decide, self.selected, decision, self.reason.value,
                                 confirmed=confirmed, ok=lambda _: f"{decision}: {named}{where}",
                                 then=lambda _: setattr(self.reason, "value", ""))

    def on_screen(self) -> None:
        """Send the selection's undecided papers to 02's queue (see :class:`.bulk.BulkTools`)."""
        self.bulk.on_screen()

    def on_bulk(self, decision: str | None = None, change_decided: bool | None = None) -> None:
        """Preview a bulk decision on the selection (made when Yes is clicked)."""
        if decision is not None:
            self.bulk.decision.value = decision
        if change_decided is not None:
            self.bulk.change_decided.value = change_decided
        self.bulk.on_bulk()

    def on_recluster(self) -> None:
        def ok(table):
            counts = table.groupby(["subtopic", "subtopic_label"]).size().reset_index(name="papers")
            counts.columns = ["sub-topic", "label", "papers"]
            self.recluster_out.value = ("<b>Sub-topics of the selection</b>"
                                        + counts.to_html(index=False, escape=True, classes="wb-bars", justify="left"))
            return f"{len(counts)} sub-topics in {len(table)} papers"

        self.recluster_act.run(self.session.review.recluster, self.selected, ok=ok)

    def on_search(self) -> None:
        def ok(result):
            found = f"{len(result.keyword)} keyword hits, {len(result.semantic)} nearest in meaning"
            if not self.selected:
                self.select(result.ids, what=f"search: {self.search_text.value}", found=result)
                return f"{found}: selected on the map"
            self.hits, self.found = result.ids, result
            self.select_hits.description = f"Select these {len(self.hits)}"
            self.hits_box.layout.display = "flex"
            return f"{found}; your selection of {len(self.selected)} is kept"

        self.search_act.run(self.session.review.search, self.search_text.value, ok=ok)

    def on_undo(self) -> None:
        undone = self.undo_act.run(self.session.undo, ok=lambda u: u.text)
        if undone is not FAILED and undone.papers:
            self.select([p for p in undone.papers if p in self.session.review], what="the papers of the undone change")

    def on_reload(self) -> None:
        self.reload_act.run(self.following.reload, ok=lambda text: text)

    def redraw(self) -> None:
        """The whole view drawn again from the session (Reopen, after it could not follow)."""
        self.map.redraw()
        self._follow_papers()
        self.title.value = self._title()
        self.field.render()
        self.names.render()

    def _follow_papers(self) -> None:
        """After a reload: the selection keeps its papers as they are now (a paper merged into
        another is that paper; one no longer in the review leaves), shown on the map's points."""
        merged = self.session.store.duplicates.merged_into()
        kept = [p for p in dict.fromkeys(merged.get(p, p) for p in self.selected) if p in self.session.review]
        if kept != self.selected:
            self.select(kept, what=self.selected_what + " (as the papers are now: merged ones joined)" if kept else "")
        elif kept:
            self.scatter.selection(self.session.rows_of(kept))
        if self.table.opened and self.table.opened not in self.session.review:
            self.close_paper()

    def _on_change(self, event: str, ids) -> None:
        topics = event in ("topics", "undo", "reload")
        if topics:
            self.title.value = self._title()
            self.field.render()
        if event == "reviewer":
            self.names.render()
        if event in ("stability", "queue", "reviewer"):
            return
        # Only what the action can have changed; the map is sent again only when its colours
        # change, or whole when its papers did (an update, a merge, a rebuild elsewhere).
        drawn = self.map.drawn_as_shown()
        self.map.follow(topics)
        if event == "reload" or not drawn:
            self._follow_papers()
        if self.selected:
            self._show_selection(keep_page=True)
        if self.table.opened:
            self._show_card()

    # ------------------------------------------------------------------ scripted actions (headless runs)

    def play(self, actions) -> None:
        """Replay actions through the same handlers a click (or Enter in a box) uses.

        Each action is a dict: ``{"select": [ids] | "search:<query>" | "topic:<n>"}``,
        ``{"tag": "a, b"}``, ``{"note": text}``, ``{"decide": "include", "reason": ...}``,
        ``{"rename_topic": n, "label": text}``, ``{"merge_topics": [a, b]}``, ``{"recluster": True}``,
        ``{"open": id}`` (a row of the selection table), ``{"screen_these": True}`` (its undecided
        papers to 02's queue), ``{"bulk": "exclude", "change_decided": False}`` (previewed, then Yes),
        ``{"colour": "decision" | "relevance" | "topic" | "tag"}``,
        ``{"themes": k}`` (None: the default topics; looked at, not saved), ``{"save_themes": True}``,
        ``{"back_to_saved": True}``, ``{"stability": [seeds]}``, ``{"undo": True}``,
        ``{"reviewer": "Ana"}`` (typed in the name box), ``{"links": True}`` (tick "show citation
        links"), ``{"field": True}`` (open the over-time panel), ``{"year": 2021 | "no year"}``
        (select that year's papers, as the panel does). A script's
        action on many papers is not asked about: it was written on purpose.
        """
        for action in actions or []:
            self._play_one(action)

    def _play_one(self, action: dict) -> None:
        for key, step in self._script_steps():  # in this order, when an action has several keys
            if key in action:
                step(action[key], action)

    def _script_steps(self):
        """What each key of a scripted action does (see :meth:`play`), in the order they apply."""
        tools = self.topic_tools

        def when_true(do):  # a flag: {"undo": True} does it, {"undo": False} does not
            return lambda value, action: do() if value else None

        def bulk(decision, action):
            self.on_bulk(decision, bool(action.get("change_decided", False)))
            if self.bulk.bulk_act.waiting:
                self.bulk.bulk_act.answer(True)

        return (
            ("reviewer", lambda name, _: self.keys.enter("reviewer", name)),
            ("select", lambda target, _: self._play_select(target)),
            ("tag", lambda text, _: self._play_text(self.tag_text, text, self.on_tag)),
            ("note", lambda text, _: self._play_text(self.note_text, text, self.on_note)),
            ("decide", self._play_decide),
            ("rename_topic", self._play_rename),
            ("merge_topics", lambda topics, _: (setattr(tools.merge_pick, "value", tuple(int(t) for t in topics)),
                                                tools.on_merge())),
            ("open", lambda paper, _: self.table.open_row(self.session.resolve(paper))),
            ("screen_these", when_true(self.on_screen)),
            ("bulk", bulk),
            ("colour", lambda colour, _: setattr(self.colour, "value", colour)),
            ("recluster", when_true(self.on_recluster)),
            ("themes", lambda k, _: tools.on_themes(k)),
            ("save_themes", when_true(tools.on_save)),
            ("back_to_saved", when_true(tools.on_back)),
            ("stability", lambda seeds, _: tools.on_stability(tuple(seeds))),
            ("undo", when_true(self.on_undo)),
            ("links", lambda shown, _: setattr(self.map.links_toggle, "value", bool(shown))),
            ("field", when_true(lambda: setattr(self.field.widget, "selected_index", 0))),
            ("year", lambda year, _: self.field.pick_year(year)),
        )

    def _play_select(self, target) -> None:
        if isinstance(target, str) and target.startswith("search:"):
            self.select([])
            self.keys.enter("search", target[len("search:"):])
        elif isinstance(target, str) and target.startswith("topic:"):
            self.select_topic(int(target[len("topic:"):]))
        else:
            self.select([self.session.resolve(i) for i in target])

    @staticmethod
    def _play_text(box, text: str, submit) -> None:
        box.value = text
        submit(confirmed=True)

    def _play_decide(self, decision: str, action: dict) -> None:
        self.decision.value = decision
        self.reason.value = action.get("reason", "")
        self.on_decide(confirmed=True)

    def _play_rename(self, topic, action: dict) -> None:
        self.topic_tools.topic_pick.value = int(topic)
        self.keys.enter("rename", action["label"])

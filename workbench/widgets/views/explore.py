"""The explore view: topic overview, the map (jupyter-scatter), selection actions, search,
re-clustering and topic edits. State lives in :class:`~workbench.widgets.session.Session`."""

from __future__ import annotations

import ipywidgets as W

from ...records import DECISIONS
from ..session import Session
from ..text import escape
from .common import FAILED, Status, guarded, paper_list, style, topic_bars

__all__ = ["ExploreView"]

COLOUR_BY = {"topic": "topic_label", "tag": "first_tag", "decision": "decision"}


class ExploreView:
    """Widgets around a session; ``widget`` is what the notebook displays."""

    def __init__(self, session: Session, height: int = 520):
        self.session = session
        self.selected: list[str] = []
        self.status = Status()
        self._build(height)
        session.listeners.append(self._on_change)

    # ------------------------------------------------------------------ layout

    def _build(self, height: int) -> None:
        s = self.session
        self._build_map(height)
        actions = self._build_actions()
        topic_tools, edits = self._build_topic_tools()
        self.widget = W.VBox([
            style(),
            W.HTML(f"<h3>{escape(s.review.path.name)}: {len(s.review.papers)} papers</h3>"),
            W.Accordion(children=[W.VBox([topic_tools, self.overview]), edits], titles=("Topics", "Rename and merge topics")),
            W.HBox([self.colour, self.select_mode]),
            W.HBox([self.search_text, self.search_button]),
            self.scatter.show(),
            actions,
            self.status,
        ])

    def _build_map(self, height: int) -> None:
        """The map (jupyter-scatter), its colour and selection modes, and the search box."""
        from jscatter import Scatter

        s = self.session
        self.frame = s.frame()
        self.overview = W.HTML(topic_bars(s.review.topics_frame(representatives=2)))
        self.scatter = Scatter(
            data=self.frame, x="x", y="y", color_by="topic_label", legend=True, height=height,
            tooltip=True, tooltip_properties=["topic_label", "decision"], tooltip_preview="title",
        )
        self.scatter.mouse(mode="lasso")
        self.scatter.widget.observe(self._on_select, names=["selection"])
        self.colour = W.ToggleButtons(options=list(COLOUR_BY), value="topic", description="colour by")
        self.colour.observe(lambda ch: self.recolour(), names="value")
        self.select_mode = W.ToggleButtons(options=["lasso", "box"], value="lasso", description="select")
        self.select_mode.observe(self._on_mode, names="value")
        self.search_text = W.Text(placeholder="keywords or a question", description="search")
        self.search_text.on_submit(lambda _: self.on_search())
        self.search_button = W.Button(description="Search", icon="search")
        self.search_button.on_click(lambda _: self.on_search())

    def _build_actions(self):
        """What can be done to the selection: tag, note, decide, re-cluster."""
        self.selection_html = W.HTML("<i>Drag on the map to select papers (lasso or box).</i>")
        self.tag_text = W.Text(placeholder="tag(s), comma separated", description="tag")
        self.tag_button = W.Button(description="Tag selected", icon="tag")
        self.tag_button.on_click(self.on_tag)
        self.note_text = W.Text(placeholder="a note for every selected paper", description="note")
        self.note_button = W.Button(description="Note selected", icon="sticky-note")
        self.note_button.on_click(self.on_note)
        self.decision = W.Dropdown(options=DECISIONS, description="decide")
        self.reason = W.Text(placeholder="reason (optional)")
        self.decide_button = W.Button(description="Decide selected", icon="check")
        self.decide_button.on_click(self.on_decide)
        self.recluster_button = W.Button(description="Re-cluster selection", icon="sitemap")
        self.recluster_button.on_click(self.on_recluster)
        self.recluster_out = W.HTML()
        return W.VBox([
            self.selection_html,
            W.HBox([self.tag_text, self.tag_button]),
            W.HBox([self.note_text, self.note_button]),
            W.HBox([self.decision, self.reason, self.decide_button]),
            W.HBox([self.recluster_button]), self.recluster_out,
        ])

    def _build_topic_tools(self):
        """Themes, default topics, stability; renaming and merging topics."""
        topics = self._topic_options()
        self.topic_pick = W.Dropdown(options=topics, description="topic")
        self.topic_name = W.Text(placeholder="new name")
        self.rename_button = W.Button(description="Rename topic")
        self.rename_button.on_click(self.on_rename)
        self.merge_pick = W.SelectMultiple(options=topics, rows=5, description="merge")
        self.merge_button = W.Button(description="Merge topics")
        self.merge_button.on_click(self.on_merge)
        n_topics = int((self.session.review.topics.topic >= 0).sum())
        self.themes = W.BoundedIntText(value=max(2, n_topics), min=2, max=100, description="themes", layout=W.Layout(width="160px"))
        self.themes_button = W.Button(description="Show themes", icon="object-group",
                                      tooltip="find the topics again as this many themes (the map stays put)")
        self.themes_button.on_click(lambda _: self.on_themes(self.themes.value))
        self.default_button = W.Button(description="Default topics", tooltip="back to the topics the workbench finds by itself")
        self.default_button.on_click(lambda _: self.on_themes(None))
        self.stability_button = W.Button(description="Check stability", icon="balance-scale",
                                         tooltip="refit with 4 other seeds and show how often each topic's papers stay together")
        self.stability_button.on_click(lambda _: self.on_stability())
        topic_tools = W.HBox([self.themes, self.themes_button, self.default_button, self.stability_button])
        edits = W.VBox([W.HBox([self.topic_pick, self.topic_name, self.rename_button]), W.HBox([self.merge_pick, self.merge_button])])
        return topic_tools, edits

    def _topic_options(self):
        return [(f"{t.topic}: {t.label} ({t.size})", int(t.topic)) for t in self.session.review.topics.itertuples() if t.topic >= 0]

    # ------------------------------------------------------------------ map

    def recolour(self) -> None:
        """Colour the map by the chosen column, read fresh from the store (another notebook may
        have tagged or decided since). One points update goes to the browser; the frame the map
        holds is updated in place, not rebuilt."""
        self.refresh_columns(topics=True)
        self.scatter.color(by=COLOUR_BY[self.colour.value])

    def refresh_columns(self, topics: bool = False) -> set[str]:
        """Bring the annotation columns (and with ``topics`` the topic columns) of ``frame`` up to
        date, in place (the map and its tooltips read the same frame); returns the changed names."""
        columns = self.session.annotation_columns()
        if topics:
            columns.update(self.session.topic_columns())
        changed = {name for name, values in columns.items() if self.frame[name].tolist() != list(values)}
        for name in changed:
            self.frame[name] = columns[name]
        return changed

    def _on_mode(self, change) -> None:
        self.scatter.lasso(type="rectangle" if change["new"] == "box" else "freeform")
        self.scatter.mouse(mode="lasso")

    def _on_select(self, change) -> None:
        indices = change["new"] if change["new"] is not None else []
        self.select(self.session.ids_at(indices), from_map=True)

    def select(self, ids, from_map: bool = False, found=None) -> None:
        """Make ``ids`` the selection (a lasso on the map, or search hits lighting up, ``found``)."""
        self.selected = list(ids)
        if not from_map:
            self.scatter.selection(self.session.rows_of(self.selected))
        self.selection_html.value = f"<b class='wb-selcount'>{len(self.selected)} selected</b>" + paper_list(self.session.review, self.selected, found=found)
        self.session.save_selection(self.selected)

    # ------------------------------------------------------------------ actions (one per button)

    def on_tag(self, _=None) -> None:
        tags = [t.strip() for t in self.tag_text.value.split(",") if t.strip()]
        if guarded(self.status, self.session.tag, self.selected, *tags) is not FAILED:
            self.status.ok(f"tagged {len(self.selected)} papers: {', '.join(tags)}")

    def on_note(self, _=None) -> None:
        if guarded(self.status, self.session.note, self.selected, self.note_text.value) is not FAILED:
            self.status.ok(f"note added to {len(self.selected)} papers")
            self.note_text.value = ""

    def on_decide(self, _=None) -> None:
        if guarded(self.status, self.session.decide, self.selected, self.decision.value, self.reason.value) is not FAILED:
            self.status.ok(f"{self.decision.value}: {len(self.selected)} papers")

    def on_recluster(self, _=None) -> None:
        table = guarded(self.status, self.session.recluster, self.selected)
        if table is FAILED:
            return
        counts = table.groupby(["subtopic", "subtopic_label"]).size().reset_index(name="papers")
        counts.columns = ["sub-topic", "label", "papers"]
        self.recluster_out.value = "<b>Sub-topics of the selection</b>" + counts.to_html(index=False, escape=True, classes="wb-bars", justify="left")
        self.status.ok(f"{len(counts)} sub-topics in {len(table)} papers")

    def on_search(self) -> None:
        result = guarded(self.status, self.session.search, self.search_text.value)
        if result is FAILED:
            return
        self.select(result.ids, found=result)
        self.status.ok(f"{len(result.keyword)} keyword hits, {len(result.semantic)} nearest in meaning: lit up on the map")

    def on_rename(self, _=None) -> None:
        if self.topic_pick.value is None:
            return
        if guarded(self.status, self.session.rename_topic, self.topic_pick.value, self.topic_name.value) is not FAILED:
            self.status.ok(f"topic {self.topic_pick.value} renamed")

    def on_merge(self, _=None) -> None:
        kept = guarded(self.status, self.session.merge_topics, list(self.merge_pick.value))
        if kept is not FAILED:
            self.status.ok(f"merged into topic {kept}")

    def on_themes(self, k) -> None:
        self.status.busy(f"finding {k or 'the default'} themes")
        count = guarded(self.status, self.session.show_themes, k)
        if count is not FAILED:
            self.themes.value = max(2, count)
            self.status.ok(f"{count} topics" + (f" ({k} asked for)" if k and k != count else ""))

    def on_stability(self, seeds=(1, 2, 3, 4)) -> None:
        self.status.busy(f"refitting with {len(seeds)} other seeds")
        frame = guarded(self.status, self.session.topic_stability, seeds)
        if frame is not FAILED:
            shaky = frame[frame.stability < 0.8]
            self.status.ok(f"stability checked with {len(seeds)} seeds: {len(shaky)} of {len(frame)} topics below 80 %")

    def _on_change(self, event: str, ids) -> None:
        if event == "reload":
            event = "topics"  # the same papers re-read from disk (Session.reload)
        if event in ("topics", "stability", "undo"):
            self.overview.value = topic_bars(self.session.review.topics_frame(representatives=2), self.session.stability)
        if event == "stability":
            return
        if event in ("topics", "undo"):
            self.topic_pick.options = self.merge_pick.options = self._topic_options()
        # Only what the action can have changed; the map is sent again only when its colours change.
        changed = self.refresh_columns(topics=event in ("topics", "undo"))
        if COLOUR_BY[self.colour.value] in changed:
            self.scatter.color(by=COLOUR_BY[self.colour.value])

    # ------------------------------------------------------------------ scripted actions (headless runs)

    def play(self, actions) -> None:
        """Replay actions through the same handlers a click uses.

        Each action is a dict: ``{"select": [ids] | "search:<query>" | "topic:<n>"}``,
        ``{"tag": "a, b"}``, ``{"note": text}``, ``{"decide": "include", "reason": ...}``,
        ``{"rename_topic": n, "label": text}``, ``{"merge_topics": [a, b]}``, ``{"recluster": True}``,
        ``{"themes": k}`` (None: the default topics), ``{"stability": [seeds]}``.
        """
        for action in actions or []:
            if "select" in action:
                target = action["select"]
                if isinstance(target, str) and target.startswith("search:"):
                    self.search_text.value = target[len("search:"):]
                    self.on_search()
                elif isinstance(target, str) and target.startswith("topic:"):
                    t = int(target[len("topic:"):])
                    self.select([pid for pid, lab in zip(self.session.ids, self.session.review.labels) if lab == t])
                else:
                    self.select([self.session.resolve(i) for i in target])
            if "tag" in action:
                self.tag_text.value = action["tag"]
                self.on_tag()
            if "note" in action:
                self.note_text.value = action["note"]
                self.on_note()
            if "decide" in action:
                self.decision.value = action["decide"]
                self.reason.value = action.get("reason", "")
                self.on_decide()
            if "rename_topic" in action:
                self.topic_pick.value = int(action["rename_topic"])
                self.topic_name.value = action["label"]
                self.on_rename()
            if "merge_topics" in action:
                self.merge_pick.value = tuple(int(t) for t in action["merge_topics"])
                self.on_merge()
            if action.get("recluster"):
                self.on_recluster()
            if "themes" in action:
                self.on_themes(action["themes"])
            if "stability" in action:
                self.on_stability(tuple(action["stability"]))

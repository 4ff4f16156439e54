"""The topic tools of the explore view: the topics table, k themes looked at and then saved (or
put away), stability across seeds, renames and merges. Each button answers beside itself.

"Show themes" and "Default topics" change nothing on disk (the other notebooks and the report
keep the saved topics); "Save these themes" saves them, all or nothing, and the explore view's
Undo (or ``workbench undo``) brings the previous topics and files back.
"""

from __future__ import annotations

import ipywidgets as W

from ..session.session import Session
from ._common import topic_bars
from ._feedback import FAILED, Act
from ._keys import Keys

__all__ = ["ThemeTools"]


class ThemeTools:
    """Widgets around a session's topics; ``widget`` is an accordion (topics, edits)."""

    def __init__(self, session: Session, keys: Keys):
        self.session = session
        self.overview = W.HTML(self._table())
        n_topics = int((session.review.topics.topic >= 0).sum())
        self.themes = W.BoundedIntText(value=max(2, n_topics), min=2, max=100, description="themes",
                                       continuous_update=True, layout=W.Layout(width="160px"))
        self.show_act = Act("Show themes", icon="object-group", busy_text="finding the themes",
                            tooltip="look at the topics as this many themes (the map stays put; nothing is saved)")
        self.show_act.on_click(lambda: self.on_themes(self.themes.value))
        keys.submit(self.themes, "themes", lambda: self.on_themes(self.themes.value))
        self.default_act = Act("Default topics", busy_text="finding the default topics",
                               tooltip="look at the topics the workbench finds by itself (nothing is saved)")
        self.default_act.on_click(lambda: self.on_themes(None))
        self.save_act = Act("Save these themes", icon="save", style="primary", busy_text="saving",
                            tooltip="make the themes shown the review's topics (Undo brings the previous ones back)")
        self.save_act.on_click(self.on_save)
        self.back_act = Act("Back to saved topics", icon="times")
        self.back_act.on_click(self.on_back)
        self.stability_act = Act("Check stability", icon="balance-scale", busy_text="refitting with other seeds",
                                 tooltip="refit with 4 other seeds and show how often each topic's papers stay together")
        self.stability_act.on_click(self.on_stability)
        self._build_edits(keys)
        self._show_preview_state()
        tools = W.VBox([
            W.HBox([self.themes, self.show_act.widget, self.default_act.widget], layout=W.Layout(flex_flow="row wrap")),
            W.HBox([self.save_act.widget, self.back_act.widget, self.stability_act.widget], layout=W.Layout(flex_flow="row wrap")),
            self.overview,
        ])
        edits = W.VBox([W.HBox([self.topic_pick, self.topic_name, self.rename_act.widget]),
                        W.HBox([self.merge_pick, self.merge_act.widget])])
        self.widget = W.Accordion(children=[tools, edits], titles=("Topics", "Rename and merge topics"))
        session.subscribe(self._on_change)

    def _build_edits(self, keys: Keys) -> None:
        options = self._topic_options()
        self.topic_pick = W.Dropdown(options=options, description="topic", layout=W.Layout(width="24rem"))
        self.topic_name = W.Text(placeholder="new name (Enter renames)")
        self.rename_act = Act("Rename topic", icon="pencil")
        self.rename_act.on_click(self.on_rename)
        keys.submit(self.topic_name, "rename", self.on_rename)
        self.merge_pick = W.SelectMultiple(options=options, rows=5, description="merge", layout=W.Layout(width="24rem"))
        self.merge_act = Act("Merge topics", icon="compress")
        self.merge_act.on_click(self.on_merge)

    def _topic_options(self):
        return [(f"{t.topic}: {t.label} ({t.size})", int(t.topic))
                for t in self.session.review.topics.itertuples() if t.topic >= 0]

    def _table(self) -> str:
        s = self.session
        return topic_bars(s.review.topics_frame(representatives=2), s.stability, s.preview)

    def _show_preview_state(self) -> None:
        looking = self.session.preview is not None
        self.save_act.button.disabled = self.back_act.button.disabled = not looking
        for w in (self.topic_pick, self.topic_name, self.merge_pick):
            w.disabled = looking  # edits land on saved topics: save or put the themes away first
        self.rename_act.button.disabled = self.merge_act.button.disabled = looking

    # ------------------------------------------------------------------ actions

    def on_themes(self, k) -> None:
        def ok(count):
            self.themes.value = max(2, count)
            asked = f" ({k} asked for)" if k and k != count else ""
            return f"{count} topics{asked}: not saved; Save these themes keeps them"

        act = self.show_act if k else self.default_act
        act.run(self.session.topics.show_themes, k or None, ok=ok)

    def on_save(self) -> None:
        self.save_act.run(self.session.topics.save_themes,
                          ok=lambda n: f"{n} topics saved; Undo brings the previous topics and files back")

    def on_back(self) -> None:
        self.back_act.run(self.session.topics.discard_themes, ok=lambda n: f"the {n} saved topics again")

    def on_stability(self, seeds=(1, 2, 3, 4)) -> None:
        def ok(frame):
            shaky = frame[frame.stability < 0.8]
            return f"stability checked with {len(seeds)} seeds: {len(shaky)} of {len(frame)} topics below 80 %"

        self.stability_act.run(self.session.topics.stability, seeds, ok=ok)

    def on_rename(self) -> None:
        topic = self.topic_pick.value
        if topic is None:
            self.rename_act.line.error("choose a topic to rename first")
            return
        name = self.topic_name.value
        if self.rename_act.run(self.session.topics.rename, topic, name,
                               ok=lambda _: f"topic {topic} is now “{name.strip()}”") is not FAILED:
            self.topic_name.value = ""

    def on_merge(self) -> None:
        self.merge_act.run(self.session.topics.merge, list(self.merge_pick.value),
                           ok=lambda kept: f"merged into topic {kept}")

    def _on_change(self, event: str, ids) -> None:
        if event in ("topics", "stability", "undo", "reload"):
            self.overview.value = self._table()
        if event in ("topics", "undo", "reload"):
            current = self.topic_pick.value
            self.topic_pick.options = self.merge_pick.options = self._topic_options()
            if current in [v for _, v in self.topic_pick.options]:
                self.topic_pick.value = current
            self._show_preview_state()

"""The screening view: one paper at a time, tag toggles, decisions, notes, keyboard shortcuts.

Every click goes straight to the :class:`~workbench.widgets.queue.ScreeningQueue` and from
there to the store: there is no save button. Keys (when the view has focus): j/→ next,
k/← previous, 1-9 toggle the n-th tag, i include, e exclude, m maybe, u undo.
"""

from __future__ import annotations

import ipywidgets as W

from ..queue import FILTERS, ScreeningQueue
from ..text import escape
from .common import FAILED, Status, guarded, style, tag_chips

__all__ = ["ScreenView"]


class ScreenView:
    def __init__(self, queue: ScreeningQueue):
        self.queue = queue
        self.session = queue.session
        self.status = Status()
        self._build()
        self.render()

    # ------------------------------------------------------------------ layout

    def _build(self) -> None:
        s = self.session
        topics = [("all topics", None)] + [
            (f"{t.topic}: {t.label}", int(t.topic)) for t in s.review.topics.itertuples() if t.topic >= 0
        ]
        self.show = W.Dropdown(options=FILTERS, value=self.queue.show, description="show")
        self.topic = W.Dropdown(options=topics, value=self.queue.topic, description="topic")
        self.search = W.Text(value=self.queue.search, placeholder="keywords", description="search")
        for w in (self.show, self.topic):
            w.observe(lambda _: self.on_filter(), names="value")
        self.search.on_submit(lambda _: self.on_filter())

        self.card = W.HTML()
        self.tags_box = W.HBox()
        self.new_tag = W.Text(placeholder="new tag(s), comma separated")
        self.new_tag.on_submit(lambda _: self.on_add_tag())
        self.add_tag_button = W.Button(description="Add tag", icon="plus")
        self.add_tag_button.on_click(lambda _: self.on_add_tag())

        self.decision_buttons = {}
        for decision, style_name, key in (("include", "success", "i"), ("exclude", "danger", "e"), ("maybe", "warning", "m")):
            b = W.Button(description=f"{decision} ({key})", button_style=style_name)
            b.on_click(lambda _, d=decision: self.on_decide(d))
            self.decision_buttons[decision] = b
        self.reason = W.Text(placeholder="reason (optional)")
        self.note = W.Textarea(placeholder="note on this paper", rows=2, layout=W.Layout(width="40em"))
        self.note_button = W.Button(description="Add note", icon="sticky-note")
        self.note_button.on_click(lambda _: self.on_note())

        self.prev_button = W.Button(description="◀ previous (k)")
        self.prev_button.on_click(lambda _: self.on_key("k"))
        self.next_button = W.Button(description="next (j) ▶")
        self.next_button.on_click(lambda _: self.on_key("j"))
        self.undo_button = W.Button(description="undo (u)", icon="undo")
        self.undo_button.on_click(lambda _: self.on_key("u"))
        self.progress = W.IntProgress(min=0, max=1, layout=W.Layout(width="20em"))
        self.progress_label = W.HTML()

        body = W.VBox([
            W.HBox([self.show, self.topic, self.search]),
            W.HBox([self.prev_button, self.next_button, self.undo_button, self.progress, self.progress_label]),
            self.card,
            self.tags_box,
            W.HBox([self.new_tag, self.add_tag_button]),
            W.HBox([*self.decision_buttons.values(), self.reason]),
            W.HBox([self.note, self.note_button]),
            self.status,
        ])
        self.widget = W.VBox([style(), body])
        self.widget.add_class("wb-screen")
        self._keys = None
        try:  # keyboard shortcuts need ipyevents; everything else works without it
            from ipyevents import Event

            self._keys = Event(source=self.widget, watched_events=["keydown"], prevent_default_action=False)
            self._keys.on_dom_event(self._on_dom_key)
        except ImportError:  # pragma: no cover
            pass

    # ------------------------------------------------------------------ rendering

    def render(self) -> None:
        card = self.queue.card()
        screened, total = self.queue.progress()
        self.progress.max, self.progress.value = max(total, 1), screened
        self.progress_label.value = f"{screened} of {total} screened"
        if card is None:
            self.card.value = "<div class='wb-card'><i>No papers match these filters.</i></div>"
            self.tags_box.children = ()
            return
        decision = f"<b>{escape(card.decision)}</b>" + (f" ({escape(card.reason)})" if card.reason else "") if card.decision else "undecided"
        notes = "".join(f"<li>{n}</li>" for n in card.notes)
        self.card.value = (
            f"<div class='wb-card'><div class='wb-meta'>{card.position} of {card.total} in this queue · "
            f"<code>{escape(card.id)}</code>" + (f" · found by {escape(card.match)}" if card.match else "") + "</div>"
            f"<h3>{card.title_html}</h3>"
            f"<div class='wb-meta'>{card.authors} · {card.collection} · topic {card.topic}: {card.topic_label}</div>"
            f"<div class='wb-meta'>decision: {decision} · tags: {tag_chips(card.tags) or 'none'}</div>"
            f"<div class='wb-abstract'>{card.abstract_html}</div>"
            + (f"<div class='wb-meta'>notes:<ul>{notes}</ul></div>" if notes else "")
            + "</div>"
        )
        vocab = self.session.vocabulary()
        buttons = []
        for n, tag in enumerate(vocab, start=1):
            b = W.ToggleButton(value=tag in card.tags, description=f"{n} {tag}" if n <= 9 else tag, tooltip=tag)
            b.observe(lambda ch, t=tag: self.on_toggle(t, ch["new"]), names="value")
            buttons.append(b)
        self.tags_box.children = tuple(buttons)

    # ------------------------------------------------------------------ actions

    def _act(self, action, *args, message: str = "") -> bool:
        ok = guarded(self.status, action, *args) is not FAILED
        if ok and message:
            self.status.ok(message)
        self.render()
        return ok

    def on_filter(self) -> None:
        n = guarded(self.status, self.queue.refilter, self.show.value, self.topic.value, self.search.value)
        if n is not FAILED:
            self.status.ok(f"{n} papers in the queue")
        self.render()

    def on_toggle(self, tag: str, wanted: bool) -> None:
        pid = self.queue.current_id
        if pid is None or (tag in self.session.store.tags(pid)) == wanted:
            return
        self._act(self.queue.toggle_tag, tag, message=f"{'tagged' if wanted else 'untagged'} {tag}")

    def on_add_tag(self) -> None:
        if self._act(self.queue.add_tag, self.new_tag.value, message=f"tagged {self.new_tag.value}"):
            self.new_tag.value = ""

    def on_decide(self, decision: str) -> None:
        pid = self.queue.current_id
        if self._act(self.queue.decide, decision, self.reason.value, message=f"{decision}: {pid}"):
            self.reason.value = ""

    def on_note(self) -> None:
        if self._act(self.queue.note, self.note.value, message="note saved"):
            self.note.value = ""

    def on_key(self, key: str) -> None:
        from ..queue import KEYS

        pid = self.queue.current_id
        action, arg = KEYS.get(key, (None, None))
        message = {"decide": f"{arg}: {pid}", "undo": "undone", "tag_number": f"tag {arg} toggled"}.get(action, "")
        self._act(self.queue.press, key, message=message)

    def _on_dom_key(self, event) -> None:
        # Typing in a text box is not a shortcut.
        if event.get("target", {}).get("tagName") in ("INPUT", "TEXTAREA"):
            return
        self.on_key(event.get("key", ""))

    # ------------------------------------------------------------------ scripted actions (headless runs)

    def play(self, actions) -> None:
        """Replay actions through the same handlers a click or a key press uses.

        Each action is a dict: ``{"key": "j"}``, ``{"toggle_tag": name}``, ``{"add_tag": "a, b"}``,
        ``{"decide": "include", "reason": ...}``, ``{"note": text}``, ``{"go": id}``.
        """
        for action in actions or []:
            if "go" in action:
                self._act(self.queue.go, action["go"])
            if "key" in action:
                self.on_key(action["key"])
            if "toggle_tag" in action:
                tag = action["toggle_tag"]
                pid = self.queue.current_id
                self.on_toggle(tag, tag not in self.session.store.tags(pid) if pid else True)
            if "add_tag" in action:
                self.new_tag.value = action["add_tag"]
                self.on_add_tag()
            if "decide" in action:
                self.reason.value = action.get("reason", "")
                self.on_decide(action["decide"])
            if "note" in action:
                self.note.value = action["note"]
                self.on_note()

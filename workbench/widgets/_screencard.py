"""The screening card as one anywidget component: the paper (title, authors, year, venue, the
abstract with its terms marked), how likely it is relevant and why, the decision buttons, the
reason chips and box for the paper just decided, the tags, the note, the message line, the map
with the paper's point lit up, and the progress and stopping panel.

Python keeps the state in synced traits (what :class:`~._screen.ScreenView` sets); the
browser (``static/screencard.js`` and ``.css``, shipped with the package) only draws it and sends
what the user did as ``{"event": "action", "action": name, "value": ...}``, which
:meth:`ScreenCard.dispatch` hands to the view's handler; tests call :meth:`ScreenCard.act` to do
what a click does. After an action that used a box's text, Python asks the browser to empty
that box (:meth:`clear_box`). The keys i/e/m/j/k/u are the view's :class:`~._keys.Keys`.

Every piece of paper text arrives escaped (``*_html`` fields are escaped and only marked up
by :mod:`workbench.session.text`); the script sets them as HTML and everything else as text.

01 shows the paper opened from its map with the same component, in ``mode="paper"``: the card,
its place in the selection and the moves (◀ ▶) only, beside 01's own actions on the selection.
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import numpy as np
import traitlets

__all__ = ["ACTIONS", "ScreenCard"]

STATIC = Path(__file__).parent / "static"
# what the card's script may send
ACTIONS = ("decide", "reason", "tag", "toggle", "note", "move", "undo", "log_claim", "go")


class ScreenCard(anywidget.AnyWidget):
    """The card's synced state (see the module's docstring); ``on_action(action, value)`` is the
    view's handler."""

    _esm = STATIC / "screencard.js"
    _css = STATIC / "screencard.css"

    card = traitlets.Dict({}).tag(sync=True)  # the paper on screen ({}: none; "empty" says why)
    decisions = traitlets.List(traitlets.Unicode(), ["include", "exclude", "maybe"]).tag(sync=True)
    tags = traitlets.List(traitlets.Dict(), []).tag(sync=True)  # [{"name", "n", "on"}]
    message = traitlets.Dict({}).tag(sync=True)  # {"kind": ok|err|info, "text"}: about the card shown
    reason_for = traitlets.Dict({}).tag(sync=True)  # {"id", "title", "decision", "pending"}: the paper just decided
    reasons = traitlets.List(traitlets.Unicode(), []).tag(sync=True)  # the team's exclusion reasons
    progress = traitlets.Dict({}).tag(sync=True)  # {"screened", "total", "label"}
    panel = traitlets.Dict({}).tag(sync=True)  # workbench.session.progress.ProgressPanel.to_dict()
    map_xy = traitlets.Bytes(b"").tag(sync=True)  # float32 x, y per paper in map order, scaled to 0-1
    map_codes = traitlets.Bytes(b"").tag(sync=True)  # uint8 per paper: 0 undecided, 1 include, 2 exclude, 3 maybe
    current = traitlets.Int(-1).tag(sync=True)  # the map row of the paper on screen (-1: none)
    # "screen" (02): everything above; "paper" (01's opened paper): the paper, its place in the
    # selection (``card["where"]``) and the moves, no decisions, tags, notes, map or panel of its
    # own; set when the card is made (the browser reads it when it draws the card)
    mode = traitlets.Unicode("screen").tag(sync=True)

    def __init__(self, on_action=None, **kwargs):
        super().__init__(**kwargs)
        self._on_action = on_action
        self.on_msg(lambda _widget, content, _buffers: self.dispatch(content))

    def dispatch(self, content: dict) -> None:
        """Handle a message from the browser (what a click or Enter sends)."""
        if content.get("event") == "action" and content.get("action") in ACTIONS and self._on_action is not None:
            self._on_action(str(content["action"]), content.get("value"))

    def act(self, action: str, value=None) -> None:
        """What the card's control for ``action`` does (for scripts and tests): "decide"
        (value: include/exclude/maybe/not retrieved), "reason" (the text, or a chip's name),
        "tag" (tags typed, comma separated), "toggle" (a tag), "note", "move" (j or k),
        "undo", "log_claim" (log the stopping claim in the store), "go" (a map row)."""
        self.dispatch({"event": "action", "action": action, "value": value})

    def shown(self) -> str:
        """Everything the browser is sent to show (the synced state but the map's numbers), as
        one text: what a test searches for words that must, or must not, be on screen."""
        import json

        state = {name: getattr(self, name) for name in ("card", "decisions", "tags", "message", "reason_for",
                                                        "reasons", "progress", "panel")}
        return json.dumps(state, ensure_ascii=False)

    def clear_box(self, name: str) -> None:
        """Empty the card's box ``name`` (reason, tag, note) in the browser."""
        self.send({"event": "clear", "box": name})

    def set_map(self, xy: np.ndarray) -> None:
        """The map's points (n x 2, any scale), once (they do not move while screening)."""
        xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        if not len(xy):
            self.map_xy = b""
            return
        low, high = np.nanmin(xy, axis=0), np.nanmax(xy, axis=0)
        scaled = (xy - low) / np.where(high > low, high - low, 1.0)
        self.map_xy = np.nan_to_num(scaled, nan=0.5).astype("<f4").tobytes()

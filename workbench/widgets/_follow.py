"""How a view follows the review as it changes elsewhere (another kernel, the command line, a
colleague's process on the same folder).

One route for every view: its :class:`~._keys.Keys` tells the kernel of any click, tap, focus,
Enter or shortcut in the view *before* the action itself arrives, and :meth:`Following.check`
then asks the session (:meth:`workbench.session.Session.follow`) whether the store changed since
it last looked. When it did, the session reads the review again and tells every view of the
kernel (their listeners), so the action that follows works on the review as it is now, and the
view says what changed on its Reload line. Reload does the same on request.

A view that cannot follow (its listener failed on the change, or the review on disk cannot be
read while another process rewrites it) says so in one line, with **Reopen**: the review read
from disk afresh and the view drawn again.
"""

from __future__ import annotations

import logging
import time

import ipywidgets as W

from ..errors import WorkbenchError
from ._feedback import FAILED, Act, Line

__all__ = ["Following"]

log = logging.getLogger(__name__)

RECENT = 5.0  # s: what a check read this long ago is still the news a Reload click says


def _why(err: Exception) -> str:
    return str(err) if isinstance(err, WorkbenchError) else f"{type(err).__name__}: {err}"


class Following:
    """A view's link to the review on disk: ``keys`` (the view's :class:`~._keys.Keys`) calls
    :meth:`check` before each action; ``line`` is where what changed elsewhere is said (the
    view's Reload line); ``redraw()`` draws the whole view again from the session (after
    Reopen). ``widget``: the one line shown when the view cannot follow, with Reopen."""

    def __init__(self, session, keys, line: Line, redraw):
        self.session = session
        self.line = line
        self.redraw = redraw
        self.note = Line()
        self.reopen_act = Act("Reopen", icon="refresh", busy_text="reopening the review",
                              tooltip="read the review from disk afresh and draw this view again")
        self.reopen_act.on_click(self.on_reopen)
        self.widget = W.HBox([self.note, self.reopen_act.widget],
                             layout=W.Layout(display="none", align_items="center", flex_flow="row wrap"))
        self.widget.add_class("wb-stale")
        self._news = ("", 0.0)  # what the last check read, and when (what Reload says after it)
        keys.on_touch(self.check)

    @property
    def stale(self) -> bool:
        """Whether the view says it cannot follow (and offers Reopen)."""
        return self.widget.layout.display != "none"

    def check(self) -> str:
        """Read what changed elsewhere since the session last looked, and show it (every view of
        the session follows); returns it in words ("" when nothing changed)."""
        try:
            news = self.session.follow()
        except Exception as err:  # the review on disk cannot be read now (being rewritten?)
            log.exception("reading the review again failed")
            self.cannot(f"the review changed on disk and could not be read ({_why(err)})")
            return ""
        if news:
            self.line.ok(f"read changes made elsewhere: {news}")
            self._news = (news, time.monotonic())
        return news

    def reload(self) -> str:
        """What Reload does: read the review again and say what changed. A click on Reload is
        itself checked first (:meth:`check`): what that read is what Reload says."""
        (news, at), self._news = self._news, ("", 0.0)
        if news and time.monotonic() - at < RECENT:
            return news
        return self.session.reload()

    def guard(self, listener):
        """``listener(event, ids)`` (how the view follows the session) with its failure said in
        the view's one line, with Reopen, rather than lost in the log or left to the action that
        happened to trigger it (that action was saved)."""

        def follow(event: str, ids) -> None:
            try:
                listener(event, ids)
            except Exception as err:
                log.exception("a view could not follow the change %r", event)
                self.cannot(f"this view could not show the latest change ({_why(err)})")

        return follow

    def cannot(self, why: str) -> None:
        """Say in one line that the view is out of date, and why; Reopen brings it back."""
        self.note.error(f"{why}; Reopen reads the review from disk and draws this view again")
        self.widget.layout.display = "flex"

    def on_reopen(self):
        """Read the review afresh, then draw the view again; the line goes once it worked."""
        done = self.reopen_act.run(self._reopen, ok=lambda text: text)
        if done is not FAILED:
            self.widget.layout.display = "none"
            self.note.clear()
            self.reopen_act.line.clear()
            self.line.ok(done)
        return done

    def _reopen(self) -> str:
        text = self.session.reopen()
        self.redraw()
        return text

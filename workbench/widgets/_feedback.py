"""Controls that answer where they were clicked: busy while working, then the result beside them.

An :class:`Act` is a button with its own result line to its right. While its action runs the
button is disabled and marked busy, and the line says "working…" with the seconds counted in
the browser (see :mod:`.keys`); then it says ``✓ what happened`` (with the time taken when it
was over a second) or ``✗ what went wrong and what to do``. An action on more than
:data:`CONFIRM_OVER` papers asks first, beside the button.
"""

from __future__ import annotations

import logging
import time

import ipywidgets as W

from ..errors import WorkbenchError
from ..session.text import escape

__all__ = ["Act", "CONFIRM_OVER", "FAILED", "Line", "Told", "reporting_errors", "run_reporting", "unexpected"]

log = logging.getLogger(__name__)

CONFIRM_OVER = 20  # an action on more papers than this asks first
FAILED = object()


class Line(W.HTML):
    """One line of feedback: ✓ done, ✗ failed (and what to do), or working… with seconds."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_class("wb-result")

    def ok(self, text: str) -> None:
        self.value = f"<span class='wb-ok'>✓ {escape(text)}</span>"

    def error(self, text: str) -> None:
        self.value = f"<span class='wb-err'>✗ {escape(text)}</span>"

    def info(self, text: str) -> None:
        self.value = f"<span class='wb-info'>{escape(text)}</span>"

    def busy(self, text: str = "working") -> None:
        self.value = (f"<span class='wb-busy-note'><span class='wb-spinner'></span>{escape(text)}… "
                      "<span class='wb-elapsed'></span></span>")

    def clear(self) -> None:
        self.value = ""


def unexpected(err: Exception) -> str:
    """What a bug says where the user looks (the traceback goes to the log)."""
    return (f"unexpected error ({type(err).__name__}: {err}); nothing more was done; press Reload, and "
            "report it with the log (View > Show Log Console) if it comes back")


def reporting_errors(line: Line, action):
    """``action`` as a handler of a control that has no answer of its own (a toggle, a menu, a
    lasso): its error is said on ``line``, beside the control, and an earlier error there is
    cleared once it works."""

    def handler(*args):
        try:
            action(*args)
        except WorkbenchError as err:
            line.error(str(err))
            return
        except Exception as err:  # a bug: say so where the user looks, keep the traceback in the log
            log.exception("unexpected error in a widget control")
            line.error(unexpected(err))
            return
        if "wb-err" in line.value:
            line.clear()

    return handler


class Told:
    """What :func:`run_reporting` said, kept to be shown elsewhere (the screening card says it
    after the card changed): ``kind`` "ok", "err" or "info", and ``text``."""

    def __init__(self):
        self.kind, self.text = "info", ""

    def ok(self, text: str) -> None:
        self.kind, self.text = "ok", text

    def error(self, text: str) -> None:
        self.kind, self.text = "err", text

    def info(self, text: str) -> None:
        self.kind, self.text = "info", text

    def busy(self, text: str = "working") -> None:  # the card shows its own busy line at once
        pass

    def clear(self) -> None:
        self.text = ""


def run_reporting(line: Line, action, ok, busy_text: str = "working"):
    """Run ``action()`` with ``line`` saying busy, then ``ok(result)`` or the error; returns
    the result or :data:`FAILED`."""
    line.busy(busy_text)
    start = time.perf_counter()
    try:
        value = action()
    except WorkbenchError as err:
        line.error(str(err))
        return FAILED
    except Exception as err:  # a bug: say so where the user looks, keep the traceback in the log
        log.exception("unexpected error in a widget action")
        line.error(unexpected(err))
        return FAILED
    elapsed = time.perf_counter() - start
    text = ok(value) if callable(ok) else (ok or "done")
    if text:
        line.ok(text + (f" ({elapsed:.1f} s)" if elapsed >= 1 else ""))
    else:  # nothing to say (a move: the card itself is the answer)
        line.clear()
    return value


class Act:
    """A button, its confirmation (for big actions) and its result line, in one row (``widget``).

    ``on_click(handler)``: what a click does; the handler calls :meth:`run` (or :meth:`run_many`).
    """

    def __init__(self, description: str, icon: str = "", tooltip: str = "", style: str = "",
                 busy_text: str | None = None):
        self.button = W.Button(description=description, icon=icon, tooltip=tooltip or description,
                               button_style=style, layout=W.Layout(width="auto", flex="0 0 auto"))
        self.busy_text = busy_text or description.lower()
        self.yes = W.Button(button_style="warning", layout=W.Layout(width="auto", flex="0 0 auto"))
        self.no = W.Button(description="Cancel", layout=W.Layout(width="auto", flex="0 0 auto"))
        self.confirm = W.HBox([self.yes, self.no], layout=W.Layout(display="none", flex="0 0 auto"))
        self.line = Line(layout=W.Layout(flex="1 1 auto", min_width="8rem"))
        self.widget = W.HBox([self.button, self.confirm, self.line], layout=W.Layout(align_items="center"))
        self._pending = None
        self.yes.on_click(lambda _: self._confirmed())
        self.no.on_click(lambda _: self._cancelled())

    def on_click(self, handler) -> None:
        self.button.on_click(lambda _: handler())

    def run(self, action, *args, ok=None, **kwargs):
        """Run ``action(*args, **kwargs)`` busy, then show ``ok(result)`` (or the error)."""
        self.button.disabled = True
        self.button.add_class("wb-busy")
        try:
            return run_reporting(self.line, lambda: action(*args, **kwargs), ok, self.busy_text)
        finally:
            self.button.remove_class("wb-busy")
            self.button.disabled = False

    def run_many(self, n: int, verb: str, action, *args, ok=None, confirmed: bool = False, then=None, **kwargs):
        """:meth:`run` for an action on ``n`` papers: over :data:`CONFIRM_OVER` it asks first
        (``confirmed=True``: already asked, as a script is). ``then(result)`` runs after the
        action succeeded, whether it was asked about or not (e.g. clearing the box it came
        from). Returns the result, :data:`FAILED`, or None while waiting for the answer."""
        if n > CONFIRM_OVER and not confirmed:
            self._pending = (action, args, kwargs, ok, then)
            self.yes.description = f"Yes, {verb} {n} papers"
            self.confirm.layout.display = "flex"
            self.line.info(f"{verb} {n} papers? this changes every one of them")
            return None
        return self._run_then(action, args, kwargs, ok, then)

    def ask(self, question: str, yes: str, action, *args, ok=None, then=None, **kwargs) -> None:
        """Always ask first: ``question`` beside the button and ``yes`` on the confirming one;
        the action runs (as :meth:`run`) only once that is clicked."""
        self._pending = (action, args, kwargs, ok, then)
        self.yes.description = yes
        self.confirm.layout.display = "flex"
        self.line.info(question)

    def _run_then(self, action, args, kwargs, ok, then):
        result = self.run(action, *args, ok=ok, **kwargs)
        if result is not FAILED and then is not None:
            then(result)
        return result

    def _confirmed(self):
        pending, self._pending = self._pending, None
        self.confirm.layout.display = "none"
        if pending is not None:
            return self._run_then(*pending)
        return None

    def _cancelled(self) -> None:
        self._pending = None
        self.confirm.layout.display = "none"
        self.line.info("cancelled: nothing was changed")

    def reset(self) -> None:
        """Forget the answer shown and any question waiting for Yes (what they spoke of is gone);
        an action still running keeps its line."""
        if self.button.disabled:
            return
        self._pending = None
        self.confirm.layout.display = "none"
        self.line.clear()

    def answer(self, yes: bool = True):
        """What a click on Yes (or Cancel) does, for scripts and tests."""
        return self._confirmed() if yes else self._cancelled()

    @property
    def waiting(self) -> bool:
        """Whether a confirmation is being asked for."""
        return self._pending is not None

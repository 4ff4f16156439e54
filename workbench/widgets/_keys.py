"""Keys for a view in JupyterLab: Enter in a box, Ctrl+Enter in a note, single-key shortcuts.

Why not ``Text.on_submit`` and ipyevents: ipyevents (2.0) watches keys by adding, while the
pointer is over the view, a listener on the whole document that calls ``preventDefault`` and
``stopPropagation`` on every key (mwcraig/ipyevents#57) and moves the focus to the view. A key
typed into a box inside the view then never reaches the box, and the ``keypress`` event that
ipywidgets' Text sends "submit" from is never fired: Enter did nothing. JupyterLab's own
shortcuts are matched on ``keydown`` in the capture phase at the document, before any widget
sees the key (jupyterlab/jupyterlab#14115), so Shift+Enter or Ctrl+Enter in a box would run the
notebook cell. ``on_submit`` is also deprecated in ipywidgets 8.

So a view holds one :class:`Keys`, a tiny anywidget, which finds the view's element in the page
(``.wb-view``), marks it ``data-lm-suppress-shortcuts`` (Lumino then leaves keys inside it
alone), makes it focusable, and listens to ``keydown`` on it in the capture phase:

- Enter in a box registered with :meth:`Keys.submit` (Ctrl/Cmd+Enter in a text area) sends
  ``{"event": "submit", "name", "value"}`` with the box's text as typed (the box's own update
  may still be on its way);
- any other key whose target is a box (input, textarea, select) is left to the box: typing is
  never a shortcut;
- a key in :attr:`Keys.shortcuts` pressed elsewhere in the view (no Ctrl, Alt or Cmd) sends
  ``{"event": "key", "key"}``.

Any click, tap or focus in the view first sends ``{"event": "touch"}`` (at most every half
second), which reaches the kernel before the click's own message: the view's hook
(:meth:`Keys.on_touch`) checks there whether the review changed elsewhere.

It also counts the seconds on every busy control in the view (``.wb-elapsed``), in the browser,
so a long action shows its elapsed time while the kernel is busy with it.

A late echo is dropped: ipywidgets holds back a box's changes while the kernel is busy with an
earlier one, so after a fast typist's Enter the box's last keystrokes can reach the kernel
*after* the submit, and would put back the text the handler had just cleared. For a moment
after a submit, a change to exactly the submitted text is taken for that late echo and undone.
"""

from __future__ import annotations

import time

import anywidget
import traitlets

__all__ = ["Keys"]

LATE_ECHO_SECONDS = 3.0  # how long after a submit the box's own late update is expected

ESM = r"""
const EDITABLE = "input, textarea, select, [contenteditable=''], [contenteditable='true']";

function submitName(host) {
  const cls = [...host.classList].find((c) => c.startsWith("wb-submit-"));
  return cls ? cls.slice("wb-submit-".length) : null;
}

function render({ model, el }) {
  el.style.display = "none";
  let root = null, timer = null, tries = 0;

  function onKeydown(event) {
    const target = event.target;
    if (!(target instanceof Element) || event.isComposing) return;
    const host = target.closest("[class*='wb-submit-']");
    const isBox = target.matches(EDITABLE);
    if (host && isBox && root.contains(host)) {
      const multi = target.tagName === "TEXTAREA";
      const wanted = event.key === "Enter" && !event.altKey && !event.shiftKey &&
        (multi ? (event.ctrlKey || event.metaKey) : !(event.ctrlKey || event.metaKey));
      if (wanted) {
        event.preventDefault();
        event.stopPropagation();
        model.send({ event: "submit", name: submitName(host), value: target.value });
      }
      return;
    }
    if (isBox || target.closest(EDITABLE)) return;  // typing in a box is never a shortcut
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if ((model.get("shortcuts") || []).includes(event.key)) {
      event.preventDefault();
      event.stopPropagation();
      model.send({ event: "key", key: event.key });
    }
  }

  function onClick(event) {
    // A click on the paper (not on a box or a button) gives the view the keys.
    const target = event.target;
    if (!(target instanceof Element) || target.closest(EDITABLE) || target.closest("button")) return;
    if (root.tabIndex >= 0 && !root.contains(document.activeElement)) root.focus({ preventScroll: true });
  }

  let touched = 0;
  function onTouch() {
    // Any click, tap or focus in the view: the kernel first checks whether the review changed
    // elsewhere (this message reaches it before the click's own), at most every half second.
    const now = Date.now();
    if (now - touched < 500) return;
    touched = now;
    model.send({ event: "touch" });
  }

  function tick() {
    for (const span of root.querySelectorAll(".wb-elapsed")) {
      if (!span.dataset.t0) span.dataset.t0 = String(Date.now());
      const s = Math.floor((Date.now() - Number(span.dataset.t0)) / 1000);
      if (s >= 1) span.textContent = `${s} s`;
    }
  }

  function attach() {
    root = el.closest(".wb-view");
    if (!root) {
      if (tries++ < 600) setTimeout(attach, 100);
      return;
    }
    root.setAttribute("data-lm-suppress-shortcuts", "true");
    if ((model.get("shortcuts") || []).length && !root.hasAttribute("tabindex")) root.tabIndex = 0;
    root.addEventListener("keydown", onKeydown, true);
    root.addEventListener("click", onClick);
    root.addEventListener("pointerdown", onTouch, true);
    root.addEventListener("focusin", onTouch, true);
    timer = setInterval(tick, 250);
    el.dataset.attached = "true";
  }

  attach();
  return () => {
    clearInterval(timer);
    if (root) {
      root.removeEventListener("keydown", onKeydown, true);
      root.removeEventListener("click", onClick);
      root.removeEventListener("pointerdown", onTouch, true);
      root.removeEventListener("focusin", onTouch, true);
    }
  };
}

export default { render };
"""


class Keys(anywidget.AnyWidget):
    """Enter, Ctrl+Enter and shortcut keys of one view (see the module's docstring).

    Put it anywhere inside the view's widget, which must carry the class ``wb-view``.
    """

    _esm = ESM
    shortcuts = traitlets.List(traitlets.Unicode(), default_value=[]).tag(sync=True)

    def __init__(self, on_key=None, **kwargs):
        super().__init__(**kwargs)
        self._boxes: dict[str, tuple] = {}
        self._late: dict[str, tuple] = {}  # name -> (submitted text, text after the handler, when)
        self._on_key = on_key
        self._on_touch = None
        self.on_msg(lambda _widget, content, _buffers: self.dispatch(content))

    def submit(self, box, name: str, handler) -> None:
        """Enter in ``box`` (Ctrl+Enter in a Textarea) calls ``handler()`` after the box's value
        is set to what was typed."""
        box.add_class(f"wb-submit-{name}")
        self._boxes[name] = (box, handler)
        box.observe(lambda change, name=name: self._drop_late_echo(name, change), names="value")

    def _drop_late_echo(self, name: str, change) -> None:
        late = self._late.pop(name, None)
        if late is None:
            return
        submitted, kept, at = late
        if change["new"] == submitted and time.monotonic() - at < LATE_ECHO_SECONDS:
            self._boxes[name][0].value = kept

    def on_touch(self, handler) -> None:
        """``handler()`` runs when the user clicks, taps or focuses anything in the view, and
        before what Enter or a shortcut key does: before the action itself reaches the kernel."""
        self._on_touch = handler

    def touch(self) -> None:
        """What a click or focus anywhere in the view sends first (for scripts and tests)."""
        self.dispatch({"event": "touch"})

    def dispatch(self, content: dict) -> None:
        """Handle a message from the browser (what a key press sends; tests call it directly)."""
        if content.get("event") in ("touch", "submit", "key") and self._on_touch is not None:
            self._on_touch()
        if content.get("event") == "submit" and content.get("name") in self._boxes:
            name = content["name"]
            box, handler = self._boxes[name]
            self._late.pop(name, None)
            if "value" in content:
                try:
                    box.value = content["value"]
                except (traitlets.TraitError, ValueError):  # "" in a number box: keep its value
                    pass
            submitted = box.value
            handler()
            if box.value != submitted:  # the handler cleared the box: its late echo must not refill it
                self._late[name] = (submitted, box.value, time.monotonic())
        elif content.get("event") == "key" and self._on_key is not None:
            self._on_key(str(content.get("key", "")))

    def enter(self, name: str, value: str | None = None) -> None:
        """What Enter in the box ``name`` does (for scripts and tests)."""
        self.dispatch({"event": "submit", "name": name, **({} if value is None else {"value": value})})

    def press(self, key: str) -> None:
        """What pressing ``key`` in the view (not in a box) does (for scripts and tests)."""
        self.dispatch({"event": "key", "key": key})

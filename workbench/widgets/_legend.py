"""The map's legend beside the map: one entry per colour, in topic order, with the topic number
and the number of papers; a click on a topic's entry selects its papers. In a narrow cell it
lies above the map (``above``), its entries in rows.

A tiny anywidget: Python sets :attr:`Legend.entries` (``{"key", "label", "colour", "count"}``
each), the browser draws them as buttons and sends ``{"event": "pick", "key"}`` on a click;
:meth:`Legend.pick` does the same for scripts and tests.
"""

from __future__ import annotations

import anywidget
import traitlets

__all__ = ["Legend"]

ESM = r"""
function render({ model, el }) {
  el.classList.add("wb-legend");
  function draw() {
    el.classList.toggle("wb-legend-above", model.get("above"));
    el.replaceChildren();
    const title = document.createElement("div");
    title.className = "wb-legend-title";
    title.textContent = model.get("title");
    el.appendChild(title);
    for (const entry of model.get("entries")) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "wb-legend-entry";
      b.title = entry.tooltip || entry.label;
      b.disabled = !model.get("pickable");
      const dot = document.createElement("span");
      dot.className = "wb-legend-dot";
      dot.style.background = entry.colour;
      const text = document.createElement("span");
      text.className = "wb-legend-label";
      text.textContent = entry.label;
      const count = document.createElement("span");
      count.className = "wb-legend-count";
      count.textContent = String(entry.count);
      b.append(dot, text, count);
      b.addEventListener("click", () => model.send({ event: "pick", key: entry.key }));
      el.appendChild(b);
    }
  }
  model.on("change:entries", draw);
  model.on("change:title", draw);
  model.on("change:pickable", draw);
  model.on("change:above", draw);
  draw();
}
export default { render };
"""

CSS = """
.wb-legend { display: flex; flex-direction: column; gap: 1px; font-size: 12px; min-width: 12rem; max-width: 20rem;
             max-height: 520px; overflow-y: auto; padding: 0 4px; }
.wb-legend-title { font-weight: 600; margin: 0 0 4px 2px; color: #333; }
.wb-legend-entry { display: flex; align-items: flex-start; gap: 6px; text-align: left; border: 0; background: none;
                   padding: 2px 4px; border-radius: 3px; cursor: pointer; font: inherit; color: #222; }
.wb-legend-entry:hover:not(:disabled) { background: #eef3fb; }
.wb-legend-entry:disabled { cursor: default; color: #222; }
.wb-legend-dot { flex: 0 0 auto; width: 11px; height: 11px; border-radius: 50%; margin-top: 2px; }
.wb-legend-label { flex: 1 1 auto; overflow-wrap: anywhere; }
.wb-legend-count { flex: 0 0 auto; color: #666; margin-left: 4px; }
.wb-legend.wb-legend-above { flex-direction: row; flex-wrap: wrap; align-items: flex-start; max-width: none; min-width: 0;
                             max-height: 72px; gap: 0 2px; }
.wb-legend-above .wb-legend-title { margin: 2px 6px 0 2px; }
.wb-legend-above .wb-legend-entry { padding: 1px 4px; }
"""


class Legend(anywidget.AnyWidget):
    """Entries (key, label, colour, count) drawn beside the map; ``on_pick(key)`` on a click."""

    _esm = ESM
    _css = CSS
    title = traitlets.Unicode("").tag(sync=True)
    entries = traitlets.List(traitlets.Dict(), default_value=[]).tag(sync=True)
    pickable = traitlets.Bool(True).tag(sync=True)
    above = traitlets.Bool(False).tag(sync=True)  # above the map, as rows of entries (a narrow cell)

    def __init__(self, on_pick=None, **kwargs):
        super().__init__(**kwargs)
        self._on_pick = on_pick
        self.on_msg(lambda _widget, content, _buffers: self.dispatch(content))

    def dispatch(self, content: dict) -> None:
        if content.get("event") == "pick" and self._on_pick is not None and self.pickable:
            self._on_pick(content.get("key"))

    def pick(self, key) -> None:
        """What a click on the entry ``key`` does (for scripts and tests)."""
        self.dispatch({"event": "pick", "key": key})

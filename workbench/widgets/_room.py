"""The room a view has on screen, and how 01's one screen shares it: the map, its legend, and the
side column with the opened paper's card and the actions on the selection.

:class:`Room` is a tiny anywidget put inside the part of a view that must fit one screen (the
element marked ``wb-onescreen``). The browser measures what the user sees of it: the width of
the cell's output area and the height of the notebook's scrolling area (what is left of the
window below JupyterLab's menus), and how far the map row starts below the top of that part
(the tool rows above it); it sends them again, at most a few times a second, when the window or
the side panels change size. :func:`plan` turns them into sizes (plain Python, tested without a
browser); the view applies them. Before the browser has measured (or in a headless run) the
view keeps its default sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import anywidget
import traitlets

__all__ = ["OneScreen", "Room", "plan"]

GAP = 14  # px between the map column and the side column, and between the legend and the map
LEGEND_BESIDE = 220  # px: the legend's width when it stands on the map's left
LEGEND_ABOVE = 78  # px: the legend's height when it lies above the map, as rows of entries
TOOLBAR = 38  # px: jupyter-scatter's tool buttons on the map's left
BESIDE_FROM = 1180  # px of output width from which the legend stands beside the map
SIDE_FROM = 720  # px of output width from which the card and the actions stand beside the map
SIDE_SHARE, SIDE_MIN, SIDE_MAX = 0.42, 330, 640  # the side column's share of the width, and its bounds
MAP_MIN = 260  # px: the map is never smaller than this (a narrow window scrolls)
BOTTOM = 10  # px kept free under the map


@dataclass(frozen=True)
class OneScreen:
    """Sizes for the room ``width`` x ``height`` (px): the map's box (with the data's aspect),
    where the legend goes ("beside" the map, on its left, or "above" it), the side column's
    width (0: below the map, the window is too narrow for both) and its height at most."""

    width: int
    height: int
    map_width: int
    map_height: int
    legend: str
    side_width: int
    side_height: int


def plan(width: float, height: float, aspect: float, above: float = 80) -> OneScreen:
    """How 01's one screen shares ``width`` x ``height`` px (the output area's width, the
    notebook's visible height), the map's box keeping ``aspect`` (width / height), with ``above``
    px of tool rows over the map row. The map is as large as the height allows and the width
    leaves for the side column (the card and the actions), which takes the rest of the width."""
    width, height = max(int(width), 1), max(int(height), 1)
    legend = "beside" if width >= BESIDE_FROM else "above"
    legend_w = LEGEND_BESIDE + GAP if legend == "beside" else 0
    legend_h = LEGEND_ABOVE if legend == "above" else 0
    side = 0
    if width >= SIDE_FROM:
        side = int(min(SIDE_MAX, max(SIDE_MIN, width * SIDE_SHARE)))
    room_w = width - legend_w - TOOLBAR - (side + GAP if side else 0)
    room_h = height - above - legend_h - BOTTOM
    map_h = max(MAP_MIN, min(room_h, room_w / aspect))
    map_w = map_h * aspect
    if map_w > room_w:  # the lower bound on the height made it too wide: the width decides
        map_w, map_h = room_w, room_w / aspect
    map_w, map_h = int(map_w), int(map_h)
    if side:
        side = width - legend_w - TOOLBAR - map_w - GAP  # the side column takes what the map leaves
    side_h = int(height - above - BOTTOM)
    return OneScreen(width, height, map_w, map_h, legend, side, side_h)


ESM = r"""
function render({ model, el }) {
  el.style.display = "none";
  el.classList.add("wb-room");
  let part = null, last = "", timer = null, tries = 0;

  // the notebook's scrolling area (JupyterLab 4, then older Lab and Notebook), else the nearest
  // ancestor that scrolls (an output area's overflow-x makes its overflow-y "auto": not that one)
  function scroller(node) {
    const known = node.closest(".jp-WindowedPanel-outer, .jp-Notebook, .jp-LinkedOutputView");
    if (known && known.clientHeight > 0) return known;
    for (let p = node.parentElement; p; p = p.parentElement) {
      if (/(auto|scroll)/.test(getComputedStyle(p).overflowY) && p.scrollHeight > p.clientHeight + 1) return p;
    }
    return null;
  }

  function measure() {
    timer = null;
    if (!part || !part.isConnected) return;
    const scroll = scroller(part);
    const top = scroll ? Math.max(scroll.getBoundingClientRect().top, 0) : 0;
    const bottom = scroll ? Math.min(scroll.getBoundingClientRect().bottom, window.innerHeight) : window.innerHeight;
    const split = part.querySelector(".wb-split");
    const above = split ? split.getBoundingClientRect().top - part.getBoundingClientRect().top : 0;
    const room = [Math.round(part.clientWidth), Math.round(bottom - top), Math.round(above)];
    if (room[0] <= 0 || room[1] <= 0) return;
    const key = room.join("x");
    if (key === last) return;
    last = key;
    el.dataset.room = key;  // what was measured (for the browser tests)
    model.set("room", room);
    model.save_changes();
  }

  function later() { if (timer === null) timer = setTimeout(measure, 200); }

  const sized = new ResizeObserver(later);
  function attach() {
    part = el.closest(".wb-onescreen");
    if (!part) {
      if (tries++ < 600) setTimeout(attach, 100);
      return;
    }
    sized.observe(part.closest(".jp-OutputArea-output") || part);
    const scroll = scroller(part);
    if (scroll) sized.observe(scroll);
    window.addEventListener("resize", later);
    later();
  }
  attach();
  return () => { sized.disconnect(); window.removeEventListener("resize", later); };
}
export default { render };
"""


class Room(anywidget.AnyWidget):
    """What the browser measured: ``room`` is [width, height, above] in px ([] until measured);
    ``on_change(width, height, above)`` is told each new measure. :meth:`measured` does what the
    browser does (for tests)."""

    _esm = ESM
    room = traitlets.List(traitlets.Int(), default_value=[]).tag(sync=True)

    def __init__(self, on_change=None, **kwargs):
        super().__init__(**kwargs)
        self._on_change = on_change
        self.observe(self._changed, names="room")

    def _changed(self, change) -> None:
        if len(change["new"]) == 3 and self._on_change is not None:
            self._on_change(*change["new"])

    def measured(self, width: int, height: int, above: int = 80) -> None:
        """What the browser sends when it has measured the room."""
        self.room = [int(width), int(height), int(above)]

"""A sortable, paged table of papers (the map's selection): title, year, topic, decision, tags.
A click on a row (or Enter on it) opens that paper.

A small anywidget whose state lives in Python: :meth:`PaperTable.show` takes the rows,
:meth:`sort`, :meth:`go` and :meth:`open_row` do what a click on a header, the pager or a row does
(the browser sends ``{"event": "sort" | "page" | "open", ...}``), and only the page shown is
sent to the browser. Tests call the methods directly.
"""

from __future__ import annotations

import anywidget
import traitlets

__all__ = ["COLUMNS", "PaperTable"]

COLUMNS = (("title", "title"), ("year", "year"), ("topic", "topic"), ("decision", "decision"), ("tags", "tags"))
DECISION_ORDER = {"include": 0, "maybe": 1, "exclude": 2, "undecided": 3}

ESM = r"""
function cell(tag, text, cls) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (cls) el.className = cls;
  return el;
}

function render({ model, el }) {
  el.classList.add("wb-table");
  function draw() {
    el.replaceChildren();
    const rows = model.get("rows");
    const table = document.createElement("table");
    const head = document.createElement("tr");
    for (const [key, label] of model.get("columns")) {
      const th = document.createElement("th");
      const b = cell("button", label, "wb-sort");
      b.type = "button";
      if (model.get("sort_by") === key) b.textContent += model.get("descending") ? " ▼" : " ▲";
      b.title = `sort by ${label}`;
      b.addEventListener("click", () => model.send({ event: "sort", key }));
      th.appendChild(b);
      head.appendChild(th);
    }
    const thead = document.createElement("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    const body = document.createElement("tbody");
    for (const row of rows) {
      const tr = document.createElement("tr");
      tr.tabIndex = 0;
      tr.dataset.id = row.id;
      if (row.id === model.get("opened")) tr.classList.add("wb-opened");
      tr.title = "open this paper";
      for (const [key] of model.get("columns")) tr.appendChild(cell("td", row[key] ?? "", `wb-col-${key}`));
      const open = () => model.send({ event: "open", id: row.id });
      tr.addEventListener("click", open);
      tr.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); e.stopPropagation(); open(); } });
      body.appendChild(tr);
    }
    table.appendChild(body);
    el.appendChild(table);
    const pager = document.createElement("div");
    pager.className = "wb-pager";
    const page = model.get("page"), pages = model.get("pages");
    const prev = cell("button", "◀ previous", "wb-page"), next = cell("button", "next ▶", "wb-page");
    prev.type = next.type = "button";
    prev.disabled = page <= 0;
    next.disabled = page >= pages - 1;
    prev.addEventListener("click", () => model.send({ event: "page", page: page - 1 }));
    next.addEventListener("click", () => model.send({ event: "page", page: page + 1 }));
    pager.append(prev, cell("span", `page ${pages ? page + 1 : 0} of ${pages} · ${model.get("total")} papers`, "wb-meta"), next);
    el.appendChild(pager);
  }
  for (const name of ["rows", "columns", "sort_by", "descending", "page", "pages", "total", "opened"]) {
    model.on(`change:${name}`, draw);
  }
  draw();
}
export default { render };
"""

CSS = """
.wb-table table { border-collapse: collapse; width: 100%; font-size: 13px; table-layout: fixed; }
.wb-table th { text-align: left; border-bottom: 1px solid #bbb; padding: 0; }
.wb-table th:nth-child(1) { width: auto; } .wb-table th:nth-child(2) { width: 4.5rem; }
.wb-table th:nth-child(3) { width: 30%; } .wb-table th:nth-child(4) { width: 8.5rem; } .wb-table th:nth-child(5) { width: 14%; }
.wb-table .wb-sort { border: 0; background: none; font: inherit; font-weight: 600; cursor: pointer; padding: 3px 6px;
                     width: 100%; text-align: left; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.wb-table td { padding: 3px 6px; border-bottom: 1px solid #eee; vertical-align: top; overflow-wrap: anywhere; }
.wb-table tbody tr { cursor: pointer; }
.wb-table tbody tr:hover, .wb-table tbody tr:focus { background: #eef3fb; outline: none; }
.wb-table tr.wb-opened { background: #dbe8fa; box-shadow: inset 3px 0 0 #1c6dd0; }
.wb-table .wb-pager { display: flex; gap: 8px; align-items: center; margin-top: 4px; }
.wb-table .wb-page { font: inherit; font-size: 12px; padding: 1px 8px; white-space: nowrap; }
"""


def _sort_key(key: str):
    if key == "year":
        return lambda r: (r["year"] == "", r["year"])
    if key == "topic":
        return lambda r: (r["topic_id"] < 0, r["topic_id"])
    if key == "decision":
        return lambda r: DECISION_ORDER.get(r["decision"].split(" ")[0], 9)
    return lambda r: str(r[key]).casefold()


class PaperTable(anywidget.AnyWidget):
    """Rows of papers, ``page_size`` at a time; ``on_open(paper_id)`` when a row is opened.

    A row is a dict with ``id``, ``title``, ``year`` (text), ``topic`` (text), ``topic_id``,
    ``decision`` and ``tags`` (text).
    """

    _esm = ESM
    _css = CSS
    columns = traitlets.List(default_value=[list(c) for c in COLUMNS]).tag(sync=True)
    rows = traitlets.List(traitlets.Dict(), default_value=[]).tag(sync=True)
    sort_by = traitlets.Unicode("topic").tag(sync=True)
    descending = traitlets.Bool(False).tag(sync=True)
    page = traitlets.Int(0).tag(sync=True)
    pages = traitlets.Int(0).tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    opened = traitlets.Unicode("").tag(sync=True)

    def __init__(self, on_open=None, page_size: int = 10, **kwargs):
        super().__init__(**kwargs)
        self.page_size = page_size
        self._all: list[dict] = []
        self._on_open = on_open
        self.on_msg(lambda _widget, content, _buffers: self.dispatch(content))

    def show(self, rows: list[dict], keep_page: bool = False, ranked: bool = False) -> None:
        """Show ``rows`` (sorted as the table is, or with ``ranked`` in the order given, e.g. a
        search's best first, until a header is clicked), from the first page unless ``keep_page``."""
        if ranked:
            self.sort_by, self.descending = "", False
        self._all = list(rows)
        self.total = len(self._all)
        self.pages = -(-self.total // self.page_size)
        self._sort()
        self._page(self.page if keep_page else 0)

    def sort(self, key: str) -> None:
        """Sort by ``key`` (a second click on the same column reverses the order)."""
        if key not in dict(COLUMNS):
            raise ValueError(f"no column {key!r}; expected one of {', '.join(dict(COLUMNS))}")
        self.descending = not self.descending if key == self.sort_by else False
        self.sort_by = key
        self._sort()
        self._page(0)

    def go(self, page: int) -> None:
        self._page(page)

    def open_row(self, paper_id: str) -> None:
        """Open the paper ``paper_id`` (what a click on its row does)."""
        self.opened = paper_id
        if self._on_open is not None:
            self._on_open(paper_id)

    def ids(self) -> list[str]:
        """Every row's id, in the table's order (all pages)."""
        return [r["id"] for r in self._all]

    def dispatch(self, content: dict) -> None:
        event = content.get("event")
        if event == "sort":
            self.sort(str(content.get("key")))
        elif event == "page":
            self.go(int(content.get("page", 0)))
        elif event == "open" and content.get("id"):
            self.open_row(str(content["id"]))

    def _sort(self) -> None:
        if self.sort_by:  # "": in the order given (ranked)
            self._all.sort(key=_sort_key(self.sort_by), reverse=self.descending)

    def _page(self, page: int) -> None:
        self.page = max(0, min(int(page), max(self.pages - 1, 0)))
        start = self.page * self.page_size
        self.rows = [{k: v for k, v in r.items() if k != "topic_id"} for r in self._all[start:start + self.page_size]]

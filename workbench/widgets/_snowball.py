"""04's "Snowball" panel: citation searching from the included papers. Direction and starting
papers, **Find**, the candidates (most pointed-to first, with the included papers pointing to
them), and **Write lookup file** (a DOI list or OpenAlex filters) for the database search whose
results come back with ``workbench update FILE --method citation-search``.

The state is :class:`workbench.session.snowball.SnowballPanel`; every button answers beside
itself (:class:`~._feedback.Act`).
"""

from __future__ import annotations

import ipywidgets as W

from ..field import DIRECTIONS
from ..session.snowball import SnowballPanel
from ..session.text import escape
from ._common import view_frame
from ._feedback import FAILED, Act, Line
from ._follow import Following
from ._keys import Keys

__all__ = ["SnowballView"]


def rows_html(panel: SnowballPanel) -> str:
    rows = panel.rows()
    if not rows:
        return "<div class='wb-meta'>No works to list.</div>" if panel.found is not None else ""
    body = "".join(
        f"<tr><td>{r.rank}</td><td>{r.count}</td><td><code>{escape(r.key)}</code></td>"
        f"<td class='wb-meta'>{escape('; '.join(t[:60] for t in r.titles))}</td></tr>" for r in rows)
    more = len(panel.found.candidates) - len(rows)
    tail = f"<div class='wb-meta'>… and {more} more in the lookup file</div>" if more > 0 else ""
    return ("<table class='wb-snowball'><tr><th>#</th><th>pointed to by</th><th>work</th>"
            f"<th>included papers pointing to it</th></tr>{body}</table>{tail}")


class SnowballView:
    """The panel's widgets around a :class:`SnowballPanel` (``.widget`` to display)."""

    def __init__(self, session):
        self.panel = SnowballPanel(session)
        self.keys = Keys()
        self.direction = W.ToggleButtons(options=list(DIRECTIONS), value="backward",
                                         tooltips=["the works they cite", "the works citing them"])
        self.start = W.Dropdown(options=[("included papers", "included"), ("all papers", "all")], value="included",
                                description="from", layout=W.Layout(width="16rem"))
        self.find_act = Act("Find", icon="search", busy_text="reading the references",
                            tooltip="list the works outside the review that the papers point to")
        self.find_act.on_click(self.on_find)
        self.kind = W.Dropdown(options=[("DOI list", "dois"), ("OpenAlex filters", "openalex")], value="dois",
                               description="lookup", layout=W.Layout(width="16rem"))
        self.path = W.Text(placeholder="default: report/snowball-<direction>-<kind>.txt", layout=W.Layout(width="28rem"))
        self.write_act = Act("Write lookup file", icon="download",
                             tooltip="the file a database takes; add what it finds with "
                                     "workbench update FILE --method citation-search")
        self.write_act.on_click(self.on_write)
        self.keys.submit(self.path, "path", self.on_write)  # Enter writes it
        self.summary = W.HTML(f"<div class='wb-meta'>{escape(self.panel.summary())}</div>")
        self.table = W.HTML()
        # Before each action: decisions made elsewhere are read (the included papers it starts from)
        self.news = Line()
        self.following = Following(session, self.keys, self.news, self.redraw)
        self.widget = view_frame([self.following.widget, self.news, W.HBox([self.direction, self.start]),
                                  self.find_act.widget, self.summary, self.table,
                                  W.HBox([self.kind, self.path]), self.write_act.widget], self.keys, "snowball")

    def redraw(self) -> None:
        """The panel as it is before Find (Reopen, after it could not follow)."""
        self.panel.found = None
        self.summary.value = f"<div class='wb-meta'>{escape(self.panel.summary())}</div>"
        self.table.value = ""

    def on_find(self):
        found = self.find_act.run(self.panel.find, self.direction.value, self.start.value,
                                  ok=lambda f: f"{len(f)} works outside the review")
        if found is FAILED:
            return found
        self.summary.value = f"<div class='wb-meta'>{escape(self.panel.summary())}</div>"
        self.table.value = rows_html(self.panel)
        return found

    def on_write(self):
        return self.write_act.run(self.panel.write, self.kind.value, self.path.value.strip() or None,
                                  ok=lambda done: f"wrote {done[1]} lines to {done[0]}")

"""The explore view's map: jupyter-scatter sized to its data, coloured with the shared palette
(:mod:`workbench.space.palette`), its legend beside it, a tooltip with the year, authors and the
start of the abstract, a paper lit up on request, and (with "show citation links") the citation
links of the selection drawn as lines between the points: jupyter-scatter's ``Line``
annotations, on the map itself.

Sized to its data: the points' diameter follows the number of papers; the map's box has the
data's aspect ratio (within 0.8-2.0) and both axes share one scale with a margin, so no point
is cut at an edge and no third of the box is empty; the legend is a list beside the map (on its
left), not drawn over the points. Colours are keyed by topic id (``topic_key`` is ``"t<id>"``), so a
rename changes the legend's words and no colour. By decision and by predicted relevance the
colours are :class:`~workbench.widgets.mapscreen.MapScreening`'s; the relevance column is
computed (a ranking) only while the map is coloured by it, again after a decision.
"""

from __future__ import annotations

import ipywidgets as W
import numpy as np

from ..space.palette import category_colours, point_size
from ..session.session import Session
from ..session.text import authors_line, escape
from ._feedback import Line, reporting_errors
from ._legend import Legend
from ._room import GAP

__all__ = ["COLOUR_BY", "MapPanel"]

COLOUR_BY = {"topic": "topic_key", "decision": "decision", "relevance": "relevance", "tag": "first_tag"}
TOOLTIP = ["Topic", "Year", "Authors", "decision"]  # jscatter shows the column names, capitalised
HIGHLIGHT = "#e7298a"  # the lit-up paper's frame: no topic has it
MAX_WIDTH = 760  # px: beside a legend in a notebook at 1280 px (until the view fits it to the screen)
MARGIN = 0.06  # of the data's extent, around the points
LINK_COLOURS = ("#3a3a3a", "#a0a0a0")  # a link among the selection; one to or from a paper outside it
MAX_LINKS_DRAWN = 3000  # lines on the map at most (the count says how many there are)
NO_LINKS = "no citation links in this review (its sources carry no references)"


class MapPanel:
    """The map, its legend and its colouring for ``session``; ``widget`` to display.

    ``on_select(rows)``: told the map rows of a lasso; ``on_pick(topic)``: told a legend click.
    """

    def __init__(self, session: Session, height: int = 520, on_select=None, on_pick=None):
        from jscatter import Scatter

        self.session = session
        self.frame = session.frame()
        self._coords = session.review.coords  # the places the points are drawn at
        self._ranking = None  # the ranking the relevance colours show (None: no model yet)
        self._relevance_stale = True
        self._add_columns()
        self._limits = (MAX_WIDTH, height)  # the map's box at most (px): see fit()
        self.height, self.width, self.scales = self._box()
        n = len(self.frame)
        self.scatter = Scatter(
            data=self.frame, x="x", y="y", x_scale=self.scales[0], y_scale=self.scales[1],
            width=self.width, height=self.height, axes=False, legend=False, size=point_size(n),
            color_by="topic_key", color_map=self._colours("topic"), opacity=0.9,
            tooltip=True, tooltip_properties=TOOLTIP, tooltip_preview="preview", tooltip_preview_text_lines=6,
            tooltip_histograms=False, tooltip_size="small",
        )
        self.scatter.mouse(mode="lasso")
        # The points' canvas follows the map's box: jupyter-scatter 1.0 hands a later width or height
        # to its box only, and regl-scatterplot keeps a canvas of the first size unless told "auto"
        self.scatter.options(regl_scatterplot_options={"width": "auto", "height": "auto"})
        self.line = Line()  # what went wrong with a colouring, a lasso or a legend click (beside "colour by")
        if on_select is not None:
            self.scatter.widget.observe(reporting_errors(self.line, lambda ch: on_select(
                [] if ch["new"] is None else ch["new"])), names=["selection"])
        self.legend = Legend(on_pick=None if on_pick is None else reporting_errors(self.line, on_pick))
        self.colour = W.ToggleButtons(options=list(COLOUR_BY), value="topic", description="colour by",
                                      style={"button_width": "auto"})
        self.colour.observe(reporting_errors(self.line, lambda ch: self.recolour()), names="value")
        self.select_mode = W.ToggleButtons(options=["lasso", "box"], value="lasso", description="select",
                                           style={"button_width": "auto"})
        self.select_mode.observe(reporting_errors(self.line, self._on_mode), names="value")
        self._build_links()
        self._show_legend()
        # The legend on the left: a tooltip that opens leftwards from a point near the map's
        # left edge then lies over the legend instead of being cut off by the notebook's edge.
        # In a narrow cell it lies above the map, as rows of entries (see fit()).
        self.widget = W.HBox([self.legend, self.scatter.show()],
                             layout=W.Layout(flex_flow="row wrap", align_items="flex-start", gap=f"{GAP}px"))
        self.widget.add_class("wb-map")

    # ------------------------------------------------------------------ building

    def _add_columns(self) -> None:
        s, f = self.session, self.frame
        papers = s.review.papers
        f["Year"] = ["" if p.year is None else str(p.year) for p in papers]
        f["Authors"] = [authors_line(p.authors, p.et_al, limit=3) for p in papers]
        f["preview"] = [f"{p.title}\n{start}" if start else p.title for p, start in zip(papers, s.review.text_starts())]
        f["relevance"] = "no model"
        self._bulk_column()
        self._topic_columns()

    def _bulk_column(self) -> bool:
        """``bulk``: whether each paper's decision (this reviewer's) was made in bulk; returns
        whether it changed."""
        bulk = self.session.map.decided_in_bulk()
        values = [pid in bulk for pid in self.frame["id"]]
        changed = "bulk" not in self.frame or self.frame["bulk"].tolist() != values
        self.frame["bulk"] = values
        return changed

    def _relevance_column(self) -> bool:
        """``relevance``: each paper's band of predicted relevance (a ranking of the current
        decisions); returns whether it changed."""
        # The first ranking of a session builds the ranker's features (seconds for thousands of
        # papers): say so where the user looks; widget messages reach the browser at once.
        self.legend.title = "predicted relevance: ranking the undecided papers…"
        self._ranking = self.session.map.relevance_ranking()
        keys = self.session.map.colour_keys("relevance", ranking=self._ranking)
        self._relevance_stale = False
        changed = self.frame["relevance"].tolist() != keys
        self.frame["relevance"] = keys
        return changed

    def _topic_columns(self) -> None:
        labels = self.session.review.topic_labels()
        topics = [int(t) for t in self.session.review.labels]
        self.frame["topic_key"] = [f"t{t}" for t in topics]
        self.frame["Topic"] = [f"{t}: {labels.get(t, 'Unassigned')}" if t >= 0 else "Unassigned" for t in topics]

    def _extent(self):
        """The points' lowest x and y and their spans (dx, dy; 1 where all share a value)."""
        x, y = self.frame["x"].to_numpy(float), self.frame["y"].to_numpy(float)
        return float(x.min()), float(y.min()), float(x.max() - x.min()) or 1.0, float(y.max() - y.min()) or 1.0

    @property
    def aspect(self) -> float:
        """The map box's width / height: the data's, within 0.8-2.0."""
        _, _, dx, dy = self._extent()
        return _aspect(dx, dy)

    def _box(self):
        """The map's height and width (px), as large as its limits allow, and the x and y
        scales: the data's aspect ratio, one scale for both axes, a margin all round."""
        x0, y0, dx, dy = self._extent()
        aspect = _aspect(dx, dy)
        max_width, max_height = self._limits
        height = int(min(max_height, max_width / aspect))
        width = int(round(height * aspect))
        # jscatter maps each scale's (min, max) to -1..1; the view shows -1..1 vertically and
        # -w/h..w/h across, so one data unit is as long on both axes when both scales share u.
        half = max(dy / 2, dx / 2 / (width / height)) * (1 + 2 * MARGIN)
        cx, cy = x0 + dx / 2, y0 + dy / 2
        return height, width, ((cx - half, cx + half), (cy - half, cy + half))

    def _build_links(self) -> None:
        self._link_ids: list[str] = []
        self._link_lines: list = []
        self._highlight = None
        self.links_drawn = (0, 0)  # (among the selection, to or from outside) drawn now
        self.links_toggle = W.Checkbox(value=False, description="show citation links", indent=False,
                                       layout=W.Layout(width="auto"))
        self.links_toggle.observe(reporting_errors(self.line, lambda _: self.show_links(self._link_ids)),
                                  names="value")
        self.links_text = W.HTML()
        self.links_row = W.HBox([self.links_toggle, self.links_text], layout=W.Layout(align_items="center"))
        self.show_links([])

    # ------------------------------------------------------------------ colours and legend

    def _colours(self, mode: str) -> dict[str, str]:
        column = COLOUR_BY[mode]
        present = set(self.frame[column])
        if mode == "topic":
            colours = self.session.topic_colours()
            return {f"t{t}": c for t, c in sorted(colours.items()) if f"t{t}" in present}
        if mode == "tag":
            order = [t.name for t in self.session.store.tags.vocabulary() if t.name in present]
            return category_colours([*order, *(["untagged"] if "untagged" in present else [])])
        return {k: c for k, c in self.session.map.colour_map(mode).items() if k in present}

    def _entries(self, mode: str) -> list[dict]:
        colours = self._colours(mode)
        counts = self.frame[COLOUR_BY[mode]].value_counts()
        if mode == "relevance":
            return self.session.map.relevance_legend(self.frame["relevance"].tolist(), self._ranking)[1]
        if mode == "decision":
            bulk = self.frame.loc[self.frame["bulk"], "decision"].value_counts()
            return [{"key": k, "label": k + (f" ({int(bulk[k])} in bulk from the map)" if bulk.get(k) else ""),
                     "colour": c, "count": int(counts.get(k, 0))} for k, c in colours.items()]
        if mode != "topic":
            return [{"key": k, "label": k, "colour": c, "count": int(counts.get(k, 0))} for k, c in colours.items()]
        names = dict(zip(self.frame["topic_key"], self.frame["Topic"]))
        keys = sorted(colours, key=lambda k: (int(k[1:]) < 0, int(k[1:])))  # topic order, unassigned last
        return [{"key": int(k[1:]), "label": names[k], "colour": colours[k], "count": int(counts.get(k, 0)),
                 "tooltip": f"select the {int(counts.get(k, 0))} papers of {names[k]}"} for k in keys]

    def _show_legend(self) -> None:
        mode = self.colour.value
        self.legend.title = {"topic": "topic (papers) · click to select", "tag": "first tag (papers)",
                             "decision": "your decision (papers)",
                             "relevance": self.session.map.relevance_legend([], self._ranking)[0]}[mode]
        self.legend.pickable = mode == "topic"
        self.legend.entries = self._entries(mode)

    def recolour(self, push: bool = True) -> None:
        """Colour the map by the chosen column, read fresh from the store, and show its legend.
        The points go to the browser again only when their colour codes changed (``push``)."""
        if not self.drawn_as_shown():
            self.redraw()
            return
        self.refresh_columns(topics=True)
        if self.colour.value == "relevance" and self._relevance_stale:
            self._relevance_column()
        self._paint(push)

    def _paint(self, push: bool = True) -> None:
        before = self.scatter.get_point_list()[:, 2].copy()
        self.scatter.color(by=COLOUR_BY[self.colour.value], map=self._colours(self.colour.value))
        if push and (before != self.scatter.get_point_list()[:, 2]).any():
            widget = self.scatter.widget
            widget.prevent_filter_reset = True
            widget.non_spatial_points_update = True
            widget.points = self.scatter.get_point_list()
        self._show_legend()

    def refresh_columns(self, topics: bool = False) -> set[str]:
        """Bring the annotation columns (and with ``topics`` the topic columns) of ``frame`` up to
        date, in place (the map and its tooltips read the same frame); returns the changed names."""
        columns = self.session.annotation_columns()
        if topics:
            columns.update(self.session.topic_columns())
        changed = {name for name, values in columns.items() if self.frame[name].tolist() != list(values)}
        for name in changed:
            self.frame[name] = columns[name]
        if "decision" in changed or topics:
            changed |= {"bulk"} if self._bulk_column() else set()
            self._relevance_stale = True  # a new ranking: computed when the map shows it
        if topics:
            keys, names = self.frame["topic_key"].tolist(), self.frame["Topic"].tolist()
            self._topic_columns()
            changed |= {"topic_key"} if keys != self.frame["topic_key"].tolist() else set()
            changed |= {"Topic"} if names != self.frame["Topic"].tolist() else set()
        return changed

    def drawn_as_shown(self) -> bool:
        """Whether the map's points are the papers of the review shown, at its places (not after
        an update added papers, a merge took some away, or a rebuild moved them)."""
        review = self.session.review
        if len(review.papers) != len(self.frame):
            return False
        if review.coords is self._coords:
            return True
        same = np.array_equal(review.coords, self._coords) and self.frame["id"].tolist() == self.session.ids
        if same:
            self._coords = review.coords
        return same

    def redraw(self) -> None:
        """Draw the map again from the review shown: its papers at their places, coloured as
        chosen, in a box sized to them; the lit-up paper and the citation lines are cleared."""
        self.frame = self.session.frame()
        self._coords = self.session.review.coords
        self._ranking, self._relevance_stale = None, True
        self._add_columns()
        if self.colour.value == "relevance":
            self._relevance_column()
        self.height, self.width, self.scales = self._box()
        column = COLOUR_BY[self.colour.value]
        # jscatter 1.0 re-applies the colouring's category order to the new data by the old
        # categories' numbers: forget it first, the colours are set again below
        self.scatter.color(order=None, skip_widget_update=True)
        self.scatter.data(self.frame, skip_widget_update=True)
        self.scatter.width(self.width)
        self.scatter.height(self.height)
        self.scatter.size(default=point_size(len(self.frame)))
        self.scatter.x("x", scale=self.scales[0])
        self.scatter.y("y", scale=self.scales[1])
        self.scatter.color(by=column, map=self._colours(self.colour.value))
        self._highlight = None
        self.show_links([])
        self._show_legend()

    def fit(self, width: int, height: int, legend: str, legend_width: int) -> None:
        """Make the map's box as large as ``width`` x ``height`` px allow (the data's aspect
        kept: the points only grow) and put the legend "beside" the map (on its left, as tall as
        the map, ``legend_width`` px with the gap) or "above" it (rows of entries, a few lines
        high, scrolled)."""
        self._limits = (max(int(width), 1), max(int(height), 1))
        height_, width_, _ = self._box()  # the same aspect: the scales stay as they are
        if (height_, width_) != (self.height, self.width):
            self.height, self.width = height_, width_
            self.scatter.width(self.width)
            self.scatter.height(self.height)
        above = legend == "above"
        self.widget.layout.flex_flow = "column" if above else "row"
        self.widget.layout.gap = "4px" if above else f"{GAP}px"
        self.widget.layout.width = "min-content"  # as wide as the map (and the legend beside it)
        self.legend.layout.max_height = None if above else f"{self.height}px"
        self.legend.layout.width = None if above else f"{legend_width - GAP}px"
        self.legend.above = above

    def follow(self, topics: bool) -> None:
        """After an action: update the frame; recolour only when the colouring changed; draw the
        map again when its papers or their places changed (an update, a merge, a rebuild)."""
        if not self.drawn_as_shown():
            self.redraw()
            return
        changed = self.refresh_columns(topics=topics)
        if self.colour.value == "relevance" and self._relevance_stale and self._relevance_column():
            changed.add("relevance")
        column = COLOUR_BY[self.colour.value]
        if column in changed or (topics and self.colour.value == "topic"):
            self._paint()
        elif changed:
            self._show_legend()

    # ------------------------------------------------------------------ selection and lighting up

    def _on_mode(self, change) -> None:
        self.scatter.lasso(type="rectangle" if change["new"] == "box" else "freeform")
        self.scatter.mouse(mode="lasso")

    def light_up(self, paper_id: str | None) -> None:
        """Frame ``paper_id`` on the map (a square around it and the hover ring), or none."""
        from jscatter import Rect

        if paper_id is None:
            self._highlight = None
            self._annotate()
            return
        row = self.session.rows_of([paper_id])[0]
        x, y = float(self.frame.at[row, "x"]), float(self.frame.at[row, "y"])
        half = (self.scales[1][1] - self.scales[1][0]) * 0.025
        self._highlight = Rect(x - half, x + half, y - half, y + half, line_color=HIGHLIGHT, line_width=3)
        self._annotate()
        self.scatter.widget.hovering = row

    def _annotate(self) -> None:
        self.scatter.annotations(self._link_lines + ([self._highlight] if self._highlight is not None else []))

    def show_links(self, ids) -> tuple[int, int]:
        """State the citation links touching ``ids`` (the selection) and, while "show citation
        links" is ticked, draw them as lines (dark among the selection, light to or from a paper
        outside it); returns (links among, links to or from outside)."""
        from jscatter import Line

        self._link_ids = list(ids)
        review = self.session.review
        total = len(review.field.links())
        among, across = review.field.links_around(self._link_ids) if self._link_ids and total else ([], [])
        self.links_toggle.disabled = not total
        drawn = [(pair, LINK_COLOURS[0], 2) for pair in among] + [(pair, LINK_COLOURS[1], 1) for pair in across]
        drawn = drawn[:MAX_LINKS_DRAWN] if self.links_toggle.value else []
        self._link_lines = []
        if drawn:
            rows = dict(zip(self.frame["id"], range(len(self.frame))))
            xy = self.frame[["x", "y"]].to_numpy(float)
            self._link_lines = [Line([tuple(xy[rows[a]]), tuple(xy[rows[b]])], line_color=colour, line_width=width)
                                for (a, b), colour, width in drawn]
        self.links_drawn = (sum(1 for d in drawn if d[2] == 2), sum(1 for d in drawn if d[2] == 1))
        self._annotate()
        if not total:
            text = NO_LINKS
        elif not self._link_ids:
            text = f"{total} citation links in this review; select papers to see theirs"
        else:
            text = (f"{len(among)} link{'' if len(among) == 1 else 's'} among the selection, "
                    f"{len(across)} to or from papers outside it")
            if len(drawn) < len(among) + len(across) and self.links_toggle.value:
                text += f" (the first {len(drawn)} drawn)"
        self.links_text.value = f"<span class='wb-meta wb-links'>{escape(text)}</span>"
        return len(among), len(across)


def _aspect(dx: float, dy: float) -> float:
    """A map box's width / height for points spanning ``dx`` x ``dy``: theirs, within 0.8-2.0."""
    return min(2.0, max(0.8, dx / dy))

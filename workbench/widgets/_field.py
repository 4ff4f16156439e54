"""The field under 01's map, folded until opened: topics over time (the figure the report has,
drawn from the topics as they are now, so renames and merges show), a year to select on the map,
the top venues and authors of the selection (or of every paper), and who writes with whom among
them (the co-authorship of the selection's most productive authors, drawn with networkx)."""

from __future__ import annotations

import io

import ipywidgets as W

from ..session.session import Session
from ..session.text import escape

__all__ = ["FieldPanel", "NO_YEAR_OPTION"]

NO_YEAR_OPTION = "no year"


def _png(fig) -> bytes:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


class FieldPanel:
    """``on_year(ids, what)`` selects the papers of a year; ``widget`` is what 01 shows."""

    def __init__(self, session: Session, on_year):
        self.session = session
        self.on_year = on_year
        self.selected: list[str] = []
        self.image = W.Image(format="png", layout=W.Layout(max_width="100%"))
        self.shares = W.ToggleButtons(options=["papers", "shares"], value="papers", style={"button_width": "6rem"})
        self.shares.observe(lambda _: self.render(), "value")
        self.year = W.Dropdown(options=[], description="year", layout=W.Layout(width="12rem"))
        self.select_year = W.Button(description="Select this year's papers", icon="calendar",
                                    layout=W.Layout(width="auto"))
        self.select_year.on_click(lambda _: self.pick_year(self.year.value))
        self.trend = W.HTML()
        self.who = W.HTML()
        self.coauthors = W.Image(format="png", layout=W.Layout(max_width="680px"))
        body = W.VBox([self.shares, self.image, self.trend,
                       W.HBox([self.year, self.select_year], layout=W.Layout(align_items="center")), self.who,
                       self.coauthors])
        self.widget = W.Accordion(children=[body], titles=("Over time, venues and authors",), selected_index=None)
        self.widget.observe(lambda _: self.render(), "selected_index")

    @property
    def is_open(self) -> bool:
        return self.widget.selected_index is not None

    def render(self, force: bool = False) -> None:
        """Draw the figure and the lists (only while the panel is open, or when ``force``d)."""
        if not (self.is_open or force):
            return
        review = self.session.review
        over = review.field.over_time()
        # a chart and trends only where enough papers carry a year; else how many do, in words
        self.image.value = _png(review.field.over_time_figure(shares=self.shares.value == "shares")) if over.chartable else b""
        self.image.layout.display = None if over.chartable else "none"
        self.shares.layout.display = None if over.chartable else "none"
        if over.trending:
            rising = "; ".join(f"{r.topic}: {r.label} ({r.slope:+.1f} pp/year)" for r in over.rising().itertuples())
            fading = "; ".join(f"{r.topic}: {r.label} ({r.slope:+.1f} pp/year)" for r in over.fading().itertuples())
            self.trend.value = (f"<div class='wb-meta wb-trend'>{escape(over.coverage())}. Rising: "
                                f"{escape(rising or 'none')}. Fading: {escape(fading or 'none')}. "
                                f"<i>{escape(over.measure)}</i></div>")
        else:
            self.trend.value = f"<div class='wb-meta wb-trend'>{escape(over.coverage())}.</div>"
        self.year.options = [str(y) for y in reversed(over.years)] + ([NO_YEAR_OPTION] if over.no_year else [])
        self.show_selection(self.selected)

    def show_selection(self, ids) -> None:
        self.selected = list(ids)
        if not self.is_open:
            return
        summary = self.session.review.field.field_summary(self.selected or None, top=5)
        whose = f"the {len(self.selected)} selected papers" if self.selected else "all papers"
        venues = "; ".join(f"{r.name} ({r.papers})" for r in summary.venues.itertuples()) or "none"
        authors = "; ".join(f"{r.name} ({r.papers})" for r in summary.authors.itertuples()) or "none"
        pairs = "; ".join(f"{r.author} & {r.coauthor} ({r.papers})" for r in summary.coauthors.itertuples()) or "none"
        self.who.value = (f"<div class='wb-meta'><b>Of {escape(whose)}</b>: {escape(summary.describe(0).split(';')[0])}"
                          f"<br>top venues: {escape(venues)}<br>top authors: {escape(authors)}"
                          f"<br>writing together most: {escape(pairs)}</div>")
        title = f"Who writes with whom: {whose}"
        self.coauthors.value = _png(self.session.review.field.coauthor_figure(self.selected or None, title=title))

    def pick_year(self, year) -> list[str]:
        """Select the papers of ``year`` (a year, its text, or "no year") on the map."""
        value = None if year in (None, NO_YEAR_OPTION) else int(year)
        ids = self.session.review.field.ids_in_year(value)
        self.on_year(ids, f"the papers of {value}" if value is not None else "the papers without a year")
        return ids

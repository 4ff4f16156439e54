"""Topics over time: papers per topic per year, and which topics rise or fade.

The trend measure, stated once: a topic's *share* in a year is its papers that year over all
papers with a year that year; its trend is the least-squares slope of that share over the last
``window`` years that have papers (up to the latest year in the corpus), in percentage points
per year. A topic going from 10% to 20% of the papers over ten years has a slope of about
+1 pp/year. Papers without a year are counted per topic and reported, never dropped silently;
they take no part in the shares.

Only where enough papers carry a year: a chart over time needs :data:`MIN_CHART` papers with a
year over two years or more, a trend :data:`MIN_TREND` over three years or more, and a topic is
named as rising or fading only with :data:`MIN_TOPIC_TREND` papers with a year in the window
(four papers with a year make no "+50 pp/year"). :meth:`OverTime.coverage` says how many carry one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["MIN_CHART", "MIN_TOPIC_TREND", "MIN_TREND", "NO_YEAR", "TREND_MEASURE", "OverTime", "over_time"]

#: Papers with a year (over at least two years) a chart over time needs: fewer draw nothing but noise.
MIN_CHART = 10
#: Papers with a year (over at least three years) the trends need, and a topic's own papers with
#: a year in the window for its trend to be named among the rising or fading ones.
MIN_TREND = 30
MIN_TOPIC_TREND = 5

#: The column of the papers without a year in :attr:`OverTime.counts`.
NO_YEAR = "no year"
TREND_MEASURE = ("least-squares slope of the topic's share of each year's papers over the last {window} "
                 "years with papers ({first}-{last}), in percentage points per year")


@dataclass
class OverTime:
    """``counts``: a DataFrame, one row per topic (index: topic id) and one column per year
    from the first to the last year with papers (years without papers are 0), then
    :data:`NO_YEAR`; ``shares``: each year's counts over that year's total (no ``NO_YEAR``);
    ``trends``: one row per topic (topic, label, papers, no_year, dated: its papers with a year in
    the window, slope, recent, before), the steepest rise first, where ``slope`` is the trend
    (pp/year), ``recent`` and ``before`` the
    topic's mean share (%) over the later and the earlier half of the window; ``measure`` says
    how the slope is computed; ``window`` its first and last year."""

    counts: object
    shares: object
    trends: object
    measure: str
    window: tuple[int, int] | None

    @property
    def years(self) -> list[int]:
        return [c for c in self.counts.columns if c != NO_YEAR]

    @property
    def no_year(self) -> int:
        return int(self.counts[NO_YEAR].sum())

    @property
    def with_year(self) -> int:
        return int(self.counts[self.years].to_numpy().sum()) if self.years else 0

    @property
    def chartable(self) -> bool:
        """Enough papers carry a year for a chart over time (:data:`MIN_CHART`, two years or more)."""
        return self.with_year >= MIN_CHART and len(self.years) >= 2

    @property
    def trending(self) -> bool:
        """Enough papers carry a year for trends (:data:`MIN_TREND`, three years or more with papers)."""
        return self.with_year >= MIN_TREND and self.window is not None and self.window[1] - self.window[0] >= 2

    def coverage(self) -> str:
        """How many papers carry a year, and what that allows: "4 of 133 papers have a year (2019-2023):
        too few for a chart over time (10 needed) or trends (30 needed)"."""
        total = self.with_year + self.no_year
        span = f" ({self.years[0]}-{self.years[-1]})" if self.years else ""
        said = f"{self.with_year} of {total} papers have a year{span}"
        if self.trending:
            return said
        if self.chartable:
            return f"{said}: too few for trends ({MIN_TREND} needed over three years or more)"
        return f"{said}: too few for a chart over time ({MIN_CHART} needed) or trends ({MIN_TREND} needed)"

    def _named(self):
        """The topics whose trend may be named: enough papers with a year overall and in the window."""
        t = self.trends
        if not self.trending:
            return t.iloc[:0]
        return t[(t.topic >= 0) & (t.dated >= MIN_TOPIC_TREND)]

    def rising(self, n: int = 3):
        """The ``n`` topics whose share rises most (positive slopes only; none without enough data)."""
        t = self._named()
        return t[t.slope > 0].head(n)

    def fading(self, n: int = 3):
        t = self._named()
        return t[t.slope < 0].sort_values(["slope", "topic"]).head(n)


def _slope(shares: np.ndarray, years: np.ndarray) -> float:
    if len(years) < 2:
        return 0.0
    x = years - years.mean()
    return float((x * (shares - shares.mean())).sum() / (x * x).sum())


def _counts(years: Sequence[int | None], topics: Sequence[int]):
    import pandas as pd

    known = [y for y in years if y is not None]
    columns = list(range(min(known), max(known) + 1)) if known else []
    ids = sorted({int(t) for t in topics})
    counts = pd.DataFrame(0, index=pd.Index(ids, name="topic"), columns=[*columns, NO_YEAR], dtype=int)
    for (year, topic), n in Counter(zip(years, (int(t) for t in topics))).items():
        counts.at[topic, NO_YEAR if year is None else int(year)] = n
    return counts


def over_time(years: Sequence[int | None], topics: Sequence[int], labels: Mapping[int, str] | None = None,
              window: int = 10) -> OverTime:
    """Papers per topic per year (one ``year``, possibly None, and one ``topic`` per paper)."""
    import pandas as pd

    labels = labels or {}
    counts = _counts(years, topics)
    year_cols = [c for c in counts.columns if c != NO_YEAR]
    totals = counts[year_cols].sum(axis=0)
    shares = counts[year_cols].div(totals.where(totals > 0), axis=1).fillna(0.0)
    with_papers = [y for y in year_cols if totals[y] > 0][-window:]
    span = (with_papers[0], with_papers[-1]) if with_papers else None
    x = np.asarray(with_papers, dtype=float)
    half = len(with_papers) // 2
    rows = []
    for topic in counts.index:
        s = shares.loc[topic, with_papers].to_numpy(dtype=float) if with_papers else np.zeros(0)
        rows.append({
            "topic": int(topic), "label": labels.get(int(topic), "Unassigned" if topic < 0 else f"Topic {topic}"),
            "papers": int(counts.loc[topic].sum()), "no_year": int(counts.at[topic, NO_YEAR]),
            "dated": int(counts.loc[topic, with_papers].sum()) if with_papers else 0,
            "slope": round(100 * _slope(s, x), 3),
            "recent": round(100 * float(s[half:].mean()), 2) if len(s) else 0.0,
            "before": round(100 * float(s[:half].mean()), 2) if half else 0.0,
        })
    trends = pd.DataFrame(rows, columns=["topic", "label", "papers", "no_year", "dated", "slope", "recent", "before"])
    trends = trends.sort_values(["slope", "topic"], ascending=[False, True]).reset_index(drop=True)
    measure = TREND_MEASURE.format(window=len(with_papers), first=span[0], last=span[1]) if span else \
        "no paper has a year: no trend"
    return OverTime(counts, shares, trends, measure, span)

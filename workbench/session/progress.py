"""Progress and stopping at a glance, for the panel beside the screening card: relevant papers
found against papers read (as ASReview LAB draws it), the line a random order would be expected
to follow, and the stopping estimate as one sentence with its details on demand.

Plain Python (no ipywidgets): the screening view shows it, tests call it directly. The numbers
are :meth:`workbench.review.ReviewScreening.stopping`'s and the curve is the same screening
history it rests on (decisions made in bulk are not read, so they are not on the curve).
:class:`ProgressWatch` looks again only when the store changed, the reviewer changed, or the
review grew (a move to the next card costs nothing), and asks for the estimate only when the
screening history it rests on changed (a tag or a note costs one read of the decisions).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

__all__ = ["MAX_POINTS", "ProgressPanel", "ProgressWatch", "progress_panel"]

MAX_POINTS = 400  # points on the curve at most (a long history is thinned, its last point kept)


@dataclass(frozen=True)
class ProgressPanel:
    """What the panel shows. ``curve``: ``[read, relevant found]`` points from ``[0, 0]``;
    ``random``: the two ends of the line a random order is expected to follow (relevant papers
    in the review, estimated, spread evenly over its papers); ``sentence``: the claim in one
    sentence; ``lines``: the stopping report in full (details on demand)."""

    sentence: str
    lines: list[str]
    stop: bool
    read: int
    relevant: int
    papers: int
    bulk: int
    reviewer: str
    curve: list[list[int]] = field(default_factory=list)
    random: list[list[float]] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _curve(history) -> list[list[int]]:
    """Relevant found against papers read, from ``history`` (decisions in bulk left out)."""
    read = ~np.asarray(history.bulk, dtype=bool)
    labels = np.asarray(history.labels, dtype=np.int64)[read]
    found = np.concatenate([[0], np.cumsum(labels)])
    x = np.arange(len(found))
    if len(found) > MAX_POINTS:  # thinned evenly, the last point kept
        keep = np.unique(np.concatenate([np.linspace(0, len(found) - 1, MAX_POINTS).astype(int), [len(found) - 1]]))
        x, found = x[keep], found[keep]
    return [[int(a), int(b)] for a, b in zip(x, found)]


def _sentence(report) -> str:
    """The claim in one sentence."""
    if not report.read:
        bulk = f" ({report.bulk} decided in bulk, not counted)" if report.bulk else ""
        return f"Nothing read yet{bulk}: decide a few papers and the estimate of relevant papers left appears here."
    left = report.estimate
    found = f"{report.relevant} relevant found in {report.read} read"
    estimate = f"about {left.point:.0f} more estimated among the {report.papers - report.read} unread ({left.confidence:.0%}: {left.low}–{left.high})"
    verdict = "you may stop (the statistical rule holds)" if report.stop else "keep screening"
    bulk = f" ({report.bulk} decided in bulk, not counted as read)" if report.bulk else ""
    return f"{found}{bulk}; {estimate}: {verdict}."


def progress_panel(session, history=None) -> ProgressPanel:
    """The panel's content for ``session``'s reviewer now (nothing is logged); ``history``: the
    screening history, when the caller has read it already."""
    report = session.stopping(log=False)
    history = history if history is not None else session.saved.screening.history(store=session.store)
    curve = _curve(history)
    papers = report.papers
    random = []
    if report.read:  # relevant papers in the review, estimated: found plus the estimate of those left
        total = report.relevant + max(float(report.estimate.point), 0.0)
        random = [[0.0, 0.0], [float(papers), float(total)]]
    return ProgressPanel(sentence=_sentence(report), lines=report.lines(), stop=bool(report.stop),
                         read=report.read, relevant=report.relevant, papers=papers, bulk=report.bulk,
                         reviewer=session.reviewer or "", curve=curve, random=random)


def _history_key(history, reviewer: str) -> tuple:
    """What the estimate rests on: the decisions' labels in order, which were in bulk or in the
    random sample, the papers in the review, and whose view of the store it is."""
    return (reviewer, history.n_total, np.asarray(history.labels).tobytes(), np.asarray(history.bulk).tobytes(),
            np.asarray(history.sampled).tobytes())


class ProgressWatch:
    """:func:`progress_panel`, recomputed only when what it rests on changed: nothing is read
    while the store's latest change, the reviewer and the review's papers stay the same; after
    a change the screening history is read, and the estimate is asked for only when it differs."""

    def __init__(self, session):
        self.session = session
        self._seen = None
        self._history = None
        self.panel: ProgressPanel | None = None

    def current(self, force: bool = False) -> tuple[ProgressPanel, bool]:
        """The panel, and whether it was recomputed just now."""
        s = self.session
        seen = (s.store.latest_change(), s.reviewer, len(s.saved))
        if not force and self.panel is not None and seen == self._seen:
            return self.panel, False
        self._seen = seen
        history = s.saved.screening.history(store=s.store)
        key = _history_key(history, s.reviewer or "")
        if not force and self.panel is not None and key == self._history:
            return self.panel, False
        self.panel, self._history = progress_panel(s, history), key
        return self.panel, True

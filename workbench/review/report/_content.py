"""What the review's report says, gathered once from the review and its store.

:func:`report_content` reads everything the report shows into plain records: the title, the
screening counts per reviewer, the latest stopping claim, the included, excluded and maybe papers of the store's reviewer
with their reasons, notes and the other reviewers' decisions, and one section per topic. The
Markdown and the HTML (``_report_render``) are both written from these records, so they say the
same. Only papers of the review count; decisions on papers that left the corpus are counted
apart (``orphaned``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from ...corpus.paper import DECISIONS
from ...store import StoppingClaim
from .. import _prisma
from ._field import field_content
from ._methods import methods
from ._methods_facts import title_of
from .._review import Review
from ._screening import automation_sentences

__all__ = ["Counts", "DecidedPaper", "PaperNote", "ReportContent", "TopicSection", "report_content",
           "review_title", "topic_sections"]

DECISION_HEADINGS = {"include": "Included", "exclude": "Excluded", "maybe": "Maybe"}


@dataclass(frozen=True)
class Counts:
    """One reviewer's screening of the review's papers."""

    reviewer: str
    include: int = 0
    exclude: int = 0
    maybe: int = 0
    total: int = 0  # papers in the review

    @property
    def screened(self) -> int:
        return self.include + self.exclude + self.maybe

    @property
    def undecided(self) -> int:
        return self.total - self.screened


@dataclass(frozen=True)
class PaperNote:
    reviewer: str
    text: str


@dataclass(frozen=True)
class DecidedPaper:
    """A paper the report's reviewer decided on, with why, the notes on it and what the other
    reviewers decided (``others``: (reviewer, decision, reason))."""

    id: str
    title: str
    year: int | None
    topic: int
    topic_label: str
    reason: str | None
    notes: tuple[PaperNote, ...] = ()
    others: tuple[tuple[str, str, str | None], ...] = ()


@dataclass
class TopicSection:
    topic: int
    label: str
    size: int
    words: list[str]
    representative: list[tuple[str, str]]  # (id, title)
    included: list[tuple[str, str]]
    tagged: list[tuple[str, str, list[str]]]  # (id, title, tags)
    notes: list[tuple[str, str, PaperNote]] = field(default_factory=list)  # (id, title, note)
    counts: Counts | None = None  # the report's reviewer's screening of this topic


@dataclass
class ReportContent:
    title: str
    reviewer: str  # whose decisions the lists show
    n_papers: int
    n_topics: int
    counts: list[Counts]  # the report's reviewer first, then everyone else who decided, by name
    decided: dict[str, list[DecidedPaper]]  # include / exclude / maybe -> papers
    sections: list[TopicSection]
    disagreements: int = 0  # papers on which the reviewers' decisions differ
    orphaned: int = 0  # decisions on papers no longer in the review
    stopping: StoppingClaim | None = None  # the latest logged stopping claim
    automation: list[str] = field(default_factory=list)  # how the decisions were made (``_screening_report``)
    prisma: object = None  # workbench.team.PrismaCounts, for a review screened as a systematic review
    prisma_note: str | None = None  # why the PRISMA counts are not shown, when they do not add up
    field: object = None  # _report_field.FieldContent: over time, citation links, venues and authors
    methods: object = None  # _methods.Methods: the methods text and AI-use statement, from the log


def review_title(review: Review, store) -> str:
    """The review's title setting (``workbench title``), else the review folder's name."""
    return title_of(review, store)


def report_content(review: Review, store, n_representative: int = 3, prisma: bool | None = None) -> ReportContent:
    """Everything the report shows, for ``store``'s reviewer; ``prisma``: the PRISMA 2020 counts
    (None: when the review is screened as a systematic review, see ``_prisma.in_report``)."""
    counts, note = _prisma.in_report(review, store, prisma)
    ids = set(review.ids)
    every = store.decisions.every(all_reviewers=True)  # counted; shown: the reviewer's and what they may see
    decisions = [d for d in every if d.paper_id in ids]
    by_paper = defaultdict(list)
    for d in decisions:
        by_paper[d.paper_id].append(d)
    mine = {pid: d for pid, ds in by_paper.items() for d in ds if d.reviewer == store.reviewer}
    shown = defaultdict(list)  # the decisions the report's reviewer may see, listed beside theirs
    for d in store.decisions.every():
        shown[d.paper_id].append(d)
    sections = topic_sections(review, store, n_representative, mine)
    return ReportContent(
        title=review_title(review, store),
        reviewer=store.reviewer,
        n_papers=len(review.papers),
        n_topics=sum(s.topic >= 0 for s in sections),
        counts=_counts(decisions, store.reviewer, len(review.papers)),
        decided=_decided(review, store, mine, shown),
        sections=sections,
        disagreements=sum(len({d.decision for d in ds}) > 1 for ds in by_paper.values()),
        orphaned=len(every) - len(decisions),
        stopping=(store.stopping.claims() or [None])[-1],
        automation=automation_sentences(review, store),
        prisma=counts,
        prisma_note=note,
        field=field_content(review),
        methods=methods(review, store),
    )


def _counts(decisions, reviewer: str, total: int) -> list[Counts]:
    tally: dict[str, dict[str, int]] = {reviewer: {}}
    for d in decisions:
        tally.setdefault(d.reviewer, {})
        tally[d.reviewer][d.decision] = tally[d.reviewer].get(d.decision, 0) + 1
    order = [reviewer] + sorted(r for r in tally if r != reviewer)
    return [Counts(r, **{k: tally[r].get(k, 0) for k in DECISIONS}, total=total) for r in order]


def _decided(review: Review, store, mine: dict, by_paper: dict) -> dict[str, list[DecidedPaper]]:
    labels = review.topic_labels()
    out: dict[str, list[DecidedPaper]] = {k: [] for k in DECISIONS}
    for pid in review.ids:  # map order: stable, and the order of the other lists
        d = mine.get(pid)
        if d is None:
            continue
        paper, topic = review.papers[review.row(pid)], review.topic_of(pid)  # (its metadata: no text read)
        notes = tuple(PaperNote(n.reviewer, n.text) for n in store.notes.of(pid))
        others = tuple((o.reviewer, o.decision, o.reason) for o in by_paper[pid] if o.reviewer != d.reviewer)
        out[d.decision].append(DecidedPaper(pid, paper.title, paper.year, topic,
                                            labels.get(topic, "Unassigned"), d.reason, notes, others))
    return out


def topic_sections(review: Review, store, n_representative: int = 3, mine: dict | None = None) -> list[TopicSection]:
    """One section per topic, largest first; representative papers are nearest the topic's
    centre. ``mine``: the report's reviewer's decisions by paper (default: read from ``store``)."""
    if mine is None:
        mine = {d.paper_id: d for d in store.decisions.every() if d.reviewer == store.reviewer}
    frame = review.frame(store)
    X = review.embeddings()
    topics = review.topics.sort_values(["size", "topic"], ascending=[False, True])
    sections = []
    for row in topics.itertuples():
        members = frame[frame.topic == row.topic]
        if members.empty:
            continue
        rows = review.rows(members.id)
        centre = X[rows].mean(axis=0)
        order = np.argsort(-(X[rows] @ centre), kind="stable")[:n_representative]
        rep = [(members.id.iloc[i], members.title.iloc[i]) for i in order]
        decided = [mine[pid].decision for pid in members.id if pid in mine]
        counts = Counts(store.reviewer, **{k: decided.count(k) for k in DECISIONS}, total=len(members))
        included = [(r.id, r.title) for r in members.itertuples() if r.id in mine and mine[r.id].decision == "include"]
        tagged = [(r.id, r.title, list(r.tags)) for r in members.itertuples() if r.tags]
        notes = [(r.id, r.title, PaperNote(n.reviewer, n.text))
                 for r in members.itertuples() if r.notes for n in store.notes.of(r.id)]
        sections.append(TopicSection(int(row.topic), str(row.label), int(row.size), list(row.words)[:10],
                                     rep, included, tagged, notes, counts))
    return sections

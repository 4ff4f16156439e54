"""What the store says was decided, read for a review: each paper's status at a stage, the final
decisions, what a reviewer's ranked queue learns from, and the decisions as the review's rows.

The one place the review's parts (``_screening``, ``_stopping``, ``_team``, ``_prisma``) read
decisions from a :class:`workbench.store.Store`: the rules (which votes count, what blind mode
hides, what a merge left behind) live here once.

- :func:`screening_of`: every paper's status at a stage (conflict, agreed, awaiting, resolved).
- :func:`training_records`: what a reviewer's queue learns from (``workbench.team.blind``):
  final decisions for everyone; in blind mode only the reviewer's own decisions (another's
  would leak through the order), else also the latest by anyone.
- :class:`Decided`: the store's current decisions on the review's papers, as rows.
- :func:`papers_of`: the review's papers some ids name, checked before anything is written.
"""

from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass, replace

import numpy as np

from .. import team
from ..corpus.paper import FULL_TEXT, STAGES, TITLE_ABSTRACT
from ..errors import InputError
from ..store import ScreeningRecord, UnknownPaperError

__all__ = ["RELEVANT", "Decided", "check_stage", "final_decisions", "papers_of", "screening_of",
           "store_of", "training_records"]

#: What a decision says for the stopping rules: a maybe may be relevant, so it counts as 1.
RELEVANT = {"include": 1, "maybe": 1, "exclude": 0}

#: The screening stages in words.


def check_stage(stage) -> str:
    """``stage`` if it is one of :data:`workbench.corpus.paper.STAGES`, else an InputError."""
    if stage not in STAGES:
        raise InputError(f"stage {stage!r}: expected one of {', '.join(STAGES)}")
    return stage


def final_decisions(store, stage: str) -> list[team.FinalDecision]:
    """The store's final decisions at ``stage``."""
    return store.team.finals(stage)


def screening_of(store, stage: str = TITLE_ABSTRACT, ids=None, *, all_reviewers: bool = False) -> team.Screening:
    """Every paper's status at ``stage`` (conflict, agreed, awaiting, resolved), from every vote and
    final decision in the store, with those a merge kept on the paper merged away (only papers in
    ``ids`` when given). In blind mode each paper lists
    the votes the store's reviewer may see (a conflict: every vote, its resolver sees them side by
    side), and a paper whose votes are all hidden is left out unless resolved (that others screened
    or agreed on it is a hint: it counts in ``counts()`` only); ``all_reviewers=True``: every paper
    and vote, for which papers go on to full text (the outcome of title/abstract) and PRISMA."""
    keep = None if ids is None else set(ids)
    every = store.decisions.every(check_stage(stage), all_reviewers=True) + store.duplicates.votes_kept(stage, all_reviewers=True)  # (a merge's two votes)
    votes = [d for d in every if keep is None or d.paper_id in keep]
    finals = [f for f in final_decisions(store, stage) if keep is None or f.paper_id in keep]
    screening = team.classify(votes, finals, required=store.team.reviewers_per_paper(),
                              reasons_must_match=stage == FULL_TEXT)
    if all_reviewers or not store.team.blind:
        return screening
    shown = {(d.paper_id, d.reviewer) for d in store.decisions.every(stage)}
    papers = {pid: p if p.status == team.CONFLICT else
              replace(p, votes=tuple(v for v in p.votes if (pid, v.reviewer) in shown))
              for pid, p in screening.papers.items()}
    shown_papers = {pid: p for pid, p in papers.items() if p.votes or p.status in (team.CONFLICT, team.RESOLVED)}
    withheld = Counter(p.status for pid, p in papers.items() if pid not in shown_papers)
    return team.Screening(shown_papers, dict(withheld))


def training_records(store) -> list[ScreeningRecord]:
    """What the store's reviewer's ranked queue learns from, as screening records in the order
    made: :func:`workbench.team.training_decisions` (final decisions first; in blind mode only
    the reviewer's own votes, else also the latest by anyone), each with how it was made; not the
    votes left on a paper merged into another."""
    viewer, blind = store.reviewer, store.team.blind
    merged = store.duplicates.merged_into()  # (a vote a merge left on the paper merged away: its conflict is the kept paper's)
    records = [r for r in store.decisions.records(everyone=True, all_reviewers=True) if r.paper_id not in merged]
    finals = final_decisions(store, TITLE_ABSTRACT)
    chosen = team.training_decisions(viewer, records, finals, blind=blind)
    picked: dict[str, ScreeningRecord] = {}
    for r in records:  # in time order: the reviewer's own, else (not blind) the latest other's
        kept = picked.get(r.paper_id)
        if r.reviewer == viewer or (not blind and (kept is None or kept.reviewer != viewer)):
            picked[r.paper_id] = r
    out = [replace(r, decision=chosen[pid]) for pid, r in picked.items()]
    out += [ScreeningRecord(f.paper_id, f.resolved_by, f.decision, f.resolved_at or "", recorded=False)
            for f in finals if f.paper_id not in picked]
    return sorted(out, key=lambda r: (r.decided_at, r.paper_id))


@dataclass(frozen=True)
class Decided:
    """The store's current decisions on this review's papers, in the order made, as rows."""

    rows: np.ndarray  # every decided row, in order
    decisions: list[str]
    bulk: np.ndarray
    sampled: np.ndarray
    records: list  # the store's ScreeningRecord of each
    elsewhere: int  # decisions on papers no longer in the review (left out)

    @classmethod
    def of(cls, review, records) -> Decided:
        kept = [r for r in records if r.paper_id in review]
        return cls(np.asarray([review.row(r.paper_id) for r in kept], dtype=np.int64), [r.decision for r in kept],
                   np.asarray([r.bulk for r in kept], dtype=bool), np.asarray([r.sampled for r in kept], dtype=bool),
                   kept, len(records) - len(kept))

    def fitted(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, 0/1 labels) of the includes and excludes: what the ranker is fitted on."""
        keep = np.asarray([d != "maybe" for d in self.decisions], dtype=bool)
        labels = np.asarray([d == "include" for d in self.decisions], dtype=np.int64)
        return self.rows[keep], labels[keep]

    @property
    def maybe(self) -> np.ndarray:
        return self.rows[np.asarray([d == "maybe" for d in self.decisions], dtype=bool)]

    def counts(self, n_papers: int) -> dict:
        read = ~self.bulk
        return {"papers": n_papers, "decided": len(self.rows), "included": self.decisions.count("include"),
                "excluded": self.decisions.count("exclude"), "maybe": self.decisions.count("maybe"),
                "undecided": n_papers - len(self.rows), "read": int(read.sum()), "bulk": int(self.bulk.sum())}


def papers_of(review, store, ids) -> list[str]:
    """The review's papers ``ids`` name, each once (an id merged into another paper: the paper it
    joined, as the store resolves ids); an id not in this review is a clear error, before anything
    is written."""
    ids = [ids] if isinstance(ids, str) else list(ids)
    try:
        ids = store.resolve_ids(ids)
    except UnknownPaperError:
        pass  # the review's own message, below
    for pid in ids:
        review.row(pid)
    return ids


def store_of(review, store=None, reviewer: str | None = None):
    """A context giving the store to read and write through: ``store`` when given (a session's
    open store, left open), else the review's, opened as ``reviewer`` and closed after."""
    if store is not None:
        if reviewer is not None and reviewer != store.reviewer:
            raise InputError(f"reviewer {reviewer!r} given with a store open as {store.reviewer!r}; give one of them")
        return nullcontext(store)
    return review.store(reviewer)

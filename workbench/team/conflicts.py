"""Which papers the reviewers agree on, which are conflicts, which still need a second screen,
and the final decision that settles a paper.

At one stage (title/abstract, or full text), each paper has a vote per reviewer who screened it
(:class:`~workbench.team.votes.Vote`) and at most one :class:`FinalDecision`. Its status:

- ``resolved``: a final decision was recorded (whatever the votes say): it is the paper's decision;
- ``conflict``: ``required`` or more reviewers voted and their decisions differ. Any difference
  counts, so include vs maybe is a conflict as well as include vs exclude; with
  ``reasons_must_match`` (the full-text stage, where the exclusion reason goes into PRISMA),
  two excludes with different reasons are a conflict too;
- ``agreed``: ``required`` or more reviewers voted and all gave the same decision (which may be
  "maybe": agreed, but not yet settled for PRISMA, see :attr:`PaperStatus.settled`);
- ``awaiting``: fewer than ``required`` reviewers voted: the paper lacks a second screen.

A final decision is stale when a vote changed after it was recorded (``decided_at`` later than
``resolved_at``): the faces should show it, and the resolver may look again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import InputError
from ..corpus.paper import DECISIONS, FinalDecision
from .votes import Vote, as_votes, by_paper

__all__ = [
    "AGREED",
    "AWAITING",
    "CONFLICT",
    "RESOLVED",
    "STATUSES",
    "FinalDecision",
    "PaperStatus",
    "Screening",
    "classify",
    "resolve",
]

RESOLVED, CONFLICT, AGREED, AWAITING = "resolved", "conflict", "agreed", "awaiting"
STATUSES = (RESOLVED, CONFLICT, AGREED, AWAITING)


def _same_reason(a: str | None, b: str | None) -> bool:
    return " ".join((a or "").split()).casefold() == " ".join((b or "").split()).casefold()


@dataclass(frozen=True)
class PaperStatus:
    """One paper at one stage: its status, the reviewers' votes (by reviewer name) and its final
    decision, if any. ``agreed`` is the decision the reviewers agreed on (status ``agreed``), kept
    apart from the votes so that a view may leave out votes blind mode hides."""

    paper_id: str
    status: str
    votes: tuple[Vote, ...]
    final: FinalDecision | None = None
    agreed: str | None = None

    @property
    def decision(self) -> str | None:
        """The paper's decision: the final one, else the one the reviewers agreed on, else None."""
        if self.final is not None:
            return self.final.decision
        if self.status != AGREED:
            return None
        return self.agreed if self.agreed is not None else self.votes[0].decision

    @property
    def settled(self) -> bool:
        """Decided for good: resolved, or agreed on include or exclude (an agreed maybe is not)."""
        return self.decision is not None and (self.final is not None or self.decision != "maybe")

    @property
    def stale(self) -> bool:
        """A vote was changed after the final decision was recorded."""
        if self.final is None or self.final.resolved_at is None:
            return False
        return any(v.decided_at is not None and v.decided_at > self.final.resolved_at for v in self.votes)

    @property
    def reviewers(self) -> tuple[str, ...]:
        return tuple(v.reviewer for v in self.votes)


def _status(votes: tuple[Vote, ...], final, required: int, reasons_must_match: bool) -> str:
    if final is not None:
        return RESOLVED
    if len(votes) < required:
        return AWAITING
    if len({v.decision for v in votes}) > 1:
        return CONFLICT
    same_reasons = all(_same_reason(v.reason, votes[0].reason) for v in votes)
    if reasons_must_match and votes[0].decision == "exclude" and not same_reasons:
        return CONFLICT
    return AGREED


def _finals_by_paper(finals: Iterable[FinalDecision]) -> dict[str, FinalDecision]:
    out: dict[str, FinalDecision] = {}
    for number, final in enumerate(finals, start=1):
        if not isinstance(final, FinalDecision):
            raise InputError(f"final decision {number} {final!r}: expected a FinalDecision")
        if final.paper_id in out:
            raise InputError(f"final decision {number}: paper {final.paper_id} has two final decisions; "
                             "pass one stage's final decisions, the current one per paper")
        out[final.paper_id] = final
    return out


@dataclass(frozen=True)
class Screening:
    """Every paper's :class:`PaperStatus` at one stage, in the order the papers were first seen.

    ``withheld``: papers left out of ``papers`` for one reader (blind mode), by status; they count
    in :meth:`counts` (the team's figures) and nowhere else."""

    papers: dict[str, PaperStatus] = field(default_factory=dict)
    withheld: dict[str, int] = field(default_factory=dict)

    def with_status(self, status: str) -> list[PaperStatus]:
        if status not in STATUSES:
            raise InputError(f"status {status!r}: expected one of {', '.join(STATUSES)}")
        return [p for p in self.papers.values() if p.status == status]

    def conflicts(self) -> list[PaperStatus]:
        """Papers on which the reviewers disagree and nobody has resolved (the conflicts queue)."""
        return self.with_status(CONFLICT)

    def agreed(self) -> list[PaperStatus]:
        return self.with_status(AGREED)

    def awaiting(self) -> list[PaperStatus]:
        """Papers that fewer than the required number of reviewers screened."""
        return self.with_status(AWAITING)

    def resolved(self) -> list[PaperStatus]:
        return self.with_status(RESOLVED)

    def counts(self) -> dict[str, int]:
        """Papers per status, every status present (0 when none)."""
        found = Counter(p.status for p in self.papers.values())
        found.update(self.withheld)
        return {s: found[s] for s in STATUSES}

    def decisions(self) -> dict[str, str]:
        """The settled papers' decisions (resolved, or agreed on include/exclude): what trains
        everyone's ranking once conflicts are resolved, and what PRISMA counts."""
        return {pid: p.decision for pid, p in self.papers.items() if p.settled}


def classify(rows: Iterable, finals: Iterable[FinalDecision] = (), *, required: int = 2,
             reasons_must_match: bool = False) -> Screening:
    """Each paper's status from one stage's votes (rows as :func:`~workbench.team.votes.as_votes`
    reads them) and final decisions. ``required`` is how many reviewers must screen a paper
    (2 for double screening, 1 for single screening). Papers with a final decision but no vote
    are included (a resolver may settle a paper nobody screened)."""
    if not isinstance(required, int) or required < 1:
        raise InputError(f"required={required!r}: expected the number of reviewers per paper (1 or more)")
    table = by_paper(as_votes(rows))
    settled = _finals_by_paper(finals)
    papers = {}
    for pid in [*table, *(p for p in settled if p not in table)]:
        votes = tuple(table.get(pid, {}).values())
        final = settled.get(pid)
        status = _status(votes, final, required, reasons_must_match)
        papers[pid] = PaperStatus(pid, status, votes, final, votes[0].decision if status == AGREED else None)
    return Screening(papers)


def resolve(paper: PaperStatus, decision: str, *, by: str, reason: str | None = None,
            at: str | None = None, stage: str | None = None) -> FinalDecision:
    """The final decision that settles ``paper``: ``decision`` recorded by reviewer ``by``, with
    ``reason`` (why; the exclusion reason when it excludes). The caller stores it."""
    if decision not in DECISIONS:
        raise InputError(f"final decision {decision!r} on paper {paper.paper_id}: expected one of "
                         f"{', '.join(DECISIONS)}")
    if not isinstance(by, str) or not by.strip():
        raise InputError(f"final decision on paper {paper.paper_id}: by={by!r}; name the reviewer who resolves it")
    if reason is not None and not isinstance(reason, str):
        raise InputError(f"final decision on paper {paper.paper_id}: reason {reason!r}; expected text or None")
    return FinalDecision(paper.paper_id, decision, by.strip(), (reason or "").strip() or None, at, stage)

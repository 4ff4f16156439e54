"""One reviewer's decision on one paper, as the team statistics read it.

The agreement statistics, the conflicts queue and the blind-mode rules all start from the same
rows: who decided what about which paper (at one stage: title/abstract or full text). Rows come
from the store (its ``Decision`` objects), from an imported JSONL file or from a test, so
:func:`as_votes` accepts any of these shapes and checks them once:

- an object with ``paper_id``, ``reviewer`` and ``decision`` attributes (``reason`` and
  ``decided_at`` when it has them), such as the store's ``Decision``;
- a mapping with the same keys (``paper`` is accepted for ``paper_id``);
- a tuple ``(paper, reviewer, decision[, reason[, decided_at]])``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InputError
from ..corpus.paper import DECISIONS

__all__ = ["Vote", "as_votes", "by_paper"]


@dataclass(frozen=True)
class Vote:
    """``reviewer``'s current ``decision`` on ``paper_id`` at one stage, with its reason and time
    (ISO 8601 text, as the store writes it; None when unknown)."""

    paper_id: str
    reviewer: str
    decision: str
    reason: str | None = None
    decided_at: str | None = None


def _field(row, name: str, alias: str | None = None):
    if isinstance(row, Mapping):
        if name in row:
            return row[name]
        return row.get(alias) if alias else None
    return getattr(row, name, None)


def _as_vote(row, number: int) -> Vote:
    if isinstance(row, Vote):
        return row
    if isinstance(row, tuple):
        if not 3 <= len(row) <= 5:
            raise InputError(f"decision row {number} {row!r}: expected (paper, reviewer, decision"
                             "[, reason[, decided_at]]); pass 3 to 5 values")
        return Vote(*row)
    return Vote(paper_id=_field(row, "paper_id", "paper"), reviewer=_field(row, "reviewer"),
                decision=_field(row, "decision"), reason=_field(row, "reason"),
                decided_at=_field(row, "decided_at"))


def as_votes(rows: Iterable, categories: tuple[str, ...] = DECISIONS) -> list[Vote]:
    """The rows as :class:`Vote` objects, checked: every vote names a paper and a reviewer, its
    decision is one of ``categories``, and no reviewer decides a paper twice (pass one stage's
    current decisions at a time). Raises :class:`~workbench.errors.InputError` naming the row."""
    votes, seen = [], {}
    for number, row in enumerate(rows, start=1):
        vote = _as_vote(row, number)
        for name in ("paper_id", "reviewer"):
            value = getattr(vote, name)
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"decision row {number} {row!r}: {name} {value!r} is not a name; "
                                 f"every decision needs a {name.replace('_id', '')} (a reviewer must be named)")
        if vote.decision not in categories:
            raise InputError(f"decision row {number} {row!r}: decision {vote.decision!r} is not one of "
                             f"{', '.join(categories)}; map it to one of these first")
        key = (vote.paper_id, vote.reviewer)
        if key in seen:
            raise InputError(f"decision row {number}: {vote.reviewer} decided paper {vote.paper_id} twice "
                             f"(rows {seen[key]} and {number}); pass one stage's current decisions at a time")
        seen[key] = number
        votes.append(vote)
    return votes


def by_paper(votes: Iterable[Vote]) -> dict[str, dict[str, Vote]]:
    """``{paper_id: {reviewer: vote}}``, papers and reviewers in the order first seen."""
    table: dict[str, dict[str, Vote]] = {}
    for vote in votes:
        table.setdefault(vote.paper_id, {})[vote.reviewer] = vote
    return table

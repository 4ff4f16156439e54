"""The PRISMA counts from what the store holds: the two stages' screening and the build report.

:func:`prisma_counts` is where the rules of counting live, so the store only has to hand over
rows:

- a record is *screened* at title/abstract once it is settled there (resolved, or agreed on
  include or exclude by the required number of reviewers); every other record after duplicate
  removal is *awaiting* (not screened, lacking a second screen, an unresolved conflict or an
  agreed "maybe");
- a settled exclusion is *excluded*, under its reason: the final decision's reason, else the
  reason the reviewers share, else :data:`SEVERAL_REASONS` (none given: :data:`NO_REASON`);
- every other settled record (include, or a resolved "maybe") is a report *sought* for retrieval;
- at full text, a settled exclusion with the reason :data:`NOT_RETRIEVED` is *not retrieved*;
  other settled includes and excludes are *assessed*; sought reports without either are awaiting;
- an assessed include is a study included (one report per study: the workbench has no links
  between reports of one study yet).

Records found by other methods (citation searching, websites, organisations) are counted apart,
in PRISMA 2020's right-hand column (:func:`other_methods`): identified per method; *sought* are
those settled at title/abstract as anything but an exclusion (the template draws no screening
box there, so records a person set aside at title/abstract, or not yet screened, are identified
but not sought); then not retrieved, assessed, excluded per reason and awaiting at full text, as
in the main column.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from ..errors import InputError
from ..corpus.paper import NOT_RETRIEVED  # the full-text reason: the report could not be obtained
from .conflicts import PaperStatus, Screening
from .prisma import OtherMethods, PrismaCounts

__all__ = ["NOT_RETRIEVED", "NO_REASON", "SEVERAL_REASONS", "Identified", "exclusion_reason", "other_methods",
           "prisma_counts"]

NO_REASON = "no reason given"
SEVERAL_REASONS = "reviewers gave different reasons"


@dataclass(frozen=True)
class Identified:
    """PRISMA 2020's identification box: records identified per database and per register
    (source name -> records, before anything was removed), and the records removed before
    screening: duplicates, and for other reasons (unreadable, say)."""

    databases: Mapping[str, int]
    registers: Mapping[str, int] = field(default_factory=dict)
    duplicates_removed: int = 0
    removed_other: int = 0

    def more_duplicates(self, n: int) -> Identified:
        """The same identification with ``n`` more duplicates removed (papers people merged)."""
        return replace(self, duplicates_removed=self.duplicates_removed + n)


def exclusion_reason(paper: PaperStatus) -> str:
    """The reason a settled exclusion is counted under (see the module's rules)."""
    if paper.final is not None:
        return paper.final.reason or NO_REASON
    reasons = [" ".join((v.reason or "").split()) for v in paper.votes]
    if len({r.casefold() for r in reasons}) > 1:
        return SEVERAL_REASONS
    return reasons[0] if reasons and reasons[0] else NO_REASON  # as the first reviewer wrote it


def _settled(screening: Screening, decision: str) -> list[PaperStatus]:
    return [p for p in screening.papers.values() if p.settled and p.decision == decision]


def _full_text(full_text: Screening, sought: set[str]) -> tuple[Counter, Counter, int]:
    """(excluded reasons, not retrieved and included counts, awaiting) of the sought reports."""
    excluded, outcome = Counter(), Counter()
    for paper in full_text.papers.values():
        if paper.paper_id not in sought or not paper.settled or paper.decision == "maybe":
            continue
        if paper.decision == "include":
            outcome["included"] += 1
        elif exclusion_reason(paper).casefold() == NOT_RETRIEVED:
            outcome["not retrieved"] += 1
        else:
            excluded[exclusion_reason(paper)] += 1
    awaiting = len(sought) - sum(outcome.values()) - sum(excluded.values())
    return excluded, outcome, awaiting


def other_methods(identified: Mapping[str, int], title_abstract: Screening, full_text: Screening) -> OtherMethods:
    """The other-methods column (see the module's rules): ``identified``, records per method;
    ``title_abstract``/``full_text``: the classified screening of the papers those methods
    brought (and only those)."""
    sought = {p.paper_id for p in title_abstract.papers.values() if p.settled and p.decision != "exclude"}
    excluded, outcome, awaiting = _full_text(full_text, sought)
    return OtherMethods(identified=dict(identified), sought=len(sought), not_retrieved=outcome["not retrieved"],
                        assessed=outcome["included"] + sum(excluded.values()), excluded=dict(excluded),
                        awaiting=awaiting)


def prisma_counts(*, records: Iterable[str], identified: Identified, title_abstract: Screening,
                  full_text: Screening, ranked: Iterable[str] | None = None, other: OtherMethods | None = None,
                  previous_studies: int | None = None, previous_reports: int | None = None) -> PrismaCounts:
    """The counts of the flow diagram, checked.

    ``records``: the ids of the records left after duplicates (and others) were removed, i.e. the
    papers of the review; ``identified``: records identified per source (before removal) and
    those removed before screening; ``title_abstract``/``full_text``:
    :func:`~workbench.team.conflicts.classify` of each stage; ``ranked``: ids of the papers whose
    title/abstract decision was made with the ranked queue on (None: not recorded); ``other``:
    the other methods' column; ``previous_studies``/``previous_reports``: those of the review's
    previous version (an updated review's diagram)."""
    ids = set(records)
    strays = [pid for pid in title_abstract.papers if pid not in ids]
    if strays:
        raise InputError(f"{len(strays)} screened papers are not among the records (e.g. {strays[0]}); "
                         "pass the ids of every paper in the review as records=")
    excluded = _settled(title_abstract, "exclude")
    sought = {p.paper_id for p in title_abstract.papers.values() if p.settled and p.decision != "exclude"}
    reasons = Counter(exclusion_reason(p) for p in excluded)
    ft_excluded, outcome, ft_awaiting = _full_text(full_text, sought)
    screened = len(excluded) + len(sought)
    return PrismaCounts(
        databases=dict(identified.databases), registers=dict(identified.registers),
        duplicates_removed=identified.duplicates_removed, removed_other=identified.removed_other,
        records_screened=screened, records_awaiting=len(ids) - screened,
        records_excluded=len(excluded), excluded_reasons=dict(reasons) if set(reasons) != {NO_REASON} else {},
        excluded_ranked=None if ranked is None else len({p.paper_id for p in excluded} & set(ranked)),
        reports_sought=len(sought), reports_not_retrieved=outcome["not retrieved"], reports_awaiting=ft_awaiting,
        reports_assessed=outcome["included"] + sum(ft_excluded.values()), reports_excluded=dict(ft_excluded),
        studies_included=outcome["included"] + (other.included if other else 0), other=other,
        previous_studies=previous_studies, previous_reports=previous_reports,
    ).check()

"""Reviewing as a team, on a review: conflicts and their resolution, agreement, PRISMA 2020, blind
mode, importing a colleague's work, and what each reviewer's ranked queue learns from.

The glue between :mod:`workbench.team` (the rules: agreement statistics, conflicts, the blind
rule, the PRISMA counting; no database) and :mod:`workbench.store` (the votes, final decisions,
settings and sources). :class:`ReviewTeam` is the review's part (``review.team``); the
functions taking a store (``_decisions.screening_of``, :func:`import_annotations`) also serve the
command line. What each reviewer's ranked queue learns from is ``_decisions.training_records``.

Only papers of the review count (decisions on papers that left the corpus are left out). The
number of reviewers each paper needs is the store's ``reviewers_per_paper`` (2 in blind mode);
at full text two exclusions with different reasons are a conflict too, as in Covidence.
"""

from __future__ import annotations

from dataclasses import replace

from .. import team
from ..corpus.paper import DECISIONS, STAGE_NAMES, STAGES, TITLE_ABSTRACT
from . import _prisma
from ._decisions import check_stage, papers_of, screening_of, store_of

__all__ = ["ReviewTeam", "import_annotations", "screening_of"]


def _line(paper: team.PaperStatus, stage: str) -> str:
    votes = "; ".join(f"{v.reviewer}: {v.decision}" + (f" ({v.reason})" if v.reason else "") for v in paper.votes)
    return f"{paper.paper_id} at {STAGE_NAMES[stage]}: {votes}"


def import_annotations(store, path, allow_orphans: bool = False) -> object:
    """Merge a JSONL export into ``store`` (``store.files.import_annotations``; an
    export of mostly other papers needs ``allow_orphans``): different reviewers' decisions are
    kept side by side; the report also lists the papers the import touched on which the
    reviewers now disagree (the conflicts to resolve)."""
    report = store.files.import_annotations(path, allow_orphans=allow_orphans)
    lines = []
    for stage in STAGES:
        touched = {pid for pid, s in report.decided if s == stage}
        if touched:
            lines += [_line(p, stage) for p in screening_of(store, stage, touched).conflicts()]
    return replace(report, disagreements=tuple(lines))


class ReviewTeam:
    """A review screened as a team (``review.team``): every paper's status at a stage, the
    conflicts and their resolution, agreement, what a reviewer may see in blind mode, PRISMA
    2020, and a colleague's work imported (see the module).

    Each method reads and writes the review's store as ``reviewer``/``viewer`` (default: the
    store's), or through ``store``, a store already open (a session's)."""

    def __init__(self, review):
        self.review = review

    def __repr__(self) -> str:
        return f"<ReviewTeam of {self.review!r}>"

    def status(self, stage: str = TITLE_ABSTRACT, *, all_reviewers: bool = False, store=None) -> team.Screening:
        """Every paper's status at ``stage``: ``.conflicts()``, ``.agreed()``, ``.awaiting()``,
        ``.resolved()``, ``.counts()``, ``.decisions()`` (the settled ones); in blind mode as the
        store's reviewer may see it (see ``_decisions.screening_of``; ``all_reviewers=True``: all)."""
        with store_of(self.review, store) as opened:
            return screening_of(opened, stage, self.review.ids, all_reviewers=all_reviewers)

    def conflicts(self, stage: str = TITLE_ABSTRACT, *, store=None) -> list[team.PaperStatus]:
        """The conflicts queue: papers whose reviewers disagree (include vs maybe too; at full text
        also two exclusions with different reasons) and nobody resolved; each with every
        reviewer's vote (decision, reason, time) side by side."""
        return self.status(stage, store=store).conflicts()

    def resolve(self, paper: str, decision: str, reason: str | None = None, *, stage: str = TITLE_ABSTRACT,
                reviewer: str | None = None, store=None) -> team.FinalDecision:
        """Settle ``paper`` at ``stage`` with a final ``decision``, recorded as resolved by
        ``reviewer`` (a voter or a third person), with why (for an exclusion: the reason PRISMA
        counts) and when. One ``undo`` takes it back. Final decisions train everyone's queue."""
        with store_of(self.review, store, reviewer) as opened:
            (paper,) = papers_of(self.review, opened, [paper])  # before anything is written
            final = opened.team.set_final(paper, decision, reason, stage=check_stage(stage))
        return final

    def agreement(self, stage: str = TITLE_ABSTRACT) -> team.AgreementReport:
        """Agreement per pair of reviewers on the papers both screened at ``stage`` (Cohen's kappa,
        Gwet's AC1, raw agreement, the overlap), and Krippendorff's alpha across all of them.
        At full text the scale is include / exclude."""
        categories = DECISIONS if check_stage(stage) == TITLE_ABSTRACT else ("include", "exclude")
        ids = set(self.review.ids)
        with self.review.store() as store:  # every vote is counted; only the statistics are returned
            votes = [d for d in store.decisions.every(stage, all_reviewers=True) if d.paper_id in ids]
        return team.agreement(votes, categories)

    def prisma(self, folder=None, *, write: bool = True, previous_studies: int | None = None,
               update: bool | None = None) -> team.PrismaCounts:
        """The PRISMA 2020 flow diagram's counts from the build's sources (records identified per
        database and register, duplicates and unusable records removed) and the store (both
        screening stages, the final decisions, the decisions' recorded ranks), checked; with
        ``write``, drawn to ``prisma.svg`` and ``prisma.png`` in ``folder`` (default
        ``<review>/report``). A review updated since its build gets the updated-review diagram of
        its latest update (previous studies, new records per source, new duplicates, new records
        screened...); ``update=False`` draws the plain one over every record, ``update=True``
        insists on the updated one (see ``_prisma``)."""
        with self.review.store() as store:
            counts = _prisma.counts(self.review, store, previous_studies, update)
        if write:
            _prisma.write_diagram(counts, folder if folder is not None else self.review.path / "report")
        return counts

    def visible(self, paper: str, viewer: str | None = None, *, stage: str = TITLE_ABSTRACT,
                resolving: bool = False, store=None) -> team.PaperView:
        """What ``viewer`` (default: the store's reviewer) may see of ``paper`` at ``stage``:
        decisions (``Decision`` by reviewer), tags (names by reviewer) and notes (``Note`` lists
        by reviewer), by the blind rule of :func:`workbench.team.visible_to` (everything when the
        review is not blind; ``resolving``: the viewer is resolving its conflict, which opens a
        paper only while it is a conflict)."""
        with store_of(self.review, store, viewer) as opened:
            (paper,) = papers_of(self.review, opened, [paper])
            if resolving and opened.team.blind:  # only a conflict's resolver sees every reviewer's work on it
                status = screening_of(opened, check_stage(stage), [paper], all_reviewers=True).papers.get(paper)
                resolving = status is not None and status.status == team.CONFLICT
            # every reviewer's work, to which team.visible_to applies the blind rule (with ``resolving``)
            decisions = {d.reviewer: d for d in opened.decisions.votes(paper, stage=check_stage(stage), all_reviewers=True)}
            return team.visible_to(opened.reviewer, decisions=decisions,
                                   tags=opened.tags.by_reviewer(paper, all_reviewers=True),
                                   notes=opened.notes.by_reviewer(paper, all_reviewers=True), blind=opened.team.blind,
                                   final=opened.team.final(paper, stage=stage), resolving=resolving)

    def import_annotations(self, path, reviewer: str | None = None, *, allow_orphans: bool = False):
        """Merge a colleague's JSONL export (:func:`import_annotations`): what it added, the
        conflicts of the same reviewer's edits, and the papers the reviewers now disagree on. An
        export whose papers are mostly not in this review is refused unless ``allow_orphans``."""
        with self.review.store(reviewer) as store:
            return import_annotations(store, path, allow_orphans)

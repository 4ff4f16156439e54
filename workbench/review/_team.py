"""Reviewing as a team, on a review: conflicts and their resolution, agreement, PRISMA 2020, blind
mode, importing a colleague's work, and what each reviewer's ranked queue learns from.

The glue between :mod:`workbench.team` (the rules: agreement statistics, conflicts, the blind
rule, the PRISMA counting; no database) and :mod:`workbench.store` (the votes, final decisions,
settings and sources). :class:`TeamReview` holds the :class:`~workbench.review.Review` methods;
the functions taking a store (:func:`screening_of`, :func:`import_annotations`) also serve the
command line. What each reviewer's ranked queue learns from is ``_screening.training_records``.

Only papers of the review count (decisions on papers that left the corpus are left out). The
number of reviewers each paper needs is the store's ``reviewers_per_paper`` (2 in blind mode);
at full text two exclusions with different reasons are a conflict too, as in Covidence.
"""

from __future__ import annotations

from dataclasses import replace

from .. import team
from ..errors import InputError
from ..corpus.paper import DECISIONS, FULL_TEXT, STAGES, TITLE_ABSTRACT
from . import _prisma, _screening
from ._screening import final_decisions, papers_of
from ._settled import screening_of

__all__ = ["TeamReview", "final_decisions", "import_annotations", "screening_of"]

_STAGE_NAMES = {TITLE_ABSTRACT: "title/abstract", FULL_TEXT: "full text"}


def _stage(stage) -> str:
    if stage not in STAGES:
        raise InputError(f"stage {stage!r}: expected one of {', '.join(STAGES)}")
    return stage


def _line(paper: team.PaperStatus, stage: str) -> str:
    votes = "; ".join(f"{v.reviewer}: {v.decision}" + (f" ({v.reason})" if v.reason else "") for v in paper.votes)
    return f"{paper.paper_id} at {_STAGE_NAMES[stage]}: {votes}"


def import_annotations(store, path, allow_orphans: bool = False) -> object:
    """Merge a JSONL export into ``store`` (:meth:`workbench.store.Store.import_annotations`; an
    export of mostly other papers needs ``allow_orphans``): different reviewers' decisions are
    kept side by side; the report also lists the papers the import touched on which the
    reviewers now disagree (the conflicts to resolve)."""
    report = store.import_annotations(path, allow_orphans=allow_orphans)
    lines = []
    for stage in STAGES:
        touched = {pid for pid, s in report.decided if s == stage}
        if touched:
            lines += [_line(p, stage) for p in screening_of(store, stage, touched).conflicts()]
    return replace(report, disagreements=tuple(lines))


class TeamReview:
    """The :class:`~workbench.review.Review` methods of reviewing as a team (see the module)."""

    def screening(self, stage: str = TITLE_ABSTRACT, *, all_reviewers: bool = False) -> team.Screening:
        """Every paper's status at ``stage``: ``.conflicts()``, ``.agreed()``, ``.awaiting()``,
        ``.resolved()``, ``.counts()``, ``.decisions()`` (the settled ones); in blind mode as the
        store's reviewer may see it (see :func:`screening_of`; ``all_reviewers=True``: all)."""
        with self.store() as store:
            return screening_of(store, stage, self.ids, all_reviewers=all_reviewers)

    def conflicts(self, stage: str = TITLE_ABSTRACT) -> list[team.PaperStatus]:
        """The conflicts queue: papers whose reviewers disagree (include vs maybe too; at full text
        also two exclusions with different reasons) and nobody resolved; each with every
        reviewer's vote (decision, reason, time) side by side."""
        return self.screening(stage).conflicts()

    def resolve(self, paper: str, decision: str, reason: str | None = None, *, stage: str = TITLE_ABSTRACT,
                reviewer: str | None = None) -> team.FinalDecision:
        """Settle ``paper`` at ``stage`` with a final ``decision``, recorded as resolved by
        ``reviewer`` (a voter or a third person), with why (for an exclusion: the reason PRISMA
        counts) and when. One ``undo`` takes it back. Final decisions train everyone's queue."""
        with self.store(reviewer) as store:
            (paper,) = papers_of(self, store, [paper])  # before anything is written
            final = store.set_final(paper, decision, reason, stage=_stage(stage))
        return team.FinalDecision(final.paper_id, final.decision, final.resolved_by, final.reason,
                                  final.resolved_at, final.stage)

    def agreement(self, stage: str = TITLE_ABSTRACT) -> team.AgreementReport:
        """Agreement per pair of reviewers on the papers both screened at ``stage`` (Cohen's kappa,
        Gwet's AC1, raw agreement, the overlap), and Krippendorff's alpha across all of them.
        At full text the scale is include / exclude."""
        categories = DECISIONS if _stage(stage) == TITLE_ABSTRACT else ("include", "exclude")
        ids = set(self.ids)
        with self.store() as store:  # every vote is counted; only the statistics are returned
            votes = [d for d in store.every_decision(stage, all_reviewers=True) if d.paper_id in ids]
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
        with self.store() as store:
            counts = _prisma.counts(self, store, previous_studies, update)
        if write:
            _prisma.write_diagram(counts, folder if folder is not None else self.path / "report")
        return counts

    def visible(self, paper: str, viewer: str | None = None, *, stage: str = TITLE_ABSTRACT,
                resolving: bool = False) -> team.PaperView:
        """What ``viewer`` (default: the store's reviewer) may see of ``paper`` at ``stage``:
        decisions (``Decision`` by reviewer), tags (names by reviewer) and notes (``Note`` lists
        by reviewer), by the blind rule of :func:`workbench.team.visible_to` (everything when the
        review is not blind; ``resolving``: the viewer is resolving its conflict, which opens a
        paper only while it is a conflict)."""
        with self.store(viewer) as store:
            (paper,) = papers_of(self, store, [paper])
            if resolving and store.blind:  # only a conflict's resolver sees every reviewer's work on it
                status = screening_of(store, _stage(stage), [paper], all_reviewers=True).papers.get(paper)
                resolving = status is not None and status.status == team.CONFLICT
            # every reviewer's work, to which team.visible_to applies the blind rule (with ``resolving``)
            decisions = {d.reviewer: d for d in store.votes(paper, stage=_stage(stage), all_reviewers=True)}
            return team.visible_to(store.reviewer, decisions=decisions,
                                   tags=store.tags_by_reviewer(paper, all_reviewers=True),
                                   notes=store.notes_by_reviewer(paper, all_reviewers=True), blind=store.blind,
                                   final=store.final(paper, stage=stage), resolving=resolving)

    def decide(self, ids, decision: str, reason: str | None = None, *, ranking=None, bulk: bool | None = None,
               reviewer: str | None = None, stage: str = TITLE_ABSTRACT) -> int:
        """A person's decision on one paper or many at ``stage``, recorded with the rank, score and
        model that ``ranking`` showed (none without one); ``bulk``: default, several papers. At
        full text (include, exclude with a reason, or ``"not retrieved"``) only papers included at
        title/abstract (settled: agreed or resolved) can be decided."""
        if _stage(stage) == FULL_TEXT:
            with self.store(reviewer) as store:
                ids = papers_of(self, store, ids)
            settled = self.screening(TITLE_ABSTRACT, all_reviewers=True).decisions()
            waiting = [pid for pid in ids if settled.get(pid) not in ("include", "maybe")]
            if waiting:
                raise InputError(f"{len(waiting)} papers (e.g. {waiting[0]}) are not included at title/abstract "
                                 "(not screened by enough reviewers, excluded, or an unresolved conflict); "
                                 "only those go on to full text; see Review.screening('title_abstract')")
        return _screening.decide(self, ids, decision, reason, ranking, bulk, reviewer, stage)

    def import_annotations(self, path, reviewer: str | None = None, *, allow_orphans: bool = False):
        """Merge a colleague's JSONL export (:func:`import_annotations`): what it added, the
        conflicts of the same reviewer's edits, and the papers the reviewers now disagree on. An
        export whose papers are mostly not in this review is refused unless ``allow_orphans``."""
        with self.store(reviewer) as store:
            return import_annotations(store, path, allow_orphans)

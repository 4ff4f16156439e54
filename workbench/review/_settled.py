"""Each paper's status at a screening stage (conflict, agreed, awaiting, resolved), from the
store's votes and final decisions, as the store's reader may see it: :func:`screening_of`, the
one route by which the review's faces, its PRISMA counts, its methods text and snowballing learn
which papers are settled (and how)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from .. import team
from ..corpus.paper import FULL_TEXT, STAGES, TITLE_ABSTRACT
from ..errors import InputError
from ._screening import final_decisions

__all__ = ["screening_of"]


def _stage(stage) -> str:
    if stage not in STAGES:
        raise InputError(f"stage {stage!r}: expected one of {', '.join(STAGES)}")
    return stage


def screening_of(store, stage: str = TITLE_ABSTRACT, ids=None, *, all_reviewers: bool = False) -> team.Screening:
    """Every paper's status at ``stage`` (conflict, agreed, awaiting, resolved), from every vote and
    final decision in the store, with those a merge kept on the paper merged away (only papers in
    ``ids`` when given). In blind mode each paper lists
    the votes the store's reviewer may see (a conflict: every vote, its resolver sees them side by
    side), and a paper whose votes are all hidden is left out unless resolved (that others screened
    or agreed on it is a hint: it counts in ``counts()`` only); ``all_reviewers=True``: every paper
    and vote, for which papers go on to full text (the outcome of title/abstract) and PRISMA."""
    keep = None if ids is None else set(ids)
    every = store.every_decision(_stage(stage), all_reviewers=True) + store.votes_kept(stage, all_reviewers=True)  # (a merge's two votes)
    votes = [d for d in every if keep is None or d.paper_id in keep]
    finals = [f for f in final_decisions(store, stage) if keep is None or f.paper_id in keep]
    screening = team.classify(votes, finals, required=store.reviewers_per_paper(),
                              reasons_must_match=stage == FULL_TEXT)
    if all_reviewers or not store.blind:
        return screening
    shown = {(d.paper_id, d.reviewer) for d in store.every_decision(stage)}
    papers = {pid: p if p.status == team.CONFLICT else
              replace(p, votes=tuple(v for v in p.votes if (pid, v.reviewer) in shown))
              for pid, p in screening.papers.items()}
    shown_papers = {pid: p for pid, p in papers.items() if p.votes or p.status in (team.CONFLICT, team.RESOLVED)}
    withheld = Counter(p.status for pid, p in papers.items() if pid not in shown_papers)
    return team.Screening(shown_papers, dict(withheld))

"""Reviewing as a team: agreement between reviewers, conflicts and final decisions, what blind
mode lets a reviewer see, and the PRISMA 2020 flow diagram.

Pure functions and plain dataclasses: they take decisions as rows (from the store, an import or a
test) and counts, and never open the store themselves, so the store, the command line and the
widgets can all call them. matplotlib is imported only when a diagram is drawn.
"""

from __future__ import annotations

from .agreement import (
    AgreementReport, PairAgreement, Statistic, agreement, cohen_kappa, gwet_ac1, nominal_alpha,
    pair_agreement, raw_agreement
)
from .blind import PaperView, training_decisions, visible_to
from .conflicts import (
    AGREED, AWAITING, CONFLICT, RESOLVED, STATUSES, FinalDecision, PaperStatus, Screening,
    classify, resolve
)
from .flow import NO_REASON, NOT_RETRIEVED, SEVERAL_REASONS, Identified, exclusion_reason, other_methods, prisma_counts
from .diagram import render_diagram
from .prisma import OtherMethods, PrismaCheckError, PrismaCounts
from .votes import Vote, as_votes, by_paper

__all__ = [
    "AGREED",
    "AWAITING",
    "CONFLICT",
    "NOT_RETRIEVED",
    "NO_REASON",
    "RESOLVED",
    "SEVERAL_REASONS",
    "STATUSES",
    "AgreementReport",
    "FinalDecision",
    "Identified",
    "OtherMethods",
    "PairAgreement",
    "PaperStatus",
    "PaperView",
    "PrismaCheckError",
    "PrismaCounts",
    "Screening",
    "Statistic",
    "Vote",
    "agreement",
    "as_votes",
    "by_paper",
    "classify",
    "cohen_kappa",
    "exclusion_reason",
    "gwet_ac1",
    "nominal_alpha",
    "pair_agreement",
    "other_methods",
    "prisma_counts",
    "raw_agreement",
    "resolve",
    "training_decisions",
    "visible_to",
    "render_diagram",
]

"""Reviewing as a team: agreement between reviewers, conflicts and final decisions, what blind
mode lets a reviewer see, and the PRISMA 2020 flow diagram.

Pure functions and plain dataclasses: they take decisions as rows (from the store, an import or a
test) and counts, and never open the store themselves, so the store, the command line and the
widgets can all call them.
"""

from __future__ import annotations

from .agreement import (
    AgreementReport,
    PairAgreement,
    Statistic,
    agreement,
    cohen_kappa,
    gwet_ac1,
    nominal_alpha,
    pair_agreement,
    raw_agreement,
)
from .votes import Vote, as_votes, by_paper

__all__ = [
    "AgreementReport",
    "PairAgreement",
    "Statistic",
    "Vote",
    "agreement",
    "as_votes",
    "by_paper",
    "cohen_kappa",
    "gwet_ac1",
    "nominal_alpha",
    "pair_agreement",
    "raw_agreement",
]

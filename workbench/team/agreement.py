"""How well reviewers agree: per pair, and across the whole team.

For each pair of reviewers, on the papers **both** screened (their overlap):

- **raw agreement**: the share of the overlap on which the two gave the same decision;
- **Cohen's kappa**: agreement beyond what two reviewers with these reviewers' own rates of
  include/exclude/maybe would reach by chance, ``(p_o - p_e) / (1 - p_e)`` with
  ``p_e = sum_k p_k(first) * p_k(second)``. 1 is perfect, 0 is chance level. When includes are
  rare, ``p_e`` is close to 1 and kappa can be low although the two almost always agree (the
  "kappa paradox");
- **Gwet's AC1**: the same form with Gwet's chance agreement
  ``p_e = 1/(q-1) * sum_k pi_k (1 - pi_k)``, ``pi_k`` the two reviewers' mean share of category k
  and ``q`` the number of categories of the scale. It stays stable when one category dominates.

Across all reviewers, with any pattern of overlap (three reviewers who each screened part of the
papers): **Krippendorff's alpha** for nominal data, ``1 - D_o / D_e`` from the coincidence
matrix of all pairable decisions (papers with decisions from at least two reviewers).

**How "maybe" counts**: as a category of its own. The scale is include / exclude / maybe
(``q = 3``), so include vs maybe and exclude vs maybe are disagreements, as in the conflicts
queue. Pass ``categories=("include", "exclude")`` to compute on a two-point scale instead (then a
"maybe" in the rows is an error: map it first).

Undefined values are ``nan`` with a reason, never an exception: an empty overlap, or kappa and
alpha when every decision falls in one category (no variation: chance agreement is perfect).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..errors import InputError
from ..corpus.paper import DECISIONS
from .votes import as_votes, by_paper

__all__ = [
    "AgreementReport",
    "PairAgreement",
    "Statistic",
    "agreement",
    "cohen_kappa",
    "gwet_ac1",
    "nominal_alpha",
    "pair_agreement",
    "raw_agreement",
]

KAPPA, AC1, RAW, ALPHA = "Cohen's kappa", "Gwet's AC1", "raw agreement", "Krippendorff's alpha"


@dataclass(frozen=True)
class Statistic:
    """A named value; ``value`` is ``nan`` and ``reason`` says why when it is undefined."""

    name: str
    value: float
    reason: str = ""

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)

    def __str__(self) -> str:
        if self.defined:
            return f"{self.name} {self.value:.2f}"
        return f"{self.name} n/a ({self.reason})"


def _undefined(name: str, reason: str) -> Statistic:
    return Statistic(name, math.nan, reason)


def _check_pair(first: Sequence, second: Sequence, categories: Sequence[str]) -> None:
    if len(first) != len(second):
        raise InputError(f"{len(first)} decisions by the first reviewer but {len(second)} by the second; "
                         "pass the two reviewers' decisions on the same papers, in the same order")
    if len(set(categories)) < 2:
        raise InputError(f"categories {tuple(categories)!r}: a scale needs at least two categories")
    unknown = sorted(set(first) - set(categories) | set(second) - set(categories))
    if unknown:
        raise InputError(f"decisions {unknown} are not in the scale {tuple(categories)}; "
                         "pass categories= with every decision the reviewers could give")


def raw_agreement(first: Sequence[str], second: Sequence[str]) -> Statistic:
    """The share of papers on which the two decisions are equal (nan for no papers)."""
    if len(first) != len(second):
        raise InputError(f"{len(first)} decisions by the first reviewer but {len(second)} by the second; "
                         "pass the two reviewers' decisions on the same papers, in the same order")
    if not first:
        return _undefined(RAW, "no papers screened by both")
    return Statistic(RAW, sum(a == b for a, b in zip(first, second)) / len(first))


def cohen_kappa(first: Sequence[str], second: Sequence[str],
                categories: Sequence[str] = DECISIONS) -> Statistic:
    """Cohen's kappa of two reviewers' decisions on the same papers (position i = paper i).

    nan when there are no papers, or when both gave one and the same category throughout
    (chance agreement is then 1 and kappa is 0/0; raw agreement says they agreed on all)."""
    _check_pair(first, second, categories)
    n = len(first)
    if n == 0:
        return _undefined(KAPPA, "no papers screened by both")
    observed = sum(a == b for a, b in zip(first, second)) / n
    ca, cb = Counter(first), Counter(second)
    chance = sum(ca[k] * cb[k] for k in categories) / (n * n)
    if 1 - chance < 1e-12:
        only = next(iter(ca))
        return _undefined(KAPPA, f"both reviewers decided {only!r} on all {n} papers: "
                                 "no variation, so chance agreement is 1")
    return Statistic(KAPPA, (observed - chance) / (1 - chance))


def gwet_ac1(first: Sequence[str], second: Sequence[str],
             categories: Sequence[str] = DECISIONS) -> Statistic:
    """Gwet's AC1 of two reviewers' decisions on the same papers; ``q = len(categories)``.

    Defined whenever there is at least one paper (AC1 is 1 when both gave one category
    throughout, since Gwet's chance agreement is at most 1/q)."""
    _check_pair(first, second, categories)
    n = len(first)
    if n == 0:
        return _undefined(AC1, "no papers screened by both")
    observed = sum(a == b for a, b in zip(first, second)) / n
    counts = Counter(first) + Counter(second)
    shares = [counts[k] / (2 * n) for k in categories]
    chance = sum(p * (1 - p) for p in shares) / (len(shares) - 1)
    return Statistic(AC1, (observed - chance) / (1 - chance))


def nominal_alpha(units: Mapping[Hashable, Iterable[Hashable]]) -> Statistic:
    """Krippendorff's alpha for nominal values: ``units`` maps each unit (paper) to the values
    the coders (reviewers) gave it, missing ones left out. Units with fewer than two values are
    not pairable and do not count.

    ``alpha = 1 - (n - 1) * sum_u (m_u^2 - sum_c n_uc^2) / (m_u - 1) / (n^2 - sum_c n_c^2)``
    with ``m_u`` the values of unit u, ``n_uc`` those equal to c, ``n_c`` the pairable values
    equal to c and ``n`` all pairable values (Krippendorff 2011, "Computing Krippendorff's
    alpha-reliability", nominal metric)."""
    disagree, totals = 0.0, Counter()
    for values in units.values():
        counts = Counter(values)
        m = sum(counts.values())
        if m < 2:
            continue
        disagree += (m * m - sum(c * c for c in counts.values())) / (m - 1)
        totals.update(counts)
    n = sum(totals.values())
    if n == 0:
        return _undefined(ALPHA, "no paper has decisions from two reviewers")
    expected = n * n - sum(c * c for c in totals.values())
    if expected == 0:
        only = next(iter(totals))
        return _undefined(ALPHA, f"every decision is {only!r}: no variation, so alpha is undefined")
    return Statistic(ALPHA, 1 - (n - 1) * disagree / expected)


@dataclass(frozen=True)
class PairAgreement:
    """Two reviewers' agreement on the papers both screened (``overlap`` of them).

    ``table[i][j]`` counts the papers ``first`` gave ``categories[i]`` and ``second`` gave
    ``categories[j]``."""

    first: str
    second: str
    overlap: int
    raw: Statistic
    kappa: Statistic
    ac1: Statistic
    categories: tuple[str, ...]
    table: tuple[tuple[int, ...], ...]

    def statistics(self) -> tuple[Statistic, Statistic, Statistic]:
        return self.raw, self.kappa, self.ac1

    def __str__(self) -> str:
        stats = ", ".join(str(s) for s in self.statistics())
        return f"{self.first} vs {self.second}: {self.overlap} papers screened by both; {stats}"


def pair_agreement(first: str, second: str, table: Mapping[str, Mapping[str, str]],
                   categories: Sequence[str] = DECISIONS) -> PairAgreement:
    """Agreement of reviewers ``first`` and ``second`` from ``{paper: {reviewer: decision}}``."""
    both = [votes for votes in table.values() if first in votes and second in votes]
    a = [votes[first] for votes in both]
    b = [votes[second] for votes in both]
    cells = Counter(zip(a, b))
    grid = tuple(tuple(cells[(r, c)] for c in categories) for r in categories)
    return PairAgreement(first, second, len(both), raw_agreement(a, b), cohen_kappa(a, b, categories),
                         gwet_ac1(a, b, categories), tuple(categories), grid)


@dataclass(frozen=True)
class AgreementReport:
    """Every pair of reviewers, and Krippendorff's alpha across all of them."""

    reviewers: tuple[str, ...]
    papers: int
    pairs: tuple[PairAgreement, ...]
    alpha: Statistic

    def lines(self) -> list[str]:
        """One line per pair (e.g. ``ana vs ben: 40 papers screened by both; raw agreement 0.90,
        Cohen's kappa 0.62, Gwet's AC1 0.85``), then alpha; what ``workbench agreement`` prints."""
        if len(self.reviewers) < 2:
            who = f"{len(self.reviewers)} reviewer(s) screened {self.papers} papers"
            return [f"{who}: agreement needs two reviewers on the same papers"]
        return [str(p) for p in self.pairs] + [f"all {len(self.reviewers)} reviewers: {self.alpha}"]

    def to_frame(self):
        """A pandas DataFrame, one row per pair (nan where undefined, with the reasons)."""
        import pandas as pd

        rows = [{"first": p.first, "second": p.second, "overlap": p.overlap,
                 **{s.name: s.value for s in p.statistics()},
                 "why undefined": "; ".join(f"{s.name}: {s.reason}" for s in p.statistics() if not s.defined)}
                for p in self.pairs]
        return pd.DataFrame(rows, columns=["first", "second", "overlap", RAW, KAPPA, AC1, "why undefined"])


def agreement(rows: Iterable, categories: Sequence[str] = DECISIONS) -> AgreementReport:
    """Agreement of every pair of reviewers in ``rows`` (one stage's decisions, as
    :func:`~workbench.team.votes.as_votes` reads them), pairs in order of the reviewers' names,
    and Krippendorff's alpha over all papers with two or more decisions."""
    votes = as_votes(rows, tuple(categories))
    table = {pid: {who: v.decision for who, v in vs.items()} for pid, vs in by_paper(votes).items()}
    reviewers = tuple(sorted({v.reviewer for v in votes}))
    pairs = tuple(pair_agreement(a, b, table, categories) for a, b in combinations(reviewers, 2))
    alpha = nominal_alpha({pid: list(vs.values()) for pid, vs in table.items()})
    return AgreementReport(reviewers, len(table), pairs, alpha)

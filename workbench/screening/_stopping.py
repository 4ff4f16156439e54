"""When may the reviewer stop? An estimate of what is left, and two stopping rules.

Everything reads a :class:`ScreeningHistory`: the decisions in the order they were made, each
an include (1; count a "maybe" as 1 here) or an exclude (0), whether a person read the paper
or it was decided in bulk (from the map), and whether it was drawn at random from the papers
no person had read yet (the sample phase). Bulk decisions are evidence of nothing: the
statistics treat those papers as unread, and every claim says how many there were.

**The statistical rule** (Callaghan & Müller-Hansen 2020, *Systematic Reviews* 9:273). Null
hypothesis: recall is below the target ``tau``. With ``r`` includes read so far, that means
the total exceeds ``r / tau``, so the papers not yet read before a sample held at least
``K = floor(r / tau) - r_before + 1`` includes (``r_before``: includes read before the sample).
Drawing ``n`` of those ``N`` papers at random and finding ``k`` includes has probability
``p = P(X <= k)``, X ~ Hypergeometric(N, K, n) (``scipy.stats.hypergeom.cdf(k, N, K, n)``);
more includes in the urn would only make ``p`` smaller. If ``p < 1 - confidence`` the null is
rejected: "recall >= tau with ``confidence`` confidence".

- With a random sample (``sampled`` decisions; the sample must be drawn from every paper no
  person has read, bulk-decided ones included) the test is the one above, exactly.
- Without one, the last ``n`` papers read in ranked order are treated as if they were such a
  sample, for every ``n``, and the smallest ``p`` counts (the paper's "ranked quasi-sampling";
  conservative while the ranking puts likely includes first).

**The heuristic rule**: stop after ``N`` excludes in a row (papers read by a person). It makes
no claim about recall; it is reported beside the statistical rule for comparison.

**The estimate** of includes among the papers no person has read: from the random sample if
there is one (``k`` of ``n`` drawn from ``N``: ``k (N - n) / n`` more, with an exact interval by
inverting the hypergeometric test, ``alpha/2`` each side), else from the last ``window`` ranked
decisions taken as a sample (an upper estimate, since the ranking puts likely includes first).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InputError

__all__ = [
    "RemainingEstimate",
    "ScreeningHistory",
    "StoppingAdvice",
    "estimate_remaining",
    "hypergeometric_test",
    "irrelevant_in_a_row",
    "min_ranked_p",
    "ranked_p_values",
    "stopping_advice",
]


@dataclass(frozen=True)
class ScreeningHistory:
    """Decisions in the order made. ``order``: paper ids or rows (kept for the record);
    ``labels``: 0/1; ``bulk``/``sampled``: per decision (default all False); ``n_total``: papers
    in the review."""

    labels: np.ndarray
    n_total: int
    order: tuple = ()
    bulk: np.ndarray | None = None
    sampled: np.ndarray | None = None

    def __post_init__(self):
        labels = np.asarray(self.labels, dtype=np.int64).reshape(-1)
        if not np.isin(labels, (0, 1)).all():
            raise InputError(f"labels must be 0 or 1 (count a maybe as 1); got {sorted(set(labels.tolist()))[:5]}")
        n = len(labels)
        flags = {}
        for name in ("bulk", "sampled"):
            value = getattr(self, name)
            value = np.zeros(n, dtype=bool) if value is None else np.asarray(value, dtype=bool).reshape(-1)
            if len(value) != n:
                raise InputError(f"{name} has {len(value)} entries for {n} decisions; give one per decision")
            flags[name] = value
        if n > self.n_total:
            raise InputError(f"{n} decisions for a review of n_total={self.n_total} papers; n_total counts every paper")
        read_sampled = flags["sampled"] & ~flags["bulk"]
        if read_sampled.any():
            first = int(np.argmax(read_sampled))
            if (~flags["sampled"][first:] & ~flags["bulk"][first:]).any():
                raise InputError("a ranked decision follows the random sample; the sample must be the last decisions read")
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "bulk", flags["bulk"])
        object.__setattr__(self, "sampled", flags["sampled"])

    @property
    def read(self) -> np.ndarray:
        """Labels of the papers a person read, in order."""
        return self.labels[~self.bulk]

    @property
    def n_bulk(self) -> int:
        return int(self.bulk.sum())

    @property
    def n_unread(self) -> int:
        return self.n_total - int((~self.bulk).sum())


@dataclass(frozen=True)
class RemainingEstimate:
    point: float
    low: int
    high: int
    confidence: float
    method: str
    numbers: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"about {self.point:.0f} relevant papers left unread ({self.confidence:.0%} interval "
                f"{self.low}-{self.high}; {self.method})")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class StoppingAdvice:
    """``stop``: whether the rule says the reviewer may stop; ``claim``: what they may then
    write; ``rule`` and ``numbers``: what to log beside it."""

    rule: str
    stop: bool
    claim: str
    numbers: dict

    def to_dict(self) -> dict:
        return asdict(self)


def _pct(x: float) -> str:
    return f"{100 * x:g} %"


def _k_target(r_seen, r_before, target: float):
    """Fewest includes the urn must hold for recall < target (vectorised)."""
    t = Fraction(str(target))
    return np.floor_divide(np.asarray(r_seen) * t.denominator, t.numerator) - np.asarray(r_before) + 1


def _p(k, urn, K, n) -> np.ndarray:
    from scipy.stats import hypergeom

    k, urn, K, n = (np.asarray(v, dtype=np.int64) for v in (k, urn, K, n))
    possible = (K <= urn) & (K - k <= urn - n)  # else the null cannot hold: recall >= target for sure
    p = hypergeom.cdf(k, np.maximum(urn, 1), np.clip(K, 0, np.maximum(urn, 1)), n)
    return np.where(possible, p, 0.0)


def ranked_p_values(read: np.ndarray, n_unread: int, target: float = 0.95) -> np.ndarray:
    """p for each window: entry ``n - 1`` treats the last ``n`` papers read as the sample."""
    read = np.asarray(read, dtype=np.int64)
    if len(read) == 0:
        return np.ones(0)
    r_seen = int(read.sum())
    n = np.arange(1, len(read) + 1)
    k = np.cumsum(read[::-1])
    return _p(k, n_unread + n, _k_target(r_seen, r_seen - k, target), n)


def _ranked_windows(read: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The windows where the smallest ranked p can lie: those reaching back to just after an
    include, and the whole history (``n``, ascending), with the includes among each (``k``).
    Within the windows holding the same includes, a longer one adds an exclude to both the
    sample and the urn, which can only lower ``p`` (the sample's count grows stochastically),
    so the minimum is at one of these."""
    t = len(read)
    pos = np.flatnonzero(read)
    n = np.unique(np.concatenate([t - pos - 1, [t]]))
    n = n[n > 0]
    k = np.searchsorted(np.sort(t - 1 - pos), n, side="left")  # includes among the last n
    return n, k


def min_ranked_p(read: np.ndarray, n_unread: int, target: float = 0.95) -> float:
    """``ranked_p_values(...).min()`` from a few windows (:func:`_ranked_windows`)."""
    read = np.asarray(read, dtype=np.int64)
    if len(read) == 0:
        return 1.0
    r_seen = int(read.sum())
    n, k = _ranked_windows(read)
    return float(_p(k, n_unread + n, _k_target(r_seen, r_seen - k, target), n).min())


def _smallest_ranked_p(read: np.ndarray, n_unread: int, target: float) -> tuple[int, float]:
    """``(i, p)``: the first window of the smallest ranked p, as ``np.argmin`` over
    :func:`ranked_p_values` finds it, from the few windows of :func:`_ranked_windows` (one
    per include, not one per paper read). Where that minimum is not a single value those
    windows settle (p of 0 or 1, or a tie), every window is computed."""
    r_seen = int(read.sum())
    n, k = _ranked_windows(read)
    p = _p(k, n_unread + n, _k_target(r_seen, r_seen - k, target), n)
    j = int(np.argmin(p))
    if 0.0 < p[j] < 1.0 and int((p == p[j]).sum()) == 1:
        return int(n[j]) - 1, float(p[j])
    ps = ranked_p_values(read, n_unread, target)
    i = int(np.argmin(ps))
    return i, float(ps[i])


def hypergeometric_test(history: ScreeningHistory, target: float = 0.95, confidence: float = 0.95) -> StoppingAdvice:
    if not (0 < target < 1 and 0 < confidence < 1):
        raise InputError(f"target={target} and confidence={confidence} must both lie strictly between 0 and 1")
    alpha = 1 - confidence
    read, sampled = history.read, history.sampled[~history.bulk]
    numbers = {"target": target, "confidence": confidence, "read": len(read), "includes_read": int(read.sum()),
               "unread": history.n_unread, "bulk": history.n_bulk}
    if sampled.any():
        start = int(np.argmax(sampled))
        k, n = int(read[start:].sum()), len(read) - start
        urn = history.n_unread + n
        r_before = int(read[:start].sum())
        K = int(_k_target(r_before + k, r_before, target))
        p = float(_p(k, urn, K, n))
        how = f"a random sample of {n} of the {urn} papers unread when it began, {k} of them relevant"
        numbers.update(method="random sample", sample=n, sample_includes=k, urn=urn, k_target=K, p=p)
    elif len(read):
        i, p = _smallest_ranked_p(read, history.n_unread, target)
        n = i + 1
        k = int(read[-n:].sum())
        how = f"the last {n} papers read in ranked order taken as a sample, {k} of them relevant"
        numbers.update(method="ranked quasi-sample", sample=n, sample_includes=k, urn=history.n_unread + n,
                       k_target=int(_k_target(int(read.sum()), int(read.sum()) - k, target)), p=p)
    else:
        p, how = 1.0, "nothing read yet"
        numbers.update(method="none", p=p)
    stop = p < alpha
    bulk = f"; {history.n_bulk} papers decided in bulk count as unread" if history.n_bulk else ""
    if stop:
        claim = (f"recall >= {_pct(target)} with {_pct(confidence)} confidence "
                 f"(hypergeometric test, p = {p:.3g} < {alpha:.3g}; {how}{bulk})")
    else:
        claim = (f"recall >= {_pct(target)} cannot yet be claimed with {_pct(confidence)} confidence "
                 f"(hypergeometric test, p = {p:.3g} >= {alpha:.3g}; {how}{bulk})")
    rule = f"Callaghan & Müller-Hansen (2020) hypergeometric test, target recall {_pct(target)}, confidence {_pct(confidence)}"
    return StoppingAdvice(rule=rule, stop=bool(stop), claim=claim, numbers=numbers)


def irrelevant_in_a_row(history: ScreeningHistory, n: int = 100) -> StoppingAdvice:
    if n < 1:
        raise InputError(f"n={n} should be >= 1")
    read = history.read
    includes = np.flatnonzero(read == 1)
    streak = len(read) - (int(includes[-1]) + 1 if len(includes) else 0)
    stop = streak >= n
    bulk = f"; {history.n_bulk} bulk decisions not counted" if history.n_bulk else ""
    claim = (f"{streak} irrelevant papers read in a row (rule: stop at {n}){bulk}; "
             "this heuristic makes no statistical claim about recall")
    return StoppingAdvice(rule=f"{n} irrelevant in a row", stop=bool(stop), claim=claim,
                          numbers={"n": n, "streak": streak, "read": len(read), "bulk": history.n_bulk})


def estimate_remaining(history: ScreeningHistory, confidence: float = 0.95, window: int = 100) -> RemainingEstimate:
    from scipy.stats import hypergeom

    read, sampled = history.read, history.sampled[~history.bulk]
    if sampled.any():
        start = int(np.argmax(sampled))
        n, k = len(read) - start, int(read[start:].sum())
        method = f"from a random sample of {n} unread papers"
    else:
        n = min(window, len(read))
        k = int(read[len(read) - n:].sum())
        method = f"upper estimate: the last {n} papers read in ranked order taken as a random sample"
    urn = history.n_unread + n
    if n == 0:
        return RemainingEstimate(float("nan"), 0, history.n_unread, confidence, "nothing read yet", {"urn": urn})
    alpha = 1 - confidence
    # The interval's ends: the fewest and the most includes K in the urn that the sample does
    # not reject at alpha/2 a side. P(X >= k) grows with K and P(X <= k) falls, so each end is
    # found by bisection: ~2 log2(urn) evaluations instead of two per possible K (100,000 at
    # 50,000 papers, seconds per decision).
    last = urn - (n - k)
    low = _first(k, last, lambda K: hypergeom.sf(k - 1, urn, K, n) > alpha / 2) - k
    high = _first(k, last, lambda K: not hypergeom.cdf(k, urn, K, n) > alpha / 2) - 1 - k
    point = k * (urn - n) / n
    return RemainingEstimate(point, low, high, confidence, method,
                             {"sample": n, "sample_includes": k, "urn": urn, "unread": history.n_unread, "bulk": history.n_bulk})


def _first(lo: int, hi: int, holds) -> int:
    """The smallest K in ``lo..hi`` for which ``holds(K)``, ``holds`` being false up to some K and
    true from there on; ``hi + 1`` if it never holds."""
    hi += 1
    while lo < hi:
        mid = (lo + hi) // 2
        if holds(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def stopping_advice(history: ScreeningHistory, target: float = 0.95, confidence: float = 0.95, n_in_a_row: int = 100) -> list[StoppingAdvice]:
    """The statistical rule first (the one to follow), then the heuristic for comparison."""
    return [hypergeometric_test(history, target, confidence), irrelevant_in_a_row(history, n_in_a_row)]

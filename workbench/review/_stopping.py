"""When may the reviewer stop? The review's decisions as a screening history, the estimate of
relevant papers left, the stopping advice, and its log in the store.

The history is the store's current decisions on this review's papers in the order they were
made (a changed decision moves to the time of the change): include and maybe count as relevant,
exclude as not. Decisions made in bulk (a map selection, a topic) are evidence of nothing: the
rules treat those papers as unread and every claim says how many there were. A random sample
(``review.screening.rank(sample=True)``) counts as one only while it is the last thing read; a ranked
decision after it turns it back into ordinary reading.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..screening import (
    RemainingEstimate, ScreeningHistory, StoppingAdvice, estimate_remaining, stopping_advice
)
from ._decisions import RELEVANT, Decided

__all__ = ["StoppingReport", "history", "stopping"]


@dataclass(frozen=True)
class StoppingReport:
    """Where the screening stands and what the reviewer may claim.

    ``estimate``: relevant papers still unread, with its interval; ``advice``: the statistical
    test (the rule to follow) first, then "N irrelevant in a row" for comparison; the counts:
    ``papers`` in the review, ``decided``, ``read`` by a person, ``relevant`` among those read
    (include or maybe), ``bulk`` (decided in bulk, counted as unread), ``sampled`` (in the
    random sample), ``unrecorded`` (decided before the store kept screening records, or
    imported); ``model``/``model_version``: the model of the latest ranked decision;
    ``logged``: the store's record of the claim when it was logged (the statistical rule's,
    with the estimate, these counts, the model and the rule for comparison in its numbers).
    """

    estimate: RemainingEstimate
    advice: tuple[StoppingAdvice, ...]
    papers: int
    decided: int
    read: int
    relevant: int
    bulk: int
    sampled: int
    unrecorded: int
    model: str | None = None
    model_version: str | None = None
    logged: object = None  # workbench.store.StoppingClaim

    @property
    def stop(self) -> bool:
        """Whether the statistical rule says the reviewer may stop."""
        return self.advice[0].stop

    def lines(self) -> list[str]:
        """The report in words, one line each: counts, estimate, advice, the rule for comparison."""
        sample = f", {self.sampled} of them in a random sample" if self.sampled else ""
        counts = (f"{self.decided} of {self.papers} papers decided: {self.read} read by a person{sample} "
                  f"({self.relevant} relevant: include or maybe), {self.bulk} decided in bulk (counted as unread)")
        estimate = self.estimate if self.read else "nothing read by a person yet"
        lines = [counts, f"estimate: {estimate}"]
        first, *others = self.advice
        lines.append(f"advice ({first.rule}): {'you may stop' if first.stop else 'keep screening'}: {first.claim}")
        lines += [f"for comparison ({a.rule}): {'would stop' if a.stop else 'would not stop yet'}: {a.claim}"
                  for a in others]
        if self.unrecorded:
            lines.append(f"{self.unrecorded} decisions were made before the store kept screening records (or "
                         "were imported): counted as read unless one action decided them together")
        if self.logged is not None:
            lines.append(f"logged in the store at {self.logged.at[:19].replace('T', ' ')} by {self.logged.reviewer}")
        return lines

    def to_dict(self) -> dict:
        out = asdict(self)
        if out["estimate"]["point"] != out["estimate"]["point"]:  # NaN: nothing read yet (not JSON)
            out["estimate"]["point"] = None
        out["logged"] = None if self.logged is None else self.logged.at
        out["stop"] = self.stop
        return out

    def claim_to_log(self) -> dict:
        """The statistical rule's claim as the store logs it: its numbers, with the estimate,
        the counts it rests on, the model and the rule for comparison beside them."""
        first, *others = self.advice
        report = self.to_dict()
        counts = {k: report[k] for k in ("papers", "decided", "read", "relevant", "bulk", "sampled", "unrecorded")}
        numbers = {**first.numbers, "remaining": report["estimate"], "counts": counts, "model": self.model,
                   "model_version": self.model_version, "compared_with": [a.to_dict() for a in others]}
        return {"rule": first.rule, "stop": first.stop, "claim": first.claim, "numbers": numbers}


def history_of(decided: Decided, n_papers: int) -> ScreeningHistory:
    labels = np.asarray([RELEVANT[d] for d in decided.decisions], dtype=np.int64)
    sampled = decided.sampled & ~decided.bulk
    read_at = np.flatnonzero(~decided.bulk & ~sampled)
    if len(read_at):  # a sample counts only while it is the last thing read
        sampled[: read_at[-1]] = False
    return ScreeningHistory(labels, n_papers, order=tuple(r.paper_id for r in decided.records),
                            bulk=decided.bulk, sampled=sampled)


def history(review, store) -> ScreeningHistory:
    """The review's decisions in ``store`` as a :class:`~workbench.screening.ScreeningHistory`."""
    return history_of(Decided.of(review, store.decisions.records()), len(review))


def stopping(review, store, target: float = 0.95, confidence: float = 0.95, n_in_a_row: int = 100,
             log: bool = False) -> StoppingReport:
    """The estimate and the advice from ``store``; see :meth:`workbench.review.ReviewScreening.stopping`."""
    decided = Decided.of(review, store.decisions.records())
    hist = history_of(decided, len(review))
    estimate = estimate_remaining(hist, confidence=confidence)
    advice = tuple(stopping_advice(hist, target=target, confidence=confidence, n_in_a_row=n_in_a_row))
    ranked = [r for r in decided.records if r.model is not None]
    report = StoppingReport(
        estimate, advice, papers=len(review), decided=len(decided.rows), read=len(hist.read),
        relevant=int(hist.read.sum()), bulk=hist.n_bulk, sampled=int(hist.sampled.sum()),
        unrecorded=sum(not r.recorded for r in decided.records),
        model=ranked[-1].model if ranked else None, model_version=ranked[-1].model_version if ranked else None)
    if not log:
        return report
    logged = store.stopping.log(report.claim_to_log())
    return StoppingReport(**{**report.__dict__, "logged": logged})

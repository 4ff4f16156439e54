"""The report's screening section: how the decisions were made and what was claimed about stopping.

What a methods section needs to say how automation was used (PRISMA 2020 item 8, RAISE):
how many papers were decided and by whom, how many read one by one, in bulk, or in a random
sample, how many were ranked by a model when decided (and by which model version), and every
stopping claim logged with its rule, time and reviewer. A model never decides: every decision
counted here was made by a person.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from html import escape

__all__ = ["ScreeningSummary", "screening_summary"]


@dataclass(frozen=True)
class ScreeningSummary:
    papers: int
    decisions: Counter  # decision -> count (every reviewer's)
    reviewers: int
    read: int
    bulk: int
    sampled: int
    unrecorded: int
    models: Counter  # model version -> decisions made while it ranked the queue
    claims: list  # the store's StoppingClaim, oldest first

    def __bool__(self) -> bool:
        return bool(sum(self.decisions.values()) or self.claims)

    def sentences(self) -> list[str]:
        decided = sum(self.decisions.values())
        kinds = ", ".join(f"{self.decisions[d]} {d}" for d in ("include", "exclude", "maybe") if self.decisions[d])
        people = f"{self.reviewers} reviewer{'s' if self.reviewers != 1 else ''}"
        out = [f"{decided} decisions on {self.papers} papers ({kinds or 'none'}) by {people}: {self.read} read one by one "
               f"({self.sampled} of them in a random sample for the stopping test), {self.bulk} decided in bulk "
               "(a map selection or a topic)" + (f", {self.unrecorded} made before the store kept screening records"
                                                  if self.unrecorded else "") + "."]
        ranked = sum(self.models.values())
        if ranked:
            used = "; ".join(f"{version}: {n}" for version, n in sorted(self.models.items()))
            out.append(f"{ranked} decisions were made on papers ranked by a model ({used}). "
                       "A model never decides: every decision was made by a person.")
        else:
            out.append("No decision was made on a paper ranked by a model.")
        return out

    def markdown(self, md) -> list[str]:
        lines = ["## Screening", "", *[md(s) for s in self.sentences()], ""]
        if self.claims:
            lines += ["Stopping claims logged:", ""]
            lines += [f"- {md(c.at[:16].replace('T', ' '))} {md(c.reviewer)}, {md(c.rule)}: {md(c.claim)}"
                      for c in self.claims] + [""]
        return lines

    def html(self) -> str:
        parts = ["<h2>Screening</h2>", *[f"<p>{escape(s)}</p>" for s in self.sentences()]]
        if self.claims:
            items = "".join(f"<li>{escape(c.at[:16].replace('T', ' '))} {escape(c.reviewer)}, {escape(c.rule)}: "
                            f"{escape(c.claim)}</li>" for c in self.claims)
            parts.append(f"<h3>Stopping claims logged</h3><ul>{items}</ul>")
        return "\n".join(parts)


def screening_summary(review, store) -> ScreeningSummary:
    """Every reviewer's current decisions on this review's papers, and the logged claims."""
    records = [r for r in store.screening_records(everyone=True) if r.paper_id in review]
    return ScreeningSummary(
        papers=len(review), decisions=Counter(r.decision for r in records),
        reviewers=len({r.reviewer for r in records}), read=sum(not r.bulk for r in records),
        bulk=sum(r.bulk for r in records), sampled=sum(r.sampled and not r.bulk for r in records),
        unrecorded=sum(not r.recorded for r in records),
        models=Counter(r.model_version or r.model for r in records if r.model is not None),
        claims=store.stopping_claims())

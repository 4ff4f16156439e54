"""What the report says about how the decisions were made (PRISMA 2020 item 8, RAISE).

From the store's screening records: how many decisions were read one by one, how many of those
in a random sample for the stopping test, how many made in bulk (a map selection or a topic),
how many before the store kept these records, and how many were made on papers a model had
ranked, by which model version. A model never decides: every decision counted was a person's.
"""

from __future__ import annotations

from collections import Counter

from ...screening import describe_model

__all__ = ["automation_sentences"]


def automation_sentences(review, store) -> list[str]:
    """The report's sentences on how every reviewer's decisions on this review's papers were
    made; none when nothing was decided."""
    records = [r for r in store.decisions.records(everyone=True, all_reviewers=True) if r.paper_id in review]
    if not records:
        return []
    read = [r for r in records if not r.bulk]
    sampled = sum(r.sampled for r in read)
    unrecorded = sum(not r.recorded for r in records)
    how = (f"Of {len(records)} decisions, {len(read)} were made reading the paper"
           + (f" ({sampled} in a random sample for the stopping test)" if sampled else "")
           + f" and {len(records) - len(read)} in bulk (a map selection or a topic)"
           + (f"; {unrecorded} were made before the store kept screening records" if unrecorded else "") + ".")
    models = Counter(r.model_version or r.model for r in records if r.model is not None)
    if not models:
        return [how, "No decision was made on a paper ranked by a model."]
    kinds = sorted({describe_model(v) for v in models})
    used = "; ".join(f"{version}: {n}" for version, n in sorted(models.items()))
    ranked = (f"{sum(models.values())} decisions were made on papers ranked by a model "
              f"({' / '.join(kinds)}). A model never decides: every decision was made by a person.")
    return [how, ranked, f"Details: the models' versions and the decisions made with each: {used}."]

"""The PRISMA 2020 counts of a review: the build's sources and the store's two screening stages.

Identification comes from the sources the last build recorded (``Store.sources``, see
``_provenance``): records identified per database and per register (read plus skipped, each file
under the name its provenance gives), duplicates removed (merged away while reading) and records
removed for other reasons (skipped: no usable title or abstract). Nothing is marked ineligible by
automation: the ranked queue only orders papers. Screening comes from the store through
:func:`workbench.team.prisma_counts`: each stage's votes and final decisions classified
(``_team.screening_of``), and the papers whose title/abstract decision was made with the ranked
queue on (a recorded rank). A review built before sources were recorded counts its papers as
identified, under the sources its build names, with nothing removed.
"""

from __future__ import annotations

from collections import Counter

from .. import team
from ..records import FULL_TEXT, TITLE_ABSTRACT

__all__ = ["counts", "identification", "in_report"]


def identification(review, store) -> dict:
    """``databases``, ``registers``, ``duplicates_removed`` and ``removed_other`` for
    :func:`workbench.team.prisma_counts`, from the sources of the last build."""
    sources = store.sources()
    if not sources:
        named = ", ".join(review.manifest.get("sources", [])) or "the sources"
        return {"databases": {f"{named} (counts per file not recorded; rebuild to record them)": len(review)},
                "registers": {}, "duplicates_removed": 0, "removed_other": 0}
    found = {"database": Counter(), "register": Counter()}
    for s in sources:
        found[s.kind][s.name] += s.identified
    return {"databases": dict(found["database"]), "registers": dict(found["register"]),
            "duplicates_removed": sum(s.merged for s in sources), "removed_other": sum(s.skipped for s in sources)}


def counts(review, store, previous_studies: int | None = None) -> team.PrismaCounts:
    """The checked PRISMA counts of ``review`` (see the module docstring)."""
    from ._team import screening_of

    ids = review.ids
    ranked = {r.paper_id for r in store.screening_records(everyone=True) if r.rank is not None}
    return team.prisma_counts(
        records=ids, title_abstract=screening_of(store, TITLE_ABSTRACT, ids),
        full_text=screening_of(store, FULL_TEXT, ids), ranked=ranked, previous_studies=previous_studies,
        **identification(review, store))


def _systematic(store) -> bool:
    """Whether the review is screened as a systematic review: a source with search provenance,
    a full-text decision, a final decision, or team settings (blind, reviewers per paper, criteria)."""
    settings = store.settings()
    return (any(s.provenance_given for s in store.sources()) or bool(store.every_decision(FULL_TEXT))
            or bool(store.finals(None)) or any(k in settings for k in ("blind", "reviewers_per_paper", "criteria")))


def in_report(review, store, wanted: bool | None = None) -> tuple[team.PrismaCounts | None, str | None]:
    """The PRISMA counts for the report, or why there are none: ``wanted`` True or False, or None
    for a review screened as a systematic review (an exploratory map of papers gets no flow diagram)."""
    if wanted is False or (wanted is None and not _systematic(store)):
        return None, None
    try:
        return counts(review, store), None
    except team.PrismaCheckError as err:  # the report is still written, and says why
        return None, f"The PRISMA counts are not shown: {err}"

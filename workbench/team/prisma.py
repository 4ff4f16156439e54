"""The PRISMA 2020 flow diagram's numbers: what each box holds, how the boxes add up, and the
counts as a Markdown table. The diagram itself is drawn by :func:`~.diagram.render_diagram` (matplotlib).

The boxes follow the PRISMA 2020 templates (Page et al., BMJ 2021;372:n71): identification of
studies via databases and registers, optionally via other methods (websites, organisations,
citation searching) and, for an updated review, the studies of the previous version. Two
boxes go beyond the template so that a review in progress still adds up: records not yet
settled at title/abstract (``records_awaiting``: not screened, awaiting a second screen, or an
unresolved conflict) and reports sought but not yet assessed (``reports_awaiting``); both are
drawn only when non-zero.

How the boxes add up (:meth:`PrismaCounts.check` names the first box that does not)::

    identified            = sum of records per database and register
    screened + awaiting   = identified - duplicates - removed by automation - removed for other reasons
    records excluded      = sum of title/abstract reasons (when reasons are given)
    reports sought        = screened - records excluded
    reports assessed      = sought - not retrieved - awaiting assessment
    reports included      = assessed - full-text excluded (+ other methods' assessed - excluded)
    studies included     <= reports included (a study may have several reports)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from ..errors import InputError

__all__ = ["OtherMethods", "PrismaCheckError", "PrismaCounts"]


class PrismaCheckError(InputError):
    """Counts for the PRISMA diagram that do not add up. ``box`` names the first box that does not,
    ``problems`` lists every one as ``(box, explanation)``."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        self.box = problems[0][0]
        more = f" (and {len(problems) - 1} more: {', '.join(b for b, _ in problems[1:])})" if len(problems) > 1 else ""
        super().__init__(f"PRISMA box {self.box!r} does not add up: {problems[0][1]}{more}; "
                         "recount from the store's decisions and the build report, or report the gap as awaiting")


def _total(counts: Mapping[str, int]) -> int:
    return sum(counts.values())


@dataclass(frozen=True)
class OtherMethods:
    """The right-hand column: records from websites, organisations, citation searching..., which
    go straight to retrieval (no title/abstract screening in the template). ``awaiting``: reports
    sought but not yet assessed (beyond the template, drawn only when non-zero, as in the main
    column)."""

    identified: Mapping[str, int] = field(default_factory=dict)
    sought: int = 0
    not_retrieved: int = 0
    assessed: int = 0
    excluded: Mapping[str, int] = field(default_factory=dict)
    awaiting: int = 0

    @property
    def included(self) -> int:
        return self.assessed - _total(self.excluded)


@dataclass(frozen=True)
class PrismaCounts:
    """Every number of the flow diagram. Mappings go from a source's or a reason's name to a count.

    ``databases``/``registers``: records identified per source (the build report's per-file
    counts, named by the source's provenance). ``excluded_reasons`` is optional at
    title/abstract (PRISMA asks for reasons only at full text); ``excluded_ranked`` is how many
    of the excluded records were screened in ranked order (None: not recorded).
    ``reports_included`` None means one report per study. ``previous_studies`` (and
    ``previous_reports``) make it the diagram of an updated review."""

    databases: Mapping[str, int] = field(default_factory=dict)
    registers: Mapping[str, int] = field(default_factory=dict)
    duplicates_removed: int = 0
    removed_by_automation: int = 0
    removed_other: int = 0
    records_screened: int = 0
    records_awaiting: int = 0
    records_excluded: int = 0
    excluded_reasons: Mapping[str, int] = field(default_factory=dict)
    excluded_ranked: int | None = None
    reports_sought: int = 0
    reports_not_retrieved: int = 0
    reports_awaiting: int = 0
    reports_assessed: int = 0
    reports_excluded: Mapping[str, int] = field(default_factory=dict)
    studies_included: int = 0
    reports_included: int | None = None
    other: OtherMethods | None = None
    previous_studies: int | None = None
    previous_reports: int | None = None

    @property
    def identified(self) -> int:
        return _total(self.databases) + _total(self.registers)

    @property
    def removed_before_screening(self) -> int:
        return self.duplicates_removed + self.removed_by_automation + self.removed_other

    @property
    def included_reports(self) -> int:
        """Reports of the included studies (``reports_included``, or one per study)."""
        return self.studies_included if self.reports_included is None else self.reports_included

    @property
    def updated(self) -> bool:
        return self.previous_studies is not None

    def check(self) -> PrismaCounts:
        """Raise :class:`PrismaCheckError` naming the first box that does not add up (or holds a
        negative or non-whole count); return the counts when every box does."""
        problems = _negatives(self) or _arithmetic(self)
        if problems:
            raise PrismaCheckError(problems)
        return self

    def rows(self) -> list[tuple[str, str, int]]:
        """``(stage, box, n)`` for every number of the diagram, in the order of the template."""
        return _rows(self)

    def markdown(self) -> str:
        """The counts as a Markdown table (for report.md)."""
        lines = ["| Stage | Box | n |", "| --- | --- | ---: |"]
        lines += [f"| {stage} | {box.replace('|', '/')} | {n} |" for stage, box, n in self.rows()]
        return "\n".join(lines) + "\n"


def _counts_of(counts) -> list[tuple[str, str, object]]:
    """Every count of ``counts`` (PrismaCounts or OtherMethods) as (field, label, value), mappings
    unrolled (label ``databases['PubMed']``)."""
    found = []
    for f in fields(counts):
        value = getattr(counts, f.name)
        if isinstance(value, Mapping):
            found += [(f.name, f"{f.name}[{k!r}]", v) for k, v in value.items()]
        elif f.name != "other" and value is not None:
            found.append((f.name, f.name, value))
    return found


# The box each field is drawn in (for naming it in errors).
BOXES = {
    "databases": "Records identified from databases", "registers": "Records identified from registers",
    "duplicates_removed": "Records removed before screening", "removed_by_automation": "Records removed before screening",
    "removed_other": "Records removed before screening", "records_screened": "Records screened",
    "records_awaiting": "Records screened", "records_excluded": "Records excluded",
    "excluded_reasons": "Records excluded", "excluded_ranked": "Records excluded",
    "reports_sought": "Reports sought for retrieval", "reports_awaiting": "Reports sought for retrieval",
    "reports_not_retrieved": "Reports not retrieved", "reports_assessed": "Reports assessed for eligibility",
    "reports_excluded": "Reports excluded", "studies_included": "Studies included in review",
    "reports_included": "Studies included in review",
    "previous_studies": "Studies included in previous version of review",
    "previous_reports": "Studies included in previous version of review",
    "identified": "Records identified from other methods", "sought": "Reports sought for retrieval",
    "not_retrieved": "Reports not retrieved", "assessed": "Reports assessed for eligibility",
    "awaiting": "Reports sought for retrieval",
    "excluded": "Reports excluded",
}


def _negatives(c: PrismaCounts) -> list[tuple[str, str]]:
    found = [(BOXES[f], label, v) for f, label, v in _counts_of(c)]
    if c.other is not None:
        found += [(BOXES[f] + " (other methods)", f"other.{label}", v) for f, label, v in _counts_of(c.other)]
    return [(box, f"{label} = {value!r}; expected a whole number >= 0") for box, label, value in found
            if isinstance(value, bool) or not isinstance(value, int) or value < 0]


def _arithmetic(c: PrismaCounts) -> list[tuple[str, str]]:
    checks = [
        ("Records screened", c.records_screened + c.records_awaiting, c.identified - c.removed_before_screening,
         f"screened {c.records_screened} + awaiting {c.records_awaiting}",
         f"identified {c.identified} - removed before screening {c.removed_before_screening}"),
        ("Reports sought for retrieval", c.reports_sought, c.records_screened - c.records_excluded,
         f"reports sought {c.reports_sought}", f"screened {c.records_screened} - excluded {c.records_excluded}"),
        ("Reports assessed for eligibility", c.reports_assessed,
         c.reports_sought - c.reports_not_retrieved - c.reports_awaiting, f"assessed {c.reports_assessed}",
         f"sought {c.reports_sought} - not retrieved {c.reports_not_retrieved} - awaiting {c.reports_awaiting}"),
    ]
    if c.excluded_reasons:
        checks.append(("Records excluded", c.records_excluded, _total(c.excluded_reasons),
                       f"records excluded {c.records_excluded}", "the sum of its reasons"))
    included = c.reports_assessed - _total(c.reports_excluded) + (c.other.included if c.other else 0)
    other = f" + other methods' {c.other.included}" if c.other else ""
    checks.append(("Studies included in review", c.included_reports, included,
                   f"reports of included studies {c.included_reports}",
                   f"assessed {c.reports_assessed} - excluded {_total(c.reports_excluded)}{other}"))
    problems = [(box, f"{given} = {got}, but {expected} = {want}")
                for box, got, want, given, expected in checks if got != want]
    return problems + _bounds(c)


def _bounds(c: PrismaCounts) -> list[tuple[str, str]]:
    problems = []
    if c.excluded_ranked is not None and c.excluded_ranked > c.records_excluded:
        why = f"{c.excluded_ranked} excluded in ranked order, but only {c.records_excluded} excluded"
        problems.append(("Records excluded", why))
    if c.studies_included > c.included_reports:
        why = f"{c.studies_included} studies from only {c.included_reports} reports"
        problems.append(("Studies included in review", why))
    if c.other is not None:
        o = c.other
        if o.assessed != o.sought - o.not_retrieved - o.awaiting:
            expected = o.sought - o.not_retrieved - o.awaiting
            why = (f"assessed {o.assessed}, but sought {o.sought} - not retrieved {o.not_retrieved} - awaiting "
                   f"{o.awaiting} = {expected}")
            problems.append(("Reports assessed for eligibility (other methods)", why))
        if o.sought > _total(o.identified):
            problems.append(("Reports sought for retrieval (other methods)",
                             f"{o.sought} sought, but only {_total(o.identified)} identified"))
    if c.previous_reports is not None and (c.previous_studies is None or c.previous_studies > c.previous_reports):
        problems.append(("Studies included in previous version of review",
                         f"{c.previous_studies} studies from {c.previous_reports} reports"))
    return problems


def _rows(c: PrismaCounts) -> list[tuple[str, str, int]]:
    ident, screen, incl = "Identification", "Screening", "Included"
    rows = [(ident, f"Records identified from {name} (database)", n) for name, n in c.databases.items()]
    rows += [(ident, f"Records identified from {name} (register)", n) for name, n in c.registers.items()]
    rows += [(ident, "Records identified", c.identified), (ident, "Duplicate records removed", c.duplicates_removed),
             (ident, "Records marked as ineligible by automation tools", c.removed_by_automation),
             (ident, "Records removed for other reasons", c.removed_other),
             (screen, "Records screened", c.records_screened)]
    if c.records_awaiting:
        rows.append((screen, "Records awaiting screening or a second screen", c.records_awaiting))
    rows.append((screen, "Records excluded", c.records_excluded))
    rows += [(screen, f"Records excluded: {r}", n) for r, n in c.excluded_reasons.items()]
    if c.excluded_ranked is not None:
        rows.append((screen, "Records excluded, screened in ranked order", c.excluded_ranked))
    rows += [(screen, "Reports sought for retrieval", c.reports_sought),
             (screen, "Reports not retrieved", c.reports_not_retrieved)]
    if c.reports_awaiting:
        rows.append((screen, "Reports awaiting assessment", c.reports_awaiting))
    rows += [(screen, "Reports assessed for eligibility", c.reports_assessed),
             (screen, "Reports excluded", _total(c.reports_excluded))]
    rows += [(screen, f"Reports excluded: {r}", n) for r, n in c.reports_excluded.items()]
    rows += _other_rows(c.other) if c.other else []
    new = "New studies" if c.updated else "Studies"
    rows += [(incl, f"{new} included in review", c.studies_included),
             (incl, f"Reports of {'new ' if c.updated else ''}included studies", c.included_reports)]
    if c.updated:
        prev_reports = c.previous_reports if c.previous_reports is not None else c.previous_studies
        rows += [(incl, "Studies included in previous version of review", c.previous_studies),
                 (incl, "Reports of studies included in previous version of review", prev_reports),
                 (incl, "Total studies included in review", c.previous_studies + c.studies_included),
                 (incl, "Reports of total included studies", prev_reports + c.included_reports)]
    return rows


def _other_rows(o: OtherMethods) -> list[tuple[str, str, int]]:
    ident, screen = "Identification (other methods)", "Screening (other methods)"
    rows = [(ident, f"Records identified from {name}", n) for name, n in o.identified.items()]
    rows += [(screen, "Reports sought for retrieval", o.sought), (screen, "Reports not retrieved", o.not_retrieved)]
    if o.awaiting:
        rows.append((screen, "Reports awaiting assessment", o.awaiting))
    rows += [(screen, "Reports assessed for eligibility", o.assessed),
             (screen, "Reports excluded", _total(o.excluded))]
    return rows + [(screen, f"Reports excluded: {r}", n) for r, n in o.excluded.items()]

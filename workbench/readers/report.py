"""What reading did, file by file: records read, skipped (and why), merged, and warnings.

Nothing is dropped silently: every record a reader could not use is listed with the file, the
line and the reason, and every duplicate merged away is listed with the record it joined.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MERGE_RULES", "REPORT_LIMIT", "FileReport", "ReadReport", "merge_rule", "rule_counts"]

#: How many skipped / warning / merge lines :meth:`ReadReport.lines` prints per list by default.
REPORT_LIMIT = 20


@dataclass
class FileReport:
    """What happened to one file: how many records were read, skipped (and why), merged.

    ``skipped`` and ``warnings`` hold one message per record or problem, each starting with
    ``<file>:<line>:`` where the line is known.
    """

    path: str
    format: str
    read: int = 0
    skipped: list[str] = field(default_factory=list)
    merged: int = 0
    warnings: list[str] = field(default_factory=list)
    encoding: str = "utf-8"
    error: str | None = None  # why a file found in a folder could not be read at all

    def line(self) -> str:
        if self.error is not None:
            return f"{self.path}: not read: {self.error}"
        return f"{self.path} ({self.format}): {self.read} read, {len(self.skipped)} skipped, {self.merged} merged"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _capped(prefix: str, items: list[str], limit: int | None) -> list[str]:
    shown = items if limit is None else items[:limit]
    out = [f"  {prefix}: {s}" for s in shown]
    if len(items) > len(shown):
        out.append(f"  ... and {len(items) - len(shown)} more {prefix} lines")
    return out


#: Deduplication's rules in words, by how a merge's reason starts (``workbench.dedupe.rules``
#: writes the reasons): the first prefix that matches names the rule.
MERGE_RULES = (("same DOI", "same DOI"), ("same arXiv id", "same arXiv id"), ("same PMID", "same PMID"),
               ("same abstract", "same abstract"), ("same title and abstract", "same title and abstract"),
               ("titles ", "near-identical titles"), ("same short title", "near-identical titles"),
               ("same title and year", "same title and year once merged"),
               ("same title,", "same title and year, no abstract or identifier"))


def merge_rule(reason: str) -> str:
    """The rule a merge's reason names (``"same DOI 10.1/x"`` -> ``"same DOI"``); "other" when none."""
    return next((rule for prefix, rule in MERGE_RULES if reason.startswith(prefix)), "other")


def rule_counts(reasons) -> dict[str, int]:
    """``{rule: merges}`` of merge reasons, most first (ties by name)."""
    counts: dict[str, int] = {}
    for reason in reasons:
        rule = merge_rule(reason)
        counts[rule] = counts.get(rule, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass
class ReadReport:
    """The report of one :func:`~workbench.readers.read_sources` call.

    ``merges`` has one line per duplicate merged away: which record joined which, and why.
    ``kept`` is the number of papers returned after merging. ``skipped_folders`` has one line
    per folder not read because it is a review (the one being built, or another).
    """

    files: list[FileReport] = field(default_factory=list)
    merges: list[str] = field(default_factory=list)
    kept: int | None = None
    skipped_folders: list[str] = field(default_factory=list)  # review folders left out, and why
    reused: list[str] = field(default_factory=list)  # files whose records a cache held (not read again)
    deduplication_reused: bool = False  # what deduplication found, from a cache (no file changed)
    cache_key: str | None = None  # with a cache: what the papers depend on (every file's bytes, the options)

    @property
    def read(self) -> int:
        return sum(f.read for f in self.files)

    @property
    def skipped(self) -> int:
        return sum(len(f.skipped) for f in self.files)

    @property
    def merged(self) -> int:
        return sum(f.merged for f in self.files)

    def merge_reasons(self) -> list[str]:
        """Each merge's reason (``"same DOI 10.1/x"``), in the order of :attr:`merges`."""
        return [line.rpartition(" (")[2].removesuffix(")") for line in self.merges]

    def merged_by_rule(self) -> dict[str, int]:
        """How many duplicates each deduplication rule merged away (:func:`rule_counts`), for the
        methods text."""
        return rule_counts(self.merge_reasons())

    def lines(self, limit: int | None = REPORT_LIMIT) -> list[str]:
        """Human-readable report: one line per file, then its skips and warnings, then merges.

        At most ``limit`` lines of each list are shown (``None`` shows all); the rest is counted.
        """
        out: list[str] = list(self.skipped_folders)
        for f in self.files:
            out.append(f.line())
            out.extend(_capped("skipped", f.skipped, limit))
            out.extend(_capped("warning", f.warnings, limit))
        if self.merges:
            out.extend(_capped("merged", self.merges, limit))
        if len(self.files) > 1 or self.merges:
            kept = self.kept if self.kept is not None else self.read - self.merged
            unread = sum(f.error is not None for f in self.files)
            out.append(
                f"total: {self.read} read from {_n(len(self.files) - unread, 'file')}, {self.skipped} skipped, "
                f"{self.merged} merged as duplicates, {kept} papers"
                + (f"; {_n(unread, 'file')} not read (see above)" if unread else "")
            )
        return out

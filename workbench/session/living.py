"""A living review in the notebooks: adding a new search, and the pairs of papers that may be one.

Plain Python, no ipywidgets, working through the review's API (``workbench.update``,
``review.updates``). :class:`LivingWork` is the session's part (``session.living``; an update
switches the session to the updated review, as a reload does); :class:`DuplicateQueue` is the queue of uncertain pairs a person
settles one at a time, side by side: "same paper" (merged, annotations follow), "different"
(kept apart for good), undo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..corpus.paper import source_file
from ..errors import InputError, WorkbenchError
from ..review import NEW_SINCE, update
from .text import authors_line

__all__ = ["DuplicateQueue", "LivingWork", "PairCard", "SideCard", "UpdateDone", "UpdateFailed", "split_paths"]

ABSTRACT_START = 320  # characters of each abstract a pair shows
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def split_paths(text: str | list) -> list[str]:
    """The files typed in the box: one per line, or separated by commas; quotes dropped."""
    items = text if isinstance(text, (list, tuple)) else re.split(r"[\n,]", text or "")
    return [str(i).strip().strip("'\"").strip() for i in items if str(i).strip().strip("'\"").strip()]


class UpdateFailed(WorkbenchError):
    """An update that stopped: what went wrong, and whether the review is as it was."""


@dataclass(frozen=True)
class UpdateDone:
    """What an update from the notebook did (``report``: the ``UpdateReport``), in ``lines``."""

    report: object
    lines: tuple[str, ...]

    @property
    def headline(self) -> str:
        return self.lines[0]


def _source_line(s, new_by_file: dict, found_by_file: dict) -> str:
    where = f"{s.kind} {s.name}" + (f", searched {s.searched_on}" if s.searched_on else "") + \
        (f", query {s.query!r}" if s.query else "")
    dups = found_by_file.get(s.path, 0)
    within = s.merged - dups
    return (f"{Path(s.path).name} ({where}): {s.identified} records: {new_by_file.get(s.path, 0)} new, {dups} "
            f"already in the review" + (f", {within} duplicates within the search" if within else "")
            + (f", {s.skipped} without a title or abstract (skipped)" if s.skipped else ""))


def describe_update(report, screened: dict[str, str], fresh: dict[str, str]) -> tuple[str, ...]:
    """The update in words: how many new, duplicates of which screened papers, from which source
    (``screened``: a paper's decision by id, ``fresh``: each new paper's source, "<file>:<line>")."""
    new_by_file: dict[str, int] = {}
    for source in fresh.values():
        key = source_file(source)
        new_by_file[key] = new_by_file.get(key, 0) + 1
    found_by_file: dict[str, int] = {}
    for d in report.duplicates:
        key = source_file(d.record)
        found_by_file[key] = found_by_file.get(key, 0) + 1
    decided = [d for d in report.duplicates if d.paper in screened]
    listed = f" (tagged {report.tag!r}: show 'new since {report.since}' lists them)" if report.new else ""
    lines = [f"{len(report.new)} new papers{listed}, {len(report.duplicates)} records already in the review, "
             f"{len(decided)} of them screened papers (decisions, tags and notes kept)"]
    lines += [_source_line(s, new_by_file, found_by_file) for s in report.sources]
    lines += [f"{Path(d.record).name} is the screened paper {d.paper} {d.title[:60]!r} ({screened[d.paper]}; "
              f"{d.reason})" for d in decided[:10]]
    if len(decided) > 10:
        lines.append(f"... and {len(decided) - 10} more screened papers found again")
    lines += [line.strip() for line in report.read.lines() if line.strip().startswith("skipped:")][:5]
    if report.kept_apart:
        lines.append(f"{report.kept_apart} records kept apart from a paper as a person decided (different papers)")
    return tuple(lines)


class LivingWork:
    """A living review in a session (``session.living``): a new search added, duplicates settled."""

    def __init__(self, session):
        self.session = session

    def read_before(self, sources) -> list[str]:
        """Which of ``sources`` the review has read already (in its build or an update)."""
        known = {s.path for s in self.session.store.sources.recorded(in_build=False)}
        return [s for s in split_paths(sources) if str(Path(s).resolve()) in known or s in known]

    def update(self, sources, database: str = "", searched_on: str = "", query: str = "") -> UpdateDone:
        """Add the records of a new search (``sources``: files, or the box's text) to the review,
        with its provenance (the same for every file: ``database`` name, the date ``searched_on``
        YYYY-MM-DD, the ``query``), then show the updated review (as :meth:`Session.reload` does)."""
        self.session.team.require_name()
        files = split_paths(sources)
        if not files:
            raise InputError("no file given; type the path of the new search's export (e.g. ../pubmed-2025.ris); "
                             "nothing was changed")
        if searched_on and not DATE.fullmatch(searched_on.strip()):
            raise InputError(f"date searched {searched_on!r}; expected YYYY-MM-DD (e.g. 2025-03-01); nothing was changed")
        given = {k: v.strip() for k, v in (("database", database), ("searched_on", searched_on), ("query", query))
                 if v and v.strip()}
        try:
            updated = update(files, self.session.saved, {f: given for f in files} if given else None,
                             reviewer=self.session.reviewer)
        except WorkbenchError as err:
            raise UpdateFailed(f"{err}; {self._unchanged()}") from err
        screened = {pid: e["decision"] for pid, e in self.session.store.summary().items() if e.get("decision")}
        new = set(updated.update_report.new)
        fresh = {p.id: p.source for p in updated.papers if p.id in new}
        self.session.reload()
        return UpdateDone(updated.update_report, describe_update(updated.update_report, screened, fresh))

    def _unchanged(self) -> str:
        """Whether a failed update left the review as it was, checked on disk (the generation
        of its files the store names is still the one this session shows)."""
        return ("nothing was changed: the review is as it was" if self.session.saved.is_current() else
                "the review on disk is not the one shown here: press Reload to see it as it is")

    def settle_duplicates(self, first: str, second: str, verdict: str):
        """``"same"``: ``second`` merged into ``first`` (annotations follow); ``"different"``:
        kept apart for good. One undo takes either back (``review.updates.settle_duplicates``)."""
        self.session.team.require_name()
        found = self.session.saved.updates.settle_duplicates(self.session.resolve(first), self.session.resolve(second),
                                                             verdict, store=self.session.store)
        self.session.notify("duplicates", [first, second])
        return found

    def new_dates(self) -> list[str]:
        """The dates of the review's updates ("new since" tags), latest first."""
        return sorted(set(self.session.saved.updates.new_since().values()), reverse=True)


@dataclass(frozen=True)
class SideCard:
    """One paper of a pair as the duplicates queue shows it."""

    id: str
    title: str
    authors: str
    year: int | None
    doi: str
    abstract: str  # its start
    sources: tuple[str, ...]
    decisions: dict = field(default_factory=dict)  # reviewer -> "decision (reason)", as visible
    tags: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    new_since: str | None = None

    @property
    def annotations(self) -> int:
        return len(self.decisions) + len(self.tags) + len(self.notes)


@dataclass(frozen=True)
class PairCard:
    first: SideCard
    second: SideCard
    score: float
    why_apart: str
    position: int
    total: int


class DuplicateQueue:
    """The pairs of papers that may be one (``review.updates.duplicate_candidates``), one at a time."""

    def __init__(self, session):
        self.session = session
        self.pairs: list = []
        self.position = 0
        self.last = ""
        self.refresh()

    def refresh(self) -> int:
        """The unsettled pairs again (after an undo, a reload or an update); returns how many."""
        current = self.current
        self.pairs = self.session.saved.updates.duplicate_candidates()
        keys = [(c.first, c.second) for c in self.pairs]
        here = (current.first, current.second) if current else None
        self.position = keys.index(here) if here in keys else min(self.position, max(len(keys) - 1, 0))
        return len(self.pairs)

    @property
    def current(self):
        return self.pairs[self.position] if 0 <= self.position < len(self.pairs) else None

    @property
    def left(self) -> int:
        return len(self.pairs)

    def next(self) -> None:
        self.position = min(self.position + 1, max(len(self.pairs) - 1, 0))

    def previous(self) -> None:
        self.position = max(self.position - 1, 0)

    def _side(self, pid: str, new: dict) -> SideCard:
        s = self.session
        paper = s.saved.paper(pid)
        view = s.team.visible(pid)
        decisions = {who: d.decision + (f" ({d.reason})" if d.reason else "") for who, d in view.decisions.items()}
        tags = sorted({t for names in view.tags.values() for t in names if not t.startswith(NEW_SINCE)})
        notes = [n.text for found in view.notes.values() for n in found]
        text = paper.abstract or ""
        return SideCard(pid, paper.title, authors_line(paper.authors, paper.et_al), paper.year, paper.doi or "",
                        text[:ABSTRACT_START] + ("…" if len(text) > ABSTRACT_START else ""),
                        tuple(paper.sources), decisions, tags, notes, new.get(pid))

    def card(self) -> PairCard | None:
        c = self.current
        if c is None:
            return None
        new = self.session.saved.updates.new_since()
        return PairCard(self._side(c.first, new), self._side(c.second, new), c.score, c.why_apart,
                        self.position + 1, len(self.pairs))

    def _require(self):
        if self.current is None:
            raise InputError("no pairs left to settle")
        return self.current

    def same(self):
        """The pair is one paper: the one with fewer annotations (else the newer one) is merged
        into the other, its decisions, tags and notes following. Returns the verdict."""
        c = self._require()
        card = self.card()
        keep, gone = card.first, card.second
        if (gone.annotations, gone.new_since is None) > (keep.annotations, keep.new_since is None):
            keep, gone = gone, keep
        verdict = self.session.living.settle_duplicates(keep.id, gone.id, "same")
        self._settled(c)
        self.last = (f"same paper: {gone.id} merged into {keep.id} (its decisions, tags and notes follow); "
                     f"{self.left} pairs left")
        return verdict

    def different(self):
        """The pair are two papers: kept apart by every later update and rebuild."""
        c = self._require()
        verdict = self.session.living.settle_duplicates(c.first, c.second, "different")
        self._settled(c)
        self.last = f"different papers: {c.first} and {c.second} kept apart for good; {self.left} pairs left"
        return verdict

    def _settled(self, c) -> None:
        """Drop the settled pair, and any other pair of a paper merged away."""
        gone = self.session.saved.updates.merged_away()
        self.pairs = [p for p in self.pairs if p != c and p.first not in gone and p.second not in gone]
        self.position = min(self.position, max(len(self.pairs) - 1, 0))

    def undo(self):
        """Undo this reviewer's last change (a verdict: the pair comes back, shown). Returns
        :class:`~workbench.widgets.Undone`."""
        undone = self.session.undo()
        self.refresh()
        keys = [{c.first, c.second} for c in self.pairs]
        papers = set(undone.papers)
        match = next((i for i, k in enumerate(keys) if k <= papers), None)
        if match is not None:
            self.position = match
        self.last = f"{undone.text}; {self.left} pairs left"
        return undone


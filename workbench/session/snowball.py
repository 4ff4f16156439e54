"""The "Snowball" panel's state in plain Python (no ipywidgets): citation searching from the
review's included papers, the candidates as rows to show, and the lookup file written.

It works through the review's API (``review.field.snowball``, ``workbench.review.write_lookup``) as
the session's reviewer, so in blind mode the panel starts only from the included papers that
reviewer may see. The view is ``workbench.widgets._snowball``; tests drive this class directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..review import SNOWBALL_LOOKUPS, write_lookup

__all__ = ["SnowballPanel", "SnowballRow"]

ROWS_SHOWN = 50  # candidates listed in the panel (the lookup file has them all)


@dataclass(frozen=True)
class SnowballRow:
    """One candidate as the panel lists it."""

    rank: int
    count: int
    key: str
    doi: str | None
    openalex: str | None
    titles: tuple[str, ...]  # the titles of the review's papers pointing to it (the first three)


class SnowballPanel:
    """Find the works the included papers cite (or that cite them) and write their lookup file."""

    def __init__(self, session):
        self.session = session
        self.found = None  # workbench.field.Snowball of the last find()

    def find(self, direction: str = "backward", from_: str = "included"):
        """Snowball from the review's papers ``from_`` in ``direction`` (see ``review.field.snowball``)."""
        self.found = self.session.saved.field.snowball(direction, from_, store=self.session.store)
        return self.found

    def summary(self) -> str:
        if self.found is None:
            return "Press Find to list the works the included papers cite."
        return self.found.lines()[0]

    def rows(self, limit: int = ROWS_SHOWN) -> list[SnowballRow]:
        if self.found is None:
            return []
        review = self.session.saved
        return [SnowballRow(i, c.count, c.key, c.doi, c.openalex, tuple(review.paper(pid).title for pid in c.by[:3]))
                for i, c in enumerate(self.found.candidates[:limit], 1)]

    def default_path(self, kind: str) -> Path:
        """Where the lookup file goes unless told: ``<review>/report/snowball-<direction>-<kind>.txt``."""
        direction = self.found.direction if self.found is not None else "backward"
        return self.session.saved.path / "report" / f"snowball-{direction}-{kind}.txt"

    def write(self, kind: str = "dois", path=None) -> tuple[Path, int]:
        """Write the lookup file (``dois`` or ``openalex``) of the last find; returns where it went
        and how many lines it has. Refused before a find, and onto a review's own files."""
        if kind not in SNOWBALL_LOOKUPS:
            raise InputError(f"lookup {kind!r}: expected one of {', '.join(SNOWBALL_LOOKUPS)}")
        if self.found is None:
            raise InputError("nothing found yet: press Find first; nothing was written")
        target = Path(path) if path else self.default_path(kind)
        if target.parent == self.session.saved.path / "report":
            target.parent.mkdir(exist_ok=True)
        where = write_lookup(self.found, target, kind, store_path=self.session.saved.path / "annotations.sqlite")
        return where, self.found.lookup(kind).count("\n")

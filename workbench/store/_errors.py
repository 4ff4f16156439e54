"""The store's exceptions, all :class:`workbench.errors.StoreError` subclasses.

Each message says what was received, what was expected and what to do next; the command line
prints it as one line.
"""

from __future__ import annotations

from ..errors import StoreError

__all__ = [
    "AmbiguousPaperError",
    "AnnotationInputError",
    "DamagedStoreError",
    "ForeignSnapshotError",
    "MergedPaperWarning",
    "NotAStoreError",
    "StoreError",
    "StoreVersionError",
    "UndoConflictError",
    "UnknownPaperError",
]


class NotAStoreError(StoreError):
    """The file at the store's path is not a workbench annotation store (the file is left as is)."""


class DamagedStoreError(NotAStoreError):
    """The file is (or was) a workbench store but SQLite finds it damaged: restore a snapshot."""


class StoreVersionError(StoreError):
    """The store was written by a newer workbench than this one, or its schema version does not
    match its tables."""


class ForeignSnapshotError(StoreError):
    """A snapshot given to restore belongs to another review (or cannot be told to be this one's)."""


class UnknownPaperError(StoreError, LookupError):
    """No paper in the store has this id or id prefix."""


class AmbiguousPaperError(StoreError, LookupError):
    """An id prefix matches more than one paper."""


class AnnotationInputError(StoreError, ValueError):
    """A tag, note, decision, topic number or file given to the store is not usable."""


class UndoConflictError(StoreError):
    """A change cannot be undone because a later change touched the same annotation."""


class MergedPaperWarning(UserWarning):
    """A paper named by an id a person merged into another ("same paper"): the work went to the
    paper it joined. ``merged`` maps each id given that was merged away to its chain of merges,
    ``[given, joined, ...]`` (the last is the paper used); ``joined`` says that in words."""

    def __init__(self, merged: dict[str, list[str]]):
        self.merged = dict(merged)
        super().__init__(f"{self.joined}; working on {self.into}")

    @property
    def into(self) -> str:
        """The paper the work went to (with several ids merged away: "the papers they joined")."""
        chains = list(self.merged.values())
        return chains[0][-1] if len(chains) == 1 else "the papers they joined"

    @property
    def joined(self) -> str:
        """``"B was merged into A (same paper)"``, a chain of merges in order, or a count."""
        def one(chain):
            steps = ", then ".join(f"{a} into {b}" for a, b in zip(chain[1:-1], chain[2:]))
            return f"{chain[0]} was merged into {chain[1]}" + (f", then {steps}" if steps else "")

        chains = list(self.merged.values())
        if len(chains) == 1:
            return one(chains[0]) + " (same paper)"
        shown = "; ".join(f"{c[0]} into {c[-1]}" for c in chains[:3]) + ("; ..." if len(chains) > 3 else "")
        return f"{len(chains)} of the papers given were merged into others (same paper: {shown})"

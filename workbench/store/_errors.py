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

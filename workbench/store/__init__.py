"""The annotation store: tags, notes, screening decisions and topic edits of one review.

One SQLite file per review (``<review>/annotations.sqlite``), written one user action per
transaction, with a history of every change and undo::

    from workbench.store import Store
    store = Store.open("review", reviewer="ana")
    store.tags.add("3f2a9c", "relevant", "rl")
    store.decisions.decide("3f2a9c", "include", reason="on topic")   # shown=Shown(rank=, score=, model=): how it was made
    store.decisions.decide("3f2a9c", "exclude", reason="wrong population", stage="full_text")
    store.team.set_final("3f2a9c", "include", reason="agreed in the meeting")  # a resolved conflict
    store.files.export("bibtex", "review/annotations.bib")
    store.undo()

The store keeps what is its own (opening, transactions, the reviewer, the papers and their ids,
the history and undo) and holds each concern as a part: ``store.tags``, ``store.notes``,
``store.decisions``, ``store.team``, ``store.sources``, ``store.duplicates``, ``store.topics``,
``store.settings``, ``store.stopping`` and ``store.files`` (see :class:`Store`).

Annotations are keyed by the stable paper id, so they survive rebuilds; papers that leave
the corpus keep theirs and are reported as orphaned. Topic names survive refits through
topic identities matched by shared papers (:func:`match_topics`). Reviewing as a team: each
reviewer's decisions (per stage), tags and notes are their own rows, blind mode shows a reviewer
only what ``workbench.team.blind`` allows, final decisions settle conflicts, and the review keeps
its inclusion criteria, exclusion reasons and sources (with their search provenance).
"""

from ._errors import (
    AmbiguousPaperError,
    AnnotationInputError,
    DamagedStoreError,
    ForeignSnapshotError,
    MergedPaperWarning,
    NotAStoreError,
    StoreError,
    StoreVersionError,
    UndoConflictError,
    UnknownPaperError,
)
from ._encode import csv_cell
from ._encode import md_code as markdown_code
from ._encode import md_lines as markdown_lines
from ._encode import md_text as markdown_text
from ._annotations import MAX_NOTE
from ._destination import check_output, write_output
from ._backup import snapshot_lines
from ._export import FORMATS
from ._reports import (
    DECISIONS,
    Decision,
    DuplicateVerdict,
    ExclusionReason,
    HistoryEntry,
    ImportReport,
    Note,
    Source,
    SyncReport,
    Tag,
    TopicReport,
)
from ._open import read_only_reason
from ._parts import Decisions, Duplicates, Files, Notes, Settings, Sources, Stopping, Tags, Team, Topics
from ._restore import Restored
from ._schema import DB_NAME, GENERATIONS, SCHEMA_VERSION
from ._screening import ScreeningRecord, Shown
from ._settings import SETTINGS, StoppingClaim
from ._sources import KINDS as SOURCE_KINDS
from ._sources import check_date, check_provenance
from ._reviewer import LABELS_REVIEWER, MAX_REVIEWER, check_reviewer
from ._store import NETWORK_FS_ENV, REVIEWER_ENV, Store, default_reviewer, restore
from ._topics import match_topics

__all__ = [
    "LABELS_REVIEWER",
    "DB_NAME",
    "GENERATIONS",
    "DECISIONS",
    "DuplicateVerdict",
    "FORMATS",
    "MAX_NOTE",
    "MAX_REVIEWER",
    "NETWORK_FS_ENV",
    "REVIEWER_ENV",
    "SCHEMA_VERSION",
    "SETTINGS",
    "SOURCE_KINDS",
    "AmbiguousPaperError",
    "AnnotationInputError",
    "DamagedStoreError",
    "Decision",
    "Decisions",
    "Duplicates",
    "ExclusionReason",
    "Files",
    "ForeignSnapshotError",
    "HistoryEntry",
    "ImportReport",
    "MergedPaperWarning",
    "NotAStoreError",
    "Note",
    "Notes",
    "Restored",
    "ScreeningRecord",
    "Shown",
    "Settings",
    "Source",
    "Sources",
    "Stopping",
    "StoppingClaim",
    "Store",
    "StoreError",
    "StoreVersionError",
    "SyncReport",
    "Tag",
    "Tags",
    "Team",
    "TopicReport",
    "Topics",
    "UndoConflictError",
    "UnknownPaperError",
    "check_date",
    "check_output",
    "csv_cell",
    "check_provenance",
    "check_reviewer",
    "default_reviewer",
    "markdown_code",
    "markdown_lines",
    "markdown_text",
    "match_topics",
    "read_only_reason",
    "restore",
    "snapshot_lines",
    "write_output",
]

"""The :class:`Store`: the one object the widgets, the review API and the command line use.

The store itself keeps what is its own: opening and closing (one connection per file per
process, ``_connection``), transactions, who the reviewer is, the papers and their ids (every id
resolves through ``_papers``), the history and undo. Each concern of the annotations is one of
its parts (``_parts``), held as an attribute: ``store.tags``, ``store.notes``,
``store.decisions``, ``store.team``, ``store.sources``, ``store.duplicates``, ``store.topics``,
``store.settings``, ``store.stopping`` and ``store.files``. Each method, the store's or a part's,
is one user action, saved in its own transaction before it returns, so a click in a widget is on
disk when the click handler ends.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from .._runtime.fsutil import refuse_network_filesystem
from . import _connection, _files, _history, _identity, _papers, _restore, _visible
from ._errors import DamagedStoreError, NotAStoreError, StoreError
from ._guard import call, failure, guarded, writes
from ._handle import Handle
from ._parts import Decisions, Duplicates, Files, Notes, Settings, Sources, Stopping, Tags, Team, Topics
from ._reports import HistoryEntry, SyncReport
from ._reviewer import REVIEWER_ENV, default_reviewer
from ._schema import db_path

__all__ = ["NETWORK_FS_ENV", "REVIEWER_ENV", "Store", "default_reviewer", "restore"]

#: Set to 1 to open a store on a network file system anyway (see :meth:`Store.open`).
NETWORK_FS_ENV = "WORKBENCH_ALLOW_NETWORK_FS"


class Store:
    """A review's tags, notes, screening decisions and topic edits, in one SQLite file.

    Open with :meth:`Store.open`; every change records ``reviewer`` and goes into the
    history, from which :meth:`undo` can revert it. The annotations are reached through the
    store's parts (see ``_parts``)::

        store.tags.add(pid, "relevant")            # .remove .of .by_reviewer .papers_with .vocabulary
        store.notes.add(pid, "read the methods")   # .add_each .edit .delete .of .by_reviewer
        store.decisions.decide(pid, "include")     # .of .votes .every .records
        store.team.set_final(pid, "include")       # blind mode, criteria, exclusion reasons, finals
        store.duplicates.settle(a, b, "same")      # .verdicts .apart_pairs .merged_into .votes_kept
        store.topics.rename(3, "Proteins")         # .record .apply_edits .current .merge .move_paper
        store.sources.recorded()                   # .record .set_provenance
        store.settings.set("title", "...")         # .read
        store.stopping.log(advice)                 # .claims
        store.files.export("csv", "out.csv")       # .import_annotations .backup .snapshots .restore .check
    """

    #: Tags on papers and the tag vocabulary.
    tags: Tags
    #: Notes on papers.
    notes: Notes
    #: Screening decisions, with how each was made.
    decisions: Decisions
    #: Reviewing as a team: blind mode, reviewers per paper, criteria, exclusion reasons, final decisions.
    team: Team
    #: The source files of the builds, with their search provenance.
    sources: Sources
    #: Papers a person said are the same, or different.
    duplicates: Duplicates
    #: Each build's topics and the human edits laid over them.
    topics: Topics
    #: The review's settings.
    settings: Settings
    #: The log of stopping claims.
    stopping: Stopping
    #: Exports and imports, snapshots and restore, the health check, the review's current files.
    files: Files

    def __init__(self, shared: _connection.SharedConnection, reviewer: str, reviewer_given: bool = True):
        self._handle = handle = Handle(shared, reviewer, reviewer_given)  # what the parts share
        self.tags = Tags(handle)
        self.notes = Notes(handle)
        self.decisions = Decisions(handle)
        self.team = Team(handle)
        self.sources = Sources(handle)
        self.duplicates = Duplicates(handle)
        self.topics = Topics(handle)
        self.settings = Settings(handle)
        self.stopping = Stopping(handle)
        self.files = Files(handle)

    @property
    def path(self) -> Path:
        """The store's file, ``<review>/annotations.sqlite``."""
        return self._handle.path

    @property
    def reviewer(self) -> str:
        """Who this handle reads and writes as: every change records the name."""
        return self._handle.reviewer

    @property
    def reviewer_given(self) -> bool:
        """Whether the reviewer's name was given (to :meth:`open` or in ``$WORKBENCH_REVIEWER``)
        rather than taken from the OS user (refused for changes in team use, see :class:`Team`)."""
        return self._handle.reviewer_given

    @classmethod
    def open(cls, path, reviewer: str | None = None, *, create: bool = True,
             allow_network_filesystem: bool = False) -> Store:
        """Open (creating or migrating as needed) the store of a review folder or file.

        ``path`` is the review folder (the store is ``<folder>/annotations.sqlite``) or the
        database file itself. ``reviewer`` defaults to ``$WORKBENCH_REVIEWER``, then the OS
        user (refused for changes in team use, see :class:`~._parts.Team`). With ``create=False`` a missing
        store is an error instead of a new file.

        A folder on a network file system (NFS, SMB, sshfs...) is refused: SQLite cannot lock
        there, and its write-ahead log needs memory shared by every process on the file. Work in
        a local folder and share by export and import; ``allow_network_filesystem=True`` (or
        ``$WORKBENCH_ALLOW_NETWORK_FS=1``) opens it anyway, when one person at a time uses it.

        Every handle on one file in one process shares one connection (see ``_connection``):
        open and close handles freely; the connection closes with the last one.
        """
        name = default_reviewer(reviewer)  # a name it refuses is refused before the store is opened
        given = bool((reviewer is not None and str(reviewer).strip()) or os.environ.get(REVIEWER_ENV, "").strip())
        file = db_path(path)
        allow = allow_network_filesystem or os.environ.get(NETWORK_FS_ENV, "").strip() in ("1", "yes", "true")
        shared = _connection.acquire(file, create=create, check=lambda f: refuse_network_filesystem(f, allow=allow))
        return cls(shared, name, given)

    def close(self) -> None:
        """Close this handle (the process's connection closes with its last handle)."""
        self._handle.close()

    @property
    def read_only(self) -> str | None:
        """Why this process may only read the store (None when it may write)."""
        return self._handle.read_only

    @contextlib.contextmanager
    def transaction(self):
        """Make every change inside the block one transaction: all of them are saved, or none.

        Each store method called inside still records its own history entry; a failure
        anywhere in the block rolls all of them back. Other processes wait (up to the busy
        timeout) while the block runs, so keep it short: compute first, then write.
        """
        call(self, lambda s: None, (), {}, writes=True)  # closed / forked / read-only checks
        shared = self._handle.shared
        with shared.lock:
            if shared.conn.in_transaction:  # already inside one: it decides
                yield self
                return
            try:
                shared.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise failure(self._handle, err, "nothing was saved") from err
            try:
                yield self
            except BaseException:
                if shared.conn.in_transaction:
                    shared.conn.execute("ROLLBACK")
                raise
            try:
                shared.conn.execute("COMMIT")
            except sqlite3.Error as err:
                if shared.conn.in_transaction:
                    shared.conn.execute("ROLLBACK")
                raise failure(self._handle, err, "the whole change was rolled back, nothing of it "
                                          "was saved") from err

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r}, reviewer={self.reviewer!r})"

    # ------------------------------------------------------------------ papers and their ids
    @writes
    def sync_papers(self, rows: Iterable[Mapping], key: str | None = None) -> SyncReport:
        """Upsert paper metadata and mark these papers as the current corpus.

        Papers missing from ``rows`` stay in the store with their annotations; the report
        lists the annotated ones as ``orphaned``. ``key``: a digest of what ``rows`` were made
        from; when the last sync had the same key, ``rows`` is not read (``report.unchanged``).
        """
        return _papers.sync_papers(self._handle.conn, self.reviewer, rows, key)

    @guarded
    def orphaned(self) -> list[str]:
        """The annotated papers that are no longer in the corpus."""
        return _papers.orphaned(self._handle.conn)

    @guarded
    def resolve(self, id_or_prefix: str) -> str:
        """The full id of the one paper whose id starts with ``id_or_prefix``; for an id a person
        merged into another paper ("same paper"), the paper it joined, with a
        :class:`~._errors.MergedPaperWarning` saying so (every method taking ids does the same)."""
        return _papers.resolve(self._handle.conn, id_or_prefix, str(self.path))

    @guarded
    def resolve_ids(self, id_or_ids) -> list[str]:
        """:meth:`resolve` for one id or many, each paper once, in the order given."""
        return self._handle.ids(id_or_ids)

    @guarded
    def paper(self, id_or_prefix: str) -> dict:
        """A paper's stored metadata, with ``in_corpus``."""
        return _papers.paper_rows(self._handle.conn, self._handle.ids(id_or_prefix))[0]

    @guarded
    def summary(self) -> dict[str, dict]:
        """``{paper id: {"tags", "decision", "notes"}}`` for every annotated paper, in one read
        (at title/abstract; in blind mode what this reviewer may see)."""
        return _visible.summary(self._handle.lens())

    @guarded
    def review_id(self) -> str | None:
        """This review's id (made when the store was created; see ``_identity``): what tells
        its snapshots and build files from another review's."""
        return _identity.read(self._handle.conn)

    # ------------------------------------------------------------------ history
    @guarded
    def history(self, limit: int | None = 20, paper: str | None = None, *,
                all_reviewers: bool = False) -> list[HistoryEntry]:
        """The latest changes this reviewer may see, newest first (optionally only those touching
        ``paper``, or a paper merged into it). In blind mode another reviewer's change is listed
        once this reviewer may see every annotation it changed (see ``_visible``);
        ``all_reviewers=True`` lists everyone's, and in blind mode that read is itself recorded
        in the history (see :meth:`Files.export`)."""
        pid = None if paper is None else self._handle.ids(paper)[0]
        lens = self._handle.lens(all_reviewers)
        if all_reviewers:
            self._handle.record_all_reviewers(lens, "the history" + (f" of {pid}" if pid else ""))
        family = None if pid is None else _papers.joined_family(self._handle.conn, pid)  # with the papers merged into it
        return _visible.history(lens, limit, family)

    @guarded
    def latest_change(self) -> int:
        """The number of the latest change in the history, anyone's (0: none yet): what a view
        compares to know the store changed, without reading what changed."""
        return self._handle.conn.execute("SELECT coalesce(max(id), 0) FROM history").fetchone()[0]

    @writes
    def undo(self, n: int = 1, *, everyone: bool = False) -> list[HistoryEntry]:
        """Undo this reviewer's last ``n`` changes (anyone's with ``everyone=True``: in blind mode
        those this reviewer may see). A saved topic run (``action == "topic-run"``) is undone with
        the switch to its files: the previous files and topics are the review's again (see
        :meth:`Files.set_generation`)."""
        lens = self._handle.lens()
        shown = None if lens.open or not everyone else (lambda hid, who: _visible.entry_shown(lens, hid, who))
        return _history.undo(self._handle.conn, self.reviewer, n, everyone=everyone,
                             check=_files.restorable(self.path.parent), shown=shown)

    @guarded
    def papers_changed(self, history_id: int) -> list[str]:
        """The ids of the papers the change ``history_id`` touched (what an undo should show);
        none for a change blind mode hides from this reviewer."""
        row = self._handle.conn.execute("SELECT reviewer FROM history WHERE id = ?", (history_id,)).fetchone()
        if row is None or not _visible.entry_shown(self._handle.lens(), history_id, row[0]):
            return []
        return _files.papers_changed(self._handle.conn, history_id)


def restore(review, snapshot=None, *, reviewer: str | None = None, force: bool = False) -> _restore.Restored:
    """Restore a snapshot into the review (folder or store file) ``review``, whatever state its
    store is in: ``snapshot`` a name in ``<review>/backups/`` or a path (default: the newest).

    A store that opens and passes its integrity check is restored in place
    (:meth:`Files.restore`: processes holding it see the restored data); one that cannot be
    opened, fails the check, or is missing is set aside and replaced (:func:`._restore.restore_offline`).
    ``force`` restores a snapshot of another review (the review keeps its own files)."""
    path = db_path(review)
    if path.exists():
        try:
            store = Store.open(path, reviewer=reviewer, create=False)
        except NotAStoreError:  # damaged, empty, not a store: no connection was kept
            pass
        else:
            with store:
                try:
                    sound = store.files.integrity_check() == "ok"
                except DamagedStoreError:
                    sound = False
                if sound:
                    return store.files.restore(snapshot, force=force)
                if _connection.open_count(path) > 1:
                    raise StoreError(
                        f"{path} is damaged and this process holds it open elsewhere (another "
                        "Store or Session); close those (or restart the kernel) and restore "
                        "again; nothing was changed")
    return _restore.restore_offline(path, snapshot, reviewer=default_reviewer(reviewer), force=force)

"""The :class:`Store`: the one object the widgets, the review API and the command line use.

Each method is one user action, saved in its own transaction before it returns, so a click in a
widget is on disk when the click handler ends. The methods are thin: the work is done by the
functions in ``_papers``, ``_annotations``, ``_topics``, ``_history``, ``_export`` and
``_import``, which take a connection and can be read one module at a time.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Mapping

from .._runtime.fsutil import refuse_network_filesystem
from . import _backup, _connection, _destination, _files, _history, _import, _papers
from . import _identity, _restore, _topics, _visible
from . import _settings as settings_log
from ._errors import AnnotationInputError, DamagedStoreError, NotAStoreError, StoreError
from ._guard import call, failure, guarded, writes
from ._reports import HistoryEntry, ImportReport, SyncReport, TopicReport
from ._reviewer import REVIEWER_ENV, default_reviewer
from ._reviewing import ReviewerStore
from ._schema import db_path
from ._screening import ScreeningStore
from ._team import TeamStore

__all__ = ["NETWORK_FS_ENV", "REVIEWER_ENV", "Store", "default_reviewer", "restore"]

#: Set to 1 to open a store on a network file system anyway (see :meth:`Store.open`).
NETWORK_FS_ENV = "WORKBENCH_ALLOW_NETWORK_FS"


class Store(ScreeningStore, ReviewerStore, TeamStore):
    """A review's tags, notes, screening decisions and topic edits, in one SQLite file.

    Open with :meth:`Store.open`; every change records ``reviewer`` and goes into the
    history, from which :meth:`undo` can revert it. ``decide`` and ``screening_records``:
    :class:`~._screening.ScreeningStore`; tags, notes and reading decisions (blind mode):
    :class:`~._reviewing.ReviewerStore`; final decisions, criteria, exclusion reasons and
    sources: :class:`~._team.TeamStore`.
    """

    def __init__(self, shared: _connection.SharedConnection, reviewer: str, reviewer_given: bool = True):
        self._shared: _connection.SharedConnection | None = shared
        self.path = shared.path
        self.reviewer = reviewer
        self.reviewer_given = reviewer_given

    @classmethod
    def open(cls, path, reviewer: str | None = None, *, create: bool = True,
             allow_network_filesystem: bool = False) -> Store:
        """Open (creating or migrating as needed) the store of a review folder or file.

        ``path`` is the review folder (the store is ``<folder>/annotations.sqlite``) or the
        database file itself. ``reviewer`` defaults to ``$WORKBENCH_REVIEWER``, then the OS
        user (refused for changes in team use, see ``_team``). With ``create=False`` a missing
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
        shared, self._shared = self._shared, None
        if shared is not None:
            _connection.release(shared)

    @property
    def _conn(self) -> sqlite3.Connection:
        return self._shared.conn

    @property
    def read_only(self) -> str | None:
        """Why this process may only read the store (None when it may write)."""
        return None if self._shared is None else self._shared.readonly

    @contextlib.contextmanager
    def transaction(self):
        """Make every change inside the block one transaction: all of them are saved, or none.

        Each store method called inside still records its own history entry; a failure
        anywhere in the block rolls all of them back. Other processes wait (up to the busy
        timeout) while the block runs, so keep it short: compute first, then write.
        """
        call(self, lambda s: None, (), {}, writes=True)  # closed / forked / read-only checks
        shared = self._shared
        with shared.lock:
            if shared.conn.in_transaction:  # already inside one: it decides
                yield self
                return
            try:
                shared.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as err:
                raise failure(self, err, "nothing was saved") from err
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
                raise failure(self, err, "the whole change was rolled back, nothing of it "
                                          "was saved") from err

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r}, reviewer={self.reviewer!r})"

    def _ids(self, id_or_ids) -> list[str]:
        items = [id_or_ids] if isinstance(id_or_ids, str) else list(id_or_ids)
        if not items:
            raise AnnotationInputError("no paper given; pass an id, an id prefix or a list")
        return list(dict.fromkeys(_papers.resolve_many(self._conn, items, str(self.path))))

    # ------------------------------------------------------------------ corpus
    @writes
    def sync_papers(self, rows: Iterable[Mapping], key: str | None = None) -> SyncReport:
        """Upsert paper metadata and mark these papers as the current corpus.

        Papers missing from ``rows`` stay in the store with their annotations; the report
        lists the annotated ones as ``orphaned``. ``key``: a digest of what ``rows`` were made
        from; when the last sync had the same key, ``rows`` is not read (``report.unchanged``).
        """
        return _papers.sync_papers(self._conn, self.reviewer, rows, key)

    @guarded
    def orphaned(self) -> list[str]:
        return _papers.orphaned(self._conn)

    @guarded
    def resolve(self, id_or_prefix: str) -> str:
        """The full id of the one paper whose id starts with ``id_or_prefix``; for an id a person
        merged into another paper ("same paper"), the paper it joined, with a
        :class:`~._errors.MergedPaperWarning` saying so (every method taking ids does the same)."""
        return _papers.resolve(self._conn, id_or_prefix, str(self.path))

    @guarded
    def resolve_ids(self, id_or_ids) -> list[str]:
        """:meth:`resolve` for one id or many, each paper once, in the order given."""
        return self._ids(id_or_ids)

    @guarded
    def paper(self, id_or_prefix: str) -> dict:
        """A paper's stored metadata, with ``in_corpus``."""
        return _papers.paper_rows(self._conn, self._ids(id_or_prefix))[0]

    # ------------------------------------------------------------------ topics
    @writes
    def record_topics(self, assignments: Mapping[str, int], labels: Mapping[int, str],
                      words: Mapping[int, list[str]], *, min_jaccard: float = 0.2) -> TopicReport:
        """Record a (re)build's topics, matched to the previous run's; see ``TopicReport``."""
        return _topics.record_topics(self._conn, self.reviewer, assignments, labels, words,
                                     min_jaccard=min_jaccard)

    @guarded
    def apply_topic_edits(self, assignments, labels):
        """The human renames, merges and moves laid over the just-recorded build."""
        return _topics.apply_topic_edits(self._conn, assignments, labels)

    @guarded
    def current_topics(self) -> tuple[dict[str, int], dict[int, str]]:
        """The latest recorded build with every edit applied: ``(assignments, labels)``."""
        return _topics.current_topics(self._conn)

    @writes
    def rename_topic(self, topic: int, label: str) -> None:
        _topics.rename_topic(self._conn, self.reviewer, topic, label)

    @writes
    def merge_topics(self, topics: Iterable[int], into: int | None = None) -> int:
        return _topics.merge_topics(self._conn, self.reviewer, topics, into)

    @writes
    def move_paper(self, id_or_prefix: str, topic: int) -> None:
        _topics.move_paper(self._conn, self.reviewer, self._ids(id_or_prefix)[0], topic)

    # ------------------------------------------------------------------ settings
    @guarded
    def settings(self) -> dict[str, str]:
        """The review's settings that are set, e.g. ``{"title": "..."}`` (see ``SETTINGS``)."""
        return settings_log.read_settings(self._conn)

    @writes
    def set_setting(self, name: str, value: str | None) -> str | None:
        """Set one of the review's settings (None or blank: back to its default), as one
        action in the history; returns the value kept (white space folded)."""
        return settings_log.set_setting(self._conn, self.reviewer, name, value)

    @writes
    def log_stopping_claim(self, advice) -> settings_log.StoppingClaim:
        """Log a stopping rule's verdict (``StoppingAdvice`` or its ``to_dict()``), as one action."""
        return settings_log.log_stopping_claim(self._conn, self.reviewer, advice)

    @guarded
    def stopping_claims(self) -> list[settings_log.StoppingClaim]:
        """Every logged stopping claim, oldest first (the report shows the latest)."""
        return settings_log.read_stopping_claims(self._conn)

    # ------------------------------------------------------------------ history
    @guarded
    def history(self, limit: int | None = 20, paper: str | None = None, *,
                all_reviewers: bool = False) -> list[HistoryEntry]:
        """The latest changes this reviewer may see, newest first (optionally only those touching
        ``paper``, or a paper merged into it). In blind mode another reviewer's change is listed once this reviewer may see
        every annotation it changed (see ``_visible``); ``all_reviewers=True`` lists everyone's,
        and in blind mode that read is itself recorded in the history (see :meth:`export`)."""
        pid = None if paper is None else self._ids(paper)[0]
        lens = self._lens(all_reviewers)
        if all_reviewers:
            self._record_all_reviewers(lens, "the history" + (f" of {pid}" if pid else ""))
        family = None if pid is None else _papers.joined_family(self._conn, pid)  # with the papers merged into it
        return _visible.history(lens, limit, family)

    @guarded
    def latest_change(self) -> int:
        """The number of the latest change in the history, anyone's (0: none yet): what a view
        compares to know the store changed, without reading what changed."""
        return self._conn.execute("SELECT coalesce(max(id), 0) FROM history").fetchone()[0]

    @writes
    def undo(self, n: int = 1, *, everyone: bool = False) -> list[HistoryEntry]:
        """Undo this reviewer's last ``n`` changes (anyone's with ``everyone=True``: in blind mode
        those this reviewer may see). A saved topic run (``action == "topic-run"``) is undone with
        the switch to its files: the previous files and topics are the review's again (see
        :meth:`set_generation`)."""
        lens = self._lens()
        shown = None if lens.open or not everyone else (lambda hid, who: _visible.entry_shown(lens, hid, who))
        return _history.undo(self._conn, self.reviewer, n, everyone=everyone,
                             check=_files.restorable(self.path.parent), shown=shown)

    @guarded
    def papers_changed(self, history_id: int) -> list[str]:
        """The ids of the papers the change ``history_id`` touched (what an undo should show);
        none for a change blind mode hides from this reviewer."""
        row = self._conn.execute("SELECT reviewer FROM history WHERE id = ?", (history_id,)).fetchone()
        if row is None or not _visible.entry_shown(self._lens(), history_id, row[0]):
            return []
        return _files.papers_changed(self._conn, history_id)

    # ------------------------------------------------------------------ files
    @guarded
    def export(self, fmt: str, path=None, *, all_reviewers: bool = False) -> str:
        """The annotations this reviewer may see as jsonl, csv, bibtex, ris or markdown text; also
        written to ``path``. In blind mode that is their own work and what blind mode shows them
        (see ``_visible``); ``all_reviewers=True`` exports every reviewer's work, and in blind mode
        the export is recorded in the history (who, which format, where), so the team knows."""
        lens = self._lens(all_reviewers)
        if all_reviewers and lens.blind:
            self._check_named("export every reviewer's work")
        text = _destination.export(lens, fmt, path, self.path)
        if all_reviewers:
            self._record_all_reviewers(lens, f"a {fmt} export" + ("" if path is None else f" to {path}"))
        return text

    def _check_named(self, what: str) -> None:
        if not self.reviewer_given:
            raise AnnotationInputError(
                f"blind mode is on, so to {what} you must give your own name (it is recorded in the "
                f"history), and none was given (the OS user would be {self.reviewer!r}); pass --reviewer "
                "NAME, set WORKBENCH_REVIEWER=NAME, or open the store with Store.open(folder, reviewer='ana')")

    def _record_all_reviewers(self, lens, what: str) -> None:
        """Record in the history that this reviewer read every reviewer's work in blind mode (not
        on a store this process may only read, where nothing can be recorded)."""
        if not lens.blind or self.read_only:
            return
        self._check_named(f"read {what} of every reviewer's work")
        with _history.Action(self._conn, self.reviewer, "all-reviewers", undoable=False) as act:
            act.summary = f"read every reviewer's work ({what}) while blind mode is on"

    @writes
    def import_annotations(self, path, *, allow_orphans: bool = False) -> ImportReport:
        """Merge a JSONL export into this store (idempotent; conflicts reported).

        An export whose papers are mostly (more than half) not in this review is refused, as
        another review's export, unless ``allow_orphans`` (a store with no paper yet takes any);
        the report counts the papers not in it.
        A snapshot of the store is taken first (see :meth:`backup`)."""
        return _import.import_jsonl(self._conn, self.reviewer, path, allow_orphans,
                                    before=lambda: _backup.snapshot(self._conn, self.path, "before-import"))

    @guarded
    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"`` or the problems found."""
        rows = self._conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(r[0] for r in rows)

    # ------------------------------------------------------------------ the review's files
    @guarded
    def review_id(self) -> str | None:
        """This review's id (made when the store was created; see ``_identity``): what tells
        its snapshots and build files from another review's."""
        return _identity.read(self._conn)

    @guarded
    def generation(self) -> str | None:
        """The folder under ``<review>/generations/`` holding the review's current files
        (papers, topics, map, model), or None for a review that keeps them at its top level."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return None if row is None else row[0]

    @writes
    def set_generation(self, name: str, run: int | None = None) -> None:
        """Make ``name`` the review's current files. Inside :meth:`transaction` with the topic
        run that made them, the switch and the run are saved together or not at all. With
        ``run`` (that topic run's number) the two are one action that :meth:`undo` takes back."""
        _files.switch_files(self._conn, self.reviewer, name, run)

    # ------------------------------------------------------------------ snapshots
    @guarded
    def backup(self, reason: str = "manual", *, force: bool = True) -> _backup.Snapshot | None:
        """A consistent copy of the store in ``<review>/backups/`` (SQLite's backup API); the
        newest few are kept. With ``force=False`` it is skipped (None) when nothing changed
        since the newest snapshot, and on a store this process may only read."""
        if self.read_only and not force:
            return None
        return _backup.snapshot(self._conn, self.path, reason, force=force)

    def snapshots(self) -> list[_backup.Snapshot]:
        """The store's snapshots, newest first."""
        return _backup.snapshots(self.path)

    @writes
    def restore(self, snapshot=None, *, force: bool = False) -> _restore.Restored:
        """Put a snapshot's content back into the store (default: the newest snapshot).

        The snapshot is checked first, in a copy (integrity, a schema this workbench knows,
        that it belongs to this review: one of another review is refused unless ``force``),
        and the store as it is now is snapshotted, so a restore can itself be undone by
        restoring that snapshot. Other processes see the restored store on their next read.
        A store that cannot be opened at all is restored with :func:`workbench.store.restore`.
        """
        target = _backup.choose(self.path, snapshot)
        current = self._conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        current = None if current is None else current[0]
        staged = _restore.stage(target, self.path, review_id=_identity.ensure(self._conn),
                                current_generation=current, force=force)
        try:
            generation = _restore.files_to_name(staged, self.path.parent, current)
            before = _backup.snapshot(self._conn, self.path, "before-restore", force=True)
            staged.record(self.reviewer, f"restored the snapshot {target.path.name}; the store "
                                         f"before it is {before.path.name}", generation)
            staged.close(wal=False)
            _backup.restore_into(self._conn, staged.path)
        finally:
            staged.discard()
        return _restore.Restored(target, before.path, False, tuple(staged.notes))

    @guarded
    def check(self, files: bool = True) -> list[str]:
        """A health report: integrity, broken references, orphans, whether the current files
        are there (``files``; ``workbench check`` reads them too), snapshots."""
        return _backup.health(self._conn, self.path, files)


def restore(review, snapshot=None, *, reviewer: str | None = None, force: bool = False) -> _restore.Restored:
    """Restore a snapshot into the review (folder or store file) ``review``, whatever state its
    store is in: ``snapshot`` a name in ``<review>/backups/`` or a path (default: the newest).

    A store that opens and passes its integrity check is restored in place
    (:meth:`Store.restore`: processes holding it see the restored data); one that cannot be
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
                    sound = store.integrity_check() == "ok"
                except DamagedStoreError:
                    sound = False
                if sound:
                    return store.restore(snapshot, force=force)
                if _connection.open_count(path) > 1:
                    raise StoreError(
                        f"{path} is damaged and this process holds it open elsewhere (another "
                        "Store or Session); close those (or restart the kernel) and restore "
                        "again; nothing was changed")
    return _restore.restore_offline(path, snapshot, reviewer=default_reviewer(reviewer), force=force)

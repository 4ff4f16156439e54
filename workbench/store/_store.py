"""The :class:`Store`: the one object the widgets, the review API and the command line use.

Each method is one user action, saved in its own transaction before it returns, so a click in a
widget is on disk when the click handler ends. The methods are thin: the work is done by the
functions in ``_papers``, ``_annotations``, ``_topics``, ``_history``, ``_export`` and
``_import``, which take a connection and can be read one module at a time.
"""

from __future__ import annotations

import functools
import getpass
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from . import _annotations as ann
from . import _export, _history, _import, _papers, _topics
from ._errors import AnnotationInputError, StoreError
from ._reports import Decision, HistoryEntry, ImportReport, Note, SyncReport, Tag, TopicReport
from ._schema import connect, db_path

__all__ = ["REVIEWER_ENV", "Store", "default_reviewer"]

REVIEWER_ENV = "WORKBENCH_REVIEWER"


def default_reviewer(reviewer: str | None = None) -> str:
    """``reviewer`` if given, else ``$WORKBENCH_REVIEWER``, else the OS user name."""
    for candidate in (reviewer, os.environ.get(REVIEWER_ENV)):
        if candidate is not None and str(candidate).strip():
            return " ".join(str(candidate).split())
    try:
        return getpass.getuser()
    except (KeyError, OSError, ImportError):  # no user name here (some containers)
        return "unknown"


def _guarded(method):
    """Run under the store's lock and turn SQLite failures into one-line StoreErrors."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            if self._conn is None:
                raise StoreError(f"the store {self.path} is closed; open it again with "
                                 "Store.open(review_dir)")
            try:
                return method(self, *args, **kwargs)
            except sqlite3.OperationalError as err:
                if "locked" in str(err) or "busy" in str(err):
                    raise StoreError(
                        f"{self.path} is busy: another process held it for longer than the "
                        "timeout; nothing was saved, try again") from err
                raise StoreError(f"{self.path}: {err}; nothing was saved") from err
            except sqlite3.DatabaseError as err:
                raise StoreError(
                    f"{self.path} cannot be used ({err}); nothing was saved; check it with "
                    "`sqlite3 FILE 'PRAGMA integrity_check'` and restore it from a backup or "
                    "an export") from err

    return wrapper


class Store:
    """A review's tags, notes, screening decisions and topic edits, in one SQLite file.

    Open with :meth:`Store.open`; every change records ``reviewer`` and goes into the
    history, from which :meth:`undo` can revert it.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, reviewer: str):
        self._conn = conn
        self.path = path
        self.reviewer = reviewer
        self._lock = threading.RLock()

    @classmethod
    def open(cls, path, reviewer: str | None = None, *, create: bool = True) -> Store:
        """Open (creating or migrating as needed) the store of a review folder or file.

        ``path`` is the review folder (the store is ``<folder>/annotations.sqlite``) or the
        database file itself. ``reviewer`` defaults to ``$WORKBENCH_REVIEWER``, then the OS
        user. With ``create=False`` a missing store is an error instead of a new file.
        """
        file = db_path(path)
        return cls(connect(file, create=create), file, default_reviewer(reviewer))

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

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
    @_guarded
    def sync_papers(self, rows: Iterable[Mapping]) -> SyncReport:
        """Upsert paper metadata and mark these papers as the current corpus.

        Papers missing from ``rows`` stay in the store with their annotations; the report
        lists the annotated ones as ``orphaned``.
        """
        return _papers.sync_papers(self._conn, self.reviewer, rows)

    @_guarded
    def orphaned(self) -> list[str]:
        return _papers.orphaned(self._conn)

    @_guarded
    def resolve(self, id_or_prefix: str) -> str:
        """The full id of the one paper whose id starts with ``id_or_prefix``."""
        return _papers.resolve(self._conn, id_or_prefix, str(self.path))

    @_guarded
    def paper(self, id_or_prefix: str) -> dict:
        """A paper's stored metadata, with ``in_corpus``."""
        return _papers.paper_rows(self._conn, self._ids(id_or_prefix))[0]

    # ------------------------------------------------------------------ topics
    @_guarded
    def record_topics(self, assignments: Mapping[str, int], labels: Mapping[int, str],
                      words: Mapping[int, list[str]], *, min_jaccard: float = 0.2) -> TopicReport:
        """Record a (re)build's topics, matched to the previous run's; see ``TopicReport``."""
        return _topics.record_topics(self._conn, self.reviewer, assignments, labels, words,
                                     min_jaccard=min_jaccard)

    @_guarded
    def apply_topic_edits(self, assignments, labels):
        """The human renames, merges and moves laid over the just-recorded build."""
        return _topics.apply_topic_edits(self._conn, assignments, labels)

    @_guarded
    def current_topics(self) -> tuple[dict[str, int], dict[int, str]]:
        """The latest recorded build with every edit applied: ``(assignments, labels)``."""
        return _topics.current_topics(self._conn)

    @_guarded
    def rename_topic(self, topic: int, label: str) -> None:
        _topics.rename_topic(self._conn, self.reviewer, topic, label)

    @_guarded
    def merge_topics(self, topics: Iterable[int], into: int | None = None) -> int:
        return _topics.merge_topics(self._conn, self.reviewer, topics, into)

    @_guarded
    def move_paper(self, id_or_prefix: str, topic: int) -> None:
        _topics.move_paper(self._conn, self.reviewer, self._ids(id_or_prefix)[0], topic)

    # ------------------------------------------------------------------ tags
    @_guarded
    def tag(self, id_or_ids, *tags: str) -> int:
        """Add tags to one paper or many; returns how many (paper, tag) pairs were new."""
        return ann.tag(self._conn, self.reviewer, self._ids(id_or_ids), list(tags))

    @_guarded
    def untag(self, id_or_prefix: str, tag: str) -> bool:
        """Remove a tag from a paper; False when it did not have it."""
        return ann.untag(self._conn, self.reviewer, self._ids(id_or_prefix)[0], tag)

    @_guarded
    def tags(self, id_or_prefix: str) -> list[str]:
        return ann.tags_of(self._conn, self._ids(id_or_prefix)[0])

    @_guarded
    def papers_tagged(self, tag: str) -> list[str]:
        return ann.papers_tagged(self._conn, tag)

    @_guarded
    def summary(self) -> dict[str, dict]:
        """``{paper id: {"tags", "decision", "notes"}}`` for every annotated paper, in one read."""
        return ann.summary(self._conn, self.reviewer)

    @_guarded
    def vocabulary(self) -> list[Tag]:
        return ann.vocabulary(self._conn)

    @_guarded
    def describe_tag(self, tag: str, description: str | None = None,
                     colour: str | None = None) -> Tag:
        return ann.describe_tag(self._conn, self.reviewer, tag, description, colour)

    @_guarded
    def rename_tag(self, old: str, new: str) -> int:
        return ann.rename_tag(self._conn, self.reviewer, old, new)

    @_guarded
    def merge_tags(self, tags: Iterable[str], into: str) -> int:
        return ann.merge_tags(self._conn, self.reviewer, tags, into)

    @_guarded
    def delete_tag(self, tag: str) -> int:
        return ann.delete_tag(self._conn, self.reviewer, tag)

    # ------------------------------------------------------------------ notes
    @_guarded
    def note(self, id_or_prefix: str, text: str) -> int:
        """Add a note to a paper; returns the note's id."""
        return ann.add_note(self._conn, self.reviewer, self._ids(id_or_prefix)[0], text)

    @_guarded
    def note_each(self, ids, text: str) -> list[int]:
        """The same note on each of ``ids`` (ids or prefixes; a paper given twice gets one), in
        one action that one undo takes back; returns the notes' ids in the order of ``ids``."""
        return ann.add_notes(self._conn, self.reviewer, self._ids(ids), text)

    @_guarded
    def edit_note(self, note_id: int, text: str) -> None:
        ann.edit_note(self._conn, self.reviewer, note_id, text)

    @_guarded
    def delete_note(self, note_id: int) -> None:
        ann.delete_note(self._conn, self.reviewer, note_id)

    @_guarded
    def notes(self, id_or_prefix: str) -> list[Note]:
        return ann.notes_of(self._conn, self._ids(id_or_prefix)[0])

    # ------------------------------------------------------------------ decisions
    @_guarded
    def decide(self, id_or_ids, decision: str, reason: str | None = None) -> int:
        """This reviewer's include / exclude / maybe on one paper or many."""
        return ann.decide(self._conn, self.reviewer, self._ids(id_or_ids), decision, reason)

    @_guarded
    def decision(self, id_or_prefix: str, reviewer: str | None = None) -> Decision | None:
        """The current decision of ``reviewer`` (default: this store's reviewer), or None."""
        who = self.reviewer if reviewer is None else reviewer
        found = [d for d in ann.decisions_of(self._conn, self._ids(id_or_prefix)[0])
                 if d.reviewer == who]
        return found[0] if found else None

    @_guarded
    def decisions(self, id_or_prefix: str) -> list[Decision]:
        """Every reviewer's current decision on a paper."""
        return ann.decisions_of(self._conn, self._ids(id_or_prefix)[0])

    # ------------------------------------------------------------------ history
    @_guarded
    def history(self, limit: int | None = 20, paper: str | None = None) -> list[HistoryEntry]:
        """The latest changes, newest first (optionally only those touching ``paper``)."""
        pid = None if paper is None else self._ids(paper)[0]
        return _history.read_history(self._conn, limit, pid)

    @_guarded
    def undo(self, n: int = 1, *, everyone: bool = False) -> list[HistoryEntry]:
        """Undo this reviewer's last ``n`` changes (anyone's with ``everyone=True``)."""
        return _history.undo(self._conn, self.reviewer, n, everyone=everyone)

    # ------------------------------------------------------------------ files
    @_guarded
    def export(self, fmt: str, path=None) -> str:
        """The store as jsonl, csv, bibtex, ris or markdown text; also written to ``path``."""
        return _export.export(self._conn, fmt, path, self.path)

    @_guarded
    def import_annotations(self, path) -> ImportReport:
        """Merge a JSONL export into this store (idempotent; conflicts reported)."""
        return _import.import_jsonl(self._conn, self.reviewer, path)

    @_guarded
    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"`` or the problems found."""
        rows = self._conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(r[0] for r in rows)


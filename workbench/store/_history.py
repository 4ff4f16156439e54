"""Transactions, the history of every change, and undo.

Every user action runs as one :class:`Action`: a ``BEGIN IMMEDIATE`` transaction whose row
writes all go through :meth:`Action.put`, which records the row as it was before and after.
On commit the action becomes one ``history`` row (who, when, what) with its row changes in
``history_changes``. Undo replays an action's changes backwards, putting every row back as it
was before, after checking that each row is still as the action left it (otherwise a later
change would be silently overwritten, and the undo is refused with the id of that change).
An undo is itself an action in the history, so nothing is ever lost from it.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from datetime import datetime, timezone

from ._errors import AnnotationInputError, UndoConflictError
from ._reports import HistoryEntry

__all__ = ["TABLES", "Action", "now", "undo"]

_SQL_MAX = 2**63 - 1  # the largest integer SQLite takes

# table -> (key columns, value columns): the only tables an action may write.
TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "tag_vocab": (("name",), ("description", "colour", "created_by", "created_at")),
    "paper_tags": (("paper_id", "tag", "reviewer"), ("created_at",)),
    "notes": (("id",), ("uid", "paper_id", "text", "reviewer", "created_at", "updated_at")),
    "decisions": (("paper_id", "reviewer", "stage"), ("decision", "reason", "decided_at")),
    "decision_context": (  # how a decision was made (``_screening``), written with it
        ("paper_id", "reviewer", "stage"), ("rank", "score", "model", "model_version", "bulk", "sampled")
    ),
    # Reviewing as a team (``_parts.Team``): a paper's final decision at a stage, the agreed
    # exclusion reasons, and the sources of the last build with their search provenance.
    "final_decisions": (("paper_id", "stage"), ("decision", "reason", "resolved_by", "resolved_at")),
    "exclusion_reasons": (("name",), ("description", "position", "created_by", "created_at")),
    "sources": (("path",), ("kind", "name", "query", "searched_on", "format", "identified", "skipped",
                            "merged", "in_build", "recorded_at")),
    "topic_edits": (
        ("id",), ("kind", "tid", "into_tid", "paper_id", "label", "reviewer", "created_at")
    ),
    "duplicate_verdicts": (("paper_a", "paper_b"), ("verdict", "kept", "reviewer", "decided_at")),  # ``_verdicts``
    "meta": (("key",), ("value",)),  # the review's settings (``_settings``)
    "papers": (
        ("id",),
        ("title", "abstract", "authors", "year", "doi", "venue", "url", "keywords",
         "collection", "source", "in_corpus"),
    ),
    # A saved topic run and the switch to its files (``_files.switch_files``): undoing it
    # deletes the run (with its rows, see DEPENDENTS) and names the previous files again.
    "topic_runs": (("run",), ("created_at", "reviewer", "n_papers", "n_topics", "report")),
}
# table -> tables whose rows (same key) go with a row of it that an undo deletes.
DEPENDENTS = {"topic_runs": ("run_topics", "run_assignments")}


def now() -> str:
    """UTC time stamp with microseconds, sortable as text: ``2024-05-01T09:30:00.123456Z``."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode  # one encoder, not one per call


def _json(value) -> str | None:
    return None if value is None else _ENCODE(value)


class Action:
    """One user action: a write transaction that records its changes in the history.

    Use as a context manager; the transaction commits when the block ends without an error
    and rolls back otherwise. An action that changed nothing leaves no history row.
    """

    def __init__(self, conn: sqlite3.Connection, reviewer: str, action: str,
                 undoable: bool = True):
        self.conn = conn
        self.reviewer = reviewer
        self.action = action
        self.undoable = undoable
        self.summary = action
        self.changes: list[tuple[str, dict, dict | None, dict | None]] = []
        self.at = now()
        self.history_id: int | None = None
        self._then: list = []

    def then(self, callback) -> None:
        """Run ``callback(history_id)`` in the same transaction once the history row exists."""
        self._then.append(callback)

    def __enter__(self) -> Action:
        # Inside a Store.transaction() the action is a savepoint of it: its changes are saved
        # with the rest of the transaction or not at all.
        self._nested = self.conn.in_transaction
        self.conn.execute("SAVEPOINT action" if self._nested else "BEGIN IMMEDIATE")
        self.at = now()  # taken under the write lock, so history times never go backwards
        return self

    def _rollback(self) -> None:
        if not self.conn.in_transaction:  # SQLite may have rolled back already (disk full)
            return
        if self._nested:
            self.conn.execute("ROLLBACK TO action")
            self.conn.execute("RELEASE action")
        else:
            self.conn.execute("ROLLBACK")

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None:
            self._rollback()
            return
        try:
            if self.changes or not self.undoable:
                self._write_history()
                for callback in self._then:
                    callback(self.history_id)
            self.conn.execute("RELEASE action" if self._nested else "COMMIT")
        except BaseException:
            self._rollback()
            raise

    # ------------------------------------------------------------------ rows
    def get(self, table: str, key: dict) -> dict | None:
        keys, values = TABLES[table]
        where = " AND ".join(f"{k} = ?" for k in keys)
        row = self.conn.execute(
            f"SELECT {', '.join(values)} FROM {table} WHERE {where}", [key[k] for k in keys]
        ).fetchone()
        return None if row is None else dict(zip(values, row))

    def put(self, table: str, key: dict, row: dict | None, before=...) -> dict | None:
        """Set the row at ``key`` to ``row`` (``None`` deletes it); returns the row before.

        ``before``: the row as it is now, when the caller has just read it in this action (in
        bulk, for thousands of papers at once); otherwise it is read here.
        """
        keys, _ = TABLES[table]
        if before is ...:
            before = self.get(table, key)
        if before == row:
            return before
        _write_row(self.conn, table, key, before, row)
        self.changes.append((table, {k: key[k] for k in keys}, before, row))
        return before

    def put_new(self, table: str, items: list[tuple[dict, dict]]) -> None:
        """Add rows ``(key, row)`` whose keys the caller has just found absent in this action:
        one statement for thousands of rows (a map selection), recorded like :meth:`put`.
        ``key`` holds exactly the table's key columns."""
        keys, values = TABLES[table]
        cols = list(keys) + list(values)
        self.conn.executemany(
            f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
            [[key[k] for k in keys] + [row[c] for c in values] for key, row in items],
        )
        self.changes.extend((table, key, None, row) for key, row in items)

    def recorded(self, table: str, key: dict, before: dict | None, after: dict | None) -> None:
        """Record a change the caller has just made with its own SQL (rows written in bulk, such
        as a topic run), so that an undo puts ``before`` back."""
        self.changes.append((table, dict(key), before, after))

    def insert(self, table: str, row: dict) -> int:
        """Insert a row into a table whose key is an automatic integer ``id``; returns it."""
        _, values = TABLES[table]
        cur = self.conn.execute(
            f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
            [row[c] for c in values],
        )
        new_id = cur.lastrowid
        self.changes.append((table, {"id": new_id}, None, {c: row[c] for c in values}))
        return new_id

    # ------------------------------------------------------------------ history
    def _write_history(self) -> None:
        cur = self.conn.execute(
            "INSERT INTO history (at, reviewer, action, summary, undoable) VALUES (?, ?, ?, ?, ?)",
            (self.at, self.reviewer, self.action, self.summary,
             int(self.undoable and bool(self.changes))),
        )
        self.history_id = cur.lastrowid
        encoded: dict[int, str | None] = {}  # a row shared by many changes (put_new) is encoded once

        def once(value):
            if value is None:
                return None
            text = encoded.get(id(value))
            if text is None:
                text = encoded[id(value)] = _json(value)
            return text

        self.conn.executemany(
            "INSERT INTO history_changes (history_id, seq, tbl, key, before, after) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (self.history_id, seq, table, _json(key), once(before), once(after))
                for seq, (table, key, before, after) in enumerate(self.changes)
            ],
        )


def _write_row(conn, table: str, key: dict, before: dict | None, row: dict | None) -> None:
    keys, values = TABLES[table]
    where = " AND ".join(f"{k} = ?" for k in keys)
    key_values = [key[k] for k in keys]
    if row is None:
        for dependent in DEPENDENTS.get(table, ()):
            conn.execute(f"DELETE FROM {dependent} WHERE {where}", key_values)
        conn.execute(f"DELETE FROM {table} WHERE {where}", key_values)
    elif before is None:
        cols = list(keys) + list(values)
        conn.execute(
            f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
            key_values + [row[c] for c in values],
        )
    else:
        sets = ", ".join(f"{c} = ?" for c in values)
        conn.execute(
            f"UPDATE {table} SET {sets} WHERE {where}", [row[c] for c in values] + key_values
        )


def _describe(table: str, key: dict) -> str:
    return f"{table} " + " ".join(f"{k}={v}" for k, v in key.items())


def undo(conn: sqlite3.Connection, reviewer: str, n: int = 1, *,
         everyone: bool = False, check=None, shown=None) -> list[HistoryEntry]:
    """Undo the last ``n`` undoable changes (this reviewer's, or anyone's with ``everyone``).

    All ``n`` are undone in one transaction or none is. Returns the entries undone, newest
    first. Raises :class:`UndoConflictError` when a later change touched the same annotation.
    ``check(conn, table, key, before)`` may refuse (raise) to put a row back, e.g. when the files a
    row names are gone; ``shown(history_id, reviewer)`` says which changes the reviewer may see
    (blind mode): only those are undone.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise AnnotationInputError(
            f"undo needs a number of changes >= 1, got {n!r}; e.g. `workbench undo 2`"
        )
    with Action(conn, reviewer, "undo") as act:
        who = "" if everyone else "AND reviewer = ?"
        params = [] if everyone else [reviewer]
        rows = conn.execute(
            "SELECT id, at, reviewer, action, summary FROM history "
            f"WHERE undoable = 1 AND undone_by IS NULL AND action != 'undo' {who} "
            "ORDER BY id DESC" + (" LIMIT ?" if shown is None else ""),
            params + ([min(n, _SQL_MAX)] if shown is None else []),
        ).fetchall()
        if shown is not None:
            rows = list(itertools.islice((r for r in rows if shown(r[0], r[2])), n))
        whose = "anyone" if everyone else f"reviewer {reviewer!r}"
        if not rows:
            raise AnnotationInputError(
                f"nothing to undo: {whose} has no change left that can be undone; "
                "see `workbench history`"
            )
        if len(rows) < n:  # never "as many as there are" by a slip of the keyboard
            raise AnnotationInputError(
                f"cannot undo {n} changes: {whose} has {len(rows)} that can be undone; nothing was undone; "
                f"`workbench undo {len(rows)}` undoes them all (see `workbench history`)")
        for hid, *_ in rows:
            _replay_backwards(conn, act, hid, check)
        entries = [
            HistoryEntry(id=r[0], at=r[1], reviewer=r[2], action=r[3], summary=r[4])
            for r in rows
        ]
        act.summary = "undo " + ", ".join(f"#{e.id} {e.summary}" for e in entries)
        act.then(lambda undo_id: conn.executemany(
            "UPDATE history SET undone_by = ? WHERE id = ?", [(undo_id, e.id) for e in entries]
        ))
    return entries


def _replay_backwards(conn: sqlite3.Connection, act: Action, hid: int, check) -> None:
    """Put every row change ``hid`` made back as it was, newest first, inside ``act``."""
    changes = conn.execute(
        "SELECT tbl, key, before, after FROM history_changes WHERE history_id = ? "
        "ORDER BY seq DESC",
        (hid,),
    ).fetchall()
    for table, key, before, after in changes:
        key = json.loads(key)
        before = None if before is None else json.loads(before)
        after = None if after is None else json.loads(after)
        current = act.get(table, key)
        if current != after:
            later = conn.execute(
                "SELECT h.id, h.reviewer, h.action FROM history h "
                "JOIN history_changes c ON c.history_id = h.id "
                "WHERE h.id > ? AND c.tbl = ? AND c.key = ? ORDER BY h.id DESC LIMIT 1",
                (hid, table, _json(key)),
            ).fetchone()
            by = (f"change #{later[0]} ({later[2]} by {later[1]})" if later
                  else "a change outside the history")
            raise UndoConflictError(
                f"cannot undo change #{hid}: {_describe(table, key)} was changed again "
                f"by {by}; undo that change first, or make the edit by hand"
            )
        if check is not None:
            check(conn, table, key, before)
        act.put(table, key, before)

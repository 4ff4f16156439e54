"""The store's schema and its migrations.

The store is one SQLite file per review. ``PRAGMA application_id`` marks it as ours, so some
other SQLite database at the same path is refused instead of written into; ``PRAGMA
user_version`` is the schema version, and :data:`MIGRATIONS` brings every earlier version up to
:data:`SCHEMA_VERSION` inside one transaction (opening the file is ``_open``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from ..corpus.paper import DECISIONS
from ._errors import StoreError, StoreVersionError
from ._schema_v4 import SCHEMA_V4, TABLES_V4, rewrite_history
from ._schema_v5 import SCHEMA_V5, TABLES_V5
from ._schema_v6 import SCHEMA_V6, is_v6

__all__ = ["APPLICATION_ID", "BUSY_TIMEOUT_S", "DB_NAME", "EXPECTED_TABLES", "GENERATIONS", "RESTORE_HINT", "SCHEMA",
           "SCHEMA_V2", "SCHEMA_V3", "SCHEMA_V4", "SCHEMA_V5", "SCHEMA_V6", "SCHEMA_VERSION", "VERSION_TABLES", "db_path",
           "detect_version", "migrate", "statements"]

APPLICATION_ID = 1464030036  # b"WBST", the workbench store
SCHEMA_VERSION = 6
DB_NAME = "annotations.sqlite"
#: The folder of a review holding each build's files, one generation a folder.
GENERATIONS = "generations"
BUSY_TIMEOUT_S = 30.0
# What every message about a damaged store says to do (the snapshots are made by ``_backup``).
RESTORE_HINT = ("restore the newest snapshot with `workbench restore --review {review}` (see "
                "`workbench check --review {review}`), or import an export")

# The CHECK constraint lists the decisions as before: 'include', 'exclude', 'maybe'.
_DECISION_LIST = ", ".join(f"'{d}'" for d in DECISIONS)

# The tables of schema version 2; a new store is created with them, those of version 3, and
# version 4's changes to them (``_schema_v4``).
SCHEMA_V2 = f"""
PRAGMA application_id = {APPLICATION_ID};

CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE papers (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    abstract TEXT NOT NULL DEFAULT '',
    authors TEXT NOT NULL DEFAULT '[]',
    year INTEGER,
    doi TEXT,
    venue TEXT,
    url TEXT,
    keywords TEXT NOT NULL DEFAULT '[]',
    collection TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL DEFAULT '',
    in_corpus INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE tag_vocab (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    colour TEXT,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE paper_tags (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    tag TEXT NOT NULL REFERENCES tag_vocab(name),
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)
) WITHOUT ROWID;
CREATE INDEX paper_tags_by_tag ON paper_tags(tag);

CREATE TABLE notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uid TEXT NOT NULL UNIQUE,
    paper_id TEXT NOT NULL REFERENCES papers(id),
    text TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX notes_by_paper ON notes(paper_id);

CREATE TABLE decisions (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ({_DECISION_LIST})),
    reason TEXT,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, reviewer)
) WITHOUT ROWID;

CREATE TABLE topic_ids (tid INTEGER PRIMARY KEY, first_run INTEGER);

CREATE TABLE topic_runs (
    run INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    n_papers INTEGER NOT NULL,
    n_topics INTEGER NOT NULL,
    report TEXT NOT NULL DEFAULT '{{}}'
);

CREATE TABLE run_topics (
    run INTEGER NOT NULL REFERENCES topic_runs(run),
    topic INTEGER NOT NULL,
    tid INTEGER NOT NULL REFERENCES topic_ids(tid),
    label TEXT NOT NULL DEFAULT '',
    words TEXT NOT NULL DEFAULT '[]',
    size INTEGER NOT NULL,
    PRIMARY KEY (run, topic)
);

CREATE TABLE run_assignments (
    run INTEGER NOT NULL REFERENCES topic_runs(run),
    paper_id TEXT NOT NULL,
    topic INTEGER NOT NULL,
    PRIMARY KEY (run, paper_id)
) WITHOUT ROWID;

CREATE TABLE topic_edits (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('rename', 'merge', 'move')),
    tid INTEGER REFERENCES topic_ids(tid),
    into_tid INTEGER REFERENCES topic_ids(tid),
    paper_id TEXT REFERENCES papers(id),
    label TEXT,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    action TEXT NOT NULL,
    summary TEXT NOT NULL,
    undoable INTEGER NOT NULL DEFAULT 1,
    undone_by INTEGER REFERENCES history(id)
);
CREATE INDEX history_by_reviewer ON history(reviewer, id);

CREATE TABLE history_changes (
    history_id INTEGER NOT NULL REFERENCES history(id),
    seq INTEGER NOT NULL,
    tbl TEXT NOT NULL,
    key TEXT NOT NULL,
    before TEXT,
    after TEXT,
    PRIMARY KEY (history_id, seq)
) WITHOUT ROWID;
"""
# Version 3: how each decision was made (``_screening``), one row beside each decision a person
# made through the workbench: the paper's rank and score in the ranked queue and the model that
# ranked it (NULL when no ranking was shown), decided in bulk or not, drawn in a random sample.
SCHEMA_V3 = """
CREATE TABLE decision_context (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    rank INTEGER CHECK (rank IS NULL OR rank >= 1),
    score REAL,
    model TEXT,
    model_version TEXT,
    bulk INTEGER NOT NULL DEFAULT 0 CHECK (bulk IN (0, 1)),
    sampled INTEGER NOT NULL DEFAULT 0 CHECK (sampled IN (0, 1)),
    PRIMARY KEY (paper_id, reviewer)
) WITHOUT ROWID;
"""
SCHEMA = (SCHEMA_V2 + SCHEMA_V3 + SCHEMA_V4 + ";\n" + SCHEMA_V5 + ";\n" + SCHEMA_V6
          + f";\nPRAGMA user_version = {SCHEMA_VERSION};\n")

# Tables every current store has: a file without them is damaged or not ours.
EXPECTED_TABLES = frozenset(
    {
        "meta", "papers", "tag_vocab", "paper_tags", "notes", "decisions", "topic_ids",
        "topic_runs", "run_topics", "run_assignments", "topic_edits", "history",
        "history_changes", "decision_context",
    }
) | TABLES_V4 | TABLES_V5


# The tables of each schema version: how a store whose ``user_version`` was set back (or never
# set) is told apart from one that really is that old (:func:`detect_version`).
TABLES_V1 = frozenset({"papers", "tags", "notes", "decisions", "paper_topics", "topic_names", "log"})
TABLES_V2 = EXPECTED_TABLES - {"decision_context"} - TABLES_V4 - TABLES_V5
VERSION_TABLES = {1: TABLES_V1, 2: TABLES_V2, 3: TABLES_V2 | {"decision_context"},
                  4: TABLES_V2 | {"decision_context"} | TABLES_V4, 5: EXPECTED_TABLES,
                  6: EXPECTED_TABLES}
KNOWN_TABLES = frozenset().union(*VERSION_TABLES.values())


def detect_version(conn: sqlite3.Connection, tables: set[str]) -> int | None:
    """The schema version the store's tables are of (None: they match none of them).

    Only the workbench's own table names count; version 4 is also told by the ``stage`` column
    its ``decisions`` table gained, version 6 from 5 by the source kinds its ``sources`` takes."""
    ours = set(tables) & KNOWN_TABLES
    matches = [v for v, expected in VERSION_TABLES.items() if ours == expected]
    if not matches:
        return None
    version = max(matches)
    if version >= 2:
        staged = any(row[1] == "stage" for row in conn.execute("PRAGMA table_info(decisions)"))
        if staged != (version >= 4):
            return None
    if version == 6 and not is_v6(conn):
        return 5
    return version


def _v1_to_v2(conn: sqlite3.Connection) -> None:
    """v1 -> v2: tag vocabulary, per-reviewer decisions, note uids, topic identities, history."""
    schema_v2 = SCHEMA_V2.replace("CREATE TABLE papers (", "CREATE TABLE papers_unused (")
    # papers keeps its v1 layout; everything else is created afresh and filled from v1.
    for statement in statements(schema_v2):
        if statement.startswith(("CREATE TABLE notes ", "CREATE TABLE decisions ")):
            statement = statement.replace("CREATE TABLE notes ", "CREATE TABLE notes_v2 ")
            statement = statement.replace("CREATE TABLE decisions ", "CREATE TABLE decisions_v2 ")
        if "papers_unused" in statement or statement.startswith(
            ("PRAGMA", "CREATE INDEX notes_by_paper")
        ):
            continue
        conn.execute(statement)
    for statement in statements(
        """
        INSERT INTO tag_vocab (name, created_by, created_at)
            SELECT tag, min(reviewer), min(created_at) FROM tags GROUP BY tag;
        INSERT INTO paper_tags SELECT paper_id, tag, reviewer, created_at FROM tags;
        DROP TABLE tags;

        INSERT INTO notes_v2 (id, uid, paper_id, text, reviewer, created_at, updated_at)
            SELECT id, lower(hex(randomblob(16))), paper_id, text, reviewer, created_at,
                   updated_at FROM notes;
        DROP TABLE notes;
        ALTER TABLE notes_v2 RENAME TO notes;
        CREATE INDEX notes_by_paper ON notes(paper_id);

        INSERT INTO decisions_v2 SELECT paper_id, reviewer, decision, reason, decided_at
            FROM decisions;
        DROP TABLE decisions;
        ALTER TABLE decisions_v2 RENAME TO decisions;

        INSERT INTO history (id, at, reviewer, action, summary, undoable)
            SELECT id, at, reviewer, action,
                   trim(coalesce(paper_id, '') || ' ' || detail), 0 FROM log;
        DROP TABLE log;
        """
    ):
        conn.execute(statement)  # not executescript: that would commit the open transaction
    _v1_topics_to_run_1(conn)
    conn.execute("DROP TABLE paper_topics")
    conn.execute("DROP TABLE topic_names")


def _v1_topics_to_run_1(conn: sqlite3.Connection) -> None:
    """v1 kept the last build's topics by raw number; they become run 1 with stable identities."""
    rows = conn.execute("SELECT paper_id, topic FROM paper_topics ORDER BY paper_id").fetchall()
    if rows:
        names = {t: (label, who, at) for t, label, who, at in conn.execute(
            "SELECT topic, label, reviewer, at FROM topic_names")}
        at = max((v[2] for v in names.values()), default="1970-01-01T00:00:00.000000Z")
        sizes: dict[int, int] = {}
        for _, topic in rows:
            sizes[topic] = sizes.get(topic, 0) + 1
        conn.execute(
            "INSERT INTO topic_runs (run, created_at, reviewer, n_papers, n_topics, report) "
            "VALUES (1, ?, 'migration', ?, ?, ?)",
            (at, len(rows), len([t for t in sizes if t != -1]),
             json.dumps({"migrated_from_schema": 1})),
        )
        for topic in sorted(sizes):
            tid = -1 if topic == -1 else topic + 1
            conn.execute("INSERT INTO topic_ids (tid, first_run) VALUES (?, 1)", (tid,))
            conn.execute(
                "INSERT INTO run_topics (run, topic, tid, label, words, size) "
                "VALUES (1, ?, ?, '', '[]', ?)",
                (topic, tid, sizes[topic]),
            )
            if topic in names:
                label, who, when = names[topic]
                conn.execute(
                    "INSERT INTO topic_edits (kind, tid, label, reviewer, created_at) "
                    "VALUES ('rename', ?, ?, ?, ?)",
                    (tid, label, who, when),
                )
        conn.executemany(
            "INSERT INTO run_assignments (run, paper_id, topic) VALUES (1, ?, ?)", rows
        )


def _v2_to_v3(conn: sqlite3.Connection) -> None:
    """v2 -> v3: the screening context of decisions (decisions made before have none)."""
    for statement in statements(SCHEMA_V3):
        conn.execute(statement)


def _v3_to_v4(conn: sqlite3.Connection) -> None:
    """v3 -> v4: stages, tags per reviewer, final decisions, exclusion reasons, sources."""
    for statement in statements(SCHEMA_V4):
        conn.execute(statement)
    rewrite_history(conn)


def _v4_to_v5(conn: sqlite3.Connection) -> None:
    """v4 -> v5: the duplicate verdicts people give (``_schema_v5``)."""
    for statement in statements(SCHEMA_V5):
        conn.execute(statement)


def _v5_to_v6(conn: sqlite3.Connection) -> None:
    """v5 -> v6: sources of other methods (citation searching...), ``_schema_v6``."""
    for statement in statements(SCHEMA_V6):
        conn.execute(statement)


# MIGRATIONS[v] turns a version-v store into a version-(v + 1) store.
MIGRATIONS = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5, 5: _v5_to_v6}


def statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def db_path(path: str | os.PathLike) -> Path:
    """``review_dir`` -> ``review_dir/annotations.sqlite``; a path to a file stays as it is."""
    path = Path(path).expanduser()
    if path.is_dir():
        return path / DB_NAME
    if path.exists() or path.suffix.lower() in {".sqlite", ".sqlite3", ".db"}:
        return path
    return path / DB_NAME


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the store up to :data:`SCHEMA_VERSION` in one transaction."""
    conn.execute("PRAGMA foreign_keys = OFF")  # tables are rebuilt; checked before commit
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # re-read under the lock
        while version < SCHEMA_VERSION:
            if version not in MIGRATIONS:
                raise StoreVersionError(
                    f"{path} has schema version {version}, and this workbench can migrate only "
                    f"versions {sorted(MIGRATIONS)} to {SCHEMA_VERSION}; export it with the "
                    "workbench that made it and import the export"
                )
            MIGRATIONS[version](conn)
            version += 1
            conn.execute(f"PRAGMA user_version = {version}")
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise StoreError(
                f"migrating {path} to schema version {SCHEMA_VERSION} left "
                f"{len(problems)} broken references (first: {problems[0]}); the store was "
                "left as it was; please report this with the file"
            )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute("PRAGMA foreign_keys = ON")

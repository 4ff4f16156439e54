"""Schema version 6: sources found by other methods than a database or register search.

PRISMA 2020 has a column of its own, "identification of studies via other methods", for records
found by citation searching (the references of included studies and the papers citing them),
websites and organisations. ``sources.kind`` may now be ``other`` beside ``database`` and
``register``; the source's ``name`` says which method (``Citation searching``) and its
``query`` how it was run (``workbench snowball``'s lookup: which papers' references).

SQLite cannot change a CHECK constraint in place, so the table is made again with the same
columns and rows. The history keeps rows by table name and key (the path), so nothing there
needs rewriting. :func:`is_v6` tells a version-6 store from a version-5 one whose version was set
back (the two have the same tables).
"""

from __future__ import annotations

import sqlite3

__all__ = ["SCHEMA_V6", "SOURCE_KINDS", "is_v6"]

#: Where a source's records were found: PRISMA 2020's two columns (databases and registers; other methods).
SOURCE_KINDS = ("database", "register", "other")
_KIND_LIST = ", ".join(f"'{k}'" for k in SOURCE_KINDS)

SOURCES_TABLE = f"""
CREATE TABLE sources (
    path TEXT PRIMARY KEY,
    kind TEXT NOT NULL DEFAULT 'database' CHECK (kind IN ({_KIND_LIST})),
    name TEXT NOT NULL,
    query TEXT,
    searched_on TEXT,
    format TEXT NOT NULL DEFAULT '',
    identified INTEGER NOT NULL DEFAULT 0 CHECK (identified >= 0),
    skipped INTEGER NOT NULL DEFAULT 0 CHECK (skipped >= 0),
    merged INTEGER NOT NULL DEFAULT 0 CHECK (merged >= 0),
    in_build INTEGER NOT NULL DEFAULT 1 CHECK (in_build IN (0, 1)),
    recorded_at TEXT NOT NULL
)"""

#: Turns a version-5 store into a version-6 one (a new store is made the same way).
SCHEMA_V6 = (SOURCES_TABLE.replace("CREATE TABLE sources (", "CREATE TABLE sources_v6 (") + """;
INSERT INTO sources_v6 (path, kind, name, query, searched_on, format, identified, skipped, merged, in_build,
                        recorded_at)
    SELECT path, kind, name, query, searched_on, format, identified, skipped, merged, in_build, recorded_at
    FROM sources;
DROP TABLE sources;
ALTER TABLE sources_v6 RENAME TO sources
""")


def is_v6(conn: sqlite3.Connection) -> bool:
    """Whether the store's ``sources`` table takes sources of other methods (version 6 and up)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sources'").fetchone()
    return row is not None and "'other'" in (row[0] or "")

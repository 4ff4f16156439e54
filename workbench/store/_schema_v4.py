"""Schema version 4: reviewing as a team.

- ``decisions`` and ``decision_context`` gain a ``stage`` (``title_abstract``, the default, or
  ``full_text``), part of their key: a reviewer has one current decision per paper per stage;
- ``paper_tags`` is keyed by reviewer too, so two reviewers' tags on a paper are two rows and
  blind mode can show a reviewer only their own;
- ``final_decisions``: the decision that settles a paper at a stage (a resolved conflict), who
  recorded it, why and when;
- ``exclusion_reasons``: the list of reasons the team agreed on, in order;
- ``sources``: each source file of the last build with its search provenance (database or
  register, query, date searched) and its counts for PRISMA's identification boxes.

:data:`SCHEMA_V4` is SQL that turns a version-3 store into a version-4 one; a new store is made
the same way (the version-2 and -3 tables, then this), so there is one definition of each
table. The history keeps rows as JSON: :func:`rewrite_history` gives the rows it recorded
before version 4 the new keys, so the changes made before the migration can still be undone.
"""

from __future__ import annotations

import json
import sqlite3

from ..corpus.paper import DECISIONS, STAGES, TITLE_ABSTRACT

__all__ = ["SCHEMA_V4", "TABLES_V4", "rewrite_history"]

_DECISION_LIST = ", ".join(f"'{d}'" for d in DECISIONS)
_STAGE_LIST = ", ".join(f"'{s}'" for s in STAGES)

SCHEMA_V4 = f"""
CREATE TABLE decisions_v4 (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    stage TEXT NOT NULL DEFAULT '{TITLE_ABSTRACT}' CHECK (stage IN ({_STAGE_LIST})),
    decision TEXT NOT NULL CHECK (decision IN ({_DECISION_LIST})),
    reason TEXT,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, reviewer, stage)
) WITHOUT ROWID;
INSERT INTO decisions_v4 (paper_id, reviewer, stage, decision, reason, decided_at)
    SELECT paper_id, reviewer, '{TITLE_ABSTRACT}', decision, reason, decided_at FROM decisions;
DROP TABLE decisions;
ALTER TABLE decisions_v4 RENAME TO decisions;
CREATE INDEX decisions_by_stage ON decisions(stage, reviewer);

CREATE TABLE decision_context_v4 (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    stage TEXT NOT NULL DEFAULT '{TITLE_ABSTRACT}' CHECK (stage IN ({_STAGE_LIST})),
    rank INTEGER CHECK (rank IS NULL OR rank >= 1),
    score REAL,
    model TEXT,
    model_version TEXT,
    bulk INTEGER NOT NULL DEFAULT 0 CHECK (bulk IN (0, 1)),
    sampled INTEGER NOT NULL DEFAULT 0 CHECK (sampled IN (0, 1)),
    PRIMARY KEY (paper_id, reviewer, stage)
) WITHOUT ROWID;
INSERT INTO decision_context_v4 SELECT paper_id, reviewer, '{TITLE_ABSTRACT}', rank, score, model,
    model_version, bulk, sampled FROM decision_context;
DROP TABLE decision_context;
ALTER TABLE decision_context_v4 RENAME TO decision_context;

CREATE TABLE paper_tags_v4 (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    tag TEXT NOT NULL REFERENCES tag_vocab(name),
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag, reviewer)
) WITHOUT ROWID;
INSERT INTO paper_tags_v4 SELECT paper_id, tag, reviewer, created_at FROM paper_tags;
DROP TABLE paper_tags;
ALTER TABLE paper_tags_v4 RENAME TO paper_tags;
CREATE INDEX paper_tags_by_tag ON paper_tags(tag);

CREATE TABLE final_decisions (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    stage TEXT NOT NULL CHECK (stage IN ({_STAGE_LIST})),
    decision TEXT NOT NULL CHECK (decision IN ({_DECISION_LIST})),
    reason TEXT,
    resolved_by TEXT NOT NULL,
    resolved_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, stage)
) WITHOUT ROWID;

CREATE TABLE exclusion_reasons (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    position INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE sources (
    path TEXT PRIMARY KEY,
    kind TEXT NOT NULL DEFAULT 'database' CHECK (kind IN ('database', 'register')),
    name TEXT NOT NULL,
    query TEXT,
    searched_on TEXT,
    format TEXT NOT NULL DEFAULT '',
    identified INTEGER NOT NULL DEFAULT 0 CHECK (identified >= 0),
    skipped INTEGER NOT NULL DEFAULT 0 CHECK (skipped >= 0),
    merged INTEGER NOT NULL DEFAULT 0 CHECK (merged >= 0),
    in_build INTEGER NOT NULL DEFAULT 1 CHECK (in_build IN (0, 1)),
    recorded_at TEXT NOT NULL
)
"""

#: The tables version 4 adds (beside the rebuilt ones).
TABLES_V4 = frozenset({"final_decisions", "exclusion_reasons", "sources"})

_ENCODE = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode  # as ``_history`` writes rows


def _rekeyed(table: str, key: dict, before: dict | None, after: dict | None):
    """A history change of version 3 as version 4 keys and rows it."""
    if table in ("decisions", "decision_context"):
        return {**key, "stage": TITLE_ABSTRACT}, before, after
    row = after if after is not None else before  # paper_tags: the reviewer moves into the key
    key = {**key, "reviewer": row.get("reviewer", "")} if row else key

    def drop(r):
        return None if r is None else {k: v for k, v in r.items() if k != "reviewer"}

    return key, drop(before), drop(after)


def rewrite_history(conn: sqlite3.Connection) -> None:
    """Give the history's recorded rows of decisions, their context and tags version 4's keys."""
    rows = conn.execute(
        "SELECT history_id, seq, tbl, key, before, after FROM history_changes "
        "WHERE tbl IN ('decisions', 'decision_context', 'paper_tags')").fetchall()
    updates = []
    for hid, seq, table, key, before, after in rows:
        new_key, new_before, new_after = _rekeyed(
            table, json.loads(key), None if before is None else json.loads(before),
            None if after is None else json.loads(after))
        updates.append((_ENCODE(new_key), None if new_before is None else _ENCODE(new_before),
                        None if new_after is None else _ENCODE(new_after), hid, seq))
    conn.executemany("UPDATE history_changes SET key = ?, before = ?, after = ? "
                     "WHERE history_id = ? AND seq = ?", updates)

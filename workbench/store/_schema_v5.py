"""Schema version 5: duplicates a person settled.

- ``duplicate_verdicts``: one row per pair of paper ids (``paper_a`` < ``paper_b``) a person
  looked at: ``same`` (one was merged into ``kept``, its annotations moved with it) or
  ``different`` (kept apart for good: updates and rebuilds never merge them), who said so and when.

:data:`SCHEMA_V5` is SQL that turns a version-4 store into a version-5 one; a new store is made
the same way. Nothing else changes, so the history of version 4 needs no rewriting.
"""

from __future__ import annotations

__all__ = ["SCHEMA_V5", "TABLES_V5", "VERDICTS"]

VERDICTS = ("same", "different")

SCHEMA_V5 = f"""
CREATE TABLE duplicate_verdicts (
    paper_a TEXT NOT NULL,
    paper_b TEXT NOT NULL,
    verdict TEXT NOT NULL CHECK (verdict IN ({", ".join(f"'{v}'" for v in VERDICTS)})),
    kept TEXT,
    reviewer TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (paper_a, paper_b),
    CHECK (paper_a < paper_b)
) WITHOUT ROWID
"""

TABLES_V5 = frozenset({"duplicate_verdicts"})

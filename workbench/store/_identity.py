"""Which review a store (or a snapshot of it) belongs to.

A store gets a random review id when it is created (``meta`` row ``review_id``; a store made
before ids gets one the first time it is opened for writing). Every snapshot copies it, and a
build writes it into its ``build.json``, so it can still be known when the store itself cannot be
opened. ``restore`` compares a snapshot's id with the review's before it replaces anything.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from pathlib import Path

from ._schema import GENERATIONS

__all__ = ["KEY", "ensure", "from_build_files", "new_id", "read"]

KEY = "review_id"


def new_id() -> str:
    return secrets.token_hex(8)


def read(conn: sqlite3.Connection) -> str | None:
    """The review id in a store (None: made before review ids, or no ``meta`` table)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    except sqlite3.OperationalError:  # no meta table (schema 1)
        return None
    return None if row is None else str(row[0])


def ensure(conn: sqlite3.Connection) -> str:
    """The store's review id, made now if it has none (a store from before review ids)."""
    found = read(conn)
    if found is not None:
        return found
    conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (KEY, new_id()))
    return read(conn)


def from_build_files(review: Path, generation: str | None = None) -> str | None:
    """The review id the review's builds wrote into their ``build.json`` (``generation``'s
    first, then the newest that has one); None when no build recorded one."""
    root = Path(review) / GENERATIONS
    folders = []
    if generation:
        folders.append(root / generation)
    if root.is_dir():
        folders += sorted((p for p in root.iterdir() if not p.name.startswith(".")), reverse=True)
    folders.append(Path(review))  # a review from before generations
    for folder in folders:
        try:
            found = json.loads((folder / "build.json").read_text(encoding="utf-8")).get(KEY)
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(found, str) and found:
            return found
    return None

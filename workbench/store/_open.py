"""Opening the store's file: checks, creation, read-only access, and the connection's settings.

A new store is built in a temporary file and linked into place, so a crash during creation never
leaves a half-made store behind. Anything at the store's path that is not a workbench store (a
CSV, random bytes, another SQLite database, a damaged or newer store) is refused untouched. The
file check reads the first bytes with a plain ``open()``: :func:`connect` must only be called
while this process has no other connection to the file (``_connection`` sees to that).
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import urllib.parse
from pathlib import Path

from .._runtime.fsutil import default_file_mode, fsync_path
from ._errors import NotAStoreError, StoreError, StoreVersionError
from ._schema import (
    APPLICATION_ID, BUSY_TIMEOUT_S, DB_NAME, EXPECTED_TABLES, RESTORE_HINT, SCHEMA, SCHEMA_VERSION,
    migrate, statements
)

__all__ = ["connect", "read_only_reason"]

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_file(path: Path) -> None:
    """Refuse, without touching it, a file at the store's path that is not a SQLite database."""
    if not path.is_file():
        raise NotAStoreError(
            f"{path} is not a file; expected the review's annotation store {DB_NAME}; "
            "pass --review DIR with the review folder"
        )
    with open(path, "rb") as fh:
        head = fh.read(len(_SQLITE_MAGIC))
    if head != _SQLITE_MAGIC:
        what = "is empty" if not head else f"starts with {head[:12]!r}"
        raise NotAStoreError(
            f"{path} is not an annotation store: it {what}, expected a SQLite database "
            f"made by workbench; the file was left untouched; move it away and "
            f"{RESTORE_HINT.format(review=path.parent)}"
        )


def _create(path: Path) -> None:
    """Build a current-schema store in a temporary file, then link it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN")
            for statement in statements(SCHEMA):
                conn.execute(statement)
            conn.execute("INSERT INTO meta (key, value) VALUES ('created_by', 'workbench')")
            conn.execute("COMMIT")
        finally:
            conn.close()
        os.chmod(tmp, default_file_mode())  # SQLite makes 0644; -wal and -shm follow this file
        fsync_path(tmp)
        try:
            os.link(tmp, path)  # fails if another process created the store first: use theirs
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(tmp, path)
        fsync_path(path.parent)
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            try:
                os.unlink(leftover)
            except FileNotFoundError:
                pass


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def read_only_reason(path: Path) -> str | None:
    """Why this process may not write the store at ``path`` (None: it may)."""
    if not os.access(path, os.W_OK):
        return f"the file {path} is read-only for you"
    if not os.access(path.parent, os.W_OK):  # SQLite makes -wal and -shm files beside it
        return f"its folder {path.parent} is read-only for you"
    return None


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection; ``immutable`` when SQLite cannot even make its -shm file."""
    base = "file:" + urllib.parse.quote(str(path.resolve()))
    last: sqlite3.Error | None = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = sqlite3.connect(base + query, uri=True, isolation_level=None,
                               timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        try:
            conn.execute("PRAGMA user_version").fetchone()
            return conn
        except sqlite3.OperationalError as err:  # unable to open: the -shm cannot be made
            conn.close()
            last = err
    raise StoreError(f"{path} cannot be opened read-only ({last}); ask the review's owner for "
                     "read access to the file and its folder") from last


def connect(path: Path, *, create: bool = True) -> tuple[sqlite3.Connection, str | None]:
    """An open, checked, current-schema connection to the store at ``path``, and why it is
    read-only (None when this process may write it).

    Raises :class:`NotAStoreError` (file untouched) for anything at ``path`` that is not a
    workbench store, and :class:`StoreVersionError` for a store from a newer workbench. The
    file check reads the file with a plain ``open()``: call this only while the process has no
    other connection to ``path`` (see ``_connection``).
    """
    if path.exists():
        _check_file(path)
    elif not create:
        raise StoreError(
            f"no annotation store at {path}; expected the review folder that `workbench build` "
            "made; pass --review DIR"
        )
    else:
        if not path.parent.is_dir():
            path.parent.mkdir(parents=True, exist_ok=True)
        _create(path)
    readonly = read_only_reason(path)
    if readonly:
        conn = _open_read_only(path)
    else:
        conn = sqlite3.connect(
            path, isolation_level=None, timeout=BUSY_TIMEOUT_S, check_same_thread=False
        )
    try:
        _prepare(conn, path, readonly)
    except BaseException:
        conn.close()
        raise
    return conn, readonly


def _identify(conn: sqlite3.Connection, path: Path) -> tuple[int, set[str]]:
    """The store's schema version and tables; refuses a file that is not a workbench store."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = _tables(conn)
    except sqlite3.DatabaseError as err:
        raise NotAStoreError(
            f"{path} cannot be read as an annotation store ({err}); the file was left "
            f"untouched; {RESTORE_HINT.format(review=path.parent)}, or move it away"
        ) from err
    if app_id != APPLICATION_ID:
        shown = ", ".join(sorted(tables)[:6]) or "none"
        raise NotAStoreError(
            f"{path} is a SQLite database but not a workbench annotation store "
            f"(application_id={app_id}, expected {APPLICATION_ID}; tables: {shown}); "
            "the file was left untouched; move it away or pass another --review folder"
        )
    if version > SCHEMA_VERSION:
        raise StoreVersionError(
            f"{path} has schema version {version}, newer than this workbench's "
            f"{SCHEMA_VERSION}; upgrade workbench to open it"
        )
    return version, tables


def _prepare(conn: sqlite3.Connection, path: Path, readonly: str | None) -> None:
    """Check the store, set the connection up (WAL, full sync, foreign keys) and migrate it."""
    version, tables = _identify(conn, path)
    if readonly and version < SCHEMA_VERSION:
        raise StoreError(
            f"{path} has schema version {version} and must be upgraded to {SCHEMA_VERSION}, "
            f"which needs write access, but {readonly}; ask the review's owner to open it "
            "once with this workbench, or for write access"
        )
    if not readonly:
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    if version < SCHEMA_VERSION:
        from ._backup import snapshot

        snapshot(conn, path, f"before-migration-v{version}")
        migrate(conn, path)
        tables = _tables(conn)
    missing = EXPECTED_TABLES - tables
    if missing:
        raise NotAStoreError(
            f"{path} is a damaged annotation store: tables {sorted(missing)} are missing; "
            f"{RESTORE_HINT.format(review=path.parent)}"
        )

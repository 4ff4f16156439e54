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
from ._diagnose import CORRUPT, FULL, cause, explain, free_bytes, read_only_fs, size
from ._errors import DamagedStoreError, NotAStoreError, StoreError, StoreVersionError
from . import _identity as identity
from ._schema import (
    APPLICATION_ID,
    BUSY_TIMEOUT_S,
    DB_NAME,
    EXPECTED_TABLES,
    RESTORE_HINT,
    SCHEMA,
    SCHEMA_VERSION,
    VERSION_TABLES,
    detect_version,
    migrate,
    statements,
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
            f"made by workbench; the file was left untouched; "
            f"{RESTORE_HINT.format(review=path.parent)} (the file is set aside, not deleted)"
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
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)",
                         (identity.KEY, identity.new_id()))
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
    if read_only_fs(path.parent):
        return f"the file system holding {path.parent} is mounted read-only"
    if not os.access(path, os.W_OK):
        return f"the file {path} is read-only for you"
    if not os.access(path.parent, os.W_OK):  # SQLite makes -wal and -shm files beside it
        return f"its folder {path.parent} is read-only for you"
    return None


def _uri(path: Path, query: str) -> str:
    return "file:" + urllib.parse.quote(str(path.resolve())) + query


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection; ``immutable`` when SQLite cannot even make its -shm file."""
    last: sqlite3.Error | None = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = sqlite3.connect(_uri(path, query), uri=True, isolation_level=None,
                               timeout=BUSY_TIMEOUT_S, check_same_thread=False)
        try:
            conn.execute("PRAGMA user_version").fetchone()
            return conn
        except sqlite3.OperationalError as err:  # unable to open: the -shm cannot be made
            conn.close()
            last = err
    raise explain(last, path, "the store was not changed", doing=f"cannot open {path} read-only") from last


def _wal_is_empty(path: Path) -> bool:
    """Whether no write is waiting in the store's -wal (checked with stat, never opened)."""
    try:
        return os.stat(f"{path}-wal").st_size == 0
    except FileNotFoundError:
        return True


def connect(path: Path, *, create: bool = True) -> tuple[sqlite3.Connection, str | None]:
    """An open, checked, current-schema connection to the store at ``path``, and why it is
    read-only (None when this process may write it).

    Raises :class:`NotAStoreError` (file untouched) for anything at ``path`` that is not a
    workbench store, :class:`DamagedStoreError` for a damaged one, :class:`StoreVersionError`
    for a store from a newer workbench (or whose version does not match its tables), and a
    :class:`StoreError` saying so for a full disk, a read-only file system or a permission
    problem (``_diagnose``). On a full disk a store with nothing waiting in its -wal opens
    read-only, so it can still be read and exported. The file check reads the file with a plain
    ``open()``: call this only while the process has no other connection to ``path`` (see
    ``_connection``).
    """
    try:
        return _connect(path, create)
    except (sqlite3.Error, OSError) as err:
        if (isinstance(err, sqlite3.Error) and cause(err, path) == FULL and path.is_file()
                and _wal_is_empty(path)):
            readonly = f"the disk holding {path.parent} is full ({size(free_bytes(path))} free)"
            conn = None
            try:
                conn = sqlite3.connect(_uri(path, "?mode=ro&immutable=1"), uri=True,
                                       isolation_level=None, check_same_thread=False)
                _prepare(conn, path, readonly)
                return conn, readonly
            except BaseException as again:
                if conn is not None:
                    conn.close()
                if not isinstance(again, sqlite3.Error):
                    raise
        raise explain(err, path, "the store was not changed",
                      doing=f"cannot open {path}") from err


def _connect(path: Path, create: bool) -> tuple[sqlite3.Connection, str | None]:
    if path.exists():
        _check_file(path)
    elif not create:
        lost = ((path.parent / "backups").is_dir() and
                f" (its store was moved away or lost: `workbench restore --review {path.parent}` "
                "puts back its newest snapshot)")
        raise StoreError(
            f"no annotation store at {path}; expected the review folder that `workbench build` "
            f"made; pass --review DIR{lost or ''}"
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
        if cause(err, path) != CORRUPT:
            raise  # a full disk, a read-only file system...: told by ``connect``
        raise DamagedStoreError(
            f"{path} cannot be read as an annotation store ({err}); the file was left "
            f"untouched; {RESTORE_HINT.format(review=path.parent)}"
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
            f"{path}: this review was made by a newer workbench (schema {version} > "
            f"{SCHEMA_VERSION}): upgrade workbench (`pip install -U workbench`) to open it; "
            "the file was left untouched"
        )
    return version, tables


def _prepare(conn: sqlite3.Connection, path: Path, readonly: str | None) -> None:
    """Check the store, set the connection up (WAL, full sync, foreign keys) and migrate it.

    The schema version is checked against the tables: a store whose version was set back (or
    never set) while its tables are of a later version is repaired (its version set to what the
    tables are, saying so in the history) instead of being migrated again; tables that match
    no version are refused as damaged."""
    version, tables = _identify(conn, path)
    found = detect_version(conn, tables)
    if found is None or found < version:
        missing = sorted(VERSION_TABLES.get(version, EXPECTED_TABLES) - tables)
        what = (f"tables {missing} are missing" if missing else
                f"its tables ({', '.join(sorted(tables)) or 'none'}) match no schema version "
                f"of the workbench (it says version {version})")
        raise DamagedStoreError(f"{path} is a damaged annotation store: {what}; "
                                f"{RESTORE_HINT.format(review=path.parent)}")
    if readonly and (found < SCHEMA_VERSION or found != version):
        needs = (f"upgraded to {SCHEMA_VERSION}" if found == version else
                 f"repaired (its tables are of version {found})")
        raise StoreError(
            f"{path} has schema version {version} and must be {needs}, which needs write "
            f"access, but {readonly}; ask the review's owner to open it once with this "
            "workbench, or for write access"
        )
    if not readonly:
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    if found != version:
        conn.execute(f"PRAGMA user_version = {found}")  # what the tables are: nothing to migrate twice
    if found < SCHEMA_VERSION:
        from ._backup import snapshot

        snapshot(conn, path, f"before-migration-v{found}")
        migrate(conn, path)
    if found != version:
        _record_repair(conn, version, found)
    if not readonly:
        identity.ensure(conn)


def _record_repair(conn: sqlite3.Connection, said: int, found: int) -> None:
    """Say in the history that the store's schema version was set back to what its tables are."""
    from ._history import Action, now

    with Action(conn, "workbench", "repair", undoable=False) as act:
        act.put("meta", {"key": "schema_repaired"},
                {"value": f"{now()}: version {said} -> {found}"})
        act.summary = (f"the store said schema version {said} but its tables are of version "
                       f"{found}: its version was set to {found} (nothing else changed)")

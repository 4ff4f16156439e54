"""One SQLite connection per store file per process, shared by every :class:`Store` handle.

SQLite's locks on a database are POSIX advisory locks, and those belong to the process: closing
*any* descriptor on the database file, even one a plain ``open()`` made, drops the locks of
every connection this process has on it. Another process then believes it is the last user,
checkpoints and deletes the ``-wal`` and ``-shm`` files, and this process's next writes go to a
deleted file (sqlite.org, "How To Corrupt An SQLite Database File", 2.2). So:

* every :class:`Store` on the same file in one process shares one connection (and one lock),
  counted by handle; the connection closes when the last handle does;
* the store's file check, which reads the first bytes with a plain ``open()``, runs only while
  this process has no connection to that file;
* a process made by ``fork`` never uses (or closes) the connections it inherited: it opens its
  own on first use.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ._open import connect

__all__ = ["SharedConnection", "acquire", "open_count", "release"]


@dataclass(eq=False)
class SharedConnection:
    """The process's one connection to a store file, and the lock every handle takes to use it."""

    conn: sqlite3.Connection
    path: Path
    key: tuple[int, int]
    readonly: str | None  # why this process may only read the store, or None
    pid: int = field(default_factory=os.getpid)
    lock: threading.RLock = field(default_factory=threading.RLock)
    handles: int = 1


_OPEN: dict[tuple[int, int], SharedConnection] = {}
_GUARD = threading.Lock()


def _key(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def acquire(path: Path, *, create: bool, check=None) -> SharedConnection:
    """The shared connection to the store at ``path``, opening (and checking) it if needed;
    ``check(path)`` runs (and may raise) before a new connection is made."""
    with _GUARD:
        key = _key(path)
        shared = _OPEN.get(key) if key is not None else None
        if shared is not None:
            shared.handles += 1
            return shared
        if check is not None:
            check(path)
        # No connection of this process is open on the file: the plain-file checks in
        # ``connect`` cannot drop anybody's locks here.
        conn, readonly = connect(path, create=create)
        key = _key(path)
        if key is None:  # the file vanished between connect and stat
            conn.close()
            raise FileNotFoundError(path)
        shared = SharedConnection(conn=conn, path=path, key=key, readonly=readonly)
        _OPEN[key] = shared
        return shared


def release(shared: SharedConnection) -> None:
    """One handle fewer; the last one closes the connection (never in a forked child)."""
    with _GUARD:
        shared.handles -= 1
        if shared.handles > 0:
            return
        if _OPEN.get(shared.key) is shared:
            del _OPEN[shared.key]
        if shared.pid == os.getpid():
            with shared.lock:
                shared.conn.close()


def open_count(path: Path) -> int:
    """How many handles of this process share the connection to ``path`` (0: none open)."""
    with _GUARD:
        shared = _OPEN.get(_key(path))
        return 0 if shared is None else shared.handles


def _forget_after_fork() -> None:
    # The child holds none of the parent's locks: it must neither use nor close the parent's
    # connections (the objects stay referenced by whatever Store handles were copied).
    global _GUARD
    _GUARD = threading.Lock()
    _OPEN.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)

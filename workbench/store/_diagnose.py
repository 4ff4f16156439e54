"""Why the store could not be opened, read or written, told in words a researcher can act on.

SQLite reports a full disk, a read-only file system and a permission problem in several ways
(``SQLITE_FULL``, but also ``disk I/O error`` when its ``-shm`` index cannot grow, ``unable to
open database file`` on a read-only mount), and Python does not pass on the ``errno`` behind
them. So the file system is asked as well (free space, the mount's read-only flag, access
rights), and each cause gets its own message:

- a full disk, a read-only file system, a permission problem, a busy store: what happened, what
  was saved, and what to do; never the advice to restore (the store is not damaged by them);
- real damage (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``): the restore command;
- another disk I/O error: check the disk first, then ``workbench check``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from ._errors import DamagedStoreError, StoreError

__all__ = ["BUSY", "CORRUPT", "FULL", "IO", "OTHER", "PERMISSION", "READ_ONLY_FS", "SIZE_LIMIT", "cause",
           "explain", "free_bytes", "read_only_fs", "read_only_refusal", "size"]

FULL, READ_ONLY_FS, PERMISSION, BUSY, CORRUPT, IO, OTHER = (
    "full", "read-only file system", "permission", "busy", "corrupt", "io", "other")
SIZE_LIMIT = "file-size limit"

# SQLite's primary result codes (sqlite3.h).
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _AUTH, _NOTADB = (
    3, 5, 6, 8, 10, 11, 13, 14, 23, 26)
_READONLY_DBMOVED = _READONLY | (4 << 8)
#: Below this many free bytes, an I/O error while writing is put down to a full disk.
NEARLY_FULL = 1 << 20


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (what the file system can be asked about)."""
    path = Path(path)
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def free_bytes(path: Path) -> int | None:
    """Free bytes on the file system holding ``path`` for this user (None: unknown)."""
    try:
        st = os.statvfs(_existing(path))
    except (OSError, AttributeError):  # (no statvfs on Windows)
        return None
    root = getattr(os, "geteuid", lambda: -1)() == 0
    blocks = st.f_bfree if root else st.f_bavail  # root may use the reserve
    return blocks * st.f_frsize


def read_only_fs(path: Path) -> bool:
    """Whether ``path`` lies on a file system mounted read-only."""
    try:
        return bool(os.statvfs(_existing(path)).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def size(n: int | None) -> str:
    if n is None:
        return "unknown space"
    for unit, step in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= step:
            return f"{n / step:.1f} {unit}"
    return f"{n} bytes"


def _size_limit() -> int | None:
    """This process's file-size limit (``ulimit -f``) in bytes, None when there is none."""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def _at_size_limit(path: Path) -> bool:
    limit = _size_limit()
    if limit is None:
        return False
    sizes = []
    for name in (str(path), f"{path}-wal"):
        try:
            sizes.append(os.stat(name).st_size)
        except OSError:
            pass
    return any(n >= limit - NEARLY_FULL for n in sizes)


def _no_write_access(path: Path) -> bool:
    folder = path if path.is_dir() else path.parent
    return (path.exists() and not os.access(path, os.W_OK)) or not os.access(folder, os.W_OK)


def _probe(path: Path, full_hint: bool) -> str | None:
    """The cause the file system shows for a failed open, read or write of ``path``."""
    if read_only_fs(path):
        return READ_ONLY_FS
    free = free_bytes(path)
    if full_hint or (free is not None and free < NEARLY_FULL):
        return FULL
    if _at_size_limit(path):
        return SIZE_LIMIT
    if path.exists() and not os.access(path, os.R_OK) or _no_write_access(path):
        return PERMISSION
    return None


def cause(err: BaseException, path: Path) -> str:
    """What went wrong: :data:`FULL`, :data:`READ_ONLY_FS`, :data:`PERMISSION`, :data:`BUSY`,
    :data:`CORRUPT`, :data:`IO` or :data:`OTHER`."""
    path = Path(path)
    if isinstance(err, OSError):
        by_errno = {errno.ENOSPC: FULL, errno.EDQUOT: FULL, errno.EROFS: READ_ONLY_FS,
                    errno.EACCES: PERMISSION, errno.EPERM: PERMISSION, errno.EIO: IO,
                    errno.EFBIG: SIZE_LIMIT}
        return by_errno.get(err.errno) or OTHER
    if not isinstance(err, sqlite3.Error):
        return OTHER
    code = getattr(err, "sqlite_errorcode", None)
    text = str(err).lower()
    if code is None:  # (Python before 3.11) the message is all there is
        code = (_FULL if "full" in text else _BUSY if "locked" in text or "busy" in text
                else _CORRUPT if "malformed" in text else _NOTADB if "not a database" in text
                else _READONLY if "readonly" in text else _CANTOPEN if "unable to open" in text
                else _IOERR if "i/o" in text else None)
    primary = None if code is None else code & 0xFF
    if primary in (_BUSY, _LOCKED):
        return BUSY
    if primary in (_CORRUPT, _NOTADB):
        return CORRUPT
    if primary == _FULL:
        return SIZE_LIMIT if _at_size_limit(path) and not _probe(path, False) == FULL else FULL
    if primary in (_PERM, _AUTH):
        return PERMISSION
    if primary in (_READONLY, _CANTOPEN, _IOERR):
        found = _probe(path, full_hint=False)
        if found is not None:
            return found
        if primary == _READONLY:
            return PERMISSION
        return IO if primary == _IOERR else OTHER
    return OTHER


def _review(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def explain(err: BaseException, path: Path, saved: str, doing: str | None = None,
            review: Path | None = None) -> StoreError:
    """A one-line :class:`StoreError` for ``err`` met while working on ``path`` (the store, or a
    file beside it) of the review folder ``review`` (default: the folder holding ``path``):
    ``saved`` says (honestly) what was saved, ``doing`` what failed (default: the path)."""
    from ._schema import RESTORE_HINT

    path = Path(path)
    review = Path(review) if review is not None else _review(path)
    what = doing or str(path)
    text = str(err)
    kind = cause(err, path)
    if isinstance(err, sqlite3.Error) and getattr(err, "sqlite_errorcode", None) == _READONLY_DBMOVED:
        return StoreError(f"{path} was moved, replaced or deleted while this process had it open "
                          f"({text}); {saved}; open the review again")
    if kind == FULL:
        return StoreError(
            f"{what}: the disk holding {review} is full ({size(free_bytes(review))} free; {text}); "
            f"{saved}; free some space and try again (a full disk does not damage the store: "
            f"`workbench check --review {review}` confirms it once there is room)")
    if kind == SIZE_LIMIT:
        return StoreError(
            f"{what}: the file reached this process's file-size limit (`ulimit -f`: "
            f"{size(_size_limit())}; {text}); {saved}; raise the limit (or start Jupyter or the "
            "shell without it) and try again")
    if kind == READ_ONLY_FS:
        return StoreError(
            f"{what}: {review} is on a read-only file system ({text}); {saved}; remount it "
            "read-write, or copy the review folder somewhere writable and work on the copy")
    if kind == PERMISSION:
        return StoreError(
            f"{what}: permission denied ({text}); {saved}; ask the review's owner for read and "
            f"write access to the file and its folder (e.g. `chmod -R g+rw {review}`)")
    if kind == BUSY:
        return StoreError(f"{what} is busy: another process held it for longer than the timeout "
                          f"({text}); {saved}; try again")
    if kind == CORRUPT:
        return DamagedStoreError(f"{what} is damaged ({text}); {saved}; "
                                 f"{RESTORE_HINT.format(review=review)}")
    if kind == IO:
        return StoreError(
            f"{what}: a disk I/O error ({text}) although the disk has room and is writable; {saved}; "
            "the disk or its connection may be failing: check it (e.g. `dmesg`), then run "
            f"`workbench check --review {review}`")
    return StoreError(f"{what}: {text}; {saved}")


def read_only_refusal(path: Path, reason: str, saved: str) -> str:
    """Why a change to the store at ``path``, which this process may only read (``reason``,
    from ``_open.read_only_reason``), is refused, and what the user can do."""
    review = _review(Path(path))
    if read_only_fs(review):
        label, advice = "read-only file system", ("remount it read-write, or copy the review "
                                                  "folder somewhere writable and work on the copy")
    elif reason.startswith("the disk"):
        label, advice = "disk full", ("free some space and try again (in a notebook: open the "
                                      "review again)")
    else:
        label, advice = "permission denied", (f"ask the review's owner for write access (e.g. "
                                              f"`chmod -R g+w {review}`), or copy the folder "
                                              "and work on the copy")
    return (f"{label}: {reason}, so you can read this review (history, export, papers, topics) "
            f"but not change it; {saved}; {advice}")

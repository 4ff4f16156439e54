"""How every :class:`Store` method runs: under the process's lock on the store, refused up front
when the handle is closed, was inherited through a fork, or may not write, and with SQLite's
failures turned into one-line errors that say honestly what was saved.
"""

from __future__ import annotations

import functools
import os
import sqlite3

from ._errors import StoreError
from ._schema import RESTORE_HINT

__all__ = ["call", "failure", "guarded", "writes"]


def failure(store, err: sqlite3.Error, saved: str) -> StoreError:
    """A one-line StoreError for a SQLite failure; ``saved`` says what was saved (honestly)."""
    text = str(err)
    if "locked" in text or "busy" in text:
        return StoreError(f"{store.path} is busy: another process held it for longer than the "
                          f"timeout; {saved}; try again")
    if "readonly" in text or "read-only" in text or "permission" in text.lower():
        return StoreError(f"permission denied: {store.path} cannot be written ({text}); {saved}; "
                          "ask the review's owner for write access to the file and its folder")
    if "full" in text or "disk I/O error" in text:
        return StoreError(f"{store.path}: could not write ({text}): the disk may be full or "
                          f"failing; {saved}; free some space and try again (`workbench check "
                          f"--review {store.path.parent}` tells whether the store is healthy)")
    if isinstance(err, sqlite3.OperationalError):
        return StoreError(f"{store.path}: {text}; {saved}")
    return StoreError(f"{store.path} cannot be used ({text}); {saved}; check it with "
                      f"`workbench check --review {store.path.parent}` and "
                      f"{RESTORE_HINT.format(review=store.path.parent)}")


def call(self, method, args, kwargs, writes: bool):
    shared = self._shared
    if shared is None:
        raise StoreError(f"the store {self.path} is closed; open it again with "
                         "Store.open(review_dir)")
    if shared.pid != os.getpid():
        raise StoreError(f"this handle on {self.path} was opened in another process (before a "
                         "fork); open the store again in this process")
    if writes and shared.readonly:
        raise StoreError(f"permission denied: {shared.readonly}, so you can read this review "
                         "(history, export, papers, topics) but not change it; nothing was saved; "
                         "ask the review's owner for write access (e.g. `chmod -R g+w "
                         f"{self.path.parent}`), or copy the folder and work on the copy")
    with shared.lock:
        in_batch = shared.conn.in_transaction
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as err:
            saved = ("nothing of this change was saved" if not in_batch else
                     "the whole change was rolled back, nothing of it was saved")
            raise failure(self, err, saved) from err


def guarded(method):
    """Run a read under the process's lock on the store, SQLite failures as one-line errors."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return call(self, method, args, kwargs, writes=False)

    return wrapper


def writes(method):
    """Like :func:`guarded`, for a change: refused up front on a store this process may not write."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return call(self, method, args, kwargs, writes=True)

    return wrapper

"""How every method of a :class:`Store` and of its parts runs: under the process's lock on the
store, refused up front when the handle is closed, was inherited through a fork, or may not write,
and with SQLite's failures turned into one-line errors that say honestly what was saved.

The store and each of its parts (``store.tags``...) hold the same ``_handle``
(:class:`~._handle.Handle`): the process's connection to the store and the reviewer.
"""

from __future__ import annotations

import functools
import os
import sqlite3

from ._diagnose import explain, read_only_refusal
from ._errors import StoreError

__all__ = ["call", "failure", "guarded", "writes"]


def failure(handle, err: sqlite3.Error, saved: str) -> StoreError:
    """A one-line StoreError for a SQLite failure; ``saved`` says what was saved (honestly).
    A full disk, a read-only file system or a permission problem is named as such
    (``_diagnose``); only real damage is sent to the snapshots."""
    return explain(err, handle.path, saved)


def call(self, method, args, kwargs, writes: bool):
    """Run ``method(self, ...)`` of a store or of one of its parts (see the module docstring)."""
    handle = self._handle
    shared = handle.shared
    if shared is None:
        raise StoreError(f"the store {handle.path} is closed; open it again with "
                         "Store.open(review_dir)")
    if shared.pid != os.getpid():
        raise StoreError(f"this handle on {handle.path} was opened in another process (before a "
                         "fork); open the store again in this process")
    if writes and shared.readonly:
        raise StoreError(read_only_refusal(handle.path, shared.readonly, "nothing was saved"))
    with shared.lock:
        in_batch = shared.conn.in_transaction
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as err:
            saved = ("the whole change was rolled back, nothing of it was saved" if in_batch else
                     "nothing of this change was saved" if writes else "nothing was changed")
            raise failure(handle, err, saved) from err


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

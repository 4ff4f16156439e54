"""What a :class:`~._store.Store` and each of its parts share: one :class:`Handle` on the store.

A handle holds this process's connection to the store file (one per file per process, shared by
every handle on it: ``_connection``), the reviewer whose work it reads and writes, and what every
part needs on the way in: the one resolver of paper ids (``_papers``), the one reading route
(``_visible.Lens``, where blind mode lives) and the checks of who may change what. The store
and its parts (:class:`Part`) all hold the same handle and open nothing themselves; each of their
methods runs under the guard (``_guard``) with it, so a closed handle, one inherited through a
fork or one on a store this process may only read is refused the same way everywhere.
"""

from __future__ import annotations

import sqlite3

from . import _connection, _history, _papers, _visible
from ._errors import AnnotationInputError
from ._settings import read_settings

__all__ = ["Handle", "Part"]


class Handle:
    """One open store: the shared connection (None once closed), its path and the reviewer."""

    def __init__(self, shared: _connection.SharedConnection, reviewer: str, reviewer_given: bool = True):
        self.shared: _connection.SharedConnection | None = shared
        self.path = shared.path
        self.reviewer = reviewer
        #: Whether the reviewer's name was given (to ``Store.open`` or in ``$WORKBENCH_REVIEWER``)
        #: rather than taken from the OS user.
        self.reviewer_given = reviewer_given

    @property
    def conn(self) -> sqlite3.Connection:
        return self.shared.conn

    @property
    def read_only(self) -> str | None:
        """Why this process may only read the store (None when it may write, or closed)."""
        return None if self.shared is None else self.shared.readonly

    def close(self) -> None:
        shared, self.shared = self.shared, None
        if shared is not None:
            _connection.release(shared)

    # ------------------------------------------------------------------ ids and the reading route
    def ids(self, id_or_ids) -> list[str]:
        """Resolve one id or many (``_papers``: merged-away ids name the paper they joined), each
        paper once, in the order given."""
        items = [id_or_ids] if isinstance(id_or_ids, str) else list(id_or_ids)
        if not items:
            raise AnnotationInputError("no paper given; pass an id, an id prefix or a list")
        return list(dict.fromkeys(_papers.resolve_many(self.conn, items, str(self.path))))

    def lens(self, all_reviewers: bool = False) -> _visible.Lens:
        """The reading route for this reviewer (``all_reviewers``: everyone's work)."""
        return _visible.Lens.of(self.conn, self.reviewer, all_reviewers=all_reviewers)

    # ------------------------------------------------------------------ who may change what
    def setting(self, name: str) -> str | None:
        return read_settings(self.conn).get(name)

    def is_blind(self) -> bool:
        return self.setting("blind") == "on"

    def check_reviewer(self) -> None:
        """Refuse a change under the OS user's name in team use (blind mode, or two or more
        reviewers per paper): two people on one shared server are often both "jovyan" or "root"
        and would become one reviewer."""
        team_use = self.is_blind() or int(self.setting("reviewers_per_paper") or 1) >= 2
        if not self.reviewer_given and team_use:
            raise AnnotationInputError(
                f"this review is screened as a team ({'blind mode' if self.is_blind() else 'double screening'}), "
                f"so every change needs the reviewer's own name, and none was given (the OS user would be "
                f"{self.reviewer!r}, which others on this server may share); nothing was saved; open the store "
                "with Store.open(folder, reviewer='ana'), pass --reviewer ana, or set WORKBENCH_REVIEWER=ana")

    def check_named(self, what: str) -> None:
        if not self.reviewer_given:
            raise AnnotationInputError(
                f"blind mode is on, so to {what} you must give your own name (it is recorded in the "
                f"history), and none was given (the OS user would be {self.reviewer!r}); pass --reviewer "
                "NAME, set WORKBENCH_REVIEWER=NAME, or open the store with Store.open(folder, reviewer='ana')")

    def record_all_reviewers(self, lens: _visible.Lens, what: str) -> None:
        """Record in the history that this reviewer read every reviewer's work in blind mode (not
        on a store this process may only read, where nothing can be recorded)."""
        if not lens.blind or self.read_only:
            return
        self.check_named(f"read {what} of every reviewer's work")
        with _history.Action(self.conn, self.reviewer, "all-reviewers", undoable=False) as act:
            act.summary = f"read every reviewer's work ({what}) while blind mode is on"


class Part:
    """One concern of a :class:`~._store.Store`, reached as an attribute of it (``store.tags``).

    It holds the store's :class:`Handle`: the same connection, reviewer and lock; its methods run
    under the same guard as the store's own (see the module docstring)."""

    def __init__(self, handle: Handle):
        self._handle = handle

    @property
    def _conn(self) -> sqlite3.Connection:
        return self._handle.conn

    @property
    def _reviewer(self) -> str:
        return self._handle.reviewer

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of Store({str(self._handle.path)!r}, reviewer={self._handle.reviewer!r})>"

"""The store's log of changes from the command line: history, undo.

Both work on the annotation store of ``--review DIR`` as ``--reviewer NAME``; ``undo`` undoes
that reviewer's own latest changes unless ``--everyone`` (in blind mode: of the changes that
reviewer may see). In blind mode ``history`` lists the changes the reviewer may see;
``--all-reviewers`` lists everyone's, says so on standard error and is recorded in the history. :func:`register` adds them to a parser.
"""

from __future__ import annotations

import argparse

from ..store import Store
from .common import Reply, add_all_reviewers, add_store_command, blind_notes, on_store

__all__ = ["register"]


@on_store()
def history(args, store: Store) -> Reply:
    entries = store.history(limit=args.limit, paper=args.paper, all_reviewers=args.all_reviewers)
    return Reply([str(entry) for entry in entries] or ["no changes yet"],
                 err=blind_notes(store, args.all_reviewers, "listing", "history"))


@on_store()
def undo(args, store: Store) -> Reply:
    undone = store.undo(args.n, everyone=args.everyone)
    return Reply([f"undid #{entry.id}: {entry.summary}" for entry in undone])


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def register(subparsers) -> None:
    """Add history and undo to ``argparse`` sub-parsers."""
    p = add_store_command(subparsers, "history", history, "the latest changes, newest first")
    p.add_argument("--limit", type=_positive, default=20, metavar="N", help="default: 20")
    p.add_argument("--paper", default=None, metavar="ID", help="only changes to this paper")
    add_all_reviewers(p, "history")

    p = add_store_command(subparsers, "undo", undo, "undo your last N changes")
    p.add_argument("n", metavar="N", nargs="?", type=_positive, default=1)
    p.add_argument("--everyone", action="store_true",
                   help="undo the last changes of any reviewer, not only yours")

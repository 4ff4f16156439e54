"""The review's settings from the command line: ``title``.

``workbench title`` prints the review's title (the heading of its report); ``workbench title
TEXT`` sets it, ``--clear`` goes back to the default (the review folder's name). The title is
kept in the annotation store of ``--review DIR``, recorded in the history as ``--reviewer``, and
undone with ``workbench undo``. :func:`register` adds the command to a parser.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..store import SETTINGS, Store
from .common import Reply, add_store_command, on_store

__all__ = ["register"]


@on_store()
def title(args, store: Store) -> Reply:
    if args.clear and args.title:
        raise InputError("give a title or --clear, not both; e.g. `workbench title A survey of RLHF`")
    if args.clear or args.title:
        kept = store.settings.set("title", None if args.clear else " ".join(args.title))
        if kept is None:
            return Reply([f"title: {_default(store)!r} (the default: the review folder's name)"])
        return Reply([f"title: {kept!r}"])
    kept = store.settings.read().get("title")
    if kept is None:
        return Reply([(f"title: {_default(store)!r} (the default: the review folder's name; "
                       "set one with `workbench title TEXT`)")])
    return Reply([f"title: {kept!r}"])


def _default(store: Store) -> str:
    return Path(store.path).resolve().parent.name


def register(subparsers) -> None:
    """Add ``title`` to ``argparse`` sub-parsers."""
    p = add_store_command(subparsers, "title", title,
                          f"show or set {SETTINGS['title']}")
    p.add_argument("title", metavar="TEXT", nargs="*", help="the new title (none: show the title)")
    p.add_argument("--clear", action="store_true", help="go back to the default title")

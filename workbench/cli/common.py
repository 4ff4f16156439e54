"""What the commands share: their common arguments, the store pattern, and printing.

- :func:`add_review`, :func:`add_reviewer`, :func:`add_format`: ``--review``, ``--reviewer`` and
  ``--format table|csv|json``, declared here once; :func:`add_store_command` adds a command
  that works on the annotation store (it takes ``--review`` and ``--reviewer``).
- :func:`on_store`: the pattern of those commands written once: open the store of ``--review``
  for ``--reviewer``, resolve the paper id (or unique prefix) in ``args.id`` when asked (an id
  merged into another paper names the paper it joined, and the reply says so), run the action,
  then close the store and print the action's :class:`Reply`.
- :func:`say` and :class:`Reply`: messages go through :func:`workbench.terminal.visible`, so
  control characters in user data show escaped and never act; data (``Reply.data``, an export
  to standard output, and :func:`write_table` as CSV or JSON) is written as it is.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TextIO

from ..review import DEFAULT_REVIEW
from ..store import MergedPaperWarning, Store
from ..terminal import visible

__all__ = ["FORMATS", "Reply", "add_format", "add_review", "add_reviewer", "add_store_command",
           "on_store", "say", "show_merged", "write_table"]

#: The output formats of the commands that list papers or topics (``--format``).
FORMATS = ("table", "csv", "json")

#: Table columns clipped to a width (characters), so a row fits on a line.
_TABLE_WIDTHS = {"citing_title": 40, "cited_title": 40, "name": 50, "title": 60, "authors": 30, "source": 40, "words": 70, "label": 40, "topic_label": 30}


# ----------------------------------------------------------------------------- arguments

def add_review(parser: argparse.ArgumentParser, help: str = "review folder (default: review)") -> None:
    """``--review DIR``, default ``review``; ``help`` says what the command does with it."""
    parser.add_argument("--review", default=DEFAULT_REVIEW, metavar="DIR", help=help)


def add_reviewer(parser: argparse.ArgumentParser) -> None:
    """``--reviewer NAME``: who makes the change (the store's default when not given)."""
    parser.add_argument("--reviewer", default=None, metavar="NAME",
                        help="who makes the change (default: $WORKBENCH_REVIEWER, else the OS user)")


def add_format(parser: argparse.ArgumentParser) -> None:
    """``--format table|csv|json``, default ``table``."""
    parser.add_argument("--format", default="table", choices=FORMATS,
                        help="output format (default: table)")


def add_store_command(subparsers, name: str, func: Callable, helptext: str) -> argparse.ArgumentParser:
    """A command on the annotation store: ``--review DIR`` and ``--reviewer NAME``, then its own."""
    parser = subparsers.add_parser(name, help=helptext, description=helptext)
    add_review(parser)
    add_reviewer(parser)
    parser.set_defaults(func=func)
    return parser


# ----------------------------------------------------------------------------- the store pattern

@dataclass(frozen=True)
class Reply:
    """What a command prints once the store is closed, and its exit code.

    ``out`` and ``err`` are message lines for standard output and standard error, printed
    through :func:`visible`; ``data`` goes to standard output as it is.
    """

    out: Sequence[str] = ()
    err: Sequence[str] = ()
    data: str = ""
    code: int = 0

    def show(self) -> int:
        """Print the reply; returns the exit code."""
        say(*self.out, to=sys.stdout)
        say(*self.err)
        sys.stdout.write(self.data)
        return self.code


def on_store(paper: bool = False, done: str = "") -> Callable:
    """Make ``action(args, store[, pid]) -> Reply`` a command ``func(args) -> exit code``.

    The command opens the existing store of ``args.review`` for ``args.reviewer`` (a missing
    store is an error, never a new one), passes the id that ``args.id`` names when ``paper``
    (an unknown or ambiguous prefix raises a one-line error; an id merged into another paper
    gives the paper it joined, and the reply says so: "B was merged into A (same paper);
    ``done`` A"), and prints the reply after the store is closed.
    """
    def decorate(action: Callable[..., Reply]) -> Callable[[argparse.Namespace], int]:
        @functools.wraps(action)
        def command(args: argparse.Namespace) -> int:
            with Store.open(args.review, reviewer=args.reviewer, create=False) as store:
                if not paper:
                    reply = action(args, store)
                else:
                    pid, merged = _resolve(store, args.id)
                    reply = action(args, store, pid)
                    if merged is not None:
                        reply = replace(reply, err=[f"workbench: {merged.joined}; {done or 'used'} {pid}",
                                                    *reply.err])
            return reply.show()

        return command

    return decorate


def _resolve(store: Store, given: str) -> tuple[str, MergedPaperWarning | None]:
    """The paper ``given`` names, and the warning that it was merged into it (or None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MergedPaperWarning)
        pid = store.resolve(given)
    merged = [w.message for w in caught if isinstance(w.message, MergedPaperWarning)]
    return pid, (merged[0] if merged else None)


def show_merged(message, category, filename, lineno, file=None, line=None, *, shown=warnings.showwarning) -> None:
    """``warnings.showwarning`` for the commands: a :class:`MergedPaperWarning` (an id merged into
    another paper was used) is one line on standard error; any other warning as Python shows it."""
    if issubclass(category, MergedPaperWarning):
        say(f"workbench: {message}")
    else:
        shown(message, category, filename, lineno, file, line)


# ----------------------------------------------------------------------------- printing

def say(*lines: str, to: TextIO | None = None) -> None:
    """Print message lines (default: to standard error); control characters show escaped."""
    out = to or sys.stderr
    for line in lines:
        out.write(visible(line) + "\n")


def write_table(frame, fmt: str, out=None, list_columns: Sequence[str] = ()) -> None:
    """Print a DataFrame as an aligned table, CSV or JSON records (lists stay lists in JSON)."""
    out = out or sys.stdout
    if fmt == "json":
        records = json.loads(frame.to_json(orient="records", force_ascii=False))
        out.write(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
        return
    flat = frame.copy()
    for col in list_columns:
        if col in flat:
            flat[col] = flat[col].map(lambda v: "; ".join(map(str, v)) if isinstance(v, (list, tuple)) else v)
    if fmt == "csv":
        flat.to_csv(out, index=False, lineterminator="\n")
        return
    for col in flat.columns:
        if flat[col].dtype == object:
            flat[col] = flat[col].map(lambda v: visible(v) if isinstance(v, str) else v)
    for col, width in _TABLE_WIDTHS.items():
        if col in flat:
            flat[col] = flat[col].astype(str).map(lambda s, w=width: s if len(s) <= w else s[: w - 1] + "…")
    for col in ("x", "y"):
        if col in flat:
            flat[col] = flat[col].map(lambda v: f"{v:.2f}")
    out.write(flat.to_string(index=False) + "\n")

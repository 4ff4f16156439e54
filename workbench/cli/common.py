"""What the commands share: their common arguments, the store pattern, and printing.

- :func:`add_review`, :func:`add_reviewer`, :func:`add_format`: ``--review``, ``--reviewer`` and
  ``--format table|csv|json``, declared here once; :func:`add_store_command` adds a command
  that works on the annotation store (it takes ``--review`` and ``--reviewer``).
- :func:`on_store`: the pattern of those commands written once: open the store of ``--review``
  for ``--reviewer``, resolve the paper id (or unique prefix) in ``args.id`` when asked (an id
  merged into another paper names the paper it joined, and the reply says so), run the action,
  then close the store and print the action's :class:`Reply`.
- :func:`say` and :class:`Reply`: messages go through :func:`workbench.cli.terminal.visible`, so
  control characters in user data show escaped and never act; data (``Reply.data``, an export
  to standard output, and :func:`write_table` as CSV or JSON) is written as it is, except that
  a CSV cell a spreadsheet would run as a formula gets a ``'`` in front (as in exports).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import stat
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TextIO

from ..errors import InputError
from ..review import DEFAULT_REVIEW
from ..store import MergedPaperWarning, Store, csv_cell
from .terminal import visible

__all__ = ["FORMATS", "MAX_SEED", "TEXT_SUFFIXES", "Reply", "add_all_reviewers", "add_follow_links", "add_format",
           "add_review", "add_reviewer", "add_store_command", "blind_notes", "on_store", "percent", "read_text", "say",
           "show_merged", "text_argument", "whole", "write_table"]

#: The output formats of the commands that list papers or topics (``--format``).
FORMATS = ("table", "csv", "json")

#: The largest seed (numpy's generators take 0 to 2**32 - 1).
MAX_SEED = 2**32 - 1

#: The file names ``--file F`` and ``@FILE`` read text from: a text file says so by its name, so
#: a key, a password file or a binary is never taken for a note or criteria by a slip.
TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".text", ".rst")

#: Table columns clipped to a width (characters), so a row fits on a line.
_TABLE_WIDTHS = {"citing_title": 40, "cited_title": 40, "titles": 60, "by": 40, "name": 50, "title": 60, "authors": 30, "source": 40, "words": 70, "label": 40, "topic_label": 30}


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


def add_all_reviewers(parser: argparse.ArgumentParser, what: str) -> None:
    """``--all-reviewers``: every reviewer's work in ``what``, blind mode or not."""
    parser.add_argument("--all-reviewers", action="store_true",
                        help=f"in blind mode: the {what} of every reviewer's work, not only yours and what blind "
                             "mode shows you (said on standard error and recorded in the review's history)")


def blind_notes(store: Store, all_reviewers: bool, doing: str, what: str) -> list[str]:
    """What a command that reads annotations says on standard error in blind mode: that it
    shows every reviewer's work (``--all-reviewers``), or only what blind mode shows the reviewer."""
    if not store.team.blind:
        return []
    if all_reviewers:
        recorded = ("recorded in the review's history" if not store.read_only else
                    f"not recorded in the history: {store.read_only}")
        return [f"workbench: {doing} every reviewer's work, blind mode is on: it shows what blind mode hides "
                f"from reviewers who have not screened a paper yet; keep it from them ({recorded})"]
    return [f"workbench: blind mode is on: this {what} holds {store.reviewer}'s work and what blind mode shows "
            f"{store.reviewer} of the others'; --all-reviewers gives everyone's"]


def whole(least: int, most: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``least`` (to ``most``), else a usage error that
    says so (``10^21``, ``-1``, ``abc`` and numbers too large for SQLite or numpy are refused)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least or (most is not None and value > most):
            bound = f">= {least}" if most is None else f"from {least} to {most}"
            raise argparse.ArgumentTypeError(f"expected a whole number {bound}, got {text[:40]!r}")
        return value

    return parse


def percent(text: str) -> float:
    """An argparse type: a share in per cent, 0 to 100."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 100:  # also NaN
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 100 (per cent), got {text[:40]!r}")
    return value


def add_follow_links(parser: argparse.ArgumentParser) -> None:
    """``--follow-links``: read what links in the source folders lead to outside them."""
    parser.add_argument("--follow-links", action="store_true",
                        help="also read files and folders that links in the source folders lead to outside them "
                             "(by default such a link is listed in the report, not followed)")


def add_store_command(subparsers, name: str, func: Callable, helptext: str) -> argparse.ArgumentParser:
    """A command on the annotation store: ``--review DIR`` and ``--reviewer NAME``, then its own."""
    parser = subparsers.add_parser(name, help=helptext, description=helptext)
    add_review(parser)
    add_reviewer(parser)
    parser.set_defaults(func=func)
    return parser


# ----------------------------------------------------------------------------- text from a file

def text_argument(words: Sequence[str], what: str, limit: int) -> str:
    """The text that ``TEXT...`` arguments give: the words joined by spaces; ``-`` alone reads
    standard input and ``@FILE`` alone the file FILE (:func:`read_text`); a first word starting
    ``@@`` is text starting ``@`` (``@@alice`` is ``@alice``)."""
    first = words[0] if words else ""
    if len(words) == 1 and first == "-":
        return read_text("-", what, limit)
    if first.startswith("@@"):
        return " ".join([first[1:], *words[1:]])
    if first.startswith("@"):
        if len(words) > 1 or first == "@":
            source = f"reads {what} from the file {first[1:]!r}, which must be the only TEXT" if first != "@" \
                else "names no file"
            raise InputError(f"{first!r} {source}; to start {what} with @, write @@ (e.g. @@{first[1:] or 'ana'} ...)")
        return read_text(first[1:], what, limit)
    return " ".join(words)


def read_text(name: str, what: str, limit: int) -> str:
    """The text of the file ``name`` (``-``: standard input) for ``what``: at most ``limit``
    bytes of UTF-8 text, from a regular file named ``*.txt``, ``*.md`` (:data:`TEXT_SUFFIXES`).
    Anything else (missing, unreadable, a folder or device, another kind of file, too large,
    binary, not UTF-8) is an InputError that names the file and never shows its content."""
    if name == "-":
        if sys.stdin.isatty():
            say(f"reading {what} from the terminal; end it with Ctrl-D")
        return _decode(sys.stdin.buffer.read(limit + 1), "standard input", what, limit)
    path = os.path.expanduser(name)
    try:
        st = os.stat(path)
    except OSError as err:
        raise InputError(f"cannot read {what} from {name!r} ({err.strerror}); expected a text file "
                         "(.txt or .md), or - for standard input") from err
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{name!r} is not a regular file (a folder, device or pipe); expected a text file "
                         f"(.txt or .md) for {what}, or - for standard input")
    if not name.lower().endswith(TEXT_SUFFIXES):
        raise InputError(f"{name!r} is not named as a text file; --file and @FILE read only files named "
                         f"{', '.join('*' + s for s in TEXT_SUFFIXES)} (rename it, or give {what} on standard "
                         "input with -)")
    if st.st_size > limit:
        raise InputError(f"{name!r} is {st.st_size:,} bytes; {what} may be at most {limit:,} bytes")
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as err:
        raise InputError(f"cannot read {what} from {name!r} ({err.strerror}); check its permissions") from err
    return _decode(data, repr(name), what, limit)


def _decode(data: bytes, where: str, what: str, limit: int) -> str:
    if len(data) > limit:
        raise InputError(f"{where} holds more than {limit:,} bytes; {what} may be at most {limit:,} bytes")
    if b"\x00" in data:
        raise InputError(f"{where} is binary (it holds NUL bytes), not text; expected UTF-8 text for {what}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"{where} is not UTF-8 text (byte {data[err.start]:#04x} at offset {err.start}); "
                         f"save it as UTF-8 and give it again for {what}") from None


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
    """Print a DataFrame as an aligned table, CSV or JSON records (lists stay lists in JSON).

    CSV neutralises formulas as every CSV of the workbench does (:func:`workbench.store.csv_cell`:
    a text cell starting ``= + - @``, tab or carriage return gets a ``'`` in front)."""
    out = out or sys.stdout
    if fmt == "json":
        records = json.loads(frame.to_json(orient="records", force_ascii=False))
        out.write(json.dumps(records, indent=2, ensure_ascii=False) + "\n")
        return
    flat = frame.copy()
    for col in list_columns:
        if col in flat:
            flat[col] = flat[col].map(lambda v: "; ".join(map(str, v)) if isinstance(v, (list, tuple)) else v)
    if fmt == "csv":  # a spreadsheet shows every text cell as text, never runs it (store.csv_cell)
        for col in flat.columns:
            if flat[col].dtype == object:
                flat[col] = flat[col].map(lambda v: csv_cell(v) if isinstance(v, str) else v)
        flat.columns = [csv_cell(c) for c in flat.columns]
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
    if flat.empty:  # the column names, not pandas' "Empty DataFrame"
        out.write("  ".join(map(str, flat.columns)) + "\n")
        return
    out.write(flat.to_string(index=False) + "\n")

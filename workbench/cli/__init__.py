"""The ``workbench`` command line.

Every command exits 0 on success; bad input prints one line, ``workbench: error: ...``, to
stderr and exits 1 (2 for a malformed command line, 130 when interrupted). Set
``WORKBENCH_DEBUG=1`` for tracebacks. Messages and tables show control characters in user data
escaped (:func:`workbench.cli.terminal.visible`); ``--format csv|json`` output is the data as it is.

One module per group of commands, each with a ``register(subparsers)``:

- :mod:`.build`: build, papers, topics, notebooks;
- :mod:`.update`: update (a new search added to a built review, without refitting);
- :mod:`.read`: read (read, clean and deduplicate, no embedding);
- :mod:`.annotate`: tag, untag, note, decide, rename-tag, rename-topic;
- :mod:`.screen`: rank, simulate, stopping (the ranked queue and when to stop);
- :mod:`.history`: history, undo;
- :mod:`.files`: export, backup, restore, check, import-annotations;
- :mod:`.settings`: title (the review's title, the heading of its report);
- :mod:`.team`: agreement, conflicts, prisma, criteria, reasons, blind, reviewers-per-paper,
  sources (reviewing as a team, PRISMA 2020);
- :mod:`.field`: links, trends, who (citations inside the review, topics over time, venues and authors);
- :mod:`.methods`: methods (the methods text and AI-use statement from the log), snowball
  (citation searching from the included papers);
- :mod:`.common`: the shared arguments, the open -> resolve -> act -> print pattern of the
  store commands, and :func:`write_table`.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence

from .. import __version__
from ..errors import WorkbenchError
from .terminal import visible
from . import annotate, build, field, files, history, methods, read, screen, settings, team, update
from ..store import MergedPaperWarning
from .common import show_merged, write_table

__all__ = ["main", "parser", "write_table"]

#: The command groups, in the order ``workbench --help`` lists their commands.
GROUPS = (build, update, read, annotate, screen, history, files, settings, team, field, methods)


def parser() -> argparse.ArgumentParser:
    """The ``workbench`` argument parser with every command."""
    top = argparse.ArgumentParser(prog="workbench", description="Map, tag, screen and annotate paper abstracts.")
    top.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for group in GROUPS:
        group.register(sub)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (the console script ``workbench`` exits with it)."""
    args = parser().parse_args(argv)
    try:
        with warnings.catch_warnings():  # an id merged into another paper: one line, every time
            warnings.simplefilter("always", MergedPaperWarning)
            warnings.showwarning = show_merged
            return int(args.func(args) or 0)
    except WorkbenchError as err:
        if os.environ.get("WORKBENCH_DEBUG"):
            raise
        sys.stderr.write(f"workbench: error: {visible(err)}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("workbench: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as err:  # an unexpected failure still gets one readable line
        if os.environ.get("WORKBENCH_DEBUG"):
            raise
        sys.stderr.write(
            f"workbench: error: {type(err).__name__}: {visible(err)} (this is a bug: rerun with "
            "WORKBENCH_DEBUG=1 and report the traceback)\n"
        )
        return 1

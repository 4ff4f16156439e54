"""``workbench read SOURCES...``: read, clean and deduplicate exports, without embedding.

Prints the papers (``--format table|csv|json``; CSV with formulas neutralised as in exports) on
stdout and the per-file report (records read, skipped with reasons, merged) on stderr; exits 1
with the report when no file yielded a record. The table and the report show control characters
in the data escaped (:func:`workbench.cli.terminal.visible`). :func:`register` adds the command to a
parser.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import TextIO

from ..errors import InputError, NoRecordsError
from ..dedupe import DuplicateRules
from ..readers import READERS, read_sources
from ..corpus.paper import PAPER_COLUMNS
from ..store import csv_cell
from .terminal import visible
from .common import add_follow_links, add_format, say

__all__ = ["COLUMNS", "handler", "register"]

#: The columns of ``workbench papers`` that exist before embedding (no topic, no map).
COLUMNS = [c for c in PAPER_COLUMNS if c not in ("topic", "topic_label", "x", "y")]


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``read`` command to an argparse ``subparsers`` object."""
    parser = subparsers.add_parser(
        "read",
        help="read, clean and deduplicate exports (no embedding)",
        description=(
            "Read BibTeX, RIS, Web of Science, MEDLINE, CSV/TSV/XLSX, JSON (OpenAlex, Semantic Scholar), "
            "PubMed XML, arXiv Atom and seed text files or folders; merge duplicates; list the papers. "
            "The report of what was read, skipped and merged goes to stderr."
        ),
    )
    parser.add_argument("sources", nargs="+", metavar="SOURCE", help="files or folders to read")
    add_format(parser)
    parser.add_argument("--input-format", choices=sorted(READERS), default=None,
                        help="read every file as this format instead of guessing from suffix and content")
    add_follow_links(parser)
    parser.add_argument("--no-dedupe", action="store_true",
                        help="merge only records that share an identifier or title and abstract; no fuzzy titles")
    parser.add_argument("--with-references", action="store_true",
                        help="also read the citations/references embedded in Semantic Scholar records")
    parser.add_argument("--threshold", type=float, default=None,
                        help="title similarity (0-100) for fuzzy duplicates (default: 95)")
    parser.add_argument("--all-report-lines", action="store_true",
                        help="print every skipped, warning and merge line instead of the first 20 of each")
    parser.set_defaults(func=handler)
    return parser


def _row(paper) -> dict:
    d = paper.to_dict()
    d["authors"] = "; ".join(paper.authors) + ("; et al." if paper.et_al else "")
    d["year"] = "" if paper.year is None else paper.year
    return {c: d.get(c, "") for c in COLUMNS}


def _clip(text: str, width: int, keep_end: bool = False) -> str:
    text = str(text)
    if len(text) <= width:
        return text
    return "…" + text[-(width - 1):] if keep_end else text[: width - 1] + "…"


def _table(rows: list[dict], out: TextIO) -> None:
    widths = {"id": 12, "title": 60, "authors": 28, "year": 4, "collection": 18, "source": 40}
    fmt = "  ".join(f"{{{c}:<{widths.get(c, 20)}}}" for c in COLUMNS)
    out.write(fmt.format(**{c: c for c in COLUMNS}).rstrip() + "\n")
    for row in rows:
        clipped = {c: _clip(visible(row[c]), widths.get(c, 20), keep_end=c == "source") for c in COLUMNS}
        out.write(fmt.format(**clipped).rstrip() + "\n")


def handler(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``workbench read``; returns the exit code. User errors raise WorkbenchError subclasses."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if args.threshold is not None and not 0 < args.threshold <= 100:
        raise InputError(f"--threshold={args.threshold} should be between 0 and 100 (a rapidfuzz ratio)")
    limit = None if args.all_report_lines else 20
    try:
        papers, report = read_sources(
            args.sources,
            format=args.input_format,
            duplicates=DuplicateRules(fuzzy=not args.no_dedupe, threshold=args.threshold),
            with_references=args.with_references,
            follow_links=args.follow_links,
        )
    except NoRecordsError as err:  # the report says why, file by file; then the error line, exit 1
        say(*err.report.lines(limit=limit), to=stderr)
        raise
    say(*report.lines(limit=limit), to=stderr)
    rows = [_row(p) for p in papers]
    if args.format == "json":
        records = [dict(row, authors=list(p.authors), year=p.year, sources=list(p.sources)) for row, p in zip(rows, papers)]
        json.dump(records, stdout, ensure_ascii=False, indent=1)
        stdout.write("\n")
    elif args.format == "csv":
        writer = csv.DictWriter(stdout, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({c: csv_cell(v) if isinstance(v, str) else v for c, v in row.items()} for row in rows)
    else:
        _table(rows, stdout)
    return 0

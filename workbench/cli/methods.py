"""Writing the review up, and growing it by its citations: ``workbench methods`` and
``workbench snowball``.

``methods`` prints the methods text and AI-use statement written from the review's log
(:func:`workbench.review_methods`) as Markdown or plain text, or writes it with ``-o``
(into ``REVIEW/report/`` or any new file; never onto a review's own files, through the store's
output check as ``export`` writes). ``snowball`` lists the works the included papers cite
(``--direction backward``) or that cite them (``forward``), not yet in the review, ranked by how
many included papers point to each, and with ``--lookup dois|openalex -o FILE`` writes the file a
database takes for them; the records found go back in with ``workbench update FILE --method
citation-search``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..errors import InputError
from ..field import DIRECTIONS
from ..review import SNOWBALL_LOOKUPS, open_review, review_methods, write_lookup
from ..store import check_output, write_output
from .common import add_format, add_review, add_reviewer, say, whole, write_table

__all__ = ["register"]


def _report_folder(review, dest: str) -> None:
    """The review's ``report/`` is made on first use, as ``export -o`` makes it."""
    folder = Path(review.path).resolve() / "report"
    if Path(os.path.abspath(dest)).resolve().parent == folder and not folder.exists():
        folder.mkdir()


def methods(args) -> int:
    review = open_review(args.review)
    text = review_methods(review, reviewer=args.reviewer)
    out = text.markdown() if args.format == "markdown" else text.text()
    if args.output in (None, "-"):
        sys.stdout.write(out)
        return 0
    _report_folder(review, args.output)
    where = write_output(args.output, out, store_path=review.path / "annotations.sqlite", purpose="the methods text")
    say(f"wrote the methods text ({args.format}) to {where}")
    return 0


def snowball(args) -> int:
    to_file = args.output not in (None, "-")
    if to_file and not args.lookup:
        raise InputError(f"-o {args.output}: only the lookup file is written to a file; add --lookup dois or "
                         "--lookup openalex (the table goes to standard output)")
    review = open_review(args.review)
    store_path = review.path / "annotations.sqlite"
    if to_file:  # a refused path is said before anything else
        check_output(args.output, store_path=store_path, purpose="the snowball lookup file")
    found = review.field.snowball(args.direction, args.ids or args.from_, reviewer=args.reviewer)
    say(*found.lines())
    if args.lookup:
        if not to_file:
            sys.stdout.write(found.lookup(args.lookup))
            return 0
        _report_folder(review, args.output)
        where = write_lookup(found, args.output, args.lookup, store_path=store_path)
        n = len(found.dois()) if args.lookup == "dois" else len(found.openalex_filters())
        say(f"wrote {n} {'DOIs' if args.lookup == 'dois' else 'OpenAlex filters'} to {where}; add the records "
            f"found with `workbench update FILE --method citation-search --review {review.path}`")
        return 0
    frame = found.frame()
    frame["titles"] = ["; ".join(review.papers[review.row(pid)].title for pid in c.by[:3]) for c in found.candidates]
    write_table(frame.head(args.top) if args.top else frame, args.format)
    return 0


def register(subparsers) -> None:
    """Add ``methods`` and ``snowball``."""
    p = subparsers.add_parser("methods", help="the methods text and AI-use statement, written from the review's log")
    add_review(p)
    add_reviewer(p)
    p.add_argument("--format", default="markdown", choices=("markdown", "text"), help="output format (default: markdown)")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write to FILE (default, or -: standard output); never onto a review's own files")
    p.set_defaults(func=methods)

    p = subparsers.add_parser("snowball", help="citation searching: works the included papers cite, or that cite "
                                               "them, not yet in the review")
    add_review(p)
    add_reviewer(p)
    add_format(p)
    p.add_argument("--direction", default="backward", choices=DIRECTIONS,
                   help="backward: the works they cite; forward: the works citing them (default: backward)")
    p.add_argument("--from", dest="from_", default="included", choices=("included", "all"),
                   help="which papers: those included (at full text, else at title/abstract; default), or all")
    p.add_argument("--ids", nargs="+", default=None, metavar="ID", help="instead of --from: these papers (ids or prefixes)")
    p.add_argument("--top", type=whole(1, 10**9), default=None, metavar="N", help="list only the first N works")
    p.add_argument("--lookup", default=None, choices=SNOWBALL_LOOKUPS,
                   help="instead of the table, the lookup file: dois (one DOI a line) or openalex (OpenAlex filters)")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="with --lookup: write it to FILE (default, or -: standard output); never onto a review's files")
    p.set_defaults(func=snowball)

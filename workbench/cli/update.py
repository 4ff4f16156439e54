"""Updating a review with a new search: ``workbench update SOURCES --review DIR``.

The new records join the review without refitting (see :mod:`workbench.review._update`): the
read report, then which records were papers already in the review (and by which rule), how many
papers are new (tagged "new since <date>") and where each source was searched, on standard error.
``--new`` lists the new papers (``--unscreened``: only those nobody has decided on) instead.

``workbench duplicates`` lists the pairs of papers that may be one (titles alike, kept apart by
the rules); ``--same A B`` merges B into A (its annotations follow; ``workbench undo`` takes it
back), ``--different A B`` keeps them apart in every later update and rebuild.
"""

from __future__ import annotations

from .. import review as reviews
from ..review import open_review
from .build import _PROVENANCE, _provenance
from .common import add_follow_links, add_format, add_review, add_reviewer, percent, say, write_table

__all__ = ["register"]


def update(args) -> int:
    review = open_review(args.review)
    if args.new:
        ids = set(review.updates.new_papers(since=args.since, unscreened=args.unscreened))
        frame = review.papers_frame()
        write_table(frame[frame.id.isin(ids)], args.format, list_columns=["authors"])
        return 0
    updated = reviews.update(args.sources, review, _provenance(args, args.sources), input_format=args.input_format,
                             reviewer=args.reviewer, follow_links=args.follow_links)
    report = updated.update_report
    seconds = ", ".join(f"{k} {v:.1f}s" for k, v in report.seconds.items())
    say(*report.lines(), f"annotations: {report.save.sync_report}", f"topics: {report.save.topic_report}",
        *report.save.warnings, f"updated {updated.path}: {len(updated.papers)} papers ({seconds})",
        f"the new papers: workbench update --new --unscreened --review {updated.path}")
    return 0


def duplicates(args) -> int:
    import pandas as pd

    review = open_review(args.review)
    pair = args.same or args.different
    if pair:
        verdict = review.updates.settle_duplicates(pair[0], pair[1], "same" if args.same else "different",
                                                   reviewer=args.reviewer)
        say(f"{verdict.paper_a} and {verdict.paper_b}: {verdict.verdict}" +
            (f" (merged into {verdict.kept}; undo with `workbench undo --review {review.path}`)" if verdict.kept else ""))
        if verdict.conflicts:
            say(f"both votes kept, {verdict.kept} is a conflict to resolve (`workbench conflicts --review "
                f"{review.path}`): " + "; ".join(verdict.conflicts))
        return 0
    found = review.updates.duplicate_candidates(low=args.low)
    columns = ["first", "second", "score", "why_apart", "first_title", "second_title"]
    write_table(pd.DataFrame([c.__dict__ for c in found], columns=columns), args.format)
    return 0


def register(subparsers) -> None:
    """Add ``update`` and ``duplicates`` to ``argparse`` sub-parsers."""
    p = subparsers.add_parser("update", help="add a new search's records to a built review, without refitting")
    p.add_argument("sources", nargs="*", help="files or folders of the new search")
    add_review(p)
    add_reviewer(p)
    add_format(p)
    p.add_argument("--input-format", default=None, help="read every source with this reader instead of guessing")
    add_follow_links(p)
    p.add_argument("--new", action="store_true", help="list the papers updates brought instead of updating")
    p.add_argument("--since", default=None, metavar="YYYY-MM-DD", help="with --new: updates on or after this date")
    p.add_argument("--unscreened", action="store_true", help="with --new: only papers nobody has decided on")
    for option, key in _PROVENANCE:
        p.add_argument(f"--{option}", action="append", default=None, metavar="[FILE=]VALUE",
                       help=f"the search provenance ({key}) of a source, as for build" + (
                           "; --method citation-search: records found by citation searching (`workbench "
                           "snowball`), counted in PRISMA 2020's other-methods column" if key == "method" else ""))
    p.set_defaults(func=update)

    p = subparsers.add_parser("duplicates", help="pairs that may be one paper; settle them with --same or --different")
    add_review(p)
    add_reviewer(p)
    add_format(p)
    p.add_argument("--low", type=percent, default=None, help="least title similarity listed, in %% (default: 85)")
    verdict = p.add_mutually_exclusive_group()
    verdict.add_argument("--same", nargs=2, metavar=("A", "B"), help="B is the same paper as A: merge it into A")
    verdict.add_argument("--different", nargs=2, metavar=("A", "B"), help="A and B are different papers: keep apart")
    p.set_defaults(func=duplicates)

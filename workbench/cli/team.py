"""Reviewing as a team from the command line: agreement, conflicts, prisma, criteria, reasons,
blind, reviewers-per-paper and sources.

- ``workbench agreement [--stage S]``: a line per pair of reviewers on the papers both screened
  (raw agreement, Cohen's kappa, Gwet's AC1, the overlap), then Krippendorff's alpha across all;
- ``workbench conflicts [--stage S]``: the papers the reviewers disagree on, each reviewer's
  decision and reason side by side; ``--resolve ID --decision D [--reason R]`` settles one
  (recorded as resolved by ``--reviewer``; ``workbench undo`` takes it back);
- ``workbench prisma``: writes ``report/prisma.svg`` and ``report/prisma.png`` in the review
  folder and prints the counts; a review updated since its build (``workbench update``) gets
  PRISMA 2020's diagram for updated reviews, of its latest update (``--no-update``: the plain
  diagram over every record; ``--update``: an error when there is no update);
- ``workbench criteria [TEXT | --file F | --clear]``, ``workbench reasons [--add R | --remove R]``,
  ``workbench blind [on|off]``, ``workbench reviewers-per-paper [N]``: the team's settings;
- ``workbench sources [--set FILE --database NAME --query Q --searched DATE]``: the review's
  sources and their search provenance (PRISMA-S).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import InputError
from ..corpus.paper import STAGES, TITLE_ABSTRACT
from ..review import open_review
from ..store import DECISIONS, SETTINGS, Store
from .common import Reply, add_review, add_reviewer, add_store_command, on_store, read_text, say, write_table

__all__ = ["register"]

#: The largest criteria file read (the criteria themselves are at most 4,000 characters).
CRITERIA_FILE_BYTES = 64 * 1024


def agreement(args) -> int:
    report = open_review(args.review).team.agreement(args.stage)
    if args.format == "json":
        pairs = [{"first": p.first, "second": p.second, "overlap": p.overlap,
                  **{s.name: s.value if s.defined else None for s in p.statistics()}} for p in report.pairs]
        alpha = report.alpha.value if report.alpha.defined else None
        sys.stdout.write(json.dumps({"stage": args.stage, "pairs": pairs, report.alpha.name: alpha}, indent=2) + "\n")
    else:
        say(*report.lines(), to=sys.stdout)
    return 0


def _votes(paper) -> dict[str, str]:
    return {v.reviewer: v.decision + (f" ({v.reason})" if v.reason else "") for v in paper.votes}


def conflicts(args) -> int:
    review = open_review(args.review)
    if args.resolve is not None:
        if args.decision is None:
            raise InputError("--resolve needs --decision include|exclude|maybe (and --reason why); "
                             "e.g. workbench conflicts --resolve 3f2a --decision include --reason 'meets criterion 2'")
        with review.store(args.reviewer) as store:
            pid = store.resolve(args.resolve)
        final = review.team.resolve(pid, args.decision, args.reason, stage=args.stage, reviewer=args.reviewer)
        why = f" ({final.reason})" if final.reason else ""
        say(f"{pid}: final decision {final.decision}{why} by {final.resolved_by}; `workbench undo` takes it back",
            to=sys.stdout)
        return 0
    queue = review.team.conflicts(args.stage)
    reviewers = sorted({v.reviewer for p in queue for v in p.votes})
    rows = [{"id": p.paper_id, "title": review.paper(p.paper_id).title, **_votes(p)} for p in queue]
    say(f"{len(queue)} conflicts at {args.stage}" + (
        "; resolve one with `workbench conflicts --resolve ID --decision D --reason R`" if queue else ""))
    import pandas as pd

    write_table(pd.DataFrame(rows, columns=["id", "title", *reviewers]).fillna(""), args.format)
    return 0


def prisma(args) -> int:
    review = open_review(args.review)
    folder = Path(args.output) if args.output else review.path / "report"
    counts = review.team.prisma(folder, update=args.update)
    latest = review.updates.latest() if counts.updated and args.update is not False else None
    what = (f"the updated review's diagram: the update of {latest.since} ({', '.join(latest.files)}); "
            "`--no-update` draws the plain one" if latest else "the diagram")
    say(f"wrote {what}: {folder / 'prisma.svg'} and {folder / 'prisma.png'}")
    sys.stdout.write(counts.markdown())
    return 0


@on_store()
def criteria(args, store: Store) -> Reply:
    if sum(map(bool, (args.text, args.file, args.clear))) > 1:
        raise InputError("give the criteria as TEXT, --file F or --clear, one of them")
    if args.file:
        store.team.set_criteria(read_text(args.file, "the criteria", CRITERIA_FILE_BYTES))
    elif args.text or args.clear:
        store.team.set_criteria(None if args.clear else " ".join(args.text))
    kept = store.team.criteria()
    return Reply(["criteria: none (set them with `workbench criteria TEXT` or --file F)"] if kept is None
                 else ["criteria:", *kept.splitlines()])


@on_store()
def reasons(args, store: Store) -> Reply:
    if args.add:
        store.team.add_exclusion_reason(args.add, args.description or "")
    if args.remove and not store.team.remove_exclusion_reason(args.remove):
        raise InputError(f"{args.remove!r} is not one of the exclusion reasons; see `workbench reasons`")
    listed = store.team.exclusion_reasons()
    if not listed:
        return Reply(["no exclusion reasons yet; add one with `workbench reasons --add 'wrong population'`"])
    return Reply([f"{r.position}. {r.name}" + (f": {r.description}" if r.description else "") for r in listed])


@on_store()
def blind(args, store: Store) -> Reply:
    if args.state is not None:
        store.team.set_blind(args.state == "on")
    state = "on" if store.team.blind else "off"
    return Reply([f"blind mode: {state} ({store.team.reviewers_per_paper()} reviewers per paper)"])


@on_store()
def reviewers_per_paper(args, store: Store) -> Reply:
    if args.n is not None:
        store.settings.set("reviewers_per_paper", str(args.n))
    return Reply([f"reviewers per paper: {store.team.reviewers_per_paper()}"])


@on_store()
def sources(args, store: Store) -> Reply:
    given = {"name": args.database or args.register, "kind": "register" if args.register else
             ("database" if args.database else None), "query": args.query, "searched_on": args.searched}
    if args.set is not None:
        store.sources.set_provenance(args.set, **given)
    elif any(v is not None for v in given.values()):
        raise InputError("--database, --register, --query and --searched need --set FILE (the source to describe)")
    lines = []
    for s in store.sources.recorded():
        searched = f"searched {s.searched_on}" if s.searched_on else "date searched not given"
        query = f"query {s.query!r}" if s.query else "query not given"
        lines.append(f"{s.path}: {s.kind} {s.name!r}, {query}, {searched}; {s.identified} records identified, "
                     f"{s.merged} merged as duplicates, {s.skipped} skipped")
    return Reply(lines or ["no sources recorded; they are recorded when the review is built"])


def register(subparsers) -> None:
    """Add agreement, conflicts, prisma, criteria, reasons, blind, reviewers-per-paper and sources."""
    stage_help = f"the screening stage: {' or '.join(STAGES)} (default: {TITLE_ABSTRACT})"
    p = subparsers.add_parser("agreement", help="agreement between reviewers: kappa, AC1, raw, overlap; alpha")
    add_review(p)
    add_reviewer(p)
    p.add_argument("--stage", default=TITLE_ABSTRACT, choices=STAGES, help=stage_help)
    p.add_argument("--format", default="table", choices=("table", "json"), help="output format (default: table)")
    p.set_defaults(func=agreement)

    p = subparsers.add_parser("conflicts", help="papers the reviewers disagree on; --resolve ID settles one")
    add_review(p)
    add_reviewer(p)
    p.add_argument("--stage", default=TITLE_ABSTRACT, choices=STAGES, help=stage_help)
    p.add_argument("--resolve", default=None, metavar="ID", help="the paper to settle (id or unique prefix)")
    p.add_argument("--decision", default=None, choices=(*DECISIONS, "not-retrieved"), help="the final decision")
    p.add_argument("--reason", default=None, metavar="TEXT", help="why (for an exclusion: the reason PRISMA counts)")
    p.add_argument("--format", default="table", choices=("table", "csv", "json"), help="output format (default: table)")
    p.set_defaults(func=conflicts)

    p = subparsers.add_parser("prisma", help="the PRISMA 2020 flow diagram: report/prisma.svg and .png, and the counts")
    add_review(p)
    add_reviewer(p)
    p.add_argument("--output", default=None, metavar="DIR", help="where to write the diagram (default: REVIEW/report)")
    p.add_argument("--update", action=argparse.BooleanOptionalAction, default=None,
                   help="the updated-review diagram of the latest update (default when the review was updated "
                        "since its build); --no-update: the plain diagram over every record")
    p.set_defaults(func=prisma)

    p = add_store_command(subparsers, "criteria", criteria, f"show or set {SETTINGS['criteria']}")
    p.add_argument("text", metavar="TEXT", nargs="*", help="the criteria (none: show them)")
    p.add_argument("--file", default=None, metavar="FILE",
                   help="read the criteria from a .txt or .md file (- : standard input)")
    p.add_argument("--clear", action="store_true", help="no criteria")

    p = add_store_command(subparsers, "reasons", reasons, "show, add or remove the team's exclusion reasons")
    p.add_argument("--add", default=None, metavar="REASON", help="add a reason at the end of the list")
    p.add_argument("--description", default=None, metavar="TEXT", help="with --add: what the reason means")
    p.add_argument("--remove", default=None, metavar="REASON", help="take a reason off the list")

    p = add_store_command(subparsers, "blind", blind, f"show or set {SETTINGS['blind']}")
    p.add_argument("state", nargs="?", choices=("on", "off"), default=None)

    p = add_store_command(subparsers, "reviewers-per-paper", reviewers_per_paper,
                          f"show or set {SETTINGS['reviewers_per_paper']}")
    p.add_argument("n", nargs="?", type=int, choices=range(1, 10), default=None, metavar="N")

    p = add_store_command(subparsers, "sources", sources,
                          "the review's sources and where they were searched (database, query, date)")
    p.add_argument("--set", default=None, metavar="FILE", help="the source to describe (its path or file name)")
    p.add_argument("--database", default=None, metavar="NAME", help="the bibliographic database it came from")
    p.add_argument("--register", default=None, metavar="NAME", help="or the trials register it came from")
    p.add_argument("--query", default=None, metavar="TEXT", help="the search query, as run")
    p.add_argument("--searched", default=None, metavar="YYYY-MM-DD", help="the date searched")

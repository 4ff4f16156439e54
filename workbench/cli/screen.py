"""Ranked screening from the command line: rank, simulate, stopping.

- ``workbench rank [--next N]``: the next papers to screen, most likely relevant first, with
  their rank, score and why (a model refitted on the review's includes and excludes; before
  one of each, a seeded random order or ``--by-topic`` one paper per topic; ``--sample`` a
  random sample of the papers no person has read, for the stopping test). Nothing is decided:
  decide with ``workbench decide ID include|exclude|maybe``.
- ``workbench simulate FILE --label-column label_included [--seeds N | --seed S ...]``: replays a
  labelled CSV/TSV/XLSX once per seed (1..N, or the seeds given: ``--seed 2`` is the run of
  ``asreview simulate --prior-seed 2 --seed 2``) from one include and one exclude and prints
  recall at 5/10/25 % screened, WSS@95, ATD and where each stopping rule would have stopped,
  and beside them the same figures of ``svm-tfidf`` (ELAS u4's twin) on the same seeds with the
  paired difference
  (``--no-baseline`` skips it; ``--format json``: the means under ``wss@95``, ``recall@10%``,
  ``atd``, ..., the seeds under ``runs``, the twin's under ``baseline``, and ``difference``).
- ``workbench stopping``: the estimate of relevant papers left (95 % interval) and whether the
  reviewer may stop (the hypergeometric test at the target recall, and "N irrelevant in a row"
  for comparison); the claim is logged in the review's store (the report shows it) unless
  ``--no-log``.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..review import SCREENING_MODELS as MODELS
from ..review import open_review, simulate_file, simulation_json
from .common import MAX_SEED, add_review, add_reviewer, say, whole, write_table

__all__ = ["register"]


def rank(args) -> int:
    review = open_review(args.review)
    ranking = review.screening.rank(args.next, model=args.model, seed=args.seed, by_topic=args.by_topic,
                          sample=args.sample, reviewer=args.reviewer)
    c = ranking.counts
    decided = (f"{c['decided']} of {c['papers']} papers decided ({c['included']} included, {c['excluded']} "
               f"excluded, {c['maybe']} maybe), {c['undecided']} undecided")
    if not c["undecided"]:
        say(f"{decided}: nothing left to rank")
    elif ranking.mode == "cold":
        say(f"{decided}; no model before one include and one exclude: "
            f"{'one paper per topic' if args.by_topic else f'a random order (seed {ranking.seed})'}")
    else:
        model = f"ranked by {ranking.model_version}" if ranking.model else "no model yet"
        say(f"{decided}; {model}" + ("; a random sample of the papers no one has read: read every one"
                                     if ranking.mode == "sample" else ""))
    frame = ranking.frame()
    if args.format == "table" and frame.empty:
        return 0  # (said above; CSV and JSON still give their header and [])
    if args.format == "table":
        frame["score"] = [f"{p.score:.3f}" if p.score is not None else "" for p in ranking]
        frame["rank"] = [str(p.rank) if p.rank is not None else "" for p in ranking]
    write_table(frame, args.format)
    return 0


def simulate(args) -> int:
    seeds = list(dict.fromkeys(args.seed)) if args.seed else args.seeds  # --seed S ...: these seeds, each once
    which = f"seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}" if args.seed else f"{seeds} seeds"
    say(f"simulating {args.file}: {which}, refitting after every paper until the last include")
    sim = simulate_file(args.file, args.label_column, seeds=seeds, model=args.model, embedder=args.embedder,
                        baseline=not args.no_baseline)
    if args.format == "json":
        sys.stdout.write(json.dumps(simulation_json(sim), indent=2) + "\n")
    else:
        sys.stdout.write(sim.table() + "\n")
    return 0


def stopping(args) -> int:
    review = open_review(args.review)
    report = review.screening.stopping(target=args.target, confidence=args.confidence, n_in_a_row=args.in_a_row,
                             log=not args.no_log, reviewer=args.reviewer)
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        say(*report.lines(), to=sys.stdout)
    return 0


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a share strictly between 0 and 1 (e.g. 0.95), got {text!r}")
    return value


def register(subparsers) -> None:
    """Add rank, simulate and stopping to ``argparse`` sub-parsers."""
    models = ", ".join(MODELS)
    p = subparsers.add_parser("rank", help="the next papers to screen, most likely relevant first, with scores")
    add_review(p)
    add_reviewer(p)
    p.add_argument("--next", type=whole(0), default=10, metavar="N", help="how many papers (default: 10)")
    p.add_argument("--model", default=None, choices=list(MODELS), metavar="MODEL",
                   help=f"the ranking model: {models} (default: svm-both, or svm-tfidf without embeddings)")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=None, help="default: the review's build seed")
    p.add_argument("--by-topic", action="store_true", help="before a model: one paper per topic instead of a random order")
    p.add_argument("--sample", action="store_true",
                   help="a random sample of the papers no person has read (for the stopping test)")
    p.add_argument("--format", default="table", choices=("table", "csv", "json"), help="output format (default: table)")
    p.set_defaults(func=rank)

    p = subparsers.add_parser("simulate", help="replay a labelled file: how early would ranking have found the includes?")
    p.add_argument("file", metavar="FILE", help="a .csv, .tsv or .xlsx table: title and/or abstract, and a 0/1 label column")
    p.add_argument("--label-column", default="label_included", metavar="NAME",
                   help="the column with 1 (included) and 0 (excluded) (default: label_included)")
    runs = p.add_mutually_exclusive_group()
    runs.add_argument("--seeds", type=whole(1, 1000), default=5, metavar="N", help="runs with seeds 1..N (default: 5)")
    runs.add_argument("--seed", type=whole(0, MAX_SEED), nargs="+", default=None, metavar="S",
                      help="runs with these seeds only (--seed 2: the run of asreview simulate --prior-seed 2 --seed 2)")
    p.add_argument("--model", default=None, choices=list(MODELS), metavar="MODEL",
                   help=f"{models} (default: svm-tfidf; svm-both with --embedder)")
    p.add_argument("--embedder", default=None, metavar="NAME",
                   help="also rank on embeddings from this embedder (e.g. minilm; embedded once, then cached)")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the replay of svm-tfidf (ELAS u4's twin) shown beside the model's figures")
    p.add_argument("--format", default="table", choices=("table", "json"), help="output format (default: table)")
    p.set_defaults(func=simulate)

    p = subparsers.add_parser("stopping", help="relevant papers left (95 %% interval) and whether you may stop")
    add_review(p)
    add_reviewer(p)
    p.add_argument("--target", type=_share, default=0.95, help="target recall (default: 0.95)")
    p.add_argument("--confidence", type=_share, default=0.95, help="confidence of the claim (default: 0.95)")
    p.add_argument("--in-a-row", type=whole(1), default=100, metavar="N",
                   help="the heuristic rule for comparison: N irrelevant in a row (default: 100)")
    p.add_argument("--no-log", action="store_true", help="do not log the claim in the review's store")
    p.add_argument("--format", default="table", choices=("table", "json"), help="output format (default: table)")
    p.set_defaults(func=stopping)

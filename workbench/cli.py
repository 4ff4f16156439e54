"""The ``workbench`` command line.

Every command exits 0 on success; bad input prints one line, ``workbench: error: ...``, to
stderr and exits 1 (2 for a malformed command line). Set ``WORKBENCH_DEBUG=1`` for tracebacks.
Messages and tables show control characters in user data escaped (:func:`.terminal.visible`);
``--format csv|json`` output is the data as it is.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from .embed import EMBEDDERS
from .errors import NoRecordsError, WorkbenchError
from .terminal import visible

__all__ = ["main", "write_table"]

FORMATS = ("table", "csv", "json")


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
    for col, width in (("title", 60), ("authors", 30), ("source", 40), ("words", 70), ("label", 40), ("topic_label", 30)):
        if col in flat:
            flat[col] = flat[col].astype(str).map(lambda s, w=width: s if len(s) <= w else s[: w - 1] + "…")
    for col in ("x", "y"):
        if col in flat:
            flat[col] = flat[col].map(lambda v: f"{v:.2f}")
    out.write(flat.to_string(index=False) + "\n")


# ---------------------------------------------------------------------------- commands


def _cmd_build(args) -> int:
    from .review import build

    params = {}
    if args.min_cluster_size is not None:
        params["min_cluster_size"] = args.min_cluster_size
    if args.nr_topics is not None:
        params["nr_topics"] = args.nr_topics
    def say(line) -> None:
        sys.stderr.write(visible(line) + "\n")

    try:
        review = build(
            args.sources or ["seeds"],
            review=args.review,
            embedder=args.embedder,
            seed=args.seed,
            input_format=args.input_format,
            **params,
        )
    except NoRecordsError as no_records:  # the report says why, file by file; then the error line
        for line in no_records.report.lines():
            say(line)
        raise
    report = review.build_report
    for line in report.read.lines():
        say(line)
    m = review.manifest
    stats = m["embed_stats"]
    say(f"embedded {stats['embedded']} of {m['n_papers']} papers ({stats['cached']} from the cache) with {m['embedder']['name']}")
    if m["topics"]["note"]:
        say(m["topics"]["note"])
    say(f"annotations: {report.sync}")
    say(f"topics: {report.topics}")
    for warning in report.save.warnings:
        say(warning)
    timings = ", ".join(f"{k} {v:.1f}s" for k, v in m["timings"].items())
    say(f"built {review.path}: {m['n_papers']} papers, {m['topics']['count']} topics ({timings})")
    say(f"map: {review.path / 'map.html'}")
    if not args.quiet:
        write_table(review.topics_frame(), "table", list_columns=["words"])
    return 0


def _cmd_papers(args) -> int:
    from .review import open_review

    write_table(open_review(args.review).papers_frame(), args.format, list_columns=["authors"])
    return 0


def _cmd_topics(args) -> int:
    from .review import open_review

    write_table(open_review(args.review).topics_frame(), args.format, list_columns=["words"])
    return 0


def _cmd_notebooks(args) -> int:
    from .notebooks import NOTEBOOKS, run_notebooks

    params = {"embedder": args.embedder, "seed": args.seed}
    if args.sources:
        params["sources"] = [str(Path(s).resolve()) for s in args.sources]
    timings = run_notebooks(args.review, args.notebooks, names=args.names or NOTEBOOKS, parameters=params)
    for name, seconds in timings.items():
        sys.stderr.write(visible(f"executed {name} in {seconds:.1f}s -> {Path(args.review) / 'notebooks' / name}") + "\n")
    sys.stderr.write(f"all notebooks: {sum(timings.values()):.1f}s\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="workbench", description="Map, tag, screen and annotate paper abstracts.")
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("build", help="read sources, embed, find topics and lay out the map")
    p.add_argument("sources", nargs="*", help="files or folders of abstracts (default: seeds/)")
    p.add_argument("--review", default="review", help="review folder to write (default: review)")
    p.add_argument(
        "--embedder",
        default="minilm",
        choices=list(EMBEDDERS),
        help="minilm (default; sentence-transformers), static (model2vec, fast), tfidf (no model), fake (test double)",
    )
    p.add_argument("--seed", type=int, default=42, help="one seed for UMAP and everything random (default: 42)")
    p.add_argument("--input-format", default=None, help="read every source with this reader instead of guessing")
    p.add_argument("--min-cluster-size", type=int, default=None, help="smallest topic (default: scales with the corpus)")
    p.add_argument("--nr-topics", type=int, default=None, help="merge topics down to this many")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the topics table")
    p.set_defaults(func=_cmd_build)

    for name, func, helptext in (
        ("papers", _cmd_papers, "one row per paper: id, title, authors, year, collection, source, topic, topic_label, x, y"),
        ("topics", _cmd_topics, "one row per topic: topic, label, size, words"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--review", default="review", help="review folder (default: review)")
        p.add_argument("--format", default="table", choices=FORMATS)
        p.set_defaults(func=func)

    p = sub.add_parser("notebooks", help="execute the notebooks headlessly (papermill) against a review")
    p.add_argument("names", nargs="*", help="notebook file names (default: all four)")
    p.add_argument("--review", default="review", help="review folder (default: review); executed copies go to REVIEW/notebooks")
    p.add_argument("--notebooks", default="notebooks", help="folder of the source notebooks (default: notebooks)")
    p.add_argument("--sources", nargs="*", default=None, help="sources, if the review must be built")
    p.add_argument("--embedder", default="minilm", choices=list(EMBEDDERS))
    p.add_argument("--seed", type=int, default=42)
    p.set_defaults(func=_cmd_notebooks)

    for module in _PLUGINS:
        if importlib.util.find_spec(f"workbench.{module}") is not None:
            importlib.import_module(f"workbench.{module}").register(sub)
    return parser


# Command groups that live beside the modules they drive.
_PLUGINS = ("cli_read", "cli_annotations")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
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
            f"workbench: error: {type(err).__name__}: {visible(err)} (this is a bug: rerun with WORKBENCH_DEBUG=1 and report the traceback)\n"
        )
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

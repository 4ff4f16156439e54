"""Making a review and listing what it holds: build, papers, topics, notebooks.

``build`` reads the sources, embeds, finds topics and lays out the map, printing what it read,
embedded and saved on standard error (then the topics table, unless ``--quiet``); ``papers``
and ``topics`` list a built review (``--format table|csv|json``); ``notebooks`` executes the
notebooks headlessly against a review. :func:`register` adds the commands to a parser.
"""

from __future__ import annotations

from pathlib import Path

from ..embed import EMBEDDERS
from ..errors import NoRecordsError
from .notebooks import NOTEBOOKS, run_notebooks
from ..review import Review, open_review
from ..review import build as build_review
from .common import MAX_SEED, add_follow_links, add_format, add_review, say, whole, write_table

__all__ = ["register"]


def build(args) -> int:
    params = {}
    if args.min_cluster_size is not None:
        params["min_cluster_size"] = args.min_cluster_size
    if args.nr_topics is not None:
        params["nr_topics"] = args.nr_topics
    sources = args.sources or ["seeds"]
    try:
        review = build_review(sources, review=args.review, embedder=args.embedder, seed=args.seed,
                              input_format=args.input_format, provenance=_provenance(args, sources),
                              client=args.dask, follow_links=args.follow_links, **params)
    except NoRecordsError as no_records:  # the report says why, file by file; then the error line
        say(*no_records.report.lines())
        raise
    say(*_build_lines(review))
    if not args.quiet:
        write_table(review.topics_frame(), "table", list_columns=["words"])
    return 0


_PROVENANCE = (("database", "database"), ("register", "register"), ("method", "method"), ("query", "query"),
               ("searched", "searched_on"))


def _provenance(args, sources: list[str]) -> dict[str, dict]:
    """``--database [FILE=]NAME`` and the like as ``build(provenance=...)``: a value whose part
    before the first '=' names a source (as given, or its file name) is about that source; any
    other value (a query may hold '=') is about every source given."""
    names = {str(s) for s in sources} | {Path(s).name for s in sources}
    out: dict[str, dict] = {}
    for option, key in _PROVENANCE:
        for value in getattr(args, option) or []:
            source, sep, rest = value.partition("=")
            targets = [source] if sep and source in names else [str(s) for s in sources]
            for target in targets:
                out.setdefault(target, {})[key] = rest if sep and source in names else value
    return out


def _build_lines(review: Review) -> list[str]:
    """What a build read, embedded, kept of the annotations and topics, warned of and wrote."""
    report, m = review.build_report, review.manifest
    stats = m["embed_stats"]
    lines = [*report.read.lines(),
             (f"embedded {stats['embedded']} of {m['n_papers']} papers ({stats['cached']} from the "
              f"cache) with {m['embedder']['name']}")]
    if m["topics"]["note"]:
        lines.append(m["topics"]["note"])
    lines += [report.reuse_line(), f"annotations: {report.sync}", f"topics: {report.topics}", *report.save.warnings]
    with review.store() as store:
        bare = [s.path for s in store.sources.recorded() if not s.provenance_given]
    if bare:
        lines.append(f"no search provenance for {', '.join(bare[:5])}{' ...' if len(bare) > 5 else ''}: "
                     "PRISMA-S asks where each source was searched; rebuild with --database [FILE=]NAME "
                     "--query [FILE=]TEXT --searched [FILE=]YYYY-MM-DD, or use `workbench sources --set FILE`")
    timings = ", ".join(f"{k} {v:.1f}s" for k, v in m["timings"].items())
    return lines + [f"built {review.path}: {m['n_papers']} papers, {m['topics']['count']} topics ({timings})",
                    f"map: {review.path / 'map.html'}"]


def papers(args) -> int:
    write_table(open_review(args.review).papers_frame(), args.format, list_columns=["authors"])
    return 0


def topics(args) -> int:
    write_table(open_review(args.review).topics_frame(), args.format, list_columns=["words"])
    return 0


def notebooks(args) -> int:
    params = {"embedder": args.embedder, "seed": args.seed}
    if args.sources:
        params["sources"] = [str(Path(s).resolve()) for s in args.sources]
    timings = run_notebooks(args.review, args.notebooks, names=args.names or NOTEBOOKS, parameters=params)
    say(*(f"executed {name} in {seconds:.1f}s -> {Path(args.review) / 'notebooks' / name}"
          for name, seconds in timings.items()))
    say(f"all notebooks: {sum(timings.values()):.1f}s")
    return 0


def _add_embedder(parser, help: str | None = None) -> None:
    parser.add_argument("--embedder", default="minilm", choices=list(EMBEDDERS), help=help)


def register(subparsers) -> None:
    """Add build, papers, topics and notebooks to ``argparse`` sub-parsers."""
    p = subparsers.add_parser("build", help="read sources, embed, find topics and lay out the map")
    p.add_argument("sources", nargs="*", help="files or folders of abstracts (default: seeds/)")
    add_review(p, help="review folder to write (default: review)")
    _add_embedder(p, help="minilm (default; sentence-transformers), static (model2vec, fast), "
                          "tfidf (no model), fake (test double)")
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=42,
                   help="one seed for UMAP and everything random (default: 42)")
    p.add_argument("--input-format", default=None, help="read every source with this reader instead of guessing")
    add_follow_links(p)
    p.add_argument("--min-cluster-size", type=whole(2, 10**6), default=None,
                   help="smallest topic (default: scales with the corpus)")
    p.add_argument("--nr-topics", type=whole(1, 10**6), default=None, help="merge topics down to this many")
    p.add_argument("--dask", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="build on Dask: a LocalCluster of 2 workers on this machine, or the scheduler at ADDRESS "
                        "(tcp://host:8786; the review folder must be on storage every worker sees)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the topics table")
    for option, what in (("database", "the bibliographic database a source was searched in (PRISMA-S)"),
                         ("register", "the trials register a source came from"),
                         ("method", "found by another method than a database search (PRISMA 2020's other "
                                    "methods): citation-search, websites or organisations"),
                         ("query", "the search query run there, as run"),
                         ("searched", "the date searched, YYYY-MM-DD")):
        p.add_argument(f"--{option}", action="append", default=None, metavar="[FILE=]VALUE",
                       help=f"{what}; FILE= names one source (default: every source); repeat per source")
    p.set_defaults(func=build)

    for name, func, helptext in (
        ("papers", papers, "one row per paper: id, title, authors, year, collection, source, topic, topic_label, x, y"),
        ("topics", topics, "one row per topic: topic, label, size, words"),
    ):
        p = subparsers.add_parser(name, help=helptext)
        add_review(p)
        add_format(p)
        p.set_defaults(func=func)

    p = subparsers.add_parser("notebooks", help="execute the notebooks headlessly (papermill) against a review")
    p.add_argument("names", nargs="*", help="notebook file names (default: all four)")
    add_review(p, help="review folder (default: review); executed copies go to DIR/notebooks")
    p.add_argument("--notebooks", default="notebooks", help="folder of the source notebooks (default: notebooks)")
    p.add_argument("--sources", nargs="*", default=None, help="sources, if the review must be built")
    _add_embedder(p)
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=42)
    p.set_defaults(func=notebooks)

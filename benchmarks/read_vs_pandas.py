"""Reading against pandas, one run: ``read_sources`` of one CSV beside ``pandas.read_csv`` of the same file.

    python benchmarks/read_vs_pandas.py [--size 50000] [--repeat 3] [--workers N] [--before DIR]

The corpus is benchmarks/scale.py's (generated once under benchmarks/out/scale/). Each call runs
in a fresh process (imports excluded from the time), alternating pandas and ours, ``--repeat``
times; the table prints each one's mean and the ratio of the means. ``--before DIR``: also time
the ``workbench`` package found in DIR (an earlier version, e.g. ``git archive <commit> workbench
| tar -x -C DIR``) in the same rounds, so a change is measured against what it replaced under the
same load.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_child  # noqa: E402
from scale import PANDAS, READ, make_corpus  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=50000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0, help="WORKBENCH_WORKERS for our read (0: all cores)")
    parser.add_argument("--before", help="a folder holding an earlier workbench package, timed in the same rounds")
    args = parser.parse_args()
    if args.workers:
        os.environ["WORKBENCH_WORKERS"] = str(args.workers)
    corpus = make_corpus(args.size)
    rows: dict[str, list[float]] = {"pandas.read_csv": [], "read_sources": []}
    if args.before:
        rows["read_sources, before"] = []
    for _ in range(args.repeat):
        rows["pandas.read_csv"].append(run_child(PANDAS, [str(corpus)])[0]["seconds"])
        rows["read_sources"].append(run_child(READ, [str(corpus)])[0]["seconds"])
        if args.before:
            code = f"import sys; sys.path.insert(0, {str(Path(args.before).resolve())!r})\n" + READ
            rows["read_sources, before"].append(run_child(code, [str(corpus)])[0]["seconds"])
    means = {name: sum(runs) / len(runs) for name, runs in rows.items()}
    print(f"{args.size:,} abstracts ({corpus.stat().st_size / 2**20:.0f} MB CSV), {args.repeat} runs each\n")
    print("| row | seconds (runs) | mean | / pandas |\n|---|---|---|---|")
    for name, runs in rows.items():
        ratio = means[name] / means["pandas.read_csv"]
        print(f"| {name} | {' / '.join(f'{s:.2f}' for s in runs)} | {means[name]:.2f} | {ratio:.1f}x |")
    print(f"\nread_sources / pandas.read_csv: {means['read_sources'] / means['pandas.read_csv']:.1f}x (goal <= 5x)")


if __name__ == "__main__":
    main()

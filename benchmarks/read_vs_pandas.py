"""Reading against pandas, one run: ``read_sources`` of one CSV beside ``pandas.read_csv`` of the same file.

    python benchmarks/read_vs_pandas.py [--size 50000] [--repeat 3] [--workers N]

The corpus is benchmarks/scale.py's (generated once under benchmarks/out/scale/). Each call runs
in a fresh process (imports excluded from the time), alternating pandas and ours, ``--repeat``
times; the table prints each one's mean and the ratio of the means.
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
    args = parser.parse_args()
    if args.workers:
        os.environ["WORKBENCH_WORKERS"] = str(args.workers)
    corpus = make_corpus(args.size)
    pandas, ours = [], []
    for _ in range(args.repeat):
        pandas.append(run_child(PANDAS, [str(corpus)])[0]["seconds"])
        ours.append(run_child(READ, [str(corpus)])[0]["seconds"])
    mean_p, mean_o = sum(pandas) / len(pandas), sum(ours) / len(ours)
    print(f"{args.size:,} abstracts ({corpus.stat().st_size / 2**20:.0f} MB CSV), {args.repeat} runs each\n")
    print("| row | seconds (runs) | mean |\n|---|---|---|")
    print(f"| pandas.read_csv | {' / '.join(f'{s:.2f}' for s in pandas)} | {mean_p:.2f} |")
    print(f"| read_sources | {' / '.join(f'{s:.2f}' for s in ours)} | {mean_o:.2f} |")
    print(f"\nread_sources / pandas.read_csv: {mean_o / mean_p:.1f}x (goal <= 5x)")


if __name__ == "__main__":
    main()

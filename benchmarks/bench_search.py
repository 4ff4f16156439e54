"""Keyword search in a large review: the lower-case texts read from a file, or held in memory.

    python benchmarks/bench_search.py --review DIR [--rounds 2]

Each row is a fresh process that opens the review (``open_review``), runs a first search and
then the same queries again, and reports RSS after opening and at the end, the first search's
seconds (which writes the file if it is not there yet, or fills the list in memory) and the
median of the later searches. ``file`` is the workbench as it is (above
``workbench.review._haystack.IN_MEMORY`` papers); ``memory`` sets that limit above the review's
size, so the same search holds every text in the kernel (what it did before). The rows alternate
for ``--rounds`` rounds; the first ``file`` row of a run without the file writes it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, run_child  # noqa: E402

QUERIES = ["reinforcement learning", '"neural network"', "protein folding", "climate model uncertainty"]

CHILD = r"""
import json, resource, statistics, sys, time
import workbench
from workbench.review import _haystack
review_path, mode, queries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
def rss():
    return round(int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20)
t0 = time.perf_counter()
review = workbench.open_review(review_path)
opened, t_open = rss(), time.perf_counter() - t0
if mode == "memory":
    _haystack.IN_MEMORY = len(review) + 1
t0 = time.perf_counter()
first = len(review.keyword_search(queries[0]))
t_first = time.perf_counter() - t0
later, hits = [], {}
for q in queries:
    t0 = time.perf_counter()
    hits[q] = len(review.keyword_search(q))
    later.append(time.perf_counter() - t0)
print(json.dumps({"papers": len(review), "open_s": t_open, "rss_open": opened, "first_s": t_first,
                  "later_s": statistics.median(later), "rss_end": rss(),
                  "peak": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "hits": hits}))
"""


def main() -> None:
    import json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--review", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"# Keyword search, {time.strftime('%Y-%m-%d %H:%M')}, {machine()}, review {args.review}\n")
    rows: dict[str, list[dict]] = {"file": [], "memory": []}
    for _ in range(args.rounds):
        for mode in rows:
            result, _, _ = run_child(CHILD, [str(args.review), mode, json.dumps(QUERIES)])
            rows[mode].append(result)
            print(f"{mode}: {result}", file=sys.stderr)
    hits = {mode: runs[0]["hits"] for mode, runs in rows.items()}
    assert hits["file"] == hits["memory"], hits
    print(f"{rows['file'][0]['papers']:,} papers; hits per query: {hits['file']}\n")
    print("| haystack | RSS after open MB | RSS at end MB | peak RSS MB | first search s (each round) | later searches s (median) |")
    print("|---|---:|---:|---:|---|---:|")
    for mode, runs in rows.items():
        print(f"| {mode} | {runs[-1]['rss_open']:,} | {runs[-1]['rss_end']:,} | {max(r['peak'] for r in runs):,} | "
              + " / ".join(f"{r['first_s']:.1f}" for r in runs)
              + f" | {statistics.median(r['later_s'] for r in runs):.2f} |")


if __name__ == "__main__":
    main()

"""Reading against pandas, one run: ``read_sources`` of one CSV beside ``pandas.read_csv`` of the same file.

    python benchmarks/read_vs_pandas.py [--size 50000] [--repeat 3] [--workers N] [--before DIR] [--arxiv]

The corpus is benchmarks/scale.py's (generated once under benchmarks/out/scale/); ``--arxiv``:
an arXiv export's instead, LaTeX and all (arxiv_lite's abstracts as their source wrote them, a
quarter with markup, and variants of them as scale.py makes: their sentences shuffled, one in
ten words dropped; needs the shared data). Each call runs
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

from _common import DATA, run_child  # noqa: E402
from scale import OUT, _sentences, make_corpus  # noqa: E402

# The call alone, timed by the clock and by CPU seconds (this process's and its worker processes'):
# on a shared machine the CPU seconds move less with what else runs.
PANDAS = r"""
import json, resource, sys, time
import pandas as pd
c = time.process_time(); t = time.perf_counter()
frame = pd.read_csv(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "rows": len(frame)}))
"""
READ = r"""
import json, resource, sys, time
from workbench import read_sources
def workers_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
c, w = time.process_time(), workers_cpu(); t = time.perf_counter()
papers, _ = read_sources([sys.argv[1]])
seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "cpu": time.process_time() - c + workers_cpu() - w, "papers": len(papers)}))
"""


def make_arxiv_corpus(size: int, seed: int = 0) -> Path:
    """Write (once) a CSV of ``size`` arXiv titles and abstracts with their LaTeX: arxiv_lite's,
    then variants of its abstracts (untitled, as scale.py's)."""
    import csv
    import random

    path = OUT / f"arxiv_{size}.csv"
    if path.exists():
        return path
    with open(DATA / "arxiv_lite_8fields" / "arxiv_lite.csv", encoding="utf-8") as f:
        real = [(row["title"], row["summary"]) for row in csv.DictReader(f) if row["summary"].strip()]
    rng = random.Random(seed)
    rows = real[:size]
    while len(rows) < size:
        sentences = _sentences(rng.choice(real)[1])
        rng.shuffle(sentences)
        words = [w for w in " ".join(sentences).split() if rng.random() > 0.1]
        rows.append(("", " ".join(words)))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".tmp"), "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract"])
        writer.writerows(rows)
    path.with_suffix(".tmp").replace(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=50000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0, help="WORKBENCH_WORKERS for our read (0: all cores)")
    parser.add_argument("--before", help="a folder holding an earlier workbench package, timed in the same rounds")
    parser.add_argument("--arxiv", action="store_true", help="an arXiv export with its LaTeX (see the docstring)")
    args = parser.parse_args()
    if args.workers:
        os.environ["WORKBENCH_WORKERS"] = str(args.workers)
    corpus = make_arxiv_corpus(args.size) if args.arxiv else make_corpus(args.size)
    codes = {"pandas.read_csv": PANDAS, "read_sources": READ}
    if args.before:
        codes["read_sources, before"] = f"import sys; sys.path.insert(0, {str(Path(args.before).resolve())!r})\n" + READ
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
    for _ in range(args.repeat):
        for name, code in codes.items():
            result, _, peak = run_child(code, [str(corpus)])
            rows[name].append((result["seconds"], result["cpu"], peak))
    means = {name: sum(s for s, _, _ in runs) / len(runs) for name, runs in rows.items()}
    cpu = {name: sum(c for _, c, _ in runs) / len(runs) for name, runs in rows.items()}
    print(f"{args.size:,} abstracts ({corpus.name}, {corpus.stat().st_size / 2**20:.0f} MB CSV), {args.repeat} runs each\n")
    print("| row | seconds (runs) | mean s | / pandas | CPU s (mean) | CPU / pandas | peak RSS MB |\n"
          "|---|---|---:|---:|---:|---:|---:|")
    for name, runs in rows.items():
        print(f"| {name} | {' / '.join(f'{s:.2f}' for s, _, _ in runs)} | {means[name]:.2f} "
              f"| {means[name] / means['pandas.read_csv']:.1f}x | {cpu[name]:.2f} "
              f"| {cpu[name] / cpu['pandas.read_csv']:.1f}x | {max(p for _, _, p in runs):,.0f} |")
    print(f"\nread_sources / pandas.read_csv: {means['read_sources'] / means['pandas.read_csv']:.1f}x (goal <= 5x)")


if __name__ == "__main__":
    main()

"""Scale out: the single-process build against a 2-worker Dask LocalCluster, in one run.

    python benchmarks/scale_out.py [--sizes 100000] [--embedder static] [--sample-size 20000] [--files 20] [--keep DIR]
                                   [--before DIR]

The corpora are benchmarks/scale.py's (every real abstract, then generated variants; written
once under benchmarks/out/scale/). For each size, each row is a fresh process, cold (empty
embedding cache; the static model distilled and numba's UMAP compiled on disk already):

- ``single``: ``workbench.build`` in one process (the baseline);
- ``dask-2``: ``workbench.build(..., client=True)``: a LocalCluster of 2 worker processes with
  one thread each on this machine (the scheduler and the driver in the parent process).

CPU s: the user and system seconds of every process of the build (the driver, with the Dask
scheduler in it, and the workers; ``single``: the build and its children), what a loaded machine
stretches less than the wall time. Per-stage seconds come from ``build.json`` (the Dask stages differ from the single-process
ones: read, dedupe, embed, sample_fit, place, words, gather, write). Peak memory per process:
``ru_maxrss`` of the driver (which writes the papers as they arrive and then the folder) and of each worker;
for ``single``, also of its largest child process (the words counted and the map laid out beside it),
and ``tree``: what the machine must have for it, the largest sum, sampled every 0.5 s, of the build
process's RSS and its children's private memory (a forked child's ``ru_maxrss`` counts the pages it
shares with the build; see ``_memwatch.py``; ``MEMWATCH_LOG=FILE`` writes every sample with the
build's innermost calls).
``--before DIR``: each row is run first with the workbench of another checkout (``PYTHONPATH=DIR``,
e.g. a worktree of an older commit), then with this one, alternately; the load average (1 min)
at the start and the end of each row is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, run_child  # noqa: E402
from _memwatch import MemWatch  # noqa: E402
from scale import OUT, make_corpus  # noqa: E402

CHILD = r"""
import json, os, resource, sys, time
import workbench
review, source, embedder, mode, sample, bench = sys.argv[1:7]
sys.path.insert(0, bench)
from _memwatch import MemWatch
t0 = time.perf_counter()
peaks = {}
if mode == "single":
    if os.environ.get("MEMWATCH_LOG"):
        MemWatch(0.5, os.environ["MEMWATCH_LOG"]).start()  # (every sample, with the build's calls)
    r = workbench.build([source], review=review, embedder=embedder, seed=42, progress=False)
    stages = dict(r.manifest["timings"])
else:
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster) as client:
            r = workbench.build([source], review=review, embedder=embedder, seed=42, progress=False,
                                client=client, sample_size=int(sample))
            usage = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF))
            peaks.update({f"worker{i}": round(u.ru_maxrss / 1024) for i, u in enumerate(usage.values())})
            cpu = sum(u.ru_utime + u.ru_stime for u in usage.values())
    stages = dict(r.manifest["timings"])
me = resource.getrusage(resource.RUSAGE_SELF)
peaks["driver"] = round(me.ru_maxrss / 1024)
if mode == "single":
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    peaks["children"] = round(children.ru_maxrss / 1024)
    cpu = children.ru_utime + children.ru_stime
print(json.dumps({"papers": len(r), "topics": r.manifest["topics"]["count"], "stages": stages,
                  "wall": time.perf_counter() - t0, "cpu": cpu + me.ru_utime + me.ru_stime, "peaks": peaks}))
"""

SINGLE = ["read", "texts", "embed", "topics", "map", "write"]
DASK = ["read", "dedupe", "embed", "sample_fit", "place", "words", "gather", "write"]


def _row(size: int, mode: str, result: dict, wall: float, code: str, load: str) -> str:
    names = SINGLE if mode == "single" else DASK
    stages = " ".join(f"{n} {result['stages'].get(n, 0):.0f}" for n in names)
    peaks = ", ".join(f"{k} {v:,}" for k, v in result["peaks"].items())
    return (f"| {result['papers']:,} | {mode} | {code} | {wall:.0f} | {result['cpu']:.0f} | {result['topics']} | {stages} | {peaks} | {load} |")


def _folder(corpus: Path, files: int) -> Path:
    """The corpus as a folder of ``files`` CSV files of consecutive rows (written once)."""
    import csv

    folder = corpus.with_name(f"{corpus.stem}_{files}_files")
    if folder.is_dir():
        return folder
    staging = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    with open(corpus, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, rows = rows[0], rows[1:]
    per = -(-len(rows) // files)
    for k in range(files):
        with open(staging / f"part-{k:03d}.csv", "w", newline="", encoding="utf-8") as out:
            csv.writer(out).writerows([header, *rows[k * per:(k + 1) * per]])
    staging.rename(folder)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[100_000])
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--sample-size", type=int, default=20_000)
    parser.add_argument("--modes", nargs="+", default=["single", "dask-2"], choices=["single", "dask-2"])
    parser.add_argument("--files", type=int, default=1,
                        help="read the corpus as a folder of this many CSV files (a field dump's shape)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="move each built review into this folder (as <mode>-<size>) instead of removing it")
    parser.add_argument("--before", type=Path, default=None,
                        help="run each row first with the workbench of this checkout (older code), then with this one")
    args = parser.parse_args()
    work = OUT / "scale_out"
    print(f"# Scale out, {time.strftime('%Y-%m-%d %H:%M')}, {machine()}, embedder {args.embedder}, "
          f"Dask sample {args.sample_size:,}, {'one CSV file' if args.files == 1 else f'a folder of {args.files} CSV files'}\n")
    print("| papers | build | code | wall s | CPU s | topics | seconds per stage | peak RSS MB per process | load |")
    print("|---:|---|---|---:|---:|---:|---|---|---|")
    ours = str(Path(__file__).resolve().parents[1])
    codes = [("before", str(args.before.resolve())), ("this", ours)] if args.before else [("this", ours)]
    for size in args.sizes:
        source = make_corpus(size) if args.files == 1 else _folder(make_corpus(size), args.files)
        for mode, (code, root) in ((m, c) for m in args.modes for c in codes):
            review = work / f"{mode}-{size}"
            shutil.rmtree(review, ignore_errors=True)
            load = os.getloadavg()[0]
            watch = MemWatch(0.5) if mode == "single" else None  # (the build's tree, from outside)
            result, wall, _ = run_child(CHILD, [str(review), str(source), args.embedder, mode, str(args.sample_size),
                                                str(Path(__file__).resolve().parent)],
                                        env={"PYTHONPATH": root}, timeout=4 * 3600,  # (the single build at 1,000,000: ~1 h)
                                        watch=watch)
            if watch is not None:
                result["peaks"]["tree"] = round(watch.peak_mb)
            print(_row(size, mode, result, wall, code, f"{load:.1f}-{os.getloadavg()[0]:.1f}"), flush=True)
            if args.keep is not None:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.rmtree(args.keep / review.name, ignore_errors=True)
                shutil.move(str(review), str(args.keep / review.name))
            shutil.rmtree(review, ignore_errors=True)
    print("\nsingle: read = readers + dedupe, texts = the texts embedded made and (from 200,000) the papers set aside, topics = UMAP + HDBSCAN + labels, map = 2-d UMAP; dask-2: read ="
          " one task per source, dedupe = blocking keys gathered by hash (16 pieces) + merge, sample_fit = 5-d and 2-d UMAP + HDBSCAN on the"
          " sample, place = each paper by its 10 most similar sample papers (or UMAP.transform + approximate_predict) per partition, words = c-TF-IDF counts per partition, cut by"
          " term into 16 buckets, each summed over the corpus")


if __name__ == "__main__":
    main()

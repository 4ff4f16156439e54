"""Scale: build 10,000 / 50,000 / 100,000 abstracts on this machine, cold and warm, per stage.

    python benchmarks/scale.py [--sizes 10000 50000 100000] [--embedder static] [--refit-size 10000]

The corpora: every real abstract we have (the three labelled corpora in ../shared/data/corpora,
11,376 with abstracts, and the 133 seeds), then generated variants until the size is reached.
A variant of abstract i (variant j) keeps its sentences in a seeded random order, drops about
one word in ten, and borrows one sentence from another abstract of the same corpus; it has no
title (the reader derives one), so no two variants are duplicates of each other. Each corpus is
written once as a CSV (title, abstract) under benchmarks/out/scale/ and read by the normal reader.

Each row is a fresh process running ``workbench.build`` (the CLI's path):

- cold: empty embedding cache (the static model is already distilled and numba's compiled
  UMAP is on disk, as on any day after the first);
- warm: the same build again, embeddings cached.

Per-stage seconds come from the review's ``build.json`` and the topic model's ``timings_``;
peak RSS is the child's ``ru_maxrss``. The refit row is ``Review.refit()`` in the live process
that built the review (embeddings and neighbours in memory), and ``Review.show_themes(10)`` on
the review opened again (what the explore view's "Show themes" runs).
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CORPORA, ROOT, have_data, load_corpus, machine, run_child  # noqa: E402

OUT = ROOT / "benchmarks" / "out" / "scale"

CHILD = r"""
import json, os, sys, threading, time
t0 = time.perf_counter()
samples, done = [], []
def sample():
    page = os.sysconf("SC_PAGE_SIZE")
    while not done:
        with open("/proc/self/statm") as f:
            samples.append((time.perf_counter(), int(f.read().split()[1]) * page / 2**20))
        time.sleep(0.05)
threading.Thread(target=sample, daemon=True).start()
import workbench
review, sources, embedder, refit = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
tb = time.perf_counter()
r = workbench.build([sources], review=review, embedder=embedder, seed=42, progress=False)
te = time.perf_counter()
wall_build = te - t0
stages = dict(r.manifest["timings"])
stages.update({k: round(v, 3) for k, v in r.model.timings_.items()})
# peak RSS (sampled every 50 ms) within each stage of the build, in the order build runs them
bounds, t = [], tb
for name in ("read", "embed", "topics", "map"):
    bounds.append((name, t, t + stages[name])); t += stages[name]
bounds.append(("store+write", t, te))
peaks = {name: round(max([m for s, m in samples if a <= s <= b] or [0])) for name, a, b in bounds}
out = {"papers": len(r), "topics": r.manifest["topics"]["count"], "embedded": r.manifest["embed_stats"]["embedded"],
       "stages": stages, "build_s": wall_build, "torch": "torch" in sys.modules, "peaks": peaks}
if refit:
    t = time.perf_counter(); r.refit(); out["refit_s"] = time.perf_counter() - t
    t = time.perf_counter(); r.refit(nr_topics=10); out["refit_k_s"] = time.perf_counter() - t
    t = time.perf_counter(); r.refit(min_cluster_size=60); out["refit_mcs_s"] = time.perf_counter() - t
    r = workbench.open_review(review)  # opened again, as the explore view does
    t = time.perf_counter(); r.show_themes(10); out["themes_s"] = time.perf_counter() - t
done.append(1)
print(json.dumps(out))
"""

def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text) if s]


def real_records() -> list[tuple[str, str, str]]:
    """(group, title, abstract) for every real abstract: the labelled corpora and the seeds."""
    records = []
    if have_data():
        for name in CORPORA:
            corpus = load_corpus(name)
            records += [(name, t, a) for t, a in zip(corpus.titles, corpus.abstracts) if a]
    from workbench import read_sources

    papers, _ = read_sources([str(ROOT / "seeds")])
    records += [("seeds", "", p.text) for p in papers]
    return records


def make_corpus(size: int, seed: int = 0) -> Path:
    """Write (once) a CSV of ``size`` abstracts: all real ones first, then variants."""
    path = OUT / f"corpus_{size}.csv"
    if path.exists():
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    real = real_records()
    by_group: dict[str, list[int]] = {}
    for i, (group, _, _) in enumerate(real):
        by_group.setdefault(group, []).append(i)
    rng = random.Random(seed)
    rows = [(t, a) for _, t, a in real[:size]]
    j = 0
    while len(rows) < size:
        j += 1
        for i, (group, _, abstract) in enumerate(real):
            if len(rows) >= size:
                break
            sents = _sentences(abstract)
            rng.shuffle(sents)
            other = real[rng.choice(by_group[group])][2]
            borrowed = _sentences(other)
            if borrowed:
                sents.insert(rng.randrange(len(sents) + 1), rng.choice(borrowed))
            words = " ".join(sents).split()
            words = [w for w in words if rng.random() > 0.1] or words
            rows.append(("", " ".join(words)))
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract"])
        writer.writerows(rows)
    tmp.replace(path)
    return path


STAGES = ["read", "embed", "umap", "hdbscan", "outliers", "merge", "labels", "map", "write"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 50_000, 100_000])
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--refit-size", type=int, default=10_000, help="also time Review.refit() at this size")
    parser.add_argument("--no-warm", action="store_true")
    args = parser.parse_args()

    work = OUT / "reviews"
    shutil.rmtree(work, ignore_errors=True)
    print(f"# Scale, {time.strftime('%Y-%m-%d')}, {machine()}, embedder {args.embedder}\n")
    print("| papers | run | wall s | peak RSS MB | topics | embedded | " + " | ".join(STAGES) + " |")
    print("|---:|---|---:|---:|---:|---:|" + "---:|" * len(STAGES))
    refits, peak_rows = [], []
    for size in args.sizes:
        source = make_corpus(size)
        review = work / f"r{size}"
        runs = [("cold", True)] + ([] if args.no_warm else [("warm", False)])
        for run, cold in runs:
            if cold:
                shutil.rmtree(review, ignore_errors=True)
            refit = "1" if (size == args.refit_size and not cold) else "0"
            result, wall, rss = run_child(CHILD, [str(review), str(source), args.embedder, refit])
            stages = result["stages"]
            cells = " | ".join(f"{stages[s]:.1f}" if s in stages else "" for s in STAGES)
            print(f"| {result['papers']:,} | {run} | {wall:.1f} | {rss:.0f} | {result['topics']} | {result['embedded']:,} | {cells} |", flush=True)
            if "refit_s" in result:
                refits.append((result["papers"], result))
            peak_rows.append((result["papers"], run, result["peaks"]))
        shutil.rmtree(review, ignore_errors=True)
    print("\npeak RSS (MB) within each stage of the build (sampled every 50 ms):\n")
    names = list(peak_rows[0][2]) if peak_rows else []
    print("| papers | run | " + " | ".join(names) + " |")
    print("|---:|---|" + "---:|" * len(names))
    for papers, run, peaks in peak_rows:
        print(f"| {papers:,} | {run} | " + " | ".join(str(peaks[n]) for n in names) + " |")
    for papers, result in refits:
        print(f"\nrefit in the live process, {papers:,} papers: Review.refit() {result['refit_s']:.1f} s;"
              f" refit(nr_topics=10) {result['refit_k_s']:.1f} s; refit(min_cluster_size=60) {result['refit_mcs_s']:.1f} s;"
              f" show_themes(10) on the reopened review (no UMAP or HDBSCAN) {result['themes_s']:.1f} s")
    print("\nstages: read = readers + dedupe; umap = neighbours + 5-d UMAP; labels = c-TF-IDF + KeyBERT words; map = 2-d UMAP (neighbours shared)")


if __name__ == "__main__":
    main()

"""Scale: build 10,000 / 50,000 / 100,000 abstracts on this machine, cold and warm, per stage,
beside the baselines a user would compare with, all in one run.

    nice -n 5 python benchmarks/scale.py [--sizes 10000 50000 100000] [--embedder static]
                                         [--refit-size 10000] [--no-naive] [--repeat 1] [--before DIR]

The corpora: every real abstract we have (the three labelled corpora in ../shared/data/corpora,
11,376 with abstracts, and the 133 seeds), then generated variants until the size is reached.
A variant of abstract i (variant j) keeps its sentences in a seeded random order, drops about
one word in ten, and borrows one sentence from another abstract of the same corpus; it has no
title (the reader derives one), so no two variants are duplicates of each other. Each corpus is
written once as a CSV (title, abstract) under benchmarks/out/scale/ and read, from a folder of
its own, by the normal reader.

Rows, each a fresh process (wall time includes start-up and imports):

- pandas: ``pandas.read_csv`` of the same file (the call alone), the reading baseline;
- read: ``read_sources`` (read, clean, ids, titles, deduplicate; no cache), the call alone
  (these two: the mean of three calls each, alternating, in fresh processes);
- CountVectorizer: one ``fit_transform`` of the corpus's texts with the labels' vectorizer
  (the call alone), the labels' baseline;
- naive pipeline: what a user would write: pandas, the same static embeddings, BERTopic's
  ``fit_transform`` with its defaults on them, and a 2-d UMAP for the map (``--no-naive``: skip);
- cold: ``workbench.build`` with an empty review (no embedding, record, topic or map cache;
  the static model is already distilled and numba's compiled UMAP is on disk, as on any day
  after the first: a warm-up build and naive pipeline of 5,000 abstracts, run first and not
  counted, see to that on a new machine);
- rebuild, nothing changed: the same build again (everything reused);
- 100 papers added: a second file of 100 new abstracts in the sources folder, built again (only
  that file is read; embeddings of the others reused; topics and map computed again).

Per-stage seconds come from the review's ``build.json`` and the topic model's ``timings_``;
peak RSS is the child's ``ru_maxrss`` (the largest process); the build's peak memory, per stage
and in all, is sampled every 50 ms: its RSS plus the private memory of its helper processes
(the reading workers, the map laid out beside the topics), read every 0.5 s (``smaps_rollup``
walks a process's page tables; every 50 ms it cost a 50,000-abstract build ~6%). The refit row is ``workbench.refit()``
in the live process that built the review (embeddings and neighbours in memory), and
``workbench.show_themes(review, 10)`` on the review opened again (what the explore view's "Show themes"
runs). ``--repeat N`` runs everything N times and reports means (the machine is shared: compare
within one run). ``--before DIR``: the workbench's rows (read, cold, rebuild, 100 added) run first
with the workbench of another checkout (``PYTHONPATH=DIR``, e.g. a worktree of an older commit),
then with this one; the load average (1 min) at the start and end of each build is in the table.
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


STAGES = ["read", "embed", "neighbours", "umap", "hdbscan", "outliers", "merge", "labels", "map", "write"]

PANDAS = r"""
import json, sys, time
import pandas as pd
t = time.perf_counter(); frame = pd.read_csv(sys.argv[1]); seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "rows": len(frame)}))
"""

READ = r"""
import json, sys, time
from workbench import read_sources
t = time.perf_counter(); papers, _ = read_sources([sys.argv[1]]); seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "papers": len(papers)}))
"""

VECTORIZE = r"""
import json, sys, time
from workbench import read_sources
from workbench.review import document_text
from workbench.topics.represent import _vectorizer, documents
papers, _ = read_sources([sys.argv[1]])
texts = documents([document_text(p) for p in papers])
t = time.perf_counter(); matrix = _vectorizer(len(texts)).fit_transform(texts); seconds = time.perf_counter() - t
print(json.dumps({"seconds": seconds, "terms": matrix.shape[1]}))
"""

NAIVE = r"""
import json, sys, time
t0 = time.perf_counter()
import pandas as pd
frame = pd.read_csv(sys.argv[1], keep_default_na=False)
docs = [f"{t}. {a}" if t else a for t, a in zip(frame["title"], frame["abstract"])]
from model2vec import StaticModel
from workbench.embed import StaticEmbedder
embeddings = StaticModel.from_pretrained(str(StaticEmbedder().distill())).encode(docs)
t1 = time.perf_counter()
from bertopic import BERTopic
topics, _ = BERTopic().fit_transform(docs, embeddings)
t2 = time.perf_counter()
from umap import UMAP
coords = UMAP(n_components=2).fit_transform(embeddings)
t3 = time.perf_counter()
print(json.dumps({"papers": len(docs), "topics": len(set(topics) - {-1}), "seconds": t3 - t0,
                  "stages": {"read+embed": t1 - t0, "bertopic": t2 - t1, "map": t3 - t2}}))
"""

BUILD = r"""
import json, os, sys, threading, time
t0 = time.perf_counter()
samples, done = [], []
def private_mb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return sum(int(line.split()[1]) for line in f if line.startswith(("Private_Clean", "Private_Dirty"))) / 1024
    except OSError:  # ended meanwhile
        return 0.0
def helpers():
    pids = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/children") as f:
                pids += f.read().split()
        except OSError:
            pass
    return pids
def sample():
    page = os.sysconf("SC_PAGE_SIZE")
    n, theirs = 0, 0.0
    while not done:
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * page / 2**20
        # with what the helper processes (reading, the map) hold of their own: what the build takes;
        # read every 0.5 s (smaps_rollup walks a process's page tables: every 50 ms, it cost the
        # build ~6%, its read stage ~0.7 s of 4.8)
        if n % 10 == 0:
            theirs = sum(private_mb(p) for p in helpers())
        samples.append((time.perf_counter(), rss + theirs))
        n += 1
        time.sleep(0.05)
threading.Thread(target=sample, daemon=True).start()
import workbench
review, sources, embedder, refit = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
tb = time.perf_counter()
r = workbench.build([sources], review=review, embedder=embedder, seed=42, progress=False)
te = time.perf_counter()
stages = dict(r.manifest["timings"])
stages.update({k: round(v, 3) for k, v in r.model.timings_.items()})
# peak RSS (sampled every 50 ms; the helpers' every 0.5 s) within each stage of the build, in the order build runs them
bounds, t = [], tb
for name in ("read", "embed", "topics", "map"):
    bounds.append((name, t, t + stages[name])); t += stages[name]
bounds.append(("store+write", t, te))
peaks = {name: round(max([m for s, m in samples if a <= s <= b] or [0])) for name, a, b in bounds}
out = {"papers": len(r), "topics": r.manifest["topics"]["count"], "embedded": r.manifest["embed_stats"]["embedded"],
       "stages": stages, "build_s": te - t0, "peaks": peaks, "peak_mb": max(m for _, m in samples),
       "reused": r.build_report.reuse_line()}
if refit:
    t = time.perf_counter(); r = workbench.refit(r); out["refit_s"] = time.perf_counter() - t
    t = time.perf_counter(); r = workbench.refit(r, nr_topics=10); out["refit_k_s"] = time.perf_counter() - t
    t = time.perf_counter(); r = workbench.refit(r, min_cluster_size=60); out["refit_mcs_s"] = time.perf_counter() - t
    r = workbench.open_review(review)  # opened again, as the explore view does
    t = time.perf_counter(); r = workbench.show_themes(r, 10); out["themes_s"] = time.perf_counter() - t
done.append(1)
print(json.dumps(out))
"""


def added_papers(size: int, n: int = 100) -> list[tuple[str, str]]:
    """``n`` new abstracts: variants of real ones with another seed (no title, like the rest)."""
    real = real_records()
    rng = random.Random(size + 1)
    rows = []
    for _, _, abstract in rng.sample(real, n):
        sents = _sentences(abstract)
        rng.shuffle(sents)
        words = [w for w in " ".join(sents).split() if rng.random() > 0.15]
        rows.append(("", "Added: " + " ".join(words)))
    return rows


def source_folder(size: int) -> Path:
    """A folder holding only the corpus of ``size`` (a hard link to it): what the builds read."""
    folder = OUT / f"sources_{size}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    corpus = make_corpus(size)
    try:
        os.link(corpus, folder / corpus.name)
    except OSError:
        shutil.copy(corpus, folder / corpus.name)
    return folder


def add_file(folder: Path, size: int) -> None:
    with open(folder / "added_100.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract"])
        writer.writerows(added_papers(size))


def _mean(values):
    return sum(values) / len(values)


def run_size(size: int, args, work: Path) -> dict:
    """Every row of one corpus size, ``args.repeat`` times; means of the seconds. With
    ``args.before``, each workbench row is run with the older checkout first, then with this one
    (rows named "... (before)" and "... (this)")."""
    corpus = make_corpus(size)
    runs: dict[str, list] = {}
    codes = [(" (before)", {"PYTHONPATH": str(args.before.resolve())}), (" (this)", {"PYTHONPATH": str(ROOT)})] \
        if args.before else [("", None)]
    for _ in range(args.repeat):
        for _ in range(3):  # alternating, three each: one call of either moves up to 2x with the machine's load
            runs.setdefault("pandas", []).append(run_child(PANDAS, [str(corpus)]))
            for code, env in codes:
                runs.setdefault("read" + code, []).append(run_child(READ, [str(corpus)], env=env))
        runs.setdefault("CountVectorizer", []).append(run_child(VECTORIZE, [str(corpus)]))
        if not args.no_naive:
            runs.setdefault("naive pipeline", []).append(run_child(NAIVE, [str(corpus)]))
        for code, env in codes:
            folder = source_folder(size)
            review = work / f"r{size}"
            shutil.rmtree(review, ignore_errors=True)
            refit = "1" if size == args.refit_size else "0"
            for name, prepare in (("cold", None), ("rebuild, nothing changed", None), ("100 papers added", add_file)):
                if prepare:
                    prepare(folder, size)
                load = os.getloadavg()[0]
                result = run_child(BUILD, [str(review), str(folder), args.embedder, refit if name == "cold" else "0"],
                                   env=env)
                result[0]["load"] = f"{load:.1f}-{os.getloadavg()[0]:.1f}"
                runs.setdefault(name + code, []).append(result)
            shutil.rmtree(review, ignore_errors=True)
    return runs


def _seconds(result, wall) -> float:
    return result.get("seconds", wall)


def print_size(size: int, runs: dict) -> None:
    cold = next(v for k, v in runs.items() if k.startswith("cold"))
    print(f"\n## {size:,} abstracts (means of {len(cold)} run(s))\n")
    print("| run | wall s | peak RSS MB | papers | topics | " + " | ".join(STAGES) + " | reused | load |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(STAGES) + "---|---|")
    for name, results in runs.items():
        wall = _mean([w for _, w, _ in results])
        rss = max(r for _, _, r in results)
        first = results[0][0]
        stages = first.get("stages", {})
        means = {k: _mean([r.get("stages", {}).get(k, 0.0) for r, _, _ in results]) for k in stages}
        cells = " | ".join(f"{means[s]:.1f}" if s in means else "" for s in STAGES)
        secs = _mean([_seconds(r, w) for r, w, _ in results])
        shown = f"{secs:.2f} (call)" if "seconds" in first and name != "naive pipeline" else f"{wall:.1f}"
        print(f"| {name} | {shown} | {rss:.0f} | {first.get('papers', first.get('rows', ''))} | {first.get('topics', '')} "
              f"| {cells} | {first.get('reused', '')} | {' '.join(r.get('load', '') for r, _, _ in results)} |")
    codes = [c for c in (" (before)", " (this)") if "cold" + c in runs] or [""]
    for code in codes:
        if code:
            print(f"\n{code.strip(' ()')}:")
        print("\n" + "\n".join(f"- {line}" for line in _summary(runs, code)))


def _summary(runs: dict, code: str) -> list[str]:
    """The goals' ratios of the rows of one checkout (``code``: "", " (before)" or " (this)")."""
    pandas = _mean([r["seconds"] for r, _, _ in runs["pandas"]])
    read = _mean([r["seconds"] for r, _, _ in runs["read" + code]])
    vec = _mean([r["seconds"] for r, _, _ in runs["CountVectorizer"]])
    cold = _mean([w for _, w, _ in runs["cold" + code]])
    labels = _mean([r["stages"].get("labels", 0.0) for r, _, _ in runs["cold" + code]])
    lines = [f"read_sources / pandas.read_csv: {read / pandas:.1f}x (goal <= 5x); the cold build's read stage: "
             f"{_mean([r['stages']['read'] for r, _, _ in runs['cold' + code]]) / pandas:.1f}x",
             f"labels stage (cold build) / CountVectorizer.fit_transform: {labels / vec:.2f}x (goal <= 1.5x)",
             f"rebuild, nothing changed / cold: {_mean([w for _, w, _ in runs['rebuild, nothing changed' + code]]) / cold:.3f}x"
             " (goal <= 0.1x)",
             f"100 papers added / cold: {_mean([w for _, w, _ in runs['100 papers added' + code]]) / cold:.2f}x",
             f"peak RSS, cold: {max(r for _, _, r in runs['cold' + code]):.0f} MB (the largest process); with the helper "
             f"processes' private memory: {max(r['peak_mb'] for r, _, _ in runs['cold' + code]):.0f} MB (goal < 1,500 MB at 50,000)"]
    if "naive pipeline" in runs:
        naive = _mean([w for _, w, _ in runs["naive pipeline"]])
        lines.insert(2, f"cold build / naive pipeline: {cold / naive:.2f}x (goal <= 0.5x)")
    return lines


#: The corpus size of the warm-up: above 4,096 (UMAP's exact neighbours below that) and 5,000
#: (the map is laid out beside the topics from there), so it compiles what the timed builds run.
WARMUP_SIZE = 5000


def warm_up(args, work: Path) -> str:
    """What the first run on a machine pays once, not counted: numba compiles UMAP's and
    pynndescent's code (the workbench's on-disk cache keeps it; the naive pipeline's UMAP caches
    what umap marks cacheable) and the static model is distilled. A build and the naive pipeline
    of a small corpus, each in a fresh process, before anything is timed; what they took."""
    folder = source_folder(WARMUP_SIZE)
    if args.before:  # the older checkout's compiled code is cached apart
        run_child(BUILD, [str(work / "warmup"), str(folder), args.embedder, "0"], env={"PYTHONPATH": str(args.before.resolve())})
        shutil.rmtree(work / "warmup", ignore_errors=True)
    _, build_s, _ = run_child(BUILD, [str(work / "warmup"), str(folder), args.embedder, "0"], env={"PYTHONPATH": str(ROOT)})
    naive_s = run_child(NAIVE, [str(make_corpus(WARMUP_SIZE))])[1] if not args.no_naive else None
    shutil.rmtree(work / "warmup", ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    naive = f", naive pipeline {naive_s:.1f} s" if naive_s is not None else ""
    return (f"warm-up, not counted (numba compiles on a machine's first build; later processes load it from "
            f"disk): build of {WARMUP_SIZE:,} {build_s:.1f} s{naive}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[10_000, 50_000, 100_000])
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--refit-size", type=int, default=10_000, help="also time workbench.refit() at this size")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive pipeline (BERTopic defaults)")
    parser.add_argument("--repeat", type=int, default=1, help="run everything this many times; report means")
    parser.add_argument("--before", type=Path, default=None,
                        help="run each workbench row first with the workbench of this checkout (older code), then this one")
    args = parser.parse_args()

    work = OUT / "reviews"
    shutil.rmtree(work, ignore_errors=True)
    print(f"# Scale, {time.strftime('%Y-%m-%d')}, {machine()}, embedder {args.embedder}")
    print(f"\n{warm_up(args, work)}", flush=True)
    refits = []
    for size in args.sizes:
        runs = run_size(size, args, work)
        print_size(size, runs)
        refits += [results[0][0] for name, results in runs.items()
                   if name.startswith("cold") and "refit_s" in results[0][0]]
        print("\npeak memory (MB: RSS and the helper processes' private memory) within each stage of the build (RSS sampled every 50 ms, the helpers' private memory every 0.5 s): " + "; ".join(
            f"{name}: " + ", ".join(f"{k} {v}" for k, v in results[0][0]["peaks"].items())
            for name, results in runs.items() if "peaks" in results[0][0]), flush=True)
    for result in refits:
        print(f"\nrefit in the live process, {result['papers']:,} papers: workbench.refit() {result['refit_s']:.1f} s;"
              f" refit(nr_topics=10) {result['refit_k_s']:.1f} s; refit(min_cluster_size=60) {result['refit_mcs_s']:.1f} s;"
              f" show_themes(10) on the reopened review (no UMAP or HDBSCAN) {result['themes_s']:.1f} s")
    print("\nstages: read = readers + dedupe; neighbours = the graph both UMAPs share, computed before the topics "
          "when the map is laid out beside them (else part of umap); umap = 5-d UMAP; labels = c-TF-IDF + KeyBERT "
          "words; map = the wait for the 2-d UMAP laid out beside the topics (else the 2-d UMAP itself); the call "
          "rows time the call alone, in a fresh process")


if __name__ == "__main__":
    main()

"""Topics fitted on a sample and predicted for the rest (the Dask build) against a full fit.

    python benchmarks/sample_quality.py [--size 0] [--share 0.2] [--seeds 0 1 2] [--embedder static]

The corpus: every labelled real abstract (arXiv fields, medical conditions, the nine SYNERGY
reviews: about 11,300), then, with ``--size N`` above that, benchmarks/scale.py's generated
variants up to N papers (unlabelled: they crowd the space as a field map's papers do). Per seed:

- ``full``: :func:`workbench.distributed.topics.fit_sample` on every paper (the sample is the
  corpus), what the topic stages of a build on one machine compute;
- ``sample``: ``fit_sample`` on a seeded sample of ``share`` of the papers (the Dask build's
  default is 20,000 of 100,000: 0.2), then :func:`place_partition` for the rest in partitions of
  5,000 (``UMAP.transform``, ``hdbscan.approximate_predict``, the outlier vote).

The score is the NMI of the topics against the labels (``corpus:label``) on the labelled papers
only, outliers counted as a topic of their own; the goal (issue 21) is the sample's NMI within
0.02 of the full fit's, mean over the seeds. Also printed: the topics found and the ARI between
the two runs' topics on every paper, and the seconds of each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CORPORA, embed_cached, have_data, load_corpus, machine  # noqa: E402

PARTITION = 5_000
OUT = Path(__file__).resolve().parent / "out" / "sample_quality"


def corpus(size: int) -> tuple[list[str], np.ndarray]:
    """The texts and each one's label (``""``: a generated, unlabelled variant)."""
    texts, labels = [], []
    for name in CORPORA:
        c = load_corpus(name)
        for text, abstract, label in zip(c.texts(), c.abstracts, c.labels):
            if abstract:
                texts.append(text)  # what a review embeds: title and abstract
                labels.append(f"{name}:{label}")
    if size > len(texts):
        import csv

        from scale import make_corpus

        with open(make_corpus(size), newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        extra = [r["abstract"] for r in rows if not r["title"]][: size - len(texts)]  # the variants
        texts += extra
        labels += [""] * len(extra)
    return texts, np.array(labels, dtype=object)


def run(X: np.ndarray, share: float, seed: int, placing: str = "transform") -> tuple[np.ndarray, float]:
    from workbench.distributed.topics import fit_sample, place_partition, sample_positions

    t = time.perf_counter()
    positions = sample_positions(len(X), max(1, int(round(share * len(X)))), seed)
    fit = fit_sample(X[positions], positions, {"placing": placing}, seed)
    labels = np.concatenate([place_partition(X[i:i + PARTITION], i, fit)["labels"]
                             for i in range(0, len(X), PARTITION)])
    return labels, time.perf_counter() - t


def full_fit(X: np.ndarray, seed: int, key: str) -> tuple[np.ndarray, float]:
    """The full fit's topics, kept under benchmarks/out/ (it is the same for every share and placing)."""
    path = OUT / f"full-{key}.npz"
    if path.exists():
        saved = np.load(path)
        return saved["labels"], float(saved["seconds"])
    labels, seconds = run(X, 1.0, seed)
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez(path, labels=labels, seconds=seconds)
    return labels, seconds


def main() -> None:
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=0, help="papers in all (generated variants above the real ones)")
    parser.add_argument("--share", type=float, default=0.2, help="the sample's share of the papers")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--placing", nargs="+", default=["transform", "neighbours"],
                        help="how the papers outside the sample are placed (a row each)")
    args = parser.parse_args()
    if not have_data():
        sys.exit("../shared/data/corpora is not here: nothing to measure")
    texts, truth = corpus(args.size)
    X = np.asarray(embed_cached(texts, args.embedder), dtype=np.float32)
    labelled = truth != ""
    print(f"# Sample + transform vs full fit, {time.strftime('%Y-%m-%d %H:%M')}, {machine()}, "
          f"embedder {args.embedder}\n")
    print(f"{len(texts):,} papers ({labelled.sum():,} labelled), sample {args.share:.0%}\n")
    print("| seed | placing | NMI full | NMI sample | difference | topics full / sample | ARI between | "
          "seconds full / sample |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    diffs: dict[str, list[float]] = {p: [] for p in args.placing}
    for seed in args.seeds:
        full, t_full = full_fit(X, seed, f"{args.embedder}-{len(X)}-{seed}")
        nmi_full = normalized_mutual_info_score(truth[labelled], full[labelled])
        for placing in args.placing:
            part, t_part = run(X, args.share, seed, placing)
            nmi = normalized_mutual_info_score(truth[labelled], part[labelled])
            diffs[placing].append(nmi - nmi_full)
            topics = [len(set(y.tolist()) - {-1}) for y in (full, part)]
            print(f"| {seed} | {placing} | {nmi_full:.3f} | {nmi:.3f} | {nmi - nmi_full:+.3f} | {topics[0]} / {topics[1]} | "
                  f"{adjusted_rand_score(full, part):.3f} | {t_full:.0f} / {t_part:.0f} |", flush=True)
    print()
    for placing, d in diffs.items():
        mean = float(np.mean(d))
        verdict = "met" if mean >= -0.02 else "not met"
        print(f"{placing}: mean difference (sample - full) over {len(d)} seeds: {mean:+.3f} "
              f"(range {min(d):+.3f} .. {max(d):+.3f}); goal: within 0.02 below: {verdict}")


if __name__ == "__main__":
    main()

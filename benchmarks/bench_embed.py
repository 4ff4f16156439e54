"""The tfidf embed stage against the two scikit-learn calls it is made of, side by side.

    python benchmarks/bench_embed.py [--sizes 2000 50000] [--repeats 3]

For each size, one fresh process reads the corpus of ``scale.py`` of that size (all real
abstracts, then generated variants; written once under benchmarks/out/scale/) with the normal
reader, takes
the texts a build embeds (``review.document_text``), imports scikit-learn, then times, in turn:

- bare: ``TfidfVectorizer(**params).fit_transform(texts)`` then
  ``TruncatedSVD(256, random_state=42).fit_transform(X)``, with the embedder's own parameters;
- embed stage: ``embed_with_cache(texts, TfidfEmbedder(), cache, corpus=True)`` on an empty
  cache file: what ``workbench build`` times as "embed" (hashing, the cache, the fit, writing
  every vector to the cache);

alternating, ``--repeats`` times each (the best is shown, as ``timeit`` does: on a shared
machine the slower runs measure the neighbours). With ``--old`` it also times the
bare calls with the settings the embedder had before (every unigram and bigram, float64),
which is where its 72-91 s and 4 GB at 5,000 abstracts went: the SVD's dense work grows with
the vocabulary.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, run_child  # noqa: E402
from scale import make_corpus  # noqa: E402

CHILD = r"""
import json, os, sys, tempfile, time
import numpy as np
source, size, repeats, old = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
from workbench.dedupe import DuplicateRules
from workbench.readers import read_sources
from workbench.review import document_text
papers, _ = read_sources([source], duplicates=DuplicateRules(fuzzy=False))
texts = [document_text(p) for p in papers][:size]
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from workbench.embed import EmbeddingCache, TfidfEmbedder, embed_with_cache

def bare(params):
    t = time.perf_counter()
    X = TfidfVectorizer(**params).fit_transform(texts)
    t1 = time.perf_counter()
    TruncatedSVD(n_components=256, random_state=42).fit_transform(X)
    return time.perf_counter() - t, t1 - t, X.shape[1]

def stage():
    with tempfile.TemporaryDirectory() as d, EmbeddingCache(os.path.join(d, "cache.sqlite")) as cache:
        t = time.perf_counter()
        X, stats = embed_with_cache(texts, TfidfEmbedder(), cache, corpus=True)
        return time.perf_counter() - t, stats["embedded"]

params = TfidfEmbedder().vectorizer_params(len(texts))
bares, stages = [], []
for _ in range(repeats):
    bares.append(bare(params))
    stages.append(stage())
out = {"n": len(texts), "bare": min(b[0] for b in bares), "vectorizer": min(b[1] for b in bares),
       "features": bares[0][2], "stage": min(s[0] for s in stages), "embedded": stages[0][1],
       "runs_bare": [round(b[0], 2) for b in bares], "runs_stage": [round(s[0], 2) for s in stages]}
if old:
    t = bare({"stop_words": "english", "ngram_range": (1, 2), "sublinear_tf": True})
    out["old"], out["old_features"] = t[0], t[2]
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[2_000, 50_000])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each at sizes up to 10,000 (2 above)")
    parser.add_argument("--old", action="store_true", help="also time the old settings (sizes up to 5,000)")
    args = parser.parse_args()
    print(f"# tfidf embed stage vs the bare scikit-learn calls, {time.strftime('%Y-%m-%d')}, {machine()}\n")
    print("| abstracts | features | bare TfidfVectorizer + TruncatedSVD s (best) | embed stage s (best) | ratio "
          "| runs bare / stage s "
          "| peak RSS MB | old settings: bare s (features) |")
    print("|---:|---:|---:|---:|---:|---|---:|---|")
    for size in args.sizes:
        repeats = args.repeats if size <= 10_000 else min(args.repeats, 2)
        old = args.old and size <= 5_000
        source = make_corpus(size)
        r, _, rss = run_child(CHILD, [str(source), str(size), str(repeats), "1" if old else "0"])
        old_cell = f"{r['old']:.1f} ({r['old_features']:,})" if old else ""
        print(f"| {r['n']:,} | {r['features']:,} | {r['bare']:.2f} | {r['stage']:.2f} | {r['stage'] / r['bare']:.2f} "
              f"| {r['runs_bare']} / {r['runs_stage']} | {rss:.0f} | {old_cell} |", flush=True)


if __name__ == "__main__":
    main()

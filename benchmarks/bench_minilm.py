"""The default embedder's embed stage against sentence-transformers' own ``encode``, side by side.

    python benchmarks/bench_minilm.py [--sizes 2000 50000] [--sample 2000] [--chunk 250]
                                      [--precisions int8 float32]

For each size, the corpus of ``scale.py`` of that size (all real abstracts, then generated
variants) is read with the normal reader and the texts a build embeds are taken
(``review.document_text``). Where the size is above ``--sample``, a seeded random sample of
``--sample`` of them is timed and the seconds are scaled to the whole size (the rows say so):
both sides embed one text at a time in batches of texts of similar length, so their time grows
with the number of texts, and the ratio is what the table is for.

One fresh process loads both models (the packaged all-MiniLM-L6-v2, offline) and then takes the
texts ``--chunk`` at a time, in turn:

- sentence-transformers: ``SentenceTransformer(folder).encode(chunk, batch_size=32,
  normalize_embeddings=True)``, float32: the peer, and the reference vectors;
- embed stage (each precision): ``embed_with_cache(chunk, MiniLMEmbedder(precision=...), cache)``
  on a cache that starts empty: what ``workbench build`` times as "embed" (hashing, the cache,
  the model, writing the vectors).

Taking turns chunk by chunk puts both under the same load on a shared machine. The table gives
the seconds of each (the sum over the chunks), the ratio to sentence-transformers', the lowest
and the mean cosine of each text's vector to sentence-transformers' (the quality bound is a
lowest cosine of 0.99), and the load average (1 min) before and after.

``--quality N`` then gives the topics' NMI against the labels of arxiv_lite and medical (the
workbench's default ``TopicModel(seed=s).cluster``, seeds 1..N) on float32's vectors and on each
precision's, from the benchmark cache (``_common.embed_cached``; a precision's vectors are
embedded once): a precision keeps the quality where its mean NMI lies within float32's range
over the seeds.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, run_child  # noqa: E402
from scale import make_corpus  # noqa: E402

CHILD = r"""
import json, os, sys, tempfile, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
source, size, sample, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
precisions = sys.argv[5].split(",")
from workbench.dedupe import DuplicateRules
from workbench.readers import read_sources
from workbench.review import document_text
papers, _ = read_sources([source], duplicates=DuplicateRules(fuzzy=False))
texts = [document_text(p) for p in papers][:size]
n_all = len(texts)
if n_all > sample:
    rows = np.sort(np.random.default_rng(0).choice(n_all, sample, replace=False))
    texts = [texts[i] for i in rows]
load_before = os.getloadavg()[0]
from sentence_transformers import SentenceTransformer
from transformers.utils import logging as hf_logging
hf_logging.set_verbosity_error()
from workbench.embed import EmbeddingCache, MiniLMEmbedder, embed_with_cache
from workbench.embed.minilm import minilm_path
st = SentenceTransformer(minilm_path(), device="cpu")
embedders = {p: MiniLMEmbedder(progress=False, precision=p) for p in precisions}
for e in embedders.values():
    e.model()
warm = texts[:8]
st.encode(warm, batch_size=32, normalize_embeddings=True)
for e in embedders.values():
    e.embed(warm)
secs = {"st": 0.0, **{p: 0.0 for p in precisions}}
vecs = {"st": [], **{p: [] for p in precisions}}
with tempfile.TemporaryDirectory() as d:
    caches = {p: EmbeddingCache(os.path.join(d, p + ".sqlite")) for p in precisions}
    for start in range(0, len(texts), chunk):
        part = texts[start:start + chunk]
        t = time.perf_counter()
        vecs["st"].append(st.encode(part, batch_size=32, normalize_embeddings=True))
        secs["st"] += time.perf_counter() - t
        for p, e in embedders.items():
            t = time.perf_counter()
            vecs[p].append(embed_with_cache(part, e, caches[p])[0])
            secs[p] += time.perf_counter() - t
    for c in caches.values():
        c.close()
ref = np.vstack(vecs["st"])
out = {"n_all": n_all, "n": len(texts), "load_before": load_before, "load_after": os.getloadavg()[0],
       "threads": __import__("torch").get_num_threads(), "st": secs["st"], "precisions": {}}
for p in precisions:
    cos = (np.vstack(vecs[p]) * ref).sum(1)
    out["precisions"][p] = {"seconds": secs[p], "cos_min": float(cos.min()), "cos_mean": float(cos.mean())}
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[2_000, 50_000])
    parser.add_argument("--sample", type=int, default=2_000, help="time at most this many texts of a size (then scale)")
    parser.add_argument("--chunk", type=int, default=250, help="texts per turn")
    parser.add_argument("--precisions", nargs="+", default=["int8", "float32"],
                        choices=["int8", "float32", "bfloat16"])
    parser.add_argument("--quality", type=int, default=0, metavar="N", help="topic NMI over seeds 1..N (0: skip)")
    parser.add_argument("--skip-speed", action="store_true", help="only --quality")
    args = parser.parse_args()
    if not args.skip_speed:
        speed(args)
    if args.quality:
        quality(args)


def quality(args) -> None:
    import numpy as np
    from sklearn.metrics import normalized_mutual_info_score

    from _common import embed_cached, load_corpus
    from workbench.topics import TopicModel

    seeds = list(range(1, args.quality + 1))
    print(f"\n## Topic NMI, seeds {seeds[0]}-{seeds[-1]} (default TopicModel), {time.strftime('%H:%M')}\n")
    print("| corpus | precision | mean NMI | range over the seeds | lowest cosine to float32 | load avg |")
    print("|---|---|---:|---|---:|---:|")
    for name in ("arxiv_lite", "medical"):
        corpus = load_corpus(name)
        texts = corpus.texts("document")
        vectors = {}
        for p in ["float32", *[p for p in args.precisions if p != "float32"]]:
            os.environ["WORKBENCH_EMBED_PRECISION"] = p
            vectors[p] = embed_cached(texts, "minilm")
        os.environ.pop("WORKBENCH_EMBED_PRECISION")
        for p, X in vectors.items():
            nmis = [normalized_mutual_info_score(corpus.labels, TopicModel(seed=s).cluster(X)) for s in seeds]
            cos = float((X * vectors["float32"]).sum(1).min())
            print(f"| {name} | {p} | {np.mean(nmis):.3f} | {min(nmis):.3f}-{max(nmis):.3f} | {cos:.4f} "
                  f"| {os.getloadavg()[0]:.1f} |", flush=True)


def speed(args) -> None:
    print(f"# MiniLM embed stage vs sentence-transformers' encode, {time.strftime('%Y-%m-%d %H:%M')}, {machine()}\n")
    print("| abstracts | timed | precision | sentence-transformers s | embed stage s | ratio | lowest cosine "
          "| mean cosine | load avg before / after | torch threads |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---|---:|")
    for size in args.sizes:
        r, _, _ = run_child(CHILD, [str(make_corpus(size)), str(size), str(args.sample), str(args.chunk),
                                    ",".join(args.precisions)])
        scale = r["n_all"] / r["n"]
        timed = f"{r['n']:,}" + (f" (x{scale:.0f})" if scale > 1 else "")
        for p, q in r["precisions"].items():
            print(f"| {r['n_all']:,} | {timed} | {p} | {r['st'] * scale:.0f} | {q['seconds'] * scale:.0f} "
                  f"| {q['seconds'] / r['st']:.2f} | {q['cos_min']:.4f} | {q['cos_mean']:.4f} "
                  f"| {r['load_before']:.1f} / {r['load_after']:.1f} | {r['threads']} |", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()

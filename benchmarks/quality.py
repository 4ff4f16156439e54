"""Topic quality on labelled corpora, side by side with baselines, and stability across seeds.

    python benchmarks/quality.py [--corpora arxiv_lite medical synergy] [--embedders minilm static tfidf]
                                 [--stability-seeds 5] [--candidates]

For each labelled corpus in ``../shared/data/corpora`` (see benchmarks/_common.py) and each
embedder, NMI and ARI of the topics against the labels, the topic count and the share of papers
HDBSCAN left as outliers (the workbench reassigns them; the share is what it started from):

- TF-IDF + k-means, MiniLM + k-means: k = the number of labels, mean of 3 k-means seeds;
- raw BERTopic: ``BERTopic(min_topic_size=10)`` with its default UMAP (seeded, 42) and HDBSCAN,
  no outlier reduction, on the same MiniLM embeddings; its outliers count as one more cluster;
- workbench (a): ``TopicModel()`` with its defaults, the topics a user gets;
- workbench (b): the same model reduced to k topics with ``TopicModel.reduce_to(k)``.

Texts are what ``workbench.review.document_text`` gives a paper: "Title. Abstract" where the
corpus has real titles that add words to the abstract (medical has none: its titles are run into
the abstract). Embeddings come from a disk cache (``~/.cache/workbench/bench``):
MiniLM embeds about 10-20 abstracts/s on two cores, so the first run takes a while.

``--stability-seeds N`` refits the workbench model with N seeds on arxiv_lite and reports the
mean pairwise ARI at levels (a) and (b) and the per-topic stability scores.
``--candidates`` also prints the settings tried on the way to the defaults.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("WORKBENCH_PROGRESS", "0")

from _common import CORPORA, have_data, load_corpus, embed_cached, machine  # noqa: E402

# Candidate settings, each a change from the defaults (shown with --candidates).
CANDIDATES = [
    ("defaults", {}),
    ("no centroid merging (HDBSCAN's topics)", {"merge_distance": None}),
    ("merging at 0.6 of the median distance", {"merge_distance": 0.6}),
    ("merging at 0.8 of the median distance", {"merge_distance": 0.8}),
    ("outliers to the nearest centroid (BERTopic's embeddings strategy)", {"outlier_strategy": "embeddings"}),
    ("eom selection", {"cluster_selection": "eom"}),
    ("min_cluster_size 0.25*sqrt(n)", {"min_cluster_size": "0.25sqrt"}),
    ("min_cluster_size 1.0*sqrt(n)", {"min_cluster_size": "1.0sqrt"}),
    ("UMAP n_neighbors 15", {"n_neighbors": 15}),
    ("old defaults (nn 15, 0.4*sqrt(n), eom, centroid outliers, no merging)",
     {"n_neighbors": 15, "min_cluster_size": "0.4sqrt", "cluster_selection": "eom", "outlier_strategy": "embeddings", "merge_distance": None}),
]


def scores(labels, truth) -> tuple[float, float]:
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    return normalized_mutual_info_score(truth, labels), adjusted_rand_score(truth, labels)


def kmeans(X, k, seeds=(0, 1, 2)):
    from sklearn.cluster import KMeans

    return [KMeans(n_clusters=k, n_init=10, random_state=s).fit_predict(X) for s in seeds]


def raw_bertopic(texts, X):
    from umap import UMAP

    from workbench.topics import import_bertopic

    bertopic = import_bertopic()
    umap_model = UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", random_state=42)
    model = bertopic.BERTopic(min_topic_size=10, umap_model=umap_model, calculate_probabilities=False)
    topics, _ = model.fit_transform(texts, embeddings=X)
    return np.asarray(topics)


def resolve(params: dict, n: int) -> dict:
    params = dict(params)
    mcs = params.get("min_cluster_size")
    if isinstance(mcs, str):
        params["min_cluster_size"] = max(5, round(float(mcs.split("sqrt")[0]) * np.sqrt(n)))
    return params


def workbench_levels(texts, X, k, params=None):
    from workbench.topics import TopicModel

    t = time.perf_counter()
    model = TopicModel(**resolve(params or {}, len(texts))).fit(texts, X)
    fit_s = time.perf_counter() - t
    reduced = model.reduce_to(k)
    return model, reduced, fit_s


def row(name, embedder, labels_list, truth, outliers=None, extra=""):
    nmis, aris = zip(*(scores(l, truth) for l in labels_list))
    n_topics = np.mean([len(set(l.tolist()) - {-1}) for l in labels_list])
    out = "" if outliers is None else f"{outliers:.0%}"
    return f"| {name} | {embedder} | {np.mean(nmis):.3f} | {np.mean(aris):.3f} | {n_topics:.0f} | {out} | {extra} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", nargs="+", default=list(CORPORA), choices=CORPORA)
    parser.add_argument("--embedders", nargs="+", default=["minilm", "static", "tfidf"])
    parser.add_argument("--stability-seeds", type=int, default=5)
    parser.add_argument("--candidates", action="store_true")
    args = parser.parse_args()
    if not have_data():
        raise SystemExit("../shared/data/corpora is not here; the quality benchmark needs the labelled corpora")
    warnings.simplefilter("ignore")
    from workbench.topics import TopicModel

    print(f"# Topic quality, {time.strftime('%Y-%m-%d')}, {machine()}\n")
    print(f"workbench defaults: {TopicModel().get_params()}\n")
    for name in args.corpora:
        corpus = load_corpus(name)
        texts, truth, k = corpus.texts("document"), corpus.labels, corpus.k
        print(f"\n## {name}: {len(corpus)} papers, {k} labels\n")
        print("| method | embedder | NMI | ARI | topics | outliers | note |")
        print("|---|---|---:|---:|---:|---:|---|")
        X_tfidf = embed_cached(texts, "tfidf")
        print(row("TF-IDF + k-means (k = labels)", "tfidf", kmeans(X_tfidf, k), truth), flush=True)
        X_minilm = embed_cached(texts, "minilm")
        print(row("MiniLM + k-means (k = labels)", "minilm", kmeans(X_minilm, k), truth), flush=True)
        raw = raw_bertopic(texts, X_minilm)
        print(row("raw BERTopic (min_topic_size=10)", "minilm", [raw], truth, float((raw == -1).mean())), flush=True)
        for emb in args.embedders:
            X = X_minilm if emb == "minilm" else X_tfidf if emb == "tfidf" else embed_cached(texts, emb)
            model, reduced, fit_s = workbench_levels(texts, X, k)
            print(row("workbench (a) defaults", emb, [model.labels_], truth, model.outlier_share_, f"fit {fit_s:.0f} s"), flush=True)
            print(row(f"workbench (b) reduce_to({k})", emb, [reduced.labels_], truth), flush=True)
        if args.candidates:
            print(f"\nsettings tried on {name} (MiniLM; each row changes the defaults in one way):\n")
            print("| setting | NMI (a) | topics (a) | NMI (b) | ARI (b) |")
            print("|---|---:|---:|---:|---:|")
            for label, params in CANDIDATES:
                model, reduced, _ = workbench_levels(texts, X_minilm, k, params)
                (na, _), (nb, ab) = scores(model.labels_, truth), scores(reduced.labels_, truth)
                print(f"| {label} | {na:.3f} | {len(set(model.labels_.tolist()) - {-1})} | {nb:.3f} | {ab:.3f} |", flush=True)
            abstract_only = embed_cached(corpus.texts("abstract"), "minilm") if corpus.has_titles else None
            if abstract_only is not None:
                model, reduced, _ = workbench_levels(corpus.texts("abstract"), abstract_only, k)
                (na, _), (nb, ab) = scores(model.labels_, truth), scores(reduced.labels_, truth)
                print(f"| abstract only (no title) | {na:.3f} | {len(set(model.labels_.tolist()) - {-1})} | {nb:.3f} | {ab:.3f} |")

    if args.stability_seeds > 1 and "arxiv_lite" in args.corpora:
        from workbench.stability import mean_pairwise_ari, topic_stability

        corpus = load_corpus("arxiv_lite")
        texts = corpus.texts("document")
        X = embed_cached(texts, "minilm")
        seeds = list(range(1, args.stability_seeds + 1))
        level_a = [TopicModel(seed=s).cluster(X) for s in seeds]
        level_b = [TopicModel(seed=s, nr_topics=corpus.k).cluster(X) for s in seeds]
        nmi_b = [scores(l, corpus.labels)[0] for l in level_b]
        print(f"\n## Stability: arxiv_lite, MiniLM, seeds {seeds}\n")
        print("| level | mean pairwise ARI | NMI per seed | topics per seed |")
        print("|---|---:|---|---|")
        for name, runs in (("(a) defaults", level_a), (f"(b) {corpus.k} topics", level_b)):
            nmis = ", ".join(f"{scores(l, corpus.labels)[0]:.3f}" for l in runs)
            counts = ", ".join(str(len(set(l.tolist()) - {-1})) for l in runs)
            print(f"| {name} | {mean_pairwise_ari(runs):.3f} | {nmis} | {counts} |")
        per_topic = topic_stability(level_a[0], level_a[1:])
        values = np.array(list(per_topic.values()))
        print(f"\nper-topic stability of seed {seeds[0]}'s default topics against the other seeds: "
              f"median {np.median(values):.2f}, min {values.min():.2f}, max {values.max():.2f}, "
              f"{(values >= 0.8).mean():.0%} of topics >= 0.8 (NMI (b) mean {np.mean(nmi_b):.3f})")


if __name__ == "__main__":
    main()

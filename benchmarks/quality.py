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

``--stability-seeds N`` refits the workbench model with N seeds on every corpus (MiniLM) and
reports the mean NMI and its range at levels (a) and (b), the mean pairwise ARI between the
seeds, and arxiv_lite's per-topic stability scores.
``--candidates`` also prints the settings tried on the way to the defaults (seed 42, or the mean
over seeds 1..N with ``--candidate-seeds N``).
``--labels`` measures how well label words name the default topics (precision and coverage
of each label word over the corpus) for KeyBERT's words, c-TF-IDF's and the workbench's labels,
before and after issue 14, in the same run (``--only-labels``: that alone).
``--compare-merging N`` compares, over seeds 1..N, the ways of merging HDBSCAN's topics that
were measured (Ward in the embedding space, the default; average linkage of the mean embeddings,
the previous default; average linkage in the 5-d UMAP space).
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
    ("no merging (HDBSCAN's topics)", {"merge_variance": None}),
    ("merging up to 0.6 % of the variance", {"merge_variance": 0.006}),
    ("merging up to 1.2 % of the variance", {"merge_variance": 0.012}),
    ("average-linkage centroid merging at 0.7 x the median distance (the previous default)", {"_merge": "average"}),
    ("outliers to the nearest centroid (BERTopic's embeddings strategy)", {"outlier_strategy": "embeddings"}),
    ("eom selection", {"cluster_selection": "eom"}),
    ("min_cluster_size 0.25*sqrt(n)", {"min_cluster_size": "0.25sqrt"}),
    ("min_cluster_size 1.0*sqrt(n)", {"min_cluster_size": "1.0sqrt"}),
    ("UMAP n_neighbors 15", {"n_neighbors": 15}),
    ("old defaults (nn 15, 0.4*sqrt(n), eom, centroid outliers, no merging)",
     {"n_neighbors": 15, "min_cluster_size": "0.4sqrt", "cluster_selection": "eom", "outlier_strategy": "embeddings", "merge_variance": None}),
]


def scores(labels, truth) -> tuple[float, float]:
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    return normalized_mutual_info_score(truth, labels), adjusted_rand_score(truth, labels)


def kmeans(X, k, seeds=(0, 1, 2)):
    from sklearn.cluster import KMeans

    return [KMeans(n_clusters=k, n_init=10, random_state=s).fit_predict(X) for s in seeds]


def raw_bertopic(texts, X):
    from umap import UMAP

    from workbench.topics.shims import import_bertopic

    bertopic = import_bertopic()
    umap_model = UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", random_state=42)
    model = bertopic.BERTopic(min_topic_size=10, umap_model=umap_model, calculate_probabilities=False)
    topics, _ = model.fit_transform(texts, embeddings=X)
    return np.asarray(topics)


def resolve(params: dict, n: int) -> dict:
    """Candidate parameters with ``min_cluster_size`` given as "<factor>sqrt" made a number."""
    params = dict(params)
    mcs = params.get("min_cluster_size")
    if isinstance(mcs, str):
        params["min_cluster_size"] = max(5, round(float(mcs.split("sqrt")[0]) * np.sqrt(n)))
    return params


def average_linkage_merge(X, labels, k=None, relative_distance=0.7, floor=8, metric="cosine"):
    """The merging the workbench used before Ward (kept here to compare): average linkage of
    the topics' mean vectors (unit length for cosine), cut at ``k`` or at a fraction of the
    median distance between two topics, never below ``floor`` topics."""
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist

    topics = sorted(set(labels.tolist()) - {-1})
    if len(topics) <= (k or 2):
        return labels
    centroids = np.vstack([X[labels == t].mean(axis=0) for t in topics]).astype(np.float64)
    if metric == "cosine":
        centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
    distances = np.clip(pdist(centroids, metric), 0.0, None)
    tree = linkage(distances, method="average")
    if k is None:
        groups = fcluster(tree, relative_distance * float(np.median(distances)), criterion="distance")
        if groups.max() < min(floor, len(topics)):
            groups = fcluster(tree, min(floor, len(topics)), criterion="maxclust")
    else:
        groups = fcluster(tree, k, criterion="maxclust")
    mapping = dict(zip(topics, groups.tolist()))
    return np.array([mapping.get(t, -1) for t in labels.tolist()])


def oracle_merge(fine, truth):
    """Each topic merged into the label most of its papers have: no merging of these topics can
    match the labels better (a ceiling for levels (a) and (b), not a method)."""
    truth = np.asarray(truth)
    majority = {t: max(sorted(set(truth[fine == t])), key=list(truth[fine == t]).count) for t in set(fine.tolist())}
    return np.array([majority[t] for t in fine.tolist()])


def label_words(corpus, X):
    """How well each way of choosing label words names the topics of the default model.

    For every word in a topic's label: precision = the share of the papers containing it that
    are in the topic, coverage = the share of the topic's papers that contain it (means over
    all label words); "shared" counts label words used by two topics or more; "frequent" counts
    label words made only of the corpus's 20 most common words (``frequent_words``); "words"
    is the mean number of words per label. "previous workbench labels" are the labels before
    issue 14 (the top ten words by F1, no frequent-word rule, no length limit), made in the same
    run from the same topics and words.
    """
    import re
    from collections import Counter

    from workbench.embed import WordVectors, get_embedder
    from workbench.topics import TopicModel, candidate_words, common_words, frequent_words, readable_label
    from workbench.topics.labels import topic_text
    from workbench.topics.represent import documents

    from _common import bench_cache_dir

    texts = corpus.texts("document")
    model = TopicModel().fit(texts, X, word_vectors=WordVectors(get_embedder("minilm"), bench_cache_dir() / "embeddings.sqlite"))
    docs = [" " + re.sub(r"[^\w]+", " ", t.lower()) + " " for t in texts]
    topics = sorted(model.words_)
    candidates = candidate_words(model.model_, model.labels_, model.top_n_words)
    top = {t: [w for w, _ in model.words_[t]] for t in topics}
    common = common_words([w for t, w in top.items() if t != -1])
    written = documents(texts)
    previous = {t: readable_label(top[t], common=common, text=topic_text(written, model.labels_, t)) for t in topics}
    keybert = {t: readable_label([w for w, _ in model.model_.get_topic(t)]) for t in topics}
    ctfidf = {t: readable_label(candidates[t][len(model.model_.get_topic(t)):]) for t in topics}
    ways = {"KeyBERT-inspired words": keybert, "c-TF-IDF words": ctfidf,
            "previous workbench labels (both, ranked by F1, as written)": previous,
            "workbench labels (issue 14: ranked by F0.5, no term of only the 20 most common words or their forms, at most 4 words)":
                dict(zip(model.topic_info_.topic, model.topic_info_.label))}
    frequent = frequent_words(written)
    for way, labels in ways.items():
        labels = {t: label for t, label in labels.items() if t != -1}
        precision, coverage, used = [], [], []
        for topic, label in labels.items():
            inside = model.labels_ == topic
            for word in label.split(", "):
                has = np.array([f" {word} " in d for d in docs])
                used.append(word)
                if has.any():
                    precision.append((has & inside).sum() / has.sum())
                    coverage.append((has & inside).sum() / inside.sum())
        shared = sum(1 for c in Counter(used).values() if c > 1)
        only_frequent = sum(1 for word in used if set(word.split()) <= frequent)
        n_words = np.mean([len(label.replace(",", " ").split()) for label in labels.values()])
        example = "; ".join(list(labels.values())[:3])
        print(f"| {corpus.name} | {way} | {np.mean(precision):.3f} | {np.mean(coverage):.3f} | {shared} | "
              f"{only_frequent} | {n_words:.1f} | {example} |", flush=True)


def compare_merging(corpus, X, seeds):
    """(a) and (b) of three ways to merge the same HDBSCAN topics, over ``seeds``."""
    from workbench.topics import TopicModel, mean_pairwise_ari, merge_topics

    ways = {
        "Ward, embedding space (default)": lambda fine, red: (
            merge_topics(X, fine, max_variance=TopicModel().merge_variance), merge_topics(X, fine, k=corpus.k)),
        "average linkage, cosine of mean embeddings (previous default)": lambda fine, red: (
            average_linkage_merge(X, fine), average_linkage_merge(X, fine, corpus.k)),
        "average linkage, 5-d UMAP space": lambda fine, red: (
            average_linkage_merge(red, fine, metric="euclidean"), average_linkage_merge(red, fine, corpus.k, metric="euclidean")),
        "upper bound: each topic merged into its most common label (uses the labels)": lambda fine, red: (
            (oracle := oracle_merge(fine, corpus.labels)), oracle),
    }
    runs = {way: ([], []) for way in ways}
    for seed in seeds:
        model = TopicModel(seed=seed, merge_variance=None)
        fine = model.cluster(X)
        for way, merge in ways.items():
            a, b = merge(fine, model.reduced_embeddings_)
            runs[way][0].append(a)
            runs[way][1].append(b)
    for way, (level_a, level_b) in runs.items():
        cells = []
        for level in (level_a, level_b):
            nmis = [scores(l, corpus.labels)[0] for l in level]
            cells += [f"{np.mean(nmis):.3f} ± {np.std(nmis):.3f}", f"{mean_pairwise_ari(level):.3f}"]
        topics = np.mean([len(set(l.tolist())) for l in level_a])
        print(f"| {corpus.name} | {way} | {cells[0]} | {topics:.1f} | {cells[1]} | {cells[2]} | {cells[3]} |", flush=True)


def workbench_levels(texts, X, k):
    from workbench.topics import TopicModel

    t = time.perf_counter()
    model = TopicModel().fit(texts, X)
    fit_s = time.perf_counter() - t
    return model, model.reduce_to(k), fit_s


def candidate_scores(X, truth, k, params, seeds) -> list[str]:
    """NMI (a), topics (a), NMI (b), ARI (b) of one candidate setting, averaged over ``seeds``
    (the clustering only: level (b) is the model's own topics merged to ``k``, as reduce_to does)."""
    from workbench.topics import TopicModel, merge_topics

    params = dict(params)
    merge = params.pop("_merge", None)
    cells = []
    for seed in seeds:
        model = TopicModel(**{**resolve(params, len(X)), "seed": seed})
        a = model.cluster(X)
        fine = model.fine_labels_
        if merge == "average":
            a, b = average_linkage_merge(X, fine), average_linkage_merge(X, fine, k)
        else:
            b = merge_topics(X, fine, k=k)
        (na, _), (nb, ab) = scores(a, truth), scores(b, truth)
        cells.append((na, len(set(a.tolist()) - {-1}), nb, ab))
    na, ta, nb, ab = np.mean(cells, axis=0)
    return [f"{na:.3f}", f"{ta:.1f}" if len(seeds) > 1 else f"{ta:.0f}", f"{nb:.3f}", f"{ab:.3f}"]


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
    parser.add_argument("--candidate-seeds", type=int, default=1, metavar="N",
                        help="with --candidates: average each setting over seeds 1..N (default: seed 42 only)")
    parser.add_argument("--labels", action="store_true", help="measure how well label words name the topics (MiniLM)")
    parser.add_argument("--only-labels", action="store_true", help="--labels alone: no topic quality or stability")
    parser.add_argument("--compare-merging", type=int, default=0, metavar="N",
                        help="compare ways of merging HDBSCAN's topics over seeds 1..N (MiniLM)")
    args = parser.parse_args()
    if not have_data():
        raise SystemExit("../shared/data/corpora is not here; the quality benchmark needs the labelled corpora")
    warnings.simplefilter("ignore")
    from workbench.topics import TopicModel

    print(f"# Topic quality, {time.strftime('%Y-%m-%d')}, {machine()}\n")
    print(f"workbench defaults: {TopicModel().get_params()}\n")
    if args.only_labels:
        args.labels, args.stability_seeds = True, 0
    for name in [] if args.only_labels else args.corpora:
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
            seeds = list(range(1, args.candidate_seeds + 1)) if args.candidate_seeds > 1 else [42]
            where = f"mean over seeds 1-{seeds[-1]}" if len(seeds) > 1 else "seed 42"
            print(f"\nsettings tried on {name} (MiniLM, {where}; each row changes the defaults in one way):\n")
            print("| setting | NMI (a) | topics (a) | NMI (b) | ARI (b) |")
            print("|---|---:|---:|---:|---:|")
            rows = [(label, texts, X_minilm, params) for label, params in CANDIDATES]
            if corpus.has_titles:
                rows.append(("abstract only (no title)", corpus.texts("abstract"), embed_cached(corpus.texts("abstract"), "minilm"), {}))
            for label, row_texts, row_X, params in rows:
                print(f"| {label} | " + " | ".join(candidate_scores(row_X, truth, k, params, seeds)) + " |", flush=True)

    if args.labels:
        print("\n## Label words (MiniLM, default topics)\n")
        print("precision: share of the papers containing a label word that are in its topic; coverage: share of the "
              "topic's papers containing it (means over label words); shared: label words used by 2+ topics; "
              "frequent: label words made only of the corpus's 20 most common words; words: words per label.\n")
        print("| corpus | label words | precision | coverage | shared | frequent | words | first three labels |")
        print("|---|---|---:|---:|---:|---:|---:|---|")
        for name in args.corpora:
            corpus = load_corpus(name)
            label_words(corpus, embed_cached(corpus.texts("document"), "minilm"))

    if args.compare_merging:
        seeds = list(range(1, args.compare_merging + 1))
        print(f"\n## Merging HDBSCAN's topics, seeds 1-{seeds[-1]} (MiniLM)\n")
        print("NMI: mean ± standard deviation over the seeds; ARI: mean pairwise ARI between the seeds.\n")
        print("| corpus | merging | NMI (a) | topics (a) | ARI between seeds (a) | NMI (b) | ARI between seeds (b) |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for name in args.corpora:
            corpus = load_corpus(name)
            compare_merging(corpus, embed_cached(corpus.texts("document"), "minilm"), seeds)

    if args.stability_seeds > 1:
        from workbench.topics import mean_pairwise_ari, topic_stability

        seeds = list(range(1, args.stability_seeds + 1))
        print(f"\n## Over seeds {seeds} (MiniLM): quality and stability\n")
        print("NMI is the mean over the seeds (lowest-highest); ARI between seeds is the mean over all pairs of seeds.\n")
        print("| corpus | level | NMI | NMI range | mean pairwise ARI between seeds | topics per seed |")
        print("|---|---|---:|---|---:|---|")
        per_topic_line = ""
        for name in args.corpora:
            corpus = load_corpus(name)
            X = embed_cached(corpus.texts("document"), "minilm")
            level_a = [TopicModel(seed=s).cluster(X) for s in seeds]
            level_b = [TopicModel(seed=s, nr_topics=corpus.k).cluster(X) for s in seeds]
            for level, runs in (("(a) defaults", level_a), (f"(b) {corpus.k} topics", level_b)):
                nmis = [scores(l, corpus.labels)[0] for l in runs]
                counts = ", ".join(str(len(set(l.tolist()) - {-1})) for l in runs)
                print(f"| {name} | {level} | {np.mean(nmis):.3f} | {min(nmis):.3f}-{max(nmis):.3f} | {mean_pairwise_ari(runs):.3f} | {counts} |", flush=True)
            if name == "arxiv_lite":
                values = np.array(list(topic_stability(level_a[0], level_a[1:]).values()))
                per_topic_line = (f"per-topic stability of arxiv_lite seed {seeds[0]}'s default topics against the other seeds: "
                                  f"median {np.median(values):.2f}, min {values.min():.2f}, max {values.max():.2f}, "
                                  f"{(values >= 0.8).mean():.0%} of topics >= 0.8")
        if per_topic_line:
            print(f"\n{per_topic_line}")

if __name__ == "__main__":
    main()

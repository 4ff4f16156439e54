"""Screening: the workbench's ranked queue against ASReview LAB on the nine SYNERGY reviews.

    python benchmarks/screening.py [--models svm-tfidf svm-both ...] [--embedder minilm]
        [--seeds 5] [--small-seeds 10] [--phase all|asreview|ours|latency] [--fresh]

For every review (``../shared/data/corpora/synergy/synergy_v1_flat.csv``: all its records, in
file order) and seed S (1..5; 1..10 for reviews with fewer than 20 includes):

- ASReview LAB's default model, ELAS u4, runs as ``asreview simulate FILE --n-prior-included 1
  --n-prior-excluded 1 --prior-seed S --seed S`` in ``benchmarks/.venv-asreview`` (created on
  first use, see _asreview.py), and ``asreview metrics`` reads its project file;
- each workbench model replays the same records from the same include and exclude (drawn as
  ASReview draws them from the prior seed; checked against ASReview's project file).

Both are scored by the same functions (workbench.screening's, which follow asreview-insights;
the script checks they reproduce ``asreview metrics`` on every ASReview run). The report: a
table per model; per review WSS@95, recall@10 %, ATD and seconds for the default model and
ASReview with the paired difference (same seeds) and its 95 % t-interval; recall curves; the
stopping rules on the default model's runs; and the re-rank latency at 50,000 papers beside
ASReview's model update on the same records and labelled sets. Markdown goes to stdout,
figures to docs/images/, raw results to benchmarks/out/screening/.

This is the in-sample benchmark of issue 15 (models chosen and reported on the same nine
reviews). The default is chosen out of sample by benchmarks/screening_loo.py (leave one
review out over these nine and nine tasks made from the other labelled corpora).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _asreview
from _common import ROOT, machine
from _synergy import embeddings, load_reviews

OUT = ROOT / "benchmarks" / "out" / "screening"
IMAGES = ROOT / "docs" / "images"
KEYS = ("wss@95", "recall@10%", "atd")


def seeds_for(n_includes: int, seeds: int, small: int) -> list[int]:
    return list(range(1, (small if n_includes < 20 else seeds) + 1))


def interval(diffs) -> tuple[float, float, float]:
    """Mean and 95 % t-interval of paired differences."""
    from scipy import stats

    d = np.asarray(diffs, dtype=float)
    m = float(d.mean())
    if len(d) < 2:
        return m, float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d)))
    return m, m - half, m + half


# -- ASReview --------------------------------------------------------------------------------
def run_asreview(reviews, args, version) -> dict:
    from workbench.screening import atd, recall_at, wss

    data_dir, results = OUT / "data", {}
    data_dir.mkdir(parents=True, exist_ok=True)
    for name, df in reviews.items():
        csv = data_dir / f"{name}.csv"
        df[["title", "abstract", "label_included"]].to_csv(csv, index=False)
        for seed in seeds_for(int(df.label_included.sum()), args.seeds, args.small_seeds):
            r = _asreview.simulate(csv, seed, OUT / "asreview", version, fresh=args.fresh)
            # our metric functions on ASReview's order must give what asreview metrics gives
            labels = df.label_included.to_numpy()
            found = np.zeros(len(df) - 2, dtype=int)
            found[: len(r["order"]) - 2] = labels[r["order"][2:]]
            ours = {"wss@95": wss(found), "recall@10%": recall_at(found, 0.10), "atd": atd(found)}
            for k in KEYS:
                if abs(ours[k] - r["metrics"][k]) > 1e-9:
                    raise SystemExit(f"{name} seed {seed}: {k} is {ours[k]} here but {r['metrics'][k]} in asreview metrics")
            results[name, seed] = r
            print(f"  asreview {name} seed {seed}: wss {r['metrics']['wss@95']:.3f} {r['seconds']:.0f} s",
                  file=sys.stderr, flush=True)
    return results


# -- the workbench ---------------------------------------------------------------------------
def candidates() -> dict:
    """Variants screened against the models in ``MODELS`` on seeds 1-3 (benchmark only; the
    winner, ``svm-both-w0.1-0.3from10``, became ``svm-both``). Names say what differs from
    ``svm-both-w0.3`` (embeddings beside TF-IDF at weight 0.3, the former default): ``c-pcaK``
    the embeddings centred and cut to their first K principal components, ``wX`` weight X,
    ``untilK`` embeddings only until K includes, ``wX-YfromK`` weight X, then Y from K
    includes on; ``fuse-*`` combine two models' scores (``z``: the mean of standardised
    scores, ``rrf``: reciprocal-rank fusion)."""
    from workbench.screening import ModelSpec

    def both(name, **kw):
        return ModelSpec(name, "svm", "both", **kw)

    def fuse(name, parts, how="z"):
        feats = "both" if any("both" in p for p in parts) else "tfidf"
        return ModelSpec(name, "fuse", feats, components=tuple(parts), fusion=how)

    specs = [
        fuse("fuse-z-svm-nb", ["svm-tfidf", "nb-tfidf"]),
        fuse("fuse-rrf-svm-nb", ["svm-tfidf", "nb-tfidf"], "rrf"),
        fuse("fuse-z-tfidf-both", ["svm-tfidf", "svm-both-w0.3"]),
        both("svm-both-c-pca64", embedding_center=True, embedding_dims=64),
        both("svm-both-w0.1", embedding_weight=0.1),
        both("svm-both-w0.15", embedding_weight=0.15),
        both("svm-both-until5", embedding_steps=((5, 0.0),)),
        both("svm-both-w0.1-0.3from10", embedding_weight=0.1, embedding_steps=((10, 0.3),)),
        both("svm-both-w0.15-0.3from10", embedding_weight=0.15, embedding_steps=((10, 0.3),)),
    ]
    return {s.name: s for s in specs}


def model_spec(name: str):
    from workbench.screening import MODELS, get_model

    extra = candidates()
    return extra[name] if name in extra and name not in MODELS else get_model(name)


def run_ours(reviews, args, asr, models) -> dict:
    """Every model on every review and seed; each (model, review)'s runs are kept as JSON under
    benchmarks/out/screening/ours/, one row per seed, and reused while the model's version and
    the embedder match (so a screen on a few seeds is part of the full run later, and models
    can run in parallel processes and a report be assembled from them)."""
    from workbench.screening import Features, asreview_priors

    results, cache = {}, OUT / "ours"
    cache.mkdir(parents=True, exist_ok=True)
    for name, df in reviews.items():
        texts, labels = list(df.text), df.label_included.to_numpy()
        seeds = seeds_for(int(labels.sum()), args.seeds, args.small_seeds)
        for seed in seeds:
            prior = asreview_priors(labels, seed)
            if (name, seed) in asr and sorted(asr[name, seed]["priors"]) != sorted(prior):
                raise SystemExit(f"{name} seed {seed}: ASReview started from {asr[name, seed]['priors']}, we from {prior}")
        features = feature_s = None
        for model in models:
            explore = model.endswith("+explore")
            spec = model_spec(model.removesuffix("+explore"))
            key = f"{spec.version}|{'explore(5,4)' if explore else ''}|{args.embedder}"
            path = cache / f"{model}__{name}.json"
            kept = {}
            if path.exists() and not args.fresh_ours:
                old = json.loads(path.read_text())
                if old["key"] == key or old["key"].startswith(key + "|["):  # (older files: key|[seeds])
                    kept = {r["seed"]: r for r in old["runs"]}
            todo = [s for s in seeds if s not in kept]
            if todo:
                if features is None:
                    t = time.perf_counter()
                    features = Features.from_texts(texts, embeddings=embeddings(texts, args.embedder))
                    feature_s = time.perf_counter() - t  # TF-IDF; the embeddings come from the cache
                kept.update(replay(features, labels, todo, spec, explore, feature_s))
                path.write_text(json.dumps({"key": key, "runs": [kept[s] for s in sorted(kept)]}))
                print(f"  {model} {name} seeds {todo}: wss {np.mean([kept[s]['wss@95'] for s in todo]):.3f}",
                      file=sys.stderr, flush=True)
            results.update({(model, name, s): kept[s] for s in seeds})
    return results


def replay(features, labels, seeds, spec, explore: bool, feature_s: float) -> dict:
    from workbench.screening import simulate

    t = time.perf_counter()
    for part in spec.components or (spec,):  # the matrices a model reads, built once per review
        part = model_spec(part) if isinstance(part, str) else part
        features.matrix(part.features, part.embedding_weight, part.embedding_center, part.embedding_dims)
    build_s = feature_s + time.perf_counter() - t
    sim = simulate(features, labels, seeds=seeds, model=spec, explore_until=5 if explore else 0, explore_every=4)
    rows = {}
    for run in sim.runs:
        row = run.row()
        row["seconds"] = run.seconds + build_s  # like ASReview's, which builds its TF-IDF per run
        row["update_p95_ms"] = float(np.percentile(run.update_seconds, 95) * 1000)
        row["curve"] = run.labels[run.order].tolist()
        rows[run.seed] = row
    return rows


# -- report ----------------------------------------------------------------------------------
def model_table(reviews, ours, asr, models) -> tuple[str, dict]:
    lines = ["| model | mean WSS@95 | mean recall@10 % | mean ATD | reviews with paired WSS@95 interval wholly below -0.03 |",
             "|---|---:|---:|---:|---:|"]
    means = {}
    rows = [("ASReview ELAS u4", {n: [asr[n, s]["metrics"] for s in seeds] for n, seeds in _seeds(reviews, asr).items()})]
    for m in models:
        rows.append((m, {n: [ours[m, n, s] for s in seeds] for n, seeds in _seeds(reviews, asr).items()}))
    for label, per in rows:
        mean = {k: float(np.mean([np.mean([r[k] for r in per[n]]) for n in per])) for k in KEYS}
        means[label] = mean
        bad = ""
        if label != "ASReview ELAS u4":
            bad = sum(interval([per[n][i]["wss@95"] - asr[n, s]["metrics"]["wss@95"]
                                for i, s in enumerate(_seeds(reviews, asr)[n])])[2] < -0.03 for n in per)
        lines.append(f"| {label} | {mean['wss@95']:.3f} | {mean['recall@10%']:.3f} | {mean['atd']:.1f} | {bad} |")
    return "\n".join(lines), means


def paired_table(reviews, ours, asr, models) -> str:
    """Per model (rows) and review: paired differences to ASReview (same seeds), WSS@95 /
    recall@10 %, and their means; ``(!)`` marks a WSS@95 interval wholly below -0.03 (the
    per-review goal missed)."""
    seeds = _seeds(reviews, asr)
    lines = ["| model | " + " | ".join(reviews) + " | mean |", "|---|" + "---:|" * (len(reviews) + 1)]
    for m in models:
        cells, dws, drs = [], [], []
        for name in reviews:
            dw = interval([ours[m, name, s]["wss@95"] - asr[name, s]["metrics"]["wss@95"] for s in seeds[name]])
            dr = float(np.mean([ours[m, name, s]["recall@10%"] - asr[name, s]["metrics"]["recall@10%"] for s in seeds[name]]))
            dws.append(dw[0])
            drs.append(dr)
            cells.append(f"{dw[0]:+.3f}{' (!)' if dw[2] < -0.03 else ''} / {dr:+.3f}")
        lines.append(f"| {m} | " + " | ".join(cells) + f" | **{np.mean(dws):+.3f} / {np.mean(drs):+.3f}** |")
    return "\n".join(lines)


def _seeds(reviews, asr) -> dict:
    return {n: sorted(s for (m, s) in asr if m == n) for n in reviews}


def review_table(reviews, ours, asr, model) -> str:
    head = ("| review | records | includes | seeds | WSS@95 ours | WSS@95 ASReview | difference [95 % CI] "
            "| recall@10 % ours | ASReview | difference [95 % CI] | ATD ours | ASReview | s/sim ours | s/sim ASReview |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|"]
    allrows = {k: [] for k in ("wo", "wa", "ro", "ra", "ao", "aa", "so", "sa", "dw", "dr")}
    for name, df in reviews.items():
        seeds = _seeds(reviews, asr)[name]
        o = [ours[model, name, s] for s in seeds]
        a = [asr[name, s] for s in seeds]
        dw = interval([x["wss@95"] - y["metrics"]["wss@95"] for x, y in zip(o, a)])
        dr = interval([x["recall@10%"] - y["metrics"]["recall@10%"] for x, y in zip(o, a)])
        vals = {"wo": np.mean([x["wss@95"] for x in o]), "wa": np.mean([y["metrics"]["wss@95"] for y in a]),
                "ro": np.mean([x["recall@10%"] for x in o]), "ra": np.mean([y["metrics"]["recall@10%"] for y in a]),
                "ao": np.mean([x["atd"] for x in o]), "aa": np.mean([y["metrics"]["atd"] for y in a]),
                "so": np.mean([x["seconds"] for x in o]), "sa": np.mean([y["seconds"] for y in a]), "dw": dw[0], "dr": dr[0]}
        for k, v in vals.items():
            allrows[k].append(v)
        lines.append(f"| {name} | {len(df)} | {int(df.label_included.sum())} | {len(seeds)} | {vals['wo']:.3f} | {vals['wa']:.3f} "
                     f"| {dw[0]:+.3f} [{dw[1]:+.3f}, {dw[2]:+.3f}] | {vals['ro']:.3f} | {vals['ra']:.3f} "
                     f"| {dr[0]:+.3f} [{dr[1]:+.3f}, {dr[2]:+.3f}] | {vals['ao']:.1f} | {vals['aa']:.1f} | {vals['so']:.1f} | {vals['sa']:.1f} |")
    m = {k: float(np.mean(v)) for k, v in allrows.items()}
    dw, dr = interval(allrows["dw"]), interval(allrows["dr"])
    lines.append(f"| **mean of the nine** | | | | {m['wo']:.3f} | {m['wa']:.3f} | {dw[0]:+.3f} [{dw[1]:+.3f}, {dw[2]:+.3f}] "
                 f"| {m['ro']:.3f} | {m['ra']:.3f} | {dr[0]:+.3f} [{dr[1]:+.3f}, {dr[2]:+.3f}] | {m['ao']:.1f} | {m['aa']:.1f} "
                 f"| {m['so']:.1f} | {m['sa']:.1f} |")
    return "\n".join(lines)


def curves_figure(reviews, ours, asr, model, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 3, figsize=(12, 10), sharex=True, sharey=True)
    grid = np.linspace(0, 1, 201)
    for ax, (name, df) in zip(axes.ravel(), reviews.items()):
        labels = df.label_included.to_numpy()
        n, pos = len(labels) - 2, int(labels.sum()) - 1
        for label, color, seqs in (
            (f"workbench {model}", "C0", [ours[model, name, s]["curve"][2:] for s in _seeds(reviews, asr)[name]]),
            ("ASReview ELAS u4", "C1", [asr[name, s]["labels"][2:] for s in _seeds(reviews, asr)[name]]),
        ):
            ys = []
            for seq in seqs:
                found = np.zeros(n)
                found[: len(seq)] = seq
                ys.append(np.interp(grid, np.arange(1, n + 1) / n, np.cumsum(found) / pos))
            ax.plot(grid, np.mean(ys, axis=0), color=color, label=label)
        ax.plot(grid, grid, color="grey", lw=0.8, ls=":", label="random order")
        ax.set_title(f"{name} ({len(labels)}, {int(labels.sum())} incl.)", fontsize=9)
        ax.set_xlim(0, 1)
    for ax in axes[-1]:
        ax.set_xlabel("share of records screened")
    for ax in axes[:, 0]:
        ax.set_ylabel("recall (mean over seeds)")
    axes[0, 0].legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def stopping_section(reviews, ours, asr, model, path: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from workbench.screening import DEFAULT_RULES

    lines = ["| rule | runs | runs with recall >= 95 % at the stop | mean recall at the stop | mean work saved |",
             "|---|---:|---:|---:|---:|"]
    per_review = ["| review | " + " | ".join(DEFAULT_RULES) + " |", "|---|" + "---|" * len(DEFAULT_RULES)]
    points = {r: [] for r in DEFAULT_RULES}
    for name in reviews:
        cells = []
        for rule in DEFAULT_RULES:
            pts = [ours[model, name, s]["stopping"][rule] for s in _seeds(reviews, asr)[name]]
            points[rule] += pts
            ok = sum(p["recall"] >= 0.95 for p in pts)
            cells.append(f"{ok}/{len(pts)} ok, saved {np.mean([p['work_saved'] for p in pts]):.2f}")
        per_review.append(f"| {name} | " + " | ".join(cells) + " |")
    for rule, pts in points.items():
        ok = sum(p["recall"] >= 0.95 for p in pts)
        lines.append(f"| {rule} | {len(pts)} | {ok} ({ok / len(pts):.0%}) | {np.mean([p['recall'] for p in pts]):.3f} "
                     f"| {np.mean([p['work_saved'] for p in pts]):.3f} |")
    fig, ax = plt.subplots(figsize=(7, 5))
    for i, (rule, pts) in enumerate(points.items()):
        ax.scatter([p["work_saved"] for p in pts], [p["recall"] for p in pts], label=rule, alpha=0.6, s=18, color=f"C{i}")
    ax.axhline(0.95, color="grey", ls=":", lw=0.8)
    ax.set_xlabel("work saved (share of records never read)")
    ax.set_ylabel("recall at the stopping point")
    ax.legend(fontsize=8)
    ax.set_title(f"Stopping rules on the {model} runs (one point per review and seed)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return "\n".join(lines) + "\n\nper review (runs with recall >= 95 % at the stop; mean work saved):\n\n" + "\n".join(per_review)


# -- latency at 50,000 -----------------------------------------------------------------------
def latency(args, models) -> str:
    import pandas as pd
    from scale import make_corpus

    from workbench.screening import Features, Ranker

    csv = make_corpus(args.latency_size)
    df = pd.read_csv(csv).fillna("")
    from workbench.corpus.paper import Paper
    from workbench.review import document_text

    texts = [document_text(Paper(id="", title=t, abstract=a, text=a)) for t, a in zip(df.title, df.abstract)]
    # the cost of a re-rank depends on the embeddings' shape, not their values: MiniLM's
    # (n, 384) float32, drawn at random (embedding 50,000 texts with MiniLM takes ~40 min here)
    E = np.random.default_rng(0).normal(size=(len(texts), 384)).astype(np.float32)
    t = time.perf_counter()
    features = Features.from_texts(texts, embeddings=E)
    feat_s = time.perf_counter() - t
    # labelled sequences: L decided papers drawn at random, then the 40 decisions a reviewer
    # following the first model's queue would make; labels from a hidden "relevant" set
    # (papers whose text mentions one of a few words)
    rng = np.random.default_rng(0)
    hidden = np.array([("depress" in x.lower()) or ("anxiety" in x.lower()) for x in texts], dtype=np.int64)
    inc, exc = np.flatnonzero(hidden == 1), np.flatnonzero(hidden == 0)
    # (1,950: the last 40 refits before the default model leaves its embeddings out, at 2,000)
    plan, starts = {"labels": hidden}, (2, 500, 1950, 5000)
    for start in starts:
        first = [int(rng.choice(inc)), int(rng.choice(exc))]
        seq = first + [int(x) for x in rng.choice(np.setdiff1d(np.arange(len(texts)), first), start - 2, replace=False)]
        ranker = Ranker(models[0], seed=0)
        for _ in range(40):
            seq.append(int(ranker.fit(features, seq, hidden[seq]).next(1)[0]))
        plan[f"seq_{start}"] = np.asarray(seq)
    plan_file = OUT / "latency_plan.npz"
    np.savez(plan_file, **plan)
    # every model and ASReview time the same steps, taking turns (the order flips each round),
    # so a change in the machine's load falls on all of them
    timer, secs = _asreview.UpdateTimer(csv, plan_file), {}
    try:
        for r in range(args.latency_rounds):
            for start in starts:
                who = [*models, "asreview"]
                for m in who if r % 2 == 0 else who[::-1]:
                    key = f"seq_{start}"
                    got = timer.time(key) if m == "asreview" else _time_steps(features, m, plan[key], hidden, start)
                    secs.setdefault((m, start), []).extend(got)
    finally:
        timer.close()
    lines = [(f"{len(texts):,} papers; features once per review (kept between decisions): TF-IDF {feat_s:.1f} s"
              f" (the embeddings are the review's); ASReview's TF-IDF {timer.features_s:.1f} s. {args.latency_rounds}"
              " rounds of 40 decisions from each starting point, ours and ASReview's in turn."), "",
             "| decided before | " + " | ".join(f"{m} p50 ms | {m} p95 ms" for m in models) + " | ASReview ELAS u4 p50 ms | ASReview p95 ms |",
             "|---:|" + "---:|---:|" * len(models) + "---:|---:|"]
    for start in starts:
        cells = [f"{np.percentile(np.asarray(secs[m, start]) * 1000, 50):.0f} | {np.percentile(np.asarray(secs[m, start]) * 1000, 95):.0f}"
                 for m in [*models, "asreview"]]
        lines.append(f"| {start:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _time_steps(features, model, seq, hidden, start) -> list[float]:
    """Seconds of our refit plus next(10) after each decision of ``seq`` past ``start``."""
    from workbench.screening import Ranker

    ranker, secs = Ranker(model, seed=0), []
    for end in range(start, len(seq)):
        t0 = time.perf_counter()
        ranker.fit(features, seq[:end], hidden[seq[:end]]).next(10)
        secs.append(time.perf_counter() - t0)
    return secs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", default=["svm-tfidf", "svm-tfidf-pn", "svm-both", "svm-emb", "lr-tfidf",
                                                        "lr-both", "lr-emb", "nb-tfidf", "svm-both+explore"])
    parser.add_argument("--default", default=None, help="the model for the per-review and stopping tables "
                        "(default: the best mean WSS@95 + mean recall@10 %%)")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--small-seeds", type=int, default=10)
    parser.add_argument("--reviews", nargs="*", default=None)
    parser.add_argument("--phase", choices=["all", "asreview", "ours", "latency"], default="all")
    parser.add_argument("--latency-size", type=int, default=50_000)
    parser.add_argument("--latency-models", nargs="*", default=None, help="models to time (default: the default model)")
    parser.add_argument("--latency-rounds", type=int, default=2, help="rounds of timing, ours and ASReview's in turn")
    parser.add_argument("--screen", action="store_true", help="print the model tables only (no per-review report, "
                        "figures or latency): for screening candidates on a few reviews and seeds")
    parser.add_argument("--fresh", action="store_true", help="rerun ASReview even where its results are kept")
    parser.add_argument("--fresh-ours", action="store_true", help="rerun our models even where their results are kept")
    args = parser.parse_args()

    OUT.mkdir(parents=True, exist_ok=True)
    IMAGES.mkdir(parents=True, exist_ok=True)
    reviews = load_reviews()
    if args.reviews:
        reviews = {k: v for k, v in reviews.items() if k in args.reviews}
    version = _asreview.ensure_venv()
    print(f"# Screening benchmark, {time.strftime('%Y-%m-%d')}, {machine()}, ASReview {version}, embeddings {args.embedder}\n")
    if args.phase in ("all", "asreview", "ours"):
        asr = run_asreview(reviews, args, version)
    if args.phase == "asreview":
        return
    default = args.default
    if args.phase in ("all", "ours"):
        t = time.perf_counter()
        ours = run_ours(reviews, args, asr, args.models)
        (OUT / "ours.json").write_text(json.dumps({"|".join(map(str, k)): v for k, v in ours.items()}))
        table, means = model_table(reviews, ours, asr, args.models)
        # the default: the best sum of the two goal metrics, mean WSS@95 + mean recall@10 %
        default = args.default or max(args.models, key=lambda m: means[m]["wss@95"] + means[m]["recall@10%"])
        print(f"## Models (means over the reviews; {time.perf_counter() - t:.0f} s for all our runs)\n\n{table}\n")
        print("Paired differences to ASReview (ours minus ASReview, same seeds), WSS@95 / recall@10 %;"
              " (!): the WSS@95 interval lies wholly below -0.03\n")
        print(paired_table(reviews, ours, asr, args.models) + "\n")
        if args.screen:
            return
        print(f"## {default} against ASReview ELAS u4, per review (same records, same starting include and exclude per seed)\n")
        print(review_table(reviews, ours, asr, default) + "\n")
        curves_figure(reviews, ours, asr, default, IMAGES / "screening_recall.png")
        print("![recall curves](images/screening_recall.png)\n")
        print(f"## Stopping rules on the {default} runs\n")
        print(stopping_section(reviews, ours, asr, default, IMAGES / "screening_stopping.png") + "\n")
        print("![stopping rules](images/screening_stopping.png)\n")
    if args.phase in ("all", "latency"):
        from workbench.screening import DEFAULT_MODEL

        models = args.latency_models or [default or DEFAULT_MODEL]
        print("## Re-rank after one decision (fit + next(10)) beside ASReview's model update (fit + rank the pool)\n")
        print(latency(args, models) + "\n")


if __name__ == "__main__":
    main()

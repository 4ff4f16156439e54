"""Choosing the ranked queue's model out of sample: leave one review out.

    python benchmarks/screening_loo.py [--seeds 3] [--big-seeds 3] [--candidates NAME ...]
        [--phase asreview|ours|report|full] [--full-model NAME]

The reviews: the nine SYNERGY reviews (benchmarks/_synergy.py) and nine screening tasks made
from the other labelled corpora (benchmarks/_tasks.py: one arXiv field or one medical
condition relevant, 2-10 %). For every review, seed S (1..--seeds; 1..--big-seeds, which
can be smaller, on the SYNERGY reviews of more than 900 records, whose replays cost the most,
and on the made tasks) and candidate model, the
replay starts from ASReview's prior include and exclude for S, and ASReview LAB's ELAS u4 runs
on the same file and seed (benchmarks/_asreview.py), as in benchmarks/screening.py.

The protocol: for each review H in turn, the candidate with the best score on the OTHER
reviews is chosen, and H's figures are that candidate's on H, paired with ASReview's on the
same seeds. The score of a candidate on a set of reviews, fixed before any run:

    J = mean dW + mean dR - mean max(0, -0.03 - dW)

with dW, dR the candidate's paired differences to ASReview on a review (WSS@95, recall@10 %,
mean over seeds), the means over the SYNERGY reviews and over the made tasks taken apart and
averaged (each group weighs half). The last term is a hinge on the per-review goal (no
review's mean below ASReview's by more than 0.03). The report: per review the candidate chosen
without it and its out-of-sample difference with a 95 % t-interval over the seeds, the means
of the held-out figures, and the in-sample table of every candidate beside them.

Replays for the choice stop once both figures are settled (the include that makes 95 %
recall is found and 10 % of the records are screened): WSS@95 and recall@10 % are then exact,
ATD is not reported. ``--phase full`` replays the chosen default to the last include on every
review and seed for the stopping rules. Runs are kept under benchmarks/out/screening/loo/.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _asreview
from _common import machine
from _synergy import embeddings, load_reviews
from _tasks import load_tasks
from screening import OUT, interval, run_asreview

LOO = OUT / "loo"
GOAL_LOSS = -0.03
BIG = 900  # reviews of more records run fewer seeds (--big-seeds): their replays cost the most


# -- the candidates ---------------------------------------------------------------------------
def candidates() -> dict:
    """The models the protocol chooses from (names say what differs; all linear SVMs, ELAS u4's
    C and class weights): ``svm-tfidf`` ELAS u4's twin; ``svm-both`` the former default;
    ``curveW-K``: the embeddings beside TF-IDF at weight W * n / (n + K) with n includes (trust
    growing with the evidence); ``rrf-tfidf-both``: reciprocal-rank fusion of svm-tfidf and
    svm-both; ``safeN-M``: svm-both, and model M after N excludes in a row (a SAFE-like switch;
    ``rrf-emb``: the reciprocal-rank fusion of svm-tfidf and svm-emb, the embeddings alone, a
    view unlike svm-both's); ``titleW-both``:
    svm-both with the titles' own TF-IDF beside, at weight W (title words weighted apart).
    Listed in the order they run on each review."""
    from workbench.screening import MODELS, ModelSpec

    def both(name, **kw):
        return ModelSpec(name, "svm", "both", embedding_max_decided=2000, **kw)

    specs = [
        MODELS["svm-tfidf"],
        MODELS["svm-both"],
        ModelSpec("rrf-tfidf-both", "fuse", "both", components=("svm-tfidf", "svm-both"), fusion="rrf"),
        both("curve0.5-20", embedding_curve=(0.5, 20)),
        both("title0.5-both", embedding_weight=0.1, embedding_steps=((10, 0.3),), title_weight=0.5),
        both("safe50-rrf-emb", embedding_weight=0.1, embedding_steps=((10, 0.3),), switch_after=50,
             switch_to=ModelSpec("rrf-tfidf-emb", "fuse", "both", components=("svm-tfidf", "svm-emb"), fusion="rrf")),
        # the members' reciprocal ranks weighed by their record on the last 10 includes (Hedge,
        # rate 0.5 on log(1 + rank), 10 % shared): parameters fixed before any replay
        ModelSpec("hedge-3", "fuse", "both", components=("svm-tfidf", "svm-both", "svm-emb"), fusion="hedge"),
        ModelSpec("hedge-2", "fuse", "both", components=("svm-tfidf", "svm-emb"), fusion="hedge"),
        # relevance feedback on the embeddings (nearest include minus nearest exclude) as a member
        ModelSpec("rrf-knn", "fuse", "both", components=("svm-tfidf", "knn-emb"), fusion="rrf"),
        ModelSpec("hedge-knn", "fuse", "both", components=("svm-tfidf", "svm-both", "knn-emb"), fusion="hedge"),
    ]
    return {s.name: s for s in specs}


# -- the reviews ------------------------------------------------------------------------------
def load_all(only=None) -> tuple[dict, dict]:
    """({name: DataFrame}, {name: "synergy" | "made"})."""
    reviews, group = {}, {}
    for kind, loaded in (("synergy", load_reviews()), ("made", load_tasks())):
        for name, df in sorted(loaded.items(), key=lambda kv: len(kv[1])):  # the smallest first
            if only and name not in only:
                continue
            reviews[name], group[name] = df, kind
    return reviews, group


def settled_after(labels: np.ndarray) -> tuple[int, int]:
    """(includes, papers) after the priors that settle WSS@95 and recall@10 % (as
    workbench.screening's metrics compute them, which follow asreview-insights)."""
    n, n_pos = len(labels) - 2, int(labels.sum()) - 1
    k = int(np.searchsorted(np.arange(1, n_pos + 1) / n_pos, 0.95, side="right"))
    papers = int(np.searchsorted(np.arange(1, n + 1) / n, 0.10, side="right"))
    return max(k, 1), papers


def replay(features, labels, seed: int, spec, full: bool = False) -> dict:
    """One seed's replay, refitting after every paper as workbench.screening.simulate does,
    until the figures are settled (or the last include, with ``full``)."""
    from workbench.screening import Ranker, asreview_priors, atd, recall_at, stopping_points, wss

    inc, exc = asreview_priors(labels, seed)
    ranker, order, y = Ranker(spec, seed=seed), [inc, exc], [1, 0]
    need_inc, need_papers = settled_after(labels)
    left, found = int(labels.sum()) - 1, 0
    t0 = time.perf_counter()
    while left > 0 and (full or found < need_inc or len(order) - 2 < need_papers):
        nxt = int(ranker.fit(features, order, y).next(1)[0])
        order.append(nxt)
        y.append(int(labels[nxt]))
        left -= y[-1]
        found += y[-1]
    seq = np.zeros(len(labels) - 2, dtype=np.int64)
    seq[: len(order) - 2] = y[2:]
    if left:  # the includes not yet found, put last: the settled figures do not depend on where
        seq[len(seq) - left:] = 1
    row = {"seed": seed, "wss@95": wss(seq), "recall@10%": recall_at(seq, 0.10), "screened": len(order),
           "seconds": time.perf_counter() - t0}
    if full:
        row["atd"] = atd(seq)
        row["stopping"] = stopping_points(np.asarray(y), int(labels.sum()), len(labels), seed=seed)
    return row


def run_candidates(reviews, seeds_of, names, embedder, full=False) -> dict:
    """{(candidate, review, seed): row}; kept per candidate and review, reused while the
    model's version, the embedder and the replay's extent match."""
    from workbench.screening import Features, get_model

    specs = candidates()
    LOO.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, df in reviews.items():
        texts, labels, seeds = list(df.text), df.label_included.to_numpy(), seeds_of[name]
        data = hashlib.sha256(json.dumps([texts, labels.tolist()]).encode()).hexdigest()[:16]
        features = None
        for cand in names:
            spec = specs[cand]
            key = f"{spec.version}|{embedder}|{'full' if full else 'settled'}|{data}"
            path = LOO / f"{cand}__{name}{'__full' if full else ''}.json"
            kept = {}
            if path.exists():
                old = json.loads(path.read_text())
                if old["key"] == key:
                    kept = {r["seed"]: r for r in old["runs"]}
            todo = [s for s in seeds if s not in kept]
            if todo:
                words_only = all(get_model(c).features == "tfidf" for c in (spec.components or (spec,)))
                if features is None and words_only:  # (no embeddings needed yet)
                    features = Features.from_texts(texts, titles=list(df.title))
                if features is None or (features.embeddings is None and not words_only):
                    features = Features.from_texts(texts, embeddings=embeddings(texts, embedder), titles=list(df.title))
                for s in todo:
                    kept[s] = replay(features, labels, s, spec, full)
                    path.write_text(json.dumps({"key": key, "runs": [kept[k] for k in sorted(kept)]}))
                    print(f"  {cand} {name} seed {s}: wss {kept[s]['wss@95']:.3f} r10 {kept[s]['recall@10%']:.3f}"
                          f" {kept[s]['seconds']:.0f} s", file=sys.stderr, flush=True)
            out.update({(cand, name, s): kept[s] for s in seeds})
    return out


# -- the choice -------------------------------------------------------------------------------
def paired(ours, asr, cand, name, seeds_of) -> tuple[list, list]:
    seeds = seeds_of[name]
    return ([ours[cand, name, s]["wss@95"] - asr[name, s]["metrics"]["wss@95"] for s in seeds],
            [ours[cand, name, s]["recall@10%"] - asr[name, s]["metrics"]["recall@10%"] for s in seeds])


def score(diffs: dict, names, group) -> float:
    """J on the reviews ``names`` (see the module docstring); ``diffs[name] = (dW, dR)``."""
    parts = []
    for kind in ("synergy", "made"):
        ns = [n for n in names if group[n] == kind]
        if ns:
            dw = np.array([diffs[n][0] for n in ns])
            dr = np.array([diffs[n][1] for n in ns])
            parts.append(dw.mean() + dr.mean() - np.maximum(0.0, GOAL_LOSS - dw).mean())
    return float(np.mean(parts))


def leave_one_out(reviews, group, ours, asr, seeds_of, names, choose_on=("synergy", "made")) -> dict:
    """{held-out review: chosen candidate} and the in-sample J of each candidate; the choice
    reads the other reviews of the groups in ``choose_on``."""
    diffs = {c: {n: tuple(float(np.mean(d)) for d in paired(ours, asr, c, n, seeds_of)) for n in reviews} for c in names}
    chosen = {}
    for held in reviews:
        rest = [n for n in reviews if n != held and group[n] in choose_on]
        chosen[held] = max(names, key=lambda c: (score(diffs[c], rest, group), -names.index(c)))
    overall = {c: score(diffs[c], list(reviews), group) for c in names}
    return {"chosen": chosen, "in_sample": overall, "diffs": diffs}


def loo_table(reviews, group, ours, asr, seeds_of, loo, ref="ASReview") -> str:
    head = (f"| review | records | includes | chosen without it | WSS@95 | {ref} | difference [95 % CI] "
            f"| recall@10 % | {ref} | difference [95 % CI] | per seed: WSS@95 difference |")
    lines = [head, "|---|---:|---:|---|---:|---:|---|---:|---:|---|---|"]
    agg = {k: {"synergy": [], "made": []} for k in ("wo", "wa", "ro", "ra", "dw", "dr")}
    for kind, label in (("synergy", "SYNERGY"), ("made", "made tasks")):
        for name in [n for n in reviews if group[n] == kind]:
            c, seeds = loo["chosen"][name], seeds_of[name]
            dw, dr = paired(ours, asr, c, name, seeds_of)
            iw, ir = interval(dw), interval(dr)
            vals = {"wo": np.mean([ours[c, name, s]["wss@95"] for s in seeds]),
                    "wa": np.mean([asr[name, s]["metrics"]["wss@95"] for s in seeds]),
                    "ro": np.mean([ours[c, name, s]["recall@10%"] for s in seeds]),
                    "ra": np.mean([asr[name, s]["metrics"]["recall@10%"] for s in seeds]), "dw": iw[0], "dr": ir[0]}
            for k, v in vals.items():
                agg[k][kind].append(v)
            df = reviews[name]
            flag = " (!)" if iw[0] < GOAL_LOSS else ""
            lines.append(f"| {name} | {len(df)} | {int(df.label_included.sum())} | {c} | {vals['wo']:.3f} | {vals['wa']:.3f} "
                         f"| {iw[0]:+.3f}{flag} [{iw[1]:+.3f}, {iw[2]:+.3f}] | {vals['ro']:.3f} | {vals['ra']:.3f} "
                         f"| {ir[0]:+.3f} [{ir[1]:+.3f}, {ir[2]:+.3f}] | {' '.join(f'{d:+.3f}' for d in dw)} |")
        m = {k: v[kind] for k, v in agg.items()}
        if not m["dw"]:
            continue
        iw, ir = interval(m["dw"]), interval(m["dr"])
        lines.append(f"| **mean, {label} ({len(m['dw'])})** | | | | {np.mean(m['wo']):.3f} | {np.mean(m['wa']):.3f} "
                     f"| **{iw[0]:+.3f}** [{iw[1]:+.3f}, {iw[2]:+.3f}] | {np.mean(m['ro']):.3f} | {np.mean(m['ra']):.3f} "
                     f"| **{ir[0]:+.3f}** [{ir[1]:+.3f}, {ir[2]:+.3f}] | reviews below -0.03: "
                     f"{sum(d < GOAL_LOSS for d in m['dw'])} |")
    return "\n".join(lines)


def candidates_table(reviews, group, names, loo) -> str:
    """In sample, for reference: every candidate's mean paired differences per group, J on all
    reviews, and its worst review."""
    lines = ["| candidate | SYNERGY dWSS@95 | SYNERGY drecall@10 % | made dWSS@95 | made drecall@10 % "
             "| worst review dWSS@95 | reviews below -0.03 | J (all) | chosen for |",
             "|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for c in names:
        d = loo["diffs"][c]
        cells = []
        for kind in ("synergy", "made"):
            ns = [n for n in reviews if group[n] == kind]
            cells += [f"{np.mean([d[n][0] for n in ns]):+.3f}" if ns else "", f"{np.mean([d[n][1] for n in ns]):+.3f}" if ns else ""]
        worst = min(reviews, key=lambda n: d[n][0])
        below = sum(d[n][0] < GOAL_LOSS for n in reviews)
        picked = sum(v == c for v in loo["chosen"].values())
        lines.append(f"| {c} | " + " | ".join(cells) + f" | {worst} {d[worst][0]:+.3f} | {below} | {loo['in_sample'][c]:+.3f} | {picked} |")
    return "\n".join(lines)


def per_review_table(reviews, ours, asr, seeds_of, names) -> str:
    lines = ["| review | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for n in reviews:
        cells = []
        for c in names:
            dw, dr = paired(ours, asr, c, n, seeds_of)
            cells.append(f"{np.mean(dw):+.3f} / {np.mean(dr):+.3f}")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def stopping_table(reviews, runs, seeds_of, model) -> str:
    from workbench.screening import DEFAULT_RULES

    lines = ["| rule | runs | runs with recall >= 95 % at the stop | mean recall at the stop | mean work saved |",
             "|---|---:|---:|---:|---:|"]
    for rule in DEFAULT_RULES:
        pts = [runs[model, n, s]["stopping"][rule] for n in reviews for s in seeds_of[n]]
        ok = sum(p["recall"] >= 0.95 for p in pts)
        lines.append(f"| {rule} | {len(pts)} | {ok} ({ok / len(pts):.0%}) | {np.mean([p['recall'] for p in pts]):.3f} "
                     f"| {np.mean([p['work_saved'] for p in pts]):.3f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--big-seeds", type=int, default=3,
                        help=f"seeds on the SYNERGY reviews of more than {BIG} records and on the made tasks")
    parser.add_argument("--candidates", nargs="+", default=None, help="default: all of candidates()")
    parser.add_argument("--reviews", nargs="*", default=None)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--phase", choices=["asreview", "ours", "report", "full"], default="report")
    parser.add_argument("--full-model", default=None, help="--phase full: the model replayed to the last include")
    parser.add_argument("--against", default=None,
                        help="pair with this candidate's replays (svm-tfidf: ELAS u4's twin) instead of running ASReview")
    args = parser.parse_args()
    names = args.candidates or list(candidates())
    reviews, group = load_all(args.reviews)
    seeds_of = {n: list(range(1, (args.seeds if len(df) <= BIG and group[n] == "synergy" else
                                  min(args.seeds, args.big_seeds)) + 1)) for n, df in reviews.items()}
    if args.phase == "ours":  # our replays only (ASReview's may run meanwhile in another process)
        run_candidates(reviews, seeds_of, names, args.embedder)
        return
    if args.phase == "full":
        runs = run_candidates(reviews, seeds_of, [args.full_model], args.embedder, full=True)
        for kind, label in (("synergy", "the SYNERGY reviews"), ("made", "the made tasks"), (None, "all reviews")):
            some = {n: df for n, df in reviews.items() if kind is None or group[n] == kind}
            if some:
                print(f"## Stopping rules on {args.full_model}, {label} ({len(some)}), replayed to the last include\n")
                print(stopping_table(some, runs, seeds_of, args.full_model) + "\n")
        return
    if args.against and args.phase == "asreview":
        raise SystemExit("--phase asreview runs ASReview alone; leave out --against")
    ref_name = "ASReview"
    if args.against:  # the reference is one of ours (its runs in the shape ASReview's are read in)
        names = names if args.against in names else [args.against, *names]
        ref = run_candidates(reviews, seeds_of, [args.against], args.embedder)
        asr = {(n, s): {"metrics": ref[args.against, n, s]} for n in reviews for s in seeds_of[n]}
        version, ref_name = f"not run (paired with {args.against})", args.against
    else:
        version = _asreview.ensure_venv()
        asr = {}
        for name, df in reviews.items():
            k = len(seeds_of[name])
            asr.update(run_asreview({name: df}, argparse.Namespace(seeds=k, small_seeds=k, fresh=False), version))
    if args.phase == "asreview":
        return
    ours = run_candidates(reviews, seeds_of, names, args.embedder)
    loo = leave_one_out(reviews, group, ours, asr, seeds_of, names)
    print(f"# Leave one review out, {time.strftime('%Y-%m-%d')}, {machine()}, ASReview {version}, "
          f"embeddings {args.embedder}, seeds 1-{args.seeds} (1-{args.big_seeds} over {BIG} records)\n")
    print("## Out of sample: each review's figures from the candidate chosen without it\n")
    print(loo_table(reviews, group, ours, asr, seeds_of, loo, ref_name) + "\n")
    print(f"## In sample, every candidate (paired differences to {ref_name}, mean over reviews)\n")
    print(candidates_table(reviews, group, names, loo) + "\n")
    alone = leave_one_out(reviews, group, ours, asr, seeds_of, names, choose_on=("synergy",))
    print("## The same, chosen on the other SYNERGY reviews alone (the made tasks left out of the choice)\n")
    print(loo_table({n: df for n, df in reviews.items() if group[n] == "synergy"}, group, ours, asr, seeds_of, alone, ref_name) + "\n")
    print(f"## Per review, every candidate: WSS@95 / recall@10 % difference to {ref_name}\n")
    print(per_review_table(reviews, ours, asr, seeds_of, names) + "\n")
    (LOO / "report.json").write_text(json.dumps({"chosen": loo["chosen"], "in_sample": loo["in_sample"]}))

if __name__ == "__main__":
    main()

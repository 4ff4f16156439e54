"""Replay a labelled review through the ranker: how early would the includes have been found?

For each seed, screening starts from one include and one exclude drawn exactly as
``asreview simulate --n-prior-included 1 --n-prior-excluded 1 --prior-seed SEED`` draws them
(``numpy.random.RandomState(SEED).choice`` over the includes, then a fresh one over the
excludes, in file order), so a run here and ASReview's run with the same seed start alike.
Then, one paper at a time, the ranker is refitted on every decision so far and the best-ranked
undecided paper is "read" (its label revealed), until the last include is found; the papers
after it are all excludes, whatever their order.

:meth:`Simulation.to_json` is the shape of ``workbench simulate --format json``: the means over
the seeds under ``wss@95``, ``recall@5%``, ``recall@10%``, ``recall@25%``, ``atd``, the
per-seed rows under ``runs`` (each with where every stopping rule would have stopped, and the
recall then); :meth:`Simulation.table` is ``--format table``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ._metrics import atd, recall_at, wss
from ._ranker import Ranker, as_features
from ._stopping import _k_target, _p, min_ranked_p

__all__ = ["BASELINE_MODEL", "DEFAULT_RULES", "Run", "Simulation", "asreview_priors", "simulate", "stopping_points"]

RECALLS = (0.05, 0.10, 0.25)
DEFAULT_RULES = ("hypergeometric", "sample-after-50", "50-in-a-row", "100-in-a-row", "200-in-a-row")


def asreview_priors(labels: np.ndarray, seed: int) -> tuple[int, int]:
    """The (include, exclude) rows ``asreview simulate --prior-seed seed`` starts from."""
    labels = np.asarray(labels)
    inc, exc = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    if len(inc) == 0 or len(exc) == 0:
        raise InputError(f"a simulation needs at least one include and one exclude; got {len(inc)} and {len(exc)}")
    return (int(np.random.RandomState(seed).choice(inc, 1, replace=False)[0]),
            int(np.random.RandomState(seed).choice(exc, 1, replace=False)[0]))


@dataclass
class Run:
    seed: int
    prior_include: int
    prior_exclude: int
    order: np.ndarray  # rows in screening order, the two priors first, up to the last include
    labels: np.ndarray = field(repr=False)  # every paper's 0/1 label
    seconds: float = 0.0
    update_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    @property
    def found(self) -> np.ndarray:
        """Labels after the priors, padded with 0 to every paper (the metrics' input)."""
        out = np.zeros(len(self.labels) - 2, dtype=np.int64)
        out[: len(self.order) - 2] = self.labels[self.order[2:]]
        return out

    def metrics(self) -> dict:
        f = self.found
        out = {"wss@95": wss(f, 0.95)}
        out.update({f"recall@{round(r * 100)}%": recall_at(f, r) for r in RECALLS})
        out["atd"] = atd(f)
        return out

    def stopping(self, rules=DEFAULT_RULES) -> dict:
        return stopping_points(self.labels[self.order], int(self.labels.sum()), len(self.labels), rules, self.seed)

    def row(self, rules=DEFAULT_RULES) -> dict:
        return {"seed": self.seed, "prior_include": self.prior_include, "prior_exclude": self.prior_exclude,
                **{k: round(v, 4) for k, v in self.metrics().items()}, "seconds": round(self.seconds, 3),
                "stopping": self.stopping(rules) if rules else {}}


def _parse_rule(rule: str):
    if rule == "hypergeometric":
        return ("hyper", None)
    if rule.startswith("sample-after-"):
        return ("sample", int(rule.rsplit("-", 1)[1]))
    if rule.endswith("-in-a-row"):
        return ("row", int(rule.split("-", 1)[0]))
    raise InputError(f"unknown stopping rule {rule!r}; use 'hypergeometric', 'sample-after-N' or 'N-in-a-row'")


def stopping_points(screened_labels, n_includes: int, n_total: int, rules=DEFAULT_RULES, seed: int = 0,
                    target: float = 0.95, confidence: float = 0.95) -> dict:
    """Where each rule stops a screening that read ``screened_labels`` in order (then only
    excludes): ``{rule: {"screened", "recall", "work_saved"}}``. Everything is read by a
    person here. ``sample-after-N``: after N excludes in a row, switch to a random sample of the
    unread papers and stop when the hypergeometric test says so."""
    seq = np.zeros(n_total, dtype=np.int64)
    seq[: len(screened_labels)] = screened_labels
    out = {}
    for rule in rules:
        kind, n = _parse_rule(rule)
        if kind == "row":
            at = _first_streak(seq, n)
            stop = n_total if at is None else at
            recall = seq[:stop].sum() / n_includes
        elif kind == "hyper":
            stop = _first_hypergeometric(seq, n_total, target, confidence)
            recall = seq[:stop].sum() / n_includes
        else:
            stop, found = _sample_after(seq, n_total, n, np.random.default_rng(seed), target, confidence)
            recall = found / n_includes
        out[rule] = {"screened": int(stop), "recall": round(float(recall), 4), "work_saved": round(1 - stop / n_total, 4)}
    return out


def _first_streak(seq: np.ndarray, n: int) -> int | None:
    streak = 0
    for i, y in enumerate(seq):
        streak = 0 if y else streak + 1
        if streak >= n:
            return i + 1
    return None


def _first_hypergeometric(seq: np.ndarray, n_total: int, target: float, confidence: float) -> int:
    alpha = 1 - confidence
    for t in range(1, n_total + 1):
        if seq[t - 1] == 0 and min_ranked_p(seq[:t], n_total - t, target) < alpha:
            return t
    return n_total


def _sample_after(seq, n_total, n, rng, target, confidence) -> tuple[int, int]:
    start = _first_streak(seq, n)
    if start is None:
        return n_total, int(seq.sum())
    rest = rng.permutation(seq[start:])
    r_before, urn = int(seq[:start].sum()), n_total - start
    k = np.cumsum(rest)
    m = np.arange(1, len(rest) + 1)
    ps = _p(k, urn, _k_target(r_before + k, r_before, target), m)
    hit = np.flatnonzero(ps < 1 - confidence)
    drawn = int(hit[0]) + 1 if len(hit) else len(rest)
    return start + drawn, r_before + int(rest[:drawn].sum())


BASELINE_MODEL = "svm-tfidf"  # ASReview LAB's default, ELAS u4, as the workbench fits it
KEYS = ("wss@95", "recall@5%", "recall@10%", "recall@25%", "atd")


@dataclass
class Simulation:
    """The runs of one model, one per seed; ``baseline``: the same seeds and starting papers
    replayed with ``svm-tfidf`` (ELAS u4's twin) in the same call, to read the model against."""

    model: str
    version: str
    labels: np.ndarray = field(repr=False)
    runs: list[Run]
    baseline: Simulation | None = None

    def summary(self) -> dict:
        rows = [r.metrics() for r in self.runs]
        return {k: float(np.mean([row[k] for row in rows])) for k in rows[0]}

    def differences(self) -> dict:
        """Per figure, the mean over seeds of this model's minus the baseline's on the same
        seed, and a 95 % t-interval (None with one seed); {} without a baseline."""
        if self.baseline is None:
            return {}
        from scipy import stats

        ours = {r.seed: r.metrics() for r in self.runs}
        base = {r.seed: r.metrics() for r in self.baseline.runs}
        out = {}
        for k in KEYS:
            d = np.asarray([ours[s][k] - base[s][k] for s in ours])
            half = float(stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else None
            out[k] = {"mean": round(float(d.mean()), 4),
                      "interval": None if half is None else [round(float(d.mean()) - half, 4), round(float(d.mean()) + half, 4)]}
        return out

    def to_json(self, rules=DEFAULT_RULES) -> dict:
        """``workbench simulate --format json``."""
        out = {"model": self.model, "version": self.version, "records": len(self.labels),
               "includes": int(self.labels.sum()), "seeds": [r.seed for r in self.runs],
               **{k: round(v, 4) for k, v in self.summary().items()},
               "seconds": round(float(np.mean([r.seconds for r in self.runs])), 3),
               "runs": [r.row(rules) for r in self.runs]}
        if self.baseline is not None:
            base = self.baseline
            out["baseline"] = {"model": base.model, "version": base.version,
                               **{k: round(v, 4) for k, v in base.summary().items()},
                               "runs": [{"seed": r.seed, **{k: round(v, 4) for k, v in r.metrics().items()}} for r in base.runs]}
            out["difference"] = self.differences()
        return out

    def table(self, rules=DEFAULT_RULES) -> str:
        """``workbench simulate --format table``: a row per seed and the mean, then (with a
        baseline) the same for ``svm-tfidf`` and the paired difference."""
        data = self.to_json(rules)
        keys = list(KEYS)
        lines = [f"{self.model}: {data['records']} records, {data['includes']} includes, {len(self.runs)} seeds", "",
                 "seed  " + "  ".join(f"{k:>10}" for k in keys) + "   seconds"]
        for row in data["runs"]:
            lines.append(f"{row['seed']:<5} " + "  ".join(f"{row[k]:>10.3f}" for k in keys) + f"  {row['seconds']:>8.1f}")
        lines.append("mean  " + "  ".join(f"{data[k]:>10.3f}" for k in keys) + f"  {data['seconds']:>8.1f}")
        if self.baseline is not None:
            base = data["baseline"]
            lines += ["", f"beside it, {base['model']} (TF-IDF alone: the twin of ASReview LAB's default, ELAS u4), "
                      "same seeds and starting papers:"]
            for row in base["runs"]:
                lines.append(f"{row['seed']:<5} " + "  ".join(f"{row[k]:>10.3f}" for k in keys))
            lines.append("mean  " + "  ".join(f"{base[k]:>10.3f}" for k in keys))
            diff = data["difference"]
            lines.append("diff  " + "  ".join(f"{diff[k]['mean']:>+10.3f}" for k in keys)
                         + f"   ({self.model} minus {base['model']}, mean over seeds; ATD: lower is better)")
            if len(self.runs) > 1:
                lines.append("      95 % t-interval of the difference over the seeds: " + ", ".join(
                    "{} [{:+.3f}, {:+.3f}]".format(k, *diff[k]["interval"]) for k in ("wss@95", "recall@10%")))
        if rules:
            lines += ["", "stopping rule            screened (mean)  recall (mean)  runs with recall >= 95 %"]
            for rule in rules:
                pts = [row["stopping"][rule] for row in data["runs"]]
                ok = sum(p["recall"] >= 0.95 for p in pts)
                lines.append(f"{rule:<24} {np.mean([p['screened'] for p in pts]):>15.0f}  "
                             f"{np.mean([p['recall'] for p in pts]):>13.3f}  {ok}/{len(pts)}")
        return "\n".join(lines)


def simulate(data, labels, seeds=(1, 2, 3, 4, 5), model: str | None = None, explore_until: int = 0,
             explore_every: int = 4, priors: dict | None = None, baseline: bool = False) -> Simulation:
    """Replay ``labels`` (0/1 per paper) with ranked screening, once per seed.

    ``data``: the papers' texts, a :class:`Features` (texts with the review's cached embeddings
    beside them: ``Features.from_texts(texts, embeddings=X)``), or an (n, d) embedding array;
    ``model``: a name from
    ``MODELS`` (default: the measured best for the features given); ``priors``: ``{seed:
    (include_row, exclude_row)}`` to override the ASReview-compatible draw; ``baseline``: also
    replay the same seeds with ``svm-tfidf`` (ELAS u4's twin; needs texts), kept as
    ``Simulation.baseline`` (not when the model is ``svm-tfidf`` itself).
    """
    labels = np.asarray(labels).astype(np.int64).reshape(-1)
    features = as_features(data)
    if len(features) != len(labels):
        raise InputError(f"{len(features)} papers but {len(labels)} labels; give one 0/1 label per paper")
    if not np.isin(labels, (0, 1)).all():
        raise InputError("labels must be 0 (exclude) or 1 (include)")
    runs = []
    version = ""
    for seed in seeds:
        inc, exc = (priors or {}).get(seed) or asreview_priors(labels, seed)
        if labels[inc] != 1 or labels[exc] != 0:
            raise InputError(f"seed {seed}: prior include row {inc} must be labelled 1 and exclude row {exc} 0")
        ranker = Ranker(model, seed=seed, explore_until=explore_until, explore_every=explore_every)
        t0 = time.perf_counter()
        order, y = [inc, exc], [1, 0]
        left = int(labels.sum()) - 1
        updates = []
        while left > 0:
            t = time.perf_counter()
            nxt = int(ranker.fit(features, order, y).next(1)[0])
            updates.append(time.perf_counter() - t)
            order.append(nxt)
            y.append(int(labels[nxt]))
            left -= y[-1]
        version = ranker.version.rsplit(";seed=", 1)[0]
        runs.append(Run(seed, inc, exc, np.asarray(order), labels, time.perf_counter() - t0, np.asarray(updates)))
    base = None
    if baseline and ranker.name != BASELINE_MODEL:
        if features.tfidf is None:
            raise InputError(f"the {BASELINE_MODEL} baseline ranks on words: pass the papers' texts, not only embeddings")
        base = simulate(features, labels, seeds, BASELINE_MODEL, explore_until=explore_until,
                        explore_every=explore_every, priors=priors)
    return Simulation(model=ranker.name, version=version, labels=labels, runs=runs, baseline=base)

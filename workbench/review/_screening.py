"""Ranked screening of a review: the queue, the records of decisions, and when to stop.

The glue between :mod:`workbench.screening` (the engine: features, ranker and stopping rules,
which knows nothing of stores or reviews) and :mod:`workbench.store` (which keeps what a person
decided, and how):

- :func:`rank`: the store's decisions -> labels (include 1, exclude 0; a maybe is left out of
  the fit and out of the queue) -> a :class:`~workbench.screening.Ranker` -> a :class:`Ranking`,
  the next papers with their rank, score and why. The TF-IDF is built once per Review and kept
  (:class:`ScreeningCache`), the embeddings are the review's own (from memory or its cache,
  never embedded again), and the ranker is refitted only when the decisions changed. Same
  decisions, model and seed: the same ranking.
- :func:`decide`: a person's decision, recorded with the paper's rank and score and the model
  as the ranking showed them (:meth:`Ranking.context`). The ranker never decides anything.
- :func:`training_records`: what a reviewer's queue learns from (``workbench.team.blind``):
  final decisions for everyone; in blind mode only the reviewer's own decisions (another's
  would leak through the order), else also the latest by anyone.
- :func:`history`, :func:`stopping` (``_stopping``): the decisions in the order made, the
  estimate of relevant papers left and the stopping advice, which count only papers a person read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from .. import team
from ..errors import InputError
from ..corpus.paper import TITLE_ABSTRACT
from ..screening import MODELS, Features, Ranker, get_model, title_block
from ..store import ScreeningRecord, UnknownPaperError
from ._tfidf_cache import load_or_build

__all__ = ["RELEVANT", "SCREENING_MODELS", "Decided", "RankedPaper", "Ranking", "ScreeningCache", "decide",
           "final_decisions", "rank", "ranker", "training_records"]

#: The ranking models by name (``Review.rank(model=...)``; details in workbench.screening.MODELS).
SCREENING_MODELS = tuple(MODELS)

#: What a decision says for the stopping rules: a maybe may be relevant, so it counts as 1.
RELEVANT = {"include": 1, "maybe": 1, "exclude": 0}


@dataclass(frozen=True)
class RankedPaper:
    """A paper in the queue. ``rank``: its place in the model's ranking of the undecided
    papers (1 = most likely relevant; None before a model); ``score``: the model's score
    (higher = more likely relevant); ``why``: the words that pushed it up, or the most similar
    included papers, or how the queue was ordered before a model."""

    id: str
    title: str
    rank: int | None
    score: float | None
    why: str


@dataclass(eq=False)
class Ranking:
    """The next papers to screen, and what a decision on any paper should record.

    ``mode``: ``"ranked"`` (a model ranked them), ``"cold"`` (no model before one include and
    one exclude: a seeded random order, or one paper per topic) or ``"sample"`` (drawn at random
    from the papers no person has read, for the stopping test; read every one of them).
    ``counts``: papers, decided, included, excluded, maybe, undecided, read, bulk.
    """

    papers: list[RankedPaper]
    mode: str
    model: str | None
    model_version: str | None
    counts: dict
    seed: int
    row_of: Callable[[str], int] = field(repr=False)
    queue: np.ndarray = field(repr=False)  # per row: in the ranked queue (undecided, not a maybe)
    scores: np.ndarray | None = field(repr=False)
    explain: Callable[[int], str] | None = field(default=None, repr=False)  # row -> why

    def __len__(self) -> int:
        return len(self.papers)

    def __iter__(self):
        return iter(self.papers)

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.papers]

    def context(self, paper_id: str) -> dict:
        """What ``store.decisions.decide`` records for a decision on ``paper_id`` made
        from this ranking: ``rank``, ``score``, ``model``, ``model_version``, ``sampled``."""
        row = self.row_of(paper_id)
        sampled = self.mode == "sample" and paper_id in self.ids
        if self.scores is None:
            return {"rank": None, "score": None, "model": None, "model_version": None, "sampled": sampled}
        return {"rank": self.rank_of(row), "score": float(self.scores[row]), "model": self.model,
                "model_version": self.model_version, "sampled": sampled}

    def why(self, paper_id: str) -> str:
        """Why the queue puts ``paper_id`` where it is: the words that pushed it up, the most
        similar included papers, or how papers are ordered before a model."""
        return self.explain(self.row_of(paper_id)) if self.explain is not None else ""

    def rank_of(self, row: int) -> int | None:
        """A paper's place in the model's ranking of the queue (ties by row, as the ranker breaks
        them): one plus the papers ahead of it; None for a paper not in the queue or no model."""
        if self.scores is None or not self.queue[row]:
            return None
        others = self.scores[self.queue]
        rows = np.flatnonzero(self.queue)
        return 1 + int((others > self.scores[row]).sum() + ((others == self.scores[row]) & (rows < row)).sum())

    def frame(self):
        """One row per paper: rank, id, score, title, why."""
        import pandas as pd

        return pd.DataFrame([{"rank": p.rank, "id": p.id, "score": p.score, "title": p.title, "why": p.why}
                             for p in self.papers], columns=["rank", "id", "score", "title", "why"])


@dataclass(frozen=True)
class Decided:
    """The store's current decisions on this review's papers, in the order made, as rows."""

    rows: np.ndarray  # every decided row, in order
    decisions: list[str]
    bulk: np.ndarray
    sampled: np.ndarray
    records: list  # the store's ScreeningRecord of each
    elsewhere: int  # decisions on papers no longer in the review (left out)

    @classmethod
    def of(cls, review, records) -> Decided:
        kept = [r for r in records if r.paper_id in review]
        return cls(np.asarray([review.row(r.paper_id) for r in kept], dtype=np.int64), [r.decision for r in kept],
                   np.asarray([r.bulk for r in kept], dtype=bool), np.asarray([r.sampled for r in kept], dtype=bool),
                   kept, len(records) - len(kept))

    def fitted(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, 0/1 labels) of the includes and excludes: what the ranker is fitted on."""
        keep = np.asarray([d != "maybe" for d in self.decisions], dtype=bool)
        labels = np.asarray([d == "include" for d in self.decisions], dtype=np.int64)
        return self.rows[keep], labels[keep]

    @property
    def maybe(self) -> np.ndarray:
        return self.rows[np.asarray([d == "maybe" for d in self.decisions], dtype=bool)]

    def counts(self, n_papers: int) -> dict:
        read = ~self.bulk
        return {"papers": n_papers, "decided": len(self.rows), "included": self.decisions.count("include"),
                "excluded": self.decisions.count("exclude"), "maybe": self.decisions.count("maybe"),
                "undecided": n_papers - len(self.rows), "read": int(read.sum()), "bulk": int(self.bulk.sum())}


class ScreeningCache:
    """What a Review keeps between re-ranks: its TF-IDF (built once), the features with its
    embeddings, and the last fitted ranker (refitted only when the decisions change)."""

    def __init__(self):
        self.tfidf: Features | None = None
        self.both: Features | None = None
        self.fitted: tuple | None = None

    def features(self, review, model: str | None) -> Features:
        if self.tfidf is None:  # built once per review and kept on disk for the next kernel
            self.tfidf = load_or_build(getattr(review, "path", None), review.texts())
        if model is not None and get_model(model).title_weight and self.tfidf.titles is None:
            # the titles' own TF-IDF, for a model that weighs title words apart (built once)
            titles = title_block(["" if p.title_derived else p.title for p in review.papers])
            self.tfidf = Features(tfidf=self.tfidf.tfidf, terms=self.tfidf.terms, titles=titles)
            self.both = None
        if model is not None and get_model(model).features == "tfidf":
            return self.tfidf
        if self.both is None:
            self.both = Features(tfidf=self.tfidf.tfidf, terms=self.tfidf.terms, embeddings=review.embeddings(),
                                 titles=self.tfidf.titles)
        return self.both

    def ranker(self, features: Features, rows, labels, model: str | None, seed: int) -> Ranker:
        key = (id(features), model, seed, rows.tobytes(), labels.tobytes())
        if self.fitted is None or self.fitted[0] != key:
            self.fitted = (key, Ranker(model, seed=seed).fit(features, rows, labels))
        return self.fitted[1]


def final_decisions(store, stage: str) -> list[team.FinalDecision]:
    """The store's final decisions at ``stage`` as :class:`workbench.team.FinalDecision` objects."""
    return [team.FinalDecision(f.paper_id, f.decision, f.resolved_by, f.reason, f.resolved_at, f.stage)
            for f in store.team.finals(stage)]


def training_records(store) -> list[ScreeningRecord]:
    """What the store's reviewer's ranked queue learns from, as screening records in the order
    made: :func:`workbench.team.training_decisions` (final decisions first; in blind mode only
    the reviewer's own votes, else also the latest by anyone), each with how it was made; not the
    votes left on a paper merged into another."""
    viewer, blind = store.reviewer, store.team.blind
    merged = store.duplicates.merged_into()  # (a vote a merge left on the paper merged away: its conflict is the kept paper's)
    records = [r for r in store.decisions.records(everyone=True, all_reviewers=True) if r.paper_id not in merged]
    finals = final_decisions(store, TITLE_ABSTRACT)
    chosen = team.training_decisions(viewer, records, finals, blind=blind)
    picked: dict[str, ScreeningRecord] = {}
    for r in records:  # in time order: the reviewer's own, else (not blind) the latest other's
        kept = picked.get(r.paper_id)
        if r.reviewer == viewer or (not blind and (kept is None or kept.reviewer != viewer)):
            picked[r.paper_id] = r
    out = [replace(r, decision=chosen[pid]) for pid, r in picked.items()]
    out += [ScreeningRecord(f.paper_id, f.resolved_by, f.decision, f.resolved_at or "", recorded=False)
            for f in finals if f.paper_id not in picked]
    return sorted(out, key=lambda r: (r.decided_at, r.paper_id))


def review_seed(review, seed: int | None) -> int:
    return int(review.manifest.get("seed", 0)) if seed is None else int(seed)


def fitted_ranker(review, cache: ScreeningCache, decided: Decided, model: str | None, seed: int) -> Ranker:
    rows, labels = decided.fitted()
    return cache.ranker(cache.features(review, model), rows, labels, model, seed)


def ranker(review, cache: ScreeningCache, model: str | None = None, seed: int | None = None,
           reviewer: str | None = None) -> Ranker:
    """The ranker fitted on the store's decisions; see :meth:`workbench.review.Review.ranker`."""
    with review.store(reviewer) as store:
        decided = Decided.of(review, training_records(store))
    return fitted_ranker(review, cache, decided, model, review_seed(review, seed))


def rank(review, cache: ScreeningCache, n: int = 10, model: str | None = None, seed: int | None = None,
         by_topic: bool = False, sample: bool = False, reviewer: str | None = None) -> Ranking:
    """The next ``n`` papers to screen; see :meth:`workbench.review.Review.rank`."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InputError(f"next={n!r}: expected how many papers to show, a whole number >= 0")
    seed = review_seed(review, seed)
    with review.store(reviewer) as store:
        decided = Decided.of(review, training_records(store))
    ranker = fitted_ranker(review, cache, decided, model, seed)
    ranked = ranker.mode_ == "ranked"
    queue = ~ranker.decided_  # a new array
    queue[decided.maybe] = False
    if sample:
        rows, mode = _sample(len(review), decided, n, seed), "sample"
    else:
        groups = review.labels if by_topic else None
        rows, mode = ranker.next(n, groups=groups, skip=decided.maybe), "ranked" if ranked else "cold"
    ranking = Ranking([], mode, ranker.name if ranked else None, ranker.version if ranked else None,
                      decided.counts(len(review)), seed, review.row, queue, ranker.scores_ if ranked else None,
                      lambda row: _why(review, ranker, int(row), mode, by_topic, seed))
    ranking.papers = [RankedPaper(review.papers[r].id, review.papers[r].title, ranking.rank_of(int(r)),
                                  float(ranker.scores_[r]) if ranked else None,
                                  _why(review, ranker, int(r), mode, by_topic, seed)) for r in rows]
    return ranking


def _sample(n_papers: int, decided: Decided, n: int, seed: int) -> np.ndarray:
    """``n`` papers drawn at random from those no person has read (bulk-decided ones included)."""
    unread = np.ones(n_papers, dtype=bool)
    unread[decided.rows[~decided.bulk]] = False
    pool = np.flatnonzero(unread)
    rng = np.random.default_rng([seed, int((~decided.bulk).sum()), 16])
    return rng.permutation(pool)[:n]


def _why(review, ranker: Ranker, row: int, mode: str, by_topic: bool, seed: int) -> str:
    if mode == "sample":
        return "drawn at random from the papers no one has read (a stopping sample)"
    if ranker.mode_ != "ranked":
        if by_topic:
            return f"one paper per topic until the first include and exclude: {review.topic_labels().get(review.labels[row], 'Unassigned')}"
        return f"random order (seed {seed}) until the first include and exclude"
    why = ranker.explain(row, k=5)
    if why.kind == "words":
        return "words: " + ", ".join(term for term, _ in why.items) if why.items else "no word pushed it up"
    return "like: " + "; ".join(f"{_clip(review.papers[r].title)} ({sim:.2f})" for r, sim in why.items)


def _clip(text: str, n: int = 50) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def papers_of(review, store, ids) -> list[str]:
    """The review's papers ``ids`` name, each once (an id merged into another paper: the paper it
    joined, as the store resolves ids); an id not in this review is a clear error, before anything
    is written."""
    ids = [ids] if isinstance(ids, str) else list(ids)
    try:
        ids = store.resolve_ids(ids)
    except UnknownPaperError:
        pass  # the review's own message, below
    for pid in ids:
        review.row(pid)
    return ids


def decide(review, ids, decision: str, reason: str | None = None, ranking: Ranking | None = None,
           bulk: bool | None = None, reviewer: str | None = None, stage: str = TITLE_ABSTRACT) -> int:
    """A person's decision on ``ids``, recorded with what ``ranking`` showed of each paper;
    see :meth:`workbench.review.Review.decide`."""
    with review.store(reviewer) as store:
        ids = papers_of(review, store, ids)
    context: dict = {}
    if ranking is not None:
        shown = [ranking.context(pid) for pid in ids]
        in_bulk = len(ids) > 1 if bulk is None else bulk
        context = {"rank": [s["rank"] for s in shown], "score": [s["score"] for s in shown],
                   "model": ranking.model, "model_version": ranking.model_version,
                   "sampled": not in_bulk and all(s["sampled"] for s in shown)}
        if ranking.model is None:
            context.update(rank=None, score=None)
    with review.store(reviewer) as store:
        return store.decisions.decide(ids, decision, reason, bulk=bulk, stage=stage, **context)

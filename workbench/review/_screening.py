"""Ranked screening of a review: the queue, the records of decisions, and when to stop.

The glue between :mod:`workbench.screening` (the engine: features, ranker and stopping rules,
which knows nothing of stores or reviews) and :mod:`workbench.store` (which keeps what a person
decided, and how):

- :meth:`ReviewScreening.rank`: the store's decisions -> labels (include 1, exclude 0; a maybe is left out of
  the fit and out of the queue) -> a :class:`~workbench.screening.Ranker` -> a :class:`Ranking`,
  the next papers with their rank, score and why. The TF-IDF is built once per Review and kept
  (:class:`ScreeningCache`), the embeddings are the review's own (from memory or its cache,
  never embedded again), and the ranker is refitted only when the decisions changed. Same
  decisions, model and seed: the same ranking.
- :meth:`ReviewScreening.decide`: a person's decision, recorded with the paper's rank and score and the model
  as the ranking showed them (:meth:`Ranking.context`). The ranker never decides anything.
- what a reviewer's queue learns from: ``_decisions.training_records``.
- :meth:`ReviewScreening.history`, :meth:`ReviewScreening.stopping` (``_stopping``): the decisions in the order made, the
  estimate of relevant papers left and the stopping advice, which count only papers a person read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..corpus.paper import FULL_TEXT, TITLE_ABSTRACT
from ..store import Shown
from ..errors import InputError
from ..screening import DEFAULT_MODEL, MODELS, Features, Kernels, Ranker, ScreeningHistory, band, get_model, title_block
from . import _stopping, _tfidf_cache
from ._decisions import Decided, check_stage, papers_of, screening_of, store_of, training_records

__all__ = ["SCREENING_MODELS", "RankedPaper", "Ranking", "ReviewScreening", "ScreeningCache", "prepare_screening"]

#: The ranking models by name (``review.screening.rank(model=...)``; details in workbench.screening.MODELS).
SCREENING_MODELS = tuple(MODELS)


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

    def relevance(self, paper_id: str) -> str:
        """The paper's predicted relevance as a person reads it: "high", "medium" or "low" by its
        place among the papers in the queue (:func:`workbench.screening.band`), with that place
        ("predicted relevant: high · rank 3 of 125 to screen"); "" for a paper not ranked."""
        rank = self.rank_of(self.row_of(paper_id)) if self.scores is not None else None
        if rank is None:
            return ""
        queued = int(self.queue.sum())
        return f"predicted relevant: {band(rank, queued)} · rank {rank} of {queued} to screen"

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


class ScreeningCache:
    """What a Review keeps between re-ranks: its TF-IDF (built once), the features with its
    embeddings, and the last fitted ranker (refitted only when the decisions change)."""

    def __init__(self):
        self.tfidf: Features | None = None
        self.both: Features | None = None
        self.fitted: tuple | None = None
        self.kernels = Kernels()  # the decided papers' dot products, kept from one refit to the next
        self.key = None  # the features' entry in the review's cache (_tfidf_cache.EntryKey)
        # held while the features are made: a re-rank asked during prepare_screening's warm-up
        # waits for it instead of building them a second time
        self.lock = threading.Lock()
        self._unranked: Features | None = None

    def features(self, review, model: str | None) -> Features:
        with self.lock:
            return self._features(review, model)

    def _features(self, review, model: str | None) -> Features:
        if self.tfidf is None:  # built once per review and kept on disk for the next kernel
            self.key = None if getattr(review, "path", None) is None else _tfidf_cache.features_key(review)
            self.tfidf = _tfidf_cache.load_or_build(review, self.key)
        if model is not None and get_model(model).title_weight and self.tfidf.titles is None:
            # the titles' own TF-IDF, for a model that weighs title words apart (built once)
            titles = title_block(["" if p.title_derived else p.title for p in review.papers])
            self.tfidf = Features(tfidf=self.tfidf.tfidf, terms=self.tfidf.terms, titles=titles)
            self.both = None
        if model is not None and get_model(model).features == "tfidf":
            return self.tfidf
        if self.both is None:
            self.both = Features(tfidf=self.tfidf.tfidf, terms=self.tfidf.terms,
                                 embeddings=review.embeddings(), titles=self.tfidf.titles)
        return self.both

    def unranked(self, n: int) -> Features:
        """What a ranker before one include and one exclude is fitted on: the number of papers
        (its order reads no features)."""
        if self._unranked is None or len(self._unranked) != n:
            self._unranked = Features(embeddings=np.ones((n, 1), dtype=np.float32))
        return self._unranked

    def ranker(self, features: Features, rows, labels, model: str | None, seed: int) -> Ranker:
        key = (id(features), model, seed, rows.tobytes(), labels.tobytes())
        if self.fitted is None or self.fitted[0] != key:
            previous = self.fitted[1] if self.fitted is not None else None  # (a fusion's record of its members)
            self.fitted = (key, Ranker(model, seed=seed, kernels=self.kernels).fit(features, rows, labels, previous=previous))
        return self.fitted[1]


def prepare_screening(review) -> None:
    """Load what the queue's refits need (the classifier's library, the TF-IDF from the review's
    cache, or built and kept there, and column by column, the embeddings) and the stopping
    estimate's library, so that
    the first decisions answer as fast as later ones: run it while the user reads the first card
    (a view starts it in a thread). A re-rank asked meanwhile waits for the TF-IDF rather than
    building it twice. Touches no database."""
    get_model(DEFAULT_MODEL).make(0)  # imports scikit-learn's classifier
    from scipy.stats import hypergeom  # noqa: F401 - the stopping estimate's

    features = review.screening.cache.features(review, None)
    features.keep_columns(get_model(DEFAULT_MODEL).title_weight)  # a refit's scores read only its columns


def review_seed(review, seed: int | None) -> int:
    return int(review.manifest.get("seed", 0)) if seed is None else int(seed)


def fitted_ranker(review, cache: ScreeningCache, decided: Decided, model: str | None, seed: int) -> Ranker:
    rows, labels = decided.fitted()
    if 0 < int(labels.sum()) < len(labels):  # an include and an exclude: a model, fitted on the features
        features = cache.features(review, model)
    else:  # the order before a model reads no features: never waits for the warm-up's TF-IDF
        features = cache.unranked(len(review))
    return cache.ranker(features, rows, labels, model, seed)


def rank(review, cache: ScreeningCache, store, n: int = 10, model: str | None = None, seed: int | None = None,
         by_topic: bool = False, sample: bool = False) -> Ranking:
    """The next ``n`` papers to screen for ``store``'s reviewer; see :meth:`ReviewScreening.rank`."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InputError(f"next={n!r}: expected how many papers to show, a whole number >= 0")
    seed = review_seed(review, seed)
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
    why = ranker.explain(row, k=5, text=review.text(row))
    like = f"most like the included “{_clip(review.papers[why.like[0][0]].title)}”" if why.like else ""
    if why.kind != "words":
        return "like: " + "; ".join(f"“{_clip(review.papers[r].title)}”" for r, _ in why.items[:3]) if why.items else ""
    parts = ["words: " + ", ".join(term for term, _ in why.items) if why.items else "no word pushed it up"]
    if why.against:
        parts.append("against: " + ", ".join(term for term, _ in why.against))
    return " · ".join(parts + ([like] if like else []))


def _clip(text: str, n: int = 50) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"




class ReviewScreening:
    """A review's ranked screening (``review.screening``): the queue (:meth:`rank`, :meth:`ranker`),
    a person's decisions (:meth:`decide`), the decisions as a history (:meth:`history`) and when
    to stop (:meth:`stopping`).

    Each method reads and writes the review's store as ``reviewer`` (default: the store's, from
    ``$WORKBENCH_REVIEWER`` or the OS user), or through ``store``, a store already open (a
    session's: its one route to the database). The TF-IDF and the last fitted ranker are kept here
    between calls (:class:`ScreeningCache`).
    """

    def __init__(self, review):
        self.review = review
        self.cache = ScreeningCache()

    def __repr__(self) -> str:
        return f"<Screening of {self.review!r}>"

    def rank(self, next: int = 10, *, model: str | None = None, seed: int | None = None, by_topic: bool = False,
             sample: bool = False, reviewer: str | None = None, store=None) -> Ranking:
        """The next papers to screen, most likely relevant first, with rank, score and why: a model
        refitted on the store's includes and excludes (a maybe is left out). ``model``: one of
        ``workbench.screening.MODELS`` (default: the measured best); ``seed``: the build's;
        ``by_topic``: before a model, one paper per topic; ``sample``: a random sample of the papers
        no person has read, for the stopping test (read all of it)."""
        with store_of(self.review, store, reviewer) as opened:
            return rank(self.review, self.cache, opened, next, model, seed, by_topic, sample)

    def ranker(self, model: str | None = None, seed: int | None = None, reviewer: str | None = None,
               store=None) -> Ranker:
        """The fitted :class:`workbench.screening.Ranker` behind :meth:`rank` (``scores_``, ``explain``)."""
        with store_of(self.review, store, reviewer) as opened:
            decided = Decided.of(self.review, training_records(opened))
        return fitted_ranker(self.review, self.cache, decided, model, review_seed(self.review, seed))

    def history(self, reviewer: str | None = None, store=None) -> ScreeningHistory:
        """The decisions in the order made, as a :class:`workbench.screening.ScreeningHistory`."""
        with store_of(self.review, store, reviewer) as opened:
            return _stopping.history(self.review, opened)

    def stopping(self, target: float = 0.95, confidence: float = 0.95, n_in_a_row: int = 100, *,
                 log: bool = False, reviewer: str | None = None, store=None) -> _stopping.StoppingReport:
        """Relevant papers left (95 % interval) and whether the reviewer may stop: the hypergeometric
        test at ``target`` recall and ``confidence``, and "``n_in_a_row`` irrelevant in a row" for
        comparison, counting only papers a person read; ``log``: record the claim in the store."""
        with store_of(self.review, store, reviewer) as opened:
            return _stopping.stopping(self.review, opened, target, confidence, n_in_a_row, log)

    def decide(self, ids, decision: str, reason: str | None = None, *, ranking: Ranking | None = None,
               bulk: bool | None = None, stage: str = TITLE_ABSTRACT, reviewer: str | None = None,
               store=None) -> int:
        """A person's decision on one paper or many at ``stage``, recorded with the rank, score and
        model that ``ranking`` showed (none without one); ``bulk``: default, several papers. At
        full text (include, exclude with a reason, or ``"not retrieved"``) only papers included at
        title/abstract (settled: agreed or resolved) can be decided. Ids merged into another paper
        decide the paper they joined; an id not in the review is refused before anything is written."""
        with store_of(self.review, store, reviewer) as opened:
            ids = papers_of(self.review, opened, ids)
            if check_stage(stage) == FULL_TEXT:
                settled = screening_of(opened, TITLE_ABSTRACT, self.review.ids, all_reviewers=True).decisions()
                waiting = [pid for pid in ids if settled.get(pid) not in ("include", "maybe")]
                if waiting:
                    raise InputError(
                        f"{len(waiting)} papers (e.g. {waiting[0]}) are not included at title/abstract "
                        "(not screened by enough reviewers, excluded, or an unresolved conflict); "
                        "only those go on to full text; see review.team.status('title_abstract')")
            return opened.decisions.decide(ids, decision, reason, shown=_shown(ranking, ids, bulk), bulk=bulk,
                                           stage=stage)


def _shown(ranking: Ranking | None, ids: list[str], bulk: bool | None) -> Shown | None:
    """What a decision on ``ids`` records of ``ranking``: each paper's rank and score, the model,
    and whether it was read as part of a stopping sample (None without a ranking)."""
    if ranking is None:
        return None
    shown = [ranking.context(pid) for pid in ids]
    in_bulk = len(ids) > 1 if bulk is None else bulk
    sampled = not in_bulk and all(s["sampled"] for s in shown)
    if ranking.model is None:
        return Shown(model_version=ranking.model_version, sampled=sampled)
    return Shown([s["rank"] for s in shown], [s["score"] for s in shown], ranking.model, ranking.model_version,
                 sampled)

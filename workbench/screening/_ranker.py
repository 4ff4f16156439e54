"""The ranker: fit on the decided papers, score every paper, hand out the next ones to screen.

``Ranker(model, seed).fit(features, labelled, labels)`` refits the model on the decided papers
(rows ``labelled`` of ``features``, with 0/1 ``labels``) and scores every paper; ``next(n)``
gives the ``n`` undecided papers to show next, ``ranking()`` all of them, best first, and
``explain(i)`` why paper ``i`` scored as it did. Ties are broken by row index, and the only
randomness (the exploration picks, the order before the first include and exclude) comes
from ``seed``, so the same decisions always give the same queue.

Before the review has one include and one exclude nothing can be fitted: the queue is then a
fixed random order (``seed``) or, given ``groups`` (a topic per paper), one paper per topic in
turn. ``explore_until``/``explore_every``: while there are fewer than ``explore_until``
includes, every ``explore_every``-th pick is a random undecided paper (or, with ``groups``,
the best-scored paper of the topic with the fewest decisions), so an early model that knows
one corner of the review does not keep the reviewer there.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from ._explain import contributions, phrases
from ._features import Features
from ._models import DEFAULT_MODEL, DEFAULT_TEXT_ONLY_MODEL, SVM_C, balanced_weights, get_model
from ._svm import EXACT_MAX_ROWS, ExactSVM, Kernels, blas_threads

__all__ = ["Explanation", "Ranker", "top_n"]


@dataclass(frozen=True)
class Explanation:
    """Why a paper scored as it did. ``kind`` is ``"words"`` (``items``: (phrase, contribution),
    the phrases of the paper that pushed the score up most, as the paper writes them, see
    :func:`~workbench.screening._explain.phrases`; ``against``: those that pushed it down most) or
    ``"neighbours"`` (``items``: (row, cosine), the most similar included papers). ``like``: the
    most similar included papers in either case ((row, cosine), best first)."""

    paper: int
    score: float | None
    kind: str
    items: tuple
    against: tuple = ()
    like: tuple = ()

    def __str__(self) -> str:
        if self.kind == "words":
            return "words: " + ", ".join(term for term, _ in self.items)
        return "like: " + ", ".join(f"#{row} ({sim:.2f})" for row, sim in self.items)


def top_n(candidates: np.ndarray, scores: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` best ``candidates`` (ascending row indices) by ``scores``, best first, ties by
    row index: the same as the first ``n`` of a full stable sort, in O(len + n log n)."""
    if n <= 0:
        return candidates[:0]
    if n >= len(candidates):
        return candidates[np.argsort(-scores, kind="stable")]
    neg = -scores
    kth = np.partition(neg, n - 1)[n - 1]
    better = np.flatnonzero(neg < kth)
    tied = np.flatnonzero(neg == kth)[: n - len(better)]
    chosen = np.concatenate([better, tied])
    chosen.sort()
    return candidates[chosen[np.argsort(neg[chosen], kind="stable")]]


class Ranker:
    """Active-learning ranker with the scikit-learn shape (see the module docstring).

    Fitted attributes: ``scores_`` (a score per paper, higher = more likely relevant; ``None``
    before one include and one exclude), ``mode_`` (``"ranked"`` or ``"cold"``), ``model_``
    (the fitted classifier; an :class:`~workbench.screening._svm.ExactSVM` for the SVM),
    ``n_includes_``, ``n_labelled_``, ``fit_seconds_``; a fusion also ``member_weights_`` (its
    components' weights), a ``hedge`` or ``exp3`` fusion ``record_`` (the ranks its components
    gave earlier includes; ``exp3``: their log-weights) and ``member_scores_`` (their scores in
    this fit), which the next fit reads (``fit(..., previous=...)``), and an ``exp3`` fusion
    ``drawn_`` (the component whose top paper this fit shows first).

    ``kernels``: where the SVM's fits keep the decided papers' dot products (a
    :class:`~workbench.screening._svm.Kernels`); hand the same one to each new ranker of a review
    so that a refit computes only the newly decided papers' (a ranker refitted again keeps its
    own without it).
    """

    def __init__(self, model: str | None = None, seed: int = 0, explore_until: int = 0, explore_every: int = 4,
                 kernels: Kernels | None = None):
        self.model = model
        self.seed = seed
        self.explore_until = explore_until
        self.explore_every = explore_every
        self.kernels = kernels

    # -- naming, for the store's records ------------------------------------------------------
    def spec_for(self, features: Features):
        if self.model is not None:
            return get_model(self.model)
        return get_model(DEFAULT_MODEL if features.embeddings is not None and features.tfidf is not None else
                         (DEFAULT_TEXT_ONLY_MODEL if features.tfidf is not None else "svm-emb"))

    @property
    def name(self) -> str:
        return self.spec_.name

    @property
    def version(self) -> str:
        """Model, parameters and query strategy: what a decision's record should name."""
        explore = f"+explore({self.explore_until},{self.explore_every})" if self.explore_until else ""
        return f"{self.spec_.version}{explore};seed={self.seed}"

    # -- fitting --------------------------------------------------------------------------------
    def fit(self, features: Features, labelled, labels, previous: Ranker | None = None) -> Ranker:
        """Refit on the decided papers. ``previous``: an earlier fit of the same model and seed
        on the same features (the queue's last one): a ``hedge`` or ``exp3`` fusion reads its
        members' record of the earlier includes from it instead of refitting them (the same weights)."""
        t0 = time.perf_counter()
        if not isinstance(features, Features):
            raise InputError(f"Ranker.fit needs a Features object; got {type(features).__name__} (use Features.from_texts)")
        if (previous is not None and previous is not self and hasattr(previous, "record_")
                and previous.features_ is features and previous.model == self.model and previous.seed == self.seed):
            self.record_, self.member_scores_ = dict(previous.record_), previous.member_scores_
        n = len(features)
        labelled = np.asarray(labelled, dtype=np.int64).reshape(-1)
        labels = np.asarray(labels).reshape(-1)
        if labelled.shape != labels.shape:
            raise InputError(f"{len(labelled)} labelled rows but {len(labels)} labels; give one 0/1 label per decided paper")
        if len(labelled) and (labelled.min() < 0 or labelled.max() >= n):
            raise InputError(f"labelled rows must lie in 0..{n - 1}; got {labelled.min()}..{labelled.max()}")
        if len(labelled) and np.bincount(labelled, minlength=n).max() > 1:
            raise InputError("a paper is labelled twice; pass each decided paper once, with its latest decision")
        if not np.isin(labels, (0, 1)).all():
            raise InputError(f"labels must be 0 (exclude) or 1 (include); got {sorted(set(labels.tolist()))[:5]}")
        self.spec_ = self.spec_for(features)
        self.features_ = features
        if self.kernels is not None:
            self.kernels_ = self.kernels
        elif getattr(self, "kernels_", None) is None:
            self.kernels_ = Kernels()  # kept for this ranker's next fit
        self.labelled_ = labelled
        self.labels_ = labels.astype(np.int8)
        self.decided_ = np.zeros(n, dtype=bool)
        self.decided_[labelled] = True
        self.n_labelled_ = len(labelled)
        self.n_includes_ = int(labels.sum())
        # the run of excludes the decisions end with (they come in the order they were made)
        last = np.flatnonzero(self.labels_ == 1)
        self.excludes_in_a_row_ = len(labels) - 1 - int(last[-1]) if len(last) else len(labels)
        self.active_ = self.spec_
        if self.spec_.switch_after and self.excludes_in_a_row_ >= self.spec_.switch_after:
            self.active_ = get_model(self.spec_.switch_to)  # SAFE-like: another model while stuck
        if self.n_includes_ == 0 or self.n_includes_ == len(labels):
            self.mode_, self.model_, self.scores_ = "cold", None, None
        else:
            with blas_threads(1):
                if self.active_.classifier == "fuse":
                    self._fit_fusion(self.active_, features)
                else:
                    self.model_, self.weights_, self.scores_ = self._fit_linear(self.active_, features)
            self.mode_ = "ranked"
        self.fit_seconds_ = time.perf_counter() - t0
        return self

    def _fit_linear(self, spec, features: Features, rows=None, y=None):
        """Fit ``spec`` on the decided papers (or on ``rows`` labelled ``y``, the decisions as
        they stood earlier): (classifier, (w, b), a score per paper), with
        score = ``features.matrix(kind, weight, ...) @ w + b``. The TF-IDF and embedding blocks
        are kept apart: only the decided papers' rows are put side by side for the fit, and the
        scores are a sparse and a dense product (no (n, terms + d) matrix is ever built)."""
        if rows is None:
            rows, y = self.labelled_, self.labels_
        if spec.classifier == "knn":
            return self._fit_neighbours(spec, features, rows, y)
        at = (int(y.sum()), len(rows))
        kind, weight = spec.features_at(*at), spec.weight_at(*at)
        T, B = features.blocks(kind, spec.embedding_center, spec.embedding_dims)
        if T is not None and spec.title_weight:
            T = features.words(spec.title_weight)
        if spec.presumed:  # a fresh random draw of undecided papers, fitted as excludes
            rng = np.random.default_rng([self.seed, len(rows), 1])
            decided = np.zeros(len(self.decided_), dtype=bool)
            decided[rows] = True
            undecided = np.flatnonzero(~decided)
            extra = rng.choice(undecided, min(spec.presumed, len(undecided)), replace=False)
            rows, y = np.concatenate([rows, extra]), np.concatenate([y, np.zeros(len(extra), np.int8)])
        d = B.shape[1] if B is not None else 0
        scale = np.float32(weight if T is not None else 1.0)  # an "emb" model reads the block as it is
        sample_weight = balanced_weights(y, spec.ratio)
        Tl = cols = used = None
        if T is not None:
            Tl = T[rows]
            if spec.classifier in ("svm", "lr"):
                # An L2-regularised linear model puts weight 0 on a column no fitted row uses,
                # so fitting on the used columns alone gives the same weights, much faster
                # (a review's TF-IDF has ~10^5 columns; a few hundred papers use ~10^4).
                used = np.zeros(T.shape[1], dtype=bool)
                used[Tl.indices] = True  # O(nnz); np.unique would sort or hash them
                cols = np.flatnonzero(used)
        fitted = self._fit_exact_svm(spec, features, (T, B, scale), rows, y, sample_weight)
        if fitted is not None:
            clf = fitted
            parts = [] if T is None else [Tl.T @ fitted.beta]
            if d:  # w's embedding part: the fitted rows' embeddings weighed by beta (a few rows of B, not all)
                parts.append((B[rows].T @ fitted.beta) * scale)
            w = np.concatenate([parts[0][cols], *parts[1:]]) if T is not None else parts[0]
            w, b = w.astype(np.float32), float(fitted.beta.sum())
        else:
            clf = self._fit_estimator(spec, features, (Tl, B, scale), used, rows, y, sample_weight)
            w, b = self._linear_weights(clf)
        n_terms = T.shape[1] if T is not None else 0
        full = np.zeros(n_terms + d, dtype=np.float32)
        scores = np.full(len(self.decided_), b, dtype=np.float64)
        if T is not None:
            full[cols if cols is not None else slice(0, n_terms)] = w[: len(w) - d]
            scores += features.word_scores(full[:n_terms], cols, spec.title_weight)
        if d:
            full[n_terms:] = w[len(w) - d:]
            scores += B @ (full[n_terms:] * scale)
        return clf, (full, b), scores

    @staticmethod
    def _fit_neighbours(spec, features: Features, rows, y, chunk: int = 4096):
        """Relevance feedback on the embeddings (classifier ``knn``): a paper's score is its
        cosine to the nearest include minus its cosine to the nearest exclude. Not a linear
        model: (None, zero weights, scores), so a fusion explains itself by another member."""
        E = features.embedding_block(spec.embedding_center, spec.embedding_dims)
        inc, exc = E[rows[y == 1]], E[rows[y == 0]]
        scores = np.empty(len(E), dtype=np.float64)
        for start in range(0, len(E), chunk):  # (chunk x decided) at a time, not (n x decided)
            block = E[start:start + chunk]
            scores[start:start + chunk] = (block @ inc.T).max(axis=1) - (block @ exc.T).max(axis=1)
        n_terms = features.tfidf.shape[1] if features.tfidf is not None else 0
        return None, (np.zeros(n_terms + E.shape[1], dtype=np.float32), 0.0), scores

    def _fit_exact_svm(self, spec, features: Features, blocks, rows, y, sample_weight):
        """The SVM's minimum from the fitted rows' dot products (:mod:`._svm`), or None where
        liblinear fits instead (another classifier or loss, more than ``EXACT_MAX_ROWS`` rows, or
        an active set that did not settle). ``blocks``: (TF-IDF, embeddings, their weight)."""
        T, B, scale = blocks
        if spec.classifier != "svm" or set(spec.params) - {"C"} or len(rows) > EXACT_MAX_ROWS:
            return None
        blocks = [(X, factor) for X, factor in ((T, 1.0), (B, float(scale) ** 2)) if X is not None]
        key = ((spec.title_weight, spec.embedding_center, spec.embedding_dims, T is not None, B is not None),
               blocks[-1][1])
        C = float(spec.params.get("C", SVM_C))
        beta = self.kernels_.solve(features, key, blocks, rows, y, C * sample_weight)
        return None if beta is None else ExactSVM(C, np.asarray(rows), beta)

    def _fit_estimator(self, spec, features: Features, blocks, used, rows, y, sample_weight):
        """A scikit-learn classifier fitted on the decided rows, the TF-IDF block's used columns
        (where ``used`` is True) beside the scaled embedding block. ``blocks``: (the decided rows' TF-IDF,
        the embeddings, their weight)."""
        Tl, B, scale = blocks
        parts = []
        if Tl is not None:
            if used is not None:
                # Tl[:, used] by renumbering its column indices (every column it uses is kept, in
                # order): the same matrix as scipy's column indexing, without its passes over
                # every term of the review at each refit
                renumber = np.cumsum(used, dtype=np.int64) - 1
                Tl = sp.csr_matrix((Tl.data, renumber[Tl.indices].astype(Tl.indices.dtype), Tl.indptr),
                                   shape=(Tl.shape[0], int(renumber[-1]) + 1))
            parts.append(Tl)
        if B is not None:
            if Tl is not None:
                parts.append(features.sparse_rows(rows, scale, spec.embedding_center, spec.embedding_dims))
            else:
                parts.append(B[rows])
        Xl = parts[0] if len(parts) == 1 else sp.hstack(parts, format="csr", dtype=np.float32)
        clf = spec.make(self.seed)
        clf.fit(Xl, y, sample_weight=sample_weight)
        return clf

    def _fit_fusion(self, fused, features: Features) -> None:
        """Fit every component of ``fused`` and combine their scores: the mean of the scores
        standardised over the undecided papers (``z``: again a linear model, so its word weights
        explain it), the sum of 1 / (60 + rank) (``rrf``, Cormack et al. 2009; explained by
        the first), or that sum weighed by each component's record (``hedge``, see
        :meth:`_hedge_weights`; explained by the heaviest component that reads words) or by
        its probability to be drawn, the drawn component's top paper first (``exp3``, see
        :meth:`_exp3_draw`)."""
        specs = [get_model(c) for c in fused.components]
        fits = [self._fit_linear(spec, features) for spec in specs]
        self.model_ = [clf for clf, _, _ in fits]
        undecided = ~self.decided_
        n_terms = features.tfidf.shape[1] if features.tfidf is not None else 0
        member, drawn = np.full(len(fits), 1.0 / len(fits)), None
        if fused.fusion == "hedge":
            member = self._hedge_weights(fused, specs, features, [scores for _, _, scores in fits])
        elif fused.fusion == "exp3":
            member, drawn = self._exp3_draw(fused, specs, features, [scores for _, _, scores in fits])
        self.member_weights_ = member
        total, weights = np.zeros(len(self.decided_)), np.zeros(n_terms)
        words_of = [w[:n_terms] if spec.features_at(self.n_includes_, self.n_labelled_) != "emb" else None
                    for spec, (_, (w, _), _) in zip(specs, fits)]
        for i, (_, _, scores) in enumerate(fits):
            if fused.fusion in ("rrf", "hedge", "exp3"):
                total += member[i] * len(fits) / (60.0 + ranks(scores))
            else:
                sd = float(scores[undecided].std()) or 1.0
                total += (scores - float(scores[undecided].mean())) / sd
                weights = weights + (words_of[i] if words_of[i] is not None else 0.0) / sd
        if fused.fusion != "z":
            readers = [i for i in range(len(fits)) if words_of[i] is not None]
            if readers:
                best = readers[0] if fused.fusion == "rrf" else max(readers, key=lambda i: (member[i], -i))
                weights = words_of[best]
        self.weights_ = (np.asarray(weights, dtype=np.float32), 0.0)
        self.scores_ = total / len(fits)
        self.drawn_ = drawn
        if drawn is not None and undecided.any():  # the drawn member's top paper first
            open_rows = np.flatnonzero(undecided)
            top = int(top_n(open_rows, fits[drawn][2][open_rows], 1)[0])
            self.scores_[top] = float(self.scores_[open_rows].max()) + 1.0 / 60.0

    def _hedge_weights(self, fused, specs, features, current: list) -> np.ndarray:
        """The components' weights from their record: for each of the last ``hedge_window``
        includes, the rank (0 = first) each component gave it among the papers then undecided,
        when fitted on the decisions made before it. Weight ~ exp(-rate * sum of log(1 + rank))
        (the multiplicative-weights rule of Hedge, on the log of the rank: an include ranked 0
        costs nothing, one ranked 100 costs 4.6), mixed with the uniform weights at
        ``hedge_share``. Without a recorded include the weights are uniform.

        The record is a function of the decisions in their order alone: an include's ranks are
        read from the previous fit when it was fitted on exactly the decisions before it (a
        replay, one decision at a time), and otherwise from the components refitted on them."""
        k = len(specs)
        if not hasattr(self, "record_"):  # kept from fit to fit: {include and the decisions before it: ranks}
            self.record_, self.member_scores_ = {}, None
        memo, last = self.record_, self.member_scores_  # last: (the decisions' key, the components' scores)
        members = tuple(spec.version for spec in specs)  # names or ModelSpecs alike (a spec's params dict is unhashable)
        losses = np.zeros(k)
        for p in np.flatnonzero(self.labels_ == 1)[-fused.hedge_window:] if fused.hedge_window > 0 else []:
            rows, y = self.labelled_[:p], self.labels_[:p]
            if not 0 < int(y.sum()) < p:
                continue  # no model before this include (a prior, or no exclude yet)
            key = (_digest(self.labelled_[: p + 1], self.labels_[: p + 1]), members)
            if key not in memo:
                then = _digest(rows, y)
                if last is not None and last[0] == (then, members):
                    scores = last[1]
                else:
                    scores = [self._fit_linear(spec, features, rows, y)[2] for spec in specs]
                open_then = np.ones(len(self.decided_), dtype=bool)
                open_then[rows] = False
                paper = int(self.labelled_[p])
                memo[key] = np.array([_rank_among(s, open_then, paper) for s in scores], dtype=np.float64)
            losses += np.log1p(memo[key])
        self.member_scores_ = ((_digest(self.labelled_, self.labels_), members), current)
        w = np.exp(-fused.hedge_rate * (losses - losses.min()))
        w /= w.sum()
        return (1.0 - fused.hedge_share) * w + fused.hedge_share / k

    def _exp3_draw(self, fused, specs, features, current: list) -> tuple[np.ndarray, int]:
        """The components' probabilities in this fit and the one drawn (EXP3, Auer et al. 2002;
        as a selector of active-learning strategies, Hsu & Lin 2015). Each fit draws component
        m with probability pi_m = (1 - gamma) * w_m / sum(w) + gamma / K, from a generator
        seeded by the ranker's seed and the number of decisions, and its top undecided paper is
        shown first. When the next decision is that paper and an include, m's log-weight grows
        by rate / pi_m (``exp3_rate``, by default gamma / K as in EXP3, which keeps a step at
        most 1): only the member that drew is credited, by the inverse of its chance to draw,
        so a member's expected credit per fit is the rate times the chance that its own top
        paper is an include, whichever member the queue followed (hedge's record of ranks
        favours the member whose papers the reviewer was shown).

        The record is a function of the decisions in their order alone: the log-weights after
        the decisions of the last fit are kept (``record_``) and carried on when the new
        decisions extend them; an include's draw reads the drawn member's scores from the
        previous fit when it was fitted on exactly the decisions before it (a replay, one
        decision at a time), and otherwise refits that member on them."""
        k, n = len(specs), len(self.labelled_)
        rate = fused.exp3_rate or fused.exp3_gamma / k
        if not hasattr(self, "record_"):  # kept from fit to fit: {members: (decisions' key, their number, log-weights)}
            self.record_, self.member_scores_ = {}, None
        members = tuple(spec.version for spec in specs)
        start, log_w = 0, np.zeros(k)
        kept = self.record_.get(members)
        if kept is not None and kept[1] <= n and _digest(self.labelled_[: kept[1]], self.labels_[: kept[1]]) == kept[0]:
            start, log_w = kept[1], np.array(kept[2], dtype=np.float64)
        last = self.member_scores_  # (the decisions' key, the components' scores) of the previous fit
        for p in start + np.flatnonzero(self.labels_[start:] == 1):
            rows, y = self.labelled_[:p], self.labels_[:p]
            if not 0 < int(y.sum()) < p:
                continue  # no model before this include: nothing was drawn
            pi = _exp3_probabilities(log_w, fused.exp3_gamma)
            m = _exp3_pick(pi, self.seed, int(p))
            if last is not None and last[0] == (_digest(rows, y), members):
                scores = last[1][m]
            else:
                scores = self._fit_linear(specs[m], features, rows, y)[2]
            open_then = np.ones(len(self.decided_), dtype=bool)
            open_then[rows] = False
            open_rows = np.flatnonzero(open_then)
            if int(top_n(open_rows, scores[open_rows], 1)[0]) == int(self.labelled_[p]):
                log_w[m] += rate / pi[m]
        key = _digest(self.labelled_, self.labels_)
        self.record_[members] = (key, n, tuple(log_w.tolist()))
        self.member_scores_ = ((key, members), current)
        pi = _exp3_probabilities(log_w, fused.exp3_gamma)
        return pi, _exp3_pick(pi, self.seed, n)

    @staticmethod
    def _linear_weights(clf) -> tuple[np.ndarray, float]:
        """(w, b) with score = X @ w + b, for each model family."""
        if hasattr(clf, "feature_log_prob_"):  # naive Bayes: log-odds are linear in the counts
            w = clf.feature_log_prob_[1] - clf.feature_log_prob_[0]
            return w.astype(np.float32), float(clf.class_log_prior_[1] - clf.class_log_prior_[0])
        return np.asarray(clf.coef_[0], dtype=np.float32), float(np.ravel(clf.intercept_)[0])

    def _check_fitted(self):
        if not hasattr(self, "mode_"):
            raise InputError("this Ranker is not fitted yet; call fit(features, labelled, labels) first")

    # -- the queue ------------------------------------------------------------------------------
    def undecided(self) -> np.ndarray:
        self._check_fitted()
        return np.flatnonzero(~self.decided_)

    def ranking(self, skip=None) -> np.ndarray:
        """Every undecided paper, most likely relevant first (the cold order before a model)."""
        return self.next(int((~self.decided_).sum()), skip=skip)

    def next(self, n: int = 1, groups=None, skip=None) -> np.ndarray:
        """The ``n`` undecided papers to screen next (fewer when fewer are left). ``skip``: rows
        not to hand out although undecided (papers marked "maybe", say)."""
        self._check_fitted()
        if n < 0:
            raise InputError(f"n={n} should be >= 0")
        cand = self.undecided()
        if skip is not None and len(skip):
            cand = cand[~np.isin(cand, np.asarray(skip, dtype=np.int64))]
        n = min(n, len(cand))
        if groups is not None:
            groups = np.asarray(groups)
            if groups.shape != self.decided_.shape:
                raise InputError(f"groups has {groups.shape[0]} entries for {len(self.decided_)} papers; give one topic per paper")
        if self.mode_ == "cold":
            return self._cold(cand, n, groups)
        picks = list(top_n(cand, self.scores_[cand], n))
        if self.explore_until and self.n_includes_ < self.explore_until and self.explore_every > 0 and n:
            rng = np.random.default_rng([self.seed, self.n_labelled_])
            for j in range(n):
                if (self.n_labelled_ + j) % self.explore_every == 0:
                    picks = self._explore(picks, j, cand, groups, rng)
        return np.asarray(picks, dtype=np.int64)

    def _explore(self, picks: list, j: int, cand: np.ndarray, groups, rng) -> list:
        taken = set(picks[:j])
        if groups is None:
            pool = cand[~np.isin(cand, list(taken))]
            choice = int(pool[rng.integers(len(pool))])
        else:
            decided_per = {g: 0 for g in np.unique(groups)}
            for g in groups[self.decided_]:
                decided_per[g] += 1
            for row in taken:
                decided_per[groups[row]] += 1
            for g in sorted(decided_per, key=lambda g: (decided_per[g], g)):
                pool = cand[(groups[cand] == g) & ~np.isin(cand, list(taken))]
                if len(pool):
                    choice = int(top_n(pool, self.scores_[pool], 1)[0])
                    break
        rest = [p for p in picks[j:] if p != choice]
        return picks[:j] + [choice] + rest[: len(picks) - j - 1]

    def _cold(self, cand: np.ndarray, n: int, groups) -> np.ndarray:
        order = np.random.default_rng(self.seed).permutation(len(self.decided_))
        keep = np.zeros(len(self.decided_), dtype=bool)
        keep[cand] = True
        order = order[keep[order]]
        if groups is None:
            return order[:n]
        # one paper per topic in turn, topics with the fewest decisions first
        counts = {g: int((groups[self.decided_] == g).sum()) for g in np.unique(groups)}
        in_order = groups[order]
        queues = {g: deque(order[in_order == g].tolist()) for g in counts}
        picks: list[int] = []
        while len(picks) < n:
            for g in sorted(counts, key=lambda g: (counts[g], g)):
                if queues[g]:
                    picks.append(queues[g].popleft())
                    counts[g] += 1
                    break
        return np.asarray(picks, dtype=np.int64)

    # -- why ---------------------------------------------------------------------------------
    def explain(self, paper: int, k: int = 5, text: str | None = None) -> Explanation:
        """The phrases that pushed the paper's score up and down (linear models with TF-IDF;
        ``text``: the paper's text, to show them as it writes them), otherwise the most similar
        included papers (cosine on the embeddings, else on TF-IDF); with the most similar
        included papers beside the phrases too."""
        self._check_fitted()
        if not 0 <= paper < len(self.decided_):
            raise InputError(f"paper row {paper} is outside 0..{len(self.decided_) - 1}")
        score = None if self.scores_ is None else float(self.scores_[paper])
        f = self.features_
        included = self.labelled_[self.labels_ == 1]
        included = included[included != paper]
        if f.embeddings is not None:
            sims = f.embeddings[included] @ f.embeddings[paper]
        else:
            sims = np.asarray((f.tfidf[included] @ f.tfidf[paper].T).todense()).reshape(-1) if len(included) else np.zeros(0)
        best = np.argsort(-sims, kind="stable")[:k]
        like = tuple((int(included[i]), float(sims[i])) for i in best)
        if self.mode_ == "ranked" and self.active_.features in ("tfidf", "both") and f.tfidf is not None:
            terms, contrib = contributions(f.tfidf[paper], self.weights_[0], f.terms)
            return Explanation(paper, score, "words", phrases(terms, contrib, text, k),
                               phrases(terms, contrib, text, 2, sign=-1), like)
        return Explanation(paper, score, "neighbours", like, like=like)


def ranks(scores: np.ndarray) -> np.ndarray:
    """Each paper's place (0 = first) when sorted by ``scores``, best first, ties by row index."""
    rank = np.empty(len(scores))
    rank[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
    return rank


def _rank_among(scores: np.ndarray, among: np.ndarray, paper: int) -> int:
    """``paper``'s place (0 = first) among the rows where ``among`` is true, by ``scores``,
    best first, ties by row index (the queue's order)."""
    s, mine = scores[among], scores[paper]
    rows = np.flatnonzero(among)
    return int((s > mine).sum() + ((s == mine) & (rows < paper)).sum())


def _exp3_probabilities(log_w: np.ndarray, gamma: float) -> np.ndarray:
    """EXP3's draw: the weights exp(log_w) normalised, mixed with the uniform at ``gamma``."""
    w = np.exp(log_w - log_w.max())
    return (1.0 - gamma) * w / w.sum() + gamma / len(w)


def _exp3_pick(pi: np.ndarray, seed: int, n_decided: int) -> int:
    """The member drawn with probabilities ``pi`` in a fit on ``n_decided`` decisions (the same
    draw whenever those decisions are refitted)."""
    u = np.random.default_rng([seed, n_decided, 2]).random()
    return min(int(np.searchsorted(np.cumsum(pi), u * pi.sum(), side="right")), len(pi) - 1)


def _digest(rows: np.ndarray, labels: np.ndarray) -> bytes:
    """A key for decisions in their order (rows and labels)."""
    import hashlib

    return hashlib.blake2b(np.asarray(rows, np.int64).tobytes() + b"|" + np.asarray(labels, np.int8).tobytes(),
                           digest_size=16).digest()


def as_features(data) -> Features:
    """``data`` as :class:`Features`: Features as they are, texts -> TF-IDF, an array -> embeddings."""
    if isinstance(data, Features):
        return data
    if isinstance(data, np.ndarray) or sp.issparse(data):
        if sp.issparse(data):
            return Features(tfidf=sp.csr_matrix(data, dtype=np.float32), terms=np.array([f"f{i}" for i in range(data.shape[1])]))
        return Features(embeddings=data)
    return Features.from_texts(list(data))

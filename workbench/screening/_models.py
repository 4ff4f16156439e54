"""The ranking models by name: a classifier, the features it reads, and how it weighs the classes.

Every model is linear (a weight per feature, so a re-rank is a sparse and a dense
matrix-vector product) and is refitted on the decided papers after each decision, which
takes milliseconds because only decided papers are fitted (the SVM is solved to its one
minimum from the decided papers' dot products, kept between refits: see ``_svm``). Names are
``<classifier>-<features>``:

========== =================================================================================
classifier ``svm`` linear SVM (squared hinge, C = 0.11), ``lr`` logistic regression
           (C = 1), ``nb`` multinomial naive Bayes (alpha = 3.822; TF-IDF only), ``knn``
           relevance feedback (embeddings only, not linear: the cosine to the nearest include
           minus the cosine to the nearest exclude)
features   ``tfidf`` words and word pairs, ``emb`` the review's embeddings, ``both`` side by side
           (the embedding block scaled by a weight: TF-IDF rows and embeddings both have length 1)
========== =================================================================================

``svm-both``, the default: the embeddings weigh 0.1 until the review has 10 includes, then 0.3
(with a few includes a dense block is fitted too confidently: on a review with 9 includes it
pushed includes unlike the first ones to the back); past 2,000 decided papers it refits on
TF-IDF alone, so a re-rank stays as fast as ASReview's (the refit's cost grows with the dense
block of every decided paper). ``svm-both-w0.3`` is the embeddings at 0.3 throughout.

``-pn``: each refit also takes 100 undecided papers drawn at random as presumed excludes
(Cormack & Grossman's BMI/AutoTAR), which steadies the first models, fitted on two papers.
A ``ModelSpec`` with classifier ``fuse`` combines the scores of its ``components``: the mean of
standardised scores (``z``), reciprocal-rank fusion (``rrf``), or reciprocal ranks weighed by
each component's record (``hedge``: the ranks it gave the last ``hedge_window`` includes when
they were found, as the multiplicative-weights rule of Hedge weighs experts; ``svm-hedge``
fuses ``svm-tfidf``, ``svm-both`` and ``svm-emb`` so), or ``exp3``: each refit draws one
component as EXP3 draws an arm and shows its top paper first, crediting an include so found to
that component alone. Other
``ModelSpec`` fields, each measured by ``benchmarks/screening_loo.py``: ``embedding_curve``
(w, k) weighs the embeddings w * n / (n + k) with n includes (trust growing with the
evidence); ``switch_after`` N with ``switch_to`` M ranks with model M while the decisions end
in N or more excludes in a row (a SAFE-like switch to catch papers the first model ranks
low); ``title_weight`` puts the titles' own TF-IDF beside the texts' (title words weighted
apart; needs ``Features.from_texts(..., titles=...)``).

Classes are weighed as ASReview LAB 2 does ("balanced", ratio r): an include counts r times as
much as an exclude would at equal class sizes, i.e. excludes get weight
``n_includes / (r * n_excludes)`` before the weights are scaled to sum to the number of papers.
The SVM's C and r (9.8) are ELAS u4's, tuned on SYNERGY by ASReview's authors; naive Bayes
uses ELAS u3's (alpha 3.822, r 1.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError

__all__ = ["DEFAULT_MODEL", "MODELS", "SVM_C", "ModelSpec", "balanced_weights", "get_model"]

SVM_C = 0.11  # ELAS u4's


@dataclass(frozen=True)
class ModelSpec:
    name: str
    classifier: str  # "svm" | "lr" | "nb" | "knn" | "fuse"
    features: str  # "tfidf" | "emb" | "both"
    ratio: float = 9.8
    params: dict = field(default_factory=dict)
    presumed: int = 0  # undecided papers drawn at random and fitted as excludes (BMI / AutoTAR)
    embedding_weight: float = 0.3  # scale of the embedding block beside TF-IDF ("both")
    embedding_center: bool = False  # subtract the review's mean embedding before normalising
    embedding_dims: int = 0  # keep the first k principal components of the embeddings (0: all)
    embedding_steps: tuple = ()  # "both": ((k, w), ...): the embedding weight is w from k includes on
    embedding_max_decided: int = 0  # "both": past this many decided papers, TF-IDF alone (0: no limit)
    embedding_curve: tuple = ()  # "both": (w_max, k): weight w_max * n / (n + k) with n includes
    title_weight: float = 0.0  # the titles' own TF-IDF beside the texts', scaled by this (0: none)
    switch_after: int = 0  # after this many excludes in a row, rank with ``switch_to`` (0: never)
    switch_to: object = None  # the model (name or ModelSpec) ranking while such a run lasts
    components: tuple = ()  # "fuse": the models whose scores are combined
    fusion: str = "z"  # "fuse": "z" (mean of standardised scores), "rrf" (reciprocal rank), "hedge" or "exp3"
    # "hedge": the components' reciprocal ranks weighed by their record on the last
    # ``hedge_window`` includes (see Ranker._hedge_weights): weight ~ exp(-rate * sum log(1 + rank)),
    # then mixed with the uniform weights at ``hedge_share`` (no member's weight falls to 0)
    hedge_rate: float = 0.5
    hedge_window: int = 10
    hedge_share: float = 0.1
    # "exp3": each refit draws one component with probability (1 - gamma) * w / sum(w) + gamma / K
    # and shows its top paper first (the rest by reciprocal ranks weighed by those probabilities);
    # an include so shown adds rate / (its probability) to the drawer's log-weight, rate
    # ``exp3_rate`` or, at 0, gamma / K (EXP3, Auer et al. 2002: only the member that drew is
    # credited; see Ranker._exp3_draw)
    exp3_gamma: float = 0.1
    exp3_rate: float = 0.0

    def make(self, seed: int):
        """A fresh, unfitted scikit-learn classifier."""
        if self.classifier == "svm":
            from sklearn.svm import LinearSVC

            return LinearSVC(**{"C": SVM_C, "loss": "squared_hinge", "dual": "auto", "max_iter": 5000, **self.params}, random_state=seed)
        if self.classifier == "lr":
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(**{"C": 1.0, "solver": "liblinear", "max_iter": 1000, **self.params}, random_state=seed)
        if self.classifier == "nb":
            from sklearn.naive_bayes import MultinomialNB

            return MultinomialNB(**{"alpha": 3.822, **self.params})
        raise InputError(f"unknown classifier {self.classifier!r} in model {self.name!r}")

    @property
    def version(self) -> str:
        """Names the model and every parameter that changes its scores (for the store's records)."""
        params = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        if self.classifier == "fuse":
            switch = f",switch_after={self.switch_after}:{get_model(self.switch_to).version}" if self.switch_after else ""
            if self.fusion == "hedge":
                switch += f",hedge={self.hedge_rate}:{self.hedge_window}:{self.hedge_share}"
            if self.fusion == "exp3":
                switch += f",exp3={self.exp3_gamma}" + (f":{self.exp3_rate}" if self.exp3_rate else "")
            return f"{self.name}({self.fusion}:{'+'.join(get_model(c).version for c in self.components)}{switch})/1"
        extra = f",presumed={self.presumed}" if self.presumed else ""
        extra += f",title_weight={self.title_weight}" if self.title_weight else ""
        if self.switch_after:
            extra += f",switch_after={self.switch_after}:{get_model(self.switch_to).version}"
        if self.features in ("both", "emb"):
            extra += f",embedding_weight={self.embedding_weight}" if self.features == "both" else ""
            extra += ",embedding_center=True" if self.embedding_center else ""
            extra += f",embedding_dims={self.embedding_dims}" if self.embedding_dims else ""
            extra += ",embedding_steps=" + ";".join(f"{k}:{w}" for k, w in self.embedding_steps) if self.embedding_steps else ""
            extra += ",embedding_curve={}:{}".format(*self.embedding_curve) if self.embedding_curve else ""
            extra += f",embedding_max_decided={self.embedding_max_decided}" if self.embedding_max_decided else ""
        return f"{self.name}(ratio={self.ratio}{extra}{',' + params if params else ''})/1"

    def weight_at(self, n_includes: int, n_decided: int = 0) -> float:
        """The embedding block's weight in a refit on ``n_decided`` papers, ``n_includes`` of
        them includes."""
        if self.embedding_max_decided and n_decided > self.embedding_max_decided:
            return 0.0
        if self.embedding_curve:
            top, half = self.embedding_curve
            return round(float(top) * n_includes / (n_includes + float(half)), 6)
        weight = self.embedding_weight
        for k, w in self.embedding_steps:
            weight = w if n_includes >= k else weight
        return weight

    def features_at(self, n_includes: int, n_decided: int = 0) -> str:
        """The feature kind a refit uses (see :meth:`weight_at`; weight 0: TF-IDF alone)."""
        if self.features == "both" and self.weight_at(n_includes, n_decided) == 0:
            return "tfidf"
        return self.features


def balanced_weights(y: np.ndarray, ratio: float) -> np.ndarray:
    """ASReview's "balanced" sample weights for labels ``y`` (0/1, both present)."""
    y = np.asarray(y)
    n1, n0 = int((y == 1).sum()), int((y == 0).sum())
    w = np.where(y == 1, 1.0, n1 / (ratio * n0))
    return w * (len(y) / w.sum())


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in [
        ModelSpec("svm-tfidf", "svm", "tfidf"),
        ModelSpec("svm-emb", "svm", "emb"),
        # the embeddings at weight 0.1 until 10 includes, then 0.3; TF-IDF alone past 2,000
        # decided papers (a refit's cost grows with the dense block of every decided paper)
        ModelSpec("svm-both", "svm", "both", embedding_weight=0.1, embedding_steps=((10, 0.3),),
                  embedding_max_decided=2000),
        ModelSpec("svm-both-w0.3", "svm", "both"),  # the embeddings at weight 0.3 throughout
        ModelSpec("lr-tfidf", "lr", "tfidf"),
        ModelSpec("lr-emb", "lr", "emb"),
        ModelSpec("lr-both", "lr", "both"),
        ModelSpec("nb-tfidf", "nb", "tfidf", ratio=1.2),
        ModelSpec("svm-tfidf-pn", "svm", "tfidf", presumed=100),
        # relevance feedback: cosine to the nearest include minus to the nearest exclude
        ModelSpec("knn-emb", "knn", "emb"),
        # svm-both with the titles' own TF-IDF beside the texts' at weight 0.5 (title words
        # weighed apart): as good on the means out of sample, less steady per review
        # svm-tfidf, svm-both and svm-emb, their reciprocal ranks weighed by the ranks each gave
        # the last 10 includes when they were found (fusion "hedge"; "hedge-3" in
        # benchmarks/screening_loo.py): about three fits per refit
        ModelSpec("svm-hedge", "fuse", "both", components=("svm-tfidf", "svm-both", "svm-emb"), fusion="hedge"),
        ModelSpec("svm-both-titles", "svm", "both", embedding_weight=0.1, embedding_steps=((10, 0.3),),
                  embedding_max_decided=2000, title_weight=0.5),
    ]
}

# Chosen by leaving one review out over the nine SYNERGY reviews and nine made tasks
# (benchmarks/screening_loo.py, docs/screening.md); without embeddings the ranker falls back
# to ELAS u4's twin.
DEFAULT_MODEL = "svm-both"
DEFAULT_TEXT_ONLY_MODEL = "svm-tfidf"


def get_model(name: str | ModelSpec) -> ModelSpec:
    if isinstance(name, ModelSpec):
        return name
    try:
        return MODELS[name]
    except KeyError:
        raise InputError(f"unknown screening model {name!r}; choose one of: {', '.join(MODELS)}") from None

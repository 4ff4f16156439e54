"""Ranked screening (active learning), its simulation, and when to stop.

Three parts, each a small module:

- :class:`Features` and :class:`Ranker` (``_features``, ``_models``, ``_ranker``): the
  ranked queue. Build the features once per review and keep them; refit after each decision::

      features = Features.from_texts(texts, embeddings=review_embeddings)  # (n, d), never re-embedded
      ranker = Ranker(seed=review_seed).fit(features, labelled_rows, labels_0_1)
      ranker.next(10)           # the next rows to screen (partial sort: milliseconds at 50,000)
      ranker.scores_[row]       # the card's predicted relevance (higher = more likely relevant)
      ranker.explain(row, text=t)  # why: the phrases that moved it (as text t writes them), the nearest includes
      band(rank, n_queued)      # "high" / "medium" / "low": its place in the queue, as a person reads it
      ranker.name, ranker.version   # what a decision's record names

  ``model=`` picks one of :data:`MODELS` (default :data:`DEFAULT_MODEL`, ``svm-both``: TF-IDF
  with the embeddings beside it, weight 0.1 until 10 includes, then 0.3, TF-IDF alone past
  2,000 decided papers; chosen again by leaving one review out over the nine SYNERGY reviews
  and nine tasks made from other labelled corpora, and at par with ASReview LAB's ELAS u4 on
  SYNERGY, ahead on the made tasks, see docs/screening.md; ``svm-tfidf`` without embeddings). A refit takes tens of milliseconds at 50,000 papers with a few hundred
  decisions and a few hundred with 2,000-5,000, no slower than ELAS u4's update on the same
  papers. Before one include and one exclude the queue is a seeded random order, or one
  paper per topic with ``next(n, groups=topic_per_row)``.
- :func:`simulate` (``_simulate``, ``_metrics``): replays a labelled file from one include and
  one exclude per seed (drawn as ``asreview simulate --prior-seed`` draws them) and measures
  recall at 5/10/25 % screened, WSS@95 and ATD as asreview-insights defines them;
  ``Simulation.to_json()`` / ``.table()`` are ``workbench simulate --format json|table``.
- :class:`ScreeningHistory`, :func:`estimate_remaining`, :func:`stopping_advice` (``_stopping``):
  the estimate of relevant papers still unread with its interval, Callaghan & Müller-Hansen's
  hypergeometric stopping test and "N irrelevant in a row", each returning the claim in words,
  the rule and its numbers (``to_dict()`` for the store's log).

Wiring into the review (for the store, the queue, the widgets and the CLI):

- decisions -> ``labelled_rows``/``labels``: include = 1, exclude = 0. A "maybe" is left out
  of the fit and out of the queue (``next(n, skip=maybe_rows)``), and counts as 1 in a
  :class:`ScreeningHistory` (a stopping rule must not take a possibly relevant paper for an
  irrelevant one). Bulk decisions from the map are fitted like any other, and flagged
  ``bulk=True`` in the history.
- on each human decision, record ``ranker.scores_[row]``, the row's rank (its position in
  ``ranker.ranking()``, or in the ``next()`` list it was shown from) and ``ranker.version``.
- ``workbench rank --next N``: ``ranker.next(N)`` with ``ranker.scores_``;
  ``workbench simulate FILE``: ``simulate(texts, labels, seeds=range(1, N + 1))`` then
  ``to_json()`` or ``table()``; ``workbench stopping``: ``estimate_remaining(history)`` and
  ``stopping_advice(history)`` on the review's decisions in order (``bulk`` for decisions made
  from the map, ``sampled`` for those of a random-sample phase).
"""

from ._explain import BANDS, band, describe_model, phrases
from ._features import TFIDF_PARAMS, Features, title_block
from ._metrics import atd, recall_at, recall_curve, wss
from ._models import DEFAULT_MODEL, MODELS, ModelSpec, get_model
from ._ranker import Explanation, Ranker, as_features, top_n
from ._svm import Kernels
from ._simulate import DEFAULT_RULES, Run, Simulation, asreview_priors, simulate, stopping_points
from ._stopping import (
    RemainingEstimate, ScreeningHistory, StoppingAdvice, estimate_remaining, hypergeometric_test,
    irrelevant_in_a_row, min_ranked_p, ranked_p_values, stopping_advice
)

__all__ = [
    "BANDS",
    "DEFAULT_MODEL",
    "DEFAULT_RULES",
    "MODELS",
    "TFIDF_PARAMS",
    "Explanation",
    "Features",
    "Kernels",
    "ModelSpec",
    "Ranker",
    "RemainingEstimate",
    "Run",
    "ScreeningHistory",
    "Simulation",
    "StoppingAdvice",
    "as_features",
    "asreview_priors",
    "describe_model",
    "atd",
    "band",
    "estimate_remaining",
    "get_model",
    "hypergeometric_test",
    "irrelevant_in_a_row",
    "min_ranked_p",
    "phrases",
    "ranked_p_values",
    "recall_at",
    "recall_curve",
    "simulate",
    "stopping_advice",
    "stopping_points",
    "title_block",
    "top_n",
    "wss",
]

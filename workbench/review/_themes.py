"""Finding a review's topics again: another fit, k themes, a selection's sub-topics, stability.

Every function works from the review's cached embeddings and never moves the map. A refit or
themes with ``save=True`` is saved all or nothing (see ``_build.save``); without it the review in
memory shows the new topics and the folder keeps the old. A refit or themes hands the next fit
what the review's last fit in this process computed from its papers alone (``Review.model``:
the neighbour graph of the embeddings, the texts' document-term matrix), so neither is
computed twice; a review opened since has the word counts its build kept in its ``cache/``.
"""

from __future__ import annotations

import copy
import logging
from typing import TYPE_CHECKING, Sequence

from ..errors import InputError, ReviewError
from ..topics import TopicModel
from .build._reuse import BuildCache

if TYPE_CHECKING:
    from ._review import Review

__all__ = ["recluster", "refit", "show_themes", "stored_topic_params", "topic_stability"]

log = logging.getLogger(__name__)


def stored_topic_params(review: Review) -> dict:
    """The topic parameters the review was built with, less any this version no longer has.

    A review built by an older workbench may name a parameter since replaced (``merge_distance``
    became ``merge_variance``): it is dropped, with a log line, and today's default is used.
    """
    stored = dict(review.manifest.get("topic_params", {}))
    known = TopicModel().get_params()
    gone = sorted(set(stored) - set(known))
    if gone:
        log.info("%s: ignoring topic parameters of an older workbench: %s", review.path, ", ".join(gone))
    params = {k: v for k, v in stored.items() if k in known}
    params.setdefault("seed", review.manifest.get("seed", 42))
    return params


def _check_writable(review: Review, what: str) -> None:
    """Refuse a save up front (not after minutes of work) where it cannot be written."""
    from ..store import DB_NAME, read_only_reason

    store = review.path / DB_NAME
    reason = read_only_reason(store) if store.exists() else None
    if reason:
        raise ReviewError(f"permission denied: {reason}, so the {what} cannot be saved in {review.path}; "
                          "nothing was saved; look at them without saving (save=False), or ask the "
                          "review's owner for write access")


def refit(review: Review, save: bool = False, reviewer: str | None = None, **topic_params) -> Review:
    """See :meth:`Review.refit`."""
    if save:
        _check_writable(review, "refit")
    params = {**stored_topic_params(review), **topic_params}
    model = TopicModel(**params).fit(review.texts(), review.embeddings(), word_vectors=review.word_vectors(),
                                     **_computed(review))
    return _adopt(review, model, params, save, reviewer)


def _computed(review: Review) -> dict:
    """What the review's last fit in this process computed from its papers alone, for the next
    fit: ``graph`` and ``terms`` (see :meth:`TopicModel.fit`); after opening it, the word counts
    its build kept (asked for when the labels need them)."""
    last = review.model
    kept = last is not None and last.terms_ is not None
    return {"graph": last.graph_ if last is not None else None,
            "terms": last.terms_ if kept else BuildCache(review.path).terms}


def show_themes(review: Review, k: int | None = None, save: bool = False, reviewer: str | None = None) -> Review:
    """See :meth:`Review.show_themes`."""
    if k is not None and int(k) < 1:
        raise InputError(f"{k} themes; expected 1 or more, or None for the default topics")
    if save:
        _check_writable(review, "themes")
    if review.fine_labels is None or len(review.fine_labels) != len(review.papers):
        return refit(review, save=save, reviewer=reviewer, nr_topics=int(k) if k else None)
    params = {**stored_topic_params(review), "nr_topics": int(k) if k else None}
    model = TopicModel(**params).fit_from_topics(
        review.texts(), review.embeddings(), review.fine_labels, review.reduced, word_vectors=review.word_vectors(),
        **_computed(review))
    return _adopt(review, model, params, save, reviewer)


def _adopt(review: Review, model: TopicModel, params: dict, save: bool, reviewer: str | None) -> Review:
    """Make a fitted model's topics the review's (and with ``save``, the folder's and store's).

    With ``save`` the new topics are shown only once they are saved: if saving fails, the
    review (in memory and on disk) keeps its previous topics and the error says so.
    """
    from .build._build import save as save_review

    new = copy.copy(review)
    new.model_labels, new.model_topics, new.reduced = model.labels_, model.topic_info_, model.reduced_embeddings_
    new.fine_labels = model.fine_labels_
    new.labels, new.topics = new.model_labels, new.model_topics
    new.manifest = {
        **review.manifest,
        "topic_params": params,
        "topics": {"method": model.method_, "note": model.note_, "count": int((new.topics.topic >= 0).sum())},
    }
    new.model = model
    if save:
        new.last_save = save_review(new, model, reason="topic-run", sync=False, reviewer=reviewer)
    review.__dict__.update(new.__dict__)
    return review


def topic_stability(review: Review, seeds: Sequence[int] = (1, 2, 3, 4)):
    """See :meth:`Review.topic_stability`."""
    from ..topics import seed_labelings
    from ..topics import topic_stability as stability_of

    runs = seed_labelings(review.embeddings(), stored_topic_params(review), seeds)
    scores = stability_of(review.labels, runs)
    frame = review.topics[["topic", "label", "size"]].copy()
    frame["stability"] = [scores.get(int(t), float("nan")) for t in frame.topic]
    return frame


def recluster(review: Review, ids: Sequence[str], min_cluster_size: int | None = None,
              seed: int | None = None):
    """See :meth:`Review.recluster`."""
    import pandas as pd

    rows = review.rows(ids)
    texts = review.texts()
    seed = review.manifest.get("seed", 42) if seed is None else seed
    model = TopicModel(min_cluster_size=min_cluster_size, seed=seed).fit(
        [texts[r] for r in rows], review.embeddings()[rows], word_vectors=review.word_vectors())
    labels = dict(zip(model.topic_info_.topic, model.topic_info_.label))
    return pd.DataFrame({
        "id": [review.papers[r].id for r in rows],
        "title": [review.papers[r].title for r in rows],
        "subtopic": model.labels_,
        "subtopic_label": [labels.get(t, "Unassigned") for t in model.labels_],
    })

"""Finding a review's topics again: :func:`refit` (another fit) and :func:`show_themes` (k themes).

Each returns a new :class:`~workbench.review.Review` with the new topics (the review given is
left as it is), from the review's cached embeddings, and never moves the map. With ``save=True``
the new topics are saved all or nothing (see ``build._save.save``); without it only the review
returned shows them and the folder keeps the old. A refit or themes hands the next fit what the
review's last fit in this process computed from its papers alone (``Review.model``: the
neighbour graph of the embeddings, the texts' document-term matrix), so neither is computed
twice; a review opened since has the word counts its build kept in its ``cache/``.
"""

from __future__ import annotations

from ..errors import InputError, ReviewError
from ..store import DB_NAME, read_only_reason
from ..topics import TopicModel
from ._review import Review, stored_topic_params
from .build._reuse import BuildCache
from .build._save import save as save_review

__all__ = ["refit", "show_themes"]


def _check_writable(review: Review, what: str) -> None:
    """Refuse a save up front (not after minutes of work) where it cannot be written."""
    store = review.path / DB_NAME
    reason = read_only_reason(store) if store.exists() else None
    if reason:
        raise ReviewError(f"permission denied: {reason}, so the {what} cannot be saved in {review.path}; "
                          "nothing was saved; look at them without saving (save=False), or ask the "
                          "review's owner for write access")


def refit(review: Review, save: bool = False, reviewer: str | None = None, **topic_params) -> Review:
    """Find ``review``'s topics again with other parameters (e.g. ``min_cluster_size=10``), in
    this process: a new review with new ``labels`` and ``topics`` (the one given is left as it
    is). The embeddings come from the cache and the map stays where it is; ``save=True`` also
    writes the topics to the folder (all or nothing, recorded under ``reviewer``)."""
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
    """``review``'s topics as ``k`` themes (None: the default topics), as a new review, from
    HDBSCAN's topics kept in the review: the Ward tree is cut again and only words and labels
    are computed, no UMAP or HDBSCAN (seconds where a refit of 50,000 papers takes a minute).
    The same topics as ``refit(review, nr_topics=k)``; a review without its HDBSCAN topics (built
    before they were kept) is refitted instead. ``save``: as for :func:`refit`."""
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
    """A new review with a fitted model's topics (and with ``save``, saved to the folder and store).

    With ``save`` the new review is returned only once it is saved: if saving fails, nothing
    (in memory or on disk) shows the new topics and the error says so.
    """
    manifest = {
        **review.manifest,
        "topic_params": params,
        "topics": {"method": model.method_, "note": model.note_, "count": int((model.topic_info_.topic >= 0).sum())},
    }
    new = review.replace(manifest=manifest, topics=model.topic_info_, labels=model.labels_,
                         reduced=model.reduced_embeddings_, fine_labels=model.fine_labels_, model=model)
    if save:
        new = save_review(new, model, reason="topic-run", sync=False, reviewer=reviewer)
    return new

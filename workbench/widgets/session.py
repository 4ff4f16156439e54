"""A review opened for interactive work: every action is saved to the store at once.

:class:`Session` is plain Python (no ipywidgets): the notebooks' views call it, tests call it
directly, and a scripted action in a headless run goes through exactly the same methods as a
click. It owns the review (papers, topics, map, embeddings) and the annotation store.
"""

from __future__ import annotations

from functools import cached_property
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError
from ..records import DECISIONS
from ..review import Review, SearchResult, open_review, query_terms

__all__ = ["SearchResult", "Session", "query_terms"]


class Session:
    """Interactive work on one review, as one reviewer.

    Open with :meth:`open`; close with :meth:`close` (or use it as a context manager).
    """

    def __init__(self, review: Review, store):
        self.review = review
        self.store = store
        self.listeners: list = []  # callables(event: str, ids: list[str]) told after each action
        self.stability: dict[int, float] = {}  # topic -> stability across seeds, once checked

    @classmethod
    def open(cls, review: str | Review = "review", reviewer: str | None = None) -> "Session":
        if not isinstance(review, Review):
            review = open_review(review)
        return cls(review, review.store(reviewer=reviewer))

    def close(self) -> None:
        self.store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def reviewer(self) -> str:
        return self.store.reviewer

    # ------------------------------------------------------------------ reading

    @property
    def ids(self) -> list[str]:
        """Every paper id, in map order (a new list each time; the order never changes)."""
        return list(self._id_order)

    @cached_property
    def _id_order(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.review.papers)

    def ids_at(self, rows) -> list[str]:
        """The ids of the papers at map rows ``rows`` (what a lasso on the map reports)."""
        order = self._id_order
        return [order[int(i)] for i in rows]

    def rows_of(self, ids) -> list[int]:
        """The map rows of ``ids`` (the inverse of :meth:`ids_at`)."""
        return self.review.rows(ids)

    def paper(self, paper_id: str):
        return self.review.paper(self.resolve(paper_id))

    def resolve(self, id_or_prefix: str) -> str:
        """A full paper id from an id or a unique prefix."""
        if id_or_prefix in self.review:
            return id_or_prefix
        return self.store.resolve(id_or_prefix)

    def frame(self):
        """The papers table plus ``tags``, ``decision``, ``notes`` and ``first_tag`` from the store."""
        return self.review.frame(self.store)

    def annotation_columns(self) -> dict[str, list]:
        """``tags``, ``decision``, ``notes`` and ``first_tag`` of every paper in map order, from one
        read of the store: what a view refreshes after an action, without rebuilding :meth:`frame`."""
        return self.review.annotation_columns(self.store)

    def topic_columns(self) -> dict[str, list]:
        """``topic`` and ``topic_label`` of every paper in map order (after renames and merges)."""
        labels = self.review.topic_labels()
        return {
            "topic": self.review.labels,
            "topic_label": [labels.get(int(t), "Unassigned") for t in self.review.labels],
        }

    def vocabulary(self) -> list[str]:
        return [t.name for t in self.store.vocabulary()]

    def topic_label(self, topic: int) -> str:
        return self.review.topic_labels().get(int(topic), "Unassigned")

    @property
    def embeddings(self) -> np.ndarray:
        return self.review.embeddings()

    # ------------------------------------------------------------------ actions (saved at once)

    def _ids(self, ids: str | Iterable[str]) -> list[str]:
        items = [ids] if isinstance(ids, str) else list(ids)
        if not items:
            raise InputError("no papers selected; select some papers first")
        return [self.resolve(i) for i in items]

    def _changed(self, event: str, ids: Sequence[str]) -> None:
        for listener in list(self.listeners):
            listener(event, list(ids))

    def tag(self, ids, *tags: str) -> int:
        ids = self._ids(ids)
        added = self.store.tag(ids, *[t.strip() for t in tags if t and t.strip()])
        self._changed("tag", ids)
        return added

    def untag(self, ids, tag: str) -> int:
        ids = self._ids(ids)
        with self.store.transaction():  # all of the selection or none of it
            removed = sum(bool(self.store.untag(i, tag)) for i in ids)
        self._changed("untag", ids)
        return removed

    def toggle_tag(self, paper_id: str, tag: str) -> bool:
        """Add ``tag`` if the paper lacks it, else remove it. Returns whether it is now tagged."""
        pid = self.resolve(paper_id)
        if tag in self.store.tags(pid):
            self.untag(pid, tag)
            return False
        self.tag(pid, tag)
        return True

    def note(self, ids, text: str) -> list[int]:
        ids = self._ids(ids)
        if not text or not text.strip():
            raise InputError("the note is empty; write something first")
        note_ids = self.store.note_each(ids, text.strip())  # one action: one undo takes it back
        self._changed("note", ids)
        return note_ids

    def decide(self, ids, decision: str, reason: str | None = None) -> int:
        ids = self._ids(ids)
        if decision not in DECISIONS:
            raise InputError(f"decision {decision!r}; expected one of {', '.join(DECISIONS)}")
        changed = self.store.decide(ids, decision, reason=(reason or "").strip() or None)
        self._changed("decide", ids)
        return changed

    def undo(self, n: int = 1):
        undone = self.store.undo(n)
        self.review.refresh_topics()  # the undone action may have been a rename, merge or move
        self._changed("undo", [])
        return undone

    def _check_topics_current(self) -> None:
        """Topic numbers name the topics of the saved run: refuse an edit made on older ones."""
        if not self.review.is_current():
            raise InputError(
                "the topics were saved anew elsewhere (another notebook or the command line) since "
                "this view read them, so topic numbers here may name other topics; nothing was "
                "changed; reload the review (Session.reload()) and try again"
            )

    def reload(self) -> str:
        """Read the review again from disk (after another notebook or the command line saved new
        topics or rebuilt it); returns what changed, in words."""
        old = self.review
        new = old.reopen()
        if [p.id for p in new.papers] != [p.id for p in old.papers]:
            self.__dict__.pop("_id_order", None)
        self.review = new
        self.stability = {}
        before, after = int((old.topics.topic >= 0).sum()), int((new.topics.topic >= 0).sum())
        what = (f"{len(new.papers)} papers ({len(new.papers) - len(old.papers):+d}), "
                f"{after} topics (were {before})")
        self._changed("reload", [])
        return what

    def rename_topic(self, topic: int, label: str) -> None:
        if not label or not label.strip():
            raise InputError("the topic name is empty; type a name first")
        self._check_topics_current()
        self.store.rename_topic(int(topic), label.strip())
        self.review.refresh_topics()
        self._changed("topics", [])

    def merge_topics(self, topics: Iterable[int], into: int | None = None) -> int:
        topics = [int(t) for t in topics]
        if len(set(topics)) < 2:
            raise InputError(f"merging needs two or more topics, got {topics}")
        self._check_topics_current()
        kept = self.store.merge_topics(topics, into=into)
        self.review.refresh_topics()
        self._changed("topics", [])
        return kept

    def move_paper(self, paper_id: str, topic: int) -> None:
        self._check_topics_current()
        self.store.move_paper(self.resolve(paper_id), int(topic))
        self.review.refresh_topics()
        self._changed("topics", [paper_id])

    def show_themes(self, k: int | None) -> int:
        """Find the topics again as ``k`` themes (None: the default topics), saved to the review.

        The themes cut the same Ward tree as the default topics (see
        :meth:`workbench.topics.TopicModel.reduce_to`); the map stays where it is, human topic
        names carry over to the matching topics, tags and notes are untouched. Returns the
        number of topics now shown.
        """
        if k is not None and int(k) < 2:
            raise InputError(f"{k} themes; ask for 2 or more, or for the default topics")
        self.review.show_themes(int(k) if k else None, save=True, reviewer=self.reviewer)
        self.review.refresh_topics()
        self.stability = {}
        self._changed("topics", [])
        return int((self.review.topics.topic >= 0).sum())

    def topic_stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """Each shown topic's stability across ``seeds`` (0..1; see :meth:`Review.topic_stability`),
        kept in :attr:`stability` for the views to show."""
        frame = self.review.topic_stability(seeds)
        self.stability = {int(t): float(v) for t, v in zip(frame.topic, frame.stability)}
        self._changed("stability", [])
        return frame

    # ------------------------------------------------------------------ the map selection

    def save_selection(self, ids: Sequence[str]) -> None:
        """Remember the map selection (``selection.json`` in the review) for the other notebooks."""
        import json

        path = self.review.path / "selection.json"
        tmp = path.with_name(".selection.json.tmp")
        tmp.write_text(json.dumps({"reviewer": self.reviewer, "ids": list(ids)}), encoding="utf-8")
        tmp.replace(path)

    def load_selection(self) -> list[str]:
        import json

        path = self.review.path / "selection.json"
        if not path.exists():
            return []
        ids = json.loads(path.read_text(encoding="utf-8")).get("ids", [])
        return [i for i in ids if i in self.review]

    # ------------------------------------------------------------------ search and neighbours

    def keyword_search(self, query: str) -> list[str]:
        """Papers whose title or abstract contains every word of ``query`` (at a word start), and
        every character bigram of its Chinese, Japanese or Korean words (anywhere)."""
        return self.review.keyword_search(query)

    def semantic_search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` papers nearest in meaning to ``query`` (cosine similarity of embeddings)."""
        return self.review.semantic_search(query, k)

    def search(self, query: str, k: int = 10, semantic: bool = True) -> SearchResult:
        return self.review.search(query, k, semantic)

    def neighbours(self, paper_id: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` most similar other papers, with cosine similarity."""
        return self.review.neighbours(self.resolve(paper_id), k)

    def similarity(self, ids: Sequence[str]) -> np.ndarray:
        return self.review.similarity([self.resolve(i) for i in ids])

    def recluster(self, ids: Sequence[str], min_cluster_size: int | None = None, seed: int | None = None):
        """Sub-topics of a selection, from the cached embeddings (not saved).

        Returns a DataFrame: id, title, subtopic, subtopic_label.
        """
        return self.review.recluster(self._ids(ids), min_cluster_size, seed)

    def write_report(self, folder=None, image: bool = True) -> dict:
        """The review's report (report.md, report.html, map.png, exports) with this reviewer's
        decisions; see :meth:`workbench.Review.write_report`."""
        return self.review.write_report(folder, image=image, reviewer=self.reviewer)

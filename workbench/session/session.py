"""A review opened for interactive work: every action is saved to the store at once.

:class:`Session` is plain Python (no ipywidgets): the notebooks' views call it, tests call it
directly, and a scripted action in a headless run goes through exactly the same methods as a
click. It holds the review (papers, topics, map, embeddings) and ONE annotation store, through
which every read and write of the session goes (a tag, a note, a decision, a resolution, a
verdict on duplicates: the review's parts are handed the session's store). Its parts:
``session.topics`` (renames, merges, themes), ``session.map`` (colours, bulk decisions),
``session.team`` (who is screening, conflicts, what blind mode shows), ``session.living`` (a new
search, duplicates). For searching, neighbours and the like, use the review shown
(``session.review``) or the store (``session.store``) directly.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
from functools import cached_property
from typing import Iterable, Sequence

from ..corpus.paper import DECISIONS, FULL_TEXT, TITLE_ABSTRACT
from ..errors import InputError, WorkbenchError
from ..review import Review, SearchResult, open_review, query_terms
from ..space.palette import theme_parts, topic_colours
from .changes import Undone, describe_new_files, describe_news, describe_undo
from .living import LivingWork
from .mapscreen import MapScreening
from .teamwork import TeamWork, check_stage, default_name, stage_decision
from .topics import TopicWork

__all__ = ["SearchResult", "Session", "Undone", "query_terms"]

log = logging.getLogger(__name__)


class Session:
    """Interactive work on one review, as one reviewer.

    Open with :meth:`open`; close with :meth:`close` (or use it as a context manager). In team
    use a change needs the reviewer's own name first (``session.team.needs_name()``,
    ``session.team.set_reviewer(name)``).
    """

    def __init__(self, review: Review, store):
        self.review = review  # the topics shown: the saved ones, or themes being looked at
        self.saved = review  # the topics saved in the review folder (what 02 and 04 use)
        self.store = store
        self.listeners: list = []  # callables(event: str, ids: list[str]) told after each action
        self.stability: dict[int, float] = {}  # topic -> stability across seeds, once checked
        self.preview: int | str | None = None  # k of themes shown but not saved ("default": k=None)
        self.warnings: list[str] = []  # what failed after an action was saved (map.html)
        self._seen = self._latest_change()
        self.topics = TopicWork(self)
        self.map = MapScreening(self)
        self.team = TeamWork(self)
        self.living = LivingWork(self)

    @classmethod
    def open(cls, review: str | Review = "review", reviewer: str | None = None) -> "Session":
        if not isinstance(review, Review):
            review = open_review(review)
        return cls(review, review.store(reviewer=default_name(reviewer)))

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
        """A full paper id from an id or a unique prefix (an id merged into another paper: the
        paper it joined, with a warning, as the store resolves it)."""
        return self.selected(id_or_prefix)[0]

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

    def topic_colours(self) -> dict[int, str]:
        """``{topic id: "#rrggbb"}`` of the topics shown (:mod:`workbench.space.palette`): keyed by topic
        id; themes being looked at take the colour of their largest saved topic."""
        labels = [int(t) for t in self.review.labels]
        sizes = {t: labels.count(t) for t in set(labels)}
        if self.preview is None:
            return topic_colours(sizes)
        return topic_colours(sizes, theme_parts(self.saved.labels, labels))

    def topic_label(self, topic: int) -> str:
        return self.review.topic_labels().get(int(topic), "Unassigned")

    # ------------------------------------------------------------------ actions (saved at once)

    def selected(self, ids: str | Iterable[str]) -> list[str]:
        """The full ids of a selection (ids or unique prefixes; an id a person merged into another
        paper: the paper it joined); an empty selection is an error."""
        items = [ids] if isinstance(ids, str) else list(ids)
        if not items:
            raise InputError("no papers selected; select some papers first")
        merged = self.store.duplicates.merged_into()  # ids of the map a person merged away go to the store
        return [i if i in self.review and i not in merged else self.store.resolve(i) for i in items]

    def subscribe(self, listener) -> None:
        """Call ``listener(event, ids)`` after every action of this session (views stay in step)."""
        self.listeners.append(listener)

    def notify(self, event: str, ids: Sequence[str]) -> None:
        """Tell the listeners (:meth:`subscribe`) that ``event`` touched ``ids``.

        The store's latest change is taken as seen when this action added at most one change
        (its own) since the last look; more means another process wrote meanwhile, and the next
        :meth:`follow` reads it."""
        latest = self._latest_change()
        if event == "reload" or latest - self._seen <= 1:
            self._seen = latest
        for listener in list(self.listeners):
            listener(event, list(ids))

    def _latest_change(self) -> int:
        return self.store.latest_change()

    def tag(self, ids, *tags: str) -> int:
        self.team.require_name()
        ids = self.selected(ids)
        added = self.store.tags.add(ids, *[t.strip() for t in tags if t and t.strip()])
        self.notify("tag", ids)
        return added

    def untag(self, ids, tag: str) -> int:
        self.team.require_name()
        ids = self.selected(ids)
        with self.store.transaction():  # all of the selection or none of it
            removed = sum(bool(self.store.tags.remove(i, tag)) for i in ids)
        self.notify("untag", ids)
        return removed

    def toggle_tag(self, paper_id: str, tag: str) -> bool:
        """Add ``tag`` if the paper lacks it, else remove it. Returns whether it is now tagged."""
        pid = self.resolve(paper_id)
        if tag in self.store.tags.of(pid):
            self.untag(pid, tag)
            return False
        self.tag(pid, tag)
        return True

    def note(self, ids, text: str) -> list[int]:
        self.team.require_name()
        ids = self.selected(ids)
        if not text or not text.strip():
            raise InputError("the note is empty; write something first")
        note_ids = self.store.notes.add_each(ids, text.strip())  # one action: one undo takes it back
        self.notify("note", ids)
        return note_ids

    def decide(self, ids, decision: str, reason: str | None = None, ranking=None, bulk: bool | None = None,
               stage: str = TITLE_ABSTRACT) -> int:
        """This reviewer's decision on ``ids`` at ``stage``, recorded with the rank, score and
        model that ``ranking`` (a :class:`workbench.review.Ranking`) showed; ``bulk``: decided
        without reading each paper (default: several papers at once). At full text: include,
        exclude with a reason, or "not retrieved"."""
        self.team.require_name()
        ids = self.selected(ids)
        allowed = DECISIONS if check_stage(stage) == TITLE_ABSTRACT else ("include", "exclude", "not retrieved")
        if decision.replace("-", " ") not in allowed:
            raise InputError(f"decision {decision!r}; expected one of {', '.join(allowed)} (at {stage})")
        decision, reason = stage_decision(decision, reason, stage)
        changed = self.saved.screening.decide(ids, decision, reason, ranking=ranking if stage != FULL_TEXT else None,
                                              bulk=bulk, stage=stage, store=self.store)
        self.notify("decide", ids)
        return changed

    def rank(self, by_topic: bool = False):
        """The saved review's ranking of this reviewer's queue (a model refitted when the
        decisions changed): scores for every paper, see :meth:`workbench.review.ReviewScreening.rank`."""
        return self.saved.screening.rank(0, by_topic=by_topic, store=self.store)

    def stopping(self, log: bool = True):
        """Relevant papers left and whether this reviewer may stop (logged in the store)."""
        return self.saved.screening.stopping(log=log, store=self.store)

    def undo(self, n: int = 1) -> Undone:
        """Undo this reviewer's last change: what it was, in words, and the papers it touched.

        A saved topic run is undone with its files (the review's previous topics and files
        come back); any topics being looked at are put away first.
        """
        self.team.require_name()
        entries = self.store.undo(n)
        papers = [p for e in entries for p in self.store.papers_changed(e.id)]
        undone = describe_undo(entries, papers, lambda p: self.review.paper(p).title if p in self.review else None)
        if undone.topics:
            self._show_saved_topics()
        self.notify("undo", [p for p in papers if p in self.review])
        return undone

    def _show_saved_topics(self) -> None:
        """The saved topics changed (an edit, an undo, a reload): show them, and map.html too."""
        self.preview, self.stability = None, {}
        if self.saved.is_current():
            self.saved.refresh_topics()
        else:
            self.saved = open_review(self.saved.path, like=self.saved)
            self.__dict__.pop("_id_order", None)
        self.review = self.saved
        self.publish_map()

    def publish_map(self) -> None:
        """Rewrite map.html from the saved topics; a failure is kept in :attr:`warnings` (the
        change itself is saved)."""
        try:
            self.saved.publish_map()
        except (OSError, WorkbenchError) as err:
            self.warnings.append(f"the change is saved, but map.html could not be rewritten ({err})")
            log.warning(self.warnings[-1])

    def changed_elsewhere(self) -> bool:
        """Whether the store holds a change this session has not shown yet (made by another
        kernel, the command line, a colleague, or this kernel outside the session): one read of
        the history's latest number, cheap enough to ask before every action of a view."""
        return self._latest_change() != self._seen

    def follow(self) -> str:
        """The one route by which the views follow the review: when the store changed since this
        session last looked (:meth:`changed_elsewhere`), read the review again (:meth:`reload`),
        which tells every view of the session; returns what changed, in words ("" when nothing
        did). The views call it before each action of the user (see ``workbench.widgets``)."""
        return self.reload() if self.changed_elsewhere() else ""

    def reload(self) -> str:
        """Read the review again from disk (after another notebook or the command line tagged,
        decided, renamed, saved new topics, added a search or rebuilt it); returns what changed,
        in words."""
        news = [e for e in self.store.history(limit=500) if e.id > self._seen]
        old = self.saved
        before = {"topics": int((old.topics.topic >= 0).sum()), "names": old.topic_labels()}
        if old.is_current():
            old.refresh_topics()
            new = old
        else:
            new = open_review(old.path, like=old)
        self._show(new)
        what = [describe_news(news)]
        if new is not old:
            what.append(describe_new_files(old, new, before["topics"]))
        renamed = sum(1 for t, name in new.topic_labels().items() if before["names"].get(t, name) != name)
        if renamed and new is old:
            what.append(f"{renamed} topic names changed")
        if new is not old or renamed:
            self.publish_map()
        self.notify("reload", [])
        return "; ".join(what)

    def reopen(self) -> str:
        """Read the review from disk afresh (nothing kept from what this session read before) and
        tell every view: what a view that could not follow a change offers (its Reopen button)."""
        old = self.saved
        new = open_review(old.path)
        self.preview = None
        self._show(new)
        self.publish_map()
        self.notify("reload", [])
        return f"reopened: {len(new.papers)} papers, {int((new.topics.topic >= 0).sum())} topics"

    def _show(self, new: Review) -> None:
        """Make ``new`` (read from disk) the saved review; it is the one shown too, unless themes
        of the same files are being looked at."""
        old = self.saved
        if new is not old and [p.id for p in new.papers] != list(self._id_order):
            self.__dict__.pop("_id_order", None)
        looked_at = self.preview is not None and new is old
        self.saved = new
        if not looked_at:
            self.review, self.preview, self.stability = new, None, {}

    # ------------------------------------------------------------------ the map selection

    def _write_json(self, name: str, doc: dict) -> None:
        path = self.review.path / name
        tmp = path.with_name(f".{name}.tmp")
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        tmp.replace(path)

    def _read_json(self, name: str) -> dict:
        path = self.review.path / name
        try:
            return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        except ValueError:  # half-written by an older version: as if there were none
            return {}

    def save_selection(self, ids: Sequence[str]) -> None:
        """Remember the map selection (``selection.json`` in the review) for the other notebooks."""
        self._write_json("selection.json", {"reviewer": self.reviewer, "ids": list(ids)})

    def load_selection(self) -> list[str]:
        return [i for i in self._read_json("selection.json").get("ids", []) if i in self.review]

    def send_to_queue(self, ids: Sequence[str], what: str) -> int:
        """Hand papers to the screening queue of 02 (``queue.json`` in the review, read by every
        notebook and kernel; the queue's "sent" filter shows them, and 02's Reload switches to
        them); ``what`` says where they came from. Returns how many."""
        ids = self.selected(ids)
        sent_at = datetime.now(timezone.utc).isoformat()
        self._write_json("queue.json", {"reviewer": self.reviewer, "ids": ids, "what": what, "sent_at": sent_at})
        self.notify("queue", ids)
        return len(ids)

    def load_queue(self) -> tuple[list[str], str]:
        """The papers last sent to the screening queue, and where they came from."""
        doc = self._read_json("queue.json")
        return [i for i in doc.get("ids", []) if i in self.review], str(doc.get("what", ""))

    def queue_sent_at(self) -> str:
        """When papers were last sent to the screening queue (ISO time; "" if never)."""
        return str(self._read_json("queue.json").get("sent_at", ""))

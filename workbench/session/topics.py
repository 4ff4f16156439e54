"""Topic work in a :class:`~workbench.session.session.Session`: renames, merges and moves saved
at once; k themes looked at without saving, then saved (one undo takes a save back); stability;
and reading the review again after a change elsewhere.

Two reviews are held: ``saved`` (the topics in the review folder, which the other notebooks
and the report use) and ``review`` (the topics shown: the saved ones, or themes being looked
at, ``preview``). After every change to the saved topics map.html is written again, so the file
says what the views say.
"""

from __future__ import annotations

import copy
import logging
from typing import Iterable, Sequence

from ..errors import InputError, WorkbenchError
from .changes import carry_names, describe_news

__all__ = ["TopicActions"]

log = logging.getLogger(__name__)


class TopicActions:
    """The topic half of :class:`~workbench.session.session.Session` (a mixin: it uses the
    session's ``saved``, ``review``, ``store``, ``preview``, ``stability`` and ``_changed``)."""

    def _show_saved_topics(self) -> None:
        """The saved topics changed (an edit, an undo, a reload): show them, and map.html too."""
        self.preview, self.stability = None, {}
        if self.saved.is_current():
            self.saved.refresh_topics()
        else:
            self.saved = self.saved.reopen()
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

    def _check_topics_current(self) -> None:
        """Topic numbers name the topics of the saved run: refuse an edit made on older ones."""
        if self.preview is not None:
            raise InputError(
                "these themes are only being looked at (not saved), so topic edits would land on "
                "other topics; nothing was changed; save them (Save these themes) or go back to "
                "the saved topics first")
        if not self.saved.is_current():
            raise InputError(
                "the topics were saved anew elsewhere (another notebook or the command line) since "
                "this view read them, so topic numbers here may name other topics; nothing was "
                "changed; reload the review (Session.reload()) and try again"
            )

    def reload(self) -> str:
        """Read the review again from disk (after another notebook or the command line tagged,
        decided, renamed, saved new topics or rebuilt it); returns what changed, in words."""
        news = [e for e in self.store.history(limit=500) if e.id > self._seen]
        old = self.saved
        before = {"papers": len(old.papers), "topics": int((old.topics.topic >= 0).sum()),
                  "names": old.topic_labels()}
        if old.is_current():
            old.refresh_topics()
            new = old
        else:
            new = old.reopen()
            if [p.id for p in new.papers] != [p.id for p in old.papers]:
                self.__dict__.pop("_id_order", None)
        looked_at = self.preview is not None and new is old
        self.saved = new
        if not looked_at:
            self.review, self.preview, self.stability = new, None, {}
        what = [describe_news(news)]
        topics = int((new.topics.topic >= 0).sum())
        if new is not old:
            what.append(f"topics saved anew: {len(new.papers)} papers ({len(new.papers) - before['papers']:+d}), "
                        f"{topics} topics (were {before['topics']})")
        renamed = sum(1 for t, name in new.topic_labels().items() if before["names"].get(t, name) != name)
        if renamed and new is old:
            what.append(f"{renamed} topic names changed")
        if new is not old or renamed:
            self.publish_map()
        self._changed("reload", [])
        return "; ".join(what)

    def _edited_topics(self, ids=()) -> None:
        self.saved.refresh_topics()
        self.review = self.saved
        self.publish_map()
        self._changed("topics", list(ids))

    def rename_topic(self, topic: int, label: str) -> None:
        self._check_name()  # a named reviewer in team use (teamwork.TeamActions)
        if not label or not label.strip():
            raise InputError("the topic name is empty; type a name first")
        self._check_topics_current()
        self.store.topics.rename(int(topic), label.strip())
        self._edited_topics()

    def merge_topics(self, topics: Iterable[int], into: int | None = None) -> int:
        self._check_name()  # a named reviewer in team use (teamwork.TeamActions)
        topics = [int(t) for t in topics]
        if len(set(topics)) < 2:
            raise InputError(f"merging needs two or more topics, got {topics}")
        self._check_topics_current()
        kept = self.store.topics.merge(topics, into=into)
        self._edited_topics()
        return kept

    def move_paper(self, paper_id: str, topic: int) -> None:
        self._check_name()  # a named reviewer in team use (teamwork.TeamActions)
        self._check_topics_current()
        pid = self.resolve(paper_id)
        self.store.topics.move_paper(pid, int(topic))
        self._edited_topics([pid])

    def show_themes(self, k: int | None, save: bool = False) -> int:
        """Look at the topics as ``k`` themes (None: the default topics), without saving them.

        The themes cut the same Ward tree as the default topics (see
        :meth:`workbench.topics.TopicModel.reduce_to`); the map stays where it is and human topic
        names carry over to the matching themes. Nothing on disk changes: the other notebooks
        and the report keep the saved topics until :meth:`save_themes` (or ``save=True``).
        Returns the number of topics now shown.
        """
        if k is not None and int(k) < 2:
            raise InputError(f"{k} themes; ask for 2 or more, or for the default topics")
        k = int(k) if k else None
        if save:
            self.preview = k if k else "default"
            return self.save_themes()
        preview = copy.copy(self.saved)  # the saved review stays as it is
        preview.show_themes(k)
        names = carry_names(self.saved, preview)
        if names:
            preview.apply_topic_edits({}, names)
        self.review, self.preview, self.stability = preview, (k if k else "default"), {}
        self._changed("topics", [])
        return int((preview.topics.topic >= 0).sum())

    def save_themes(self) -> int:
        """Save the themes being looked at as the review's topics (all or nothing: the files in
        a new generation, the topics in the store); one :meth:`undo` brings the previous topics
        and files back. Returns the number of topics saved."""
        if self.preview is None:
            raise InputError("no themes to save: show some themes first (Show themes)")
        self._check_name()
        if not self.saved.is_current():
            raise InputError("the topics were saved anew elsewhere since this view read them; "
                             "nothing was saved; reload the review and show the themes again")
        k = None if self.preview == "default" else int(self.preview)
        saved = self.saved
        saved.show_themes(k, save=True, reviewer=self.reviewer)
        self.warnings.extend(saved.last_save.warnings if saved.last_save else ())
        self.review, self.preview, self.stability = saved, None, {}
        self._changed("topics", [])
        return int((saved.topics.topic >= 0).sum())

    def discard_themes(self) -> int:
        """Stop looking at themes: show the saved topics again. Returns their number."""
        self.review, self.preview, self.stability = self.saved, None, {}
        self._changed("topics", [])
        return int((self.saved.topics.topic >= 0).sum())

    def topic_stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """Each shown topic's stability across ``seeds`` (0..1; see :meth:`Review.topic_stability`),
        kept in :attr:`stability` for the views to show."""
        frame = self.review.topic_stability(seeds)
        self.stability = {int(t): float(v) for t, v in zip(frame.topic, frame.stability)}
        self._changed("stability", [])
        return frame

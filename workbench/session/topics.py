"""Topic work in a :class:`~workbench.session.session.Session` (``session.topics``): renames,
merges and moves saved at once; k themes looked at without saving, then saved (one undo takes a
save back); stability.

Two reviews are held: ``saved`` (the topics in the review folder, which the other notebooks
and the report use) and ``review`` (the topics shown: the saved ones, or themes being looked
at, ``preview``). After every change to the saved topics map.html is written again, so the file
says what the views say.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..errors import InputError
from ..review import show_themes
from .changes import carry_names

__all__ = ["TopicWork"]

class TopicWork:
    """Topic work in a session (``session.topics``): renames, merges and moves saved at once (map.html
    rewritten after each), k themes looked at and saved, and each topic's stability."""

    def __init__(self, session):
        self.session = session

    def _check_topics_current(self) -> None:
        """Topic numbers name the topics of the saved run: refuse an edit made on older ones."""
        if self.session.preview is not None:
            raise InputError(
                "these themes are only being looked at (not saved), so topic edits would land on "
                "other topics; nothing was changed; save them (Save these themes) or go back to "
                "the saved topics first")
        if not self.session.saved.is_current():
            raise InputError(
                "the topics were saved anew elsewhere (another notebook or the command line) since "
                "this view read them, so topic numbers here may name other topics; nothing was "
                "changed; reload the review (Session.reload()) and try again"
            )

    def _edited_topics(self, ids=()) -> None:
        self.session.saved.refresh_topics()
        self.session.review = self.session.saved
        self.session.publish_map()
        self.session.notify("topics", list(ids))

    def rename(self, topic: int, label: str) -> None:
        self.session.team.require_name()  # a named reviewer in team use (teamwork.TeamWork)
        if not label or not label.strip():
            raise InputError("the topic name is empty; type a name first")
        self._check_topics_current()
        self.session.store.topics.rename(int(topic), label.strip())
        self._edited_topics()

    def merge(self, topics: Iterable[int], into: int | None = None) -> int:
        self.session.team.require_name()  # a named reviewer in team use (teamwork.TeamWork)
        topics = [int(t) for t in topics]
        if len(set(topics)) < 2:
            raise InputError(f"merging needs two or more topics, got {topics}")
        self._check_topics_current()
        kept = self.session.store.topics.merge(topics, into=into)
        self._edited_topics()
        return kept

    def move(self, paper_id: str, topic: int) -> None:
        self.session.team.require_name()  # a named reviewer in team use (teamwork.TeamWork)
        self._check_topics_current()
        pid = self.session.resolve(paper_id)
        self.session.store.topics.move_paper(pid, int(topic))
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
            self.session.preview = k if k else "default"
            return self.save_themes()
        preview = show_themes(self.session.saved, k)  # a new review: the saved one stays as it is
        names = carry_names(self.session.saved, preview)
        if names:
            preview = preview.replace(edits=({}, names))
        self.session.review, self.session.preview, self.session.stability = preview, (k if k else "default"), {}
        self.session.notify("topics", [])
        return int((preview.topics.topic >= 0).sum())

    def save_themes(self) -> int:
        """Save the themes being looked at as the review's topics (all or nothing: the files in
        a new generation, the topics in the store); one :meth:`Session.undo` brings the previous topics
        and files back. Returns the number of topics saved."""
        if self.session.preview is None:
            raise InputError("no themes to save: show some themes first (Show themes)")
        self.session.team.require_name()
        if not self.session.saved.is_current():
            raise InputError("the topics were saved anew elsewhere since this view read them; "
                             "nothing was saved; reload the review and show the themes again")
        k = None if self.session.preview == "default" else int(self.session.preview)
        saved = show_themes(self.session.saved, k, save=True, reviewer=self.session.reviewer)
        self.session.warnings.extend(saved.last_save.warnings if saved.last_save else ())
        self.session.saved = saved
        self.session.review, self.session.preview, self.session.stability = saved, None, {}
        self.session.notify("topics", [])
        return int((saved.topics.topic >= 0).sum())

    def discard_themes(self) -> int:
        """Stop looking at themes: show the saved topics again. Returns their number."""
        self.session.review, self.session.preview, self.session.stability = self.session.saved, None, {}
        self.session.notify("topics", [])
        return int((self.session.saved.topics.topic >= 0).sum())

    def stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """Each shown topic's stability across ``seeds`` (0..1; see :meth:`Review.topic_stability`),
        kept in :attr:`stability` for the views to show."""
        frame = self.session.review.topic_stability(seeds)
        self.session.stability = {int(t): float(v) for t, v in zip(frame.topic, frame.stability)}
        self.session.notify("stability", [])
        return frame

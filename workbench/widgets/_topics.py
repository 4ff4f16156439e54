"""The topics of a review as a live table: it follows every rename, merge, undo, reload and the
themes being looked at in this kernel, so it never disagrees with the explore view beside it."""

from __future__ import annotations

import ipywidgets as W

from ..session.session import Session
from ._common import style, topic_bars

__all__ = ["TopicsView"]


class TopicsView:
    def __init__(self, session: Session):
        self.session = session
        self.table = W.HTML(self._html())
        self.widget = W.VBox([style(), self.table])
        self.widget.add_class("wb-topic-table")
        session.subscribe(self._on_change)

    def _html(self) -> str:
        s = self.session
        return topic_bars(s.review.topics_frame(representatives=2), s.stability, s.preview)

    def _on_change(self, event: str, ids) -> None:
        if event in ("topics", "stability", "undo", "reload"):
            self.table.value = self._html()

"""Interactive views for JupyterLab.

State and actions (no ipywidgets): :class:`Session`, :class:`ScreeningQueue` and
:class:`Comparison`, all working through the review's API (:class:`workbench.Review`) and its
store (:class:`workbench.store.Store`). The views in ``workbench.widgets.views`` wrap them
in ipywidgets; ``explore``, ``screen``, ``compare`` and ``topics`` build one for a notebook
cell. Every view of one session follows the others: a change made in one shows in all.
"""

from .changes import Undone
from .compare import Comparison
from .queue import ScreeningQueue
from .report import agreement_table, prisma_figure
from .session import SearchResult, Session
from .teamwork import forget_reviewer

__all__ = ["Comparison", "ScreeningQueue", "SearchResult", "Session", "Undone", "agreement_table", "compare",
           "explore", "forget_reviewer", "prisma_figure", "screen", "topics"]


def explore(session: Session, **kwargs):
    """The explore view (topics, map, search, selection actions, topic edits) for ``session``."""
    from .views.explore import ExploreView

    return ExploreView(session, **kwargs)


def screen(session: Session, **filters):
    """The screening view; ``filters`` go to :class:`ScreeningQueue` (show, topic, search, order,
    stage)."""
    from .views.screen import ScreenView

    return ScreenView(ScreeningQueue(session, **filters))


def compare(session: Session, ids=()):
    """The compare view, optionally opened on 2-4 papers."""
    from .views.compare import CompareView

    return CompareView(session, ids)


def topics(session: Session):
    """The review's topics as a table that follows every change (``.widget`` to display)."""
    from .views.topics import TopicsView

    return TopicsView(session)

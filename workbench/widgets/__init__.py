"""Interactive views for JupyterLab: the ipywidgets around :mod:`workbench.session`.

The state and actions are plain Python in :mod:`workbench.session` (:class:`Session`,
:class:`ScreeningQueue`, :class:`Comparison`), re-exported here so a notebook imports from one
place; ``explore``, ``screen``, ``compare`` and ``topics`` build a view for a notebook cell.
Every view of one session follows the others: a change made in one shows in all.
"""

from ..session import (
    Comparison,
    ScreeningQueue,
    SearchResult,
    Session,
    Undone,
    agreement_table,
    forget_reviewer,
    prisma_figure,
)

__all__ = ["Comparison", "ScreeningQueue", "SearchResult", "Session", "Undone", "agreement_table", "compare",
           "explore", "forget_reviewer", "prisma_figure", "screen", "snowball", "topics"]


def explore(session: Session, **kwargs):
    """The explore view (topics, map, search, selection actions, topic edits) for ``session``."""
    from ._explore import ExploreView

    return ExploreView(session, **kwargs)


def screen(session: Session, **filters):
    """The screening view; ``filters`` go to :class:`ScreeningQueue` (show, topic, search, order,
    stage)."""
    from ..review import prepare_screening
    from ._common import warm_up
    from ._screen import ScreenView

    view = ScreenView(ScreeningQueue(session, **filters))
    # what the first refits need, loaded while the user reads the first card (the TF-IDF of a
    # review just built is made then)
    warm_up(prepare_screening, session.saved)
    return view


def compare(session: Session, ids=()):
    """The compare view, optionally opened on 2-4 papers."""
    from ._compare import CompareView

    return CompareView(session, ids)


def snowball(session: Session):
    """The "Snowball" panel (04): the works the included papers cite, or that cite them, not yet
    in the review, and their lookup file (``.widget`` to display; ``.panel``: the plain state)."""
    from ._snowball import SnowballView

    return SnowballView(session)


def topics(session: Session):
    """The review's topics as a table that follows every change (``.widget`` to display)."""
    from ._topics import TopicsView

    return TopicsView(session)

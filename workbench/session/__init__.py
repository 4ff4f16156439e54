"""A review opened for interactive work, in plain Python (no ipywidgets): the state and actions
behind the notebooks' views.

:class:`Session` (one review, one store, one reviewer; every action saved at once),
:class:`ScreeningQueue` (the papers to screen, one at a time), :class:`Comparison` (2-4 papers
side by side). The views in :mod:`workbench.widgets` wrap them in ipywidgets; tests drive them
directly, and a scripted action in a headless run goes through the same methods as a click.
"""

from .changes import Undone
from .compare import Comparison
from .queue import ScreeningQueue
from .report import agreement_table, prisma_figure
from .session import SearchResult, Session
from .teamwork import forget_reviewer

__all__ = ["Comparison", "ScreeningQueue", "SearchResult", "Session", "Undone", "agreement_table",
           "forget_reviewer", "prisma_figure"]

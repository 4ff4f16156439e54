"""A review opened for interactive work, in plain Python (no ipywidgets): the state and actions
behind the notebooks' views.

:class:`Session` (one review, one store, one reviewer; every action saved at once, through that
store; its parts :class:`TopicWork`, :class:`MapScreening`, :class:`TeamWork`, :class:`LivingWork`),
:class:`ScreeningQueue` (the papers to screen, one at a time), :class:`Comparison` (2-4 papers
side by side). The views in :mod:`workbench.widgets` wrap them in ipywidgets; tests drive them
directly, and a scripted action in a headless run goes through the same methods as a click.
"""

from .changes import Undone
from .compare import Comparison
from .living import LivingWork
from .mapscreen import MapScreening
from .queue import ScreeningQueue
from .report import agreement_table, prisma_figure
from .session import SearchResult, Session
from .teamwork import TeamWork, forget_reviewer
from .topics import TopicWork

__all__ = ["Comparison", "LivingWork", "MapScreening", "ScreeningQueue", "SearchResult", "Session", "TeamWork",
           "TopicWork", "Undone", "agreement_table", "forget_reviewer", "prisma_figure"]

"""Import BERTopic without the heavy libraries it imports for features the workbench never uses.

``import bertopic`` eagerly imports torch, transformers, sentence-transformers and datamapplot
(about 11 s and 1 GB here) for optional embedding backends and plots, and treats each as optional
when it is missing. Its plots also import jsonschema (through plotly and nbformat), whose
optional IRI format check imports rfc3987_syntax, which builds a grammar for ~0.9 s. :func:`import_bertopic` hides them during the import (a meta-path finder that
refuses them), so a build whose embeddings are cached never imports torch; they import normally
afterwards. BERTopic's plots (``bertopic.plotting``: pandas' Styler, matplotlib, ~0.6 s) are
imported when a plot is first asked for, not with BERTopic (:class:`_LaterPlots`). Only the topics
package uses BERTopic; this is the one place it is imported.
"""

from __future__ import annotations

import importlib
import logging
import sys
import types
from contextlib import contextmanager
from importlib.abc import MetaPathFinder

__all__ = ["import_bertopic", "HIDDEN"]

# What ``import bertopic`` may not import: it works without each of them.
HIDDEN = ("torch", "transformers", "sentence_transformers", "datamapplot", "rfc3987_syntax")


class _Refuse(MetaPathFinder):
    """A finder that makes importing any of ``names`` (or their submodules) fail."""

    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"{fullname} is not needed by the workbench's BERTopic", name=fullname)
        return None


@contextmanager
def _without(*names):
    """Make ``import name`` fail inside the block, unless it is imported already."""
    finder = _Refuse(n for n in names if n not in sys.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


class _LaterPlots(types.ModuleType):
    """Stands for ``bertopic.plotting`` while BERTopic is imported (which binds the module and
    uses it only when a ``visualize_*`` method is called): the first name looked up in it imports
    the real module, which takes its place."""

    def __init__(self):
        super().__init__("bertopic.plotting")
        self._real = None

    def __getattr__(self, name):
        if name.startswith("__"):  # (the import system's questions: a module not yet loaded)
            raise AttributeError(name)
        if self._real is None:
            if sys.modules.get(self.__name__) is self:
                del sys.modules[self.__name__]
            self._real = importlib.import_module(self.__name__)
        return getattr(self._real, name)


def import_bertopic():
    """The ``bertopic`` module, imported without torch, transformers, sentence-transformers,
    datamapplot or rfc3987_syntax (unless something imported them before)."""
    if "bertopic" not in sys.modules:
        sys.modules.setdefault("bertopic.plotting", _LaterPlots())
        with _without(*HIDDEN):
            import bertopic  # noqa: F401
            import bertopic.representation  # noqa: F401
        # BERTopic resets its logger to WARNING on every fit and warns about steps the workbench
        # takes on purpose (custom topic lists after outlier reduction, saving without a model).
        logging.getLogger("BERTopic").addFilter(lambda record: record.levelno >= logging.ERROR)
    import bertopic

    return bertopic

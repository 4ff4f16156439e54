"""The map laid out beside the topics, in a second process, on a second core.

A build's two UMAPs start from one neighbour graph (:class:`workbench.space.neighbors.NeighbourGraph`)
and are otherwise independent: the map's 2-d layout (~6 s of single-threaded epochs at 50,000
papers) need not wait for the topics' 5-d layout, clustering and labels. :class:`MapBeside` forks
a process before the graph is computed; this process computes the graph (:attr:`MapBeside.graph`,
which the build hands to the topics) and sends it over, and the child lays out the map from it
while the topics are found here. The child runs the same code on the same arrays, so the map is
the one this process would make.

The map is laid out here instead, after the topics as before, where a second process does not
pay or is not safe: below :data:`MIN_PAPERS` papers, above :data:`MAX_PAPERS` (the child's memory:
every page this process writes while the topics are found is copied for the child, which keeps
the old one, so the child comes to hold about as much as this process did when it forked, on top
of its own layout: 1.1 GB beside a 1.9 GB build at 200,000 papers), with one core (or ``WORKBENCH_WORKERS=1``),
without ``fork``, in a daemonic process (a Dask worker), and once numba's threading layer runs
in this process (a second build in a notebook kernel): a forked child of a process whose GNU
OpenMP runtime has started is stopped by numba when it enters a parallel region. The same goes
once torch is imported (a MiniLM build): a torch built against the system's OpenMP runtime would
share it with numba, and such a child may hang instead; those builds spend minutes embedding, so
the map's seconds do not matter there. If the child fails anyway, the map is laid out here and a
warning says why.
"""

from __future__ import annotations

import logging
import mmap
import multiprocessing
import sys
import time

import numpy as np

from ...space.neighbors import NeighbourGraph
from ...space.layout import MapLayout
from ..._runtime.halves import ended, received, reporting, start_child, workers

__all__ = ["MAX_PAPERS", "MIN_PAPERS", "MapBeside", "lay_out"]

log = logging.getLogger(__name__)

#: Fewer papers are laid out after the topics, in this process: their map takes a second or two.
MIN_PAPERS = 5_000
#: More papers are laid out after the topics too: a child beside them would hold gigabytes (see
#: the module docstring), the map's minutes are worth less than a machine's memory.
MAX_PAPERS = 500_000


def lay_out(X: np.ndarray, seed: int, graph: NeighbourGraph | None = None) -> tuple[np.ndarray, str]:
    """The map's coordinates and method (``MapLayout``), in this process; ``graph``: the
    embeddings' neighbour graph, where the caller has it."""
    layout = MapLayout(seed=seed).fit(X, graph)
    return layout.coords_, layout.method_


def _numba_threads_started() -> bool:
    if "numba" not in sys.modules:
        return False
    from numba.np.ufunc import parallel

    return bool(getattr(parallel, "_is_initialized", True))


def can_fork(n: int) -> bool:
    """Whether the map of ``n`` papers is laid out in a second process (see the module docstring)."""
    return (MIN_PAPERS <= n <= MAX_PAPERS and workers() > 1 and "fork" in multiprocessing.get_all_start_methods()
            and not _numba_threads_started() and "torch" not in sys.modules)  # (workers(): 1 in a daemonic process)


class MapBeside:
    """The map of ``X`` being laid out in a forked process (see the module docstring), or, where
    that does not pay or is not safe, laid out in :meth:`result`. A context manager: leaving it
    stops a child still running (an error in the topics). ``graph``: the neighbour graph
    computed here for the child (None where no child was started), for the topics' UMAP."""

    def __init__(self, X: np.ndarray, seed: int, start: bool = True):
        self.X, self.seed = X, seed
        self._child = self._conn = None
        self.graph: NeighbourGraph | None = None
        self.graph_seconds = 0.0  # computing the neighbour graph here, for the child (and the topics)
        if not start or not can_fork(len(X)):  # (``start``: False where the map is kept already)
            return
        try:
            # The coordinates come back through memory shared with the child, which can then end at
            # once (a result sent through the pipe would keep it, and its memory, until read).
            self._shared = mmap.mmap(-1, max(len(X), 1) * 2 * 8)
            self._child, self._conn = start_child(_child, (X, seed, self._shared), "workbench-map", duplex=True)
        except OSError as err:  # no memory or processes left
            log.warning("laying out the map after the topics (no second process: %s)", err)
            self._child = None
            return
        started = time.perf_counter()
        try:
            self.graph = NeighbourGraph.of(X, seed)  # here, after the fork: numba's threads start now
        except BaseException:
            self.close()
            raise
        self.graph_seconds = time.perf_counter() - started
        try:
            self._conn.send(self.graph)
        except OSError:  # the child is gone: result() says so
            pass

    def result(self, graph: NeighbourGraph | None = None) -> tuple[np.ndarray, str]:
        """The map's coordinates and method: the child's, else laid out here (from the graph
        computed for the child, or ``graph``: the topics' neighbour graph)."""
        if self._child is not None:
            kind, value = received(self._conn, self._child)
            if kind == "map":
                coords = np.frombuffer(self._shared, dtype=np.float64, count=len(self.X) * 2).reshape(-1, 2).copy()
                self._child.join(timeout=10)  # it ends as soon as it has sent the method
                self.close()
                return coords, value
            self.close()
            log.warning("laying out the map in this process: its second process failed: %s", value)
        return lay_out(self.X, self.seed, self.graph if self.graph is not None else graph)

    def close(self) -> None:
        if self._child is not None:
            ended(self._child)
            self._conn.close()
            self._shared.close()
            self._child = None

    def __enter__(self) -> "MapBeside":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _received(conn) -> NeighbourGraph:
    """In the forked process: the neighbour graph the parent computed."""
    return conn.recv()


def _child(conn, X: np.ndarray, seed: int, shared: mmap.mmap) -> None:
    """In the forked process: the graph from the parent, then the map: its coordinates into
    ``shared``, its method sent back."""
    with reporting(conn):
        coords, method = lay_out(X, seed, _received(conn))
        np.frombuffer(shared, dtype=np.float64, count=coords.size).reshape(coords.shape)[:] = coords
        conn.send(("map", method))

"""Work on a long list in two processes: its second half in a forked child, its first here.

Embedding with the static model is a Python loop over every paper (its token ids: ~9 s at
50,000 papers here) during which a second core has nothing to do (:mod:`workbench.embed.static`).
:func:`in_halves` runs ``work`` on the first part of the items in this process and on the rest in
a forked child, which sends its result back through a pipe and ends; the caller puts the two
results together (``parts``: in the items' order). The child runs the same code on the same
items, so the parts are what this process would make of them.

Everything is done here instead, as one part, where a second process does not pay or is not
safe: fewer than ``min_items`` items, one core (or ``WORKBENCH_WORKERS=1``), or the other core
taken by a process working :data:`beside` this one, no ``fork``, a daemonic process (a Dask
worker: it may not start children, and Dask spreads the work itself).
``work`` must not start parallel numba or torch code in the child (its threading runtimes do
not survive a fork); the Python, numpy and single-threaded numba code used here does not. If
the child fails (killed, out of memory, an error), its part is made here, and a warning says why.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import weakref
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["beside", "can_split", "collector_paused", "ended", "in_halves", "received", "reporting", "start_child",
           "workers"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def workers() -> int:
    """How many processes share work: ``WORKBENCH_WORKERS``, else the cores this process may use;
    one in a daemonic process (a Dask worker: it may not start children, and Dask spreads the
    work itself)."""
    if multiprocessing.current_process().daemon:
        return 1
    setting = os.environ.get("WORKBENCH_WORKERS", "").strip()
    if setting.isdigit() and int(setting) > 0:
        return int(setting)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextmanager
def collector_paused():
    """Python's cycle collector paused (papers and counters hold no cycles; its passes over a
    growing heap cost ~8% of reading), and what exists frozen, so that a forked process does
    not copy this process's memory by touching every object. Afterwards what was made meanwhile
    goes to the oldest generation unexamined (frozen and thawed at once): left in the youngest,
    the first collection after reading 50,000 abstracts went over every one of them (0.08 s),
    and a full one soon after (0.17 s)."""
    enabled = gc.isenabled()
    gc.disable()
    gc.freeze()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()


#: Processes this one started to work beside it (a build's word counter,
#: ``review.build._words_beside``): while one runs, it has a core, which :func:`in_halves` leaves to it.
beside: "weakref.WeakSet[multiprocessing.process.BaseProcess]" = weakref.WeakSet()


def can_split(n: int, min_items: int) -> bool:
    """Whether ``n`` items are worked on in two processes (see the module docstring): enough of
    them, and a core that no process :data:`beside` this one has."""
    busy = sum(1 for process in list(beside) if process.is_alive())
    return n >= max(min_items, 2) and workers() - busy > 1 and "fork" in multiprocessing.get_all_start_methods()


def in_halves(work: Callable[[Sequence], T], items: Sequence, min_items: int, *, step: int = 1,
              what: str = "work") -> list[T]:
    """``[work(items)]``, or ``[work(items[:half]), work(items[half:])]`` with the second made in a
    forked process (see the module docstring). ``half`` is a multiple of ``step``; ``what`` names
    the work in the warning a failed child gives."""
    if not can_split(len(items), min_items):
        return [work(items)]
    half = max(step, (len(items) // 2) // step * step)
    first, second = items[:half], items[half:]
    try:
        child, mine = start_child(_child, (work, second), "workbench-half")
    except OSError as err:  # no memory or processes left
        log.warning("%s in one process (no second process: %s)", what, err)
        return [work(items)]
    try:
        done = work(first)
        kind, value = received(mine, child)
    except BaseException:  # (an error or an interrupt here: the child's half is not wanted)
        ended(child)
        raise
    finally:
        mine.close()
    ended(child, wait=10)  # it ends as soon as it has sent its part
    if kind != "done":
        log.warning("%s: the second half in this process: its second process failed: %s", what, value)
        value = work(second)
    return [done, value]


def _child(conn, work: Callable, items: Sequence) -> None:
    """In the forked process: ``work(items)`` sent back."""
    with reporting(conn), collector_paused():
        conn.send(("done", work(items)))


def start_child(target: Callable, args: tuple, name: str, *, duplex: bool = False):
    """A daemonic forked process running ``target(conn, *args)``, and this process's end of the
    pipe whose other end is ``conn``: ``(child, conn)``. Raises OSError where no process can be
    started (no memory or processes left); the caller then does the work itself."""
    fork = multiprocessing.get_context("fork")
    mine, theirs = fork.Pipe(duplex=duplex)
    try:
        child = fork.Process(target=target, args=(theirs, *args), daemon=True, name=name)
        with collector_paused():  # frozen: the child's collector never touches (so copies) this process's objects
            child.start()
    except BaseException:
        mine.close()
        raise
    finally:
        theirs.close()
    return child, mine


def received(conn, child) -> tuple[str, object]:
    """The child's next message, a ``(kind, value)`` pair; ``("error", why)`` where it ended
    without sending one (killed, out of memory: the exit code says which)."""
    try:
        return conn.recv()
    except (EOFError, OSError) as err:
        child.join(timeout=10)
        return "error", f"the process ended ({type(err).__name__}, exit code {child.exitcode})"


@contextmanager
def reporting(conn):
    """In a forked child, around its work: an error is sent to the parent as ``("error", why)``
    (which does the work itself and says why), and the pipe is closed at the end."""
    try:
        yield
    except BaseException as err:  # noqa: BLE001 - the parent does the work, and says why
        try:
            conn.send(("error", f"{type(err).__name__}: {err}"))
        except OSError:  # (the parent is gone, or stopped listening)
            pass
    finally:
        conn.close()


def ended(child, wait: float = 0) -> None:
    """``child`` ended: given ``wait`` seconds to end by itself, then stopped."""
    if wait:
        child.join(timeout=wait)
    if child.is_alive():
        child.terminate()
    child.join()

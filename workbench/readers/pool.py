"""Making many records at once: on every core where that pays, in one process where it does not.

A reader hands over its records' raw fields (``items``) and the function that makes one paper of
one of them (``make(ctx, item) -> Paper | None``, which cleans the text, derives a title and
computes the ids: most of the time of reading). :func:`make_papers` cuts the items into
contiguous chunks, makes each chunk's papers with a context of its own, in worker processes and
in this one side by side, and puts the chunks back together in order with their warnings and
skips, so the papers, their order and the report are exactly what one process gives (tests
compare the two).

The workers are forked (Linux), so they share the items with this process instead of receiving
a copy; where forking is not available, with fewer than :data:`MIN_ITEMS` items or one core, or
when the pool fails to start, the papers are made here, one after the other.
``WORKBENCH_WORKERS`` sets the number of processes (``1``: never a pool); a daemonic process
(a Dask worker) never starts one.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Sequence
from operator import attrgetter
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from .._runtime.halves import collector_paused, workers
from ..dedupe.keys import PaperKeys
from ..corpus.paper import INFO_FIELDS, TEXT_FIELDS, Paper
from .fields import ReadContext

__all__ = ["CHUNKS_PER_PROCESS", "MIN_ITEMS", "collector_paused", "make_chunks", "make_papers", "workers"]

log = logging.getLogger(__name__)

#: Fewer items are made in this process: starting workers and sending papers back costs more
#: than it saves below a few thousand records.
MIN_ITEMS = 4000
#: Chunks a process: the two processes end at most one chunk apart, and a chunk costs little
#: (reading 50,000 abstracts, 16 took 0.2 s less than 8 did: means of six runs each, alternating).
CHUNKS_PER_PROCESS = 16
#: Items a chunk holds at most (a chunk's papers wait in a file until this process reads them).
_MAX_CHUNK = 5000
# A chunk's state in the array shared with the workers: nobody's, claimed, made by a worker (its
# papers are in its file).
_FREE, _CLAIMED, _SENT = 0, 1, 2

# A paper travels from a worker as the values of its fields, in this order (its metadata as
# Paper takes them, then its texts), and is made again here (:func:`_paper`).
_FIELDS = (*INFO_FIELDS, *TEXT_FIELDS)
_values = attrgetter(*_FIELDS)
# Texts a worker does not send when the item it read holds the very same string (the abstract a
# CSV row gave, unchanged by cleaning): their place in the item goes instead, and this process
# takes the string from its own copy of the item (the worker was forked from it).
_SHARED = tuple(_FIELDS.index(name) for name in ("abstract", "text", "title"))

# What the forked workers make: set by their initializer, read by _work.
_job: tuple[ReadContext, Any, Any, str] | None = None


def _make(ctx: ReadContext, items: Sequence, make: Callable[[ReadContext, Any], Paper | None]) -> list[Paper]:
    return [p for p in (make(ctx, item) for item in items) if p is not None]


def make_papers(ctx: ReadContext, items: Sequence, make: Callable[[ReadContext, Any], Paper | None],
                processes: int | None = None, min_items: int | None = None) -> list[Paper]:
    """``[make(ctx, item) for item in items]`` without the Nones, in order, its warnings and
    skips on ``ctx``: in ``processes`` processes (default :func:`workers`; this one and forked
    workers) when there are at least ``min_items`` items (default :data:`MIN_ITEMS`), else here.
    ``make`` must leave its item as it is: a worker sends a text the item holds as its place in
    the item, which this process reads in its own copy."""
    processes = workers() if processes is None else processes
    enough = len(items) >= max(MIN_ITEMS if min_items is None else min_items, 2)
    if processes < 2 or not enough:
        with collector_paused():
            return _make(ctx, items, make)
    n = min(len(items), max(processes * CHUNKS_PER_PROCESS, -(-len(items) // _MAX_CHUNK)))
    bounds = [(len(items) * i // n, len(items) * (i + 1) // n) for i in range(n)]
    return _pooled(ctx, _Items(items, make, bounds), processes)


def make_chunks(ctx: ReadContext, chunks: Sequence, make_chunk: Callable[[ReadContext, Any], list[Paper]],
                processes: int | None = None) -> list[Paper]:
    """``make_chunk(ctx, chunk)`` of every chunk, one after the other, in ``processes`` processes
    as :func:`make_papers` does (each chunk with a context of its own, taken into ``ctx`` in
    order). For work that finds its own items (a range of a file): the papers a worker makes
    travel whole. An error raised by ``make_chunk`` anywhere is raised here."""
    processes = workers() if processes is None else processes
    job = _Chunks(chunks, make_chunk)
    if processes < 2 or len(chunks) < 2:
        with collector_paused():
            return _here(ctx, job)
    return _pooled(ctx, job, processes)


def _pooled(ctx: ReadContext, job: "_Items | _Chunks", processes: int) -> list[Paper]:
    with collector_paused():
        if "fork" not in multiprocessing.get_all_start_methods():
            return _here(ctx, job)
        try:
            return _in_pool(ctx, job, processes)
        except (BrokenProcessPool, OSError) as err:  # no memory or processes left for workers
            log.warning("%s: making the papers in one process (the worker processes failed: %s)", ctx.name, err)
            return _here(ctx, job)


def _here(ctx: ReadContext, job: "_Items | _Chunks") -> list[Paper]:
    """Every chunk of ``job`` made in this process; its messages on ``ctx`` only once all are
    made (a chunk's error leaves ``ctx`` as it was)."""
    papers, contexts = [], [ctx.fresh() for _ in range(job.n)]
    for i, chunk_ctx in enumerate(contexts):
        papers += job.here(chunk_ctx, i)
    for chunk_ctx in contexts:
        ctx.absorb(chunk_ctx)
    return papers


class _Items:
    """Chunks of ``items`` (``bounds``), each item made by ``make``: a worker sends a text an
    item holds as its place in the item (:func:`_sent`)."""

    def __init__(self, items: Sequence, make: Callable, bounds: list[tuple[int, int]]):
        self.items, self.make, self.bounds, self.n = items, make, bounds, len(bounds)

    def here(self, ctx: ReadContext, i: int) -> list[Paper]:
        start, end = self.bounds[i]
        return _make(ctx, self.items[start:end], self.make)

    def there(self, ctx: ReadContext, i: int) -> tuple[list[tuple], list[tuple]]:
        rows, papers = [], []
        for k in range(*self.bounds[i]):
            paper = self.make(ctx, self.items[k])
            if paper is not None:
                rows.append(_sent(k, self.items[k], paper))
                papers.append(paper)
        return rows, _keys_sent(ctx, papers)

    def back(self, rows: list[tuple], keys: list[tuple], ctx: ReadContext) -> list[Paper]:
        return _rebuilt(rows, keys, self.items, ctx)


class _Chunks:
    """``chunks``, each made by ``make_chunk``; a worker sends every value."""

    def __init__(self, chunks: Sequence, make_chunk: Callable):
        self.chunks, self.make_chunk, self.n = chunks, make_chunk, len(chunks)

    def here(self, ctx: ReadContext, i: int) -> list[Paper]:
        return self.make_chunk(ctx, self.chunks[i])

    def there(self, ctx: ReadContext, i: int) -> tuple[list[tuple], list[tuple]]:
        papers = self.make_chunk(ctx, self.chunks[i])
        return [_values(p) for p in papers], _keys_sent(ctx, papers)

    def back(self, rows: list[tuple], keys: list[tuple], ctx: ReadContext) -> list[Paper]:
        papers = [_paper(values) for values in rows]
        ctx.made = [(paper, PaperKeys(*key)) for paper, key in zip(papers, keys)]
        return papers


def _keys_sent(ctx: ReadContext, papers: list[Paper]) -> list[tuple]:
    """The deduplication keys of ``papers``, made in a worker with ``ctx``, as plain tuples (sent
    beside them; the context goes without its papers)."""
    keys = [tuple(k) for k in ctx.keys_of(papers)]
    ctx.made = []
    return keys


def _in_pool(ctx: ReadContext, job: "_Items | _Chunks", processes: int) -> list[Paper]:
    """The papers of ``job``'s chunks, made by ``processes - 1`` worker processes and this one
    together.

    The workers take the chunks from the first on, this process from the last back, each
    claiming a chunk (a flag shared with the workers) before making it, so each makes as many as
    its speed allows and none is made twice. A worker writes each chunk's papers to a file of
    its own as soon as they are made, and this process reads the files between its own chunks:
    the workers never wait for this process, and little is left to read once the last chunk is
    made (a result sent through a pipe is read by a thread of this process, which waits for the
    interpreter lock at every block of the pipe while this process makes papers; sent at the
    end, it left this process waiting up to a second for it). What this process makes is never
    written anywhere."""
    n = job.n
    fork = multiprocessing.get_context("fork")
    claimed = fork.Array("b", n)  # made before the fork: shared with every worker
    chunks: list[list[Paper] | None] = [None] * n
    contexts = [ctx.fresh() for _ in range(n)]
    folder = tempfile.mkdtemp(prefix="workbench-papers-", dir=_scratch())
    try:
        with ProcessPoolExecutor(processes - 1, mp_context=fork, initializer=_start,
                                 initargs=((ctx, job, claimed, folder),)) as pool:
            futures = [pool.submit(_work) for _ in range(processes - 1)]
            try:
                while (i := _claim(claimed, last=True)) is not None:
                    chunks[i] = job.here(contexts[i], i)
                    _read_sent(claimed, folder, chunks, contexts, job)
            except BaseException:
                # The workers stop after the chunk each is making (leaving the pool waits for
                # them): one left running would mark its claims in the shared memory this
                # array leaves behind, which the next pool's array may take.
                _abandon(claimed)
                raise
            for future in futures:
                future.result()  # (a worker's error, or BrokenProcessPool where one died)
        _read_sent(claimed, folder, chunks, contexts, job)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    papers = []
    for chunk, chunk_ctx in zip(chunks, contexts):
        papers += chunk
        ctx.absorb(chunk_ctx)
    return papers


def _scratch() -> str | None:
    """Where the workers write their papers: memory (``/dev/shm``) where there is such a folder
    with room (a container's holds 64 MB), else the temporary folder."""
    try:
        room = os.statvfs("/dev/shm")
        if os.access("/dev/shm", os.W_OK | os.X_OK) and room.f_bavail * room.f_frsize >= 256 * 2**20:
            return "/dev/shm"
    except OSError:
        pass
    return None


def _read_sent(claimed, folder: str, chunks: list, contexts: list, job: "_Items | _Chunks") -> None:
    """The chunks the workers have made and not yet read here, from their files."""
    for i, state in enumerate(claimed[:]):
        if state == _SENT and chunks[i] is None:
            path = os.path.join(folder, f"{i}.pickle")
            with open(path, "rb") as f:
                rows, keys, contexts[i] = pickle.load(f)
            os.unlink(path)
            chunks[i] = job.back(rows, keys, contexts[i])


def _claim(claimed, last: bool = False) -> int | None:
    """The first chunk nobody claimed (``last``: the last), now claimed; None when all are."""
    with claimed.get_lock():
        order = range(len(claimed) - 1, -1, -1) if last else range(len(claimed))
        i = next((i for i in order if claimed[i] == _FREE), None)
        if i is not None:
            claimed[i] = _CLAIMED
        return i


def _abandon(claimed) -> None:
    """Every chunk nobody claimed, claimed: each process stops after the chunk it is making."""
    with claimed.get_lock():
        for i in range(len(claimed)):
            if claimed[i] == _FREE:
                claimed[i] = _CLAIMED


def _rebuilt(rows: list[tuple], keys: list[tuple], items: Sequence, ctx: ReadContext) -> list[Paper]:
    """The papers a worker sent (see :func:`_work`), each with its deduplication keys (into
    ``ctx.made``, the chunk's context)."""
    papers = []
    for k, *values in rows:
        strings = None
        for f in _SHARED:
            if type(values[f]) is int:
                strings = _strings(items[k]) if strings is None else strings
                values[f] = strings[values[f]]
        papers.append(_paper(values))
    ctx.made = [(paper, PaperKeys(*key)) for paper, key in zip(papers, keys)]
    return papers


def _paper(values: Sequence) -> Paper:
    """The paper whose fields, in :data:`_FIELDS` order, hold ``values``."""
    *info, abstract, text = values
    return Paper(*info, abstract=abstract, text=text)


def _strings(item: Any) -> list[str]:
    """The strings an item holds (in it, or in a list, tuple or dict in it), in a fixed order."""
    out = []
    for part in item if isinstance(item, (tuple, list)) else (item,):
        if type(part) is str:
            out.append(part)
        elif isinstance(part, (tuple, list)):
            out += [x for x in part if type(x) is str]
        elif isinstance(part, dict):
            out += [x for x in part.values() if type(x) is str]
    return out


def _sent(k: int, item: Any, paper: Paper) -> tuple:
    """What a worker sends of ``paper``, made of ``items[k]``: ``k``, then the values of its
    fields, a text the item holds as it is replaced by its place in :func:`_strings`."""
    values = [k, *_values(paper)]
    places = None
    for f in _SHARED:
        value = values[f + 1]
        if len(value) > 200:
            places = {id(s): n for n, s in enumerate(_strings(item))} if places is None else places
            values[f + 1] = places.get(id(value), value)
    return tuple(values)


def _start(job) -> None:
    global _job
    _job = job


def _work() -> int:
    """In a worker: chunks claimed and made until none is left, each written to its file (see
    :func:`_in_pool`) as its papers (each as a tuple of its values: ``job.there``), their
    deduplication keys (made with them, as tuples) and the chunk's context (its warnings and
    skips), then marked sent; how many it made. Plain tuples cost a third of what pickling the
    objects costs, here and in the parent."""
    ctx, job, claimed, folder = _job
    made = 0
    while (i := _claim(claimed)) is not None:
        chunk_ctx = ctx.fresh()
        try:
            rows, keys = job.there(chunk_ctx, i)
        except BaseException:
            _abandon(claimed)  # this process raises it (future.result()) without making the rest
            raise
        path = os.path.join(folder, f"{i}.pickle")
        with open(f"{path}.tmp", "wb") as f:
            pickle.dump((rows, keys, chunk_ctx), f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(f"{path}.tmp", path)
        claimed[i] = _SENT  # (after the file is whole: this process reads it once it sees this)
        made += 1
    return made

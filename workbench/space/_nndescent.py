"""pynndescent's NN-descent for cosine, compiled once per machine instead of once per process.

Numba could not keep pynndescent's ``nn_descent`` on disk ("uses dynamic globals"), so every
new process spent about 11 s compiling it on its first neighbour graph above ``EXACT_MAX``
papers, even with :mod:`workbench._runtime.numba_cache` on. Two things in it hold a process's
addresses: ``numba.get_num_threads()`` called inside compiled code, and the distance function
handed down as a jitted function (a Python object's address). The two functions below are
pynndescent 0.7.0's ``nn_descent`` and ``nn_descent_internal`` with the thread count passed in
and the distance passed as a C callback, which numba types by its signature alone. The
callees are pynndescent's own, so numba caches the whole graph code like any other function.

:func:`cached_nn_descent` swaps them in for one call of UMAP's ``nearest_neighbors``. They give
pynndescent's graph bit for bit (``tests/test_nndescent.py``). For any other distance or
starting graph, or a pynndescent without these functions, pynndescent's own code runs.
"""

from __future__ import annotations

import functools
import os
from contextlib import contextmanager

import numba
import numpy as np

from .._runtime.numba_cache import enable_numba_cache

enable_numba_cache()  # before the decorators below, which take numba's cache folder as they run
_CACHE = os.environ.get("WORKBENCH_NUMBA_CACHE") != "0"

try:
    from pynndescent import pynndescent_ as _pynnd
    from pynndescent.distances import alternative_dot, euclidean
    from pynndescent.pynndescent_ import (
        EMPTY_GRAPH,
        build_candidates_owner,
        deheap_sort,
        init_random,
        init_rp_tree,
        make_heap,
        process_candidates,
    )
except ImportError:  # another pynndescent: its own functions run, compiled per process
    _pynnd = None

__all__ = ["cached_nn_descent"]


@numba.njit(cache=_CACHE)
def _internal(
    current_graph, data, n_neighbors, rng_state, max_candidates, dist, n_iters, delta, kernel,
    n_threads,
):  # fmt: skip
    # pynndescent 0.7.0's nn_descent_internal, with ``n_threads`` an argument and no printing.
    n_vertices = data.shape[0]
    block_size = 16384
    n_blocks = n_vertices // block_size
    pairs = max_candidates**2 + max_candidates * (max_candidates - 1) / 2
    max_updates_per_thread = int(pairs * block_size / n_threads) + 1024
    update_array = np.empty((n_threads, max_updates_per_thread, 3), dtype=np.float32)
    n_updates_per_thread = np.zeros(n_threads, dtype=np.int32)
    if n_threads > 1:
        sorted_updates = np.empty((n_threads, 2 * max_updates_per_thread, 3), dtype=np.float32)
    else:
        sorted_updates = np.empty((1, 1, 3), dtype=np.float32)
    block_offsets = np.zeros((n_threads, n_threads + 1), dtype=np.int64)
    new_candidate_indices = np.full((n_vertices, max_candidates), -1, dtype=np.int32)
    new_candidate_priority = np.full((n_vertices, max_candidates), np.inf, dtype=np.float32)
    old_candidate_indices = np.full((n_vertices, max_candidates), -1, dtype=np.int32)
    old_candidate_priority = np.full((n_vertices, max_candidates), np.inf, dtype=np.float32)
    active = np.ones(n_vertices, dtype=np.uint8)
    reverse_dst = np.empty(n_vertices * n_neighbors, dtype=np.int32)
    reverse_src = np.empty(n_vertices * n_neighbors, dtype=np.int32)
    bucket_bounds = np.zeros((n_threads, n_threads + 1), dtype=np.int64)

    for _ in range(n_iters):
        new_candidate_neighbors, old_candidate_neighbors = build_candidates_owner(
            current_graph, max_candidates, rng_state, n_threads,
            new_candidate_indices, new_candidate_priority, old_candidate_indices,
            old_candidate_priority, active, reverse_dst, reverse_src, bucket_bounds,
        )  # fmt: skip
        c = process_candidates(
            data, dist, current_graph, new_candidate_neighbors, old_candidate_neighbors,
            n_blocks, block_size, n_threads, update_array, n_updates_per_thread, sorted_updates,
            block_offsets, kernel,
        )  # fmt: skip
        if c <= delta * n_neighbors * data.shape[0]:
            return


@numba.njit(cache=_CACHE)
def _nn_descent_cosine(
    data, n_neighbors, rng_state, max_candidates, dist, n_iters, delta, leaf_array, kernel,
    n_threads,
):  # fmt: skip
    # pynndescent 0.7.0's nn_descent for an empty initial graph with rp-tree leaves.
    current_graph = make_heap(data.shape[0], n_neighbors)
    init_rp_tree(data, dist, current_graph, leaf_array, n_threads)
    init_random(n_neighbors, data, current_graph, dist, rng_state)
    _internal(
        current_graph, data, n_neighbors, rng_state, max_candidates, dist, n_iters, delta, kernel,
        n_threads,
    )  # fmt: skip
    return deheap_sort(current_graph[0], current_graph[1])


@functools.cache
def _cosine():
    """pynndescent's ``alternative_dot`` as a C callback: a first-class function numba can cache.

    Passed as a value, the jitted ``alternative_dot`` would be a pointer to a Python object
    in the compiled code; a callback is typed by its signature alone, the same in every process.
    """
    vector = numba.float32[::1]
    alternative_dot.compile((vector, vector))  # its return type, as the graph code sees it
    returns = alternative_dot.overloads[(vector, vector)].signature.return_type
    fastmath = alternative_dot.targetoptions.get("fastmath", False)
    callback = numba.cfunc(
        returns(vector, vector), locals=alternative_dot.locals, fastmath=fastmath, cache=_CACHE
    )
    return callback(alternative_dot.py_func)


def _nn_descent(original):
    def nn_descent(
        data, n_neighbors, rng_state, max_candidates=50, dist=euclidean, n_iters=10, delta=0.001,
        init_graph=None, rp_tree_init=True, leaf_array=None, low_memory=True, verbose=False,
        kernel=0,
    ):  # fmt: skip
        ours = (
            dist is alternative_dot
            and (init_graph is None or init_graph[0].shape[0] == 1)  # EMPTY_GRAPH
            and rp_tree_init
            and leaf_array is not None
            and not verbose
        )
        if not ours:
            return original(
                data, n_neighbors, rng_state, max_candidates, dist, n_iters, delta,
                EMPTY_GRAPH if init_graph is None else init_graph, rp_tree_init, leaf_array,
                low_memory, verbose, kernel,
            )  # fmt: skip
        return _nn_descent_cosine(
            data, n_neighbors, rng_state, max_candidates, _cosine(), n_iters, delta, leaf_array,
            kernel, numba.get_num_threads(),
        )  # fmt: skip

    return nn_descent


@contextmanager
def cached_nn_descent():
    """Within the block, pynndescent's cosine NN-descent runs the disk-cached copy above."""
    theirs = getattr(_pynnd, "nn_descent", None)
    if not isinstance(theirs, numba.core.dispatcher.Dispatcher):  # not the pynndescent above
        yield
        return
    _pynnd.nn_descent = _nn_descent(theirs)
    try:
        yield
    finally:
        _pynnd.nn_descent = theirs

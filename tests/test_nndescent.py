"""The neighbour graph above EXACT_MAX: pynndescent's own graph, compiled once per machine.

``workbench._nndescent`` runs pynndescent's cosine NN-descent through copies numba can keep on
disk (pynndescent's own functions recompile in every process: ~11 s). These tests hold it to
pynndescent's graph bit for bit, check that a second process loads the machine code instead of
compiling it, and that any other call goes to pynndescent unchanged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import nullcontext
from pathlib import Path

import numpy as np
from workbench.space import neighbors as _neighbors
from workbench.space import _nndescent as ours

ROOT = Path(__file__).resolve().parents[1]


def clustered(n=2500, dim=24, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(12, dim))
    return (centres[rng.integers(0, 12, n)] + 0.4 * rng.normal(size=(n, dim))).astype(np.float32)


def test_the_cached_graph_is_pynndescents_graph_bit_for_bit(monkeypatch):
    X = clustered()
    indices, dists = _neighbors._nndescent(X, 30, seed=7)
    monkeypatch.setattr(ours, "cached_nn_descent", nullcontext)  # pynndescent's own functions
    their_indices, their_dists = _neighbors._nndescent(X, 30, seed=7)
    np.testing.assert_array_equal(indices, their_indices)
    np.testing.assert_array_equal(dists, their_dists)
    assert (indices[:, 0] == np.arange(len(X))).mean() > 0.99  # each paper its own nearest


CHILD = """
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    from workbench.space import _nndescent
    from workbench.space import neighbors as _neighbors
    X = np.random.default_rng(1).normal(size=(1500, 16)).astype(np.float32)
    start = time.perf_counter()
    _neighbors._nndescent(X, 15, seed=3)
    seconds = time.perf_counter() - start
stats = _nndescent._nn_descent_cosine.stats
print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                  "uncachable": [str(w.message) for w in caught if "Cannot cache" in str(w.message)],
                  "seconds": seconds}))
"""


def run_child() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # the test run's WORKBENCH_CACHE (conftest.py)
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_the_graph_code_from_disk():
    first = run_child()  # compiles and stores it, unless an earlier process did
    assert first["hits"] + first["misses"] == 1 and first["uncachable"] == [], first
    second = run_child()
    assert second["hits"] == 1 and second["misses"] == 0 and second["uncachable"] == [], second


def test_other_distances_and_starting_graphs_go_to_pynndescent_unchanged():
    from pynndescent.distances import alternative_dot, euclidean

    calls = []

    def original(*args):
        calls.append(args)
        return "theirs"

    nn_descent = ours._nn_descent(original)
    data, rng_state, leaves = (
        np.zeros((4, 2), np.float32),
        np.zeros(3, np.int64),
        np.zeros((1, 4), np.int32),
    )
    assert nn_descent(data, 3, rng_state, 10, euclidean, leaf_array=leaves) == "theirs"
    assert calls[-1][4] is euclidean and calls[-1][9] is leaves
    graph = (np.zeros((4, 3), np.int32), np.zeros((4, 3), np.float32), np.zeros((4, 3), np.uint8))
    assert (
        nn_descent(data, 3, rng_state, 10, alternative_dot, init_graph=graph, leaf_array=leaves)
        == "theirs"
    )
    assert calls[-1][7] is graph
    assert (
        nn_descent(data, 3, rng_state, 10, alternative_dot, leaf_array=leaves, verbose=True)
        == "theirs"
    )
    assert len(calls) == 3


def test_the_swap_lasts_one_block():
    from pynndescent import pynndescent_

    before = pynndescent_.nn_descent
    with ours.cached_nn_descent():
        assert pynndescent_.nn_descent is not before
    assert pynndescent_.nn_descent is before

"""The map laid out in a second process beside the topics is the map one process lays out."""

import subprocess
import sys
import textwrap

import pytest

# Each case runs in a fresh interpreter: a process whose numba threads have started (any test
# that fitted a UMAP before, in this pytest worker) never forks the map, by design.
PRELUDE = """
import logging, multiprocessing, numpy as np
from workbench.review.build import _map_beside
from workbench.review.build._map_beside import MapBeside, lay_out
_map_beside.MIN_PAPERS = 100
X = np.random.default_rng(0).normal(size=(400, 16)).astype(np.float32)
X[:200] += 3  # two groups
"""


def run(body: str) -> str:
    out = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout + out.stderr


def test_the_second_process_lays_out_the_same_map():
    out = run("""
        with MapBeside(X, 7) as beside:
            assert beside._child is not None and beside._child.is_alive()  # forked, waiting or working
            coords, method = beside.result()
            assert beside._child is None  # ended, its memory given back
        alone, alone_method = lay_out(X, 7)
        assert method == alone_method == "umap" and coords.shape == (400, 2)
        assert np.array_equal(coords, alone)
        print("same map")
    """)
    assert "same map" in out


@pytest.mark.parametrize("sabotage, said", [
    ("def broken(*args):\n    raise RuntimeError('no graph here')", "RuntimeError: no graph here"),
    ("def broken(*args):\n    import os; os._exit(3)", "exit code 3"),  # the process dies
])
def test_a_second_process_that_fails_leaves_the_map_to_this_one_and_says_why(sabotage, said):
    out = run(sabotage + """
logging.basicConfig(level=logging.WARNING)
_map_beside._received = broken  # (only the child calls it)
with MapBeside(X, 7) as beside:
    coords, method = beside.result()
assert np.array_equal(coords, lay_out(X, 7)[0])
print("laid out here")
""")
    assert "laid out here" in out and said in out


def test_an_error_in_the_topics_stops_the_second_process():
    out = run("""
        try:
            with MapBeside(X, 7) as beside:
                child = beside._child
                raise KeyError("topics failed")
        except KeyError:
            pass
        assert not child.is_alive() and not multiprocessing.active_children()
        print("stopped")
    """)
    assert "stopped" in out


def test_no_second_process_where_it_is_not_safe_or_does_not_pay():
    out = run("""
        import os
        assert MapBeside(X[:99], 7)._child is None  # too few papers
        _map_beside.MAX_PAPERS = len(X) - 1
        assert MapBeside(X, 7)._child is None  # too many: the child would hold gigabytes
        _map_beside.MAX_PAPERS = 10**9
        os.environ["WORKBENCH_WORKERS"] = "1"
        assert MapBeside(X, 7)._child is None
        del os.environ["WORKBENCH_WORKERS"]
        import sys
        sys.modules["torch"] = object()  # (as if imported)
        assert MapBeside(X, 7)._child is None
        del sys.modules["torch"]
        lay_out(X, 7)  # a UMAP: numba's threads run in this process from now on
        assert _map_beside._numba_threads_started() and MapBeside(X, 7)._child is None
        print("laid out here each time")
    """)
    assert "laid out here each time" in out


def test_a_build_gives_the_same_review_with_the_map_beside(tmp_path, n=100):
    """A whole build, forked map or not: the same coordinates in the review."""
    out = run(f"""
        import csv, json
        rows = [("", f"Paper {{i}} studies topic {{i % 3}} with method {{i % 7}} and sample {{i}}. " * 3)
                for i in range({n} * 3)]
        with open("{tmp_path}/papers.csv", "w", newline="") as f:
            csv.writer(f).writerows([("title", "abstract"), *rows])
        import workbench
        forked, init = [], MapBeside.__init__
        def recording(self, *args, **kwargs):
            init(self, *args, **kwargs)
            forked.append(self._child is not None)
        MapBeside.__init__ = recording
        a = workbench.build(["{tmp_path}/papers.csv"], review="{tmp_path}/a", embedder="fake", progress=False)
        _map_beside.MIN_PAPERS = 10**9
        b = workbench.build(["{tmp_path}/papers.csv"], review="{tmp_path}/b", embedder="fake", progress=False)
        assert forked == [True, False]
        assert np.array_equal(a.coords, b.coords) and a.manifest["map"] == b.manifest["map"]
        print("same review map")
    """)
    assert "same review map" in out

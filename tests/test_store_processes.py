"""Reliability with real processes on a real file: kill -9 mid-write, and concurrent writers."""

from __future__ import annotations

import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from workbench.store import Store

N_PAPERS = 10_000

# Tags papers start..stop-1 one call at a time and prints each index once the call returned.
# With "wait" it starts on a line from stdin and pauses 1 ms between calls, like fast clicks.
TAGGER = r"""
import sys, time
from workbench.store import Store
review, reviewer, tag, start, stop = sys.argv[1:6]
together = sys.argv[6:] == ["wait"]
store = Store.open(review, reviewer=reviewer)
print("ready", flush=True)
if together:
    sys.stdin.readline()
for i in range(int(start), int(stop)):
    store.tags.add(f"{i:012x}", tag)
    print(i, flush=True)
    if together:
        time.sleep(0.001)
"""


def pid(i: int) -> str:
    return f"{i:012x}"


def spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", TAGGER, *map(str, args)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.fixture
def review(tmp_path):
    with Store.open(tmp_path, reviewer="setup") as store:
        store.sync_papers([{"id": pid(i), "title": f"Paper {i}"} for i in range(N_PAPERS)])
    return tmp_path


def test_kill_9_while_writing_10000_tags_loses_no_acknowledged_write(review):
    acked: list[int] = []
    start = 0
    for delay in (0.3, 0.5, 0.4):  # three kills at different moments, resuming each time
        child = spawn(review, "ana", "killed", start, N_PAPERS)
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        got: list[int] = []
        reader = threading.Thread(
            target=lambda out=child.stdout, got=got: got.extend(int(line) for line in out),
            daemon=True)
        reader.start()
        time.sleep(delay)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        reader.join(timeout=30)
        assert child.returncode == -signal.SIGKILL
        assert got, "the writer acknowledged nothing before it was killed; raise the delay"
        acked += got
        print(f"killed after {len(got)} acknowledged writes")
        start = got[-1] + 1
        assert start < N_PAPERS, "the writer finished before the kill; lower the delay"
    conn = sqlite3.connect(review / "annotations.sqlite")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    with Store.open(review, reviewer="check") as store:
        saved = set(store.tags.papers_with("killed"))
        assert store.files.integrity_check() == "ok"
    missing = [pid(i) for i in acked if pid(i) not in saved]
    assert missing == []
    # At most one write per kill can have been committed without being acknowledged.
    assert len(acked) <= len(saved) <= len(acked) + 3


def test_two_processes_tagging_the_same_review_lose_nothing(review):
    n = 600
    writers = [spawn(review, "ana", "from-ana", 0, n, "wait"),
               spawn(review, "bob", "from-bob", 0, n, "wait")]
    for w in writers:
        assert w.stdout.readline().strip() == "ready", w.stderr.read()
    for w in writers:  # start both at once
        w.stdin.write("go\n")
        w.stdin.flush()
    outputs = [w.communicate(timeout=240) for w in writers]
    for w, (out, err) in zip(writers, outputs):
        assert w.returncode == 0, err
        assert len(out.split()) == n
    with Store.open(review, reviewer="check") as store:
        assert store.tags.papers_with("from-ana") == [pid(i) for i in range(n)]
        assert store.tags.papers_with("from-bob") == [pid(i) for i in range(n)]
        tag_actions = [e for e in store.history(limit=None) if e.action == "tag"]
        assert sorted({e.reviewer for e in tag_actions}) == ["ana", "bob"]
        assert len(tag_actions) == 2 * n
        order = [e.reviewer for e in reversed(tag_actions)]
        switches = sum(1 for a, b in itertools.pairwise(order) if a != b)
        print(f"writers alternated {switches} times")
        assert switches >= 20, "the two writers did not overlap; the test proved nothing"
        assert store.files.integrity_check() == "ok"


CREATOR = r"""
import sys
from workbench.store import Store
sys.stdin.readline()
with Store.open(sys.argv[1], reviewer=sys.argv[2]) as store:
    store.tags.describe("made-by-" + sys.argv[2], description="created concurrently")
"""


def test_two_processes_creating_the_same_store_share_one_file(tmp_path):
    procs = [subprocess.Popen([sys.executable, "-c", CREATOR, str(tmp_path / "new"), who],
                              stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for who in ("ana", "bob")]
    time.sleep(0.5)  # let both import workbench, then release them together
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    assert sorted(f.name for f in (tmp_path / "new").iterdir()
                  if not f.name.startswith("annotations.sqlite-")) == ["annotations.sqlite"]
    with Store.open(tmp_path / "new") as store:
        assert [t.name for t in store.tags.vocabulary()] == ["made-by-ana", "made-by-bob"]

"""Two reviewers screening one blind review at the same time, from two real processes: every
acknowledged decision (at both stages) and tag is in the store, side by side, none overwritten."""

from __future__ import annotations

import itertools
import subprocess
import sys

from workbench.store import Store

N_PAPERS = 240

# Screens papers 0..n-1 in its own random order, one call at a time, at title/abstract (with the
# rank the queue showed), tags every fifth paper "seen" and takes every third include on to full
# text; prints each write once the call returned. Starts on a line from stdin; pauses 2 ms per paper.
SCREENER = r"""
import random, sys, time
from workbench.store import Shown, Store
review, reviewer, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store = Store.open(review, reviewer=reviewer)
rng = random.Random(seed)
order = list(range(n))
rng.shuffle(order)
print("ready", flush=True)
sys.stdin.readline()
for rank, i in enumerate(order, start=1):
    pid = f"{i:012x}"
    decision = rng.choice(["include", "exclude", "maybe"])
    store.decisions.decide(pid, decision, reason="off topic" if decision == "exclude" else None,
                           shown=Shown(rank=rank, score=1 / rank, model="svm"))
    print("title_abstract", pid, decision, flush=True)
    if i % 5 == 0:
        store.tags.add(pid, "seen")
        print("tag", pid, "seen", flush=True)
    if decision == "include" and i % 3 == 0:
        store.decisions.decide(pid, "include", stage="full_text")
        print("full_text", pid, "include", flush=True)
    time.sleep(0.002)  # a person's clicks, not a loop: lets the other screener in
"""


def test_two_reviewers_screening_at_once_lose_nothing(tmp_path):
    folder = tmp_path / "review"
    with Store.open(folder, reviewer="lead") as store:
        store.sync_papers([{"id": f"{i:012x}", "title": f"Paper {i}"} for i in range(N_PAPERS)])
        store.team.set_blind(True)
    screeners = {who: subprocess.Popen([sys.executable, "-c", SCREENER, str(folder), who, str(N_PAPERS), str(seed)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
                 for who, seed in (("ana", 1), ("ben", 2))}
    for proc in screeners.values():
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
    for proc in screeners.values():  # both start at once
        proc.stdin.write("go\n")
        proc.stdin.flush()
    acked = {}
    for who, proc in screeners.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
        acked[who] = [line.split() for line in out.splitlines()]
    with Store.open(folder, reviewer="check") as store:  # blind: the check asks for every reviewer's work
        saved = {(d.paper_id, d.reviewer, d.stage): d.decision for d in store.decisions.every(None, all_reviewers=True)}
        for who, lines in acked.items():
            decisions = {(pid, who, stage): d for stage, pid, d in lines if stage != "tag"}
            assert len(decisions) == sum(stage != "tag" for stage, _, _ in lines)
            assert {k: saved.get(k) for k in decisions} == decisions, f"{who}'s acknowledged decisions"
            tagged = [pid for kind, pid, _ in lines if kind == "tag"]
            assert tagged and all("seen" in store.tags.by_reviewer(pid, all_reviewers=True).get(who, [])
                              for pid in tagged)
            ranks = {r.paper_id: r.rank for r in store.decisions.records(who, all_reviewers=True)}
            assert sorted(ranks.values()) == list(range(1, N_PAPERS + 1))
        assert len(saved) == sum(len([x for x in lines if x[0] != "tag"]) for lines in acked.values())
        both = [pid for pid in {k[0] for k in saved} if (pid, "ana", "title_abstract") in saved
                and (pid, "ben", "title_abstract") in saved]
        assert len(both) == N_PAPERS, "every paper screened twice, by each reviewer once"
        decide_actions = [e for e in store.history(limit=None, all_reviewers=True) if e.action == "decide"]
        order = [e.reviewer for e in reversed(decide_actions)]
        switches = sum(1 for a, b in itertools.pairwise(order) if a != b)
        assert switches >= 20, "the two screeners did not overlap; the test proved nothing"
        assert store.files.integrity_check() == "ok"

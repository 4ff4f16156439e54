"""Duplicates a person settles: candidate pairs, "same paper" (annotations follow, one undo),
"different" (kept apart by every later update and rebuild), and the store's v4 -> v5 migration."""

from __future__ import annotations

import csv
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import workbench
from workbench.cli import main
from workbench.store import SCHEMA_VERSION, MergedPaperWarning, Store

from conftest import ROOT, seed_abstracts

ABSTRACT = ("We study {} with a new method on three benchmark data sets, and compare it with "
            "four baselines from the literature, reporting accuracy, cost and robustness {}.")
ROWS = [  # title, doi, year, authors, abstract topic
    ("Deep learning for protein structure prediction in bacteria", "10.1000/aaa", 2020, "Smith, J", "proteins"),
    ("Deep learning for protein structure prediction in bacterium", "10.1000/bbb", 2020, "Smith, J", "protein folds"),
    ("Reinforcement learning from human feedback for dialogue agents", "", 2019, "Smith, J", "dialogue"),
    ("Reinforcement learning from human feedback for dialog agents", "", 2021, "Jones, K", "chat agents"),
]


def write_csv(path: Path, rows) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["title", "abstract", "doi", "year", "authors"])
        for i, (title, doi, year, authors, topic) in enumerate(rows):
            out.writerow([title, ABSTRACT.format(topic, i), doi, year, authors])
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dups")
    write_csv(folder / "pairs.csv", ROWS)
    seeds = folder / "seeds.csv"
    with open(seeds, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["abstract"], *[[a] for a in seed_abstracts()[:60]]])
    workbench.build([folder / "pairs.csv", seeds], review=folder / "r", embedder="fake", seed=42, progress=False)
    return folder


@pytest.fixture
def case(built, tmp_path):
    return Path(shutil.copytree(built, tmp_path / "case"))


def ids_by_title(review) -> dict[str, str]:
    return {p.title: p.id for p in review.papers}


def test_candidates_are_the_alike_pairs_the_rules_kept_apart(case):
    review = workbench.open_review(case / "r")
    ids = ids_by_title(review)
    found = {frozenset((c.first, c.second)): c for c in review.updates.duplicate_candidates()}
    proteins = found[frozenset((ids[ROWS[0][0]], ids[ROWS[1][0]]))]
    assert "different DOIs" in proteins.why_apart and proteins.score >= 85
    dialogue = found[frozenset((ids[ROWS[2][0]], ids[ROWS[3][0]]))]
    assert "first authors" in dialogue.why_apart or "years" in dialogue.why_apart
    assert len(found) == 2  # the seed abstracts have no alike titles


def test_same_paper_merges_with_annotations_and_one_undo(case):
    review = workbench.open_review(case / "r")
    ids = ids_by_title(review)
    kept, gone = ids[ROWS[0][0]], ids[ROWS[1][0]]
    with Store.open(case / "r", reviewer="ana") as store:
        store.tags.add(gone, "key paper")
        store.notes.add(gone, "the better version")
        store.decisions.decide(gone, "include")
    verdict = review.updates.settle_duplicates(kept, gone, "same", reviewer="ana")
    assert verdict.kept == kept and verdict.other == gone
    with Store.open(case / "r", reviewer="ana") as store:
        assert store.tags.of(kept) == ["key paper"] and store.decisions.of(kept).decision == "include"
        assert len(store.notes.of(kept)) == 1 and store.duplicates.merged_into() == {gone: kept}
        with pytest.warns(MergedPaperWarning, match=f"{gone} was merged into {kept}"):
            assert store.paper(gone)["id"] == kept  # the merged-away id names the paper it joined
    assert all(gone not in (c.first, c.second) for c in review.updates.duplicate_candidates())
    rebuilt = workbench.build([case / "pairs.csv", case / "seeds.csv"], review=case / "r", embedder="fake",
                              progress=False)
    assert gone not in rebuilt and kept in rebuilt  # a rebuild keeps the merge
    assert any(s.startswith(str(case / "pairs.csv")) for s in rebuilt.paper(kept).sources)
    with Store.open(case / "r", reviewer="ana") as store:
        assert store.tags.of(kept) == ["key paper"]
        (undone,) = store.undo()
        assert undone.action == "duplicate-same"
        assert store.tags.of(gone) == ["key paper"] and store.decisions.of(gone).decision == "include"
        assert store.tags.of(kept) == [] and store.decisions.of(kept) is None and len(store.notes.of(gone)) == 1
        assert store.duplicates.verdicts() == []


def test_different_papers_stay_apart_through_updates_and_rebuilds(case):
    review = workbench.open_review(case / "r")
    ids = ids_by_title(review)
    first = ids[ROWS[2][0]]
    # A new search finds a record the rules call the same paper as the first (title near-identical,
    # same year and author), with another abstract: the update merges it.
    again = write_csv(case / "new.csv", [(ROWS[2][0] + ".", "", 2019, "Smith, J", "dialogue policies")])
    updated = workbench.update([again], review)
    (dup,) = updated.update_report.duplicates
    assert dup.paper == first and not updated.update_report.new
    # A person says the record is a different paper: the next update keeps it apart
    updated.updates.settle_duplicates(first, dup.record_id, "different", reviewer="ana")
    updated.updates.settle_duplicates(first, ids[ROWS[3][0]], "different", reviewer="ana")
    later = workbench.update([again], updated)
    assert later.update_report.new == (dup.record_id,) and not later.update_report.duplicates
    assert later.update_report.kept_apart == 1
    assert all(frozenset((c.first, c.second)) != frozenset((first, ids[ROWS[3][0]]))
               for c in later.updates.duplicate_candidates())
    rebuilt = workbench.build([case / "pairs.csv", case / "seeds.csv", again], review=case / "r",
                              embedder="fake", progress=False)
    assert first in rebuilt and dup.record_id in rebuilt  # the rebuild's dedupe consults it too
    with Store.open(case / "r") as store:
        assert len(store.duplicates.apart_pairs()) == 2


def test_cli_lists_and_settles(case, capsys):
    review = workbench.open_review(case / "r")
    ids = ids_by_title(review)
    assert main(["duplicates", "--review", str(case / "r"), "--format", "csv"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1 + 2
    assert main(["duplicates", "--review", str(case / "r"), "--reviewer", "ana",
                 "--different", ids[ROWS[0][0]], ids[ROWS[1][0]]]) == 0
    assert "different" in capsys.readouterr().err
    assert main(["duplicates", "--review", str(case / "r"), "--format", "csv"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1 + 1


def test_a_v4_store_migrates_to_v5_and_keeps_everything(tmp_path):
    conn = sqlite3.connect(tmp_path / "annotations.sqlite")
    conn.executescript((ROOT / "tests" / "data" / "store" / "schema_v4.sql").read_text())
    conn.execute("INSERT INTO papers (id, title) VALUES ('aaaaaaaaaaaa', 'One'), ('bbbbbbbbbbbb', 'Two')")
    conn.execute("INSERT INTO tag_vocab VALUES ('kept', '', NULL, 'ana', '2024-01-01T00:00:00Z')")
    conn.execute("INSERT INTO paper_tags VALUES ('bbbbbbbbbbbb', 'kept', 'ana', '2024-01-01T00:00:00Z')")
    conn.execute("INSERT INTO history (id, at, reviewer, action, summary) "
                 "VALUES (1, '2024-01-01T00:00:00Z', 'ana', 'tag', 'tag kept')")
    conn.commit()
    conn.close()
    with Store.open(tmp_path, reviewer="ana") as store:
        assert [s.reason for s in store.files.snapshots()] == ["before-migration-v4"]
        assert store.tags.of("bbbbbbbbbbbb") == ["kept"] and store.duplicates.verdicts() == []
        store.duplicates.settle("aaaaaaaaaaaa", "bbbbbbbbbbbb", "same")
        assert store.tags.of("aaaaaaaaaaaa") == ["kept"] and store.files.integrity_check() == "ok"
    conn = sqlite3.connect(tmp_path / "annotations.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    conn.close()


# ----------------------------------------------------------------------------- merged-away ids

def cli(*argv: str) -> subprocess.CompletedProcess:
    """The command line in its own process, as a person runs it."""
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "WORKBENCH_DEBUG": ""})


def test_cli_tag_note_decide_on_a_merged_away_id_go_to_the_paper_it_joined_saying_so(case):
    ids = ids_by_title(workbench.open_review(case / "r"))
    kept, gone, r = ids[ROWS[0][0]], ids[ROWS[1][0]], str(case / "r")
    done = cli("duplicates", "--review", r, "--reviewer", "ana", "--same", kept, gone)
    assert done.returncode == 0, done.stderr
    for argv, said in ((["tag", gone, "key paper"], "tagged"), (["note", gone[:8], "journal", "version"],
                       "note added to"), (["decide", gone, "include", "--reason", "on topic"], "decided")):
        result = cli(*argv, "--review", r, "--reviewer", "ana")
        assert result.returncode == 0, result.stderr
        assert f"{gone} was merged into {kept} (same paper); {said} {kept}" in result.stderr
        assert result.stdout.startswith(kept)
    history = cli("history", "--review", r, "--paper", gone)
    assert history.returncode == 0 and f"{gone} was merged into {kept}" in history.stderr
    assert "key paper" in history.stdout and "same paper" in history.stdout
    with Store.open(case / "r", reviewer="ana") as store:
        assert f'"paper": "{gone}"' not in store.files.export("jsonl")  # nothing written under the merged-away id
        assert store.tags.of(kept) == ["key paper"] and [n.text for n in store.notes.of(kept)] == ["journal version"]
        assert store.decisions.of(kept).reason == "on topic"
    assert cli("undo", "4", "--review", r, "--reviewer", "ana").returncode == 0  # the merge too
    again = cli("tag", gone, "own", "--review", r, "--reviewer", "ana")
    assert again.returncode == 0 and "merged" not in again.stderr and again.stdout.startswith(gone)


def test_cli_same_then_different_on_the_pair_is_refused_with_how_to_undo(case):
    ids = ids_by_title(workbench.open_review(case / "r"))
    kept, gone, r = ids[ROWS[0][0]], ids[ROWS[1][0]], str(case / "r")
    assert cli("duplicates", "--review", r, "--reviewer", "ana", "--same", kept, gone).returncode == 0
    refused = cli("duplicates", "--review", r, "--reviewer", "ana", "--different", kept, gone)
    assert refused.returncode == 1 and "undo that merge first" in refused.stderr
    assert "this is a bug" not in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


def test_session_and_review_work_on_a_merged_away_id_goes_to_the_paper_it_joined(case):
    from workbench.widgets import Session

    review = workbench.open_review(case / "r")
    ids = ids_by_title(review)
    kept, gone = ids[ROWS[0][0]], ids[ROWS[1][0]]
    review.updates.settle_duplicates(kept, gone, "same", reviewer="ana")
    events = []
    with Session.open(case / "r", reviewer="ana") as session:  # the map still shows gone until a rebuild
        session.subscribe(lambda event, changed: events.append((event, changed)))
        with pytest.warns(MergedPaperWarning, match=f"{gone} was merged into {kept}"):
            session.tag(gone, "from the map")
        with pytest.warns(MergedPaperWarning):
            session.decide([gone], "maybe")
    assert events == [("tag", [kept]), ("decide", [kept])]  # the views refresh the paper that changed
    rebuilt = workbench.build([case / "pairs.csv", case / "seeds.csv"], review=case / "r", embedder="fake",
                              progress=False)
    assert gone not in rebuilt
    with pytest.warns(MergedPaperWarning):
        rebuilt.screening.decide(gone, "include", reviewer="ana")  # not in the map any more: still its paper
    with pytest.warns(MergedPaperWarning):
        rebuilt.team.resolve(gone, "include", reviewer="ana")
    with Store.open(case / "r", reviewer="ana") as store:
        assert store.tags.of(kept) == ["from the map"] and store.decisions.of(kept).decision == "include"
        assert store.team.final(kept).decision == "include"


def test_cli_merge_keeps_both_votes_and_the_conflicts_queue_shows_them(case):
    ids = ids_by_title(workbench.open_review(case / "r"))
    kept, gone, r = ids[ROWS[0][0]], ids[ROWS[1][0]], str(case / "r")
    for who, pid, decision in (("alice", kept, "exclude"), ("alice", gone, "include"), ("bob", gone, "include")):
        assert cli("decide", pid, decision, "--review", r, "--reviewer", who).returncode == 0
    merged = cli("duplicates", "--review", r, "--reviewer", "ana", "--same", kept, gone)
    assert merged.returncode == 0, merged.stderr
    assert f"alice's votes differ: include on {gone}, exclude on {kept}" in merged.stderr
    queue = cli("conflicts", "--review", r, "--format", "csv")
    assert queue.returncode == 0, queue.stderr
    rows = list(csv.DictReader(queue.stdout.splitlines()))
    assert [(row["id"], row["alice"], row[f"alice (on {gone})"], row["bob"]) for row in rows] == [
        (kept, "exclude", "include", "include")]
    assert cli("undo", "--review", r, "--reviewer", "ana").returncode == 0
    with Store.open(case / "r") as store:
        assert {d.reviewer: d.decision for d in store.decisions.votes(gone)} == {"alice": "include", "bob": "include"}

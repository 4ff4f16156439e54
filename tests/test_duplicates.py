"""Duplicates a person settles: candidate pairs, "same paper" (annotations follow, one undo),
"different" (kept apart by every later update and rebuild), and the store's v4 -> v5 migration."""

from __future__ import annotations

import csv
import shutil
import sqlite3
from pathlib import Path

import pytest

import workbench
from workbench.cli import main
from workbench.store import SCHEMA_VERSION, Store

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
    found = {frozenset((c.first, c.second)): c for c in review.duplicate_candidates()}
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
        store.tag(gone, "key paper")
        store.note(gone, "the better version")
        store.decide(gone, "include")
    verdict = review.settle_duplicates(kept, gone, "same", reviewer="ana")
    assert verdict.kept == kept and verdict.other == gone
    with Store.open(case / "r", reviewer="ana") as store:
        assert store.tags(kept) == ["key paper"] and store.decision(kept).decision == "include"
        assert len(store.notes(kept)) == 1 and store.tags(gone) == [] and store.decision(gone) is None
        assert not store.paper(gone)["in_corpus"]
    assert all(gone not in (c.first, c.second) for c in review.duplicate_candidates())
    rebuilt = workbench.build([case / "pairs.csv", case / "seeds.csv"], review=case / "r", embedder="fake",
                              progress=False)
    assert gone not in rebuilt and kept in rebuilt  # a rebuild keeps the merge
    assert any(s.startswith(str(case / "pairs.csv")) for s in rebuilt.paper(kept).sources)
    with Store.open(case / "r", reviewer="ana") as store:
        assert store.tags(kept) == ["key paper"]
        (undone,) = store.undo()
        assert undone.action == "duplicate-same"
        assert store.tags(gone) == ["key paper"] and store.decision(gone).decision == "include"
        assert store.tags(kept) == [] and store.decision(kept) is None and len(store.notes(gone)) == 1
        assert store.duplicate_verdicts() == []


def test_different_papers_stay_apart_through_updates_and_rebuilds(case):
    review = workbench.open_review(case / "r")
    ids = ids_by_title(review)
    first = ids[ROWS[2][0]]
    # A new search finds a record the rules call the same paper as the first (title near-identical,
    # same year and author), with another abstract: the update merges it.
    again = write_csv(case / "new.csv", [(ROWS[2][0] + ".", "", 2019, "Smith, J", "dialogue policies")])
    updated = review.update([again])
    (dup,) = updated.update_report.duplicates
    assert dup.paper == first and not updated.update_report.new
    # A person says the record is a different paper: the next update keeps it apart
    updated.settle_duplicates(first, dup.record_id, "different", reviewer="ana")
    updated.settle_duplicates(first, ids[ROWS[3][0]], "different", reviewer="ana")
    later = updated.update([again])
    assert later.update_report.new == (dup.record_id,) and not later.update_report.duplicates
    assert later.update_report.kept_apart == 1
    assert all(frozenset((c.first, c.second)) != frozenset((first, ids[ROWS[3][0]]))
               for c in later.duplicate_candidates())
    rebuilt = workbench.build([case / "pairs.csv", case / "seeds.csv", again], review=case / "r",
                              embedder="fake", progress=False)
    assert first in rebuilt and dup.record_id in rebuilt  # the rebuild's dedupe consults it too
    with Store.open(case / "r") as store:
        assert len(store.apart_pairs()) == 2


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
        assert [s.reason for s in store.snapshots()] == ["before-migration-v4"]
        assert store.tags("bbbbbbbbbbbb") == ["kept"] and store.duplicate_verdicts() == []
        store.settle_duplicates("aaaaaaaaaaaa", "bbbbbbbbbbbb", "same")
        assert store.tags("aaaaaaaaaaaa") == ["kept"] and store.integrity_check() == "ok"
    conn = sqlite3.connect(tmp_path / "annotations.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
    conn.close()

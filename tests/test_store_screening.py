"""The store's screening records: how each decision was made (the log of stopping claims: test_report)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from workbench.store import SCHEMA_VERSION, AnnotationInputError, Shown, Store

DATA = Path(__file__).parent / "data" / "store"


def pid(i: int) -> str:
    return f"{i:012x}"


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "review", reviewer="ana")
    s.sync_papers([{"id": pid(i), "title": f"Paper {i}"} for i in range(300)])
    yield s
    s.close()


def test_a_decision_records_rank_score_and_model_at_the_time(store):
    store.decisions.decide(pid(3), "include", shown=Shown(rank=1, score=0.82, model="svm-tfidf", model_version="svm-tfidf/1;seed=1"))
    store.decisions.decide(pid(4), "exclude")  # no ranking shown
    first, second = store.decisions.records()
    assert (first.paper_id, first.decision, first.rank, first.score) == (pid(3), "include", 1, 0.82)
    assert (first.model, first.model_version) == ("svm-tfidf", "svm-tfidf/1;seed=1")
    assert (first.bulk, first.sampled, first.recorded, first.reviewer) == (False, False, True, "ana")
    assert (second.paper_id, second.rank, second.score, second.model, second.bulk) == (pid(4), None, None, None, False)
    assert first.decided_at < second.decided_at


def test_several_papers_in_one_action_are_bulk_unless_said_otherwise(store):
    store.decisions.decide([pid(1), pid(2)], "exclude")
    store.decisions.decide([pid(5), pid(6)], "exclude", bulk=False, shown=Shown(rank=[2, 3], score=[0.1, -0.2], model="m", model_version="m/1"))
    by_id = {r.paper_id: r for r in store.decisions.records()}
    assert by_id[pid(1)].bulk and by_id[pid(2)].bulk
    assert not by_id[pid(5)].bulk and (by_id[pid(5)].rank, by_id[pid(6)].rank) == (2, 3)
    assert (by_id[pid(5)].score, by_id[pid(6)].score) == (0.1, -0.2)


def test_a_large_selection_records_each_paper_and_one_undo_takes_it_back(store):
    ids = [pid(i) for i in range(250)]  # above the store's one-read threshold
    store.decisions.decide(pid(0), "include", shown=Shown(rank=4, score=1.5, model="m", model_version="m/1"))
    assert store.decisions.decide(ids, "exclude") == 250
    records = store.decisions.records()
    assert len(records) == 250 and all(r.bulk and r.rank is None for r in records)
    store.undo()
    (back,) = store.decisions.records()
    assert (back.paper_id, back.decision, back.rank, back.score, back.bulk) == (pid(0), "include", 4, 1.5, False)


def test_undo_takes_back_the_decision_and_its_record_together(store):
    store.decisions.decide(pid(7), "maybe", shown=Shown(rank=9, score=0.3, model="m", model_version="m/1"))
    store.decisions.decide(pid(7), "include", shown=Shown(rank=2, score=0.9, model="m", model_version="m/2"))
    assert store.decisions.records()[0].rank == 2
    store.undo()
    (record,) = store.decisions.records()
    assert (record.decision, record.rank, record.model_version) == ("maybe", 9, "m/1")
    store.undo()
    assert store.decisions.records() == []


def test_the_same_decision_again_keeps_the_first_record(store):
    store.decisions.decide(pid(8), "exclude", shown=Shown(rank=1, score=0.5, model="m", model_version="m/1"))
    assert store.decisions.decide(pid(8), "exclude", shown=Shown(rank=7, score=0.1, model="m", model_version="m/1")) == 0
    assert store.decisions.records()[0].rank == 1


def test_reading_a_paper_decided_in_bulk_records_it_as_read_in_its_place(store):
    store.decisions.decide([pid(1), pid(2), pid(3)], "exclude")
    store.decisions.decide(pid(4), "include")
    assert store.decisions.decide(pid(2), "exclude", shown=Shown(sampled=True)) == 1  # the same decision, now read
    records = store.decisions.records()
    assert [r.paper_id for r in records] == [pid(1), pid(3), pid(4), pid(2)]
    assert [(r.bulk, r.sampled) for r in records] == [(True, False), (True, False), (False, False), (False, True)]
    assert store.decisions.decide(pid(2), "exclude") == 0  # read already: nothing new
    store.undo()
    assert [r.paper_id for r in store.decisions.records() if r.bulk] == [pid(1), pid(2), pid(3)]


@pytest.mark.parametrize("kwargs, match", [
    ({"rank": 0, "model": "m"}, "whole number >= 1"),
    ({"rank": 1.5, "model": "m"}, "whole number >= 1"),
    ({"score": float("nan"), "model": "m"}, "finite score"),
    ({"rank": 3}, "without the model"),
    ({"model_version": "m/1"}, "without the model"),
    ({"model": " "}, "non-empty name"),
    ({"bulk": True, "sampled": True}, "both in bulk and part of a random sample"),
])
def test_bad_records_are_refused_and_nothing_is_saved(store, kwargs, match):
    with pytest.raises(AnnotationInputError, match=match):
        store.decisions.decide(pid(1), "include", bulk=kwargs.get("bulk"),
                               shown=Shown(**{k: v for k, v in kwargs.items() if k != "bulk"}))
    assert store.decisions.of(pid(1)) is None and store.decisions.records() == []


def test_one_rank_per_paper_or_one_for_all(store):
    with pytest.raises(AnnotationInputError, match="rank has 3 values for 2 papers"):
        store.decisions.decide([pid(1), pid(2)], "exclude", shown=Shown(rank=[1, 2, 3], model="m"))
    store.decisions.decide([pid(1), pid(2)], "exclude", shown=Shown(rank=np.array([1, 2]), score=np.float32(0.25), model="m"))
    assert [(r.rank, r.score) for r in store.decisions.records()] == [(1, 0.25), (2, 0.25)]


def test_records_pick_this_reviewers_decision_else_the_latest(tmp_path, store):
    store.decisions.decide(pid(1), "include", shown=Shown(rank=1, score=1.0, model="m", model_version="m/1"))
    with Store.open(tmp_path / "review", reviewer="bob") as bob:
        bob.decisions.decide(pid(1), "exclude")
        bob.decisions.decide(pid(2), "exclude")
        assert [(r.paper_id, r.reviewer) for r in bob.decisions.records()] == [(pid(1), "bob"), (pid(2), "bob")]
    assert [(r.paper_id, r.reviewer) for r in store.decisions.records()] == [(pid(1), "ana"), (pid(2), "bob")]
    assert [r.reviewer for r in store.decisions.records("bob")] == ["bob", "bob"]
    assert len(store.decisions.records(everyone=True)) == 3


def make_v2_store(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript((DATA / "schema_v2.sql").read_text())
    conn.executemany("INSERT INTO papers (id, title) VALUES (?, ?)", [(pid(i), f"Old {i}") for i in range(4)])
    at = ["2024-01-01T10:00:00.000000Z", "2024-01-02T10:00:00.000000Z", "2024-01-02T10:00:00.000000Z",
          "2024-01-03T10:00:00.000000Z"]  # papers 1 and 2 decided in one action
    conn.executemany("INSERT INTO decisions VALUES (?, 'ana', ?, NULL, ?)",
                     [(pid(i), "include" if i == 0 else "exclude", at[i]) for i in range(4)])
    conn.commit()
    conn.close()


def test_a_v2_store_migrates_and_its_decisions_say_they_were_not_recorded(tmp_path):
    make_v2_store(tmp_path / "annotations.sqlite")
    with Store.open(tmp_path, reviewer="ana") as store:
        old = store.decisions.records()
        assert [r.paper_id for r in old] == [pid(0), pid(1), pid(2), pid(3)]
        assert [r.recorded for r in old] == [False] * 4 and [r.rank for r in old] == [None] * 4
        assert [r.bulk for r in old] == [False, True, True, False]  # inferred from the shared time
        store.decisions.decide(pid(3), "include", shown=Shown(rank=1, score=2.0, model="m", model_version="m/1"))
        assert store.decisions.records()[-1].recorded
        store.undo()
        assert store.decisions.records()[-1].recorded is False
    conn = sqlite3.connect(tmp_path / "annotations.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []

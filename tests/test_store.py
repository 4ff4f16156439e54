"""The annotation store's Python API: one call per user action, saved at once."""

from __future__ import annotations

import sqlite3

import pytest

from workbench.errors import StoreError, WorkbenchError
from workbench.store import (
    AmbiguousPaperError, AnnotationInputError, Store, UndoConflictError, UnknownPaperError
)


def pid(i: int) -> str:
    return f"{i:012x}"


def rows(n: int, start: int = 0, **extra) -> list[dict]:
    return [
        {"id": pid(i), "title": f"Paper {i}", "abstract": f"Abstract of paper {i}.",
         "authors": ["Doe, Jane", "Roe, Rick"], "year": 2020 + i % 5, "doi": f"10.1/{i}",
         "venue": "J. Tests" if i % 2 else None, "url": None, "keywords": ["k"],
         "collection": "c", "source": f"refs.bib:{i}", **extra}
        for i in range(start, start + n)
    ]


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path / "review", reviewer="ana")
    s.sync_papers(rows(10) + [dict(rows(1)[0], id="abcdef000001"),
                              dict(rows(1)[0], id="abcd99000002")])
    yield s
    s.close()


def test_open_creates_one_sqlite_file_in_wal_mode(tmp_path):
    with Store.open(tmp_path / "review", reviewer="ana") as s:
        assert s.path == tmp_path / "review" / "annotations.sqlite"
    conn = sqlite3.connect(tmp_path / "review" / "annotations.sqlite")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 2
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    leftovers = [p.name for p in (tmp_path / "review").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_open_without_create_says_where_it_looked(tmp_path):
    with pytest.raises(StoreError, match="no annotation store at .*annotations.sqlite"):
        Store.open(tmp_path / "nothing", create=False)
    assert not (tmp_path / "nothing").exists()


def test_reviewer_comes_from_argument_then_environment_then_os_user(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_REVIEWER", "env-bob")
    with Store.open(tmp_path, reviewer="ana") as s:
        assert s.reviewer == "ana"
    with Store.open(tmp_path) as s:
        assert s.reviewer == "env-bob"
    monkeypatch.delenv("WORKBENCH_REVIEWER")
    with Store.open(tmp_path) as s:
        assert s.reviewer and s.reviewer != "env-bob"


def test_tags_are_saved_at_once_and_visible_to_another_connection(store):
    assert store.tags.add([pid(1), pid(2)], "relevant", " reward   models ") == 4
    assert store.tags.add(pid(1), "relevant") == 0  # already there: nothing new
    other = Store.open(store.path, reviewer="bob")
    assert other.tags.of(pid(1)) == ["relevant", "reward models"]
    assert {t.name: t.count for t in other.tags.vocabulary()} == {"relevant": 2, "reward models": 2}
    other.close()
    assert store.tags.remove(pid(1), "relevant") is True
    assert store.tags.remove(pid(1), "relevant") is False
    assert store.tags.of(pid(1)) == ["reward models"]


@pytest.mark.parametrize("bad, match", [
    ("a,b", "contains ','"), ("", "empty"), ("x" * 101, "too long"), (3, "expected a string"),
])
def test_bad_tags_are_refused_with_the_reason(store, bad, match):
    with pytest.raises(AnnotationInputError, match=match):
        store.tags.add(pid(1), bad)
    assert store.tags.of(pid(1)) == []


def test_tag_vocabulary_describe_rename_merge_delete(store):
    store.tags.add(pid(1), "rl")
    store.tags.add(pid(2), "RL", "survey")
    store.tags.describe("rl", description="reinforcement learning", colour="#ff8800")
    with pytest.raises(AnnotationInputError, match="colour 'nope!'"):
        store.tags.describe("rl", colour="nope!")
    assert store.tags.rename("RL", "rl") == 1  # onto an existing tag: a merge
    assert store.tags.papers_with("rl") == [pid(1), pid(2)]
    rl = next(t for t in store.tags.vocabulary() if t.name == "rl")
    assert (rl.description, rl.colour, rl.count) == ("reinforcement learning", "#ff8800", 2)
    assert store.tags.merge(["rl", "survey"], into="keep") == 3
    assert store.tags.of(pid(2)) == ["keep"]
    assert [t.name for t in store.tags.vocabulary()] == ["keep"]
    assert store.tags.delete("keep") == 2
    assert store.tags.vocabulary() == [] and store.tags.of(pid(1)) == []
    with pytest.raises(AnnotationInputError, match="no tag 'gone' in the vocabulary"):
        store.tags.delete("gone")


def test_notes_are_several_per_paper_timestamped_and_editable(store):
    first = store.notes.add(pid(3), "Uses PPO.\nSecond line.")
    second = store.notes.add(pid(3), "Check the appendix")
    assert first != second
    store.notes.edit(first, "Uses PPO and DPO.")
    notes = store.notes.of(pid(3))
    assert [n.text for n in notes] == ["Uses PPO and DPO.", "Check the appendix"]
    assert notes[0].updated_at > notes[0].created_at and notes[0].reviewer == "ana"
    store.notes.delete(second)
    assert [n.id for n in store.notes.of(pid(3))] == [first]
    with pytest.raises(AnnotationInputError, match="no note #999"):
        store.notes.edit(999, "x")
    with pytest.raises(AnnotationInputError, match="empty"):
        store.notes.add(pid(3), "   ")


def test_one_current_decision_per_paper_per_reviewer(store, tmp_path):
    store.decisions.decide(pid(4), "include", reason="on topic")
    store.decisions.decide(pid(4), "maybe")
    bob = Store.open(store.path, reviewer="bob")
    bob.decisions.decide([pid(4), pid(5)], "EXCLUDE", reason="  off topic ")
    assert store.decisions.of(pid(4)).decision == "maybe"
    assert store.decisions.of(pid(4)).reason is None
    assert bob.decisions.of(pid(4)).reason == "off topic"
    assert [(d.reviewer, d.decision) for d in store.decisions.votes(pid(4))] == [
        ("ana", "maybe"), ("bob", "exclude")]
    assert store.decisions.of(pid(5)) is None
    with pytest.raises(AnnotationInputError, match="'accept' is not one of include, exclude, maybe"):
        store.decisions.decide(pid(4), "accept")
    bob.close()


def test_actions_on_a_large_selection_count_and_undo_like_small_ones(tmp_path):
    # Above store._annotations.BULK papers the current rows are read in one query, not per paper.
    with Store.open(tmp_path / "review", reviewer="ana") as s, Store.open(tmp_path / "review", reviewer="bob") as bob:
        s.sync_papers(rows(600) + [dict(rows(1)[0], id="abcdef000001")])
        ids = [pid(i) for i in range(600)]
        assert s.tags.add(ids[:10], "t") == 10
        # A prefix and an upper-case id among full ids; a repeated paper counts once.
        assert s.tags.add(ids + ["abcdef", ids[0].upper()], "t", "u") == 591 + 601
        assert s.tags.papers_with("t") == ids + ["abcdef000001"] == s.tags.papers_with("u")
        bob.decisions.decide(ids[:3], "include", reason="r")  # another reviewer's decisions are not ana's
        s.decisions.decide(ids[:5], "include", reason="r")
        assert s.decisions.decide(ids, "include", reason="r") == 595
        assert s.decisions.decide(ids, "exclude") == 600
        s.undo()
        assert {s.decisions.of(i).decision for i in ids} == {"include"}
        s.undo()
        assert s.decisions.of(ids[4]).reason == "r" and s.decisions.of(ids[5]) is None
        s.undo(2)  # ana's five decisions, then the large tag
        assert s.tags.papers_with("t") == ids[:10] and s.tags.papers_with("u") == []
        assert bob.decisions.of(ids[0]).decision == "include"
        with pytest.raises(UnknownPaperError, match="'fff'"):
            s.tags.add(ids + ["fff"], "x")
        assert s.tags.papers_with("t") == ids[:10]


def test_one_note_on_many_papers_is_one_action(store):
    note_ids = store.notes.add_each([pid(1), pid(2), "abcdef", pid(1)], "  Same method  ")
    assert len(note_ids) == 3 and len(set(note_ids)) == 3
    assert [n.text for n in store.notes.of(pid(1))] == ["Same method"] == [n.text for n in store.notes.of("abcdef")]
    entry = store.history(limit=1)[0]
    assert entry.action == "note" and entry.summary == "note on 3 papers: Same method"
    store.undo()
    assert store.notes.of(pid(1)) == store.notes.of(pid(2)) == store.notes.of("abcdef") == []
    with pytest.raises(AnnotationInputError, match="note '  ' is empty"):
        store.notes.add_each([pid(1), pid(2)], "  ")


def test_resolve_takes_a_unique_prefix_and_explains_otherwise(store):
    assert store.resolve("ABCDEF000001") == "abcdef000001"
    assert store.resolve(pid(9)) == pid(9)
    assert store.resolve("abcd9") == "abcd99000002"
    with pytest.raises(AmbiguousPaperError, match="'abcd' matches several papers"):
        store.resolve("abcd")
    with pytest.raises(UnknownPaperError, match="no paper with id or id prefix 'fff'"):
        store.resolve("fff")
    with pytest.raises(UnknownPaperError, match="not a paper id: expected 12 hexadecimal"):
        store.tags.add("xyz!", "t")
    assert issubclass(AmbiguousPaperError, WorkbenchError)


def test_sync_reports_orphans_and_never_deletes_annotations(store):
    store.tags.add(pid(0), "keep-me")
    store.notes.add(pid(1), "still here")
    report = store.sync_papers(rows(8, start=2) + rows(1, start=20))  # 0 and 1 leave
    assert report.added == (pid(20),)
    assert set(report.left_corpus) >= {pid(0), pid(1)}
    assert report.orphaned == (pid(0), pid(1))
    assert store.tags.of(pid(0)) == ["keep-me"] and store.notes.of(pid(1))[0].text == "still here"
    assert store.paper(pid(0))["in_corpus"] is False
    back = store.sync_papers(rows(3) + [dict(rows(1, start=3)[0], title="Retitled")])
    assert back.returned == (pid(0), pid(1)) and back.orphaned == ()
    assert back.updated == (pid(3),) and store.paper(pid(3))["title"] == "Retitled"


def test_a_sync_with_the_last_syncs_key_reads_no_row_and_still_carries_annotations_over(store):
    """A rebuild of unchanged sources syncs with the same key: the rows are not read (a
    generator that fails if touched), the corpus stays as it was, and an annotation made
    since under an old id of a paper still moves to it."""
    first = store.sync_papers(rows(5), key="k1")
    assert not first.unchanged and first.left_corpus  # (the fixture's other papers)

    def untouched():
        raise AssertionError("the rows were read")
        yield

    again = store.sync_papers(untouched(), key="k1")
    assert again.unchanged and again.n_papers == 5 and again.added == again.updated == ()
    assert "unchanged" in str(again) and "unchanged" in store.history(1)[0].summary
    assert [store.paper(pid(i))["in_corpus"] for i in (0, 4, 5)] == [True, True, False]
    store.tags.add(pid(9), "under-an-old-id")  # pid(9) left the corpus; it is an old id of pid(0)
    moved = store.sync_papers([dict(row, aliases=[pid(9)] if row["id"] == pid(0) else []) for row in rows(5)],
                              key="k1")
    assert moved.unchanged and moved.carried_over == ((pid(9), pid(0)),) and store.tags.of(pid(0)) == ["under-an-old-id"]


def test_a_sync_by_anything_else_between_two_with_one_key_makes_the_second_read_its_rows(store):
    """Another sync in between (another key, none: an older workbench) changed the corpus:
    the key's rows are read and synced again."""
    store.sync_papers(rows(5), key="k1")
    store.sync_papers(rows(3))
    back = store.sync_papers(rows(5), key="k1")
    assert not back.unchanged and back.returned == (pid(3), pid(4))
    store.sync_papers(rows(2), key="k2")
    assert store.sync_papers(rows(5), key="k1").returned == (pid(2), pid(3), pid(4))


def test_a_sync_takes_its_rows_as_they_come_and_stores_the_last_of_a_repeated_id(store):
    """Rows from a generator, in no order, one id twice (its last row stored), some papers
    retitled, new, gone and back: each reported once, sorted, and the papers stored in id
    order as they are added; a second sync of the same rows changes nothing."""
    store.sync_papers(rows(2))  # 2..7 leave
    given = rows(4, start=3)[::-1]
    given += [dict(rows(1, start=1)[0], title="First"), *rows(2, start=30)[::-1], dict(given[0], title="Last")]
    report = store.sync_papers(r for r in given)
    assert report.added == (pid(30), pid(31)) and report.returned == (pid(3), pid(4), pid(5), pid(6))
    assert report.updated == (pid(1), pid(6)) and report.left_corpus == (pid(0),) and report.n_papers == 7
    assert store.paper(pid(6))["title"] == "Last" and store.paper(pid(1))["title"] == "First"
    assert store.paper(pid(0))["in_corpus"] is False and store.paper(pid(7))["in_corpus"] is False
    again = store.sync_papers(iter(given))
    assert again.added == again.updated == again.returned == again.left_corpus == () and again.n_papers == 7
    assert "sync 7 papers: 0 new, 0 updated" in store.history(1)[0].summary


def test_sync_refuses_bad_rows_and_names_the_row(store):
    with pytest.raises(AnnotationInputError, match="row 1: paper id 'nothex' is not usable"):
        store.sync_papers(rows(1) + [dict(rows(1)[0], id="nothex")])
    with pytest.raises(AnnotationInputError, match="row 0: authors='Doe': expected a list"):
        store.sync_papers([dict(rows(1)[0], authors="Doe")])
    assert store.paper(pid(5))["in_corpus"] is True  # nothing changed


def test_history_records_who_when_what(store):
    store.tags.add(pid(1), "a")
    bob = Store.open(store.path, reviewer="bob")
    bob.decisions.decide(pid(1), "include")
    bob.close()
    latest = store.history(limit=2)
    assert [(e.reviewer, e.action) for e in latest] == [("bob", "decide"), ("ana", "tag")]
    assert latest[0].at >= latest[1].at and "include" in latest[0].summary
    store.notes.add(pid(1), "on paper 1")
    store.notes.add(pid(2), "on paper 2")
    assert [e.action for e in store.history(limit=None, paper=pid(1))] == [
        "note", "decide", "tag"]
    assert [e.action for e in store.history(limit=1, paper=pid(1))] == ["note"]


def test_undo_reverts_the_last_changes_and_is_itself_in_the_history(store):
    store.tags.add(pid(1), "a")
    note = store.notes.add(pid(1), "first")
    store.notes.edit(note, "second")
    store.decisions.decide(pid(1), "exclude")
    undone = store.undo(2)
    assert [e.action for e in undone] == ["decide", "edit-note"]
    assert store.decisions.of(pid(1)) is None and store.notes.of(pid(1))[0].text == "first"
    assert store.history(limit=1)[0].action == "undo"
    store.undo()  # the note
    assert store.notes.of(pid(1)) == [] and store.tags.of(pid(1)) == ["a"]
    store.undo()
    assert store.tags.of(pid(1)) == [] and store.tags.vocabulary() == []
    with pytest.raises(AnnotationInputError, match="nothing to undo"):
        store.undo()
    with pytest.raises(AnnotationInputError, match="undo needs a number of changes >= 1"):
        store.undo(0)


def test_undo_of_a_tag_rename_restores_every_paper(store):
    store.tags.add([pid(1), pid(2)], "old")
    store.tags.rename("old", "new")
    store.undo()
    assert store.tags.papers_with("old") == [pid(1), pid(2)]
    assert [t.name for t in store.tags.vocabulary()] == ["old"]


def test_undo_never_overwrites_a_later_change_by_someone_else(store):
    store.decisions.decide(pid(1), "include")
    bob = Store.open(store.path, reviewer="bob")
    bob.tags.add(pid(1), "x")
    bob.undo()  # bob's own change only
    assert store.decisions.of(pid(1)).decision == "include"
    store.notes.add(pid(2), "mine")
    note_id = store.notes.of(pid(2))[0].id
    bob.notes.edit(note_id, "bob rewrote it")
    with pytest.raises(UndoConflictError, match=r"changed again by change #\d+ \(edit-note by bob\)"):
        store.undo()
    assert store.notes.of(pid(2))[0].text == "bob rewrote it"  # nothing undone
    bob.undo()
    store.undo()
    assert store.notes.of(pid(2)) == []
    bob.close()


def test_a_closed_store_says_so(tmp_path):
    s = Store.open(tmp_path)
    s.close()
    with pytest.raises(StoreError, match="is closed"):
        s.tags.of(pid(1))

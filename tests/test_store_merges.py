"""Papers a person merged ("same paper"), in the store: an id merged away names the paper it joined
on every route (with a warning saying so), chains of merges, undo, every reviewer's vote kept (a
conflict where one reviewer's two votes differ), and a topic name lost when topics merged in a
refit coming back when the topic splits out again."""

from __future__ import annotations

import warnings

import pytest

from workbench.review import screening_of
from workbench.store import AnnotationInputError, MergedPaperWarning, Store

A, B, C, D = "aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc", "dddddddddddd"


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path, reviewer="ana") as s:
        s.sync_papers([{"id": i, "title": f"Paper {i[0]}", "abstract": "text"} for i in (A, B, C, D)])
        yield s


def as_(store: Store, reviewer: str) -> Store:
    return Store.open(store.path, reviewer=reviewer)


def test_tag_note_decide_on_a_merged_away_id_go_to_the_paper_it_joined_saying_so(store):
    store.settle_duplicates(A, B, "same")
    with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A} \\(same paper\\); working on {A}"):
        store.tag(B, "key")
    with pytest.warns(MergedPaperWarning):
        store.note(B[:6], "read it")  # a prefix of the merged-away id too
    with pytest.warns(MergedPaperWarning):
        store.decide(B, "include", reason="on topic")
    with pytest.warns(MergedPaperWarning):
        store.set_final(B, "include")
    raw = store.export("jsonl")
    assert f'"paper": "{B}"' not in raw  # nothing was written under the merged-away id
    assert store.tags(A) == ["key"] and len(store.notes(A)) == 1
    assert store.decision(A).decision == "include" and store.final(A).decision == "include"


def test_a_list_with_merged_away_ids_gives_one_warning_and_each_paper_once(store):
    store.settle_duplicates(A, B, "same")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert store.tag([A, B, C], "x") == 2  # A (B is A) and C
    (warning,) = [w.message for w in caught]
    assert warning.merged == {B: [B, A]} and warning.into == A
    assert store.papers_tagged("x") == [A, C]


def test_a_chain_of_merges_resolves_to_the_last_paper_and_undo_restores_each_step(store):
    store.settle_duplicates(A, B, "same")
    store.settle_duplicates(C, A, "same")  # A (with B's annotations) into C
    assert store.merged_into() == {A: C, B: C}
    with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A}, then {A} into {C}"):
        store.tag(B, "chained")
    assert store.tags(C) == ["chained"]
    store.undo()  # the tag
    store.undo()  # A into C
    with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A} \\(same paper\\)"):
        assert store.resolve(B) == A
    store.undo()  # B into A
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # B is its own paper again: no warning
        store.tag(B, "own")
        assert store.tags(B) == ["own"] and store.tags(A) == []


def test_same_again_changes_nothing_and_different_after_same_is_refused(store):
    first = store.settle_duplicates(A, B, "same")
    n = len(store.history(limit=None))
    assert store.settle_duplicates(A, B, "same") == first and len(store.history(limit=None)) == n
    with pytest.raises(AnnotationInputError, match=f"{B} was merged into {A}.*undo that merge first"):
        store.settle_duplicates(A, B, "different")
    assert store.merged_into() == {B: A}


def test_history_of_the_merged_away_id_is_the_history_of_the_paper_it_joined(store):
    store.tag(B, "before the merge")
    store.tag(A, "on the kept paper")
    store.settle_duplicates(A, B, "same")
    with pytest.warns(MergedPaperWarning):
        summaries = [e.summary for e in store.history(paper=B)]
    assert any("before the merge" in s for s in summaries) and any("on the kept paper" in s for s in summaries)
    assert summaries == [e.summary for e in store.history(paper=A)]


def test_merging_keeps_every_reviewers_vote_and_a_disagreement_is_a_conflict(store):
    with as_(store, "alice") as alice, as_(store, "bob") as bob:
        alice.decide(A, "exclude", reason="wrong population")
        alice.decide(B, "include")
        bob.decide(B, "include")  # bob voted only on B
    verdict = store.settle_duplicates(A, B, "same")
    assert verdict.conflicts == (f"alice's votes differ: include on {B}, exclude (wrong population) on {A}",)
    assert {d.reviewer: d.decision for d in store.votes(A)} == {"alice": "exclude", "bob": "include"}
    (conflict,) = screening_of(store).conflicts()
    assert conflict.paper_id == A
    assert {v.reviewer: v.decision for v in conflict.votes} == {
        "alice": "exclude", "bob": "include", f"alice (on {B})": "include"}
    store.set_final(A, "include", reason="agreed in the meeting")  # resolved as any conflict is
    assert screening_of(store).conflicts() == []
    store.undo()
    store.undo()  # the merge: every vote where it was
    assert {d.reviewer: d.decision for d in store.votes(B)} == {"alice": "include", "bob": "include"}
    assert {d.reviewer: d.decision for d in store.votes(A)} == {"alice": "exclude"}


def test_the_same_vote_on_both_papers_is_one_vote_after_the_merge(store):
    with as_(store, "alice") as alice:
        alice.decide(A, "include")
        alice.decide(B, "include")
    assert store.settle_duplicates(A, B, "same").conflicts == ()
    assert store.votes_kept() == [] and screening_of(store).conflicts() == []
    assert [(d.reviewer, d.decision) for d in store.votes(A)] == [("alice", "include")]


def test_a_conflict_left_by_a_merge_ends_when_the_reviewer_votes_the_same_again(store):
    with as_(store, "alice") as alice:
        alice.decide(A, "exclude")
        alice.decide(B, "include")
        store.settle_duplicates(A, B, "same")
        assert len(screening_of(store).conflicts()) == 1
        alice.decide(A, "include")  # she looked again
    assert screening_of(store).conflicts() == []


def test_tags_notes_and_how_a_decision_was_made_move_with_the_merge(store):
    with as_(store, "alice") as alice:
        alice.tag(B, "key", "methods")
        alice.tag(A, "key")
        alice.note(B, "the journal version")
        alice.decide(B, "include", rank=3, score=0.9, model="tfidf", model_version="1")
    store.settle_duplicates(A, B, "same")
    with as_(store, "alice") as alice:
        assert alice.tags(A) == ["key", "methods"] and [n.text for n in alice.notes(A)] == ["the journal version"]
        (record,) = alice.screening_records(reviewer="alice")
        assert (record.paper_id, record.rank, record.model, record.recorded) == (A, 3, "tfidf", True)


# ----------------------------------------------------------------------------- topic names

def run(store: Store, groups: dict[int, list[str]]):
    assign = {pid: t for t, ids in groups.items() for pid in ids}
    return store.record_topics(assign, {t: f"t{t}" for t in groups}, {t: [] for t in groups})


def test_a_topic_name_lost_when_a_refit_merges_topics_comes_back_when_it_splits_out_again(tmp_path):
    ids = [f"{i:012x}" for i in range(1, 41)]
    with Store.open(tmp_path, reviewer="ana") as store:
        store.sync_papers([{"id": i, "title": i, "abstract": "x"} for i in ids])
        run(store, {0: ids[:20], 1: ids[20:]})
        store.rename_topic(0, "Proteins")
        store.rename_topic(1, "Dialogue")
        merged = run(store, {5: ids})  # a refit puts every paper in one topic
        assert merged.names_lost == {1: "Dialogue"} or merged.names_lost == {0: "Proteins"}
        split = run(store, {7: ids[20:], 8: ids[:20]})  # and a later one splits them again
        assert split.names == {8: "Proteins", 7: "Dialogue"}
        assert store.current_topics()[1] == {8: "Proteins", 7: "Dialogue"}
        assert split.names_back == {7: "Dialogue"} or split.names_back == {8: "Proteins"}
        assert "names back" in str(split)


# ----------------------------------------------------------------------------- every route

# Every Store method that takes a paper, with the rest of a call: each must name the paper the
# id joined (the route is _papers.resolve; a method added without going through it fails here).
ROUTES = {
    "clear_final": (), "decide": ("include",), "decision": (), "decisions": (), "final": (),
    "move_paper": (0,), "note": ("text",), "note_each": ("text",), "notes": (), "notes_by_reviewer": (),
    "paper": (), "resolve": (), "resolve_ids": (), "set_final": ("include",), "tag": ("x",), "tags": (),
    "tags_by_reviewer": (), "untag": ("x",), "votes": (),
}
PAPER_PARAMETERS = {"id_or_prefix", "id_or_ids", "ids", "paper"}


def test_every_store_method_taking_a_paper_resolves_a_merged_away_id_to_the_paper_it_joined(store):
    import inspect

    taking = {name for name, method in inspect.getmembers(Store, callable) if not name.startswith("_")
              and PAPER_PARAMETERS & set(list(inspect.signature(method).parameters)[1:2])}
    assert taking == set(ROUTES), "a Store method takes a paper id: add it to ROUTES"
    store.record_topics({pid: 0 for pid in (A, B, C, D)}, {0: "all"}, {0: []})
    store.settle_duplicates(A, B, "same")
    for name, rest in ROUTES.items():
        with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A}"):
            getattr(store, name)(B, *rest)
    with pytest.warns(MergedPaperWarning):
        store.history(paper=B)
    assert store.tags(A) == [] and store.paper(A)["id"] == A  # (tag then untag, both on A)

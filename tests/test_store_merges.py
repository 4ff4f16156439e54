"""Papers a person merged ("same paper"), in the store: an id merged away names the paper it joined
on every route (with a warning saying so), chains of merges, undo, every reviewer's vote kept (a
conflict where one reviewer's two votes differ), and a topic name lost when topics merged in a
refit coming back when the topic splits out again."""

from __future__ import annotations

import functools
import inspect
import warnings

import pytest

from workbench.review import screening_of
from workbench.store import AnnotationInputError, MergedPaperWarning, Shown, Store

A, B, C, D = "aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc", "dddddddddddd"


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path, reviewer="ana") as s:
        s.sync_papers([{"id": i, "title": f"Paper {i[0]}", "abstract": "text"} for i in (A, B, C, D)])
        yield s


def as_(store: Store, reviewer: str) -> Store:
    return Store.open(store.path, reviewer=reviewer)


def test_tag_note_decide_on_a_merged_away_id_go_to_the_paper_it_joined_saying_so(store):
    store.duplicates.settle(A, B, "same")
    with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A} \\(same paper\\); working on {A}"):
        store.tags.add(B, "key")
    with pytest.warns(MergedPaperWarning):
        store.notes.add(B[:6], "read it")  # a prefix of the merged-away id too
    with pytest.warns(MergedPaperWarning):
        store.decisions.decide(B, "include", reason="on topic")
    with pytest.warns(MergedPaperWarning):
        store.team.set_final(B, "include")
    raw = store.files.export("jsonl")
    assert f'"paper": "{B}"' not in raw  # nothing was written under the merged-away id
    assert store.tags.of(A) == ["key"] and len(store.notes.of(A)) == 1
    assert store.decisions.of(A).decision == "include" and store.team.final(A).decision == "include"


def test_a_list_with_merged_away_ids_gives_one_warning_and_each_paper_once(store):
    store.duplicates.settle(A, B, "same")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert store.tags.add([A, B, C], "x") == 2  # A (B is A) and C
    (warning,) = [w.message for w in caught]
    assert warning.merged == {B: [B, A]} and warning.into == A
    assert store.tags.papers_with("x") == [A, C]


def test_a_chain_of_merges_resolves_to_the_last_paper_and_undo_restores_each_step(store):
    store.duplicates.settle(A, B, "same")
    store.duplicates.settle(C, A, "same")  # A (with B's annotations) into C
    assert store.duplicates.merged_into() == {A: C, B: C}
    with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A}, then {A} into {C}"):
        store.tags.add(B, "chained")
    assert store.tags.of(C) == ["chained"]
    store.undo()  # the tag
    store.undo()  # A into C
    with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A} \\(same paper\\)"):
        assert store.resolve(B) == A
    store.undo()  # B into A
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # B is its own paper again: no warning
        store.tags.add(B, "own")
        assert store.tags.of(B) == ["own"] and store.tags.of(A) == []


def test_same_again_changes_nothing_and_different_after_same_is_refused(store):
    first = store.duplicates.settle(A, B, "same")
    n = len(store.history(limit=None))
    assert store.duplicates.settle(A, B, "same") == first and len(store.history(limit=None)) == n
    with pytest.raises(AnnotationInputError, match=f"{B} was merged into {A}.*undo that merge first"):
        store.duplicates.settle(A, B, "different")
    assert store.duplicates.merged_into() == {B: A}


def test_history_of_the_merged_away_id_is_the_history_of_the_paper_it_joined(store):
    store.tags.add(B, "before the merge")
    store.tags.add(A, "on the kept paper")
    store.duplicates.settle(A, B, "same")
    with pytest.warns(MergedPaperWarning):
        summaries = [e.summary for e in store.history(paper=B)]
    assert any("before the merge" in s for s in summaries) and any("on the kept paper" in s for s in summaries)
    assert summaries == [e.summary for e in store.history(paper=A)]


def test_merging_keeps_every_reviewers_vote_and_a_disagreement_is_a_conflict(store):
    with as_(store, "alice") as alice, as_(store, "bob") as bob:
        alice.decisions.decide(A, "exclude", reason="wrong population")
        alice.decisions.decide(B, "include")
        bob.decisions.decide(B, "include")  # bob voted only on B
    verdict = store.duplicates.settle(A, B, "same")
    assert verdict.conflicts == (f"alice's votes differ: include on {B}, exclude (wrong population) on {A}",)
    assert {d.reviewer: d.decision for d in store.decisions.votes(A)} == {"alice": "exclude", "bob": "include"}
    (conflict,) = screening_of(store).conflicts()
    assert conflict.paper_id == A
    assert {v.reviewer: v.decision for v in conflict.votes} == {
        "alice": "exclude", "bob": "include", f"alice (on {B})": "include"}
    store.team.set_final(A, "include", reason="agreed in the meeting")  # resolved as any conflict is
    assert screening_of(store).conflicts() == []
    store.undo()
    store.undo()  # the merge: every vote where it was
    assert {d.reviewer: d.decision for d in store.decisions.votes(B)} == {"alice": "include", "bob": "include"}
    assert {d.reviewer: d.decision for d in store.decisions.votes(A)} == {"alice": "exclude"}


def test_the_same_vote_on_both_papers_is_one_vote_after_the_merge(store):
    with as_(store, "alice") as alice:
        alice.decisions.decide(A, "include")
        alice.decisions.decide(B, "include")
    assert store.duplicates.settle(A, B, "same").conflicts == ()
    assert store.duplicates.votes_kept() == [] and screening_of(store).conflicts() == []
    assert [(d.reviewer, d.decision) for d in store.decisions.votes(A)] == [("alice", "include")]


def test_a_conflict_left_by_a_merge_ends_when_the_reviewer_votes_the_same_again(store):
    with as_(store, "alice") as alice:
        alice.decisions.decide(A, "exclude")
        alice.decisions.decide(B, "include")
        store.duplicates.settle(A, B, "same")
        assert len(screening_of(store).conflicts()) == 1
        alice.decisions.decide(A, "include")  # she looked again
    assert screening_of(store).conflicts() == []


def test_tags_notes_and_how_a_decision_was_made_move_with_the_merge(store):
    with as_(store, "alice") as alice:
        alice.tags.add(B, "key", "methods")
        alice.tags.add(A, "key")
        alice.notes.add(B, "the journal version")
        alice.decisions.decide(B, "include", shown=Shown(rank=3, score=0.9, model="tfidf", model_version="1"))
    store.duplicates.settle(A, B, "same")
    with as_(store, "alice") as alice:
        assert alice.tags.of(A) == ["key", "methods"] and [n.text for n in alice.notes.of(A)] == ["the journal version"]
        (record,) = alice.decisions.records(reviewer="alice")
        assert (record.paper_id, record.rank, record.model, record.recorded) == (A, 3, "tfidf", True)


# ----------------------------------------------------------------------------- topic names

def run(store: Store, groups: dict[int, list[str]]):
    assign = {pid: t for t, ids in groups.items() for pid in ids}
    return store.topics.record(assign, {t: f"t{t}" for t in groups}, {t: [] for t in groups})


def test_a_topic_name_lost_when_a_refit_merges_topics_comes_back_when_it_splits_out_again(tmp_path):
    ids = [f"{i:012x}" for i in range(1, 41)]
    with Store.open(tmp_path, reviewer="ana") as store:
        store.sync_papers([{"id": i, "title": i, "abstract": "x"} for i in ids])
        run(store, {0: ids[:20], 1: ids[20:]})
        store.topics.rename(0, "Proteins")
        store.topics.rename(1, "Dialogue")
        merged = run(store, {5: ids})  # a refit puts every paper in one topic
        assert merged.names_lost == {1: "Dialogue"} or merged.names_lost == {0: "Proteins"}
        split = run(store, {7: ids[20:], 8: ids[:20]})  # and a later one splits them again
        assert split.names == {8: "Proteins", 7: "Dialogue"}
        assert store.topics.current()[1] == {8: "Proteins", 7: "Dialogue"}
        assert split.names_back == {7: "Dialogue"} or split.names_back == {8: "Proteins"}
        assert "names back" in str(split)


# ----------------------------------------------------------------------------- every route

# Every method of a Store or of one of its parts (``"tags.add"``: ``store.tags.add``) that takes a
# paper, with the rest of a call: each must name the paper the id joined (the route is
# _papers.resolve; a method added without going through it fails here).
ROUTES = {
    "team.clear_final": (), "decisions.decide": ("include",), "decisions.of": (), "decisions.votes": (),
    "team.final": (), "topics.move_paper": (0,), "notes.add": ("text",), "notes.add_each": ("text",),
    "notes.of": (), "notes.by_reviewer": (), "paper": (), "resolve": (), "resolve_ids": (),
    "team.set_final": ("include",), "tags.add": ("x",), "tags.of": (), "tags.by_reviewer": (),
    "tags.remove": ("x",),
}
PAPER_PARAMETERS = {"id_or_prefix", "id_or_ids", "ids", "paper"}


def methods_taking_a_paper(store: Store) -> set[str]:
    """The store's methods and its parts' (a part: a public attribute of a workbench class)."""
    owners = {"": Store} | {f"{name}.": type(value) for name, value in vars(store).items()
                            if not name.startswith("_") and type(value).__module__.startswith("workbench.")}
    assert len(owners) > 10, owners
    return {prefix + name for prefix, cls in owners.items() for name, method in inspect.getmembers(cls, callable)
            if not name.startswith("_") and PAPER_PARAMETERS & set(list(inspect.signature(method).parameters)[1:2])}


def test_every_store_method_taking_a_paper_resolves_a_merged_away_id_to_the_paper_it_joined(store):
    assert methods_taking_a_paper(store) == set(ROUTES), "a Store method takes a paper id: add it to ROUTES"
    store.topics.record({pid: 0 for pid in (A, B, C, D)}, {0: "all"}, {0: []})
    store.duplicates.settle(A, B, "same")
    for name, rest in ROUTES.items():
        with pytest.warns(MergedPaperWarning, match=f"{B} was merged into {A}"):
            functools.reduce(getattr, name.split("."), store)(B, *rest)
    with pytest.warns(MergedPaperWarning):
        store.history(paper=B)
    assert store.tags.of(A) == [] and store.paper(A)["id"] == A  # (tag then untag, both on A)

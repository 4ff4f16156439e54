"""Topic identities across refits, and human topic edits that survive rebuilds."""

from __future__ import annotations

import pytest

from workbench.errors import StoreError
from workbench.store import AnnotationInputError, Store, match_topics


def pid(i: int) -> str:
    return f"{i:012x}"


def rows(n: int) -> list[dict]:
    return [{"id": pid(i), "title": f"Paper {i}", "abstract": "", "authors": [], "year": None,
             "doi": None, "venue": None, "url": None, "keywords": [], "collection": "",
             "source": ""} for i in range(n)]


def blocks(*sizes: int, start: int = 0, first_topic: int = 0) -> dict[str, int]:
    """Consecutive papers in topics: blocks(3, 2) -> papers 0-2 in topic 0, 3-4 in topic 1."""
    out, i = {}, start
    for t, size in enumerate(sizes, first_topic):
        for _ in range(size):
            out[pid(i)] = t
            i += 1
    return out


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path, reviewer="ana")
    s.sync_papers(rows(100))
    yield s
    s.close()


def test_match_topics_finds_renumbered_topics():
    old = blocks(10, 10, 10)
    new = {p: {0: 2, 1: 0, 2: 1}[t] for p, t in old.items()}  # same groups, new numbers
    m = match_topics(old, new)
    assert m["matched"] == {2: 0, 0: 1, 1: 2}
    assert m["jaccard"] == {0: 1.0, 1: 1.0, 2: 1.0}
    assert m["new"] == [] and m["gone"] == [] and m["split"] == {} and m["merged"] == {}


def test_match_topics_reports_split_merged_new_and_gone():
    old = blocks(20, 10, 10, 6)  # topics 0..3
    new = {}
    for i in range(20):           # old 0 splits into new 0 (12) and new 1 (8)
        new[pid(i)] = 0 if i < 12 else 1
    for i in range(20, 40):       # old 1 and old 2 merge into new 2
        new[pid(i)] = 2
    for i in range(40, 46):       # old 3's papers become outliers: old 3 is gone
        new[pid(i)] = -1
    for i in range(46, 52):       # papers the old run never saw: a new topic
        new[pid(i)] = 3
    m = match_topics(old, new)
    assert m["split"] == {0: [0, 1]}
    assert m["merged"] == {2: [1, 2]}
    assert m["matched"][0] == 0 and m["matched"][2] in (1, 2)
    assert m["new"] == [3]
    assert m["gone"] == [3]


def test_match_topics_ignores_weak_overlaps():
    old = blocks(10, 10)
    new = {pid(i): (0 if i < 2 else 1) for i in range(20)}  # new 0: a sliver of old 0
    m = match_topics(old, new, min_jaccard=0.3)
    assert m["matched"] == {1: 1} and m["jaccard"] == {1: 0.5556}
    assert 0 not in m["matched"]
    assert m["new"] == [0]


def test_names_survive_a_refit_with_renumbered_topics(store):
    first = blocks(30, 30, 30)
    report = store.topics.record(first, {0: "a", 1: "b", 2: "c"}, {0: ["w"], 1: [], 2: []})
    assert report.previous_run is None and report.new == (0, 1, 2)
    store.topics.rename(1, "Reward models")
    # Refit: another seed renumbers the topics and moves a few papers around.
    second = {p: {0: 1, 1: 2, 2: 0}[t] for p, t in first.items()}
    for i in (0, 1, 2):
        second[pid(i)] = 2
    report = store.topics.record(second, {0: "x", 1: "y", 2: "z"}, {})
    assert report.matched == {1: 0, 2: 1, 0: 2}
    assert report.names == {2: "Reward models"}
    assignments, labels = store.topics.apply_edits(second, {0: "x", 1: "y", 2: "z"})
    assert labels == {0: "x", 1: "y", 2: "Reward models"}
    assert assignments == second


def test_merge_and_move_are_reapplied_after_a_rebuild(store):
    first = blocks(30, 30, 30)
    labels = {0: "a", 1: "b", 2: "c"}
    store.topics.record(first, labels, {})
    assert store.topics.merge([0, 2], into=2) == 2
    store.topics.move_paper(pid(40), 2)  # from topic 1
    store.topics.rename(2, "Merged")
    assignments, new_labels = store.topics.apply_edits(first, labels)
    assert new_labels == {1: "b", 2: "Merged"}
    assert sum(1 for t in assignments.values() if t == 2) == 61
    assert assignments[pid(40)] == 2 and assignments[pid(0)] == 2
    with pytest.raises(AnnotationInputError, match="topic 0 was merged into topic 2"):
        store.topics.rename(0, "nope")
    # Rebuild with new numbers and with a new source (papers 90-99 in a new topic 3).
    second = {p: {0: 2, 1: 0, 2: 1}[t] for p, t in first.items()}
    second.update(blocks(10, start=90, first_topic=3))
    store.topics.record(second, {0: "p", 1: "q", 2: "r", 3: "s"}, {})
    assignments, new_labels = store.topics.apply_edits(second, {0: "p", 1: "q", 2: "r", 3: "s"})
    assert new_labels == {0: "p", 1: "Merged", 3: "s"}
    assert assignments[pid(40)] == 1 and assignments[pid(0)] == 1
    assert store.topics.current() == (assignments, new_labels)


def test_report_lists_names_lost_with_their_topic(store):
    store.topics.record(blocks(30, 30, 30), {}, {})
    store.topics.rename(2, "Vanishing")
    report = store.topics.record({p: 0 for p in blocks(60)}, {}, {})
    assert report.gone == (2,)
    assert report.names_lost == {2: "Vanishing"}
    assert "names lost: 2 'Vanishing'" in str(report)


def test_topic_edits_are_undoable(store):
    labels = {0: "a", 1: "b"}
    store.topics.record(blocks(50, 50), labels, {})
    store.topics.rename(0, "Named")
    store.topics.merge([1, 0])
    store.undo()
    assert store.topics.current()[1] == {0: "Named", 1: "b"}


def test_topic_edits_explain_bad_input(store):
    with pytest.raises(AnnotationInputError, match="no topics recorded yet"):
        store.topics.rename(0, "x")
    store.topics.record(blocks(50, 50), {}, {})
    with pytest.raises(AnnotationInputError, match="topic 7 is not a topic of the latest build; "
                                                   "its topics are: 0, 1"):
        store.topics.rename(7, "x")
    with pytest.raises(AnnotationInputError, match="nothing to merge"):
        store.topics.merge([1], into=1)
    with pytest.raises(AnnotationInputError, match=r"assignments\['x'\] = 'a'"):
        store.topics.record({"x": "a"}, {}, {})
    with pytest.raises(AnnotationInputError, match="not in the store .*sync_papers"):
        store.topics.record({"ffffffffffff": 0}, {}, {})
    with pytest.raises(StoreError, match=r"not the last recorded run .*topics\.record\("):
        store.topics.apply_edits(blocks(40, 60), {})


def test_outliers_keep_their_identity_and_can_receive_moved_papers(store):
    first = {**blocks(50), **{pid(i): -1 for i in range(50, 60)}}
    store.topics.record(first, {0: "a", -1: ""}, {})
    store.topics.move_paper(pid(55), 0)
    store.topics.move_paper(pid(1), -1)
    assignments, _ = store.topics.apply_edits(first, {0: "a", -1: ""})
    assert assignments[pid(55)] == 0 and assignments[pid(1)] == -1
    with pytest.raises(AnnotationInputError, match="outliers and cannot be merged"):
        store.topics.merge([0, -1])

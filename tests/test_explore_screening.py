"""Screening from the map (01_explore), without a browser: a bulk decision on a topic or a
selection is previewed exactly, recorded as made in bulk, taken back whole by one undo; the
map's colours by decision are the store's decisions and by relevance follow the ranking."""

import shutil

import numpy as np
import pytest
from matplotlib.colors import to_hex

import workbench
from workbench.errors import InputError
from workbench.space.palette import DECISION_COLOURS, RELEVANCE_RAMP
from workbench.store import Store
from workbench.widgets import Session, explore, screen

from conftest import ROOT


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mapscreen")
    workbench.build([ROOT / "seeds"], review=folder / "review", embedder="fake", seed=42)
    return folder / "review"


@pytest.fixture
def review_path(built, tmp_path):
    """A private copy of the built review: each test starts with no decisions."""
    return shutil.copytree(built, tmp_path / "review")


@pytest.fixture
def session(review_path):
    s = Session.open(review_path, reviewer="tester")
    yield s
    s.close()


def _topic(session, t: int) -> list[str]:
    return [pid for pid, label in zip(session.ids, session.review.labels) if int(label) == t]


def _state(store) -> dict:
    """Every decision of the store with how it was made: what an undo must restore."""
    return {r.paper_id: (r.decision, r.bulk, r.rank, r.score) for r in store.decisions.records("tester")}


def _shown_colours(view) -> list[str]:
    """The colour of every point as the browser draws it: its colour code into the colour map
    the widget sends (jupyter-scatter orders it by the categories' codes)."""
    colours = [to_hex(c) for c in view.scatter.widget.color]
    return [colours[int(code)] for code in view.scatter.get_point_list()[:, 2]]


def _read_some(session, papers, decisions) -> None:
    for pid, decision in zip(papers, decisions):  # one by one: read by a person
        session.decide(pid, decision)


def test_the_preview_counts_exactly_and_writes_nothing(session):
    papers = _topic(session, 0)
    _read_some(session, papers[:3], ["include", "include", "exclude"])
    before = session.store.history(limit=1)[0].id
    plan = session.map.plan_bulk(papers, "exclude", "topic 0: x")
    assert plan.ids == tuple(papers[3:]) and plan.decided == {"include": 2, "exclude": 1}
    assert plan.text == (f"Exclude {len(papers) - 3} undecided papers of topic 0: x (3 already decided: "
                         "1 excluded, 2 included — left as they are)")
    changing = session.map.plan_bulk(papers, "exclude", "topic 0: x", change_decided=True)
    assert changing.ids == tuple(papers[:2] + papers[3:]), "the one already excluded is not touched"
    assert changing.text == (f"Exclude {len(papers) - 1} papers of topic 0: x (3 already decided: 1 excluded, "
                             "2 included — their decisions change; 1 already excluded stay as they are)")
    assert changing.yes == f"Yes, exclude {len(papers) - 1} papers"
    assert session.store.history(limit=1)[0].id == before, "a preview writes nothing"
    with pytest.raises(InputError, match="maybe is a judgement on one paper"):
        session.map.plan_bulk(papers, "maybe")


def test_a_bulk_decision_is_marked_bulk_and_one_undo_restores_every_decision(session):
    papers = _topic(session, 1)
    _read_some(session, papers[:2], ["include", "exclude"])
    before = _state(session.store)
    plan = session.map.plan_bulk(papers, "exclude", "topic 1", change_decided=True)
    assert session.map.decide_bulk(plan) == len(papers) - 1
    after = {r.paper_id: r for r in session.store.decisions.records("tester")}
    assert all(after[p].decision == "exclude" and after[p].bulk for p in plan.ids)
    assert not after[papers[1]].bulk, "the paper already excluded by a person stays read"
    assert session.store.decisions.of(papers[2]).reason == "in bulk from the map: topic 1"
    report = session.stopping(log=False)
    assert (report.bulk, report.read, report.relevant) == (len(papers) - 1, 1, 0)
    undone = session.undo()
    assert _state(session.store) == before, "one undo takes the whole bulk decision back"
    assert sorted(undone.papers) == sorted(plan.ids)
    assert session.stopping(log=False).bulk == 0


def test_a_preview_gone_stale_is_refused_and_nothing_is_written(session, review_path):
    papers = _topic(session, 2)
    plan = session.map.plan_bulk(papers, "include", "topic 2")
    with Store.open(review_path, reviewer="tester") as elsewhere:  # another notebook decides one
        elsewhere.decisions.decide(papers[0], "exclude")
    before = _state(session.store)
    with pytest.raises(InputError, match="changed since the preview"):
        session.map.decide_bulk(plan)
    assert _state(session.store) == before


def test_colours_by_decision_are_the_stores_decisions(session):
    view = explore(session)
    papers = _topic(session, 3)
    _read_some(session, papers[:2], ["include", "maybe"])
    view.play([{"select": "topic:3", "bulk": "exclude"}, {"colour": "decision"}])
    decisions = {d.paper_id: d.decision for d in session.store.decisions.every()}
    expected = [DECISION_COLOURS[decisions.get(pid, "undecided")] for pid in session.ids]
    assert _shown_colours(view) == [c.lower() for c in expected]
    assert session.map.colour_keys("decision") == [decisions.get(pid, "undecided") for pid in session.ids]
    legend = {e["key"]: e for e in view.map.legend.entries}
    n = len(papers) - 2
    assert legend["exclude"]["count"] == n and legend["exclude"]["label"] == f"exclude ({n} in bulk from the map)"
    assert legend["include"]["label"] == "include", "a paper read and included is not counted as bulk"


def test_relevance_colours_follow_the_rankings_scores(session):
    view = explore(session)
    view.colour.value = "relevance"
    assert set(session.map.colour_keys("relevance")) == {"no model"}
    assert view.map.legend.title == "predicted relevance: no model yet: decide one include and one exclude"
    points = view.scatter.widget.points
    ids = session.ids
    _read_some(session, [ids[0], ids[1]], ["include", "exclude"])  # the map recolours after each decision
    assert view.scatter.widget.points is not points
    ranking = session.rank()
    keys = session.map.colour_keys("relevance", ranking=ranking)
    assert view.frame["relevance"].tolist() == keys
    scores, queue = np.asarray(ranking.scores), np.asarray(ranking.queue)
    bands = np.asarray([int(k[1:]) if k.startswith("r") else 0 for k in keys])
    assert (bands[~queue] == 0).all() and (bands[queue] >= 1).all(), "decided papers are not ranked"
    order = np.flatnonzero(queue)[np.lexsort((np.flatnonzero(queue), -scores[queue]))]
    assert bands[order].tolist() == (np.arange(len(order)) * 10 // len(order) + 1).tolist(), \
        "tenths of the queue in the ranking's order: a higher score never has a paler band"
    top = session.rows_of([ranking.papers[0].id])[0] if ranking.papers else order[0]
    assert keys[top] == "r1"
    shown = _shown_colours(view)
    assert shown[order[0]] == RELEVANCE_RAMP[0].lower() and shown[order[-1]] == RELEVANCE_RAMP[-1].lower()
    legend = view.map.legend.entries
    assert legend[0]["label"].startswith("high · ranks 1–") and legend[1]["label"].startswith("medium · ranks ")
    assert legend[9]["label"].startswith("low · ranks ")
    assert "svm" not in view.map.legend.title, "no internal model name in the legend"


def test_the_explore_view_previews_then_decides_a_topic_marks_it_and_undoes_it(session):
    view = explore(session)
    view.colour.value = "decision"
    papers = _topic(session, 4)
    _read_some(session, papers[:1], ["include"])
    view.select_topic(4)
    points = view.scatter.widget.points
    view.on_bulk("exclude")  # a click: the preview, nothing written yet
    n = len(papers) - 1
    assert view.bulk.bulk_act.waiting and view.bulk.bulk_act.yes.description == f"Yes, exclude {n} papers"
    assert f"Exclude {n} undecided papers of topic 4: " in view.bulk.bulk_act.line.value
    assert "1 already decided: 1 included — left as they are" in view.bulk.bulk_act.line.value
    assert session.stopping(log=False).decided == 1
    view.bulk.bulk_act.yes.click()
    assert all(session.store.decisions.of(p).decision == "exclude" for p in papers[1:])
    assert view.scatter.widget.points is not points, "the map is recoloured"
    assert "marked as decided in bulk" in view.bulk.bulk_act.line.value
    rows = {r["id"]: r["decision"] for r in view.table._all}
    assert rows[papers[1]] == "exclude · decided in bulk (map)" and rows[papers[0]] == "include"
    view.table.open_row(papers[1])
    assert "decided in bulk (map)" in view.card.card["votes_html"] and view.card.card["decision"] == "exclude"
    view.on_undo()
    assert all(session.store.decisions.of(p) is None for p in papers[1:])
    assert session.store.decisions.of(papers[0]).decision == "include"
    assert {e["key"]: e["count"] for e in view.map.legend.entries} == {"include": 1, "undecided": len(session.ids) - 1}
    view.on_bulk("include")
    view.bulk.bulk_act.no.click()
    assert "cancelled" in view.bulk.bulk_act.line.value and session.stopping(log=False).decided == 1


def test_screen_this_topic_next_sends_its_undecided_papers_to_02(session, review_path):
    papers = _topic(session, 0)
    _read_some(session, papers[:2], ["include", "exclude"])
    view = explore(session)
    with Session.open(review_path, reviewer="tester") as elsewhere:  # 02 in another kernel
        queue_view = screen(elsewhere)
        view.play([{"select": "topic:0", "screen_these": True}])
        line = view.screen_act.line.value
        assert f"{len(papers) - 2} undecided papers sent to the screening queue of 02 from topic 0: " in line
        assert "in 02_tag_and_screen press Reload" in line
        assert session.load_queue()[0] == papers[2:]
        queue_view.on_reload()
        assert queue_view.show.value == "sent" and sorted(queue_view.queue.ids) == sorted(papers[2:])


def test_02_says_how_many_were_decided_in_bulk_and_does_not_count_them(session):
    papers = _topic(session, 1)
    _read_some(session, papers[:1], ["include"])
    session.map.decide_bulk(session.map.plan_bulk(papers, "exclude", "topic 1"))
    view = screen(session)
    assert f"({len(papers) - 1} decided in bulk, not counted as read)" in view.card.panel["sentence"]
    report = session.stopping(log=False)
    assert (report.read, report.bulk) == (1, len(papers) - 1)
    assert any(f"{len(papers) - 1} decided in bulk (counted as unread)" in line for line in report.lines())

"""The screening card (02) without a browser: the state Python keeps after a key or a click,
as the card's script would send them (``view.keys.press``, ``view.card.act``). A message
belongs to the card it was said on and names papers by short title; Undo says what it undid;
a reason goes to the paper just decided, until the next decision; the progress and stopping
panel follows decisions, other processes and a change of reviewer; blind mode holds on the card
and its map."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import workbench
from workbench.session.text import short_title
from workbench.widgets import Session, forget_reviewer, screen



@pytest.fixture
def review(built, tmp_path, monkeypatch):
    """A fresh copy of the seeds review with two exclusion reasons, no reviewer remembered."""
    monkeypatch.delenv("WORKBENCH_REVIEWER", raising=False)
    forget_reviewer()
    shutil.copytree(built, tmp_path / "review")
    review = workbench.open_review(tmp_path / "review")
    with review.store("lead") as store:
        store.team.add_exclusion_reason("wrong population")
        store.team.add_exclusion_reason("not a study")
    yield review
    forget_reviewer()


@pytest.fixture
def view(review):
    with Session.open(review, reviewer="Ana") as session:
        yield screen(session, order="map")


def title(view, pid: str) -> str:
    return short_title(view.session.review.paper(pid).title)


def test_a_message_is_cleared_when_the_card_changes(view):
    first = view.queue.current_id
    view.card.act("note", "read the methods")
    assert view.card.message["kind"] == "ok" and view.card.message["text"] == "note saved"
    view.card.act("tag", "to-read")
    assert view.card.message["text"] == "tagged to-read"
    view.keys.press("j")
    assert view.queue.current_id != first and view.card.message == {}, "the first paper's message is gone"
    assert view.card.card["id"] == view.queue.current_id
    view.card.act("toggle", "to-read")
    assert view.card.message["text"] == "added tag to-read"
    view.card.act("move", "k")  # the card's ◀ button
    assert view.card.message == {}
    view.session.note(view.session.ids[50], "from another view")  # a change elsewhere: the card shows again
    assert view.card.message == {}


def test_a_decision_names_the_paper_by_short_title_and_undo_says_what_it_undid(view):
    pid = view.queue.current_id
    view.keys.press("m")
    assert view.card.message == {"kind": "ok", "text": f"maybe: “{title(view, pid)}”", "n": view._said_n - 1}
    assert pid not in view.card.message["text"], "a paper is named by its title, not its id"
    assert view.queue.current_id != pid
    view.keys.press("u")
    assert view.card.message["text"] == f"undid: maybe on “{title(view, pid)}”"
    assert view.queue.current_id == pid and view.card.card["id"] == pid, "undo shows the paper it touched"
    assert view.session.store.decisions.of(pid) is None
    view.card.act("undo")  # the card's Undo button: nothing of this reviewer's is left to undo
    assert view.card.message["kind"] == "err"
    view.keys.press("j")
    assert view.card.message == {}, "the undo's message stays on its card"


def test_a_reason_goes_to_the_paper_just_decided_until_the_next_decision(view):
    assert view.card.reasons == ["wrong population", "not a study"]
    view.card.act("reason", "wrong population")  # before any decision: nothing to give it to
    assert view.card.message["kind"] == "err" and "decide first" in view.card.message["text"]
    first = view.queue.current_id
    view.keys.press("e")
    second = view.queue.current_id
    assert second != first, "e moves on at once"
    assert view.card.reason_for == {"id": first, "title": title(view, first), "decision": "exclude", "pending": False}
    view.card.act("reason", "wrong population")  # a chip, on the next card
    d = view.session.store.decisions.of(first)
    assert (d.decision, d.reason) == ("exclude", "wrong population")
    assert view.session.store.decisions.of(second) is None and view.queue.current_id == second
    assert view.card.message["text"] == f"reason for “{title(view, first)}” (exclude): wrong population"
    view.card.act("reason", "  population: adults only ")  # typed, then Enter: replaces the chip's
    assert view.session.store.decisions.of(first).reason == "population: adults only"
    view.card.act("decide", "include")  # a click: the next decision takes the reasons from now on
    assert view.card.reason_for["id"] == second and view.card.reason_for["decision"] == "include"
    view.card.act("reason", "")
    assert view.card.message["kind"] == "err" and view.session.store.decisions.of(second).reason is None
    view.keys.press("u")  # undo: the paper just decided may not be decided any more
    assert view.card.reason_for == {}
    view.play([{"decide": "exclude", "reason": "not a study"}])  # a reason given with the decision still works
    assert view.session.store.decisions.of(second).reason == "not a study"


def test_the_map_rings_the_paper_on_screen_and_colours_what_was_decided(view):
    s = view.session
    xy = np.frombuffer(view.card.map_xy, dtype="<f4").reshape(-1, 2)
    assert xy.shape == (len(s.ids), 2) and xy.min() >= 0 and xy.max() <= 1
    assert view.card.current == s.rows_of([view.queue.current_id])[0]
    pid = view.queue.current_id
    view.keys.press("i")
    codes = np.frombuffer(view.card.map_codes, dtype=np.uint8)
    assert codes[s.rows_of([pid])[0]] == 1 and int((codes > 0).sum()) == 1
    assert view.card.current == s.rows_of([view.queue.current_id])[0]
    row = s.rows_of([view.queue.ids[5]])[0]
    view.card.act("go", row)  # a click on a point opens its paper
    assert view.queue.current_id == view.queue.ids[5] and view.card.current == row


def test_the_maps_colours_follow_undo_other_processes_and_the_progress_count(view, review):
    s = view.session

    def codes():
        return np.frombuffer(view.card.map_codes, dtype=np.uint8)

    first = view.queue.current_id
    view.keys.press("m")
    assert codes()[s.rows_of([first])[0]] == 3 and view.card.progress["screened"] == 1
    view.keys.press("u")  # undone: the paper is undecided on the map again
    assert not codes().any() and view.card.progress["screened"] == 0
    with Session.open(review, reviewer=s.reviewer) as other:  # another kernel decides two papers
        other.decide(s.ids[7], "exclude")
        other.decide(s.ids[9], "include")
    view.keys.press("j")  # the next action shows them
    assert codes()[7] == 2 and codes()[9] == 1 and int((codes() > 0).sum()) == 2
    assert view.card.progress["screened"] == 2 == view.queue.progress()[0]
    assert len(codes()) == len(s.ids) == view.card.progress["total"]


def test_the_progress_panel_follows_decisions_other_processes_and_a_change_of_reviewer(review):
    with review.store("lead") as store:  # blind: each reviewer's estimate rests on their own reading
        store.team.set_blind(True)
    s = Session.open(review)  # no name yet: the environment's or the OS user's
    view = screen(s, order="map")
    view.play([{"reviewer": "Ana"}])
    assert view.card.panel["reviewer"] == "Ana" and view.card.panel["read"] == 0
    assert view.card.panel["sentence"].startswith("Nothing read yet")
    for key in "iee":
        view.keys.press(key)
    panel = view.card.panel
    assert (panel["read"], panel["relevant"]) == (3, 1) and panel["curve"] == [[0, 0], [1, 1], [2, 1], [3, 1]]
    assert panel["sentence"].startswith("1 relevant found in 3 read; about ")
    assert panel["random"][0] == [0.0, 0.0] and panel["random"][1][0] == len(s.ids)
    with Session.open(review, reviewer="Ana") as other:  # another kernel, the same reviewer
        other.decide(other.ids[100], "include")
    view.keys.press("j")  # the next action shows it
    assert view.card.panel["read"] == 4 and view.card.panel["relevant"] == 2
    view.play([{"reviewer": "Ben"}])  # another reviewer at this kernel: the panel is Ben's at once
    assert view.card.panel["reviewer"] == "Ben" and view.card.panel["read"] == 0
    assert view.card.panel["sentence"].startswith("Nothing read yet")
    s.close()


def test_blind_mode_holds_on_the_card_its_map_and_its_panel(review):
    with review.store("lead") as store:
        store.team.set_blind(True)
    ana, ben = Session.open(review, reviewer="Ana"), Session.open(review, reviewer="Ben")
    pid = ana.ids[0]
    ana.decide(pid, "exclude", "anas secret reason")
    ana.decide(ana.ids[1:4], "include", bulk=False)
    ana.note(pid, "anas private note")
    view = screen(ben, show="all", order="map")
    view.queue.go(pid)
    view.render()
    shown = view.card.shown()
    for secret in ("Ana", "anas secret reason", "anas private note"):
        assert secret not in shown
    assert view.card.card["decision"] == "" and view.card.panel["read"] == 0
    assert not np.frombuffer(view.card.map_codes, dtype=np.uint8).any(), "Ana's decisions are not on Ben's map"
    view.keys.press("e")  # Ben screened it: now both votes may be seen
    view.keys.press("k")
    assert "anas secret reason" in view.card.card["votes_html"]
    for s in (ana, ben):
        s.close()


def test_the_estimate_is_asked_for_only_when_the_screening_history_changed(view, monkeypatch):
    calls = []
    stopping = view.session.stopping
    monkeypatch.setattr(view.session, "stopping", lambda log=True: calls.append(log) or stopping(log=log))
    view.keys.press("j")
    view.keys.press("k")
    view.card.act("tag", "later")  # the store changed, the decisions did not
    view.card.act("note", "a note")
    assert calls == [], "a move, a tag or a note asks for no estimate"
    view.keys.press("i")
    assert calls == [False] and view.card.panel["read"] == 1
    view.card.act("reason", "on topic")  # the same decision with its reason: the same history
    assert calls == [False]
    view.keys.press("u")
    view.keys.press("u")  # the reason, then the include: the history changed again
    assert calls == [False, False] and view.card.panel["read"] == 0

"""02 as a team, without a browser, with two and three reviewers: the name asked before the
first change, blind mode in the widget state and the rendered HTML, the conflicts queue, resolve
and undo, the full-text stage, criteria and reasons beside the card, agreement and PRISMA cells."""

from __future__ import annotations

import shutil

import pytest

import workbench
from workbench.errors import InputError
from workbench.corpus.paper import FULL_TEXT
from workbench.widgets import ScreeningQueue, Session, agreement_table, forget_reviewer, prisma_figure, screen



@pytest.fixture
def review(built, tmp_path, monkeypatch):
    """A fresh copy of the seeds review in blind mode, with criteria and two exclusion reasons;
    no reviewer name in the environment or remembered by the kernel."""
    monkeypatch.delenv("WORKBENCH_REVIEWER", raising=False)
    forget_reviewer()
    shutil.copytree(built, tmp_path / "review")
    review = workbench.open_review(tmp_path / "review")
    with review.store("lead") as store:
        store.team.set_blind(True)
        store.team.set_criteria("Include: reward models or RLHF.\nExclude: <b>surveys</b>.")
        store.team.add_exclusion_reason("wrong topic")
        store.team.add_exclusion_reason("not a study")
    yield review
    forget_reviewer()


def sessions(review, *names):
    return [Session.open(review, reviewer=name) for name in names]


def test_a_name_is_asked_before_the_first_change_in_team_use(review, monkeypatch):
    monkeypatch.setattr("getpass.getuser", lambda: "jovyan")
    s = Session.open(review)  # no name: the OS user, shared by everyone on the server
    view = screen(s)
    assert s.team.needs_name() and s.reviewer == "jovyan"
    assert "type your name" in view.team.names.who.value
    pid = view.queue.current_id
    for action in (lambda: s.decide(pid, "include"), lambda: s.tag(pid, "x"), lambda: s.note(pid, "n"),
                   lambda: s.topics.rename(0, "renamed by nobody")):
        with pytest.raises(InputError, match="your own name"):
            action()
    view.play([{"decide": "include"}])
    assert view.card.message["kind"] == "err" and "your own name" in view.card.message["text"]
    with review.store("lead") as store:
        assert not store.decisions.every("title_abstract", all_reviewers=True), "nothing was saved"
        assert not store.tags.by_reviewer(pid, all_reviewers=True), "nothing was saved"
    with pytest.raises(InputError, match="many people share"):
        s.team.set_reviewer("Jovyan")
    view.play([{"reviewer": "Ana"}, {"decide": "include", "reason": "on topic"}])
    assert "screening as <b>Ana</b>" in view.team.names.who.value
    with review.store("lead") as store:
        saved = store.decisions.every("title_abstract", all_reviewers=True)  # blind: lead screens nothing
        assert [(d.paper_id, d.reviewer) for d in saved] == [(pid, "Ana")]
    again = Session.open(review)  # remembered for this kernel
    assert again.reviewer == "Ana" and not again.team.needs_name()
    for x in (s, again):
        x.close()


def test_a_solo_review_keeps_the_os_user(built, tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_REVIEWER", raising=False)
    forget_reviewer()
    shutil.copytree(built, tmp_path / "solo")
    with Session.open(tmp_path / "solo") as s:
        assert not s.team.active() and not s.team.needs_name()
        s.decide(s.ids[0], "include")
        # A second person's vote makes it a team review: the unnamed session must ask now.
        with Session.open(tmp_path / "solo", reviewer="Ben") as ben:
            ben.decide(s.ids[1], "exclude")
        assert s.team.active() and s.team.needs_name()
        with pytest.raises(InputError):
            s.decide(s.ids[2], "include")


def test_blind_mode_hides_the_other_reviewers_in_state_and_html(review):
    ana, ben, cleo = sessions(review, "Ana", "Ben", "Cleo")
    pid = ana.ids[3]
    ana.tag(pid, "anas-tag")
    ana.note(pid, "Ana's private note")
    ana.decide(pid, "include", "anas reason")
    cleo.tag(pid, "cleos-tag")  # Cleo tags and notes the paper but has not screened it
    cleo.note(pid, "Cleo's private note")
    view = screen(ben, show="all", order="map")
    view.queue.go(pid)
    view.render()
    card = view.queue.card()
    assert card.votes == [] and card.tags == [] and card.notes == [] and card.decision is None
    assert "cleos-tag" not in view.card.shown()
    assert pid in ScreeningQueue(ben).ids, "Ana's vote does not take the paper from Ben's queue"
    html = view.card.shown() + view.team.names.who.value
    for secret in ("Ana", "anas-tag", "private note", "anas reason", "include</b>"):
        assert secret not in html
    assert not any(t["on"] for t in view.card.tags)

    view.play([{"decide": "exclude", "reason": "wrong topic"}, {"key": "k"}])
    card = view.queue.card()
    assert [(v.reviewer, v.decision, v.reason) for v in card.votes] == [
        ("Ben", "exclude", "wrong topic"), ("Ana", "include", "anas reason")]
    assert "anas-tag" in card.tags
    for shown in ("<th>Ana</th>", "anas reason", "anas-tag", "Ana&#x27;s private note"):
        assert shown in view.card.shown()
    assert "cleos-tag" not in card.tags and not any("Cleo" in n for n in card.notes)
    assert "Cleo" not in view.card.shown() and "cleos-tag" not in view.card.shown(), "Cleo has not screened it"
    for s in (ana, ben, cleo):
        s.close()


def test_conflicts_queue_with_three_reviewers_resolve_and_undo(review):
    ana, ben, cleo = sessions(review, "Ana", "Ben", "Cleo")
    p, q, r = ana.ids[:3]
    ana.decide([p, q, r], "include")
    ben.decide(p, "maybe")  # include vs maybe is a conflict
    ben.decide(q, "include")  # agreed
    cleo.decide(r, "exclude", "not a study")
    ben.decide(r, "exclude", "not a study")  # r: include vs exclude vs exclude
    view = screen(cleo, show="conflicts")
    q_ = view.queue
    assert sorted(q_.ids) == sorted([p, r]) and q_.open_conflicts() == 2
    assert "2 open conflicts" in view.team.conflicts.value
    assert view.team.resolve_row.layout.display == "flex"
    q_.go(r)
    view.render()
    card = q_.card()  # resolving: every vote side by side, though Cleo did not screen p
    assert [(v.reviewer, v.decision, v.reason) for v in card.votes] == [
        ("Cleo", "exclude", "not a study"), ("Ana", "include", None), ("Ben", "exclude", "not a study")]
    assert view.card.card["votes_html"].count("<th>") == 3
    q_.go(p)
    assert {v.reviewer for v in q_.card().votes} == {"Ana", "Ben"}

    view.play([{"resolve": "include", "reason": "in scope after discussion"}])
    final = review.store("lead").team.final(p)
    assert (final.decision, final.resolved_by, final.reason) == ("include", "Cleo", "in scope after discussion")
    assert "1 open conflict" in view.team.conflicts.value
    assert [c.paper_id for c in review.team.conflicts()] == [r]
    view.play([{"key": "u"}])
    assert review.store("lead").team.final(p) is None
    assert "2 open conflicts" in view.team.conflicts.value and view.card.message["text"].startswith("undid: ")
    for s in (ana, ben, cleo):
        s.close()


def test_the_blind_queue_learns_only_from_own_and_final_decisions(review):
    ana, ben = sessions(review, "Ana", "Ben")
    ana.decide(ana.ids[0], "include")
    ana.decide(ana.ids[1], "exclude")
    assert ana.rank().mode == "ranked"
    assert ben.rank().mode != "ranked", "Ana's decisions do not order Ben's queue in blind mode"
    ben.team.resolve(ana.ids[0], "include", "settled")
    ben.team.resolve(ana.ids[1], "exclude", "wrong topic")
    assert ben.rank().mode == "ranked", "final decisions train everyone's queue"
    for s in (ana, ben):
        s.close()


def test_criteria_reasons_and_the_full_text_stage(review):
    ana, ben = sessions(review, "Ana", "Ben")
    p, q = ana.ids[:2]
    for s in (ana, ben):
        s.decide([p, q], "include")
    view = screen(ana, stage=FULL_TEXT)
    assert "Include: reward models or RLHF.<br>Exclude: &lt;b&gt;surveys&lt;/b&gt;." in view.team.criteria.value
    assert view.card.reasons == ["wrong topic", "not a study"]  # "not retrieved" is a button at full text
    assert view.card.decisions == ["include", "exclude", "not retrieved"], "no maybe at full text"
    assert sorted(view.queue.ids) == sorted([p, q]), "only papers included at title/abstract"
    view.queue.go(p)
    view.play([{"decide": "exclude"}])  # a full-text exclusion waits for its reason on the paper
    assert "needs a reason" in view.card.message["text"] and view.queue.current_id == p
    assert view.card.reason_for == {"id": p, "title": view.queue.short_title(p), "decision": "exclude", "pending": True}
    view.card.act("reason", "Wrong  topic")  # a chip: the exclusion is made now, and the queue moves on
    assert view.card.reason_for["id"] == p and not view.card.reason_for["pending"]
    view.play([{"go": q}])
    view.on_decide("not retrieved")
    with review.store("lead") as store:
        got = {(d.paper_id, d.decision, d.reason) for d in store.decisions.every(FULL_TEXT, all_reviewers=True)}
    assert got == {(p, "exclude", "wrong topic"), (q, "exclude", "not retrieved")}
    for s in (ana, ben):
        s.close()


def test_agreement_and_prisma_cells_follow_the_store(review):
    ana, ben = sessions(review, "Ana", "Ben")
    ids = ana.ids[:6]
    ana.decide(ids[:3], "include")
    ana.decide(ids[3:], "exclude", "wrong topic")
    ben.decide(ids[:2], "include")
    ben.decide(ids[2:], "exclude", "wrong topic")  # one conflict: ids[2]
    shown = agreement_table(review)
    pair = review.team.agreement().pairs[0]
    assert f"<td>{pair.kappa.value:.2f}</td>" in shown.html and f"<td>{pair.ac1.value:.2f}</td>" in shown.html
    assert "<td>6</td>" in shown.html and "1 open conflict" in shown.html and "Krippendorff" in shown.html
    before = prisma_figure(review)
    assert before.data["png"].exists() and "data:image/png;base64," in before.html
    assert before.data["counts"].records_excluded == 3
    assert before.html.count("wb-prisma-counts") == 1
    # 04 shows the report (with the PRISMA table) above the figure: the table is not shown twice
    figure_only = prisma_figure(review, table=False)
    assert "wb-prisma-counts" not in figure_only.html and "data:image/png;base64," in figure_only.html
    ben.team.resolve(ids[2], "exclude", "wrong topic")
    after = prisma_figure(review).data["counts"]
    assert after.records_excluded == 4 and after.records_screened == before.data["counts"].records_screened + 1
    for s in (ana, ben):
        s.close()


def test_explore_and_compare_ask_for_the_name_and_the_card_follows_the_blind_rule(review):
    from workbench.widgets import compare, explore

    s = Session.open(review)
    ben = Session.open(review, reviewer="Ben")
    pid, other = s.ids[:2]
    ben.decide(pid, "exclude", "bens reason")
    view = explore(s)
    assert "type your name" in view.names.who.value
    view.play([{"select": [pid], "tag": "t1"}])
    with review.store("lead") as store:
        assert not store.tags.papers_with("t1"), "nothing saved before a name"
    view.play([{"reviewer": "Ana"}, {"tag": "t1"}, {"open": pid}])
    assert "working as <b>Ana</b>" in view.names.who.value
    assert "bens reason" not in view.card.shown(), "blind: Ben's vote hidden until Ana screened the paper"
    s.decide(pid, "include")
    assert "others: Ben: exclude (bens reason)" in view.card.card["votes_html"]
    side = compare(s, [pid, other])
    assert "working as <b>Ana</b>" in side.names.who.value
    for x in (s, ben):
        x.close()


def test_progress_counts_what_leaves_your_queue(review):
    """In team use a paper counts as screened for you once you voted on it or it is settled:
    another reviewer's vote leaves it in your queue, so it does not move your progress bar."""
    ana, ben = sessions(review, "Ana", "Ben")
    ana.decide(ana.ids[:2], "include")
    ana.decide(ana.ids[2], "exclude")
    total = len(ana.ids)
    assert ScreeningQueue(ana).progress() == (3, total)
    assert ScreeningQueue(ben).progress() == (0, total)
    assert ScreeningQueue(ana, stage=FULL_TEXT).progress() == (0, total)
    ben.decide(ben.ids[0], "include")
    ben.team.resolve(ben.ids[2], "exclude", "wrong topic")  # settled without Ben's vote
    assert ScreeningQueue(ben).progress() == (2, total)
    view = screen(ben)
    assert view.card.progress["label"] == f"2 of {total} screened by you or settled"
    for s in (ana, ben):
        s.close()

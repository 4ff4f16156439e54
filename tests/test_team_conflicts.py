"""Conflicts, agreement and missing second screens among two and three reviewers."""

from __future__ import annotations

import pytest

from workbench.errors import InputError
from workbench.team.conflicts import AGREED, AWAITING, CONFLICT, RESOLVED, FinalDecision, classify, resolve

TWO = [
    ("agree-in", "ana", "include"), ("agree-in", "ben", "include"),
    ("agree-out", "ana", "exclude", "wrong population"), ("agree-out", "ben", "exclude", "off topic"),
    ("in-vs-out", "ana", "include"), ("in-vs-out", "ben", "exclude"),
    ("in-vs-maybe", "ana", "include"), ("in-vs-maybe", "ben", "maybe"),
    ("both-maybe", "ana", "maybe"), ("both-maybe", "ben", "maybe"),
    ("only-ana", "ana", "exclude"),
]


def test_two_reviewers_statuses():
    screening = classify(TWO)
    status = {pid: p.status for pid, p in screening.papers.items()}
    assert status == {"agree-in": AGREED, "agree-out": AGREED, "in-vs-out": CONFLICT, "in-vs-maybe": CONFLICT,
                      "both-maybe": AGREED, "only-ana": AWAITING}
    assert [p.paper_id for p in screening.conflicts()] == ["in-vs-out", "in-vs-maybe"]
    assert [p.paper_id for p in screening.awaiting()] == ["only-ana"]
    assert screening.counts() == {RESOLVED: 0, CONFLICT: 2, AGREED: 3, AWAITING: 1}
    # an agreed maybe is agreement, but not a settled decision
    assert screening.decisions() == {"agree-in": "include", "agree-out": "exclude"}
    conflict = screening.papers["in-vs-out"]
    assert conflict.reviewers == ("ana", "ben") and [v.decision for v in conflict.votes] == ["include", "exclude"]
    assert conflict.decision is None and not conflict.settled


def test_full_text_exclusion_reasons_must_match():
    screening = classify(TWO, reasons_must_match=True)
    assert screening.papers["agree-out"].status == CONFLICT
    same = classify([("p", "ana", "exclude", "Wrong  population"), ("p", "ben", "exclude", "wrong population")],
                    reasons_must_match=True)
    assert same.papers["p"].status == AGREED


def test_single_screening_needs_one_reviewer():
    screening = classify(TWO, required=1)
    assert screening.papers["only-ana"].status == AGREED and screening.papers["only-ana"].decision == "exclude"


def test_three_reviewers_any_disagreement_is_a_conflict():
    rows = [("p1", "ana", "include"), ("p1", "ben", "include"), ("p1", "cy", "exclude"),
            ("p2", "ana", "exclude"), ("p2", "ben", "exclude"), ("p2", "cy", "exclude"),
            ("p3", "cy", "include")]
    screening = classify(rows)
    assert [p.status for p in screening.papers.values()] == [CONFLICT, AGREED, AWAITING]
    assert classify(rows, required=3).papers["p1"].status == CONFLICT
    assert classify(rows[3:6], required=3).papers["p2"].status == AGREED


def test_resolving_a_conflict_records_who_and_why():
    screening = classify(TWO)
    conflict = screening.papers["in-vs-maybe"]
    final = resolve(conflict, "include", by="cy", reason=" meets criteria 2 and 3 ", at="2025-01-02T10:00:00Z",
                    stage="title/abstract")
    assert final == FinalDecision("in-vs-maybe", "include", "cy", "meets criteria 2 and 3", "2025-01-02T10:00:00Z",
                                  "title/abstract")
    after = classify(TWO, [final])
    paper = after.papers["in-vs-maybe"]
    assert paper.status == RESOLVED and paper.decision == "include" and paper.settled
    assert [p.paper_id for p in after.conflicts()] == ["in-vs-out"]
    assert after.decisions()["in-vs-maybe"] == "include"


def test_a_final_decision_settles_a_maybe_and_a_paper_nobody_screened():
    finals = [FinalDecision("both-maybe", "exclude", "ana", "no outcome measure"),
              FinalDecision("unscreened", "include", "lead", "known key paper")]
    screening = classify(TWO, finals)
    assert screening.papers["both-maybe"].decision == "exclude"
    assert screening.papers["unscreened"].status == RESOLVED and screening.papers["unscreened"].votes == ()


def test_a_vote_changed_after_resolution_makes_it_stale():
    rows = [("p", "ana", "include", None, "2025-01-01T09:00:00Z"), ("p", "ben", "exclude", None, "2025-01-03T09:00:00Z")]
    final = FinalDecision("p", "include", "cy", "criteria met", "2025-01-02T09:00:00Z")
    assert classify(rows, [final]).papers["p"].stale
    assert not classify(rows[:1], [final]).papers["p"].stale


@pytest.mark.parametrize("call, message", [
    (lambda p: resolve(p, "yes", by="cy"), "final decision 'yes' on paper in-vs-out: expected one of"),
    (lambda p: resolve(p, "include", by=" "), "name the reviewer who resolves it"),
    (lambda p: classify(TWO, required=0), "required=0"),
    (lambda p: classify(TWO, [FinalDecision("x", "include", "a"), FinalDecision("x", "exclude", "b")]),
     "paper x has two final decisions"),
    (lambda p: classify(TWO).with_status("open"), "status 'open': expected one of resolved, conflict"),
])
def test_bad_input_is_named(call, message):
    paper = classify(TWO).papers["in-vs-out"]
    with pytest.raises(InputError) as info:
        call(paper)
    assert message in str(info.value)

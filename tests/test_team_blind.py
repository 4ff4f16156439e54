"""Blind mode with two and three reviewers: what a reviewer sees, and what their queue learns."""

from __future__ import annotations

import pytest

from workbench.errors import InputError
from workbench.team.blind import training_decisions, visible_to
from workbench.team.conflicts import FinalDecision

DECISIONS = {"ana": "include", "ben": "exclude"}
TAGS = {"ana": ("rct",), "ben": ("adults",), "cy": ("maybe-later",)}
NOTES = {"ben": ("no control group",)}


def view(viewer, **kw):
    args = {"decisions": DECISIONS, "tags": TAGS, "notes": NOTES, "blind": True} | kw
    return visible_to(viewer, **args)


def test_blind_hides_the_others_until_the_viewer_has_screened():
    cy = view("cy")  # cy tagged the paper but has not screened it
    assert cy.decisions == {} and cy.notes == {} and cy.tags == {"cy": ("maybe-later",)}
    assert cy.withheld == 2 and "screen the paper first" in cy.why


def test_blind_shows_those_who_screened_to_another_who_screened():
    ana = view("ana")
    assert ana.decisions == DECISIONS and ana.notes == NOTES
    assert ana.tags == {"ana": ("rct",), "ben": ("adults",)}  # cy has not screened: hidden
    assert ana.withheld == 1


def test_only_one_screened_sees_only_their_own():
    ana = visible_to("ana", decisions={"ana": "include"}, tags=TAGS, notes=NOTES, blind=True)
    assert ana.decisions == {"ana": "include"} and ana.tags == {"ana": ("rct",)} and ana.notes == {}
    assert ana.withheld == 2


def test_screened_may_be_given_explicitly():
    # ben's decision is in the rows but ben has not finished this stage (e.g. full text)
    ana = view("ana", screened={"ana"})
    assert ana.decisions == {"ana": "include"}


@pytest.mark.parametrize("kw", [{"blind": False}, {"final": FinalDecision("p", "include", "cy")},
                                {"resolving": True}])
def test_everything_is_shown_when_not_blind_settled_or_resolving(kw):
    cy = view("cy", **kw)
    assert cy.decisions == DECISIONS and cy.tags == TAGS and cy.notes == NOTES and cy.withheld == 0


def test_a_viewer_needs_a_name():
    with pytest.raises(InputError, match="name the reviewer"):
        visible_to("", decisions={}, blind=True)


ROWS = [("p1", "ana", "include", None, "2025-01-01"), ("p1", "ben", "exclude", None, "2025-01-02"),
        ("p2", "ben", "include", None, "2025-01-02"), ("p3", "cy", "exclude", None, "2025-01-03"),
        ("p3", "ben", "maybe", None, "2025-01-01")]


def test_blind_queue_learns_from_the_viewer_and_final_decisions_only():
    assert training_decisions("ana", ROWS, blind=True) == {"p1": "include"}
    finals = [FinalDecision("p1", "exclude", "cy"), FinalDecision("p2", "include", "cy")]
    assert training_decisions("ana", ROWS, finals, blind=True) == {"p1": "exclude", "p2": "include"}


def test_open_queue_learns_from_own_then_latest_other():
    assert training_decisions("ana", ROWS, blind=False) == {"p1": "include", "p2": "include", "p3": "exclude"}

"""PRISMA counts from a scripted two-reviewer screening at both stages."""

from __future__ import annotations

import pytest

from workbench.errors import InputError
from workbench.team.conflicts import FinalDecision, classify
from workbench.team.flow import NO_REASON, NOT_RETRIEVED, SEVERAL_REASONS, Identified, prisma_counts
from workbench.team.prisma import OtherMethods

RECORDS = [f"p{i}" for i in range(1, 13)]  # 12 records left after 3 duplicates
TITLE_ABSTRACT = [
    ("p1", "ana", "include"), ("p1", "ben", "include"),
    ("p2", "ana", "include"), ("p2", "ben", "include"),
    ("p3", "ana", "include"), ("p3", "ben", "maybe"),          # conflict, resolved: include
    ("p4", "ana", "maybe"), ("p4", "ben", "maybe"),            # agreed maybe: awaiting
    ("p5", "ana", "exclude", "off topic"), ("p5", "ben", "exclude", "Off  topic"),
    ("p6", "ana", "exclude", "off topic"), ("p6", "ben", "exclude", "wrong population"),
    ("p7", "ana", "exclude"), ("p7", "ben", "include"),        # conflict, resolved: exclude
    ("p8", "ana", "exclude"), ("p8", "ben", "include"),        # conflict, unresolved
    ("p9", "ana", "exclude"),                                  # awaiting a second screen
    ("p10", "ana", "include"), ("p10", "ben", "include"),
    ("p11", "ana", "include"), ("p11", "ben", "include"),
]                                                              # p12: nobody yet
TA_FINALS = [FinalDecision("p3", "include", "cy", "meets criteria"), FinalDecision("p7", "exclude", "cy", "not a study")]
FULL_TEXT = [
    ("p1", "ana", "include"), ("p1", "ben", "include"),
    ("p2", "ana", "exclude", "no control group"), ("p2", "ben", "exclude", "no control group"),
    ("p3", "ana", "exclude", NOT_RETRIEVED), ("p3", "ben", "exclude", NOT_RETRIEVED),
    ("p10", "ana", "include"), ("p10", "ben", "exclude", "wrong outcome"),  # conflict: awaiting
    ("p5", "ana", "include"),  # excluded at title/abstract: not counted at full text
]


def counts(**kw):
    args = {"records": RECORDS, "identified": Identified({"PubMed": 10, "Scopus": 5}, duplicates_removed=3),
            "title_abstract": classify(TITLE_ABSTRACT, TA_FINALS),
            "full_text": classify(FULL_TEXT, reasons_must_match=True), "ranked": {"p5", "p6", "p1"}} | kw
    return prisma_counts(**args)


def test_every_box_from_the_scripted_screening():
    c = counts()
    assert c.identified == 15 and c.removed_before_screening == 3
    # settled at title/abstract: p1 p2 p3 p10 p11 (sought), p5 p6 p7 (excluded)
    assert (c.records_screened, c.records_awaiting) == (8, 4)  # awaiting: p4 p8 p9 p12
    assert c.records_excluded == 3
    assert c.excluded_reasons == {"off topic": 1, SEVERAL_REASONS: 1, "not a study": 1}
    assert c.excluded_ranked == 2  # p5 and p6 (p1 was included)
    assert c.reports_sought == 5
    assert c.reports_not_retrieved == 1  # p3
    assert c.reports_assessed == 2  # p1 included, p2 excluded
    assert c.reports_awaiting == 2  # p10 in conflict, p11 not screened at full text
    assert c.reports_excluded == {"no control group": 1}
    assert c.studies_included == 1 and c.included_reports == 1


def test_other_methods_and_an_update_add_up():
    other = OtherMethods(identified={"Citation searching": 3}, sought=3, not_retrieved=1, assessed=2,
                         excluded={"wrong design": 1})
    c = counts(other=other, previous_studies=4, previous_reports=5)
    assert c.studies_included == 1 + 1
    table = {box: n for _, box, n in c.rows()}
    assert table["Total studies included in review"] == 4 + 2


def test_no_reasons_at_title_abstract_leave_the_breakdown_out():
    ta = classify([("p1", "ana", "exclude"), ("p1", "ben", "exclude")])
    c = prisma_counts(records=["p1"], identified=Identified({"seeds": 1}), title_abstract=ta, full_text=classify([]))
    assert c.records_excluded == 1 and c.excluded_reasons == {} and c.excluded_ranked is None


def test_a_final_exclusion_without_reason_is_counted_as_such():
    ta = classify([("p1", "ana", "exclude"), ("p1", "ben", "include")], [FinalDecision("p1", "exclude", "cy")])
    ft = classify([])
    c = prisma_counts(records=["p1", "p2"], identified=Identified({"seeds": 2}), title_abstract=ta, full_text=ft)
    assert c.excluded_reasons == {} and c.records_excluded == 1 and c.records_awaiting == 1
    assert NO_REASON not in c.markdown()


def test_screened_papers_must_be_records():
    with pytest.raises(InputError, match="not among the records"):
        counts(records=RECORDS[1:])

"""PRISMA 2020 counts: the arithmetic, a box that does not add up, the table and the files."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from workbench.errors import InputError
from workbench.review import write_diagram
from workbench.team import OtherMethods, PrismaCheckError, PrismaCounts

# A review of 240 records from three databases and a register, screened by two reviewers.
COUNTS = PrismaCounts(
    databases={"PubMed": 120, "Scopus": 80, "arXiv": 33}, registers={"ClinicalTrials.gov": 7},
    duplicates_removed=40, removed_other=2, records_screened=190, records_awaiting=8,
    records_excluded=150, excluded_reasons={"off topic": 100, "wrong population": 30, "not a study": 20},
    excluded_ranked=120, reports_sought=40, reports_not_retrieved=3, reports_awaiting=2, reports_assessed=35,
    reports_excluded={"wrong outcome": 10, "no control group": 7}, studies_included=17, reports_included=18,
)
UPDATED = replace(COUNTS, other=OtherMethods(identified={"Citation searching": 6, "Websites": 2}, sought=6,
                                             not_retrieved=1, assessed=5, excluded={"wrong design": 2}),
                  studies_included=20, reports_included=21, previous_studies=12, previous_reports=14)


def test_consistent_counts_pass_and_derived_boxes_add_up():
    assert COUNTS.check() is COUNTS
    assert COUNTS.identified == 120 + 80 + 33 + 7
    assert COUNTS.removed_before_screening == 42
    assert UPDATED.check() is UPDATED
    table = {(stage, box): n for stage, box, n in UPDATED.rows()}
    assert table["Included", "Total studies included in review"] == 12 + 20
    assert table["Included", "Reports of total included studies"] == 14 + 21
    assert table["Screening", "Reports excluded"] == 10 + 7
    assert table["Screening (other methods)", "Reports excluded"] == 2


@pytest.mark.parametrize("change, box", [
    ({"records_screened": 191}, "Records screened"),
    ({"duplicates_removed": 39}, "Records screened"),
    ({"excluded_reasons": {"off topic": 99, "wrong population": 30, "not a study": 20}}, "Records excluded"),
    ({"excluded_ranked": 151}, "Records excluded"),
    ({"reports_sought": 41, "reports_assessed": 36}, "Reports sought for retrieval"),
    ({"reports_not_retrieved": 4}, "Reports assessed for eligibility"),
    ({"reports_included": 19}, "Studies included in review"),
    ({"studies_included": 19}, "Studies included in review"),
    ({"reports_excluded": {"wrong outcome": -1}}, "Reports excluded"),
    ({"databases": {"PubMed": 1.5}}, "Records identified from databases"),
    ({"previous_reports": 3}, "Studies included in previous version of review"),
    ({"other": OtherMethods(identified={"Websites": 2}, sought=2, not_retrieved=1, assessed=2), "reports_included": 20},
     "Reports assessed for eligibility (other methods)"),
])
def test_a_box_that_does_not_add_up_is_named(change, box):
    with pytest.raises(PrismaCheckError) as info:
        replace(COUNTS, **change).check()
    assert info.value.box == box
    assert str(info.value).startswith(f"PRISMA box {box!r} does not add up: ")
    assert isinstance(info.value, InputError)


def test_the_message_shows_the_arithmetic():
    with pytest.raises(PrismaCheckError, match=r"screened 191 \+ awaiting 8 = 199, but identified 240 - "
                                               r"removed before screening 42 = 198"):
        replace(COUNTS, records_screened=191).check()


def test_every_problem_is_listed():
    with pytest.raises(PrismaCheckError) as info:
        replace(COUNTS, records_screened=191, reports_not_retrieved=4).check()
    assert [b for b, _ in info.value.problems] == ["Records screened", "Reports sought for retrieval",
                                                  "Reports assessed for eligibility"]


def test_markdown_table_has_every_number():
    text = UPDATED.markdown()
    lines = text.splitlines()
    assert lines[:2] == ["| Stage | Box | n |", "| --- | --- | ---: |"]
    assert "| Identification | Records identified from PubMed (database) | 120 |" in lines
    assert "| Screening | Records excluded, screened in ranked order | 120 |" in lines
    assert "| Screening (other methods) | Reports excluded: wrong design | 2 |" in lines
    assert "| Included | New studies included in review | 20 |" in lines
    assert len(lines) == 2 + len(UPDATED.rows())


def _numbers_in_svg(svg: str) -> list[int]:
    return [int(n) for n in re.findall(r"\(n = (\d+)\)", svg)]


@pytest.mark.parametrize("counts", [COUNTS, UPDATED], ids=["new review", "updated review with other methods"])
def test_diagram_files_hold_every_number(tmp_path, counts):
    svg_path, png_path = write_diagram(counts, tmp_path / "report")
    assert (svg_path.name, png_path.name) == ("prisma.svg", "prisma.png")
    svg = svg_path.read_text(encoding="utf-8")
    shown = _numbers_in_svg(svg)
    for stage, box, n in counts.rows():
        if box in ("Records identified", "Reports excluded"):
            continue  # totals the template leaves to the reader
        assert n in shown, f"{box} (n = {n}) is not in the SVG"
    for source in [*counts.databases, *counts.registers]:
        assert f"{source} (n = " in svg
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["prisma.png", "prisma.svg"]


def test_diagram_shows_the_template_boxes(tmp_path):
    svg = write_diagram(UPDATED, tmp_path)[0].read_text(encoding="utf-8")
    for label in ("Identification of new studies via", "Identification of studies via", "Previous studies",
                  "Records removed before screening:", "Duplicate records removed (n = 40)",
                  "Reports not retrieved (n = 3)", "Total studies included in review (n = 32)",
                  "Identification", "Screening", "Included"):
        assert label in svg


def test_bad_counts_write_no_files(tmp_path):
    with pytest.raises(PrismaCheckError):
        write_diagram(replace(COUNTS, records_excluded=149), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_dollar_signs_in_reasons_stay_text(tmp_path):
    counts = replace(COUNTS, reports_excluded={"costs $5 or $10": 17})
    assert "costs $5 or $10 (n = 17)" in write_diagram(counts, tmp_path)[0].read_text(encoding="utf-8")

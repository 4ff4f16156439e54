"""PRISMA 2020 for an updated review: the latest update's new records per source, its duplicates
(of the review's papers and among themselves), the new records screened, excluded, sought and
included, and the previous version's studies, all counted exactly from the store and the folder;
the plain diagram for a review never updated (or rebuilt since), and "same paper" verdicts
counted as duplicates removed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import workbench
from workbench.cli import main
from workbench.errors import InputError

from conftest import seed_abstracts, write_csv

ANA = "ana"


def row(i: int, title: str | None = None) -> list:
    abstract = seed_abstracts()[i]
    return [title or " ".join(abstract.split()[:10]), abstract, f"10.1000/p{i}", 2020 + i % 5, f"Author{i}, A"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A review of records 0-29, screened at title/abstract and full text (4 studies included);
    pubmed.csv holds records 25-39 (five already in the review), record 35 again under another
    title (a duplicate within the file) and one record with no text: 17 identified, 10 new."""
    folder = tmp_path_factory.mktemp("update_prisma")
    write_csv(folder / "a.csv", [row(i) for i in range(30)])
    write_csv(folder / "pubmed.csv", [row(i) for i in range(25, 40)]
              + [row(35, "The same record under another title"), ["", "", "", "", "Nobody, N"]])
    review = workbench.build([folder / "a.csv"], review=folder / "r", embedder="fake", seed=42, progress=False)
    ids = [p.id for p in review.papers]
    review.screening.decide(ids[0:6], "include", reviewer=ANA)
    review.screening.decide(ids[6:26], "exclude", "off topic", reviewer=ANA)
    review.screening.decide(ids[0:4], "include", reviewer=ANA, stage="full_text")
    review.screening.decide(ids[4], "exclude", "wrong design", reviewer=ANA, stage="full_text")
    review.screening.decide(ids[5], "not retrieved", reviewer=ANA, stage="full_text")
    return folder


@pytest.fixture
def case(built, tmp_path):
    return Path(shutil.copytree(built, tmp_path / "case"))


def update(folder: Path, name: str = "pubmed.csv", database: str = "PubMed", today: str = "2025-03-01"):
    review = workbench.open_review(folder / "r")
    return workbench.update([folder / name], review, {str(folder / name): {"database": database, "searched_on": today}},
                         today=today)


def screen_new(review, new: list[str]) -> None:
    review.screening.decide(new[0:3], "include", reviewer=ANA)
    review.screening.decide(new[3:8], "exclude", "off topic", reviewer=ANA)
    review.screening.decide(new[0:2], "include", reviewer=ANA, stage="full_text")
    review.screening.decide(new[2], "exclude", "wrong outcome", reviewer=ANA, stage="full_text")


def test_a_review_never_updated_gets_the_plain_diagram(case):
    review = workbench.open_review(case / "r")
    counts = review.team.prisma(write=False)
    assert not counts.updated and counts.identified == 30 and counts.studies_included == 4
    assert review.team.prisma(write=False, update=False) == counts
    with pytest.raises(InputError, match="has not been updated since it was built"):
        review.team.prisma(write=False, update=True)


def test_the_latest_update_counts_exactly(case):
    updated = update(case)
    new = list(updated.update_report.new)
    assert len(new) == 10
    screen_new(updated, [pid for pid in updated.ids if pid in set(new)])
    counts = workbench.open_review(case / "r").team.prisma()
    assert counts.updated
    assert (counts.databases, counts.registers) == ({"PubMed": 17}, {})
    assert (counts.duplicates_removed, counts.removed_other) == (6, 1)  # 5 of the review's papers, 1 in the file
    assert (counts.records_screened, counts.records_awaiting) == (8, 2)
    assert (counts.records_excluded, counts.excluded_reasons) == (5, {"off topic": 5})
    assert (counts.reports_sought, counts.reports_not_retrieved, counts.reports_assessed) == (3, 0, 3)
    assert counts.reports_excluded == {"wrong outcome": 1}
    assert (counts.studies_included, counts.previous_studies) == (2, 4)
    table = {box: n for _, box, n in counts.rows()}
    assert table["Total studies included in review"] == 6
    svg = (case / "r" / "report" / "prisma.svg").read_text(encoding="utf-8")
    assert "Previous studies" in svg and "Identification of new studies via" in svg and "PubMed (n = 17)" in svg
    # The plain diagram over every record is still there for whoever asks
    plain = workbench.open_review(case / "r").team.prisma(write=False, update=False)
    assert (plain.databases, plain.duplicates_removed, plain.removed_other) == ({"a": 30, "PubMed": 17}, 6, 1)
    assert (plain.records_screened, plain.records_awaiting, plain.studies_included) == (34, 6, 6)
    assert (plain.reports_not_retrieved, plain.previous_studies) == (1, None)
    with pytest.raises(InputError, match="previous studies are counted from the store"):
        workbench.open_review(case / "r").team.prisma(write=False, previous_studies=3)


def test_a_same_paper_verdict_counts_as_a_duplicate_removed(case):
    updated = update(case)
    old, new = updated.ids[:30], [pid for pid in updated.ids if pid in set(updated.update_report.new)]
    updated.updates.settle_duplicates(old[29], new[9], "same", reviewer=ANA)  # both undecided
    counts = workbench.open_review(case / "r").team.prisma(write=False)
    assert (counts.duplicates_removed, counts.records_screened + counts.records_awaiting) == (7, 9)
    plain = workbench.open_review(case / "r").team.prisma(write=False, update=False)
    assert (plain.duplicates_removed, plain.records_screened + plain.records_awaiting) == (7, 39)
    # A rebuild absorbs the merged paper (its id an alias of the kept one): the plain diagram
    # again, still adding up, the person's merge still a duplicate removed
    rebuilt = workbench.build([case / "a.csv", case / "pubmed.csv"], review=case / "r", embedder="fake",
                              seed=42, progress=False)
    assert new[9] not in rebuilt and rebuilt.updates.latest() is None
    after = rebuilt.team.prisma(write=False)
    assert not after.updated and after.identified == 47
    assert after.records_screened + after.records_awaiting == len(rebuilt.ids) == 39


def test_updates_of_one_date_are_one_update_and_a_later_one_replaces_them(case):
    write_csv(case / "embase.csv", [row(i) for i in (38, 40, 41, 42)])  # one already found in PubMed
    update(case)
    second = update(case, "embase.csv", "Embase")
    assert len(second.update_report.new) == 3 and len(second.update_report.duplicates) == 1
    counts = workbench.open_review(case / "r").team.prisma(write=False)
    assert counts.databases == {"Embase": 4, "PubMed": 17} and counts.duplicates_removed == 7
    assert counts.records_awaiting == 13 and counts.previous_studies == 4
    write_csv(case / "later.csv", [row(i) for i in (39, 43, 44)])
    third = update(case, "later.csv", "Scopus", today="2025-09-01")
    assert third.updates.latest().since == "2025-09-01"
    counts = workbench.open_review(case / "r").team.prisma(write=False)
    assert counts.databases == {"Scopus": 3} and counts.duplicates_removed == 1 and counts.records_awaiting == 2


def test_cli_prisma_draws_the_update_and_the_plain_diagram(case, capsys):
    update(case)
    assert main(["prisma", "--review", str(case / "r")]) == 0
    done = capsys.readouterr()
    assert "the updated review's diagram: the update of 2025-03-01" in done.err
    assert "| Included | Studies included in previous version of review | 4 |" in done.out
    assert "| Identification | Records identified from PubMed (database) | 17 |" in done.out
    assert main(["prisma", "--review", str(case / "r"), "--no-update"]) == 0
    done = capsys.readouterr()
    assert "previous version" not in done.out and "| Identification | Records identified | 47 |" in done.out


def test_the_report_shows_the_update_s_diagram(case):
    update(case)
    written = workbench.write_report(workbench.open_review(case / "r"), image=False)
    text = written["markdown"].read_text(encoding="utf-8")
    assert "PRISMA 2020's diagram for updated reviews" in text
    assert "| Included | Studies included in previous version of review | 4 |" in text
    assert "| Identification | Records identified from PubMed (database) | 17 |" in text


def test_an_update_without_a_search_s_provenance_gets_the_plain_diagram_unless_asked(case):
    """A few records added without saying where or when they were searched are no rerun search:
    the report and 04 keep the plain diagram (no "previous version n = 4" for 3 records)."""
    review = workbench.open_review(case / "r")
    updated = workbench.update([case / "pubmed.csv"], review, {str(case / "pubmed.csv"): {"database": "PubMed"}},
                               today="2025-03-01")
    assert len(updated.update_report.new) == 10
    counts = workbench.open_review(case / "r").team.prisma(write=False)
    assert not counts.updated and counts.previous_studies is None
    assert counts.databases == {"a": 30, "PubMed": 17}
    asked = workbench.open_review(case / "r").team.prisma(write=False, update=True)
    assert asked.updated and asked.previous_studies == 4


def test_an_update_of_a_review_that_included_nothing_before_gets_the_plain_diagram(tmp_path, built):
    """No study included before the update: there is no previous version to update."""
    folder = Path(shutil.copytree(built, tmp_path / "none"))
    shutil.rmtree(folder / "r")
    workbench.build([folder / "a.csv"], review=folder / "r", embedder="fake", seed=42, progress=False)
    update(folder)
    counts = workbench.open_review(folder / "r").team.prisma(write=False)
    assert not counts.updated and counts.previous_studies is None
    assert workbench.open_review(folder / "r").team.prisma(write=False, update=True).previous_studies == 0

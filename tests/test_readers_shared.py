"""The readers on real exports from other projects (../shared/data/fixtures), when present.

The expected numbers are docs/readers.md's recovery table: each file's records counted without
the readers (tools/count_fixture_records.py: RIS ``TY`` lines, BibTeX ``@type{`` lines, CSV rows
of the ``csv`` module, ...), and what the reader does with them (read, skipped, merged, papers),
every difference from the count explained in the table's notes. This test keeps the table true.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from workbench.errors import NoRecordsError
from workbench.readers import read_file_report, read_sources

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / ".." / "shared" / "data" / "fixtures"

pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/fixtures is not here")


def recovery_table() -> list[dict]:
    """The rows of docs/readers.md's recovery table."""
    rows = []
    for line in (ROOT / "docs" / "readers.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and "/" in cells[0] and cells[1].isdigit():
            rows.append(dict(zip(["file", "records", "with_text", "distinct", "format", "read", "skipped", "merged",
                                  "papers"], [cells[0], *map(int, cells[1:4]), cells[4], *map(int, cells[5:9])])))
    return rows


TABLE = recovery_table()


def test_the_table_covers_every_export():
    exports = {str(p.relative_to(SHARED)) for p in SHARED.rglob("*") if p.is_file()
               and p.name not in ("LICENSE", "COPYING", "empty.bib")}
    assert {row["file"] for row in TABLE} == exports


@pytest.mark.parametrize("row", TABLE, ids=[r["file"] for r in TABLE])
def test_record_counts_match_the_recovery_table(row):
    path = SHARED / row["file"]
    try:
        papers, report = read_sources([path])
    except NoRecordsError as err:
        papers, report = [], err.report
    (file,) = report.files
    assert (file.format, file.read, len(file.skipped), file.merged, len(papers)) == (
        row["format"], row["read"], row["skipped"], row["merged"], row["papers"])
    assert file.read + len(file.skipped) == row["records"], "every record counted is read or skipped"
    assert all(p.title and p.source.startswith(str(path) + ":") for p in papers)
    if not papers:
        assert any("no records" in w or "no BibTeX entries" in w for w in file.warnings), "a file with no record says so"


def test_asreview_labels_in_ris_notes():
    papers, _ = read_file_report(SHARED / "asreview_demo/baseline_tag-notes_labels.ris")
    # 10 records carry ASReview_relevant somewhere in an N1 note, 10 ASReview_irrelevant (grep -c)
    assert Counter(p.label for p in papers) == Counter({None: 12, "include": 10, "exclude": 10})


@pytest.mark.parametrize("name, labels", [
    ("asreview_demo/demo_data.json", {"include": 10, "exclude": 90}),
    ("asreview_demo/generic_labels.csv", {"include": 3, "exclude": 3}),
    ("asreview_demo/generic_partial_labels.csv", {"include": 2, "exclude": 2, None: 2}),
])
def test_label_included_columns(name, labels):
    papers, _ = read_file_report(SHARED / name)
    assert Counter(p.label for p in papers) == Counter(labels)


def test_faulty_year_is_a_warning_not_a_lost_record():
    papers, report = read_file_report(SHARED / "asreview_demo/faulty_year.ris")
    assert [p.year for p in papers] == [None]
    assert report.warnings == [f"{SHARED / 'asreview_demo/faulty_year.ris'}:1: year '10 15' is not a year; left empty"]


def test_ris_keywords_that_continue_over_untagged_lines():
    papers, _ = read_file_report(SHARED / "asreview_demo/ris_issue_992.txt")
    assert papers[0].keywords[:4] == ("Health Facility Administration", "Joint Commission", "Standards", "Medication Errors")
    assert "Professional Practice, Evidence-Based" in papers[1].keywords


def test_crossref_and_strings_in_biblatex_examples():
    papers, _ = read_file_report(SHARED / "bibtexparser_fixtures/crossref_entries.bib")
    chapter = {p.title: p for p in papers}["Great and Good Graphs"]
    assert (chapter.venue, chapter.year, chapter.authors) == ("Graphs of the Continent", 1974, ("Graham Gullam",))
    papers, _ = read_file_report(SHARED / "bibtexparser_fixtures/features2.bib")
    assert [(p.title, p.authors, p.venue) for p in papers] == [("Cool Stuff", ("John Doe",), "My International Conference")]


def test_gbk_file_reads_with_a_warning():
    # 104 bytes are too few for a sure guess (charset-normalizer picks EUC-KR); the warning says so.
    papers, report = read_file_report(SHARED / "bibtexparser_fixtures/gbk_test.bib")
    assert [p.title for p in papers] == ["Test Title"]
    assert report.warnings and "not UTF-8" in report.warnings[0]


def test_all_asreview_exports_together():
    papers, report = read_sources([SHARED / "asreview_demo"])
    assert report.read == 373 and report.skipped == 65
    assert [f.path.rsplit("/", 1)[1] for f in report.files if f.error] == ["LICENSE"]
    assert len(papers) == report.read - report.merged
    assert len({p.id for p in papers}) == len(papers)

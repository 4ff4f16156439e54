"""The readers on real exports from other projects (../shared/data/fixtures), when present.

Expected counts were verified by hand, independently of the readers: RIS records counted as
``TY`` ... ``ER`` blocks with ``grep``, CSV rows with the ``csv`` module, BibTeX entries as
``@type{`` lines that are not ``@string``/``@comment``/``@preamble``; "skipped" records are the
ones with neither a title nor an abstract (e.g. 61 of 61 in baseline_reference_types.ris, 21 of
118 entries in biber-examples.bib: ``@set`` entries and biber's title-less test cases).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from workbench.readers import read_file_report, read_sources

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "fixtures"

pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data/fixtures is not here")

# (file, reader, records read, records skipped)
COUNTS = [
    ("asreview_demo/baseline_empty_values.ris", "ris", 4, 0),
    ("asreview_demo/baseline_reference_types.ris", "ris", 0, 61),
    ("asreview_demo/baseline_tag-notes_labels.ris", "ris", 32, 0),
    ("asreview_demo/baseline_zotero.ris", "ris", 100, 0),
    ("asreview_demo/demo_data.json", "json", 100, 0),
    ("asreview_demo/duplicate_records.csv", "csv", 10, 4),
    ("asreview_demo/embase.csv", "csv", 6, 0),
    ("asreview_demo/embase.ris", "ris", 6, 0),
    ("asreview_demo/embase_newpage.csv", "csv", 6, 0),
    ("asreview_demo/faulty_year.ris", "ris", 1, 0),
    ("asreview_demo/generic_labels.csv", "csv", 6, 0),
    ("asreview_demo/generic_labels_no_abs.csv", "csv", 6, 0),
    ("asreview_demo/generic_partial_labels.csv", "csv", 6, 0),
    ("asreview_demo/generic_semicolon.csv", "csv", 2, 0),
    ("asreview_demo/generic_tab.tsv", "csv", 2, 0),
    ("asreview_demo/missing_values.csv", "csv", 4, 0),
    ("asreview_demo/ovid_psycinfo.ris", "ris", 6, 0),
    ("asreview_demo/ovid_zotero.ris", "ris", 6, 0),
    ("asreview_demo/proquest.ris", "ris", 6, 0),
    ("asreview_demo/pubmed.xml", "pubmed-xml", 10, 0),
    ("asreview_demo/pubmed_endnote.txt", "ris", 6, 0),
    ("asreview_demo/pubmed_zotero.ris", "ris", 6, 0),
    ("asreview_demo/ris_issue_1099.txt", "ris", 7, 0),
    ("asreview_demo/ris_issue_992.txt", "ris", 19, 0),
    ("asreview_demo/scopus.ris", "ris", 6, 0),
    ("asreview_demo/web_of_science.txt", "ris", 10, 0),
    ("rispy_fixtures/example_basic.ris", "ris", 1, 0),
    ("rispy_fixtures/example_bom.ris", "ris", 0, 1),
    ("rispy_fixtures/example_custom_list_tags.ris", "ris", 0, 1),
    ("rispy_fixtures/example_empty_tag.ris", "ris", 1, 0),
    ("rispy_fixtures/example_extraneous_data.ris", "ris", 2, 0),
    ("rispy_fixtures/example_full.ris", "ris", 2, 0),
    ("rispy_fixtures/example_full_without_whitespace.ris", "ris", 2, 0),
    ("rispy_fixtures/example_full_write.ris", "ris", 2, 0),
    ("rispy_fixtures/example_multi_unknown_tags.ris", "ris", 1, 0),
    ("rispy_fixtures/example_multiline.ris", "ris", 3, 0),
    ("rispy_fixtures/example_single_unknown_tag.ris", "ris", 1, 0),
    ("rispy_fixtures/example_starting_newlines.ris", "ris", 1, 0),
    ("rispy_fixtures/example_urls.ris", "ris", 4, 0),
    ("rispy_fixtures/example_utf_chars.ris", "ris", 1, 0),
    ("rispy_fixtures/example_wos.ris", "wos", 2, 0),
    ("bibtexparser_fixtures/article_comma_first.bib", "bibtex", 2, 0),
    ("bibtexparser_fixtures/article_missing_coma.bib", "bibtex", 4, 0),
    ("bibtexparser_fixtures/article_no_braces.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/article_with_protection_braces.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/article_with_special_characters.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/article_with_strings.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/biber-examples.bib", "bibtex", 97, 21),
    ("bibtexparser_fixtures/book_bom.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/book_capital_AND.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/comments_percentage_nolastcoma.bib", "bibtex", 2, 0),
    ("bibtexparser_fixtures/comments_spaces_and_declarations.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/crossref_cascading_cycle.bib", "bibtex", 0, 2),
    ("bibtexparser_fixtures/crossref_entries.bib", "bibtex", 14, 0),
    ("bibtexparser_fixtures/encoding.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/examples_bibtex.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/features2.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/gbk_test.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/multiline_comments.bib", "bibtex", 0, 0),
    ("bibtexparser_fixtures/string.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/traps.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/website.bib", "bibtex", 1, 0),
    ("bibtexparser_fixtures/wrong.bib", "bibtex", 0, 2),
]


@pytest.mark.parametrize("name, format, n_read, n_skipped", COUNTS, ids=[c[0] for c in COUNTS])
def test_record_counts(name, format, n_read, n_skipped):
    papers, report = read_file_report(SHARED / name)
    assert (report.format, report.read, len(report.skipped)) == (format, n_read, n_skipped)
    assert len(papers) == n_read
    assert all(p.title and p.source.startswith(str(SHARED / name) + ":") for p in papers)


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

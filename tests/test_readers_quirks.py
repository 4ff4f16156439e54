"""Encodings, line ends, choosing a reader, errors, folders and the report."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from workbench.errors import NoRecordsError, ReaderError
from workbench.readers import read_file, read_file_report, read_sources
from workbench.readers.fields import clean
from workbench.corpus.clean import clean_text

DATA = Path(__file__).resolve().parent / "data" / "readers"
ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- encodings, line ends


def test_cp1252_file_is_detected_and_warned_about():
    papers, report = read_file_report(DATA / "latin1.ris")
    assert report.encoding == "cp1252"
    assert [(p.title, p.authors) for p in papers] == [
        ("Über die Möglichkeit präziser Messungen in der Gödel-Ära", ("Müller, Jürgen", "Dvorak, Antonín")),
        ("Zweite Arbeit über Größen und Maße", ("Weiß, Günther",)),
    ]
    assert "« naïve » et élégante" in papers[0].abstract
    assert report.warnings == [
        f"{DATA / 'latin1.ris'}: not UTF-8 (first non-UTF-8 byte on line 2); decoded as cp1252, the most likely "
        "encoding: check accented and non-Latin letters, or save the file as UTF-8"
    ]


def test_gbk_file_is_detected():
    papers, report = read_file_report(DATA / "gbk.bib")
    assert report.encoding == "gb18030"
    assert [(p.title, p.authors, p.venue) for p in papers] == [
        ("基于深度学习的自然语言处理研究综述", ("张伟", "李娜"), "计算机学报"),
    ]
    assert len(report.warnings) == 1 and "decoded as gb18030" in report.warnings[0]


@pytest.mark.parametrize(
    "name, encoding, title",
    [
        ("bom.csv", "utf-8", "Starts with a BOM"),
        ("utf16_nobom.csv", "utf-16-le", "No byte order mark"),
        ("wos_tab_utf16.txt", "utf-16", "Tab-delimited Web of Science export"),
    ],
)
def test_unicode_with_and_without_byte_order_marks(name, encoding, title):
    papers, report = read_file_report(DATA / name)
    assert (report.encoding, report.warnings, [p.title for p in papers]) == (encoding, [], [title])


def test_utf8_with_a_few_windows_1252_bytes_keeps_its_utf8_letters(tmp_path):
    """A record pasted in from a Windows-1252 text: one encoding guessed for the whole file
    garbled every other letter (here: the file was called binary data)."""
    records = "".join(f"TY  - JOUR\nTI  - Über die Größe {i}\nAU  - Müller, Jürgen\nAB  - Résumé {i} — “quoted”\n"
                      "ER  - \n\n" for i in range(20))
    raw = records.encode("utf-8").replace("Résumé 7".encode("utf-8"), b"R\xe9sum\xe9 7")
    ris = tmp_path / "mixed.ris"
    ris.write_bytes(raw)
    papers, report = read_file_report(ris)
    assert [p.abstract for p in papers] == [f"Résumé {i} — “quoted”" for i in range(20)]
    assert {(p.title[:14], p.authors) for p in papers} == {("Über die Größe", ("Müller, Jürgen",))}
    assert report.encoding == "utf-8" and report.warnings == [
        f"{ris}: UTF-8 but for 2 bytes (the first on line 46), read as Windows-1252 (\\xe9 as é): check the "
        "letters there, or save the file as UTF-8"]


def test_mixed_cr_lf_crlf_line_ends_count_lines_like_an_editor():
    papers = read_file(DATA / "mixed_eol.ris")
    assert [(p.title, p.year, p.abstract, p.source.rsplit(":", 1)[1]) for p in papers] == [
        ("Mixed line ends", 2010, "CR, LF and CRLF in one file.", "1"),
        ("Second record on line seven", 2011, "", "7"),
    ]


def test_json_escapes_of_what_no_text_holds_are_mended_with_a_warning(tmp_path):
    """``\u0000`` and half a surrogate pair decode to characters that cannot be written as UTF-8
    (the store, a CSV, the terminal): removed and replaced, as decoding a file's bytes does."""
    refs = tmp_path / "refs.json"
    refs.write_text('[{"title": "Half \\ud800 a pair", "abstract": "A NUL\\u0000 here."},\n'
                    ' {"title": "A whole pair \\ud83d\\ude00 kept", "abstract": "Fine."}]', encoding="utf-8")
    papers, report = read_file_report(refs)
    assert [(p.title, p.abstract) for p in papers] == [("Half \ufffd a pair", "A NUL here."),
                                                       ("A whole pair \U0001f600 kept", "Fine.")]
    assert all(p.title.encode("utf-8") and p.abstract.encode("utf-8") for p in papers)
    assert report.warnings == [f"{refs}:1: a value holds \\u0000 or half of a surrogate pair (such as \\ud800 alone), "
                               "characters no text can hold: the NULs are removed, the halves read as U+FFFD "
                               "(\ufffd); check the export"]


def test_a_json_integer_longer_than_python_converts_is_a_warning_on_its_line(tmp_path):
    lines = tmp_path / "refs.jsonl"
    lines.write_text('{"title": "First", "abstract": "One."}\n'
                     '{"title": "Second", "abstract": "Two.", "year": %s}\n' % ("9" * 5000), encoding="utf-8")
    papers, report = read_file_report(lines)
    assert [(p.title, p.year) for p in papers] == [("First", None), ("Second", None)]
    assert report.warnings == [f"{lines}:2: year {'9' * 60!r} is not a year; left empty"]


def test_records_of_a_minified_json_file_are_named_by_their_place_not_all_by_line_1(tmp_path):
    """API pages come on one line: each record, warning and merge names the record's place."""
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"meta": {"count": 3}, "results": [
        {"id": "https://openalex.org/W1", "title": "First", "publication_year": 2020},
        {"id": "https://openalex.org/W2", "title": "Second", "publication_year": "someday"},
        {"id": "https://openalex.org/W3", "title": "Third", "publication_year": 2021}]}), encoding="utf-8")
    array = tmp_path / "array.json"
    array.write_text(json.dumps([{"title": "One", "abstract": "A."}, {"title": "Two", "abstract": "B.", "doi": "x"}]),
                     encoding="utf-8")
    papers, report = read_sources([page, array])
    assert sorted(p.source for p in papers) == [f"{array}:[0]", f"{array}:[1]", f"{page}:results[0]",
                                                f"{page}:results[1]", f"{page}:results[2]"]
    assert {p.source.rpartition(":")[0] for p in papers} == {str(page), str(array)}  # (a source's file)
    assert sorted(w for f in report.files for w in f.warnings) == [f"{array}:[1]: DOI 'x' is not a DOI (expected 10.<digits>/...); left empty",
                                       f"{page}:results[1]: year 'someday' is not a year; left empty"]
    pretty = tmp_path / "pretty.json"  # one record a line: lines, as before
    pretty.write_text('[{"title": "One", "abstract": "A."},\n {"title": "Two", "abstract": "B."}]', encoding="utf-8")
    assert [p.source for p in read_file(pretty)] == [f"{pretty}:1", f"{pretty}:2"]


# ----------------------------------------------------------------------------- choosing a reader


@pytest.mark.parametrize(
    "name, format",
    [
        ("export_as.txt", "ris"),
        ("pubmed_medline.txt", "medline"),
        ("savedrecs.txt", "wos"),
        ("wos_tab_utf16.txt", "csv"),
        ("seeds_dump.txt", "seeds"),
        ("openalex.jsonl", "json"),
        ("arxiv_metadata.jsonl", "json"),
        ("arxiv.atom", "arxiv-atom"),
        ("pubmed.xml", "pubmed-xml"),
        ("sheet.xlsx", "xlsx"),
    ],
)
def test_reader_chosen_by_content_and_suffix(name, format):
    assert read_file_report(DATA / name)[1].format == format


def test_content_wins_over_a_misleading_suffix(tmp_path):
    renamed = tmp_path / "actually_ris.csv"
    shutil.copy(DATA / "export.ris", renamed)
    papers, report = read_file_report(renamed)
    assert report.format == "ris" and len(papers) == 4


def test_unknown_suffix_read_by_content_or_by_format_override(tmp_path):
    tagged = tmp_path / "records.dat"
    shutil.copy(DATA / "pubmed.nbib", tagged)
    assert read_file_report(tagged)[1].format == "medline"
    prose = tmp_path / "dump.dat"  # a seed dump is plain prose: only trusted with .txt or when named
    shutil.copy(DATA / "seeds_dump.txt", prose)
    with pytest.raises(ReaderError, match="no reader for 'dump.dat'"):
        read_file(prose)
    assert [p.collection for p in read_file(prose, format="seeds")] == ["Daily Papers", "Daily Papers"]
    assert [p.pmid for p in read_file(tagged, format="nbib")] == ["31690499", "25371100"]
    with pytest.raises(ReaderError, match="unknown input format 'endnote-x9'; known formats: xlsx, pubmed-xml"):
        read_file(tagged, format="endnote-x9")


# ----------------------------------------------------------------------------- errors


def test_empty_and_blank_files_say_they_are_empty():
    for name in ("empty.csv", "blank.ris"):
        with pytest.raises(ReaderError) as err:
            read_file(DATA / name)
        assert str(err.value).startswith(f"{DATA / name}: the file is empty; expected records as one of .atom .bib")


def test_unknown_extension_lists_supported_formats():
    with pytest.raises(ReaderError) as err:
        read_file(DATA / "notes.xyz")
    assert str(err.value) == (
        f"{DATA / 'notes.xyz'}: no reader for 'notes.xyz'; supported: .atom .bib .biblatex .bibtex .ciw .csv "
        ".json .jsonl .medline .nbib .ndjson .ris .tab .tsv .txt .xlsm .xlsx .xml (or name the format: xlsx, "
        "pubmed-xml, arxiv-atom, json, bibtex, medline, wos, ris, csv, seeds), and .zip, .gz or .tar.gz archives of them"
    )
    assert err.value.path == str(DATA / "notes.xyz") and err.value.line is None


@pytest.mark.parametrize(
    "name, line, message",
    [
        ("invalid.json", 1, "not valid JSON (Expecting value, column 28); expected a JSON document, or JSON Lines "
                            "with one record per line"),
        ("no_title_column.csv", 1, "no title or abstract column among name, summary_text, when; name one 'title' or "
                                   "'abstract' (other accepted names: 'Document Title', 'Article Title', 'TI', 'AB', "
                                   "'summary', ...)"),
        ("arxiv_error.atom", 5, "the arXiv API answered with an error: incorrect id format for 1234.12345; fix the "
                                "query and download the feed again"),
    ],
)
def test_one_clear_error_with_file_line_and_what_was_expected(name, line, message):
    with pytest.raises(ReaderError) as err:
        read_file(DATA / name)
    assert (err.value.path, err.value.line) == (str(DATA / name), line)
    assert str(err.value) == f"{DATA / name}:{line}: {message}"


def test_a_quote_that_never_closes_is_reported_with_the_lines_it_swallowed():
    papers, report = read_file_report(DATA / "broken_quote.csv")
    assert [p.title for p in papers] == ["Fine row"]
    assert report.skipped == [
        f"{DATA / 'broken_quote.csv'}:3: a quote that opens in this row never closes, so lines 3-4 could not be "
        "split into rows; close the quote (or remove it) and read again"
    ]


def test_broken_xml_with_nothing_readable_is_one_error(tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<PubmedArticleSet>\n<PubmedArticle><MedlineCitation></PubmedArticle>\n")
    with pytest.raises(ReaderError) as err:
        read_file(bad)
    assert str(err.value).startswith(f"{bad}:2: not well-formed XML (mismatched tag, column")


def test_a_zip_that_is_not_a_workbook(tmp_path):
    fake = tmp_path / "sheet.xlsx"
    fake.write_text("just some words\n")
    with pytest.raises(ReaderError, match="not a valid xlsx file"):
        read_file(fake)


def test_missing_source():
    with pytest.raises(ReaderError, match="no such file or folder"):
        read_sources([DATA / "does-not-exist.ris"])


# ----------------------------------------------------------------------------- folders and the report


def test_folder_reads_what_it_can_and_reports_the_rest(tmp_path):
    for name in ("export.ris", "labels.csv", "empty.csv", "notes.xyz"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / ".hidden.ris").write_text("TY  - JOUR\nTI  - hidden\nER  - \n")
    papers, report = read_sources([tmp_path])
    assert len(papers) == 10
    assert [(f.path.replace(f"{tmp_path}/", ""), f.format, f.read) for f in report.files] == [
        (".hidden.ris", "-", 0), ("empty.csv", "-", 0), ("export.ris", "ris", 4), ("labels.csv", "csv", 6),
        ("notes.xyz", "-", 0),
    ]
    lines = [line.replace(f"{tmp_path}/", "") for line in report.lines()]
    assert lines[0] == ".hidden.ris: not read: hidden (its name starts with '.'); rename it to read it"
    assert lines[1].startswith("empty.csv: not read: the file is empty; expected records as one of")
    assert lines[2:4] == [
        "export.ris (ris): 4 read, 0 skipped, 0 merged",
        "  warning: export.ris:21: year '10 15' is not a year; left empty",
    ]
    assert lines[-1] == "total: 10 read from 2 files, 0 skipped, 0 merged as duplicates, 10 papers; 3 files not read (see above)"


def test_review_folders_inside_a_source_are_skipped_and_reported(tmp_path):
    shutil.copy(DATA / "export.ris", tmp_path / "export.ris")
    review = tmp_path / "review"  # the review being built: its papers.jsonl and exports
    (review / "report").mkdir(parents=True)
    shutil.copy(DATA / "openalex.jsonl", review / "papers.jsonl")
    shutil.copy(DATA / "export.ris", review / "report" / "annotations.ris")
    old = tmp_path / "nested" / "old_review"  # another review, known by its build.json
    old.mkdir(parents=True)
    (old / "build.json").write_text("{}")
    shutil.copy(DATA / "labels.csv", old / "papers.csv")
    store_only = tmp_path / "store_only"  # or by its annotation store
    store_only.mkdir()
    (store_only / "annotations.sqlite").write_bytes(b"SQLite format 3\x00")
    shutil.copy(DATA / "labels.csv", store_only / "more.csv")
    papers, report = read_sources([tmp_path], exclude=[review])
    assert [f.path for f in report.files] == [str(tmp_path / "export.ris")]
    assert len(papers) == 4
    lines = [line.replace(f"{tmp_path}/", "") for line in report.lines()]
    assert lines[:3] == [  # in reading order: folders depth first, sorted
        "nested/old_review/: not read: it looks like a review folder (it has build.json); name its files to read them anyway",
        "review/: not read: it is the review being built (its papers.jsonl and exports are not sources)",
        "store_only/: not read: it looks like a review folder (it has annotations.sqlite); name its files to read them anyway",
    ]
    # The same review through another spelling or a symlink is still the review.
    (tmp_path / "link").symlink_to(review, target_is_directory=True)
    _, report = read_sources([tmp_path], exclude=[tmp_path / "link" / "."])
    assert [line.split(": ")[0].replace(f"{tmp_path}/", "") for line in report.skipped_folders
            if "being built" in line] == ["link/", "review/"]
    # Its files can still be read when named.
    assert len(read_sources([review / "report" / "annotations.ris"])[0]) == 4


def test_a_source_folder_that_is_a_review_is_an_error_that_says_why(tmp_path):
    review = tmp_path / "review"
    review.mkdir()
    (review / "build.json").write_text("{}")
    with pytest.raises(ReaderError, match="review: not read: it looks like a review folder"):
        read_sources([review])
    (tmp_path / "new").mkdir()
    with pytest.raises(ReaderError, match="it is the review being built"):
        read_sources([tmp_path / "new"], exclude=[tmp_path / "new"])
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "review").mkdir()
    (tmp_path / "only" / "review" / "annotations.sqlite").write_bytes(b"")
    with pytest.raises(ReaderError, match="the folder has no files besides review folders, which are not read"):
        read_sources([tmp_path / "only"])


def test_named_file_that_cannot_be_read_is_an_error(tmp_path):
    with pytest.raises(ReaderError, match="the file is empty"):
        read_sources([DATA / "labels.csv", DATA / "empty.csv"])


def test_report_lines_are_capped():
    _, report = read_sources([DATA / "export.ris"])
    assert len(report.files[0].warnings) == 4
    capped = report.lines(limit=1)
    assert capped[1].startswith("  warning: ") and capped[2] == "  ... and 3 more warning lines"
    assert len(report.lines(limit=None)) == 5


def test_seed_folder_reads_as_before():
    seeds = ROOT / "seeds"
    if not seeds.is_dir():
        pytest.skip("no seeds/ folder")
    papers, report = read_sources([seeds])
    assert len(papers) == 133
    assert sum(p.collection == "Senjie Jin" and bool(p.authors) for p in papers) == 13
    assert sum(p.collection == "Daily Papers" for p in papers) == 120
    assert [p.sources for p in papers[:1]] == [(papers[0].source,)]
    assert report.merged == 0


# ----------------------------------------------------------------------------- clean-up


@pytest.mark.parametrize(
    "text",
    [
        "75% of 120 patients", "R&D rose 5%", "5%--10% of cases", "a ``quoted'' 3% rise", "50%~60%",
        "plain text", "x^2 and 40%", "$\\alpha$ = 5%", "\u00a0nbsp 5%\u00a0", "¿Qué? 5%", "Tab\t5%\nnew line",
    ],
)
def test_fast_clean_equals_clean_text(text):
    assert clean(text) == clean_text(text)


# ----------------------------------------------------------------------------- never a traceback


FIXTURES = sorted(p.name for p in DATA.iterdir() if p.is_file() and p.suffix != ".py")


@pytest.mark.parametrize("name", FIXTURES)
def test_cut_or_damaged_files_give_records_or_one_reader_error(name, tmp_path):
    """Every fixture cut at several points, and with a byte flipped: records and warnings, or
    a ReaderError; never another exception."""
    raw = (DATA / name).read_bytes()
    variants = [raw[: len(raw) * k // 7] for k in range(1, 7)]
    variants += [raw[: len(raw) // 2] + b"\xff\x00{[\"<" + raw[len(raw) // 2 + 6:]]
    for i, data in enumerate(variants):
        path = tmp_path / f"v{i}{Path(name).suffix}"
        path.write_bytes(data)
        try:
            papers, report = read_file_report(path)
        except ReaderError as err:
            assert err.path == str(path)
            continue
        assert report.read == len(papers)


def test_a_file_with_no_records_says_so(tmp_path):
    ris = tmp_path / "nothing.ris"
    ris.write_text("Provider: Example\nNo records matched the search.\n")
    papers, report = read_file_report(ris)
    assert papers == [] and report.warnings == [
        f"{ris}: no records found: this does not look like RIS: Zotero, EndNote, Scopus, Embase, Ovid, ProQuest, "
        "IEEE, Web of Science (chosen for its '.ris' name) but like plain text; check it is the export you meant, or "
        "name its format"
    ]
    ris.write_text("TY  - JOUR\nAU  - Doe, J.\nER  - \n")
    papers, report = read_file_report(ris)
    assert papers == [] and [w.replace(f"{ris}", "f") for w in report.warnings] == [
        "f: no records read: all 1 were skipped (see the skipped lines)"
    ]


@pytest.mark.slow
def test_fast_clean_and_normalise_for_id_match_the_reference_on_the_corpora():
    """The reading shortcuts give exactly what records.clean_text gives, and the legacy id
    normalisation (kept for the aliases of old ids) what the original gave, on every text of
    the shared corpora (about 20 s: pylatexenc)."""
    import re
    import unicodedata

    import pandas as pd

    from workbench.corpus.ids import legacy_normalise_for_id

    corpora = ROOT / ".." / "shared" / "data" / "corpora"
    files = sorted(corpora.glob("*/*.csv"))
    if not files:
        pytest.skip("../shared/data/corpora is not here")

    def reference_normalise(text):
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
        return " ".join(re.findall(r"[a-z0-9]+", text.lower()))

    texts = [t for f in files for col in pd.read_csv(f, dtype=str, keep_default_na=False).items() for t in col[1]]
    shortcut = re.compile(r"[%~]")
    assert [clean(t) for t in texts if shortcut.search(t)] == [clean_text(t) for t in texts if shortcut.search(t)]
    assert [legacy_normalise_for_id(t) for t in texts] == [reference_normalise(t) for t in texts]


def test_old_excel_files_get_a_hint(tmp_path):
    xls = tmp_path / "export.xls"
    xls.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64)
    with pytest.raises(ReaderError, match="'export.xls' is an old Excel .xls workbook; save it as .xlsx or CSV"):
        read_file(xls)


def test_ris_tag_layouts_zotero_reads_are_read_with_a_warning(tmp_path):
    """'TY - JOUR' (one space before the hyphen, as some tools write) and 'TI  -Title' (none
    after it: rispy would cut the title's first letter), in .ris and in .txt files."""
    for name in ("one_space.ris", "one_space.txt"):
        ris = tmp_path / name
        ris.write_text("Provider: X\nTY - JOUR\nTI - One space only\nAB -  An abstract.\nER - \n\n"
                       "TY - JOUR\nTI - Second record\nER -\n")
        papers, report = read_file_report(ris)
        assert report.format == "ris"
        assert [(p.title, p.abstract, p.source) for p in papers] == [
            ("One space only", "An abstract.", f"{ris}:2"), ("Second record", "", f"{ris}:7")]
        assert report.warnings == [f"{ris}:2: 7 tag lines laid out as 'TY - JOUR' (RIS has two spaces before the "
                                   "hyphen: 'TY  - JOUR'), from this line; read as RIS"]
    ris = tmp_path / "no_space.ris"
    ris.write_text("TY  - JOUR\nTI  -No space after the hyphen\nER  -\n")
    papers, report = read_file_report(ris)
    assert [p.title for p in papers] == ["No space after the hyphen"]
    assert report.warnings == [f"{ris}:2: 1 tag lines with no space after the hyphen ('TI  -Title'), from this "
                               "line; read with one"]


def test_ris_with_a_layout_nobody_reads_says_what_ris_looks_like(tmp_path):
    ris = tmp_path / "no_spaces.ris"
    ris.write_text("Provider: X\nTY-JOUR\nTI-No spaces at all\nER-\n")
    papers, report = read_file_report(ris)
    assert papers == [] and report.warnings == [
        f"{ris}:2: RIS tags are two characters, two spaces and a hyphen ('TY  - JOUR'); this file lays them out "
        "differently, so no record was found: export it again as RIS"
    ]


# ----------------------------------------------------------------------------- nothing silent


def test_unreadable_folders_and_broken_links_are_listed_in_the_report(tmp_path, monkeypatch):
    import os

    shutil.copy(DATA / "export.ris", tmp_path / "export.ris")
    (tmp_path / "locked").mkdir()
    shutil.copy(DATA / "labels.csv", tmp_path / "locked" / "labels.csv")
    (tmp_path / "gone.bib").symlink_to(tmp_path / "moved-away.bib")
    real_scandir = os.scandir

    def scandir(path):  # as a folder without read permission answers (root reads everything)
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    papers, report = read_sources([tmp_path])
    assert len(papers) == 4
    lines = [line.replace(f"{tmp_path}/", "") for line in report.lines() if not line.startswith("  ")]
    assert lines == [
        "export.ris (ris): 4 read, 0 skipped, 0 merged",
        "gone.bib: not read: a broken link (to 'moved-away.bib'); fix or remove it",
        "locked: not read: cannot open the folder (Permission denied); check its permissions, or read its files "
        "one by one",
        "total: 4 read from 1 file, 0 skipped, 0 merged as duplicates, 4 papers; 2 files not read (see above)",
    ]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads every folder")
def test_a_folder_without_read_permission_is_listed(tmp_path):
    shutil.copy(DATA / "export.ris", tmp_path / "export.ris")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        _, report = read_sources([tmp_path])
    finally:
        locked.chmod(0o755)
    assert [f.path for f in report.files if f.error] == [str(locked)]


def test_no_records_in_any_file_is_an_error_carrying_the_report(tmp_path):
    garbage = tmp_path / "garbage.ris"
    garbage.write_text("Search results\nNothing that looks like RIS here at all.\n", encoding="utf-8")
    with pytest.raises(NoRecordsError) as err:
        read_sources([garbage])
    assert str(err.value).startswith(f"no records in 1 file ({garbage} (ris): 0 read, no records found: this does "
                                     "not look like RIS")
    assert err.value.report.files[0].read == 0
    binary = tmp_path / "renamed.ris"
    binary.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(ReaderError, match="this is binary data, not a text export"):
        read_sources([binary])
    with pytest.raises(NoRecordsError, match=r"no records in 2 files \(.*renamed\.ris: not read: this is binary"):
        read_sources([tmp_path])


@pytest.mark.parametrize("doc, kind", [("42", "a single number"), ("null", "nothing (null)"),
                                       ('"a title"', "a single string"), ("true", "a single true or false")])
def test_a_json_file_holding_one_value_says_so(tmp_path, doc, kind):
    path = tmp_path / "page.json"
    path.write_text(doc + "\n", encoding="utf-8")
    papers, report = read_file_report(path)
    assert papers == [] and any(f"the JSON holds {kind}, no records" in w for w in report.warnings), report.warnings

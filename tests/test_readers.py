"""Each input format, read from the project's own small fixtures, record by record."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.readers import read_file, read_file_report
from workbench.corpus.ids import id_aliases, paper_id
from workbench.corpus.titles import title_repeats_abstract
from workbench.corpus.paper import source_file

DATA = Path(__file__).resolve().parent / "data" / "readers"


def expected(name: str, line, title: str, **fields) -> dict:
    """The full ``Paper.to_dict()`` of a record of ``tests/data/readers/<name>``."""
    rec = {
        "title": title, "abstract": "", "authors": [], "et_al": False, "year": None,
        "collection": Path(name).stem, "doi": None, "arxiv_id": None, "pmid": None, "venue": None,
        "url": None, "keywords": [], "label": None, "external_ids": [], "references": [], "cited_by": [],
    }
    rec.update(fields)
    rec.setdefault("text", rec["abstract"])
    rec.setdefault("title_derived", bool(rec["text"]) and title_repeats_abstract(title, rec["text"]))
    rec["source"] = f"{DATA / name}:{line}"
    rec["sources"] = [rec["source"]]
    author = rec["authors"][0] if rec["authors"] else ""
    rec["id"] = paper_id(doi=rec["doi"], arxiv_id=rec["arxiv_id"], pmid=rec["pmid"], text=rec["text"],
                         title=title, year=rec["year"], author=author)
    rec["aliases"] = list(id_aliases(rec["id"], text=rec["text"], title=title, year=rec["year"], author=author))
    return rec


def read(name: str, **kw):
    papers, report = read_file_report(DATA / name, **kw)
    return [p.to_dict() for p in papers], report


def warnings_of(report) -> list[str]:
    return [w.replace(f"{DATA}/", "") for w in report.warnings]


def skipped_of(report) -> list[str]:
    return [s.replace(f"{DATA}/", "") for s in report.skipped]


# ----------------------------------------------------------------------------- BibTeX


def test_bibtex_strings_crossref_parentheses_latex_and_duplicate_keys():
    papers, report = read("library.bib")
    assert report.format == "bibtex"
    assert papers == [
        expected(
            "library.bib", 5, "Reward Models for Agents",
            abstract="We show that R$^3$ improves accuracy by 75\\% on G\\\"odel's benchmark.",
            text="We show that R³ improves accuracy by 75% on Gödel's benchmark.",
            authors=["Lovelace, Ada", "Gödel, Kurt"], et_al=True, year=2020,
            doi="10.1000/jmlr.2020.001", venue="Journal of Machine Learning Research",
            keywords=["reward models", "agents", "evaluation"],
        ),
        expected("library.bib", 15, "Parenthesis entries still parse", authors=["Turing, Alan"], year=2021,
                 arxiv_id="2101.00001", venue="Ada's Workshop"),
        # crossref: the chapter takes its book's year, and the book's title as its venue
        expected("library.bib", 24, "Compilers in context", authors=["Hopper, Grace"], year=2019,
                 venue="The Collected Volume"),
        expected("library.bib", 31, "The Collected Volume", year=2019),
        expected("library.bib", 43, "A second entry that reuses a key", year=2022),
    ]
    assert skipped_of(report) == ["library.bib:38: no title or abstract; nothing to read or map"]
    assert warnings_of(report) == [
        "library.bib:43: entry key 'lovelace2020' was already used on line 5; both entries read "
        "(merged later if they are the same paper)"
    ]


def test_bibtex_broken_entry_is_skipped_with_its_line_and_the_rest_read():
    papers, report = read("broken.bib")
    assert [(p["title"], p["year"], p["source"].rsplit(":", 1)[1]) for p in papers] == [
        ("A good entry", 2001, "1"), ("Another good entry", 2003, "10"),
    ]
    assert skipped_of(report) == [
        "broken.bib:6: entry could not be parsed (Unexpected block start: `@article`. Was still looking "
        "for field-value closing `}`); check its braces, quotes and commas"
    ]


def test_bibtex_quirks_that_zotero_and_jabref_forgive_are_read_with_a_warning_each():
    papers, report = read("quirks.bib")
    assert [(p["title"], p["year"], p["source"].rsplit(":", 1)[1]) for p in papers] == [
        ("An EndNote entry without a key", 2019, "4"),
        ("Empty field between two commas", 2020, "10"),
        ("The first title is kept", 2021, "15"),
        ("A comma is missing at the end of this line", 2022, "21"),
        ("Comma-first style, as some people write", 2023, "26"),  # plain BibTeX: no warning
        ("Unbalanced whitespace around everything", 2024, "31"),
        ("A biblatex type: read without a word", 2024, "35"),
        ("An entry type nobody knows", 2025, "40"),
        ("The closing brace is missing before the next entry", 2018, "45"),
        ("The closing brace is missing at the end of the file", 2017, "49"),
    ]
    assert papers[0]["authors"] == ["Doe, Jane"]
    assert report.skipped == []
    assert warnings_of(report) == [
        "quirks.bib: 2 @comment/@preamble blocks hold no records; ignored",
        "quirks.bib:4: the entry has no key; read it as 'line4'",
        "quirks.bib:11: an empty field between two commas; ignored",
        "quirks.bib:17: field 'Title' given again (first on line 16); kept the first",
        "quirks.bib:18: field 'year' given again (first on line 18); kept the first",
        "quirks.bib:22: no comma after the field 'title'; read 'year' as the next field",
        "quirks.bib:31: a space after '@' (the entry would be read as a comment); removed",
        "quirks.bib:40: @wrong is not a BibTeX or biblatex entry type; read as a generic record",
        "quirks.bib:47: the entry has no closing '}' before the next entry; closed it here",
        "quirks.bib:51: the entry has no closing '}' at the end of the file; closed it here",
    ]


def test_bibtex_entry_with_an_empty_key_gets_one(tmp_path):
    path = tmp_path / "keyless.bib"
    path.write_text("@article{,\n  title = {Keyless with a comma},\n  year = {2020}\n}\n", encoding="utf-8")
    papers, report = read_file_report(path)
    assert [(p.title, p.source) for p in papers] == [("Keyless with a comma", f"{path}:1")]
    assert report.warnings == [f"{path}:1: the entry has no key; read it as 'line1'"]


def test_bibtex_with_only_comments_warns_that_nothing_was_found():
    papers, report = read("comments_only.bib")
    assert papers == []
    assert warnings_of(report) == [
        "comments_only.bib: 2 @comment/@preamble blocks hold no records; ignored",
        "comments_only.bib: no BibTeX entries found (only comments, @string or @preamble blocks)",
    ]


# ----------------------------------------------------------------------------- RIS and tagged text


def test_ris_header_junk_continuation_lines_labels_missing_end_tags():
    papers, report = read("export.ris")
    assert papers == [
        expected(
            "export.ris", 5, "Screening prioritisation with active learning",
            abstract="Active learning reduces the number of records that have to be screened by hand.",
            authors=["van de Schoot, Rens", "de Bruin, Jonathan"], year=2021,
            doi="10.1038/s42256-020-00287-7", venue="Nature Machine Intelligence",
            url="https://doi.org/10.1038/s42256-020-00287-7",
            keywords=["active learning", "systematic review", "screening"], label="include",
        ),
        # "[No abstract available]" is not an abstract; the year "10 15" is not a year
        expected("export.ris", 21, "A record with a malformed year", authors=["Smith, J."], label="exclude"),
        expected("export.ris", 30, "This record has no end tag", abstract="The next record starts before this one ends.",
                 authors=["Doe, Jane"], year=2019),
        expected("export.ris", 36, "Neither has the last one", abstract="The file stops in the middle of this record.",
                 year=2018),
    ]
    assert sorted(warnings_of(report)) == [
        "export.ris:21: year '10 15' is not a year; left empty",
        "export.ris:30: record has no ER end tag before the next record on line 36; ended it there",
        "export.ris:31: untagged line right after TY ignored: 'Conference Paper'",
        "export.ris:36: the file ends inside this record (no ER end tag); read it anyway — check the export is complete",
    ]


def test_web_of_science_plain_text():
    papers, report = read("savedrecs.txt")
    assert report.format == "wos"
    assert papers == [
        expected(
            "savedrecs.txt", 3, "Notes on the analytical engine: a title over two lines",
            abstract="The engine weaves algebraic patterns as the loom weaves flowers.",
            authors=["Lovelace, A", "Babbage, C"], year=1843, doi="10.1098/rstl.1843.0001", pmid="12345678",
            venue="PHILOSOPHICAL TRANSACTIONS", keywords=["engines", "computation", "ANALYTICAL ENGINE", "NOTES"],
        ),
        expected("savedrecs.txt", 21, "Second record", abstract="Compilers translate.", authors=["Hopper, G"],
                 year=1952, venue="JOURNAL OF COMPILERS"),
    ]


@pytest.mark.parametrize("name", ["pubmed.nbib", "pubmed_medline.txt"])
def test_medline_nbib(name):
    papers, report = read(name)
    assert report.format == "medline"
    assert papers == [
        expected(
            name, 1, "A new decompression device for treating odontogenic cysts using a silicone tube.",
            abstract="We report a device. It drains cysts.", authors=["Kimura, Masashi", "Ishibashi, Kenji"],
            year=2019, doi="10.1016/j.bjoms.2019.09.011", pmid="31690499",
            venue="The British journal of oral & maxillofacial surgery",
            url="https://pubmed.ncbi.nlm.nih.gov/31690499/", keywords=["decompression", "silicone tube", "Humans"],
        ),
        expected(name, 21, "Keratocystic odontogenic tumor: a case report.",
                 abstract="OBJECTIVES: To consider the behaviour.", authors=["Kimura, Takashi"], year=2016,
                 doi="10.1179/2151090314y.0000000035", pmid="25371100", venue="Cranio",
                 url="https://pubmed.ncbi.nlm.nih.gov/25371100/"),
    ]


# ----------------------------------------------------------------------------- tables


def test_scopus_csv_multiline_cell_bad_row_placeholder_abstract_empty_row():
    papers, report = read("scopus.csv")
    assert papers == [
        expected(
            "scopus.csv", 2, "Duplication cysts: diagnosis and management",
            abstract="Duplication cysts are rare.\nThe abstract continues on a second line.",
            text="Duplication cysts are rare. The abstract continues on a second line.",
            authors=["Liu R.", "Adler D.G."], year=2014, doi="10.4103/2303-9027.138783", pmid="25371100",
            venue="Endoscopic Ultrasound", url="https://www.scopus.com/inward/record.uri?eid=2-s2.0-1",
            keywords=["cysts", "endoscopy", "Article", "human"],
        ),
        expected("scopus.csv", 5, "A record without an abstract", authors=["Müller J.", "Gödel K."], year=2016,
                 venue="Gut", url="https://www.scopus.com/3"),
    ]
    assert skipped_of(report) == [
        "scopus.csv:4: 16 values where the header has 15 columns (an unquoted ',' inside a value?); "
        "quote that value and read again",
        "scopus.csv:6: no title or abstract; nothing to read or map",
    ]


def test_trailing_empty_values_read_and_a_real_extra_value_is_reported_on_its_line():
    """Every data row ends with a ',' (one empty value more than the header has columns): read
    normally. The row of lines 5-7 has a real extra value after a quoted three-line cell: skipped
    and named by its first line, and the rows after it keep their true line numbers."""
    papers, report = read("trailing_commas.csv")
    assert [(p["title"], p["year"], p["source"].rsplit(":", 1)[1]) for p in papers] == [
        ("First paper", 2020, "2"), ("Second paper", 2021, "3"), ("Fourth paper", 2023, "8"),
        ("Fifth paper", 2024, "10"), ("Sixth paper", 2025, "11"),
    ]
    assert papers[1]["abstract"] == "An abstract that runs\nover two lines, with a comma."
    assert papers[3]["abstract"] == 'After a blank line, and "quoted" words.'
    assert skipped_of(report) == [
        "trailing_commas.csv:5: 5 values where the header has 3 columns (an unquoted ',' inside a value?) "
        "(the row runs from line 5 to line 7); quote that value and read again"
    ]
    assert warnings_of(report) == [
        "trailing_commas.csv: 4 rows end with empty values the header has no column for (a trailing ','), "
        "from line 2; read without them"
    ]


def test_every_row_with_a_trailing_delimiter_is_read(tmp_path):
    """A database export whose 58 data rows each end with ';' was read as 2 records."""
    rows = [f"Title {i};Abstract number {i} about screening.;{2000 + i % 20};" for i in range(58)]
    path = tmp_path / "export.csv"
    path.write_text("Title;Abstract;Year\n" + "\n".join(rows) + "\n", encoding="utf-8")
    papers, report = read_file_report(path)
    assert (len(papers), report.skipped) == (58, [])
    assert [p.source for p in papers[-2:]] == [f"{path}:58", f"{path}:59"]


def test_excel_sep_line_names_the_delimiter_and_keeps_line_numbers(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_text("sep=;\nTitle;Abstract\nOne, with a comma;An abstract.\n", encoding="utf-8")
    papers, _ = read_file_report(path)
    assert [(p.title, p.source) for p in papers] == [("One, with a comma", f"{path}:3")]


def test_asreview_labels_become_decisions():
    papers, report = read("labels.csv")
    assert [(p["title"], p["label"]) for p in papers] == [
        ("Included paper", "include"), ("Excluded paper", "exclude"), ("Unscreened paper", None),
        ("Also unscreened", None), ("Yes paper", "include"), ("Rated paper", None),
    ]
    assert papers[0] == expected("labels.csv", 2, "Included paper", abstract="An abstract that was screened in.",
                                 label="include")
    assert warnings_of(report) == [
        "labels.csv: 1 label values not understood as include/exclude (e.g. '2'); those records have no "
        "decision: use 1/0, yes/no or include/exclude"
    ]


def test_springer_run_together_authors():
    papers, _ = read("springer.csv")
    assert papers == [
        expected("springer.csv", 2, "Run-together author names", authors=["Wei Zhang", "John McDonald", "Ana de la Cruz"],
                 year=2019, doi="10.1007/s11192-019-03000-1", venue="Scientometrics",
                 url="http://link.springer.com/10.1007/s11192-019-03000-1"),
    ]


def test_ieee_xplore_csv():
    papers, _ = read("ieee.csv")
    assert papers == [
        expected("ieee.csv", 2, "Deep screening of abstracts", abstract="We screen abstracts with deep models.",
                 authors=["A. Smith", "B. Jones"], year=2020, doi="10.1109/access.2020.1", venue="IEEE Access",
                 url="https://ieeexplore.ieee.org/stamp/stamp.jsp?arnumber=1",
                 keywords=["screening", "deep learning", "Task analysis", "Training"]),
    ]


def test_semicolon_delimited_csv():
    papers, _ = read("semicolon.csv")
    assert papers == [
        expected("semicolon.csv", 2, "Semicolon separated", abstract="Exported by a European Excel, with a comma, inside",
                 year=2017, doi="10.5555/semi.1"),
    ]


def test_web_of_science_tab_delimited_utf16_txt():
    papers, report = read("wos_tab_utf16.txt")
    assert (report.format, report.encoding, report.warnings) == ("csv", "utf-16", [])
    assert papers == [
        expected("wos_tab_utf16.txt", 2, "Tab-delimited Web of Science export",
                 abstract="Saved as UTF-16 with a byte order mark, as Web of Science used to.",
                 authors=["Lovelace, A", "Babbage, C"], year=1843, doi="10.1098/rstl.1843.0002",
                 venue="PHILOSOPHICAL TRANSACTIONS", keywords=["engines", "computation"]),
    ]


def test_xlsx_first_sheet():
    papers, report = read("sheet.xlsx")
    assert papers == [
        expected("sheet.xlsx", 2, "Workbook record one", abstract="Read from the first sheet.",
                 authors=["Ada Lovelace", "Grace Hopper"], year=2021, doi="10.1000/xlsx.1", label="include"),
        expected("sheet.xlsx", 3, "Workbook record two", year=2022, label="exclude"),
    ]
    assert warnings_of(report) == ["sheet.xlsx: the workbook has 2 sheets; read the first, 'records'"]


# ----------------------------------------------------------------------------- JSON


def test_openalex_api_page_rebuilds_abstracts():
    papers, _ = read("openalex_page.json")
    assert papers == [
        expected(
            "openalex_page.json", 4, "The state of OA: a large-scale analysis",
            abstract="Despite growing interest in Open Access (OA) articles in 2018.",
            authors=["Heather Piwowar", "Jason Priem"], year=2018, doi="10.7717/peerj.4375", pmid="29456894",
            venue="PeerJ", url="https://doi.org/10.7717/peerj.4375", keywords=["Open Access"],
            external_ids=["openalex:w2741809807"],
        ),
        expected("openalex_page.json", 20, "An arXiv preprint without an abstract", year=2024,
                 doi="10.48550/arxiv.2401.01234", arxiv_id="2401.01234", url="https://arxiv.org/abs/2401.01234",
                 external_ids=["openalex:w4390000000"]),
    ]


def test_openalex_snapshot_jsonl_skips_a_broken_line():
    papers, report = read("openalex.jsonl")
    assert papers == [
        expected("openalex.jsonl", 1, "Snapshot line one", abstract="First work.", year=2020,
                 url="https://openalex.org/W1", label="include"),
        expected("openalex.jsonl", 4, "Snapshot line four", abstract="Fourth work.", year=2021,
                 url="https://openalex.org/W3"),
    ]
    assert skipped_of(report) == [
        "openalex.jsonl:2: not a JSON record (Expecting ',' delimiter at column 86); expected one object per line"
    ]


def test_semantic_scholar_embedded_references_only_when_asked():
    main = expected(
        "s2_search.json", 2, "Construction of the Literature Graph in Semantic Scholar",
        abstract="We describe a deployed scalable system for organizing published scientific literature.",
        authors=["Waleed Ammar", "Dirk Groeneveld"], year=2018, doi="10.18653/v1/n18-3011", arxiv_id="1805.02262",
        venue="NAACL", url="https://www.semanticscholar.org/paper/649def34f8be52c8b66281af98ae884c09aef38b",
        keywords=["Computer Science"], external_ids=["s2:649def34f8be52c8b66281af98ae884c09aef38b"],
        cited_by=["doi:10.1000/citing.1"],  # its references' paperIds ("r1") are not Semantic Scholar ids
    )
    papers, report = read("s2_search.json")
    assert papers == [main]
    assert warnings_of(report) == [
        "s2_search.json: 3 embedded citations/references not read; ask for them with with_references=True "
        "(workbench read --with-references)"
    ]
    papers, report = read("s2_search.json", with_references=True)
    assert papers == [
        main,
        expected("s2_search.json", "2.citations[0]", "A paper that cites it", year=2020, doi="10.1000/citing.1"),
        expected("s2_search.json", "2.references[0]", "A paper it cites", abstract="Older work.", authors=["Ann Author"],
                 year=2015),
    ]
    assert skipped_of(report) == ["s2_search.json:2.references[1]: no title or abstract; nothing to read or map"]
    # PRISMA's and an update's counts per file take a source's file from before its last ":"
    assert {source_file(p["source"]) for p in papers} == {str(DATA / "s2_search.json")}


def test_semantic_scholar_citations_endpoint_wrapper():
    papers, _ = read("s2_citations.json")
    assert papers == [expected("s2_citations.json", 2, "A citing paper from the citations endpoint", year=2023,
                               arxiv_id="2301.00002")]


def test_csl_json_from_zotero():
    papers, _ = read("zotero_csl.json")
    assert papers == [
        expected("zotero_csl.json", 2, "Citation Style Language records", abstract="CSL-JSON is what Zotero exports as JSON.",
                 authors=["Lovelace, Ada", "The CSL Group"], year=2020, doi="10.1000/csl.1", venue="Journal of Examples",
                 url="https://example.org/csl", keywords=["csl", "zotero"]),
    ]


def test_crossref_api_page_with_html_and_jats_markup():
    papers, _ = read("crossref_works.json")
    abstract = "<jats:title>Abstract</jats:title><jats:p>Levels of H<jats:sub>2</jats:sub>O rose (p<0.05).</jats:p>"
    assert papers == [
        expected("crossref_works.json", 2, "Emicizumab in haemophilia A", abstract=abstract,
                 text="Abstract Levels of H2O rose (p<0.05).", authors=["Le Quellec, Sandra"], year=2020,
                 doi="10.1000/jats.1", venue="Drug Design, Development and Therapy", url="http://dx.doi.org/10.1000/jats.1"),
    ]


def test_arxiv_metadata_dump_jsonl():
    papers, _ = read("arxiv_metadata.jsonl")
    assert papers == [
        expected(
            "arxiv_metadata.jsonl", 1, "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
            abstract="A fully differential calculation in perturbative quantum chromodynamics is\npresented.",
            text="A fully differential calculation in perturbative quantum chromodynamics is presented.",
            authors=["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan"], year=2007,
            doi="10.1103/physrevd.76.013009", arxiv_id="0704.0001", venue="Phys.Rev.D76:013009,2007",
            keywords=["hep-ph"],
        ),
    ]


def test_truncated_json_keeps_the_records_before_the_break():
    papers, report = read("truncated.json")
    assert [(p["title"], p["source"].rsplit(":", 1)[1]) for p in papers] == [
        ("Complete record", "2"), ("Second complete record", "3"),
    ]
    assert warnings_of(report) == [
        "truncated.json:4: the JSON breaks off here (Unterminated string starting at); the 2 records before it "
        "were read — the file may be truncated: download or export it again"
    ]


# ----------------------------------------------------------------------------- XML


def test_pubmed_xml_articles_and_book_articles():
    papers, _ = read("pubmed.xml")
    assert papers == [
        expected(
            "pubmed.xml", 4, "Keratocystic odontogenic tumor in the mandible.",
            abstract="OBJECTIVES: To consider biologic behaviour.\nRESULTS: No recurrence in 7 years (p < 0.05).",
            text="OBJECTIVES: To consider biologic behaviour. RESULTS: No recurrence in 7 years (p < 0.05).",
            authors=["Kimura, Takashi", "The Odontogenic Study Group"], year=2016,
            doi="10.1179/2151090314y.0000000035",  # not the cited paper's DOI from the ReferenceList
            pmid="25371100", venue="Cranio : the journal of craniomandibular practice",
            url="https://pubmed.ncbi.nlm.nih.gov/25371100/", keywords=["case report", "Mandible"],
        ),
        expected("pubmed.xml", 42, "A new decompression device.", authors=["Kimura, M"], year=2019,
                 doi="10.1016/j.bjoms.2019.09.011", pmid="31690499",
                 venue="The British journal of oral & maxillofacial surgery", url="https://pubmed.ncbi.nlm.nih.gov/31690499/"),
        expected("pubmed.xml", 57, "Alzheimer Disease Overview", abstract="Alzheimer disease is the most common cause of dementia.",
                 authors=["Bird, Thomas D"], year=1993, pmid="20301295", venue="GeneReviews",
                 url="https://pubmed.ncbi.nlm.nih.gov/20301295/"),
    ]


def test_truncated_pubmed_xml_keeps_complete_articles():
    papers, report = read("truncated_pubmed.xml")
    assert [p["pmid"] for p in papers] == ["25371100", "31690499"]
    assert warnings_of(report) == [
        "truncated_pubmed.xml:60: the XML breaks off here (no element found); the 2 records before it were read "
        "— the file may be truncated: export it again"
    ]


def test_arxiv_atom_feed():
    papers, _ = read("arxiv.atom")
    assert papers == [
        expected(
            "arxiv.atom", 7, "Electron transport in layered materials",
            abstract="We study electron transport\nin layered materials with $\\alpha$-RuCl$_3$.",
            text="We study electron transport in layered materials with α-RuCl_3.",
            authors=["Marie Curie", "Pierre Curie"], year=2024, doi="10.1103/physrevb.109.000001", arxiv_id="2401.01234",
            venue="Phys. Rev. B 109, 000001 (2024)", url="http://arxiv.org/abs/2401.01234v2",
            keywords=["cond-mat.mtrl-sci", "cond-mat.str-el"],
        ),
        expected("arxiv.atom", 26, "An old-style identifier", abstract="Strings.", authors=["Edward Witten"], year=1999,
                 arxiv_id="hep-th/9901001", venue="arXiv", url="http://arxiv.org/abs/hep-th/9901001v1", keywords=["hep-th"]),
    ]


# ----------------------------------------------------------------------------- seed dumps


def test_seed_dump_in_a_txt_file():
    papers = read_file(DATA / "seeds_dump.txt")
    assert [(p.collection, p.authors, p.et_al, p.source.rsplit(":", 1)[1]) for p in papers] == [
        ("Daily Papers", (), False, "3"),
        ("Daily Papers", ("Ada Lovelace", "Charles Babbage"), True, "5"),
    ]
    assert papers[1].title == "TRACE: a novel benchmark designed to evaluate continual learning in large language…"


def test_a_literal_quote_in_the_last_row_is_not_an_open_quote(tmp_path):
    path = tmp_path / "inches.csv"
    path.write_text('Title,Abstract\nFirst,An abstract.\nA 12" screen,Measured in inches.\n', encoding="utf-8")
    papers, report = read_file_report(path)
    assert [p.title for p in papers] == ["First", 'A 12" screen'] and report.skipped == []


def test_a_broken_string_definition_is_not_taken_for_an_entry_without_a_key(tmp_path):
    path = tmp_path / "strings.bib"
    path.write_text('@string{venue = "Nice Journal"\n\n@article{k, title={Still read}, journal=venue}\n',
                    encoding="utf-8")
    papers, report = read_file_report(path)
    assert [p.title for p in papers] == ["Still read"]
    assert not any("no key" in w for w in report.warnings)


def test_web_of_science_tab_delimited_titles_may_start_with_a_quote(tmp_path):
    path = tmp_path / "savedrecs.txt"
    rows = ["PT\tAU\tTI\tAB\tPY\tUT\t", 'J\tDoe, J\t"Why" questions in screening\tAn abstract.\t2020\tWOS:1\t',
            "J\tRoe, R\tA second record\tAnother abstract.\t2021\tWOS:2\t"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    papers, report = read_file_report(path)
    assert [(p.title, p.source.rsplit(":", 1)[1]) for p in papers] == [
        ('"Why" questions in screening', "2"), ("A second record", "3")]
    assert report.skipped == []

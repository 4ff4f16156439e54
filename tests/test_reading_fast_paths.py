"""Reading's fast paths (issue 20) give exactly what the slow paths they replace give, on tricky
text: LaTeX, HTML entities, JATS tags, any script, odd white space, formula apostrophes."""

import codecs
import csv
import re

import pytest

from workbench.dedupe import rules as dedupe
from workbench.corpus.clean import has_latex_markup, has_parser_markup
from workbench.dedupe.rules import find_duplicates
from workbench.readers import pool, read_file_report, read_sources
from workbench.readers.decode import decode
from workbench.corpus.paper import Paper

TRICKY = [
    r"\textbf{Reward} models reach $75\%$ on R$^3$ -- and G\"odel's ``theorem''.",
    "x^2 and y^{10} with ~ a tie, 1--2 and 3---4",
    "&lt;jats:p&gt;We show H<sub>2</sub>O &amp; CO<sub>2</sub> at p<0.05 and n>3&lt;/jats:p&gt;",
    "<jats:title>Abstract</jats:title><jats:p>Größe – 大型语言模型, İstanbul ı ſ</jats:p>",
    "Tabs\tand\u00a0non-breaking\u2003spaces\nover lines ¹²³ ﬁ e\u0301",
    "It costs $5 and {braces}, no backslash",
    "A lone \\ backslash",
    "!` and ?` specials, '' quotes and `` quotes",
    "We propose TRACE (Test of Recall Across Continual Episodes), a benchmark for π^± decays.",
    "plain ASCII with nothing special at all.",
    "",
]


def test_the_latex_checks_are_the_regular_expressions_they_replace():
    texts = TRICKY + [chr(c) for c in range(0x250)] + ["\\", "$", "{", "}", "^", "%", "~"]
    for text in texts:
        assert has_latex_markup(text) == (re.search(r"[\\${}^]", text) is not None), repr(text)
        assert has_parser_markup(text) == (re.search(r"[\\${}]", text) is not None), repr(text)


@pytest.mark.parametrize("raw", [
    b"a\r\nb\rc\nd\r\r\ne\n\r",
    b"title,abstract\r\n\"x\r\ny\",z\r\n\r\n",
    "Größe\r\n大型\r\x00ok\x00\r".encode("utf-8"),
    b"no line ends",
    b"\r",
])
def test_line_ends_are_unified_as_the_regular_expression_did(raw):
    text, encoding, warning = decode(raw)
    assert text == re.sub(r"\r\n?", "\n", raw.decode("utf-8")).replace("\x00", "")
    assert encoding == "utf-8" and warning is None
    # with a UTF-8 BOM (the line ends are unified on the bytes there too); BOMs after it stay out
    text, encoding, warning = decode(codecs.BOM_UTF8 + "\ufeff".encode() + raw)
    assert text == re.sub(r"\r\n?", "\n", raw.decode("utf-8")).replace("\x00", "").lstrip("\ufeff")
    assert encoding == "utf-8" and warning is None


@pytest.mark.parametrize("raw", [
    b"ok\r\n\xc3\r\n\xa9 line 2",  # a lead byte before CR LF: invalid before and after
    b"a\rb\r\xc3\x00\xa9",  # a NUL between a character's bytes is not removed to join them
    b"title\r\n\r\nGr\xf6\xdfe und Ma\xdf\r\n",
])
def test_a_file_that_is_not_utf8_is_still_not_utf8_with_its_line_ends_unified(raw):
    with pytest.raises(UnicodeDecodeError) as err:
        raw.decode("utf-8")
    line = raw.count(b"\n", 0, err.value.start) + 1  # counted in the file as it is
    text, encoding, warning = decode(raw)
    assert encoding != "utf-8" and "\r" not in text and "\x00" not in text
    assert warning.startswith(f"not UTF-8 (first non-UTF-8 byte on line {line});")


def write_tricky_table(path, n: int) -> None:
    """Rows of tricky text, some with a formula apostrophe (in a column read and in one that is not)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract", "notes", "year", "venue"])
        for i in range(n):
            text = f"{TRICKY[i % len(TRICKY)]} Case {i}, arm {i % 7}."
            title = ("'=SUM(A1)" if i % 17 == 3 else "" if i % 3 else f"Study {i}: {TRICKY[(i + 1) % len(TRICKY)][:40]}")
            writer.writerow([title, text, "'-not read" if i % 5 == 0 else "", str(2000 + i % 20), "'@venue"])


def test_tricky_rows_make_the_same_papers_in_workers_as_in_one_process(monkeypatch, tmp_path):
    path = tmp_path / "tricky.csv"
    write_tricky_table(path, 400)
    results = []
    for workers in ("1", "2"):
        monkeypatch.setenv("WORKBENCH_WORKERS", workers)
        monkeypatch.setattr(pool, "MIN_ITEMS", 50)
        papers, report = read_file_report(path)
        results.append(([p.to_dict() for p in papers], report.line(), report.warnings, report.skipped))
    assert results[0] == results[1]
    papers = results[0][0]
    assert len(papers) == 400
    assert papers[3]["title"] == "=SUM(A1)" and papers[0]["venue"] == "@venue"  # one apostrophe removed
    assert any("大型语言模型" in p["text"] and "<jats:" not in p["text"] for p in papers)
    assert any("R³" in p["text"] and "\\textbf" not in p["text"] for p in papers)


def paper(i: int, title: str, year: int = 2020) -> Paper:
    return Paper(id=f"p{i}", title=title, abstract="", text="", year=year, source=f"f.csv:{i + 2}")


def near_duplicate_titles() -> list[Paper]:
    """Blocks of 2 to 12 titles sharing their first three words, some near-identical (merged),
    some numbered apart ("Part 1"/"Part 2"), some too different."""
    papers, i = [], 0
    for size in range(2, 13):
        base = f"effects of treatment {size} on outcomes in randomised trials of adults"
        for k in range(size):
            variant = (base if k % 3 == 0 else base + "s" if k % 3 == 1 else
                       f"effects of treatment {size} part {k} and something else entirely")
            papers.append(paper(i, variant, 2020 if k % 4 else 2021))
            i += 1
    return papers


def test_small_blocks_compared_pair_by_pair_find_what_cdist_finds(monkeypatch):
    papers = near_duplicate_titles()
    found = find_duplicates(papers)
    monkeypatch.setattr(dedupe, "_PAIRWISE", 0)  # every block through rapidfuzz.process.cdist
    by_cdist = find_duplicates(papers)
    assert found.clusters == by_cdist.clusters and found.merges == by_cdist.merges
    assert found.comparisons == by_cdist.comparisons
    assert any("alike" in m.reason for m in found.merges) and len(found.clusters) < len(papers)


def test_read_sources_gives_the_same_papers_and_report_with_and_without_workers(monkeypatch, tmp_path):
    write_tricky_table(tmp_path / "a.csv", 300)
    write_tricky_table(tmp_path / "b.csv", 120)  # the same rows again: merged with a.csv's
    results = []
    for workers in ("1", "2"):
        monkeypatch.setenv("WORKBENCH_WORKERS", workers)
        monkeypatch.setattr(pool, "MIN_ITEMS", 50)
        papers, report = read_sources([tmp_path])
        results.append(([p.to_dict() for p in papers], report.lines()))
    assert results[0] == results[1]
    assert len(results[0][0]) <= 300 and sum(len(p["sources"]) == 2 for p in results[0][0]) >= 100

"""Quoting that writers put into files so text survives, and that the readers take out again.

CSV: the apostrophe before a would-be spreadsheet formula. BibTeX: ``{"}`` for a quote inside a
quoted value, ``{}`` before an ``@`` that starts a line, and ``#`` inside values that only
looks like concatenation.
"""

from __future__ import annotations

import csv

import pytest

from workbench.readers import read_file


def test_csv_removes_the_apostrophe_put_before_a_formula_and_nothing_else(tmp_path):
    titles = {
        "'=1+1": "=1+1", "'+cmd": "+cmd", "'-2": "-2", "'@SUM(A1)": "@SUM(A1)",
        "'\tTabbed": "Tabbed", "'\nNew line first": "New line first",  # white space goes
        "''=quoted": "'=quoted", "'''+x": "''+x",
        "'Tis a pity": "'Tis a pity", "''Twas two": "''Twas two", "'": "'",
        "plain": "plain", "a '=b in the middle": "a '=b in the middle",
    }
    path = tmp_path / "sheet.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["title", "abstract", "authors"])
        for i, title in enumerate(titles):
            writer.writerow([title, f"abstract {i}", "'-Doe, J."])
    papers = read_file(path)
    assert [p.title for p in papers] == list(titles.values())
    assert {p.authors for p in papers} == {("-Doe, J.",)}


def test_bibtex_quoted_values_read_their_quote_escape(tmp_path):
    path = tmp_path / "q.bib"
    path.write_text(
        '@article{a,\n  title = {Braced {"} stays as written},\n'
        '  abstract = "Quoted {"}word{"} with an unbalanced { brace",\n  year = 2020\n}\n',
        encoding="utf-8")
    [paper] = read_file(path)
    assert paper.abstract == 'Quoted "word" with an unbalanced { brace'
    assert paper.title == 'Braced " stays as written'  # LaTeX: {"} is a quote


@pytest.mark.parametrize("abstract, expected", [
    ("Note:\n{}@article{x,\n title = {y}}", "Note:\n@article{x,\n title = {y}}"),
    ("Indented:\n   {}@book(z", "Indented:\n   @book(z"),
    ("Twice:\n{}{}@misc{w}", "Twice:\n{}@misc{w}"),
    ("Mid-line {}@article{v} stays", "Mid-line {}@article{v} stays"),
])
def test_bibtex_guarded_entry_starts_inside_a_value_read_as_text(tmp_path, abstract, expected):
    path = tmp_path / "g.bib"
    path.write_text(f"@misc{{a,\n  title = {{T}},\n  abstract = {{{abstract}}}\n}}\n"
                    "@misc{b,\n  title = {Second}\n}\n", encoding="utf-8")
    papers = read_file(path)
    assert [p.title for p in papers] == ["T", "Second"]
    assert papers[0].abstract == expected


def test_bibtex_hash_after_an_escaped_brace_is_text_not_concatenation(tmp_path):
    path = tmp_path / "h.bib"
    path.write_text('@string{me = "Ana"}\n'
                    "@misc{a,\n  title = {Escaped \\} # not concatenated \\{},\n"
                    '  author = me # " and Bob",\n'
                    '  abstract = "a } # b { in quotes"\n}\n', encoding="utf-8")
    [paper] = read_file(path)
    assert paper.title == "Escaped # not concatenated"  # the readers drop braces from titles
    assert paper.abstract == "a } # b { in quotes"
    assert paper.authors == ("Ana", "Bob")  # real concatenation still works

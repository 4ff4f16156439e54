"""Exports never destroy the review, and hostile text comes back from them as it went in.

A file export refuses the review's own state however the path is spelled, and writes through a
temporary file and a rename. BibTeX and RIS exports of hostile text (entry starts in notes,
trailing backslashes, unbalanced braces, ``ER  -`` after a newline, LaTeX specials) read back
with the workbench's own readers as the same papers; CSV exports never hand a spreadsheet a
formula; Markdown exports add no HTML or markup.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
import re
from pathlib import Path

import bibtexparser
import pytest
import rispy

from workbench.cli import main
from workbench.readers import read_file
from workbench.corpus.ids import paper_id
from workbench.store import AnnotationInputError, Store, StoreError

# ----------------------------------------------------------------------------- destinations

STATE = ["annotations.sqlite", "annotations.sqlite-wal", "annotations.sqlite-shm",
         "annotations.sqlite-journal", "papers.jsonl", "build.json", "topics.json", "map.csv",
         "arrays.safetensors", "map.html", "selection.json", "model/config.json",
         "cache/embeddings.sqlite", "generations/0001/papers.jsonl", "backups/snapshot.sqlite"]


def make_review(folder: Path) -> Path:
    """A review folder with a store of two papers and a stand-in for every state file."""
    with Store.open(folder, reviewer="ana") as store:
        store.sync_papers([{"id": f"{i:012x}", "title": f"Paper {i}", "doi": f"10.1/{i}"}
                           for i in range(2)])
        store.tags.add(f"{0:012x}", "relevant")
    for name in STATE[4:]:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"state {name}\n")
    return folder


def snapshot(folder: Path) -> dict:
    """Every file under ``folder`` (names and bytes), to show that nothing changed."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def review(tmp_path) -> Path:
    return make_review(tmp_path / "review")


@pytest.mark.parametrize("name", STATE)
def test_an_export_never_replaces_the_reviews_own_state(review, name):
    before = snapshot(review)
    with Store.open(review) as store, pytest.raises(AnnotationInputError, match="refusing to write the export"):
        store.files.export("csv", review / name)
    assert snapshot(review) == before


@pytest.mark.parametrize("spelling", [
    "{review}/../review/papers.jsonl", "./{review_rel}/./build.json", "{review}/PAPERS.JSONL",
    "{review}/Model/new-file.txt", "{link}/map.csv", "{link}/cache/anything",
    "{review}/annotations.sqlite-WAL",
])
def test_other_spellings_and_symlinked_folders_are_refused_too(review, tmp_path, monkeypatch, spelling):
    (tmp_path / "link").symlink_to(review, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    dest = spelling.format(review=review, review_rel="review", link=tmp_path / "link")
    before = snapshot(review)
    with Store.open(review) as store, pytest.raises(AnnotationInputError, match="refusing to write the export"):
        store.files.export("bibtex", dest)
    assert snapshot(review) == before


def test_a_symlink_or_hard_link_to_state_is_refused(review, tmp_path):
    (review / "report").mkdir()
    (review / "report" / "link.csv").symlink_to(review / "papers.jsonl")
    os.link(review / "annotations.sqlite", tmp_path / "hard.csv")
    before = snapshot(review)
    with Store.open(review) as store:
        with pytest.raises(AnnotationInputError, match="'papers.jsonl'"):
            store.files.export("csv", review / "report" / "link.csv")
        with pytest.raises(AnnotationInputError, match="a SQLite database"):
            store.files.export("csv", tmp_path / "hard.csv")
    assert snapshot(review) == before


def test_a_folder_is_refused(review):
    (review / "report").mkdir()
    with Store.open(review) as store:
        for folder in (review, review / "report", review.parent):
            with pytest.raises(AnnotationInputError, match="is a folder; expected a file name"):
                store.files.export("jsonl", folder)


def test_exports_go_to_report_and_to_new_names_with_the_umask_mode(review):
    old = os.umask(0o027)
    try:
        with Store.open(review) as store:
            text = store.files.export("bibtex", review / "report" / "annotations.bib")
            store.files.export("csv", review / "annotations.csv")
    finally:
        os.umask(old)
    bib = review / "report" / "annotations.bib"
    assert bib.read_text(encoding="utf-8") == text  # report/ is made on first use
    assert (bib.stat().st_mode & 0o777) == 0o640 == ((review / "annotations.csv").stat().st_mode & 0o777)
    leftovers = [p.name for p in review.rglob("*.tmp")]
    assert leftovers == []


def test_an_export_replaces_a_file_whole_or_leaves_it_as_it_was(review, monkeypatch):
    dest = review / "report" / "annotations.jsonl"
    dest.parent.mkdir()
    dest.write_text("the previous export\n")
    with Store.open(review) as store:
        def fail(*args):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "replace", fail)
        with pytest.raises(StoreError, match="No space left on device.*nothing was written"):
            store.files.export("jsonl", dest)
        assert dest.read_text() == "the previous export\n"
        assert [p.name for p in dest.parent.iterdir()] == ["annotations.jsonl"]  # no temporary left
        monkeypatch.undo()
        text = store.files.export("jsonl", dest)
    assert dest.read_text(encoding="utf-8") == text


def test_the_command_line_refuses_with_one_line_and_writes_nothing(review, capsys):
    before = snapshot(review)
    assert main(["export", "--review", str(review), "--format", "csv",
                 "-o", str(review / "papers.jsonl")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refusing to write the export" in err
    assert f"write into {review.resolve() / 'report'}/" in err
    assert snapshot(review) == before


# ----------------------------------------------------------------------------- hostile text

# The cases the issue names, and more: entry starts, trailing backslashes, unbalanced braces
# and quotes, RIS tags after newlines, LaTeX specials and ligatures, HTML, control characters.
HOSTILE = [
    "Looks like a new entry:\n@article{evil,\n  title = {Injected}\n}",
    "  @misc(evil, title = x)\n\t@book  {indented entry start",
    "{}@article{already guarded looking",
    "ends in a backslash \\",
    "unbalanced { open brace",
    "unbalanced } close brace",
    "} closing first, then opening {",
    'a "quote" and an { unbalanced brace',
    'a {"} pair and a lone }',
    "\\} # not a concatenation \\{",
    "x # y and 'z' # \"w\"",
    "line one\nER  - \nTY  - JOUR\nTI  - injected record",
    "TY  - GEN\nAU  - Injected, Author",
    "\\textbf{LaTeX}, $x^2$, 50% & R&D, C++ #1, snake_case, ~tilde",
    "--, ---, ``quoted'', !`, ?` and \\alpha",
    "AT&amp;T, <b>bold</b>, </p>, p<0.05 and n>3",
    "tab\tCRLF\r\nCR\rform\x0cfeed\x0bvtab",
    "ASReview_relevant #hash, comma; semicolon = sign @ at",
    "Gödel, Æsir, 中文, 🙂, \u202erlo, \x1b[31mred\x1b[0m, bell\x07",
    "=1+1", "+SUM(A1)", "-2+3", "@cmd", "'=quoted", "'Tis an apostrophe",
]


def _reader_papers(folder: Path, records: list[dict]):
    """Papers as the workbench reads them from a JSON source: what a build puts in a store."""
    src = folder / "source.json"
    src.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return list({p.id: p for p in read_file(src)}.values())


def _hostile_records(rng: random.Random, n: int, pieces: list[str]) -> list[dict]:
    def text(k):
        return "".join(rng.choice(pieces + ["word", " ", "Text"]) for _ in range(rng.randint(1, k)))

    records = []
    for i in range(n):
        record = {"title": text(3), "abstract": f"{text(6)} abstract {i}",
                  "authors": [text(2) for _ in range(rng.randint(0, 3))],
                  "year": rng.choice([None, 1999, 2024]), "venue": rng.choice([None, text(2)])}
        if i % 2:
            record["doi"] = f"10.1234/hostile.{i}"
        records.append(record)
    return records


def _annotate(store: Store, papers, rng: random.Random, pieces: list[str]) -> None:
    for i, p in enumerate(papers):
        for _ in range(rng.randint(0, 3)):
            try:
                store.tags.add(p.id, rng.choice(pieces) + rng.choice(["", " x", "y"]))
            except AnnotationInputError:
                pass  # tags the store refuses (braces, control characters, commas) never get in
        if i % 3 != 2:
            store.notes.add(p.id, f"{rng.choice(pieces)}\n{rng.choice(pieces)} note {i}")
        if i % 2:
            store.decisions.decide(p.id, "include", reason=rng.choice(pieces))


def _expected_notes(store: Store, pid: str) -> list[str]:
    notes = [f"[{n.reviewer} {n.created_at[:10]}] {n.text}" for n in store.notes.of(pid)]
    decisions = store.decisions.votes(pid)
    if decisions:
        notes.append("Screening: " + "; ".join(
            f"{d.reviewer}: {d.decision}" + (f" ({d.reason})" if d.reason else "") for d in decisions))
    return notes


def _fold(text: str) -> str:
    return " ".join(text.split())


def _line_ends(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _bibtex_annotes(text: str) -> dict[str, str]:
    """``annote`` per entry, parsed by bibtexparser; the two quotings the workbench's BibTeX
    reader undoes (documented in workbench/readers/bibtex.py) undone here too."""
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    out = {}
    for entry in library.entries:
        if "annote" in entry.fields_dict:
            value = entry["annote"]
            if entry.parser_metadata["removed_enclosing"]["annote"] == '"':
                value = value.replace('{"}', '"')
            out[entry.key] = re.sub(r"(\n[^\S\n]*)\{\}((?:\{\})*@)", r"\1\2", value).strip()
    return out


def check_round_trip(tmp_path: Path, papers, store: Store) -> None:
    """BibTeX and RIS exports read back as the same papers, tags and notes."""
    for fmt, suffix in (("bibtex", "bib"), ("ris", "ris")):
        out = tmp_path / f"export.{suffix}"
        text = store.files.export(fmt, out)
        back = read_file(out)
        assert len(back) == len(papers), fmt
        by_id = {q.id: q for q in back}
        for p in papers:
            q = by_id[p.id]
            got = (q.title, q.text, q.authors, q.year, q.doi, q.venue, q.keywords)
            want = (p.title, p.text, p.authors, p.year, p.doi, p.venue, tuple(store.tags.of(p.id)))
            assert got == want, (fmt, p.id)
            # BibTeX keeps an abstract's line breaks (as \n); RIS has one line per value.
            assert q.abstract == (_line_ends(p.abstract) if fmt == "bibtex" else _fold(p.abstract))
        if fmt == "bibtex":
            annotes = _bibtex_annotes(text)
            for p in papers:
                assert annotes.get(p.id, "") == _line_ends("\n\n".join(_expected_notes(store, p.id)))
        else:
            refs = {r["id"]: r for r in rispy.loads(text)}
            assert len(refs) == len(papers)
            for p in papers:
                assert refs[p.id].get("notes", []) == [_fold(n) for n in _expected_notes(store, p.id)]


def test_the_named_hostile_cases_come_back_from_bibtex_and_ris(tmp_path):
    records = [{"title": h, "abstract": f"{h}\nabstract {i}", "authors": [h, "Doe, Jane"],
                "venue": h, "year": 2020, **({"doi": f"10.1234/h{i}"} if i % 2 else {})}
               for i, h in enumerate(HOSTILE)]
    papers = _reader_papers(tmp_path, records)
    assert len(papers) == len(HOSTILE)
    with Store.open(tmp_path / "review", reviewer="ana") as store:
        store.sync_papers([p.to_dict() for p in papers])
        for i, (p, h) in enumerate(zip(papers, HOSTILE)):
            for tag in (h, re.sub(r"[{},;\x00-\x1f]", " ", h), "to read"):
                try:
                    store.tags.add(p.id, tag)
                except AnnotationInputError:
                    pass
            store.notes.add(p.id, h + "\nsecond line")
            store.decisions.decide(p.id, "exclude", reason=h)
        assert sum(len(store.tags.of(p.id)) - 1 for p in papers) >= 20  # hostile tags got in
        check_round_trip(tmp_path / "review", papers, store)


@pytest.mark.parametrize("seed", range(6))
def test_generated_hostile_text_comes_back_from_bibtex_and_ris(tmp_path, seed):
    """Random mixtures of the hostile pieces (hypothesis is not installed: a seeded generator)."""
    rng = random.Random(seed)
    pieces = HOSTILE + ["\\", "{", "}", '"', "@", "\n", "&", "%", "$", "--", "''", "`", "~", "#",
                        "_", "<i>", "&lt;", " and ", "AND", "[x]", "e\u0301", "\\\"o"]
    papers = _reader_papers(tmp_path, _hostile_records(rng, 24, pieces))
    with Store.open(tmp_path / "review", reviewer="ana") as store:
        store.sync_papers([p.to_dict() for p in papers])
        _annotate(store, papers, rng, pieces)
        check_round_trip(tmp_path / "review", papers, store)


def test_raw_titles_and_authors_with_newlines_cannot_add_records(tmp_path):
    """Values no reader makes (set through the API or an import) fold to one line in both
    formats: never a new record, entry or field. (Readers drop braces from titles.)"""
    rows = [{"id": paper_id(doi=f"10.1234/raw{i}"), "doi": f"10.1234/raw{i}", "year": 2021,
             "title": f"Raw {i}\nER  - \nTY  - JOUR\nTI  - Injected\n@article{{x{i},",
             "authors": [f"Doe,\nER  - {i}", "TY  - GEN\n"], "abstract": "@article{y,\n}"}
            for i in range(3)]
    with Store.open(tmp_path / "review", reviewer="ana") as store:
        store.sync_papers(rows)
        for fmt in ("bibtex", "ris"):
            store.files.export(fmt, tmp_path / f"raw.{fmt}")
            back = {q.id: q for q in read_file(tmp_path / f"raw.{fmt}")}
            assert set(back) == {r["id"] for r in rows}
            for i, row in enumerate(rows):
                q = back[row["id"]]
                assert q.title == f"Raw {i} ER - TY - JOUR TI - Injected @articlex{i},"
                assert q.authors == (f"Doe, ER - {i}", "TY - GEN")
                assert q.abstract == ("@article{y,\n}" if fmt == "bibtex" else "@article{y, }")


# ----------------------------------------------------------------------------- CSV, Markdown

FORMULAS = ["=HYPERLINK(\"http://evil\",\"x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)",
            "\t=1", "\r=1", "'=already quoted", "''=two quotes", "'Tis a title with an apostrophe",
            "-", "plain title"]


def test_csv_cells_never_start_a_formula_and_read_back_as_written(tmp_path):
    rows = [{"id": paper_id(doi=f"10.1234/f{i}"), "doi": f"10.1234/f{i}", "title": title,
             "authors": [title.strip(), "Doe, J."], "year": 2020}
            for i, title in enumerate(FORMULAS)]
    with Store.open(tmp_path / "review", reviewer="ana") as store:
        store.sync_papers(rows)
        store.topics.record({r["id"]: -1 for r in rows}, {-1: ""}, {-1: []})
        for i, r in enumerate(rows):
            store.notes.add(r["id"], FORMULAS[i])
            store.tags.add(r["id"], f"-tag{i}", "=tag")
        text = store.files.export("csv", tmp_path / "review" / "report" / "annotations.csv")
    table = list(csv.DictReader(io.StringIO(text)))
    assert len(table) == len(rows)
    for row in table:
        for column, value in row.items():
            if value and value[0] in "=+-@\t\r":
                assert re.fullmatch(r"-?\d+(\.\d+)?", value), (column, value)  # only plain numbers
    assert {row["topic"] for row in table} == {"-1"}  # a number is left as it is
    back = {p.id: p for p in read_file(tmp_path / "review" / "report" / "annotations.csv")}
    for r in rows:
        want = r["title"].replace("\r", "\n")  # readers read a lone CR as a line end
        assert back[r["id"]].title == " ".join(want.split())


def test_markdown_shows_text_as_text(tmp_path):
    markdown_it = pytest.importorskip("markdown_it")
    evil = ("</div><script>alert(1)</script> *bold* _it_ `code` [link](http://evil) "
            "![img](x.png) <!-- open comment $x$ | ~~strike~~ # not a heading \\")
    with Store.open(tmp_path / "review", reviewer="ana") as store:
        store.sync_papers([{"id": "0123456789ab", "title": evil, "authors": [evil], "venue": evil}])
        store.topics.record({"0123456789ab": 0}, {0: evil}, {0: ["<b>", "*"]})
        store.tags.add("0123456789ab", "a`b``c", "<i>")
        store.notes.add("0123456789ab", "# Heading\n- item\n1. one\n---\n===\n    indented\n"
                                   "```\n[ref]: http://evil\n> quote\n" + evil)
        store.decisions.decide("0123456789ab", "include", reason=evil)
        text = store.files.export("markdown")
    html = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough").render(text)
    assert html.count("<em>") == 1  # the topic's words, which the export itself emphasises
    for markup in ("<script", "</div>", "<a ", "<img", "<strong>", "<s>", "<!--", "<hr",
                   "<ul>", "<ol>", "<pre>", "<blockquote>\n<blockquote>"):
        assert markup not in html, markup
    assert html.count("<h1>") == 1 and html.count("<h2>") == 1 and html.count("<h3>") == 1
    assert "&lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt; *bold* _it_ `code`" in html
    assert "<code>a`b``c</code>" in html and "<code>&lt;i&gt;</code>" in html
    assert "# Heading" in html and "- item" in html and "1. one" in html

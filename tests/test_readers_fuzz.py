"""Fuzzing the readers (Hypothesis): any bytes under any supported name, text shaped like each
format, real exports damaged at random and archives of all of these give records, or one clean
:class:`~workbench.errors.WorkbenchError` naming the file; never a library's traceback.

The number of examples is modest by default (``WORKBENCH_FUZZ_EXAMPLES``, default 60 a test,
a few seconds each); set it higher to search longer, e.g. ``WORKBENCH_FUZZ_EXAMPLES=5000``.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
import tarfile
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.errors import ReaderError, WorkbenchError
from workbench.readers import read_sources
from workbench.readers.filebytes import read_bytes_report

DATA = Path(__file__).resolve().parent / "data" / "readers"
SUFFIXES = (".bib", ".ris", ".csv", ".tsv", ".json", ".jsonl", ".txt", ".xml", ".nbib")
FUZZ = settings(max_examples=int(os.environ.get("WORKBENCH_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def read_or_clean_error(raw: bytes, name: str) -> None:
    """Reading ``raw`` as the file ``name`` gives records, or a WorkbenchError that names it."""
    try:
        papers, report = read_bytes_report(raw, name)
    except WorkbenchError as err:
        assert str(err).startswith(f"{name}:"), str(err)
        assert not isinstance(err, ReaderError) or err.path == name
        assert "could not be read as" not in str(err), f"a library failed on input we did not foresee: {err}"
        return
    assert report.read == len(papers) and report.path == name
    for paper in papers:
        assert paper.id and isinstance(paper.title, str) and paper.source.startswith(f"{name}:")
        assert paper.title or paper.text


def sources_or_clean_error(path: Path) -> None:
    """``read_sources`` of ``path``: records, or a WorkbenchError that names it."""
    try:
        papers, report = read_sources([path])
    except WorkbenchError as err:
        assert str(path) in str(err), str(err)
        return
    assert report.read >= len(papers) > 0


# ----------------------------------------------------------------------------- what is fed

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=40)
_ODD = st.sampled_from(["", " ", "\t", "\n", "\r\n", "\r", "\x00", "\x85", "\ufeff", '"', "'", ",", ";", "|", "{",
                        "}", "[", "]", "<", ">", "&", "&amp;", "&nosuch;", "\\", "$", "#", "@", "%", "é", "中文",
                        "\x1b[2J", "10.1000/xyz", "2021", "-1", "nan", "null", "1e309", "9" * 30, "=HYPERLINK(\"x\")"])
_PIECE = st.one_of(_TEXT, _ODD)
_VALUE = st.lists(_PIECE, max_size=4).map("".join)

_TOKENS = {
    ".ris": ["TY  - JOUR\n", "TY  - ", "TI  - ", "T1  - ", "AB  - ", "N2  - ", "AU  - ", "PY  - ", "Y1  - ", "DO  - ",
             "KW  - ", "N1  - ", "T2  - ", "UR  - ", "ER  - \n", "ER  -", "TY - JOUR\n", "TI  -", "\n", "   "],
    ".nbib": ["PMID- 123\n", "PMID- ", "TI  - ", "AB  - ", "FAU - ", "AU  - ", "DP  - ", "JT  - ", "LID - ",
              " [doi]", "OT  - ", "MH  - ", "      ", "\n", "\n\n"],
    ".bib": ["@article{", "@book{", "@string{", "@comment{", "@preamble{", "@ article{", "@wrong{", "key,", "title = {",
             "abstract = ", "author = {", "year = ", "crossref = {", "doi = ", "}", "{", "},\n", ",", '"', " # ",
             "\\'e", "\\emph{", "$x^2$", "\n", "%"],
    ".csv": ["title,abstract,year,doi,authors,label_included\n", "Title;Abstract\n", "sep=;\n", "title\tabstract\n",
             ",", ";", "\t", '"', '""', "\n", "\r\n", "'=1+1", "1", "0", "yes"],
    ".tsv": ["TI\tAB\tPY\tAU\n", "PT\tAU\tTI\tAB\tUT\n", "title\tabstract\n", "\t", "\n", '"', "J"],
    ".txt": ["FN Clarivate\n", "VR 1.0\n", "PT J\n", "TI ", "AU ", "AB ", "ER\n", "EF\n", "TY  - ", "PMID- ",
             "Collection name\n\n", "\n\n", "A. Author, B. Author et al.\n\n", "title\tabstract\n"],
}


def _tokens(suffix: str):
    """Pieces of the format and odd text in any order: what a damaged or hostile file holds."""
    return st.lists(st.one_of(st.sampled_from(_TOKENS[suffix]), _PIECE), max_size=60).map("".join)


def _tagged(start: str, tags: list[str], end: str | None, layout: str = "{tag}  - {value}"):
    """Records of a tagged format (RIS, MEDLINE, Web of Science): a start tag, fields, an end tag
    (at times left out), and now and then an untagged line that continues the last field."""
    line = st.tuples(st.sampled_from(tags), _VALUE, st.booleans(), _VALUE).map(
        lambda t: layout.format(tag=t[0], value=t[1]) + (f"\n      {t[3]}" if t[2] else ""))
    record = st.tuples(_VALUE, st.lists(line, max_size=8), st.booleans()).map(
        lambda t: "\n".join([start.format(value=t[0]), *t[1], *([end] if end and t[2] else [])]))
    return st.lists(record, max_size=4).map("\n".join)


_RIS = _tagged("TY  - {value}", ["TI", "T1", "AB", "N2", "AU", "A1", "PY", "Y1", "DA", "DO", "KW", "N1", "T2", "JO", "UR",
                                 "M3", "ID", "SN", "L1"], "ER  - ")
_MEDLINE = _tagged("PMID- {value}", ["TI  ", "AB  ", "FAU ", "AU  ", "DP  ", "JT  ", "TA  ", "LID ", "AID ", "OT  ",
                                     "MH  ", "BTI "], None, "{tag}- {value}")
_WOS = st.tuples(st.booleans(), _tagged("PT {value}", ["TI", "AB", "AU", "AF", "PY", "SO", "DI", "DE", "ID", "UT", "CR"],
                                        "ER", "{tag} {value}")).map(
    lambda t: ("FN Clarivate Analytics Web of Science\nVR 1.0\n" if t[0] else "") + t[1] + "\nEF")
_FIELD_NAMES = ["title", "abstract", "author", "year", "doi", "journal", "keywords", "crossref", "note", "url",
                "booktitle", "eprint", "pmid"]
_BIB_FIELD = st.tuples(st.sampled_from(_FIELD_NAMES), _VALUE, st.sampled_from(["{%s}", '"%s"', "%s", "{{%s}}"])).map(
    lambda t: f"  {t[0]} = {t[2] % t[1]}")
_BIBTEX = st.lists(st.tuples(st.sampled_from(["article", "book", "inproceedings", "misc", "string", "comment", "wrong"]),
                             _VALUE, st.lists(_BIB_FIELD, max_size=6), st.sampled_from(["}", "", "}}", ")"])).map(
    lambda t: f"@{t[0]}{{{t[1]},\n" + ",\n".join(t[2]) + f"\n{t[3]}"), max_size=4).map("\n\n".join)
_COLUMNS = ["title", "abstract", "Title", "Abstract", "Document Title", "AB", "TI", "authors", "Author full names",
            "year", "Publication Year", "doi", "DOI", "label_included", "keywords", "Source title", "id", ""]


@st.composite
def _table(draw, delimiter: str) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])))
    header = draw(st.lists(st.sampled_from(_COLUMNS), min_size=1, max_size=6))
    writer.writerow(header)
    for row in draw(st.lists(st.lists(_VALUE, max_size=len(header) + 1), max_size=6)):
        writer.writerow(row)
    return out.getvalue() + draw(st.sampled_from(["", "\n", '"', "x,y,z\n"]))


_JSON_KEYS = st.sampled_from(["title", "abstract", "abstract_inverted_index", "authors", "authorships", "year",
                              "publication_year", "doi", "ids", "paperId", "id", "results", "data", "message",
                              "items", "citations", "references", "citingPaper", "versions", "label_included",
                              "display_name", "primary_location", "externalIds", "keywords", "date-parts", "0"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | _PIECE,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_JSON_KEYS | _TEXT, inner, max_size=5),
    max_leaves=25,
)
_RECORD = st.fixed_dictionaries({"title": _JSON, "abstract": _JSON}, optional={
    "authors": _JSON, "year": _JSON, "doi": _JSON, "abstract_inverted_index": _JSON, "paperId": _JSON, "id": _JSON,
    "citations": st.lists(st.dictionaries(_JSON_KEYS, _JSON, max_size=3), max_size=2), "label_included": _JSON})


def _json_text(lines: bool):
    value = _JSON | _RECORD | st.lists(_RECORD, max_size=4) | st.dictionaries(
        st.sampled_from(["results", "data", "items"]), st.lists(_RECORD, max_size=3), min_size=1, max_size=1)
    doc = value.map(lambda v: json.dumps(v, ensure_ascii=False, allow_nan=True))
    if lines:
        return st.lists(doc, max_size=8).map("\n".join)
    cut_short = st.tuples(doc, st.integers(1, 50)).map(lambda pair: pair[0][: -pair[1]])  # a truncated download
    return doc | cut_short


_XML_TOKENS = ["<?xml version='1.0'?>", "<!DOCTYPE x [<!ENTITY e 'v'>]>", "<PubmedArticleSet>", "</PubmedArticleSet>",
               "<PubmedArticle>", "</PubmedArticle>", "<PubmedBookArticle>", "<MedlineCitation>", "</MedlineCitation>",
               "<Article>", "</Article>", "<ArticleTitle>", "</ArticleTitle>", "<Abstract>", "<AbstractText Label='A'>",
               "</AbstractText>", "</Abstract>", "<PMID>1</PMID>", "<AuthorList><Author><LastName>X</LastName>",
               "</Author></AuthorList>", "<feed xmlns='http://www.w3.org/2005/Atom'>", "<entry>", "</entry>",
               "<title>", "</title>", "<summary>", "</summary>", "&e;", "&amp;", "<![CDATA[", "]]>", "<", ">"]
_ARTICLE = st.tuples(_VALUE, _VALUE, _VALUE).map(lambda t: (
    f"<PubmedArticle><MedlineCitation><PMID>{escape(t[0])}</PMID><Article><ArticleTitle>{escape(t[1])}</ArticleTitle>"
    f"<Abstract><AbstractText>{escape(t[2])}</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle>"))
_PUBMED = st.tuples(st.lists(_ARTICLE, max_size=4), st.integers(0, 60)).map(
    lambda t: ("<PubmedArticleSet>" + "".join(t[0]) + "</PubmedArticleSet>")[: None if t[1] == 0 else -t[1]])
_ATOM = st.lists(st.tuples(_VALUE, _VALUE).map(lambda t: f"<entry><title>{escape(t[0])}</title><summary>"
                                                         f"{escape(t[1])}</summary></entry>"), max_size=3).map(
    lambda entries: "<feed xmlns='http://www.w3.org/2005/Atom'>" + "".join(entries) + "</feed>")
_SEEDS = st.tuples(_VALUE, st.lists(st.tuples(st.booleans(), _VALUE, st.lists(_TEXT, max_size=30)), max_size=4)).map(
    lambda t: t[0] + "\n\n" + "\n\n".join(("Ann Author, Bo Author et al.\n\n" if a else "") + v + " " + " ".join(w)
                                            for a, v, w in t[1]))


def _shaped(suffix: str):
    structured = {".ris": _RIS, ".nbib": _MEDLINE, ".bib": _BIBTEX, ".csv": _table(","), ".tsv": _table("\t"),
                  ".txt": _WOS | _RIS | _MEDLINE | _SEEDS | _table("\t"), ".json": _json_text(False),
                  ".jsonl": _json_text(True), ".xml": _PUBMED | _ATOM}[suffix]
    soup = (st.lists(st.one_of(st.sampled_from(_XML_TOKENS), _PIECE), max_size=60).map("".join) if suffix == ".xml"
            else _json_text(False) if suffix.startswith(".json") else _tokens(suffix))
    return structured | soup


_SHAPED = {suffix: _shaped(suffix) for suffix in SUFFIXES}
_ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "latin-1", "cp1252", "gb18030"])


@st.composite
def shaped_file(draw) -> tuple[bytes, str]:
    """Text shaped like one of the formats, in one of the encodings exports come in."""
    suffix = draw(st.sampled_from(SUFFIXES))
    text = draw(_SHAPED[suffix])
    return text.encode(draw(_ENCODINGS), errors="replace"), f"fuzz{suffix}"


_FIXTURES = sorted(p for p in DATA.iterdir() if p.suffix in SUFFIXES + (".atom",))


@st.composite
def damaged_export(draw) -> tuple[bytes, str]:
    """A real export with a few bytes changed, removed, repeated or added."""
    path = draw(st.sampled_from(_FIXTURES))
    raw = bytearray(path.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(raw)))
        kind = draw(st.sampled_from(["cut", "insert", "flip", "repeat", "truncate"]))
        if kind == "cut":
            del raw[at:at + draw(st.integers(1, 200))]
        elif kind == "insert":
            raw[at:at] = draw(st.binary(min_size=1, max_size=20) | _ODD.map(lambda s: s.encode("utf-8")))
        elif kind == "flip" and raw:
            raw[min(at, len(raw) - 1)] ^= draw(st.integers(1, 255))
        elif kind == "repeat":
            raw[at:at] = raw[max(0, at - 300):at]
        else:
            del raw[at:]
    return bytes(raw), path.name


# ----------------------------------------------------------------------------- the tests


@FUZZ
@given(raw=st.binary(max_size=3000), suffix=st.sampled_from(SUFFIXES))
def test_any_bytes_under_any_name(raw, suffix):
    read_or_clean_error(raw, f"fuzz{suffix}")


@FUZZ
@given(shaped_file())
def test_text_shaped_like_each_format(file):
    read_or_clean_error(*file)


@FUZZ
@given(damaged_export())
def test_real_exports_damaged(file):
    read_or_clean_error(*file)


def _pack(kind: str, members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, data in members:
                archive.writestr(name, data)
        return out.getvalue()
    if kind in ("gz", "bz2", "xz"):
        data = members[0][1] if members else b""
        return {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind](data)
    with tarfile.open(fileobj=out, mode={"tar": "w", "tar.gz": "w:gz"}[kind]) as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


_MEMBER = st.one_of(shaped_file(), damaged_export(),
                    st.tuples(st.binary(max_size=500), st.sampled_from(SUFFIXES).map(lambda s: f"raw{s}")))


@st.composite
def archive(draw) -> tuple[bytes, str]:
    """An archive of fuzzed members, nested at times, whole or damaged."""
    kind = draw(st.sampled_from(["zip", "tar", "tar.gz", "gz", "bz2", "xz"]))
    members = [(f"d{i}/{name}", data) for i, (data, name) in enumerate(draw(st.lists(_MEMBER, min_size=0, max_size=4)))]
    if draw(st.booleans()) and members:  # an archive inside
        members.append(("inner.zip", _pack("zip", members[:2])))
    raw = _pack(kind, members)
    damage = draw(st.sampled_from(["none", "truncate", "flip"]))
    if damage != "none" and raw:
        at = draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] if damage == "truncate" else raw[:at] + bytes([raw[at] ^ 0x5A]) + raw[at + 1:]
    name = members[0][0].rsplit("/", 1)[-1] if kind in ("gz", "bz2", "xz") and members else "refs"
    return raw, f"{name}.{kind}"


@FUZZ
@given(archive())
def test_archives_of_anything(tmp_path_factory, packed):
    raw, name = packed
    folder = tmp_path_factory.mktemp("archives")
    path = folder / name
    path.write_bytes(raw)
    sources_or_clean_error(path)
    sources_or_clean_error(folder)


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_every_fixture_reads_cleanly_under_every_name(suffix):
    """The real exports under each other's names: records, or one clean error."""
    for path in _FIXTURES:
        read_or_clean_error(path.read_bytes(), f"{path.stem}{suffix}")

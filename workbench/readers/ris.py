"""Tagged text exports, parsed with rispy: RIS, Web of Science plain text, MEDLINE / nbib.

* RIS (``TY  - JOUR`` ... ``ER  -``) from Zotero, EndNote, Mendeley, Scopus, Embase, Ovid,
  ProQuest, IEEE, PubMed and Web of Science's RIS option: rispy's :class:`rispy.RisParser`.
* Web of Science "plain text" (``FN``/``PT J``/``ER``/``EF``, three-character tags):
  rispy's :class:`rispy.WokParser`.
* MEDLINE / ``.nbib`` (``PMID- 123``, four-character tags, records end at a blank line): a
  small subclass of rispy's parser with MEDLINE's tag layout.

rispy is fed through :func:`_feed`, which counts lines (so every record and warning names its
line), drops junk outside records (export headers such as ``Record #1 of 2``), and closes a
record whose ``ER`` is missing instead of fusing it with the next or losing it at the end.
Untagged lines inside a record continue the previous tag (rispy's behaviour), which is what
keyword lists and notes that wrap onto new lines need.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import rispy

from ..corpus.paper import Paper
from .fields import ReadContext, build_paper, record_from_mapping, resolve_columns
from .pool import make_papers

__all__ = ["looks_like_medline", "looks_like_ris", "looks_like_wos", "read_medline", "read_ris", "read_wos"]

_RIS_START = re.compile(r"^\ufeff?TY(?:  - |[ \t]{1,3}-[ \t]?[A-Z])", re.M)
_WOS_START = re.compile(r"^(?:FN |VR |PT [A-Z]\s*$)", re.M)
_MEDLINE_START = re.compile(r"^PMID- ?\d", re.M)


def looks_like_ris(head: str) -> bool:
    return _RIS_START.search(head) is not None


def looks_like_wos(head: str) -> bool:
    return _WOS_START.search(head) is not None and re.search(r"^(?:TI|AU|AF) ", head, re.M) is not None


def looks_like_medline(head: str) -> bool:
    return _MEDLINE_START.search(head) is not None


class _LineTracking:
    """Mixin for rispy parsers: remembers where records start and what had to be repaired."""

    HAS_END_TAG = True

    def parse_lines(self, lines):
        self.starts: list[int] = []
        self.problems: list[tuple[int, str]] = []
        return super().parse_lines(self._feed(lines))

    def _fix(self, line: str, lineno: int) -> str:
        """A line as the parser expects it (the RIS parser repairs the tag layout)."""
        return line

    def _feed(self, lines) -> Iterator[str]:
        end_line = f"{self.END_TAG}  - "
        inside, tagged = False, False
        lineno = 0
        for lineno, line in enumerate(lines, start=1):
            line = self._fix(line, lineno)
            tag = self.parse_line(line)[0] if line.strip() else None
            if tag == self.START_TAG:
                if inside:
                    if self.HAS_END_TAG:
                        self.problems.append((self.starts[-1], f"record has no {self.END_TAG} end tag before "
                                              f"the next record on line {lineno}; ended it there"))
                    yield end_line
                inside, tagged = True, False
                self.starts.append(lineno)
            elif not inside:
                continue  # export headers, blank lines, stray end tags
            elif tag == self.END_TAG:
                inside = False
            elif tag is None and not tagged:
                if line.strip():
                    self.problems.append((lineno, f"untagged line right after {self.START_TAG} ignored: "
                                          f"{line.strip()[:50]!r}"))
                continue
            else:
                tagged = True
            yield line
        if inside:
            if self.HAS_END_TAG:
                self.problems.append((self.starts[-1], f"the file ends inside this record (no {self.END_TAG} "
                                      "end tag); read it anyway — check the export is complete"))
            yield end_line


# A tag line as Zotero reads it: one to three blanks before the hyphen, a value with or without
# a space before it. RIS has two spaces and one space: "TY  - JOUR".
_LOOSE_TAG = re.compile(r"^([A-Z][A-Z0-9])[ \t]{1,3}-(?:[ \t]?(.*))?$")
_NO_SPACE_VALUE = re.compile(r"^([A-Z][A-Z0-9])  -(\S.*)$")


class _Ris(_LineTracking, rispy.RisParser):
    """rispy's RIS parser, also reading the tag layouts Zotero reads: ``TY - JOUR`` (a file whose
    first record starts so is read that way throughout) and ``TI  -Title`` (no space after the
    hyphen, whose first letter rispy would cut off)."""

    def parse_lines(self, lines):
        self.loose: bool | None = None  # decided by the first TY line
        self.repaired: dict[str, list[int]] = {}
        return super().parse_lines(lines)

    def _fix(self, line: str, lineno: int) -> str:
        if self.loose is None:
            first = line.lstrip("\ufeff")
            m = _LOOSE_TAG.match(first)
            if m and m.group(1) == "TY":
                self.loose = not first.startswith("TY  - ")
        if self.loose:
            m = _LOOSE_TAG.match(line)
            if m and not line.startswith(f"{m.group(1)}  - "):
                self.repaired.setdefault("layout", []).append(lineno)
                return f"{m.group(1)}  - {(m.group(2) or '').strip()}"
            return line
        m = _NO_SPACE_VALUE.match(line)
        if m:
            self.repaired.setdefault("no space", []).append(lineno)
            return f"{m.group(1)}  - {m.group(2)}"
        return line



class _Wos(_LineTracking, rispy.WokParser):
    def parse_line(self, line):
        if not line.strip():
            return None, ""
        return super().parse_line(line)


_MEDLINE_TAG = re.compile(r"^([A-Z][A-Z0-9]{1,3})\s*-(?: (.*))?$")
_MEDLINE_LISTS = ["FAU", "AU", "MH", "OT", "LID", "AID", "PT", "IS", "AD"]


class _Medline(_LineTracking, rispy.RisParser):
    START_TAG = "PMID"
    END_TAG = "ER"
    HAS_END_TAG = False

    def parse_line(self, line):
        m = _MEDLINE_TAG.match(line)
        return (m.group(1), (m.group(2) or "").strip()) if m else (None, line.strip())


def _parse(parser, text: str, ctx: ReadContext) -> list[tuple[dict, int]]:
    records = parser.parse(text)
    for line, problem in parser.problems:
        ctx.warn(problem, line)
    return list(zip(records, parser.starts))


def _read_tagged(parser, text: str, ctx: ReadContext, prepare=None) -> list[Paper]:
    items = []
    columns_cache: dict[tuple, dict] = {}
    for record, line in _parse(parser, text, ctx):
        if prepare is not None:
            prepare(record)
        keys = tuple(record)
        columns = columns_cache.get(keys) or columns_cache.setdefault(keys, resolve_columns(keys))
        items.append((record, line, columns))
    return make_papers(ctx, items, _from_mapping)


def _from_mapping(ctx: ReadContext, item: tuple) -> Paper | None:
    return record_from_mapping(ctx, *item)


def _ris_pmid(record: dict) -> None:
    """PubMed exports via EndNote put the PMID in ``AN`` with ``DP  - NLM``; Web of Science's
    RIS keeps cited references in ``CR`` (a tag rispy does not know)."""
    unknown = record.get("unknown_tag")
    if isinstance(unknown, dict) and unknown.get("CR"):
        record.setdefault("cited references", unknown["CR"])
    accession = str(record.get("accession_number", "")).strip()
    database = f"{record.get('database_provider', '')} {record.get('name_of_database', '')}".lower()
    if accession.isdigit() and ("nlm" in database or "pubmed" in database or "medline" in database):
        record.setdefault("pmid", accession)


_REPAIRS = {
    "layout": "tag lines laid out as 'TY - JOUR' (RIS has two spaces before the hyphen: 'TY  - JOUR'), from "
              "this line; read as RIS",
    "no space": "tag lines with no space after the hyphen ('TI  -Title'), from this line; read with one",
}


def read_ris(text: str, ctx: ReadContext) -> list[Paper]:
    parser = _Ris()
    papers = _read_tagged(parser, text, ctx, _ris_pmid)
    for kind, lines in parser.repaired.items():
        ctx.warn(f"{len(lines)} {_REPAIRS[kind]}", lines[0])
    if not papers and not ctx.n_skipped:
        m = re.search(r"^TY(?!  -)\s*-", text, re.M)
        if m:
            line = text.count("\n", 0, m.start()) + 1
            ctx.no_records("RIS tags are two characters, two spaces and a hyphen ('TY  - JOUR'); this file lays "
                           "them out differently, so no record was found: export it again as RIS", line, meant=True)
    return papers


def read_wos(text: str, ctx: ReadContext) -> list[Paper]:
    return _read_tagged(_Wos(skip_unknown_tags=True), text, ctx)  # (rispy has no "unknown" key for WoS)


def _doi_of(ids) -> str | None:
    for value in ids if isinstance(ids, list) else [ids]:
        if value and str(value).rstrip().endswith("[doi]"):
            return str(value).rsplit("[", 1)[0].strip()
    return None


def read_medline(text: str, ctx: ReadContext) -> list[Paper]:
    parser = _Medline(mapping={}, list_tags=_MEDLINE_LISTS, skip_unknown_tags=False, delimiter_tags_mapping={})
    parser.mapping = _IdentityMapping()
    papers = []
    for record, line in _parse(parser, text, ctx):
        pmid = record.get("PMID")
        values = {
            "title": record.get("TI") or record.get("BTI"),
            "abstract": record.get("AB"),
            "authors": record.get("FAU") or record.get("AU"),
            "year": record.get("DP") or record.get("DEP"),
            "venue": record.get("JT") or record.get("TA"),
            "doi": _doi_of(record.get("LID")) or _doi_of(record.get("AID")),
            "pmid": pmid,
            "keywords": list(record.get("OT") or []) + list(record.get("MH") or []),
            "url": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        }
        paper = build_paper(ctx, values, line)
        if paper is not None:
            papers.append(paper)
    return papers


class _IdentityMapping(dict):
    """MEDLINE tags are kept as they are (``TI``, ``FAU``, ...)."""

    def __missing__(self, key):
        return key

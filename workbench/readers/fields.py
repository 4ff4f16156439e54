"""The shared "clean -> records" step: a source's fields in, one :class:`Paper` out.

Every reader turns its format into plain mappings (column or tag name -> value) and hands them
here. Which names mean what is declared once, as data, in :data:`FIELD_ALIASES`, the way ASReview
declares its column definitions: a Scopus CSV's ``Source title``, a RIS file's ``T2`` (rispy:
``secondary_title``), a Web of Science ``SO`` and a BibTeX ``journal`` all land in ``venue``.
Values are then parsed (years out of dates, author lists out of ``;``/``and``/comma lists,
labels out of ``1``/``yes``/``ASReview_relevant``) and cleaned (LaTeX -> text).
"""

from __future__ import annotations

import ast
import html
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..records import (
    MAX_TEXT_CHARS,
    Paper,
    clean_text,
    derive_title,
    normalise_arxiv_id,
    normalise_doi,
    paper_ids,
)
from .report import FileReport

__all__ = [
    "FIELD_ALIASES",
    "ReadContext",
    "build_paper",
    "clean",
    "normalise_key",
    "parse_label",
    "parse_year",
    "record_from_mapping",
    "resolve_columns",
    "split_authors",
    "split_keywords",
    "warn_if_huge",
]

#: Canonical field -> the column, tag or key names that mean it, best first (compared after
#: :func:`normalise_key`: lower case, ``_-./`` as spaces). ``keywords`` takes the union of all
#: its columns; every other field takes the first non-empty one.
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "title": (
        "title", "primary title", "document title", "article title", "item title", "paper title",
        "display name", "ti", "t1",
    ),
    "abstract": ("abstract", "abstract note", "notes abstract", "abstract text", "summary", "ab", "n2"),
    "authors": (
        "authors", "author", "author names", "author full names", "first authors", "author full name",
        "creators", "au", "af", "a1",
    ),
    "year": (
        "year", "publication year", "pubyear", "year published", "py", "y1", "publication date",
        "date published", "published", "issued", "date", "update date",
    ),
    "venue": (
        "venue", "journal", "journaltitle", "source title", "publication title", "journal title",
        "journal name", "publication name", "container title", "secondary title", "booktitle",
        "conference name", "alternate title3", "alternate title1", "alternate title2", "journal ref",
        "so", "jf", "jo", "t2",
    ),
    "doi": ("doi", "item doi", "article doi", "digital object identifier", "di", "do"),
    "url": ("url", "urls", "link", "pdf link", "landing page url", "open url link", "ur"),
    "keywords": (
        "keywords", "keyword", "author keywords", "index keywords", "keywords plus", "mesh terms",
        "ieee terms", "manual tags", "categories", "de", "kw",
    ),
    "arxiv_id": ("arxiv id", "arxiv", "arxivid"),
    "pmid": ("pmid", "pubmed id", "medline pmid", "pm"),
    "label": (
        "label included", "included", "final included", "included final", "included label",
        "included flag", "include", "asreview label", "label", "decision",
    ),
    "notes": ("notes", "note", "n1"),
    "collection": ("collection", "dataset"),
    # A bare "id" is an arXiv id in arXiv metadata dumps; used only when it is one.
    "maybe_arxiv_id": ("id",),
}

_KEY_SEPARATORS = re.compile(r"[\s_\-./]+")


def normalise_key(name: Any) -> str:
    """``"Author Full Names"``, ``author_full_names`` -> ``"author full names"``."""
    return _KEY_SEPARATORS.sub(" ", str(name).strip().lower()).strip()


def resolve_columns(keys: Iterable[Any], aliases: Mapping[str, tuple[str, ...]] = FIELD_ALIASES) -> dict[str, list]:
    """Canonical field -> the given keys that mean it, in alias priority order."""
    by_norm: dict[str, list] = {}
    for key in keys:
        by_norm.setdefault(normalise_key(key), []).append(key)
    resolved: dict[str, list] = {}
    for fld, names in aliases.items():
        cols = [k for name in names for k in by_norm.get(name, ())]
        if cols:
            resolved[fld] = cols
    return resolved


# ----------------------------------------------------------------------------- cleaning

_LATEX_MARKUP = re.compile(r"[\\${}^]")  # what really needs pylatexenc's parser


_MARKUP_TAG = re.compile(
    r"<(/?)((?:jats|mml):[\w-]+|p|i|b|u|em|strong|sup|sub|sc|scp|br|span|div|a|italic|bold|title|sec|"
    r"list|list-item|inline-formula|underline|math)(?:\s[^<>]*)?/?>",
    re.I,
)
_BLOCK_TAGS = {"p", "br", "div", "title", "sec", "list", "list-item"}


def _tag_space(m: re.Match) -> str:
    """Block tags separate words (``</p><p>``); inline ones (``H<sub>2</sub>O``) do not."""
    return " " if m.group(2).lower().split(":")[-1] in _BLOCK_TAGS else ""


def strip_markup(text: str) -> str:
    """HTML entities and the HTML/JATS tags that Crossref, OpenAlex and publishers leave in
    titles and abstracts: ``&lt;p&gt;Title``, ``<jats:p>We show ...</jats:p>``, ``H<sub>2</sub>O``.
    Only known tag names are removed, so ``p<0.05 and n>3`` stays as it is."""
    if "&" in text:
        text = html.unescape(text)
    if "<" in text:
        text = _MARKUP_TAG.sub(_tag_space, text)
    return text


def clean(text: Any) -> str:
    """:func:`~workbench.records.clean_text`; text with real LaTeX markup is converted once per
    distinct text (the same abstract from Scopus, WoS and PubMed is parsed once)."""
    if not text:
        return ""
    text = str(text)
    return _clean_latex(text) if _LATEX_MARKUP.search(text) else clean_text(text)


@lru_cache(maxsize=8192)
def _clean_latex(text: str) -> str:
    """Real LaTeX goes through pylatexenc once per distinct text: duplicates across exports
    (the same abstract from Scopus, WoS and PubMed) are converted once."""
    return clean_text(text)


# ----------------------------------------------------------------------------- values


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (list, tuple, dict)):
        return not value
    return False


def _literal_list(value: str) -> list | None:
    """``"['Marx, Karl', 'Lindgren, Astrid']"`` (a list written by pandas) -> the list."""
    value = value.strip()
    if len(value) > 2 and value[0] == "[" and value[-1] == "]" and len(value) < 100_000:
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        if isinstance(parsed, (list, tuple)):
            return list(parsed)
    return None


def _text(value: Any, join: str | None = None) -> str:
    """A value as one string: lists give their first item (or all, joined with ``join``)."""
    if _is_missing(value):
        return ""
    if isinstance(value, (list, tuple)):
        items = [_text(v) for v in value]
        items = [i for i in items if i]
        if not items:
            return ""
        return join.join(items) if join is not None else items[0]
    if isinstance(value, dict):
        for key in ("display_name", "name", "title", "text", "value"):
            if isinstance(value.get(key), str):
                return value[key].strip()
        return ""
    return str(value).strip()


_YEAR = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d|21\d\d)(?!\d)")


def parse_year(value: Any) -> int | None:
    """The first plausible year in a number, a date or a CSL ``{"date-parts": [[2020, 1]]}``."""
    if isinstance(value, dict):
        parts = value.get("date-parts") or value.get("date_parts")
        value = parts[0][0] if parts and parts[0] else value.get("raw") or value.get("year")
    if isinstance(value, (list, tuple)):
        value = next((v for v in value if not _is_missing(v)), None)
    if isinstance(value, bool) or _is_missing(value):
        return None
    if isinstance(value, (int, float)):
        value = str(int(value)) if float(value).is_integer() else str(value)
    m = _YEAR.search(str(value))
    return int(m.group(1)) if m else None


_ET_AL = re.compile(r"^(?:et\.?\s*al\.?|others|and others)$", re.I)
_ET_AL_TAIL = re.compile(r"[,;]?\s*(?:et\.?\s*al\.?|and others)\s*$", re.I)
_SCOPUS_ID = re.compile(r"\s*\(\d{6,}\)\s*$")
_AND = re.compile(r"\s+and\s+", re.I)
_INITIALS_NAME = re.compile(r"^[\w'\u00c0-\u024f\-]+(?:\s[\w'\u00c0-\u024f\-]+)*\s(?:[A-Z]\.?-?)+$")


def _name_of(obj: Any) -> str:
    if isinstance(obj, dict):
        if isinstance(obj.get("author"), dict) and _name_of(obj["author"]):  # OpenAlex authorship
            return _name_of(obj["author"])
        for key in ("display_name", "name", "full_name", "raw_author_name", "literal"):
            if isinstance(obj.get(key), str) and obj[key].strip():
                return obj[key].strip()
        family = obj.get("family") or obj.get("last") or obj.get("LastName") or ""
        given = obj.get("given") or obj.get("first") or obj.get("ForeName") or ""
        return f"{family}, {given}".strip(", ") if family else str(given).strip()
    return _text(obj)


def split_authors(value: Any) -> tuple[tuple[str, ...], bool]:
    """Author names and whether the list was cut short ("et al.").

    Accepts lists (of strings or of ``{"name": ...}`` / ``{"family", "given"}`` objects) and
    strings separated by ``;``, ``|``, newlines, `` and `` (BibTeX), or commas. A single comma
    between a one-word surname and given names (``"Smith, John"``) is one author, not two.
    """
    if _is_missing(value):
        return (), False
    if isinstance(value, str):
        listed = _literal_list(value)
        value = listed if listed is not None else value
    if isinstance(value, (list, tuple)):
        names = [_name_of(v) for v in value]
    else:
        text = str(value).strip()
        et_al = bool(_ET_AL_TAIL.search(text))
        text = _ET_AL_TAIL.sub("", text)
        if ";" in text or "|" in text or "\n" in text:
            names = re.split(r"\s*[;|\n]\s*", text)
        elif _AND.search(text):
            names = _AND.split(text)
        elif "," in text:
            parts = [p.strip() for p in text.split(",")]
            one_person = len(parts) == 2 and " " not in parts[0] and not _INITIALS_NAME.match(parts[1])
            names = [text] if one_person else parts
        else:
            names = [text]
        if et_al:
            names.append("et al.")
    out: list[str] = []
    et_al = False
    for name in names:
        name = _SCOPUS_ID.sub("", clean(name)).strip(" ,;")
        if not name:
            continue
        if _ET_AL.match(name):
            et_al = True
        elif name not in out:
            out.append(name)
    return tuple(out), et_al


_KEYWORD_COMMA = re.compile(r",\s*(?![^()]*\))")
_ARXIV_CATEGORY = re.compile(r"^[a-z\-]+(?:\.[A-Za-z\-]+)?$")


def split_keywords(value: Any) -> list[str]:
    """Keywords from a list, or a string separated by ``;`` or commas (not inside parentheses)."""
    if _is_missing(value):
        return []
    if isinstance(value, str):
        listed = _literal_list(value)
        value = listed if listed is not None else value
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(split_keywords(v) if isinstance(v, str) and ";" in v else [_text(v)])
        return [clean(k) for k in out if k]
    text = str(value).strip()
    if ";" in text:
        parts = text.split(";")
    elif "," in text:
        parts = _KEYWORD_COMMA.split(text)
    elif " " in text and all(_ARXIV_CATEGORY.match(t) for t in text.split()):
        parts = text.split()  # arXiv "hep-ph math.CO"
    else:
        parts = [text]
    return [clean(p) for p in parts if p.strip()]


_INCLUDE = {"1", "1.0", "true", "yes", "y", "include", "included", "relevant", "asreview_relevant"}
_EXCLUDE = {"0", "0.0", "false", "no", "n", "exclude", "excluded", "irrelevant", "asreview_irrelevant"}
_UNLABELLED = {"", "-1", "-1.0", "nan", "none", "null", "na", "n/a", "?", "maybe", "unlabeled",
               "unlabelled", "not seen", "not_seen", "asreview_not_seen", "unknown"}
_NOTE_LABEL = re.compile(r"\bASReview_(relevant|irrelevant|not_seen)\b", re.I)
UNKNOWN = "?"


def parse_label(value: Any) -> str | None:
    """``"include"``, ``"exclude"``, None (no decision), or ``"?"`` when not understood."""
    if isinstance(value, bool):
        return "include" if value else "exclude"
    if isinstance(value, (int, float)) and not _is_missing(value):
        return "include" if value == 1 else "exclude" if value == 0 else None
    text = _text(value).lower()
    if text in _INCLUDE:
        return "include"
    if text in _EXCLUDE:
        return "exclude"
    return None if text in _UNLABELLED else UNKNOWN


def label_from_notes(notes: Any) -> str | None:
    """ASReview writes decisions into RIS notes: ``N1  - ASReview_relevant``."""
    items = notes if isinstance(notes, (list, tuple)) else [notes]
    for note in items:
        m = _NOTE_LABEL.search(_text(note))
        if m:
            return {"relevant": "include", "irrelevant": "exclude"}.get(m.group(1).lower())
    return None


_PMID = re.compile(r"\s*(?:PMID:?\s*)?(\d{1,9})(?:\.0)?\s*", re.I)
_PUBMED_URL = re.compile(r"pubmed\D{0,40}?(\d{1,9})", re.I)


def parse_pmid(value: Any) -> str | None:
    """``31690499``, ``"PMID: 31690499"``, ``https://pubmed.ncbi.nlm.nih.gov/31690499/``."""
    text = _text(value)
    m = _PMID.fullmatch(text) or _PUBMED_URL.search(text)
    return str(int(m.group(1))) if m else None


# ----------------------------------------------------------------------------- records


@dataclass
class ReadContext:
    """Where records come from and where problems go, for one file being read."""

    name: str
    collection: str
    report: FileReport
    with_references: bool = False
    suffix: str = ""
    explained_empty: bool = False  # the reader said why the file has no records
    _bad_labels: Counter = field(default_factory=Counter)
    _skipped: list = field(default_factory=list)
    _warnings: list = field(default_factory=list)

    @property
    def n_skipped(self) -> int:
        return len(self._skipped) + len(self.report.skipped)

    @property
    def n_warnings(self) -> int:
        return len(self._warnings) + len(self.report.warnings)

    def where(self, line: int | str | None = None) -> str:
        return f"{self.name}:{line}" if line not in (None, "") else self.name

    def warn(self, message: str, line: int | str | None = None) -> None:
        self._warnings.append((_line_key(line), f"{self.where(line)}: {message}"))

    def no_records(self, message: str, line: int | str | None = None) -> None:
        """Warn why this file has no records (instead of the general "no records found")."""
        self.explained_empty = True
        self.warn(message, line)

    def skip(self, reason: str, line: int | str | None = None) -> None:
        self._skipped.append((_line_key(line), f"{self.where(line)}: {reason}"))

    def finish(self) -> None:
        """Put skips and warnings into the report in file order (called once the file is read)."""
        if self._bad_labels:
            n = sum(self._bad_labels.values())
            examples = ", ".join(repr(v) for v, _ in self._bad_labels.most_common(3))
            self.warn(
                f"{n} label values not understood as include/exclude (e.g. {examples}); those "
                "records have no decision: use 1/0, yes/no or include/exclude"
            )
            self._bad_labels.clear()
        self.report.skipped.extend(m for _, m in sorted(self._skipped, key=lambda item: item[0]))
        self.report.warnings.extend(m for _, m in sorted(self._warnings, key=lambda item: item[0]))
        self._skipped, self._warnings = [], []


def _line_key(line: int | str | None) -> int:
    """Sort key: file-level messages first, then by the line a message names."""
    m = re.match(r"\d+", str(line)) if line not in (None, "") else None
    return int(m.group(0)) if m else 0


def record_from_mapping(ctx: ReadContext, mapping: Mapping[str, Any], line: int | str | None,
                        columns: Mapping[str, list] | None = None) -> Paper | None:
    """One record from a mapping with source-specific names (resolved via :data:`FIELD_ALIASES`)."""
    columns = resolve_columns(mapping.keys()) if columns is None else columns
    values: dict[str, Any] = {}
    for fld, cols in columns.items():
        if fld == "keywords":
            values[fld] = [k for c in cols for k in split_keywords(mapping.get(c))]
            continue
        for col in cols:
            value = mapping.get(col)
            if not _is_missing(value):
                values[fld] = value
                break
    return build_paper(ctx, values, line)


def _first_line(value: Any) -> str:
    return _text(value).split("\n")[0][:60]


#: Abstracts that say there is none (Scopus: ``[No abstract available]``): treated as missing,
#: or every such record without a DOI would get the same content-hash id.
PLACEHOLDER_ABSTRACT = re.compile(
    r"^\W*(?:no abstract(?: is)?(?: available)?|abstract(?: is)? not available|not available|n/?a|none|null|nan|"
    r"no summary(?: available)?|abstract missing|abstract)\W*$",
    re.I,
)


def warn_if_huge(ctx: ReadContext, line: int | str | None, **fields: str) -> None:
    """Warn about a field too long to embed or to take topic words from in full."""
    for name, value in fields.items():
        if len(value) > MAX_TEXT_CHARS:
            ctx.warn(f"the {name} has {len(value):,} characters; embedding and topic words use its first "
                     f"{MAX_TEXT_CHARS:,} (the record keeps all of it): is a full text in the {name} field?", line)


def build_paper(ctx: ReadContext, values: Mapping[str, Any], line: int | str | None) -> Paper | None:
    """A :class:`Paper` from canonical fields (see :data:`FIELD_ALIASES`); None when skipped."""
    raw_title = _text(values.get("title"))
    abstract = _text(values.get("abstract"), join="\n")
    if abstract and len(abstract) < 40 and PLACEHOLDER_ABSTRACT.match(abstract):
        abstract = ""
    title, text = clean(strip_markup(raw_title)), clean(strip_markup(abstract))
    raw_doi = _text(values.get("doi"))
    doi = normalise_doi(raw_doi)
    if raw_doi and not doi:
        ctx.warn(f"DOI {raw_doi[:60]!r} is not a DOI (expected 10.<digits>/...); left empty", line)
    if not title and not text:
        ids = f" (DOI {doi})" if doi else ""
        ctx.skip(f"no title or abstract{ids}; nothing to read or map", line)
        return None
    warn_if_huge(ctx, line, title=title, abstract=text)
    raw_year = values.get("year")
    year = parse_year(raw_year)
    if year is None and not _is_missing(raw_year):
        ctx.warn(f"year {_first_line(raw_year)!r} is not a year; left empty", line)
    url = _text(values.get("url"))
    arxiv_id = normalise_arxiv_id(_text(values.get("arxiv_id"))) if values.get("arxiv_id") else None
    if arxiv_id is None:
        maybe = _text(values.get("maybe_arxiv_id"))
        if re.fullmatch(r"(?:arXiv:)?(?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", maybe, re.I):
            arxiv_id = normalise_arxiv_id(maybe)
        elif doi and doi.startswith("10.48550/arxiv."):
            arxiv_id = normalise_arxiv_id(doi.split("arxiv.", 1)[1])
        elif "arxiv.org/" in url:
            arxiv_id = normalise_arxiv_id(url)
    pmid = parse_pmid(values.get("pmid")) if values.get("pmid") is not None else None
    label = parse_label(values.get("label")) if "label" in values else label_from_notes(values.get("notes"))
    if label == UNKNOWN:
        ctx._bad_labels[_first_line(values.get("label"))] += 1
        label = None
    authors, et_al = split_authors(values.get("authors"))
    keywords = values.get("keywords") or ()
    if not isinstance(keywords, (list, tuple)):
        keywords = split_keywords(keywords)
    keywords = tuple(dict.fromkeys(k for k in keywords if k))
    author = authors[0] if authors else ""
    pid, aliases = paper_ids(doi=doi, arxiv_id=arxiv_id, pmid=pmid, text=text, title=title, year=year, author=author)
    return Paper(
        id=pid,
        aliases=aliases,
        title=title or derive_title(text),
        abstract=abstract,
        text=text,
        authors=authors,
        et_al=et_al,
        year=year,
        collection=clean(_text(values.get("collection"))) or ctx.collection,
        source=ctx.where(line),
        doi=doi,
        arxiv_id=arxiv_id,
        pmid=pmid,
        venue=clean(_text(values.get("venue"))) or None,
        url=url or None,
        keywords=keywords,
        label=label,
    )

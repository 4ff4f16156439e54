"""Values of a record as exports write them: years, author lists, keywords, screening labels, PMIDs.

Each parser takes what a reader found (a string, a list, a number, a dict from JSON) and returns
the workbench's form, or None when the value is missing; none of them raises on odd input.
"""

from __future__ import annotations

import ast
import html
import math
import re
from functools import lru_cache
from typing import Any

from ..corpus.clean import has_parser_markup
from ..corpus.clean import clean_text

__all__ = [
    "clean",
    "strip_markup",
    "UNKNOWN",
    "label_from_notes",
    "parse_label",
    "parse_pmid",
    "parse_year",
    "split_authors",
    "split_keywords",
]


# ----------------------------------------------------------------------------- cleaning

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
    """:func:`~workbench.corpus.clean.clean_text`; text with real LaTeX markup is converted once per
    distinct text (the same abstract from Scopus, WoS and PubMed is parsed once)."""
    if not text:
        return ""
    text = str(text)
    return _clean_latex(text) if has_parser_markup(text) else clean_text(text)


@lru_cache(maxsize=8192)
def _clean_latex(text: str) -> str:
    """Real LaTeX goes through pylatexenc once per distinct text: duplicates across exports
    (the same abstract from Scopus, WoS and PubMed) are converted once."""
    return clean_text(text)




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
    if type(value) is str:  # nearly every value (what the rest gives a str, blank or not)
        return value.strip()
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
        first = parts[0] if isinstance(parts, list) and parts else None
        value = first[0] if isinstance(first, list) and first else value.get("raw") or value.get("year")
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
    out: dict[str, None] = {}  # (a dict: names once each, in order, in linear time)
    et_al = False
    for name in names:
        name = _SCOPUS_ID.sub("", clean(name)).strip(" ,;")
        if not name:
            continue
        if _ET_AL.match(name):
            et_al = True
        else:
            out[name] = None
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

"""Citations as sources carry them: a work's own ids and the works it cites or is cited by.

Each work a record names becomes one string of *link keys* separated by spaces (a work may be
known by its DOI and its Semantic Scholar id at once): ``doi:10.1000/xyz``, ``openalex:w123``,
``s2:<40 hex digits>``, ``arxiv:2401.01234``, ``pmid:123``. Keys are normalised here once, so
resolving links inside a review (``workbench.field.links``) is a dictionary lookup.

What is read:

* OpenAlex ``referenced_works`` (``https://openalex.org/W...``), and a work's own ``id``;
* Semantic Scholar ``references`` and ``citations`` (objects with ``paperId`` and
  ``externalIds``, bare or wrapped in ``citedPaper``/``citingPaper``), and a paper's ``paperId``;
* any text field of references (Web of Science ``CR``, a Scopus ``References`` column, a
  BibTeX ``cited-references`` field): every DOI and every OpenAlex work id in it is one work.
"""

from __future__ import annotations

import re
from typing import Any

from ..corpus.ids import normalise_arxiv_id, normalise_doi

__all__ = ["openalex_key", "reference_keys", "s2_key", "work_keys"]

_OPENALEX = re.compile(r"(?:openalex\.org/|^)(W\d{3,})$", re.I)
_OPENALEX_IN_TEXT = re.compile(r"openalex\.org/(W\d{3,})\b", re.I)
_S2 = re.compile(r"^[0-9a-f]{40}$", re.I)
_DOIS = re.compile(r"10\.\d{4,9}/[^\s,;\]\[]+", re.I)


def openalex_key(value: Any) -> str | None:
    """``https://openalex.org/W2741809807`` or ``W2741809807`` -> ``openalex:w2741809807``."""
    m = _OPENALEX.search(str(value or "").strip())
    return f"openalex:{m.group(1).lower()}" if m else None


def s2_key(value: Any) -> str | None:
    """A Semantic Scholar paperId (40 hex digits) -> ``s2:<id>``."""
    text = str(value or "").strip()
    return f"s2:{text.lower()}" if _S2.match(text) else None


def _unwrap(rec: dict) -> dict:
    for key in ("citedPaper", "citingPaper", "paper", "work"):
        if isinstance(rec.get(key), dict):
            return rec[key]
    return rec


def _dict_keys(rec: dict) -> list[str]:
    rec = _unwrap(rec)
    ext = rec.get("externalIds") if isinstance(rec.get("externalIds"), dict) else {}
    ids = rec.get("ids") if isinstance(rec.get("ids"), dict) else {}
    keys = [s2_key(rec.get("paperId")), openalex_key(rec.get("id")), openalex_key(ids.get("openalex"))]
    doi = normalise_doi(ext.get("DOI") or rec.get("doi") or ids.get("doi"))
    arxiv = normalise_arxiv_id(ext.get("ArXiv"))
    pmid = str(ext.get("PubMed") or ids.get("pmid") or "").strip().rsplit("/", 1)[-1]
    keys += [f"doi:{doi}" if doi else None, f"arxiv:{arxiv}" if arxiv else None,
             f"pmid:{pmid}" if pmid.isdigit() else None]
    return [k for k in keys if k]


def work_keys(value: Any) -> str | None:
    """The link keys of one work (a record, an id, a URL or a DOI), joined by spaces; None
    when it names no work the workbench can match."""
    if isinstance(value, dict):
        keys = _dict_keys(value)
    else:
        text = str(value or "").strip()
        key = openalex_key(text) or s2_key(text)
        doi = None if key else normalise_doi(text)
        keys = [key] if key else [f"doi:{doi}"] if doi else []
    return " ".join(dict.fromkeys(keys)) or None


def reference_keys(value: Any) -> tuple[str, ...]:
    """One entry of link keys per work a references value names, in order, each once.

    A list holds one work per item; a text holds one work per DOI or OpenAlex URL in it (the
    rest of a free-text reference cannot be matched reliably and is left out)."""
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        found = []
        for item in value:
            if isinstance(item, str) and len(item) > 80:  # a free-text reference line
                found.extend(reference_keys(item))
            else:
                found.append(work_keys(item))
        return tuple(dict.fromkeys(k for k in found if k))
    if isinstance(value, dict):
        key = work_keys(value)
        return (key,) if key else ()
    text = str(value)
    keys = [f"openalex:{m.group(1).lower()}" for m in _OPENALEX_IN_TEXT.finditer(text)]
    keys += [f"doi:{d}" for d in (normalise_doi(m.group(0)) for m in _DOIS.finditer(text)) if d]
    if not keys:
        key = work_keys(text)
        keys = [key] if key else []
    return tuple(dict.fromkeys(keys))

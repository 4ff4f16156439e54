"""The shared "clean -> records" step: a source's fields in, one :class:`Paper` out.

Every reader turns its format into plain mappings (column or tag name -> value) and hands them
here. Which names mean what is declared once, as data, in :data:`FIELD_ALIASES`, the way ASReview
declares its column definitions: a Scopus CSV's ``Source title``, a RIS file's ``T2`` (rispy:
``secondary_title``), a Web of Science ``SO`` and a BibTeX ``journal`` all land in ``venue``.
Values are then parsed (years out of dates, author lists out of ``;``/``and``/comma lists,
labels out of ``1``/``yes``/``ASReview_relevant``) and cleaned (LaTeX -> text).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..dedupe import PaperKeys
from ..corpus.paper import MAX_TEXT_CHARS, Paper
from ..corpus.titles import derive_title
from ..corpus.ids import normalise_arxiv_id, normalise_doi, normalise_for_id, paper_ids, text_digest
from ..corpus.title_checks import title_repeats_abstract
from .bounds import cut_long, cut_values
from .citations import reference_keys, work_keys
from .report import FileReport
from .values import (
    UNKNOWN,
    clean,
    strip_markup,
    _is_missing,
    _text,
    label_from_notes,
    parse_label,
    parse_pmid,
    parse_year,
    split_authors,
    split_keywords,
)

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
    # Works cited (see readers.citations): OpenAlex, Web of Science CR, Scopus, BibTeX exports.
    "external_ids": ("openalex id", "openalex", "semantic scholar id", "s2 id"),
    "references": ("referenced works", "references", "cited references", "cited refs", "reference list", "cr"),
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


# ----------------------------------------------------------------------------- records


@dataclass
class ReadContext:
    """Where records come from and where problems go, for one file being read; ``made``: each
    paper :func:`build_paper` made with its deduplication keys (worked out there, where the
    normalised texts are at hand), in order, for :meth:`keys_of`."""

    name: str
    collection: str
    report: FileReport
    with_references: bool = False
    suffix: str = ""
    max_chars: int = 1_000_000  # the longest value kept (WORKBENCH_MAX_FIELD_CHARS, see .bounds)
    explained_empty: bool = False  # the reader said why the file has no records
    explanations: list = field(default_factory=list)  # (message, line) of no_records(meant=True)
    _bad_labels: Counter = field(default_factory=Counter)
    _skipped: list = field(default_factory=list)
    _warnings: list = field(default_factory=list)
    made: list = field(default_factory=list, repr=False, compare=False)  # (Paper, PaperKeys) in the order made

    def keys_of(self, papers: list[Paper]) -> list[PaperKeys]:
        """The deduplication keys of ``papers`` (what the reader gave of those made with this
        context): those made with them when they are exactly the papers made, in order (every
        reader keeps every paper it makes); else worked out again."""
        made = self.made
        if len(made) == len(papers) and all(p is q for (p, _), q in zip(made, papers)):
            return [keys for _, keys in made]
        return [PaperKeys.of(p) for p in papers]

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

    def no_records(self, message: str, line: int | str | None = None, *, meant: bool = False) -> None:
        """Warn why this file has no records (instead of the general "no records found").
        ``meant``: the reader found the file is meant as its format, though its sniff did not
        recognise it (RIS with its tags laid out wrongly); the message, which must quote nothing
        of the file, is then kept where a file that may be no bibliography at all loses every
        other message (see :mod:`.sources`)."""
        self.explained_empty = True
        if meant:
            self.explanations.append((message, line))
        self.warn(message, line)

    def skip(self, reason: str, line: int | str | None = None) -> None:
        self._skipped.append((_line_key(line), f"{self.where(line)}: {reason}"))

    def bad_label(self, value: str) -> None:
        """Count a label that is not a screening decision (one warning for the file at the end)."""
        self._bad_labels[value] += 1

    def fresh(self) -> "ReadContext":
        """A context for the same file with no messages yet (for a part of it read elsewhere)."""
        report = FileReport(path=self.report.path, format=self.report.format, encoding=self.report.encoding)
        return ReadContext(self.name, self.collection, report, self.with_references, self.suffix, self.max_chars)

    def pending(self) -> tuple[Counter, list, list]:
        """What :meth:`finish` has still to put into the report: label values not understood,
        skips and warnings."""
        return self._bad_labels, self._skipped, self._warnings

    def absorb(self, part: "ReadContext") -> None:
        """Take the messages and the papers made of ``part`` (a :meth:`fresh` context that read
        the records after ours)."""
        labels, skipped, warnings = part.pending()
        self._bad_labels.update(labels)
        self._skipped.extend(skipped)
        self._warnings.extend(warnings)
        self.report.skipped.extend(part.report.skipped)
        self.report.warnings.extend(part.report.warnings)
        self.made.extend(part.made)

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
                     f"{MAX_TEXT_CHARS:,} (the record keeps the text as read): is a full text in the {name} field?", line)


_ARXIV_ID = re.compile(r"(?:arXiv:)?(?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?", re.I)


def _arxiv_id(values: Mapping[str, Any], doi: str | None, url: str) -> str | None:
    """The arXiv id from its own field, an id column that holds one, an arXiv DOI or an arxiv.org URL."""
    if values.get("arxiv_id"):
        return normalise_arxiv_id(_text(values.get("arxiv_id")))
    maybe = _text(values.get("maybe_arxiv_id"))
    if maybe and _ARXIV_ID.fullmatch(maybe):
        return normalise_arxiv_id(maybe)
    if doi and doi.startswith("10.48550/arxiv."):
        return normalise_arxiv_id(doi.split("arxiv.", 1)[1])
    if "arxiv.org/" in url:
        return normalise_arxiv_id(url)
    return None


_LINKS = frozenset({"external_ids", "references", "cited_by"})
_ARXIV_FIELDS = frozenset({"arxiv_id", "maybe_arxiv_id"})


def _links(values: Mapping[str, Any]) -> dict:
    """``external_ids``, ``references`` and ``cited_by`` where the source carries them."""
    out = {}
    given = values.get("external_ids") or ()
    own = [k for v in (given if isinstance(given, (list, tuple)) else [given]) for k in (work_keys(v) or "").split()]
    if own:
        out["external_ids"] = tuple(dict.fromkeys(own))
    for name in ("references", "cited_by"):
        keys = reference_keys(values.get(name))
        if keys:
            out[name] = keys
    return out


def _label(ctx: ReadContext, values: Mapping[str, Any]) -> str | None:
    """The screening decision a record carries (a label column, or ASReview's RIS notes)."""
    notes = values.get("notes")
    label = (parse_label(values.get("label")) if "label" in values
             else label_from_notes(notes) if notes is not None else None)
    if label == UNKNOWN:
        ctx.bad_label(_first_line(values.get("label")))
        return None
    return label


def _keywords(given: Any) -> tuple[str, ...]:
    if not given:
        return ()
    return tuple(dict.fromkeys(k for k in (given if isinstance(given, (list, tuple)) else split_keywords(given)) if k))


def _title_and_abstract(ctx: ReadContext, values: Mapping[str, Any], line: int | str | None) -> tuple[str, str]:
    """The title and the abstract as given (an abstract in parts joined, and cut where that
    makes it too long; a placeholder such as "[No abstract available]" is none)."""
    abstract = _text(values.get("abstract"), join="\n")
    if len(abstract) > ctx.max_chars:
        abstract = cut_long(ctx, line, "abstract", abstract)
    if abstract and len(abstract) < 40 and PLACEHOLDER_ABSTRACT.match(abstract):
        abstract = ""
    return _text(values.get("title")), abstract


def build_paper(ctx: ReadContext, values: Mapping[str, Any], line: int | str | None) -> Paper | None:
    """A :class:`Paper` from canonical fields (see :data:`FIELD_ALIASES`); None when skipped.
    A value longer than ``ctx.max_chars`` is cut first (:func:`cut_long`)."""
    values = cut_values(ctx, values, line)
    raw_title, abstract = _title_and_abstract(ctx, values, line)
    title, text = clean(strip_markup(raw_title)), clean(strip_markup(abstract))
    # (a field the source does not have costs a look-up, not a parse: most tables have few)
    get = values.get
    raw_doi = _text(v) if (v := get("doi")) is not None else ""
    doi = normalise_doi(raw_doi) if raw_doi else None
    if not title and not text:  # (its values are not quoted: it may be no record at all)
        ids = f" (DOI {doi})" if doi else ""
        ctx.skip(f"no title or abstract{ids}; nothing to read or map", line)
        return None
    if raw_doi and not doi:
        ctx.warn(f"DOI {raw_doi[:60]!r} is not a DOI (expected 10.<digits>/...); left empty", line)
    if len(title) > MAX_TEXT_CHARS or len(text) > MAX_TEXT_CHARS:  # (a value cut has had its warning)
        warn_if_huge(ctx, line, **{name: value for name, value, given in (("title", title, raw_title),
                                                                           ("abstract", text, abstract))
                                   if len(given) < ctx.max_chars})
    raw_year = get("year")
    year = parse_year(raw_year) if raw_year is not None else None
    if year is None and not _is_missing(raw_year):
        ctx.warn(f"year {_first_line(raw_year)!r} is not a year; left empty", line)
    url = _text(v) if (v := get("url")) is not None else ""
    arxiv_id = _arxiv_id(values, doi, url) if doi or url or _ARXIV_FIELDS & values.keys() else None
    pmid = parse_pmid(v) if (v := get("pmid")) is not None else None
    label = _label(ctx, values) if "label" in values or "notes" in values else None
    raw_authors = get("authors")
    authors, et_al = split_authors(raw_authors) if raw_authors is not None else ((), False)
    keywords = _keywords(v) if (v := get("keywords")) else ()
    author = authors[0] if authors else ""
    normalised = (normalise_for_id(text) if text else "", normalise_for_id(title) if title else "")
    digest = text_digest(normalised[0]) if normalised[0] else b""
    pid, aliases = paper_ids(doi=doi, arxiv_id=arxiv_id, pmid=pmid, text=text, title=title, year=year, author=author,
                             normalised=normalised)
    fields = {
        "id": pid,
        "aliases": aliases,
        "title": title or derive_title(text, cleaned=True),
        "title_derived": title_repeats_abstract(title, text) if text else False,
        "abstract": abstract, "text": text,
        "authors": authors, "et_al": et_al, "year": year,
        "collection": (clean(_text(values["collection"])) or ctx.collection) if "collection" in values
        else ctx.collection,
        "source": (source := ctx.where(line)),
        "sources": (source,),
        "doi": doi, "arxiv_id": arxiv_id, "pmid": pmid,
        "venue": (clean(_text(values["venue"])) or None) if "venue" in values else None,
        "url": url or None,
        "keywords": keywords,
        "label": label,
    }
    if _LINKS & values.keys():
        fields.update(_links(values))
    paper = Paper(**fields)
    ctx.made.append((paper, PaperKeys.of(paper, normalised[0], normalised[1] if title else None, digest)))
    return paper

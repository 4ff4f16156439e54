"""One paper, as every stage of the workbench sees it.

A :class:`Paper` is a frozen record with a stable id. The id depends on what the paper *is*
(its DOI, else its arXiv id, else its PubMed id, else its normalised abstract or title, in any
script), never on where it was read from, so rereading, moving or reordering a source keeps every
id and every annotation attached to it (the identifiers are made in :mod:`workbench.corpus.ids`).
:class:`PaperInfo` is a paper's metadata alone (every field but its abstract and clean text):
what a review holds of each paper, its texts held beside them by a
:class:`~workbench.corpus.texts.PaperTexts` (at a million papers they are most of the memory).

This module also holds the facts every stage shares: :data:`OUTLIER`, the topic of a paper
without one, :data:`DECISIONS` and :data:`STAGES`. The text clean-up shared by all readers is
:mod:`workbench.corpus.clean` (LaTeX to text, whitespace) and :mod:`workbench.corpus.titles` (a
readable title for records that come without one).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from operator import attrgetter

__all__ = [
    "DECIDED",
    "DECISIONS",
    "FULL_TEXT",
    "FinalDecision",
    "NOT_RETRIEVED",
    "OUTLIER",
    "STAGES",
    "STAGE_NAMES",
    "TITLE_ABSTRACT",
    "INFO_FIELDS",
    "LINK_FIELDS",
    "PAPER_FIELDS",
    "TEXT_FIELDS",
    "Paper",
    "PaperInfo",
    "MAX_TEXT_CHARS",
    "bounded_text",
    "paper_line",
    "papers_to_frame",
    "source_file",
]


#: The topic of papers no topic claims (HDBSCAN's noise), in every table and file.
OUTLIER = -1
#: A screening decision, in the store, the readers' labels and every face, in the order the
#: screening shows them.
DECISIONS = ("include", "exclude", "maybe")
#: Each decision as a person reads it done ("12 included").
DECIDED = {"include": "included", "exclude": "excluded", "maybe": "maybe"}
#: The screening stages a decision belongs to: title and abstract first, then the full text
#: of the papers included there (include, exclude with a reason, or not retrieved).
TITLE_ABSTRACT, FULL_TEXT = "title_abstract", "full_text"
STAGES = (TITLE_ABSTRACT, FULL_TEXT)
#: Each stage as a person reads it.
STAGE_NAMES = {TITLE_ABSTRACT: "title/abstract", FULL_TEXT: "full text"}
#: The full-text exclusion reason that means the report could not be obtained (PRISMA's
#: "reports not retrieved").
NOT_RETRIEVED = "not retrieved"


@dataclass(frozen=True)
class FinalDecision:
    """The decision that settles a paper at a stage (a resolved conflict): who recorded it, why,
    and when.

    ``resolved_by`` is the reviewer who resolved it (one of the voters or a third person);
    ``reason`` is why (for an exclusion: the exclusion reason PRISMA counts); ``stage`` is the
    stage it settles (one of :data:`STAGES`)."""

    paper_id: str
    decision: str
    resolved_by: str
    reason: str | None = None
    resolved_at: str | None = None
    stage: str | None = None


@dataclass(frozen=True, slots=True)
class PaperInfo:
    """A paper's metadata: every field of a :class:`Paper` but its ``abstract`` and ``text``.

    ``authors`` never contains "et al."; ``et_al`` says whether the source truncated the author
    list. ``source`` is ``"<file>:<line>"`` of the record's first line; ``sources`` lists every
    place the same paper was found once duplicates are merged. ``aliases`` are other ids the same
    paper had or would have had (its content id before a DOI was known, a merged record's id, its
    id under the older ASCII-only normalisation): the store moves annotations made under an alias
    to the paper's id. ``title_derived`` says the title adds nothing to the abstract (the reader
    made it from the abstract, see :func:`title_repeats_abstract`). ``external_ids`` are the
    paper's ids at the sources that carry citations (``openalex:w2741809807``, ``s2:<paperId>``);
    ``references`` (works it cites) and ``cited_by`` (works citing it) hold one entry per work,
    its link keys (``doi:``, ``openalex:``, ``s2:``, ``arxiv:``, ``pmid:``) separated by spaces.
    """

    id: str
    title: str
    authors: tuple[str, ...] = ()
    et_al: bool = False
    year: int | None = None
    collection: str = ""
    source: str = ""
    doi: str | None = None
    arxiv_id: str | None = None
    pmid: str | None = None
    venue: str | None = None
    url: str | None = None
    keywords: tuple[str, ...] = ()
    label: str | None = None
    sources: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    # The title says nothing the abstract does not: the reader made it from the abstract
    # (derive_title), or the abstract starts with it. What is embedded leaves it out.
    title_derived: bool = False
    external_ids: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    cited_by: tuple[str, ...] = ()

    def replace(self, **changes) -> "PaperInfo":
        """A copy with some fields changed (the record itself is immutable): ``dataclasses.replace``."""
        return replace(self, **changes)

    def with_texts(self, abstract: str, text: str) -> "Paper":
        """The :class:`Paper` of this metadata with its ``abstract`` and clean ``text``."""
        return Paper(*_info_values(self), abstract=abstract, text=text)

    def to_dict(self) -> dict:
        """The record's fields (in :data:`PAPER_FIELDS` order) as plain values: lists for tuples.
        What ``dataclasses.asdict`` gives (every field is a string, a number, None or a tuple of
        strings), without its deep copies."""
        d = {name: getattr(self, name) for name in (PAPER_FIELDS if isinstance(self, Paper) else INFO_FIELDS)}
        d["authors"] = list(self.authors)
        d["keywords"] = list(self.keywords)
        d["sources"] = list(self.sources or (self.source,))
        d["aliases"] = list(self.aliases)
        for name in LINK_FIELDS:
            d[name] = list(getattr(self, name))
        return d


@dataclass(frozen=True, slots=True)
class Paper(PaperInfo):
    """A paper as read and cleaned: its metadata (:class:`PaperInfo`) with its texts.

    ``abstract`` is the text as given in the source; ``text`` is the clean version used for
    embeddings, topic words and search (LaTeX converted, whitespace normalised). Both are
    keyword arguments: ``Paper(id=..., title=..., abstract=..., text=...)``.
    """

    abstract: str = field(kw_only=True)
    text: str = field(kw_only=True)

    def info(self) -> PaperInfo:
        """Its metadata alone, without the texts."""
        return PaperInfo(*_info_values(self))


def paper_line(paper: Paper) -> str:
    """One line of a review's papers.jsonl (without its newline): the record as JSON, without
    the clean text where it equals the abstract (most papers) or empty citation fields."""
    import json

    record = paper.to_dict()
    if record["text"] == record["abstract"]:
        del record["text"]
    for name in LINK_FIELDS:
        if not record[name]:
            del record[name]
    return json.dumps(record, ensure_ascii=False)


#: The fields holding citation keys (tuples of strings, empty for most sources).
LINK_FIELDS = ("external_ids", "references", "cited_by")
#: A paper's metadata fields, in the order :class:`PaperInfo` (and :class:`Paper`, before its
#: texts) takes them.
INFO_FIELDS = tuple(PaperInfo.__dataclass_fields__)
#: The texts a :class:`Paper` has beside its metadata.
TEXT_FIELDS = ("abstract", "text")
#: A paper's fields in the order a review's papers.jsonl and :func:`papers_to_frame` give them.
PAPER_FIELDS = ("id", "title", *TEXT_FIELDS, *INFO_FIELDS[2:])
_info_values = attrgetter(*INFO_FIELDS)

# ----------------------------------------------------------------------------- bounded cost

#: What embedding and topic words read of a text: its first 20,000 characters (about 3,000
#: words; the longest structured abstracts have 6,000 characters, and MiniLM reads 256 tokens).
#: A record keeps its whole text; a full article or a 50 MB field pasted into an abstract column
#: costs no more to map than an abstract.
MAX_TEXT_CHARS = 20_000


def bounded_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """``text``, or its first ``limit`` characters cut at a space when it is longer."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ", limit - 200)
    return cut[:space] if space > 0 else cut


def source_file(source: str) -> str:
    """The file of a record's ``source``, ``"<file>:<line>"`` (what comes before the last ``:``,
    so a file's own name may hold one; a place in a file is never written with one), or the
    whole when it names no line."""
    return source.rpartition(":")[0] or source


# ----------------------------------------------------------------------------- tables

PAPER_COLUMNS = ["id", "title", "authors", "year", "collection", "source"]


def papers_to_frame(papers):
    """A pandas DataFrame with one row per paper, indexed by nothing, ``id`` first (with
    ``abstract`` and ``text`` for :class:`Paper` records, without them for :class:`PaperInfo`)."""
    import pandas as pd

    rows = [p.to_dict() for p in papers]
    cols = list(PAPER_FIELDS if not rows or "abstract" in rows[0] else INFO_FIELDS)
    frame = pd.DataFrame(rows, columns=cols)
    frame["year"] = frame["year"].astype("Int64")
    return frame

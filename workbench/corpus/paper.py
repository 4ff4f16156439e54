"""One paper, as every stage of the workbench sees it.

A :class:`Paper` is a frozen record with a stable id. The id depends on what the paper *is*
(its DOI, else its arXiv id, else its PubMed id, else its normalised abstract or title, in any
script), never on where it was read from, so rereading, moving or reordering a source keeps every
id and every annotation attached to it (the identifiers are made in :mod:`workbench.corpus.ids`).
A paper read back from a review leaves its abstract and clean text in the review's file until
they are asked for (:data:`STORED_FIELDS`).

This module also holds the facts every stage shares: :data:`OUTLIER`, the topic of a paper
without one, :data:`DECISIONS` and :data:`STAGES`. The text clean-up shared by all readers is
:mod:`workbench.corpus.clean` (LaTeX to text, whitespace) and :mod:`workbench.corpus.titles` (a
readable title for records that come without one).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = [
    "DECISIONS",
    "FULL_TEXT",
    "NOT_RETRIEVED",
    "OUTLIER",
    "STAGES",
    "TITLE_ABSTRACT",
    "LINK_FIELDS",
    "STORED_FIELDS",
    "Paper",
    "MAX_TEXT_CHARS",
    "bounded_text",
    "paper_line",
    "stored_file",
    "papers_to_frame",
]


#: The topic of papers no topic claims (HDBSCAN's noise), in every table and file.
OUTLIER = -1
#: A screening decision, in the store, the readers' labels and every face, in the order the
#: screening shows them.
DECISIONS = ("include", "exclude", "maybe")
#: The screening stages a decision belongs to: title and abstract first, then the full text
#: of the papers included there (include, exclude with a reason, or not retrieved).
TITLE_ABSTRACT, FULL_TEXT = "title_abstract", "full_text"
STAGES = (TITLE_ABSTRACT, FULL_TEXT)
#: The full-text exclusion reason that means the report could not be obtained (PRISMA's
#: "reports not retrieved").
NOT_RETRIEVED = "not retrieved"


@dataclass(frozen=True)
class Paper:
    """A paper's metadata, as read and cleaned.

    ``abstract`` is the text as given in the source; ``text`` is the clean version used for
    embeddings, topic words and search (LaTeX converted, whitespace normalised). ``authors``
    never contains "et al."; ``et_al`` says whether the source truncated the author list.
    ``source`` is ``"<file>:<line>"`` of the record's first line; ``sources`` lists every place
    the same paper was found once duplicates are merged. ``aliases`` are other ids the same paper
    had or would have had (its content id before a DOI was known, a merged record's id, its id
    under the older ASCII-only normalisation): the store moves annotations made under an alias
    to the paper's id. ``title_derived`` says the title adds nothing to the abstract (the reader
    made it from the abstract, see :func:`title_repeats_abstract`). ``external_ids`` are the
    paper's ids at the sources that carry citations (``openalex:w2741809807``, ``s2:<paperId>``);
    ``references`` (works it cites) and ``cited_by`` (works citing it) hold one entry per work,
    its link keys (``doi:``, ``openalex:``, ``s2:``, ``arxiv:``, ``pmid:``) separated by spaces.
    """

    id: str
    title: str
    abstract: str
    text: str
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
    sources: tuple[str, ...] = field(default=())
    aliases: tuple[str, ...] = ()
    # The title says nothing the abstract does not: the reader made it from the abstract
    # (derive_title), or the abstract starts with it. What is embedded leaves it out.
    title_derived: bool = False
    external_ids: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    cited_by: tuple[str, ...] = ()

    @classmethod
    def from_values(cls, values) -> "Paper":
        """The paper whose fields, in their order, hold ``values``: what ``Paper(*values)`` makes (a
        Paper has no ``__post_init__``) without a frozen ``__setattr__`` a field, ~18 us a paper.
        For the values of a paper made before (sent by a reading worker, kept in a cache): unchecked."""
        paper = object.__new__(cls)
        paper.__dict__.update(zip(_FIELD_ORDER, values))
        return paper

    def replace(self, **changes) -> "Paper":
        """A copy with some fields changed (the record itself is immutable). What
        ``dataclasses.replace`` gives (a Paper has no ``__post_init__``), five times faster."""
        if not _FIELD_NAMES.issuperset(changes):
            return replace(self, **changes)  # raises its TypeError naming the field
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__, **changes)
        if changes and "_stored" in copy.__dict__:  # texts still read from the file; no longer its line
            copy.__dict__["_stored"] = (*self.__dict__["_stored"][:2], "replaced")
        return copy

    def __getattr__(self, name: str):
        # Reached only for a name the instance lacks. A paper read back from a review leaves its
        # abstract and clean text in the review's papers.jsonl until they are asked for
        # (``_stored``: a workbench.review._text.StoredTexts and the paper's line there).
        stored = self.__dict__.get("_stored") if name in STORED_FIELDS else None
        if stored is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return stored[0].read(stored[1], name)

    def __getstate__(self) -> dict:
        # Pickled (to a Dask worker, a process pool) or copied: with its texts, not the file.
        state = dict(self.__dict__)
        if state.pop("_stored", None) is not None:
            for name in STORED_FIELDS:
                state.setdefault(name, getattr(self, name))
        return state

    def to_dict(self) -> dict:
        # What dataclasses.asdict gives (every field is a string, a number, None or a tuple of
        # strings), without its deep copies: ten times faster.
        d = {name: getattr(self, name) for name in _FIELD_ORDER}
        d["authors"] = list(self.authors)
        d["keywords"] = list(self.keywords)
        d["sources"] = list(self.sources or (self.source,))
        d["aliases"] = list(self.aliases)
        for name in LINK_FIELDS:
            d[name] = list(getattr(self, name))
        return d


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


def stored_file(papers) -> Path | None:
    """The file whose lines are exactly ``papers``, in order: when every paper was read back
    from one file leaving its texts there (``_stored``, see :meth:`Paper.__getattr__`), none was
    replaced or left out, and the file is as it was read. A save then links that file instead of
    writing every line again (a million lines take a minute). None otherwise."""
    stored = papers[0].__dict__.get("_stored") if len(papers) else None
    return stored[0].whole_file(papers) if stored is not None else None


#: The fields a paper read back from a review reads from its file when they are asked for.
STORED_FIELDS = frozenset({"abstract", "text"})
#: The fields holding citation keys (tuples of strings, empty for most sources).
LINK_FIELDS = ("external_ids", "references", "cited_by")
_FIELD_ORDER = tuple(Paper.__dataclass_fields__)
_FIELD_NAMES = frozenset(_FIELD_ORDER)

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


# ----------------------------------------------------------------------------- tables

PAPER_COLUMNS = ["id", "title", "authors", "year", "collection", "source"]


def papers_to_frame(papers):
    """A pandas DataFrame with one row per paper, indexed by nothing, ``id`` first."""
    import pandas as pd

    rows = [p.to_dict() for p in papers]
    cols = list(Paper.__dataclass_fields__)
    frame = pd.DataFrame(rows, columns=cols)
    frame["year"] = frame["year"].astype("Int64")
    return frame

"""One paper, as every stage of the workbench sees it.

A :class:`Paper` is a frozen record with a stable id. The id depends on what the paper *is*
(its DOI, else its arXiv id, else its PubMed id, else its normalised abstract or title, in any
script), never on where it was read from, so rereading, moving or reordering a source keeps every
id and every annotation attached to it.

This module also holds the text clean-up shared by all readers: LaTeX to text (pylatexenc),
whitespace, and a readable title for records that come without one; and the two facts every
stage shares: :data:`OUTLIER`, the topic of a paper without one, :data:`DECISIONS` and :data:`STAGES`.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import lru_cache

from .cleaning import clean_text
from .titles import derive_title, derived_titles, title_repeats_abstract

__all__ = [
    "DECISIONS",
    "FULL_TEXT",
    "NOT_RETRIEVED",
    "OUTLIER",
    "STAGES",
    "TITLE_ABSTRACT",
    "LINK_FIELDS",
    "Paper",
    "clean_text",
    "derive_title",
    "title_repeats_abstract",
    "normalise_doi",
    "normalise_arxiv_id",
    "normalise_for_id",
    "legacy_normalise_for_id",
    "MAX_TEXT_CHARS",
    "MIN_ID_WORDS",
    "count_words",
    "surname_key",
    "bounded_text",
    "paper_id",
    "paper_ids",
    "id_aliases",
    "papers_to_frame",
]

ID_LENGTH = 12


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

    def replace(self, **changes) -> "Paper":
        """A copy with some fields changed (the record itself is immutable). What
        ``dataclasses.replace`` gives (a Paper has no ``__post_init__``), five times faster."""
        if not _FIELD_NAMES.issuperset(changes):
            return replace(self, **changes)  # raises its TypeError naming the field
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__, **changes)
        return copy

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


#: The fields holding citation keys (tuples of strings, empty for most sources).
LINK_FIELDS = ("external_ids", "references", "cited_by")
_FIELD_ORDER = tuple(Paper.__dataclass_fields__)
_FIELD_NAMES = frozenset(_FIELD_ORDER)

# ----------------------------------------------------------------------------- identifiers

_DOI_RE = re.compile(r"10\.\d{4,9}/\S+", re.I)
_ARXIV_NEW_RE = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD_RE = re.compile(r"\b([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?\b", re.I)


def normalise_doi(value: str | None) -> str | None:
    """``https://doi.org/10.1000/ABC.`` -> ``10.1000/abc``; None when there is no DOI in it."""
    if not value:
        return None
    m = _DOI_RE.search(str(value).strip())
    if not m:
        return None
    doi = m.group(0).lower().rstrip(".,;)]}>\"'")
    return doi or None


def normalise_arxiv_id(value: str | None) -> str | None:
    """``arXiv:2401.01234v2`` or ``https://arxiv.org/abs/2401.01234`` -> ``2401.01234``."""
    if not value:
        return None
    text = str(value).strip()
    m = _ARXIV_NEW_RE.search(text) or _ARXIV_OLD_RE.search(text)
    return m.group(1).lower() if m else None


@lru_cache(maxsize=1)
def _combining_marks() -> dict:
    """A ``str.translate`` table deleting every combining mark (``unicodedata.combining != 0``;
    none lies above U+1FFFF)."""
    return dict.fromkeys(cp for cp in range(0x20000) if unicodedata.combining(chr(cp)))


_AZ09 = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
#: A ``bytes.translate`` table: ASCII letters and digits kept, every other byte a space.
_ASCII_SEPARATORS = bytes(c if chr(c) in _AZ09 else 32 for c in range(256))
#: Above this many distinct characters to drop, a text is scanned with a regular expression
#: instead (one ``str.replace`` per distinct character is the fast way for real abstracts).
_MAX_REPLACED = 64
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")
#: The same for UTF-8: bytes of characters beyond ASCII kept as well.
_UTF8_SEPARATORS = bytes(c if c >= 0x80 or chr(c) in _AZ09 else 32 for c in range(256))


def _ascii_words(text: bytes) -> str:
    """The runs of ``[a-z0-9]`` of ASCII ``text`` lower-cased, between single spaces (what
    ``" ".join(re.findall("[a-z0-9]+", text.lower()))`` gives, five times faster)."""
    return b" ".join(text.lower().translate(_ASCII_SEPARATORS).split()).decode("ascii")


@lru_cache(maxsize=65536)
def _is_word_char(c: str) -> bool:
    from .scripts import word_runs

    return word_runs().fullmatch(c) is not None


def normalise_for_id(text: str) -> str:
    """Words of any script, separated by single spaces: robust to markup, layout and case.

    NFKC (full-width and compatibility forms to their plain letters, ``ﬁ`` -> ``fi``), then
    casefold (``Straße`` -> ``strasse``, ``ΣΑΣ`` -> ``σασ``), then the runs of letters, digits and
    combining marks of every script (:func:`workbench.scripts.word_runs`): ``"Über-Größe, 大型语言模型!"``
    -> ``"über grösse 大型语言模型"``. Accents are kept: ``é`` and ``e`` are different letters.
    """
    if text.isascii():  # its own NFKC form, and casefold is lower() for ASCII
        return _ascii_words(text.encode("ascii"))
    text = unicodedata.normalize("NFKC", text).casefold().replace("_", " ")
    # What separates words: each distinct non-ASCII character that is no word character (a few
    # str.replace in C), then every ASCII character but a-z and 0-9 (casefold left no capitals).
    others = {c for c in _ASCII_RUNS.sub("", text) if not _is_word_char(c)}
    if len(others) > _MAX_REPLACED:
        from .scripts import word_runs

        return " ".join(word_runs().findall(text))
    for c in others:
        text = text.replace(c, " ")
    return b" ".join(text.encode("utf-8").translate(_UTF8_SEPARATORS).split()).decode("utf-8")


def legacy_normalise_for_id(text: str) -> str:
    """How ids were normalised before every script counted (workbench 0.1): accents stripped,
    then only ``[a-z0-9]`` kept, so text in other scripts normalised to nothing. Used only to
    give papers their old id as an alias (:func:`id_aliases`); equal to :func:`normalise_for_id`
    on ASCII text."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        marks = {c for c in _ASCII_RUNS.sub("", text) if unicodedata.combining(c)}
        if len(marks) > _MAX_REPLACED:
            text = text.translate(_combining_marks())
        for c in marks if len(marks) <= _MAX_REPLACED else ():
            text = text.replace(c, "")
    # Every character left that is not ASCII separates words: "?" does the same.
    return _ascii_words(text.lower().encode("ascii", "replace"))


def _short_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:ID_LENGTH]


#: An abstract this short ("lorem", "Editorial comment.") does not name a paper on its own: the
#: content id of a record with a shorter abstract also hashes its title (see :func:`paper_id`).
MIN_ID_WORDS = 20


def count_words(normalised: str) -> int:
    """Words of a normalised text; each Chinese or Japanese character counts as one."""
    if not normalised:
        return 0
    if normalised.isascii():
        return normalised.count(" ") + 1
    from .scripts import UNSPACED_CHAR

    return normalised.count(" ") + 1 + len(UNSPACED_CHAR.findall(normalised))


def surname_key(name: str) -> str:
    """An author's surname, normalised, accents dropped: ``"Smith, J."``, ``"J. Smith"``,
    ``"Smith J"`` -> ``smith``; ``"Müller, Jürgen"`` -> ``muller``; any script."""
    from .scripts import strip_marks

    name = (name or "").strip()
    if "," in name:
        surname = name.split(",", 1)[0]
    else:
        parts = name.split()
        initials = len(parts) > 1 and re.fullmatch(r"(?:[A-Z]\.?-?){1,3}", parts[-1]) is not None
        surname = parts[0] if initials else parts[-1] if parts else ""
    return normalise_for_id(strip_marks(surname))


def _normalised(text: str, title: str) -> tuple[str, str]:
    return normalise_for_id(text) if text else "", normalise_for_id(title) if title else ""


def _content_key(text: str, title: str, year: int | None, author: str, normalised: tuple[str, str]) -> str:
    norm_text, title_key = normalised
    if norm_text:
        # A title made from the abstract (derive_title, of this version or an earlier one: an
        # export writes it as a title) adds nothing, and must not change the id of a paper read
        # back from that export.
        if (title_key and count_words(norm_text) < MIN_ID_WORDS
                and title_key not in {normalise_for_id(t) for t in derived_titles(text)}):
            return f"text:{norm_text}|title:{title_key}"
        return "text:" + norm_text
    if not title_key:
        # Only symbols (an emoji, a formula): distinct records must not share one id.
        raw = " ".join(unicodedata.normalize("NFKC", text or title or "").casefold().split())
        if raw:
            return "raw:" + raw
    # A title alone: "Editorial" of 2020 by Smith is not "Editorial" of 2020 by Jones.
    surname = surname_key(author) if author else ""
    return f"title:{title_key}:{year or ''}" + (f":{surname}" if surname else "")


def _legacy_key(text: str, title: str, year: int | None, normalised: tuple[str, str]) -> str:
    """The content key of the old scheme: the abstract alone however short, ASCII letters only,
    no author (ASCII text normalises the same both ways)."""
    norm_text = normalised[0] if text.isascii() else legacy_normalise_for_id(text)
    if norm_text:
        return "text:" + norm_text
    norm_title = normalised[1] if title.isascii() else legacy_normalise_for_id(title)
    return f"title:{norm_title}:{year or ''}"


def _identifier_key(doi: str | None, arxiv_id: str | None, pmid: str | None) -> str | None:
    if doi:
        return "doi:" + doi
    if arxiv_id:
        return "arxiv:" + arxiv_id
    if pmid:
        return "pmid:" + str(pmid).strip()
    return None


def paper_ids(
    *,
    doi: str | None = None,
    arxiv_id: str | None = None,
    pmid: str | None = None,
    text: str = "",
    title: str = "",
    year: int | None = None,
    author: str = "",
    normalised: tuple[str, str] | None = None,
) -> tuple[str, tuple[str, ...]]:
    """:func:`paper_id` and :func:`id_aliases` at once, each text normalised once
    (``normalised``: ``text`` and ``title`` through :func:`normalise_for_id` already)."""
    content, legacy = _content_ids(text, title, year, author, normalised)
    key = _identifier_key(doi, arxiv_id, pmid)
    pid = _short_hash(key) if key else content
    return pid, tuple(a for a in dict.fromkeys((content, legacy)) if a != pid)


def _content_ids(text: str, title: str, year: int | None, author: str,
                 normalised: tuple[str, str] | None = None) -> tuple[str, str]:
    """The content id, and the content id of the old scheme."""
    normalised = normalised or _normalised(text, title)
    content, legacy = _content_key(text, title, year, author, normalised), _legacy_key(text, title, year, normalised)
    content_id = _short_hash(content)
    return content_id, content_id if legacy == content else _short_hash(legacy)  # (equal for most ASCII texts)


def id_aliases(pid: str, text: str = "", title: str = "", year: int | None = None,
               author: str = "") -> tuple[str, ...]:
    """Other ids the paper with id ``pid`` has had or would have: its content id (what it gets
    without its DOI/arXiv id/PMID) and its content id under the older scheme (ASCII letters only,
    :func:`legacy_normalise_for_id`, a short abstract without its title, a title without its
    author), where they differ from ``pid``. The store moves annotations made under an alias to
    ``pid``, so a review built before either change keeps every tag, note and decision on its
    paper."""
    return tuple(a for a in dict.fromkeys(_content_ids(text, title, year, author)) if a != pid)


def paper_id(*, doi: str | None = None, arxiv_id: str | None = None, pmid: str | None = None,
             text: str = "", title: str = "", year: int | None = None, author: str = "") -> str:
    """The stable id: a short hash of DOI > arXiv id > PMID > normalised abstract (with the
    title when the abstract has fewer than :data:`MIN_ID_WORDS` words) > title + year + the
    first ``author``'s surname."""
    key = _identifier_key(doi, arxiv_id, pmid)
    return _short_hash(key or _content_key(text, title, year, author, _normalised(text, title)))


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

"""One paper, as every stage of the workbench sees it.

A :class:`Paper` is a frozen record with a stable id. The id depends on what the paper *is*
(its DOI, else its arXiv id, else its PubMed id, else its normalised abstract or title, in any
script), never on where it was read from, so rereading, moving or reordering a source keeps every
id and every annotation attached to it.

This module also holds the text clean-up shared by all readers: LaTeX to text (pylatexenc),
whitespace, and a readable title for records that come without one; and the two facts every
stage shares: :data:`OUTLIER`, the topic of a paper without one, and :data:`DECISIONS`.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache

__all__ = [
    "Paper",
    "clean_text",
    "derive_title",
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
    "OUTLIER",
    "DECISIONS",
]

# The topic of a paper no topic was found for (HDBSCAN's noise label), in every stage.
OUTLIER = -1

# What a reviewer may decide about a paper, in the order the screening shows them.
DECISIONS = ("include", "exclude", "maybe")

ID_LENGTH = 12


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
    to the paper's id.
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

    def replace(self, **changes) -> "Paper":
        """A copy with some fields changed (the record itself is immutable)."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["authors"] = list(self.authors)
        d["keywords"] = list(self.keywords)
        d["sources"] = list(self.sources or (self.source,))
        d["aliases"] = list(self.aliases)
        return d


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


_ASCII_WORDS = re.compile(r"[a-z0-9]+")


def normalise_for_id(text: str) -> str:
    """Words of any script, separated by single spaces: robust to markup, layout and case.

    NFKC (full-width and compatibility forms to their plain letters, ``ﬁ`` -> ``fi``), then
    casefold (``Straße`` -> ``strasse``, ``ΣΑΣ`` -> ``σασ``), then the runs of letters, digits and
    combining marks of every script (:func:`workbench.scripts.word_runs`): ``"Über-Größe, 大型语言模型!"``
    -> ``"über grösse 大型语言模型"``. Accents are kept: ``é`` and ``e`` are different letters.
    """
    if text.isascii():  # its own NFKC form, and casefold is lower() for ASCII
        return " ".join(_ASCII_WORDS.findall(text.lower()))
    from .scripts import word_runs

    return " ".join(word_runs().findall(unicodedata.normalize("NFKC", text).casefold().replace("_", " ")))


def legacy_normalise_for_id(text: str) -> str:
    """How ids were normalised before every script counted (workbench 0.1): accents stripped,
    then only ``[a-z0-9]`` kept, so text in other scripts normalised to nothing. Used only to
    give papers their old id as an alias (:func:`id_aliases`); equal to :func:`normalise_for_id`
    on ASCII text."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text).translate(_combining_marks())
    return " ".join(_ASCII_WORDS.findall(text.lower()))


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
        # A title made from the abstract (derive_title: an export writes it as a title) adds
        # nothing, and must not change the id of a paper read back from that export.
        if (title_key and count_words(norm_text) < MIN_ID_WORDS
                and normalise_for_id(derive_title(text)) != title_key):
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
) -> tuple[str, tuple[str, ...]]:
    """:func:`paper_id` and :func:`id_aliases` at once, each text normalised once."""
    content, legacy = _content_ids(text, title, year, author)
    key = _identifier_key(doi, arxiv_id, pmid)
    pid = _short_hash(key) if key else content
    return pid, tuple(a for a in dict.fromkeys((content, legacy)) if a != pid)


def _content_ids(text: str, title: str, year: int | None, author: str) -> tuple[str, str]:
    """The content id, and the content id of the old scheme."""
    normalised = _normalised(text, title)
    return (_short_hash(_content_key(text, title, year, author, normalised)),
            _short_hash(_legacy_key(text, title, year, normalised)))


def id_aliases(pid: str, text: str = "", title: str = "", year: int | None = None,
               author: str = "") -> tuple[str, ...]:
    """Other ids the paper with id ``pid`` has had or would have: its content id (what it gets
    without its DOI/arXiv id/PMID) and its content id under the older scheme (ASCII letters only,
    :func:`legacy_normalise_for_id`, a short abstract without its title, a title without its
    author), where they differ from ``pid``. The store moves annotations made under an alias to
    ``pid``, so a review built before either change keeps every tag, note and decision on its
    paper."""
    return tuple(a for a in dict.fromkeys(_content_ids(text, title, year, author)) if a != pid)


def paper_id(
    *,
    doi: str | None = None,
    arxiv_id: str | None = None,
    pmid: str | None = None,
    text: str = "",
    title: str = "",
    year: int | None = None,
    author: str = "",
) -> str:
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


# ----------------------------------------------------------------------------- clean text

#: Longer texts have their LaTeX commands removed rather than converted (pylatexenc would take
#: minutes over a full article pasted into an abstract field).
LATEX_MAX_CHARS = 100_000
_SUPERSCRIPTS = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")
# A bare % is a percent sign and a bare & an ampersand ("R&D"), not a comment or a column break.
_BARE_PERCENT_OR_AMPERSAND = re.compile(r"(?<!\\)([%&])")
_LATEX_HINT = re.compile(r"[\\$%{}~^]")
_LATEX_MARKUP = re.compile(r"[\\${}^]")  # what really needs pylatexenc's parser
#: pylatexenc's text "specials" (its default latex2text context), longest first.
_SPECIALS = {"---": "\u2014", "--": "\u2013", "``": "\u201c", "''": "\u201d", "!`": "\u00a1", "?`": "\u00bf",
             "~": "\u00a0"}
_SPECIAL = re.compile("|".join(re.escape(k) for k in _SPECIALS))


@lru_cache(maxsize=1)
def _latex_converter():
    from pylatexenc import latex2text

    db = latex2text.get_default_latex_context_db()
    # An unknown macro such as \model keeps its name instead of vanishing from the sentence.
    db.set_unknown_macro_spec(
        latex2text.MacroTextSpec("", simplify_repl=lambda node, l2tobj=None: node.macroname)
    )
    return latex2text.LatexNodes2Text(latex_context=db, math_mode="text", strict_latex_spaces=False)


def _superscript(m: re.Match) -> str:
    return m.group(1).translate(_SUPERSCRIPTS)


def clean_text(text: str | None) -> str:
    """LaTeX markup to plain Unicode text, whitespace collapsed.

    ``\\textbf{reward models}`` -> ``reward models``, ``R$^3$`` -> ``R³``, ``$75\\%$`` -> ``75%``,
    ``G\\"odel`` -> ``Gödel``. A bare ``%`` is a percent sign (not a LaTeX comment) and a bare
    ``&`` an ampersand (not a table column break).
    """
    if not text:
        return ""
    text = unicodedata.normalize("NFC", str(text))
    if _LATEX_HINT.search(text) and not _LATEX_MARKUP.search(text):
        # Only % and ~ look like LaTeX here ("75% of cases"): pylatexenc would do nothing but
        # its "specials" (-- to an en dash, ~ to a space, ...), at ~20 ms a text. Same result.
        text = _SPECIAL.sub(lambda m: _SPECIALS[m.group(0)], text)
    elif _LATEX_HINT.search(text):
        try:
            if len(text) > LATEX_MAX_CHARS:  # pylatexenc: about 4 s per million characters
                raise ValueError("too long for pylatexenc")
            text = _latex_converter().latex_to_text(_BARE_PERCENT_OR_AMPERSAND.sub(r"\\\1", text))
        except Exception:  # pylatexenc is tolerant; never lose an abstract over markup
            text = re.sub(r"\\[a-zA-Z]+\*?|[{}$]", " ", text)
        text = re.sub(r"\^\{?([0-9+\-]+)\}?", _superscript, text)
        # pylatexenc gives an accent it has no precomposed letter for as a combining mark
        # (t + U+0308): compose again, so cleaning clean text changes nothing.
        text = unicodedata.normalize("NFC", text.replace("{", "").replace("}", ""))
    text = text.replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip()


# ----------------------------------------------------------------------------- titles

TITLE_MAX = 90

_INTRO = re.compile(
    r"\b(?:we|this (?:paper|work|report))\s+(?:first\s+|also\s+|then\s+)?"
    r"(?:introduce|propose|present|develop|release|build|construct|design|unveil|describe)s?"
    r"\s+(?:and\s+\w+\s+)?",
    re.I,
)
# A name people would put in a title: has an inner capital, a digit, a hyphen or is all caps.
_NAME = r"(?:[A-Z][\w\-\.\u00c0-\u024f²³¹⁰-⁹]*(?:[A-Z\d\-²³]|[a-z][A-Z])[\w\-\.²³¹⁰-⁹]*|[A-Z]{2,}\w*)"
_NAME_FIRST = re.compile(
    rf"^(?:the\s+)?(?P<name>{_NAME}(?:\s{_NAME})?)"
    r"(?:\s*\((?P<expansion>[^)]{3,80})\))?\s*(?:[,:]\s*|\s+(?:is|as)\s+)(?P<desc>.+)",
)
_EXPANSION_FIRST = re.compile(
    rf"^(?:an?\s+\w+\s+\w+,\s+)?(?P<expansion>[A-Z][\w\-]*(?:\s+[\w\-&]+){{1,8}}?)\s*\((?P<name>{_NAME})\)"
    r"\s*(?:[,:]\s*(?P<desc>.+))?",
)
_CALLED = re.compile(rf"^(?P<desc>.{{8,120}}?),?\s+(?:called|named|dubbed|termed)\s+(?P<name>{_NAME})\b")


def _shorten(text: str, limit: int = TITLE_MAX) -> str:
    text = text.strip().rstrip(".,;:")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(",;:-– ") + "…"


def _first_sentence(text: str) -> str:
    parts = re.split(r"(?<=[a-z0-9\)][.!?])\s+(?=[A-Z])", text, maxsplit=1)
    return parts[0]


def _desc_clause(desc: str) -> str:
    desc = re.sub(r"^(?:which|that)\s+(?:is\s+)?", "", _first_sentence(desc))
    # Stop at the next clause that starts a new thought, unless that leaves too little to read.
    head = re.split(r"\s(?:which|that|where|while|whereby)\s|;", desc, maxsplit=1)[0]
    return (head if len(head) >= 40 else desc).strip().rstrip(",")


def derive_title(text: str) -> str:
    """A short readable title for a record that has none.

    The named system where the abstract introduces one (``"TRACE: a novel benchmark designed to
    evaluate continual learning in LLMs"``), else the first clause of the first sentence; at most
    about ``TITLE_MAX`` characters. ``text`` should already be clean; text that still holds
    LaTeX markup is cleaned first.
    """
    text = clean_text(text) if _LATEX_MARKUP.search(text or "") else re.sub(r"\s+", " ", text or "").strip()
    if not text:
        return "(untitled)"
    for m in _INTRO.finditer(text):
        rest = text[m.end():]
        hit = _NAME_FIRST.match(rest)
        if hit:
            name, desc, paren = hit.group("name"), hit.group("desc"), hit.group("expansion")
            if paren and " " not in paren.strip():  # "Full Name (ACRONYM)" or "Name (ALIAS)"
                if " " in name:
                    return _shorten(f"{paren}: {name}")
                return _shorten(f"{name} ({paren}): {_desc_clause(desc)}")
            if paren:  # "ACRONYM (Full Name)"
                return _shorten(f"{name}: {paren}")
            return _shorten(f"{name}: {_desc_clause(desc)}")
        hit = _EXPANSION_FIRST.match(rest)
        if hit:
            return _shorten(f"{hit.group('name')}: {hit.group('expansion')}")
        hit = _CALLED.match(rest)
        if hit:
            return _shorten(f"{hit.group('name')}: {_desc_clause(hit.group('desc'))}")
    sentence = _first_sentence(text)
    clause = re.split(r"(?<=\w),\s+(?=(?:but|while|which|and|yet|so|where|however)\b)|;\s+|:\s+", sentence)[0]
    if len(clause) < 25:
        clause = sentence
    return _shorten(clause)


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

"""A paper's identifiers: DOI, arXiv and PubMed ids normalised, and the content id of a paper
without one (its normalised abstract or title, in any script), with the aliases older versions
gave it. :mod:`workbench.corpus.paper` makes each paper's id with them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from .titles import derived_titles

__all__ = ['ID_LENGTH', 'MIN_ID_WORDS', 'count_words', 'id_aliases', 'legacy_normalise_for_id', 'normalise_arxiv_id', 'normalise_doi', 'normalise_for_id', 'paper_id', 'paper_ids', 'surname_key', 'text_digest']

ID_LENGTH = 12

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


_ASCII_WORDS = re.compile(r"[a-z0-9]+")


def normalise_for_id(text: str) -> str:
    """Words of any script, separated by single spaces: robust to markup, layout and case.

    NFKC (full-width and compatibility forms to their plain letters, ``ﬁ`` -> ``fi``), then
    casefold (``Straße`` -> ``strasse``, ``ΣΑΣ`` -> ``σασ``), then the runs of letters, digits and
    combining marks of every script (:func:`workbench.corpus.writing_systems.word_runs`): ``"Über-Größe, 大型语言模型!"``
    -> ``"über grösse 大型语言模型"``. Accents are kept: ``é`` and ``e`` are different letters.
    """
    if text.isascii():  # its own NFKC form, and casefold is lower() for ASCII
        return " ".join(_ASCII_WORDS.findall(text.lower()))
    from .writing_systems import word_runs

    return " ".join(word_runs().findall(unicodedata.normalize("NFKC", text).casefold().replace("_", " ")))


def legacy_normalise_for_id(text: str) -> str:
    """How ids were normalised before every script counted (workbench 0.1): accents stripped,
    then only ``[a-z0-9]`` kept, so text in other scripts normalised to nothing. Used only to
    give papers their old id as an alias (:func:`id_aliases`); equal to :func:`normalise_for_id`
    on ASCII text."""
    if not text.isascii():
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return " ".join(_ASCII_WORDS.findall(text.lower()))


def _short_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:ID_LENGTH]


def text_digest(normalised: str) -> bytes:
    """The SHA-256 digest the content id of an abstract alone is the start of (in hex), its text
    through :func:`normalise_for_id` already: deduplication's key of the abstract too
    (:class:`~workbench.dedupe.keys.PaperKeys`), hashed once for both."""
    return hashlib.sha256(("text:" + normalised).encode("utf-8")).digest()


#: An abstract this short ("lorem", "Editorial comment.") does not name a paper on its own: the
#: content id of a record with a shorter abstract also hashes its title (see :func:`paper_id`).
MIN_ID_WORDS = 20


def count_words(normalised: str) -> int:
    """Words of a normalised text; each Chinese or Japanese character counts as one."""
    if not normalised:
        return 0
    spaced = normalised.count(" ") + 1
    if normalised.isascii():
        return spaced
    from .writing_systems import UNSPACED_CHAR

    return spaced + len(UNSPACED_CHAR.findall(normalised))


def surname_key(name: str) -> str:
    """An author's surname, normalised, accents dropped: ``"Smith, J."``, ``"J. Smith"``,
    ``"Smith J"`` -> ``smith``; ``"Müller, Jürgen"`` -> ``muller``; any script."""
    from .writing_systems import strip_marks

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


def _legacy_key(text: str, title: str, year: int | None) -> str:
    """The content key of the old scheme: the abstract alone however short, ASCII letters only,
    no author."""
    norm_text = legacy_normalise_for_id(text)
    if norm_text:
        return "text:" + norm_text
    return f"title:{legacy_normalise_for_id(title)}:{year or ''}"


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
    digest: bytes | None = None,
) -> tuple[str, tuple[str, ...]]:
    """:func:`paper_id` and :func:`id_aliases` at once, each text normalised once
    (``normalised``: ``text`` and ``title`` through :func:`normalise_for_id` already; ``digest``:
    :func:`text_digest` of the normalised text, where made already)."""
    content, legacy = _content_ids(text, title, year, author, normalised, digest)
    key = _identifier_key(doi, arxiv_id, pmid)
    pid = _short_hash(key) if key else content
    return pid, tuple(a for a in dict.fromkeys((content, legacy)) if a != pid)


def _content_ids(text: str, title: str, year: int | None, author: str,
                 normalised: tuple[str, str] | None = None, digest: bytes | None = None) -> tuple[str, str]:
    """The content id, and the content id of the old scheme."""
    normalised = normalised or _normalised(text, title)
    content, legacy = _content_key(text, title, year, author, normalised), _legacy_key(text, title, year)
    alone = digest is not None and len(content) == 5 + len(normalised[0]) and content.startswith("text:")
    content_id = digest.hex()[:ID_LENGTH] if alone else _short_hash(content)  # ("text:" and the abstract)
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

"""A paper's identifiers: DOI, arXiv and PubMed ids normalised, and the content id of a paper
without one (its normalised abstract or title, in any script), with the aliases older versions
gave it. :mod:`workbench.corpus.paper` makes each paper's id with them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

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


@lru_cache(maxsize=1)
def _combining_marks() -> dict:
    """A ``str.translate`` table deleting every combining mark (``unicodedata.combining != 0``;
    none lies above U+1FFFF)."""
    return dict.fromkeys(cp for cp in range(0x20000) if unicodedata.combining(chr(cp)))


_AZ09 = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
#: A ``bytes.translate`` table: ASCII letters (lower-cased) and digits kept, every other byte a space.
_ASCII_SEPARATORS = bytes(ord(chr(c).lower()) if chr(c).lower() in _AZ09 and c < 128 else 32 for c in range(256))
#: Runs of spaces (after one of the tables above, the only white space left).
_SPACES = re.compile(rb"  +")
#: Above this many distinct characters to drop, a text is scanned with a regular expression
#: instead (one ``str.replace`` per distinct character is the fast way for real abstracts).
_MAX_REPLACED = 64
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")
#: The same for UTF-8: bytes of characters beyond ASCII kept as well.
_UTF8_LOWER_SEPARATORS = bytes(c if c >= 0x80 else _ASCII_SEPARATORS[c] for c in range(256))


def _ascii_words(text: bytes) -> str:
    """The runs of ``[a-z0-9]`` of ASCII ``text`` lower-cased, between single spaces (what
    ``" ".join(re.findall("[a-z0-9]+", text.lower()))`` gives, five times faster)."""
    return _SPACES.sub(b" ", text.translate(_ASCII_SEPARATORS)).strip(b" ").decode("ascii")


@lru_cache(maxsize=65536)
def _is_word_char(c: str) -> bool:
    from .writing_systems import word_runs

    return word_runs().fullmatch(c) is not None


def normalise_for_id(text: str) -> str:
    """Words of any script, separated by single spaces: robust to markup, layout and case.

    NFKC (full-width and compatibility forms to their plain letters, ``ﬁ`` -> ``fi``), then
    casefold (``Straße`` -> ``strasse``, ``ΣΑΣ`` -> ``σασ``), then the runs of letters, digits and
    combining marks of every script (:func:`workbench.corpus.writing_systems.word_runs`): ``"Über-Größe, 大型语言模型!"``
    -> ``"über grösse 大型语言模型"``. Accents are kept: ``é`` and ``e`` are different letters.
    """
    if text.isascii():  # its own NFKC form, and casefold is lower() for ASCII
        return _ascii_words(text.encode("ascii"))
    text = unicodedata.normalize("NFKC", text)
    # Casefolding maps each character on its own, so each distinct character beyond ASCII is
    # replaced by its folded form (spaces for what is no word character) and the ASCII ones by
    # one bytes.translate: the definition, as the fallback below writes it, made every read of
    # a corpus several times slower (measured on 50,000 abstracts, with the derived titles' scan).
    changed = [(c, folded) for c in set(_ASCII_RUNS.sub("", text)) if (folded := _folded(c)) != c]
    if len(changed) > _MAX_REPLACED:
        from .writing_systems import word_runs

        return " ".join(word_runs().findall(text.casefold().replace("_", " ")))
    for c, folded in changed:
        text = text.replace(c, folded)
    return _SPACES.sub(b" ", text.encode("utf-8").translate(_UTF8_LOWER_SEPARATORS)).strip(b" ").decode("utf-8")


@lru_cache(maxsize=65536)
def _folded(c: str) -> str:
    """What :func:`normalise_for_id` makes of one character beyond ASCII (in NFKC form): its
    casefolded form, each character of it beyond ASCII that is no word character a space."""
    return "".join(x if x.isascii() or _is_word_char(x) else " " for x in c.casefold())


def legacy_normalise_for_id(text: str) -> str:
    """How ids were normalised before every script counted (workbench 0.1): accents stripped,
    then only ``[a-z0-9]`` kept, so text in other scripts normalised to nothing. Used only to
    give papers their old id as an alias (:func:`id_aliases`); equal to :func:`normalise_for_id`
    on ASCII text.

    Written then as NFKD, combining marks removed, lower case, every character left that is not
    ASCII a separator. NFKD decomposes each character on its own (it then only reorders the
    marks, which go), so each distinct character beyond ASCII is replaced by what that gives it
    (:func:`_legacy_char`): a few ``str.replace`` instead of decomposing the whole text."""
    if not text.isascii():
        others = set(_ASCII_RUNS.sub("", text))
        if len(others) > _MAX_REPLACED:
            text = unicodedata.normalize("NFKD", text).translate(_combining_marks())
        else:
            for c in others:
                text = text.replace(c, _legacy_char(c))
    # Every character left that is not ASCII separates words: "?" does the same.
    return _ascii_words(text.lower().encode("ascii", "replace"))


@lru_cache(maxsize=65536)
def _legacy_char(c: str) -> str:
    """One character as :func:`legacy_normalise_for_id` reads it: its NFKD form without combining
    marks, each character of that beyond ASCII a ``?`` (a separator; no such character has an
    ASCII lower case)."""
    return "".join(ch if ch.isascii() else "?" for ch in unicodedata.normalize("NFKD", c)
                   if not unicodedata.combining(ch))


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


def _legacy_key(text: str, title: str, year: int | None, normalised: tuple[str, str]) -> str:
    """The content key of the old scheme: the abstract alone however short, ASCII letters only,
    no author (text normalises the same both ways where :func:`_normalised_alike`)."""
    norm_text = normalised[0] if _normalised_alike(text) else legacy_normalise_for_id(text)
    if norm_text:
        return "text:" + norm_text
    norm_title = normalised[1] if _normalised_alike(title) else legacy_normalise_for_id(title)
    return f"title:{norm_title}:{year or ''}"


def _normalised_alike(text: str) -> bool:
    """Whether :func:`legacy_normalise_for_id` gives what :func:`normalise_for_id` gives, for
    certain: ASCII text, or text each of whose characters beyond ASCII only separates words both
    ways (a dash, a quote mark, ±, ≥: six in ten abstracts beyond ASCII are spared the old
    normalisation). Such a character is no mark, so it composes with nothing (tested for every
    code point)."""
    return text.isascii() or all(map(_separates_both, set(_ASCII_RUNS.sub("", text))))


@lru_cache(maxsize=65536)
def _separates_both(c: str) -> bool:
    """Whether nothing of ``c`` is kept by either normalisation: no ASCII letter or digit in its
    old form (:func:`_legacy_char`), and nothing but separators in its new one (:func:`_folded`
    of its NFKC form: ``…`` is ``...``, ``²`` is ``2``)."""
    new = _folded(unicodedata.normalize("NFKC", c))
    return (not _AZ09.intersection(_legacy_char(c).lower())
            and all(x == " " or x.isascii() and x.lower() not in _AZ09 for x in new))


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
    return content_id, content_id if legacy == content else _short_hash(legacy)


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

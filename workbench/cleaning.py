"""Clean text and derived titles: what a reader does to an abstract and a missing title.

LaTeX (``\\textbf{…}``, ``R$^3$``, ``$75\\%$``) becomes text with pylatexenc, only where the text
has LaTeX-like markup; white space is normalised. A record without a title gets one derived from
its abstract: the named system it introduces (``TRACE: a novel benchmark ...``), else its first
clause. :func:`title_repeats_abstract` tells a title that adds nothing to its abstract.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["LATEX_MAX_CHARS", "TITLE_MAX", "clean_text", "derive_title", "title_repeats_abstract"]



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


_WORD = re.compile(r"\w+")
_INTRODUCES = re.compile(
    r"\b(?:we|this (?:paper|work|report))\s+(?:\w+\s+)?(?:introduce|propose|present|develop|release|build|construct"
    r"|design|unveil|describe)s?\b",
    re.I,
)


def title_repeats_abstract(title: str, text: str) -> bool:
    """Whether ``title`` says nothing ``text`` does not: made from it (:func:`derive_title`: the
    abstract's first clause, maybe cut with "…", or "NAME: description" taken from the sentence
    that introduces a system), or a title the abstract starts with. Cheap: no LaTeX clean-up, no
    title re-derivation. A reader sets ``Paper.title_derived`` with it, so a title made from
    the abstract and written into an export is still known as such when the export is read."""
    if not title:
        return True
    core = title.rstrip("…").rstrip(" .,;:")
    if core and text.startswith(core):
        return True
    return (
        ":" in title
        and set(_WORD.findall(title.lower())) <= set(_WORD.findall(text.lower()))
        and _INTRODUCES.search(text) is not None
    )


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

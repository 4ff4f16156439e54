"""Clean text: what a reader does to an abstract.

LaTeX (``\\textbf{…}``, ``R$^3$``, ``$75\\%$``) becomes text with pylatexenc, only where the text
has LaTeX-like markup; white space is normalised. The titles a record without one gets are made
in :mod:`workbench.corpus.titles`.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .latex_pieces import latex_pieces

__all__ = ["LATEX_MAX_CHARS", "clean_text", "has_latex_markup", "has_parser_markup", "single_spaced"]

#: Longer texts have their LaTeX commands removed rather than converted (pylatexenc would take
#: minutes over a full article pasted into an abstract field).
LATEX_MAX_CHARS = 100_000
_SUPERSCRIPTS = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")
# A bare % is a percent sign and a bare & an ampersand ("R&D"), not a comment or a column break.
_BARE_PERCENT_OR_AMPERSAND = re.compile(r"(?<!\\)([%&])")
# Which LaTeX-like characters a text holds: a few ``in`` tests (memchr-fast) instead of a regular
# expression's character class, which costs ~30 times as much over an abstract (and ran for
# every field of every record).


def _has_latex_hint(text: str) -> bool:
    """``re.search(r"[\\\\$%{}~^]", text)``: any character that might be LaTeX."""
    return "\\" in text or "$" in text or "%" in text or "{" in text or "}" in text or "~" in text or "^" in text


def has_parser_markup(text: str) -> bool:
    """``re.search(r"[\\\\${}]", text)``: what really needs pylatexenc's parser (``^`` alone does not)."""
    return "\\" in text or "$" in text or "{" in text or "}" in text


_SUPERSCRIPT = re.compile(r"\^\{?([0-9+\-]+)\}?")
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
    if _has_latex_hint(text):
        if has_parser_markup(text):
            text = _parsed(text)
        else:
            text = _specials(text)
            if "^" in text:
                text = unicodedata.normalize("NFC", _SUPERSCRIPT.sub(_superscript, text))
    return single_spaced(text.replace("\u00a0", " "))


def _special(m: re.Match) -> str:
    return _SPECIALS[m.group(0)]


def _specials(text: str) -> str:
    """Text without macros, braces or maths as pylatexenc gives it (tests compare them): only
    its "specials" changed (-- to an en dash, ~ to a space, ...), without parsing it."""
    return _SPECIAL.sub(_special, text)


def _parsed(text: str) -> str:
    """``text`` through pylatexenc (bare ``%`` and ``&`` kept as characters), superscripts, NFC;
    its formulas one by one and the text between them as what it is, where it may be cut there
    (:func:`~workbench.corpus.latex_pieces.latex_pieces`: the same text, a fraction of the parsing)."""
    try:
        if len(text) > LATEX_MAX_CHARS:  # pylatexenc: about 4 s per million characters
            raise ValueError("too long for pylatexenc")
        pieces = latex_pieces(text)
        try:
            converted = None if pieces is None else "".join(map(_piece_text, pieces))
        except Exception:  # (a piece pylatexenc cannot read alone: it may read the whole)
            converted = None
        text = _to_text(text) if converted is None else converted
    except Exception:  # pylatexenc is tolerant; never lose an abstract over markup
        text = re.sub(r"\\[a-zA-Z]+\*?|[{}$]", " ", text)
    text = _SUPERSCRIPT.sub(_superscript, text)
    # pylatexenc gives an accent it has no precomposed letter for as a combining mark
    # (t + U+0308): compose again, so cleaning clean text changes nothing.
    return unicodedata.normalize("NFC", text.replace("{", "").replace("}", ""))


def _to_text(text: str) -> str:
    return _latex_converter().latex_to_text(_BARE_PERCENT_OR_AMPERSAND.sub(r"\\\1", text))


@lru_cache(maxsize=16384)
def _markup_text(piece: str) -> str:
    """A piece with markup as text (the same ``$n$`` and ``\\%`` recur across abstracts)."""
    return _to_text(piece)


def _piece_text(piece: str) -> str:
    return _markup_text(piece) if has_parser_markup(piece) else _specials(piece)


def single_spaced(text: str) -> str:
    """``text`` with each run of white space as one space, and none at either end: what
    ``re.sub(r"\\s+", " ", text).strip()`` gives (str.split and re's ``\\s`` share one
    definition of white space), without copying text that is single-spaced already."""
    # Every white space character but the ASCII space is "not printable" (categories Cc, Zs, Zl, Zp).
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def has_latex_markup(text: str) -> bool:
    """Whether ``text`` holds markup only pylatexenc's parser turns into text (``\\``, ``$``, ``{``)."""
    return has_parser_markup(text) or "^" in text

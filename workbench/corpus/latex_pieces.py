"""An abstract with LaTeX cut into what pylatexenc must parse and what it need not.

pylatexenc parses ~500 characters a millisecond, so an arXiv abstract with one ``$n$`` in it
cost 2-5 ms, and a quarter of an arXiv export's abstracts have markup: reading one took ten
times as long as reading as many abstracts without. :func:`latex_pieces` cuts such a text into

- its formulas (``$...$`` outside braces), each converted on its own and once per distinct
  formula (``$n$`` recurs across abstracts);
- its macros and brace groups (``\\emph{...}``, ``{\\it ...}``), each with what follows it
  until it has its arguments and a word after them, and its escaped characters (``\\%``);
- the text between them, without markup: converted by the specials alone (``--``, ``''``, ``~``:
  what pylatexenc does to such text, as :func:`workbench.corpus.clean.clean_text`'s fast path).

The pieces joined give what the whole text gives (tests compare them on arXiv abstracts and on
made-up texts of markup in any order): pylatexenc gives a formula's text without its spaces
whether it stands alone or in a sentence, a macro eats only the space right after its name, and
nothing is cut where a macro may still take what follows as an argument (counted with
pylatexenc's own argument specifications: a macro taking a ``$`` would turn every later formula
inside out, so such a text is not cut at all). Neither is a text with what is not simply read:
display maths, ``\\(``, environments, verbatim, definitions, a ``$`` in a formula's braces, an
unbalanced ``}``, a comment after ``\\\\``; it is converted whole, as before.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["latex_pieces"]

# What the cutting follows: a control sequence (a word or one character), a dollar, a brace.
# (pylatexenc's control words are of letters of any script: one going on beyond ASCII is not cut.)
_TOKEN = re.compile(r"\\(?:[a-zA-Z]+|.)|[${}[]", re.S)
# Present anywhere: the text is converted whole.
# (``\\%``: a line break, then a comment to the line's end, which the % escaping leaves as it is.)
_WHOLE = ("$$", "\\(", "\\[", "\\begin", "\\verb", "\\url", "\\href", "\\path", "\\if", "\\def", "\\new",
          "\\renew", "\\provide", "\\catcode", "\\makeatletter", "\\\\%", "\\\\&")
# Control symbols that take no argument (an escaped character, a space): they settle nothing.
_SYMBOLS = frozenset("\\%\\&\\$\\#\\_\\{\\}\\ \\,\\;\\!\\/\\-\\@\\|".split("\\")[1:])


def latex_pieces(text: str) -> list[str] | None:
    """``text`` cut into pieces, in order (formulas, macros and groups with what they take,
    escaped characters, text without markup); None where it is converted whole."""
    if any(mark in text for mark in _WHOLE):
        return None
    cuts = [0]
    depth, math, math_depth = 0, False, 0
    owed = [0]  # at each depth of braces: arguments a macro there may still take
    since = 1  # 1: something other than white space outside braces since the last macro of the text
    prev = 0
    for m in _TOKEN.finditer(text):
        token, at = m.group(), m.start()
        if not math and depth == 0 and (not since or owed[0]):
            since = _settle(text, prev, at, since, owed[0], cuts)
        if owed[depth] and at > prev:  # (each word an argument at most: "--" is one token)
            owed[depth] = max(0, owed[depth] - len(text[prev:at].split()))
        prev = m.end()
        settled = depth == 0 and not math and since and not owed[0]
        if token == "[":
            if owed[depth]:
                return None  # (an optional argument: it reaches to its "]", words and all)
            since = since or not math and depth == 0
        elif token == "{":
            cuts += (at,) if settled else ()
            depth += 1
            owed[depth:] = [0]
        elif token == "}":
            depth -= 1
            if depth < 0 or math and depth < math_depth:
                return None
            owed[depth] = max(0, owed[depth] - 1)  # (a group is one argument; none reaches out of it)
            if depth == 0 and not math and since and not owed[0]:
                cuts.append(m.end())
        elif token == "$":
            if owed[depth] or math and depth != math_depth:
                return None  # a macro would take the $ as its argument, or a formula in a formula's braces
            if math:
                math = False
                if depth == 0 and since and not owed[0]:
                    cuts.append(m.end())
            else:
                cuts += (at,) if settled else ()
                math, math_depth = True, depth
        else:  # a control sequence: an argument of the one before, and maybe taking some of its own
            if (after := text[prev:prev + 1]) and not after.isascii() and after.isalpha():
                return None
            symbol = token[1:] in _SYMBOLS
            owed[depth] = max(0, owed[depth] - 1) + (0 if symbol else _arguments(token[1:]))
            if math:
                continue
            cuts += ((at, m.end()) if symbol else (at,)) if settled else ()
            if not symbol:
                since = 0  # a macro in the text: what follows may be its arguments, or lose a space
    if math and any(owed):
        return None
    if not math and depth == 0 and (not since or owed[0]):
        _settle(text, prev, len(text), since, owed[0], cuts)
    cuts.append(len(text))
    return [text[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]


def _settle(text: str, start: int, end: int, since: int, owed: int, cuts: list[int]) -> int:
    """``since`` after the text ``text[start:end]`` (no markup, outside braces), where a macro
    before may still take ``owed`` arguments (a word is one at most); a cut at the first space
    after which it has them all and has something other than white space after it (a macro
    eats the white space right after its name)."""
    at, words = start, 0
    while (space := text.find(" ", at, end)) >= 0:
        if text[at:space].strip():
            words, since = words + 1, 1
        if since and words >= owed:
            cuts.append(space)
            break
        at = space + 1
    return 1 if since or text[start:end].strip() else 0


@lru_cache(maxsize=4096)
def _arguments(name: str) -> int:
    """How many arguments pylatexenc's parser may give the macro ``\\name`` (the places of its
    argument specification: ``*``, ``[...]`` and ``{...}``)."""
    spec = _walker_macros().get_macro_spec(name)
    return len(getattr(getattr(spec, "args_parser", None), "argspec", "") or "")


@lru_cache(maxsize=1)
def _walker_macros():
    from pylatexenc import latexwalker

    return latexwalker.get_default_latex_context_db()

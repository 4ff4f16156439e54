"""How a value is written into each export format so that it reads back as it was.

An export must never let the text in it change the file's structure: a note with a line that
starts ``@article{`` must not start a BibTeX entry, a title with a newline and ``ER  -`` must
not end a RIS record, a value ending in a backslash must not swallow its closing brace. And
the workbench's own readers (:mod:`workbench.readers`) must read an export back as the same
papers, with the same ids, titles, abstracts, authors and tags. The rules, per format:

BibTeX
    Fields the readers clean as LaTeX (title, author, journal, keywords) are written as LaTeX:
    ``\\ { } $ % & # _ ~ < >`` escaped, ``--``, ``''``, `````` and ``!```` broken with ``{}``
    so they stay two characters, white space folded to single spaces (the readers fold it too);
    an author's escapes are braced, and a name holding the word "and" is braced whole, so it
    stays one author; tags are separated by ``, `` (``; `` when a tag holds a parenthesis, as
    the readers keep ``x (a, b)`` whole). Braces in these fields are escaped, but every
    workbench reader drops braces from titles and names, so they do not come back (tags cannot
    hold them: ``check_tag`` refuses what an export could not carry). Fields kept as
    they are (abstract, annote, doi, url) are written verbatim, with three guards the
    workbench's BibTeX reader undoes: a ``{}`` before an ``@`` that starts a line (else it
    would start an entry), a space after a final backslash (else it would escape the closing
    brace; readers strip it), and a value whose braces do not balance goes in double quotes
    with each ``"`` written ``{"}`` (BibTeX's way to put a quote in a quoted value). Line ends
    are written as ``\\n`` and NUL characters are dropped, as every workbench reader does.
    A ``^`` is left as it is: LaTeX has no escape for it that the readers turn back into ``^``.
RIS
    One line per value: every run of white space (newlines included) becomes one space, which
    also folds abstracts and notes (their clean text and so the paper's id do not change; JSONL
    and BibTeX keep the line breaks). A title, author, journal or tag that the readers would
    change when cleaning it as LaTeX (``\\alpha``, ``$5``, ``~``) is written LaTeX-escaped as in
    BibTeX; anything else is written as it is. A ``;`` in a URL is written ``%3B`` (RIS splits
    URLs at ``;``).
CSV
    A value starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return (or line feed,
    which a carriage return becomes: line ends in values are written as ``\\n``), after any
    apostrophes, gets one more ``'`` in front (OWASP's CSV injection advice), so a spreadsheet
    shows it as text; plain numbers such as ``-1`` are left alone. The workbench's CSV reader
    removes one ``'`` from exactly such values (one or more apostrophes, then one of those
    characters), so a title that really starts ``'=`` is written ``''=`` and reads back as
    ``'=``, and a title starting with an apostrophe and a letter is never touched.
Markdown
    Text is shown as text: ``& < >`` become HTML entities, the characters Markdown (and the
    math of Jupyter's renderer) would read as markup are escaped with a backslash, each line
    of a note loses its indentation and has a list, heading or rule marker at its start
    escaped; tags are code spans fenced longer than any run of backticks in them.
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "bibtex_keywords",
    "bibtex_name",
    "bibtex_raw",
    "csv_cell",
    "fold",
    "latex",
    "md_code",
    "md_lines",
    "md_text",
    "ris_text",
    "ris_url",
]


def fold(text) -> str:
    """Every run of white space (newlines, tabs, other separators) as one space, stripped; NUL
    characters dropped (a value set through the API may hold them; no reader keeps them from a
    file, and one in an export would make it look binary)."""
    text = str(text)
    return " ".join((text.replace("\x00", "") if "\x00" in text else text).split())


# ----------------------------------------------------------------------------- LaTeX

_LATEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "%": r"\%", "&": r"\&",
          "#": r"\#", "_": r"\_", "~": r"\textasciitilde{}", "<": "$<$", ">": "$>$", "": "{}"}
# The specials; an & that could start an HTML entity (readers unescape those) gets a {} after
# it; the empty point inside --, '', `` and !` / ?` (pylatexenc's ligatures) becomes {}.
_LATEX_RE = re.compile(r"(?P<entity>&(?=[#\w]))|[\\{}$%&#_~<>]|(?<=-)(?=-)|(?<=')(?=')|(?<=[`!?])(?=`)")


def _latex_one(m: re.Match) -> str:
    return r"\&{}" if m.group("entity") else _LATEX[m.group(0)]


def latex(text) -> str:
    """Plain text as LaTeX that LaTeX and the workbench's readers both read as that text."""
    return _LATEX_RE.sub(_latex_one, fold(text))


_ESCAPE = re.compile(r"\\(?:[a-zA-Z]+\{\}|[{}$%&#_](?:\{\})?)")


def bibtex_name(name: str) -> str:
    """One author for BibTeX's ``author = {A and B}``, as LaTeX.

    Each escape is braced (``{\\%}``): bibtexparser 2.1 splits names wrongly around an escape
    next to a space. A name holding the word "and" is braced whole, or it would be two names.
    """
    text = _ESCAPE.sub(lambda m: "{" + m.group(0) + "}", latex(name))
    return "{" + text + "}" if re.search(r"\sand\s", f" {text} ", re.I) else text


def bibtex_keywords(tags: list[str]) -> str:
    """Tags as a ``keywords`` value the workbench's reader splits back into exactly these tags.

    ``a, b`` as biblatex and Zotero expect; ``a; b`` where a tag holds a parenthesis (the reader
    keeps ``x (a, b)`` together); each tag braced when that is still not read back (one tag
    with spaces would be split like arXiv categories).
    """
    return _keywords(tuple(tags))


@functools.lru_cache(maxsize=4096)  # papers share their sets of tags
def _keywords(tags: tuple[str, ...]) -> str:
    from ..readers.values import split_keywords

    escaped = [latex(t) for t in tags]
    want = [fold(t) for t in tags]
    for value in (", ".join(escaped), "; ".join(escaped)):
        if split_keywords(value) == want:
            return value
    return "; ".join("{" + e + "}" for e in escaped)


_LINE_ENDS = re.compile(r"\r\n?")
_LINE_START_AT = re.compile(r"(\n[^\S\n]*)((?:\{\})*@)")
_BRACE = re.compile(r"(?<!\\)[{}]")
_QUOTE = re.compile(r'(?<!\\)"')


def _balanced(text: str) -> bool:
    if "{" not in text and "}" not in text:
        return True
    depth = 0
    for m in _BRACE.finditer(text):
        depth += 1 if m.group(0) == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def bibtex_raw(text: str) -> tuple[str, str]:
    """A value kept as it is (abstract, notes): ``(content, enclosing)``, see the module doc."""
    text = str(text)
    if "\r" in text or "\x00" in text:
        text = _LINE_ENDS.sub("\n", text).replace("\x00", "")
    if "@" in text:
        text = _LINE_START_AT.sub(r"\1{}\2", text)
    if text.endswith("\\"):
        text += " "
    if _balanced(text):
        return text, "{"
    return _QUOTE.sub('{"}', text), '"'


# ----------------------------------------------------------------------------- RIS

def ris_text(value: str, reread) -> str:
    """A one-line RIS value; LaTeX-escaped only when ``reread`` (what the reader does to it)
    would not give it back."""
    text = fold(value)
    return text if reread(text) == text else latex(text)


def ris_url(value: str) -> str:
    return fold(value).replace(";", "%3B")


# ----------------------------------------------------------------------------- CSV

_FORMULA = re.compile(r"'*[=+\-@\t\r\n]")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def csv_cell(value) -> str:
    """A CSV value a spreadsheet shows as text, never runs as a formula (see the module doc)."""
    text = _LINE_ENDS.sub("\n", "" if value is None else str(value))
    if _FORMULA.match(text) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


# ----------------------------------------------------------------------------- Markdown

_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_RE = re.compile(r"[&<>]|[\\`*_\[#|~$]")
_MD_LINE_START = re.compile(r"[-+=]|\d+(?=[.)])")


def md_text(text) -> str:
    """One line of text for Markdown: white space folded, HTML and markup escaped."""
    return _MD_RE.sub(lambda m: _MD_ENTITIES.get(m.group(0)) or "\\" + m.group(0), fold(text))


def md_lines(text: str) -> list[str]:
    """The lines of a note as Markdown lines that show them as written, not as markup."""
    out = []
    for line in _LINE_ENDS.sub("\n", str(text)).split("\n"):
        line = md_text(line)
        m = _MD_LINE_START.match(line)
        if m:
            end = m.end()
            line = (line[:end] + "\\" + line[end:]) if m.group(0)[0].isdigit() else "\\" + line
        out.append(line)
    return out


def md_code(text: str) -> str:
    """A code span that holds ``text`` whatever backticks it has."""
    text = fold(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"

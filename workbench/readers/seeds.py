"""The seed text dumps: scraped pages of abstracts separated by blank lines.

Layout of one file::

    <collection name>              first paragraph: an author page's name or a feed's name

    Zhiheng Xi, Wenxiang Chen et al.   optional author line before an abstract

    <abstract paragraph>

Author lines are short comma-separated lists of names, optionally ending in "et al.".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ..errors import ReaderError
from ..corpus.paper import Paper
from ..corpus.clean import clean_text
from ..corpus.titles import derive_title
from ..corpus.ids import paper_ids

__all__ = ["looks_like_seed_text", "read_seed_text"]

_NAME = r"[A-Z\u00c0-\u024f][\w'\u00c0-\u024f.\-]*(?:\s+[A-Z\u00c0-\u024f][\w'\u00c0-\u024f.\-]*){0,4}"
_AUTHOR_LINE = re.compile(rf"^{_NAME}(?:\s*,\s*{_NAME})*(?:,?\s+et\s+al\.?)?$")
_MAX_AUTHOR_LINE = 400


def _paragraphs(text: str):
    """(first line number, paragraph text) for each blank-line separated paragraph."""
    start, buf = None, []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if start is None:
                start = lineno
            buf.append(line.strip())
        elif buf:
            yield start, " ".join(buf)
            start, buf = None, []
    if buf:
        yield start, " ".join(buf)


def is_author_line(paragraph: str) -> bool:
    if len(paragraph) > _MAX_AUTHOR_LINE or paragraph.endswith((".", "?", "!")) and not paragraph.endswith("al."):
        return False
    if not _AUTHOR_LINE.match(paragraph):
        return False
    # An abstract sentence never looks like "Name Name, Name Name"; require a name list.
    return "," in paragraph or re.search(r"\bet\s+al\.?$", paragraph) is not None


def parse_author_line(paragraph: str) -> tuple[tuple[str, ...], bool]:
    et_al = re.search(r",?\s+et\s+al\.?$", paragraph) is not None
    names = re.sub(r",?\s+et\s+al\.?$", "", paragraph)
    return tuple(n.strip() for n in names.split(",") if n.strip()), et_al


def looks_like_seed_text(head: str) -> bool:
    """Plain prose paragraphs with no bibliographic tags: the seed dump layout."""
    paras = [p for _, p in _paragraphs(head)]
    if len(paras) < 2:
        return False
    first = paras[0]
    if len(first) > 120 or re.match(r"^(TY|PMID|FN|PT|@\w+)\b", first):
        return False
    return any(len(p) > 200 for p in paras[1:])


def read_seed_text(path: str | Path, text: str | None = None, display_name: str | None = None, *,
                   cut: Callable[[str, int], str] | None = None) -> list[Paper]:
    """Read one seed dump into papers (in file order). ``cut(abstract, line)``: the abstract as
    it is kept (a reader's cut of a value too long, see :func:`~.fields.cut_long`)."""
    path = Path(path)
    name = display_name or str(path)
    if text is None:
        text = path.read_text(encoding="utf-8-sig")
    paragraphs = list(_paragraphs(text))
    if not paragraphs:
        raise ReaderError("the file is empty; expected a collection name, then abstracts separated by blank lines", name)
    _, collection = paragraphs[0]
    if len(collection) > 200:
        raise ReaderError(
            "the first paragraph should name the collection (an author or a feed), "
            f"got {len(collection)} characters of text; add a short name line and a blank line at the top",
            name,
            1,
        )
    papers: list[Paper] = []
    pending_authors: tuple[tuple[str, ...], bool, int] | None = None
    for lineno, para in paragraphs[1:]:
        if is_author_line(para):
            pending_authors = (*parse_author_line(para), lineno)
            continue
        authors, et_al = (pending_authors[0], pending_authors[1]) if pending_authors else ((), False)
        start_line = pending_authors[2] if pending_authors else lineno
        pending_authors = None
        para = cut(para, start_line) if cut is not None else para
        clean = clean_text(para)
        # DOIs or arXiv ids inside an abstract usually name a dataset or a cited work, not this
        # paper, so the id comes from the text itself.
        pid, aliases = paper_ids(text=clean)
        papers.append(
            Paper(
                id=pid,
                aliases=aliases,
                title=derive_title(clean),
                title_derived=True,
                abstract=para,
                text=clean,
                authors=authors,
                et_al=et_al,
                year=None,
                collection=collection,
                source=f"{name}:{start_line}",
            )
        )
    return papers

"""Paper text as safe HTML: everything escaped, search terms and key terms marked.

Abstracts come from files anyone can write: ``<script>`` or ``<img src=x onerror=...>`` in an
abstract must stay inert text. Every function here escapes first and only ever adds its own
``<mark>`` tags around escaped text.
"""

from __future__ import annotations

import html
import re
from typing import Iterable, Mapping

from ..corpus.writing_systems import join_cjk, term_pattern

__all__ = ["escape", "highlight", "authors_line", "citations_html", "short_title", "titles_line"]


def escape(text) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def highlight(text: str, terms: Mapping[str, str] | Iterable[str], css_class: str = "wb-hit") -> str:
    """Escape ``text`` and wrap each occurrence of ``terms`` in ``<mark class=...>``.

    ``terms`` is a list (all marked with ``css_class``) or a mapping term -> class. Matching is
    case-insensitive on word starts, anywhere for Chinese, Japanese and Korean terms (their
    words are not separated by spaces); longer terms win where they overlap.
    """
    classes = dict(terms) if isinstance(terms, Mapping) else {t: css_class for t in terms}
    classes = {join_cjk(t.strip().lower()): c for t, c in classes.items() if t and t.strip()}
    if not classes or not text:
        return escape(text)
    ordered = sorted(classes, key=len, reverse=True)
    pattern = re.compile("|".join(f"(?:{term_pattern(t)})" for t in ordered), re.I)
    out, last = [], 0
    for m in pattern.finditer(text):
        out.append(escape(text[last : m.start()]))
        key = re.sub(r"\s+", " ", m.group(0).lower())
        css = escape(classes.get(key, css_class))
        out.append(f'<mark class="{css}">{escape(m.group(0))}</mark>')
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def titles_line(titles: list[str], limit: int = 2, width: int = 40) -> str:
    """Papers named by short title: “A”; “A” and “B”; “A”, “B” and 3 more."""
    shown = [f"“{short_title(t, width)}”" for t in titles[:limit]]
    more = len(titles) - len(shown)
    if more:
        return ", ".join(shown) + f" and {more} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1] if shown else "no papers"


def authors_line(authors, et_al: bool = False, limit: int = 6) -> str:
    authors = list(authors or [])
    shown = ", ".join(authors[:limit])
    if et_al or len(authors) > limit:
        shown += " et al."
    return shown or "(authors unknown)"


def citations_html(review, paper_id: str, limit: int = 5) -> str:
    """"cites N / cited by M in this review" with the titles of those papers (the first
    ``limit`` of each, escaped, in a closed ``<details>``); "" when the review's sources carry no
    citations at all (most exports: nothing to say)."""
    links = review.field.links()
    if not len(links) and not links.references:
        return ""
    found = review.field.citations(paper_id)

    def titles(ids) -> str:
        shown = "".join(f"<li>{escape(review.paper(i).title)} <code>{escape(i)}</code></li>" for i in ids[:limit])
        more = f"<li>… and {len(ids) - limit} more</li>" if len(ids) > limit else ""
        return f"<ul>{shown}{more}</ul>"

    summary = escape(found.describe())
    if not found.cites and not found.cited_by:
        return f"<div class='wb-meta wb-citations'>{summary}</div>"
    parts = ([f"cites:{titles(found.cites)}"] if found.cites else []) + (
        [f"cited by:{titles(found.cited_by)}"] if found.cited_by else [])
    return f"<details class='wb-meta wb-citations'><summary>{summary}</summary>{''.join(parts)}</details>"


def short_title(title: str, width: int = 40) -> str:
    """A paper's title cut at a word before ``width`` characters, with "…" (plain text: escape it
    to show it). How a message names a paper: "undid: maybe on “Deep learning for…”"."""
    title = " ".join(str(title or "").split())
    if len(title) <= width:
        return title
    cut = title[: width - 1]
    if " " in cut[width // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,.;:-") + "…"

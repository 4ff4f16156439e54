"""What deduplication compares of a paper besides its identifiers (:class:`PaperKeys`).

Keys are a function of the paper. The reader that makes a paper has its normalised texts at
hand and makes its keys with it (``readers.fields.build_paper``); they travel beside the papers,
in the same order, to :func:`~workbench.dedupe.find_duplicates` (its ``keys``), which works out
those of papers that come without them.
"""

from __future__ import annotations

from typing import NamedTuple

from ..corpus.ids import count_words, normalise_for_id, text_digest
from ..corpus.paper import Paper

__all__ = ["PaperKeys", "title_key"]


def title_key(title: str) -> str:
    """A title as deduplication compares it: normalised (``normalise_for_id``); "" without one,
    or for "(untitled)"."""
    return "" if title in ("", "(untitled)") else normalise_for_id(title)


class PaperKeys(NamedTuple):
    """What deduplication compares of a paper besides its identifiers, worked out once per paper."""

    text: bytes  # a digest of the normalised abstract (text_digest; b"" without one): equal abstracts, equal digests
    words: int  # words of the normalised abstract (count_words)
    title: str  # the normalised title (title_key)

    @classmethod
    def of(cls, paper: Paper, text: str | None = None, title: str | None = None,
           digest: bytes | None = None) -> "PaperKeys":
        """The keys of ``paper``; ``text`` and ``title``: its text and title through
        :func:`~workbench.corpus.ids.normalise_for_id` already, ``digest``: :func:`text_digest` of
        that text (a reader has them at hand)."""
        text = (normalise_for_id(paper.text) if paper.text else "") if text is None else text
        if paper.title in ("", "(untitled)"):
            title = ""
        elif title is None:
            title = normalise_for_id(paper.title)
        digest = (text_digest(text) if text else b"") if digest is None else digest
        return cls(digest, count_words(text), title)

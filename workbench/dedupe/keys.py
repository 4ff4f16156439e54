"""What deduplication compares of a paper besides its identifiers (:class:`PaperKeys`), worked
out once per paper, by the reader that made it (:func:`remember_keys`) or at first use
(:func:`paper_keys`), and kept with the paper for as long as it lives."""

from __future__ import annotations

import weakref
from typing import NamedTuple

from ..corpus.ids import MIN_ID_WORDS, count_words, normalise_for_id, text_digest
from ..corpus.paper import Paper

__all__ = ["PaperKeys", "paper_keys", "remember_keys"]


class PaperKeys(NamedTuple):
    """What deduplication compares of a paper besides its identifiers, worked out once per paper."""

    text: bytes  # a digest of the normalised abstract (text_digest; b"" without one): equal abstracts, equal digests
    words: int  # words of the normalised abstract (count_words; exact below MIN_ID_WORDS, what it is compared with)
    title: str  # the normalised title ("" without one, or for "(untitled)")

    @classmethod
    def of(cls, paper: Paper, text: str | None = None, title: str | None = None,
           digest: bytes | None = None) -> "PaperKeys":
        """The keys of ``paper``; ``text`` and ``title``: its text and title through
        :func:`~workbench.corpus.paper.normalise_for_id` already, ``digest``: :func:`text_digest` of
        that text (a reader has them at hand)."""
        text = (normalise_for_id(paper.text) if paper.text else "") if text is None else text
        if paper.title in ("", "(untitled)"):
            title = ""
        elif title is None:
            title = normalise_for_id(paper.title)
        digest = (text_digest(text) if text else b"") if digest is None else digest
        return cls(digest, count_words(text, MIN_ID_WORDS), title)


# Keys are a function of the (immutable) paper, so a paper's keys are never stale: they are made
# once, by the reader that made the paper (remember_keys) or at first use, and go with the paper.
# Held by the paper's identity (a WeakKeyDictionary would hash every field of the paper, twice a
# paper per read), and dropped when the paper is.
_KEYS: dict[int, tuple["_Ref", PaperKeys]] = {}


class _Ref(weakref.ref):
    """A weak reference to a paper that knows its key in ``_KEYS``."""

    __slots__ = ("key",)


def _drop(ref: _Ref) -> None:
    entry = _KEYS.get(ref.key)
    if entry is not None and entry[0] is ref:
        del _KEYS[ref.key]


def paper_keys(paper: Paper) -> PaperKeys:
    """:class:`PaperKeys` of ``paper``, worked out once."""
    entry = _KEYS.get(id(paper))
    if entry is not None and entry[0]() is paper:
        return entry[1]
    keys = PaperKeys.of(paper)
    remember_keys(paper, keys)
    return keys


def remember_keys(paper: Paper, keys: PaperKeys) -> None:
    """Keep ``keys`` (made by :meth:`PaperKeys.of` where the normalised texts were at hand) for ``paper``."""
    ref = _Ref(paper, _drop)
    ref.key = id(paper)
    _KEYS[ref.key] = (ref, keys)

"""Where a pattern can match in a text, found with ``str.find`` for the words its matches start
with instead of the regular expression engine trying every position (derived titles,
:mod:`workbench.corpus.titles`: "we propose", "this paper studies")."""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["UNSEEN", "TextView", "scan", "view_of"]


class TextView:
    """A text lower-cased for :func:`scan`, with the places of each start found in it so far
    (the two scans of :func:`workbench.corpus.titles.derive_title` look for "we " and "this " both)."""

    __slots__ = ("lowered", "_found")

    def __init__(self, lowered: str):
        self.lowered, self._found = lowered, {}

    def places(self, starts: tuple[str, ...]) -> list[int]:
        out = []
        for start in starts:
            found = self._found.get(start)
            if found is None:
                found, at = [], self.lowered.find(start)
                while at >= 0:
                    found.append(at)
                    at = self.lowered.find(start, at + 1)
                self._found[start] = found
            out += found
        return sorted(out)


def view_of(text: str) -> TextView | None:
    """``text`` lower-cased, where :func:`scan` may search it with ``str.find``; None where it
    must be scanned whole (see :func:`scan`)."""
    lowered = text.lower()
    if not text.isprintable() or len(lowered) != len(text) or not text.isascii() and ("ı" in text or "ſ" in text):
        return None
    return TextView(lowered)


UNSEEN = object()


def scan(pattern: re.Pattern, text: str, starts: tuple[str, ...], view=UNSEEN) -> Iterator[re.Match]:
    """What ``pattern.finditer(text)`` gives, where every match of ``pattern`` starts with one of
    ``starts`` (lower case, any case in ``text``; a space in them stands for any white space).

    The regular expression engine tries a case-insensitive pattern at every position of the
    text; ``str.find`` finds the few places worth trying several times faster. Text is searched
    that way when its only white space is the space (an abstract with its white space
    normalised, as derived titles read it; every other white space character is "not
    printable"), lower-casing it keeps every position (no character becomes two) and it holds
    none of the three characters that match a letter of the alphabet case-insensitively without
    lower-casing to it (``ı`` and ``ſ``; ``İ`` becomes two).
    Other text is scanned whole. ``view``: :func:`view_of` of ``text``, when known already."""
    view = view_of(text) if view is UNSEEN else view
    if view is None:
        yield from pattern.finditer(text)
        return
    end = 0
    for at in view.places(starts):
        if at >= end and (m := pattern.match(text, at)):
            yield m
            end = m.end()

"""Authors and venues as one key each, however sources write them.

An author's key is the surname and the first initial, without accents or case:
``"Müller, Jürgen"``, ``"Jürgen Müller"``, ``"J. Muller"``, ``"Muller J"`` and
``"MÜLLER, J.-P."`` are all ``muller j``. Particles belong to the surname (``"Ludwig van
Beethoven"`` and ``"van Beethoven, L."`` are ``van beethoven l``). Two people sharing a surname
and an initial share a key: counts per key are an upper bound, as in bibliometric tools that
match on "surname, initial" (Web of Science, litstudy). A venue's key is its name without case,
accents, punctuation or a leading "The".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from ..corpus.ids import normalise_for_id
from ..corpus.writing_systems import strip_marks

__all__ = ["author_key", "display_names", "venue_key"]

_PARTICLES = frozenset("van von der den de del della di da dos du la le ten ter zu vom".split())
_INITIALS = re.compile(r"^(?:[A-Z]\.?-?){1,4}$")


def _plain(text: str) -> str:
    return normalise_for_id(strip_marks(text))


def _split(name: str) -> tuple[str, str]:
    """(surname, given names) of a name as written."""
    if "," in name:
        surname, given = name.split(",", 1)
        return surname, given
    parts = name.split()
    if len(parts) > 1 and _INITIALS.match(parts[-1]):  # "Muller J", "Smith JA" (PubMed, WoS)
        return " ".join(parts[:-1]), parts[-1]
    start = len(parts) - 1
    while start > 1 and parts[start - 1].lower() in _PARTICLES:
        start -= 1
    return " ".join(parts[start:]), " ".join(parts[:start])


@lru_cache(maxsize=1 << 17)
def author_key(name: str) -> str:
    """``surname initial`` (see the module docstring); ``""`` for an empty name."""
    surname, given = _split((name or "").strip())
    surname, given = _plain(surname), _plain(given)
    if not surname:
        return given
    return f"{surname} {given[0]}" if given else surname


@lru_cache(maxsize=1 << 15)
def venue_key(venue: str | None) -> str:
    key = _plain(venue or "")
    return key[4:] if key.startswith("the ") else key


def _given_names(written: Iterable[str]) -> set[str]:
    """The first given names spelled out (not initials) among ways of writing one author."""
    out = set()
    for name in written:
        given = _plain(_split(name.strip())[1]).split()
        if given and len(given[0]) > 1:
            out.add(given[0])
    return out


def display_names(names: Iterable[str], key=author_key, only: set[str] | None = None) -> dict[str, str]:
    """Key -> the way it is written most often (ties: the longest, then the first seen). For
    authors whose key stands for several spelled-out first names (``Kim, Ji-Eun`` and ``Kim,
    Jae``): ``Kim, J. (2 given names)``, so a count is never read as one person's. ``only``:
    the keys wanted (default: all)."""
    seen: dict[str, Counter] = {}
    for name in names:
        k = key(name)
        if k and (only is None or k in only):
            seen.setdefault(k, Counter())[name.strip()] += 1
    out = {}
    for k, c in seen.items():
        shown = max(c, key=lambda n: (c[n], len(n)))
        given = _given_names(c) if key is author_key else set()
        if len(given) > 1:
            surname = _split(shown)[0].strip()
            shown = f"{surname}, {k.rsplit(' ', 1)[-1].upper()}. ({len(given)} given names)"
        out[k] = shown
    return out

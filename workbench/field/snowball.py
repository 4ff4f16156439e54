"""Citation searching (snowballing): the works a set of papers cite, or that cite them, outside
the corpus.

Backward: the works the *from* papers' sources list as references (``Paper.references``);
forward: the works their sources list as citing them (``Paper.cited_by``, which Semantic Scholar
exports carry). An entry is one work named by its link keys (``doi:``, ``openalex:``, ``pmid:``,
``s2:``, ``arxiv:``, as :mod:`workbench.readers.citations` normalises them); entries of different
papers naming the same work by a shared key are one work. A work that resolves to a paper of the
corpus (:func:`~workbench.field.links.link_keys`) is not a candidate: it is already in the review.
Each candidate counts the *from* papers pointing to it (each paper once), and candidates are
ranked by that count (ties: the first key, so the order is the same on every run).

The lookup files a database accepts: a DOI list (one per line) and OpenAlex filters, one line of
at most :data:`OPENALEX_OR_LIMIT` ids each (OpenAlex ORs at most 100 values in one filter):
``openalex:W1|W2|...`` for the candidates themselves and, forward, ``cites:W1|W2|...`` for the
works citing the *from* papers (what OpenAlex finds where the records carry no citations).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..corpus.paper import PaperInfo
from ..errors import InputError
from .links import link_keys

__all__ = ["DIRECTIONS", "OPENALEX_OR_LIMIT", "Candidate", "Snowball", "snowball"]

#: backward: the works the papers cite; forward: the works citing them.
DIRECTIONS = ("backward", "forward")
#: The most values OpenAlex ORs in one filter (``a|b|...``).
OPENALEX_OR_LIMIT = 100
_ID_KINDS = ("doi", "openalex", "pmid", "s2", "arxiv")


@dataclass(frozen=True)
class Candidate:
    """A work outside the corpus that ``count`` of the *from* papers point to (``by``: their ids),
    with the ids the sources gave for it (None: not given)."""

    count: int
    by: tuple[str, ...]
    doi: str | None = None
    openalex: str | None = None  # "W2741809807"
    pmid: str | None = None
    s2: str | None = None
    arxiv: str | None = None

    @property
    def key(self) -> str:
        """The work's first id, as a database would take it (DOI, else OpenAlex, PMID, ...)."""
        for kind in _ID_KINDS:
            value = getattr(self, kind)
            if value:
                return f"{kind}:{value}"
        return ""


@dataclass(frozen=True)
class Snowball:
    """What :func:`snowball` found: ``candidates`` ranked (most pointed-to first); ``entries``:
    the references (or citations) the *from* papers' sources carry, each once per paper;
    ``inside``: those naming a paper of the corpus; ``with_lists``: the *from* papers whose
    source carries such a list at all."""

    direction: str
    from_ids: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    entries: int
    inside: int
    with_lists: int
    from_openalex: tuple[str, ...] = ()  # the from papers' own OpenAlex ids (forward lookups)
    basis: str = ""  # which papers they are, in words ("the 12 papers included at full text")

    def __len__(self) -> int:
        return len(self.candidates)

    def frame(self):
        """One row per candidate: count, key, doi, openalex, pmid, s2, arxiv, by (the ids of the
        papers pointing to it, joined by spaces)."""
        import pandas as pd

        rows = [{"count": c.count, "key": c.key, **{k: getattr(c, k) for k in _ID_KINDS}, "by": " ".join(c.by)}
                for c in self.candidates]
        return pd.DataFrame(rows, columns=["count", "key", *_ID_KINDS, "by"])

    def dois(self) -> list[str]:
        """The candidates' DOIs, one each, in rank order (those without a DOI are left out)."""
        return [c.doi for c in self.candidates if c.doi]

    def openalex_filters(self) -> list[str]:
        """OpenAlex filters, each ORing at most :data:`OPENALEX_OR_LIMIT` ids: the candidates'
        (``openalex:W1|W2``), then, forward, the works citing the *from* papers (``cites:W1|W2``)."""
        ids = [c.openalex for c in self.candidates if c.openalex]
        out = [f"openalex:{'|'.join(chunk)}" for chunk in _chunks(ids)]
        if self.direction == "forward":
            out += [f"cites:{'|'.join(chunk)}" for chunk in _chunks(list(self.from_openalex))]
        return out

    def lookup(self, kind: str) -> str:
        """The lookup file's text: ``dois`` (one DOI a line) or ``openalex`` (one filter a line)."""
        lines = {"dois": self.dois, "openalex": self.openalex_filters}.get(kind)
        if lines is None:
            raise InputError(f"lookup {kind!r}: expected 'dois' (a DOI list) or 'openalex' (OpenAlex filters)")
        return "".join(f"{line}\n" for line in lines())

    def lines(self) -> list[str]:
        """What was found, in words."""
        what = "references" if self.direction == "backward" else "citations"
        listed = f"{self.with_lists} of {len(self.from_ids)} papers carry {what} in their sources"
        basis = f" ({self.basis})" if self.basis else ""
        return [f"{self.direction} snowballing from {len(self.from_ids)} papers{basis}: {listed}; {self.entries} {what}, "
                f"{self.inside} of them to papers already in the review; {len(self.candidates)} works outside it "
                f"({sum(1 for c in self.candidates if c.doi)} with a DOI, "
                f"{sum(1 for c in self.candidates if c.openalex)} with an OpenAlex id)"]


def _chunks(items: list[str], size: int = OPENALEX_OR_LIMIT) -> list[list[str]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


class _Works:
    """Works named by entries, one per set of entries sharing a key (union-find over keys)."""

    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        root = self.parent.setdefault(key, key)
        while root != self.parent[root]:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def add(self, keys: Sequence[str]) -> str:
        first = self.find(keys[0])
        for key in keys[1:]:
            other = self.find(key)
            if other != first:
                self.parent[other] = first
        return first


def _ids(keys: Iterable[str]) -> dict:
    found: dict = {}
    for key in sorted(keys):
        kind, _, value = key.partition(":")
        if kind in _ID_KINDS and value:
            found.setdefault(kind, value.upper() if kind == "openalex" else value)
    return found


def snowball(papers: Sequence[PaperInfo], from_ids: Iterable[str], direction: str = "backward") -> Snowball:
    """The works outside ``papers`` (the corpus) that the papers ``from_ids`` cite (backward) or
    that cite them (forward), ranked (see the module)."""
    if direction not in DIRECTIONS:
        raise InputError(f"direction {direction!r}: expected 'backward' (the works they cite) or 'forward' "
                         "(the works citing them)")
    inside = {key for p in papers for key in link_keys(p)}
    wanted = list(dict.fromkeys(from_ids))
    by_id = {p.id: p for p in papers}
    unknown = [pid for pid in wanted if pid not in by_id]
    if unknown:
        raise InputError(f"{len(unknown)} papers to snowball from are not in the review (e.g. {unknown[0]!r})")
    works, pointing = _Works(), []
    entries = resolved = with_lists = 0
    for pid in wanted:
        listed = by_id[pid].references if direction == "backward" else by_id[pid].cited_by
        with_lists += bool(listed)
        for entry in dict.fromkeys(listed):
            keys = entry.split()
            if not keys:
                continue
            entries += 1
            if any(k in inside for k in keys):
                resolved += 1
                continue
            pointing.append((pid, keys, works.add(keys)))
    members: dict[str, set[str]] = {}
    citing: dict[str, dict[str, None]] = {}
    for pid, keys, _ in pointing:
        root = works.find(keys[0])
        members.setdefault(root, set()).update(keys)
        citing.setdefault(root, {})[pid] = None
    found = [Candidate(len(citing[root]), tuple(citing[root]), **_ids(members[root])) for root in members]
    found.sort(key=lambda c: (-c.count, c.key))
    own = tuple(v for pid in wanted for k in link_keys(by_id[pid]) if k.startswith("openalex:")
                for v in [k.partition(":")[2].upper()])
    return Snowball(direction, tuple(wanted), tuple(found), entries, resolved, with_lists, own)

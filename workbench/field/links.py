"""Citation links inside a corpus: which of its papers cite which.

A paper is known by its *link keys*: ``doi:``, ``arxiv:``, ``pmid:`` from its identifiers and
the ``openalex:``/``s2:`` ids of its sources (``Paper.external_ids``; a merged duplicate keeps
those of every record it merged). Each entry of ``Paper.references`` (the works it cites) and
``Paper.cited_by`` (the works citing it, as Semantic Scholar gives them) lists one work's keys;
the entry is a link when one of its keys is a key of another paper of the corpus. A pair is
counted once however many sources carry it; a paper never links to itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..corpus.paper import Paper

__all__ = ["Citations", "Links", "coupling", "link_keys", "resolve_links", "shared_references"]


def link_keys(paper: Paper) -> list[str]:
    """The keys other records may cite ``paper`` by."""
    keys = [f"doi:{paper.doi}" if paper.doi else None, f"arxiv:{paper.arxiv_id}" if paper.arxiv_id else None,
            f"pmid:{paper.pmid}" if paper.pmid else None, *paper.external_ids]
    return [k for k in keys if k]


@dataclass(frozen=True)
class Citations:
    """One paper's links inside the corpus: the ids it cites and the ids citing it."""

    id: str
    cites: tuple[str, ...]
    cited_by: tuple[str, ...]

    def describe(self) -> str:
        return f"cites {len(self.cites)} / cited by {len(self.cited_by)} in this review"


@dataclass
class Links:
    """The links of a corpus: ``pairs`` of (citing id, cited id), in the corpus' order of the
    citing paper, then of the cited; ``references`` counts the works the papers' sources name
    (each once per paper), ``resolved`` those of them inside the corpus."""

    pairs: list[tuple[str, str]]
    references: int = 0
    resolved: int = 0
    with_references: int = 0  # papers whose source lists what they cite
    _cites: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _cited_by: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for citing, cited in self.pairs:
            self._cites.setdefault(citing, []).append(cited)
            self._cited_by.setdefault(cited, []).append(citing)

    def __len__(self) -> int:
        return len(self.pairs)

    def of(self, paper_id: str) -> Citations:
        return Citations(paper_id, tuple(self._cites.get(paper_id, ())), tuple(self._cited_by.get(paper_id, ())))

    def times_cited(self) -> Counter:
        """Paper id -> how many papers of the corpus cite it."""
        return Counter({pid: len(ids) for pid, ids in self._cited_by.items()})

    def within(self, ids: Iterable[str]) -> list[tuple[str, str]]:
        """The pairs whose two papers are both in ``ids`` (a selection's links)."""
        ids = set(ids)
        return [(a, b) for a, b in self.pairs if a in ids and b in ids]

    def around(self, ids: Iterable[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """The links touching ``ids`` (a selection): (those among them, those between one of
        them and a paper outside), each in the order of :attr:`pairs`."""
        ids = set(ids)
        among, across = [], []
        for a, b in self.pairs:
            inside = (a in ids) + (b in ids)
            if inside == 2:
                among.append((a, b))
            elif inside == 1:
                across.append((a, b))
        return among, across


def _index(papers: Sequence[Paper]) -> dict[str, str]:
    index: dict[str, str] = {}
    for p in papers:
        for key in link_keys(p):
            index.setdefault(key, p.id)  # two unmerged records with one key: the first
    return index


def _target(entry: str, index: dict[str, str]) -> str | None:
    return next((index[k] for k in entry.split() if k in index), None)


def resolve_links(papers: Sequence[Paper]) -> Links:
    """The citation links among ``papers`` (see the module docstring)."""
    index = _index(papers)
    order = {p.id: i for i, p in enumerate(papers)}
    pairs: set[tuple[str, str]] = set()
    references = resolved = with_refs = 0
    for p in papers:
        with_refs += bool(p.references)
        for entry in p.references:
            references += 1
            cited = _target(entry, index)
            if cited is not None and cited != p.id:
                resolved += 1
                pairs.add((p.id, cited))
        for entry in p.cited_by:
            citing = _target(entry, index)
            if citing is not None and citing != p.id:
                pairs.add((citing, p.id))
    ordered = sorted(pairs, key=lambda pair: (order[pair[0]], order[pair[1]]))
    return Links(ordered, references, resolved, with_refs)


def _works(paper: Paper, index: dict[str, str]) -> list[tuple[object, set[str]]]:
    """(identity, keys) of each work ``paper`` cites, each once: a work of the corpus is its
    paper id (two entries naming it by different keys, as a merged duplicate may carry, are
    one work), another work the keys of its first entry."""
    works: dict[object, set[str]] = {}
    for entry in paper.references:
        keys = set(entry.split())
        target = next((index[k] for k in entry.split() if k in index), None)
        identity = ("id", target) if target is not None else frozenset(keys)
        works.setdefault(identity, set()).update(keys | ({f"id:{target}"} if target else set()))
    return list(works.items())


def shared_references(a: Paper, b: Paper, corpus: Sequence[Paper] = ()) -> int:
    """Bibliographic coupling: how many works ``a`` cites that ``b`` cites too. Two entries name
    the same work when they share a key, or (with ``corpus``, the papers they are resolved
    against) when both resolve to the same paper of the corpus. Works outside the corpus count:
    coupling needs no link inside it."""
    return int(coupling([a, b], corpus)[0, 1])


def coupling(papers: Sequence[Paper], corpus: Sequence[Paper] = ()):
    """The symmetric matrix of :func:`shared_references` (numpy, ints); the diagonal holds how
    many works each paper cites."""
    import numpy as np

    index = _index(corpus)
    works = [_works(p, index) for p in papers]
    n = len(papers)
    out = np.zeros((n, n), dtype=int)
    for i in range(n):
        out[i, i] = len(works[i])
        for j in range(i + 1, n):
            theirs = [keys for _, keys in works[j]]
            out[i, j] = out[j, i] = sum(1 for _, keys in works[i] if any(keys & k for k in theirs))
    return out

"""Co-authorship of a set of papers as a graph small enough to read at a glance.

Authors are nodes, keyed by :func:`~workbench.field.names.author_key` (so ``"Müller, Jürgen"``
and ``"J. Muller"`` are one node) and named as written most often; an edge joins two authors
who wrote papers together, weighted by how many. Only the ``top`` authors by papers are kept
(ties by key), so a selection of hundreds of papers gives a picture of its most productive
authors and how they work together, not a hairball. Papers with more than
:data:`~workbench.field.summary.MAX_COAUTHORS` authors (consortia) count for their authors'
papers, not for the edges.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..records import Paper
from .names import author_key, display_names
from .summary import MAX_COAUTHORS

__all__ = ["coauthorship"]


def coauthorship(papers: Sequence[Paper], top: int | None = 20):
    """A ``networkx.Graph``: nodes are author keys with ``name`` (as written most often) and
    ``papers``; edges have ``weight`` (papers written together). ``graph.graph`` holds
    ``papers`` (how many were given), ``authors`` (distinct authors among them), ``shown``
    (nodes kept), ``pairs`` (pairs of co-authors among all authors) and ``consortia`` (papers
    left out of the edges)."""
    import networkx as nx

    counts: Counter = Counter()
    together: Counter = Counter()
    consortia = 0
    for p in papers:
        keys = sorted({author_key(a) for a in p.authors} - {""})
        counts.update(keys)
        if len(keys) > MAX_COAUTHORS:
            consortia += 1
        elif len(keys) > 1:
            together.update((a, b) for i, a in enumerate(keys) for b in keys[i + 1:])
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    kept = ranked[:top] if top else ranked
    names = display_names((a for p in papers for a in p.authors), author_key, set(kept))
    graph = nx.Graph(papers=len(papers), authors=len(counts), shown=len(kept), pairs=len(together),
                     consortia=consortia)
    for k in kept:
        graph.add_node(k, name=names[k], papers=counts[k])
    wanted = set(kept)
    for (a, b), n in sorted(together.items()):
        if a in wanted and b in wanted:
            graph.add_edge(a, b, weight=n)
    return graph

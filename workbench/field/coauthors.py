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

from ..corpus.paper import Paper
from .names import author_key, display_names
from .summary import MAX_COAUTHORS

__all__ = ["coauthorship"]


def coauthorship(papers: Sequence[Paper], top: int | None = 20):
    """A ``networkx.Graph``: nodes are author keys with ``name`` (as written most often) and
    ``papers``; edges have ``weight`` (papers written together). ``graph.graph`` holds
    ``papers`` (how many were given), ``authors`` (distinct authors among them), ``shown``
    (nodes kept) and ``consortia`` (papers left out of the edges)."""
    import networkx as nx

    counts: Counter = Counter()
    keyed = [sorted({author_key(a) for a in p.authors} - {""}) for p in papers]
    for keys in keyed:
        counts.update(keys)
    ranked = sorted(counts, key=lambda k: (-counts[k], k))
    kept = ranked[:top] if top else ranked
    wanted = set(kept)
    together: Counter = Counter()  # pairs among the kept authors only: fast on thousands of papers
    for keys in keyed:
        if 1 < len(keys) <= MAX_COAUTHORS:
            mine = [k for k in keys if k in wanted]
            together.update((a, b) for i, a in enumerate(mine) for b in mine[i + 1:])
    names = display_names((a for p in papers for a in p.authors), author_key, wanted)
    graph = nx.Graph(papers=len(papers), authors=len(counts), shown=len(kept),
                     consortia=sum(1 for keys in keyed if len(keys) > MAX_COAUTHORS))
    for k in kept:
        graph.add_node(k, name=names[k], papers=counts[k])
    for (a, b), n in sorted(together.items()):
        graph.add_edge(a, b, weight=n)
    return graph

"""Finding and merging duplicate papers across sources.

Two records are the same paper when

1. they share an identifier: the normalised DOI, the arXiv id, the PubMed id, or the record id
   (which, without identifiers, is a hash of the abstract); or
2. their abstracts are identical (ignoring case and punctuation, in any script) and at least
   :data:`MIN_SAME_ABSTRACT_WORDS` words long (a Chinese or Japanese character counts as a
   word), or their titles and shorter abstracts are; or
3. their normalised titles are near-identical (rapidfuzz ``ratio`` >= ``threshold``, 95 by
   default) *and* they agree on the year or on the first author's surname, and do not name
   two different first authors.

Rules 2 and 3 never join records whose DOIs (or arXiv ids, or PMIDs) are both known and
differ: a preprint and a different paper with a similar title stay apart. Rule 3 also keeps
apart titles whose numbers or roman numerals differ ("... Part I" and "... Part II", "Study 1"
and "Study 2"), which are near-identical by any string measure. Titles shorter than
:data:`MIN_FUZZY_TITLE` characters must match exactly and agree on both year and first author.

Blocking keeps rule 3 far from n²: titles are only compared within blocks that share their
first three or their last three words (a near-identical title keeps at least one of the two),
so 50,000 records cost a few hundred thousand comparisons, done in C++ by ``rapidfuzz.process.cdist``
(blocks of a few titles, most of them, pair by pair with ``fuzz.ratio``: the same scores).
Titles written without spaces (Chinese, Japanese) are blocked on their first and last
characters instead.

Merged records keep every source (``Paper.sources``), the first non-empty value of each field
in reading order, the union of keywords, and "include" when any source says include. The id is
recomputed from the merged identifiers, so the same paper gets the same id whichever export
brought its DOI; without identifiers it keeps the content id its reader gave it, so a paper's id
does not change when a copy of it joins.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from .keys import PaperKeys, title_key
from ..corpus.ids import MIN_ID_WORDS, paper_id, surname_key
from ..corpus.paper import Paper
from ..corpus.titles import title_repeats_abstract
from ..corpus.writing_systems import UNSPACED_CHAR

__all__ = [
    "DEFAULT_THRESHOLD",
    "MIN_FUZZY_TITLE",
    "MIN_SAME_ABSTRACT_WORDS",
    "DuplicateRules",
    "Duplicates",
    "Merge",
    "PaperKeys",
    "absorb",
    "agreement",
    "block_pairs",
    "deduplicate",
    "find_duplicates",
    "first_author_key",
    "merge_papers",
    "title_blocks",
    "title_key",
]

DEFAULT_THRESHOLD = 95.0
MIN_FUZZY_TITLE = 20
MIN_SAME_ABSTRACT_WORDS = MIN_ID_WORDS
_BLOCK_WORDS = 3
_BLOCK_CHARS = 8
_CHUNK = 1024


@dataclass(frozen=True)
class Merge:
    """Record ``merged`` (an index into the input) joined the paper of record ``kept``, because ``reason``."""

    kept: int
    merged: int
    reason: str

    def describe(self, papers: list[Paper]) -> str:
        return f"{papers[self.merged].source} is the same paper as {papers[self.kept].source} ({self.reason})"


@dataclass
class Duplicates:
    """What :func:`find_duplicates` found: clusters of input indices, and why each joined."""

    clusters: list[list[int]]
    merges: list[Merge]
    comparisons: int = 0
    notes: list[str] = field(default_factory=list)


def first_author_key(paper: Paper) -> str:
    """The first author's surname, normalised: ``"Smith, J."``, ``"J. Smith"``, ``"Smith J"`` -> ``smith``."""
    return surname_key(paper.authors[0]) if paper.authors else ""


class _Clusters:
    """Union-find over record indices that also tracks each cluster's identifiers."""

    def __init__(self, papers: list[Paper], apart: frozenset = frozenset()):
        self.parent = list(range(len(papers)))
        # ids a person said are different papers (pairs): a union never joins the two
        self.apart: dict[str, set[str]] = defaultdict(set)
        for pair in apart:
            a, b = tuple(pair)
            self.apart[a].add(b)
            self.apart[b].add(a)
        self.names = [{p.id, *p.aliases} & self.apart.keys() for p in papers] if apart else None
        self.ids: list[dict | None] = [  # each cluster's identifiers by kind (None: it has none)
            {k: {v} for k, v in (("DOI", p.doi), ("arXiv id", p.arxiv_id), ("PMID", p.pmid)) if v}
            if p.doi or p.arxiv_id or p.pmid else None for p in papers]
        self.edges: list[tuple[int, int, str]] = []

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def conflict(self, a: int, b: int) -> str | None:
        ids_a, ids_b = self.ids[a], self.ids[b]
        if ids_a is None or ids_b is None:
            return None
        for kind in ids_a.keys() & ids_b.keys():
            if not ids_a[kind] & ids_b[kind]:
                return kind
        return None

    def _kept_apart(self, a: int, b: int) -> bool:
        return self.names is not None and any(self.apart[x] & self.names[b] for x in self.names[a])

    def union(self, i: int, j: int, reason: str, check: bool = False) -> bool:
        a, b = self.find(i), self.find(j)
        if a == b or (check and self.conflict(a, b)) or self._kept_apart(a, b):
            return False
        if b < a:
            a, b = b, a
        self.parent[b] = a
        if self.names is not None:
            self.names[a] |= self.names[b]
        for kind, values in (self.ids[b] or {}).items():
            self.ids[a] = self.ids[a] or {}
            self.ids[a].setdefault(kind, set()).update(values)
        self.edges.append((i, j, reason))
        return True


_NUMBERING = re.compile(r"\b(?:\d+|i{1,3}|iv|v|vi{1,3}|ix|x)\b")


def _numbering(title: str) -> list[str]:
    """Numbers and roman numerals of a normalised title: ``part i`` and ``part ii`` differ."""
    return sorted(_NUMBERING.findall(title))


def agreement(year_a: int | None, year_b: int | None, author_a: str, author_b: str) -> str | None:
    """What two near-identical titles' records agree on (rule 3), or None: the same year or
    first author's surname, and not two different first authors."""
    if author_a and author_b and author_a != author_b:
        return None  # both name their first author, and not the same one: two papers
    if year_a is not None and year_a == year_b:
        return f"same year {year_a}"
    if author_a and author_a == author_b:
        return f"same first author {author_a!r}"
    return None


_IDENTIFIERS = (("doi", "same DOI {}"), ("arxiv_id", "same arXiv id {}"), ("pmid", "same PMID {}"))


def _exact(papers: list[Paper], clusters: _Clusters, keys: list[PaperKeys]) -> None:
    """Rules 1 and 2: each record joins the first with the same value (a table per kind of value)."""
    seen: dict[tuple, int] = {}  # (identifier's field, value)
    # the first record of each id, abstract (its digest), and title with a short abstract
    by_id, by_abstract, by_both = {}, {}, {}
    for i, (p, (text, words, title)) in enumerate(zip(papers, keys)):
        if p.doi or p.arxiv_id or p.pmid:
            for field_name, reason in _IDENTIFIERS:
                value = getattr(p, field_name)
                if value and (first := seen.setdefault((field_name, value), i)) != i:
                    clusters.union(first, i, reason.format(value))
        if (first := by_id.setdefault(p.id, i)) != i:
            year = f"year {p.year}" if p.year else "no year"
            clusters.union(first, i, f"same title, {year}, no abstract or identifier" if not p.text
                           else "same abstract" if words >= MIN_SAME_ABSTRACT_WORDS else "same title and abstract")
        if text:
            if words >= MIN_SAME_ABSTRACT_WORDS:
                if (first := by_abstract.setdefault(text, i)) != i:
                    clusters.union(first, i, "same abstract", check=True)
            elif title and (first := by_both.setdefault((title, text), i)) != i:
                clusters.union(first, i, "same title and abstract", check=True)


def title_blocks(title: str, long: bool = True) -> list[tuple]:
    """The blocks a normalised title is compared in (rule 3; none without a title): its first
    and last three words, its first and last characters when written without spaces, the
    title itself when short. ``long=False``: only a short title's block."""
    if not title:
        return []
    if len(title) < MIN_FUZZY_TITLE:
        return [("short", title)]
    if not long:
        return []
    words = title.split()
    if len(words) < _BLOCK_WORDS and UNSPACED_CHAR.search(title):  # no spaces between its words
        return [("first chars", title[:_BLOCK_CHARS]), ("last chars", title[-_BLOCK_CHARS:])]
    return [("first", *words[:_BLOCK_WORDS])] + ([("last", *words[-_BLOCK_WORDS:])] if len(words) > _BLOCK_WORDS else [])


def block_pairs(kind: str, titles: list[str], years: list, authors: list[str], threshold: float = DEFAULT_THRESHOLD):
    """(a, b, reason) for the records of one block (:func:`title_blocks`; ``kind`` its first
    item) that rule 3 joins, as indices into the block's ``titles``, ``years`` and first
    ``authors`` (:func:`first_author_key`), in reading order. Short titles: equal, with the
    same year and first author as the block's first record."""
    if kind == "short":
        for j in range(1, len(titles)):
            if years[0] is not None and years[0] == years[j] and authors[0] and authors[0] == authors[j]:
                yield 0, j, f"same short title, year {years[0]} and first author {authors[0]!r}"
        return
    for a, b, score in _alike(titles, threshold):
        if _numbering(titles[a]) == _numbering(titles[b]):
            agree = agreement(years[a], years[b], authors[a], authors[b])
            if agree:
                yield a, b, f"titles {score:.0f}% alike, {agree}"


def _fuzzy(papers: list[Paper], clusters: _Clusters, titles: list[str], threshold: float) -> int:
    authors = [first_author_key(p) for p in papers]
    blocks: dict[tuple, list[int]] = defaultdict(list)
    for i, title in enumerate(titles):
        # Near-identical titles join only where their records agree on a year or a first author
        # (agreement): a record with neither (an untitled scraped abstract) joins no long-title
        # block, whose comparisons could not join it. A short block compares with its first record.
        for block in title_blocks(title, long=papers[i].year is not None or bool(authors[i])):
            blocks[block].append(i)
    comparisons = 0
    for block, members in blocks.items():
        if len(members) < 2:
            continue
        comparisons += len(members) - 1 if block[0] == "short" else len(members) ** 2
        for a, b, reason in block_pairs(block[0], [titles[i] for i in members], [papers[i].year for i in members],
                                        [authors[i] for i in members], threshold):
            clusters.union(members[a], members[b], reason, check=True)
    return comparisons


#: Blocks this small are compared pair by pair: a ``cdist`` call costs more than a few comparisons
#: (most blocks hold two or three titles).
_PAIRWISE = 8


def _alike(titles: list[str], threshold: float):
    """(a, b, score) for every pair ``a < b`` of ``titles`` whose ``fuzz.ratio`` reaches
    ``threshold``, row by row; the score as ``process.cdist`` gives it (a float32)."""
    import numpy as np
    from rapidfuzz import fuzz, process

    if len(titles) <= _PAIRWISE:
        for a in range(len(titles) - 1):
            for b in range(a + 1, len(titles)):
                score = fuzz.ratio(titles[a], titles[b], score_cutoff=threshold)
                if score:
                    yield a, b, np.float32(score)
        return
    for start in range(0, len(titles), _CHUNK):
        scores = process.cdist(titles[start:start + _CHUNK], titles, scorer=fuzz.ratio, score_cutoff=threshold)
        for a, b in zip(*scores.nonzero()):
            if a + start < b:
                yield a + start, b, scores[a, b]


@dataclass(frozen=True)
class DuplicateRules:
    """Which records a read merges: ``fuzzy=False`` only records that share an identifier or
    their title and abstract; ``threshold``: the rapidfuzz title ratio of the fuzzy rule
    (None: :data:`DEFAULT_THRESHOLD`); ``apart``: pairs (frozensets) of paper ids a person said
    are different, never merged."""

    fuzzy: bool = True
    threshold: float | None = None
    apart: frozenset = frozenset()


def find_duplicates(papers: list[Paper], threshold: float = DEFAULT_THRESHOLD, fuzzy: bool = True,
                    apart: frozenset = frozenset(), keys: list[PaperKeys] | None = None) -> Duplicates:
    """Clusters of duplicate records (indices into ``papers``, each in reading order); ``apart``:
    pairs (frozensets) of ids a person said are different papers, never joined by any rule;
    ``keys``: the papers' :class:`PaperKeys`, one each in their order, where the caller has them
    (the readers make them with the papers); else worked out here."""
    if keys is None:
        keys = [PaperKeys.of(p) for p in papers]
    elif len(keys) != len(papers):
        raise ValueError(f"{len(keys)} deduplication keys for {len(papers)} papers; expected one per paper")
    clusters = _Clusters(papers, apart)
    titles = [k.title for k in keys]
    _exact(papers, clusters, keys)
    comparisons = _fuzzy(papers, clusters, titles, threshold) if fuzzy else 0
    joined = sorted({i for edge in clusters.edges for i in edge[:2]})  # (the records in a cluster of 2 or more)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in joined:
        groups[clusters.find(i)].append(i)
    # Each cluster's edges form a tree; walk it from the first record to say who joined whom.
    neighbours: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for i, j, reason in clusters.edges:
        neighbours[i].append((j, reason))
        neighbours[j].append((i, reason))
    merges: list[Merge] = []
    for members in groups.values():
        if len(members) > 1:
            stack, seen = [members[0]], {members[0]}
            while stack:
                node = stack.pop()
                for other, reason in neighbours[node]:
                    if other not in seen:
                        seen.add(other)
                        merges.append(Merge(node, other, reason))
                        stack.append(other)
    merges.sort(key=lambda m: m.merged)
    first, in_one = {members[0]: members for members in groups.values()}, set(joined)
    ordered = [first.get(i) or [i] for i in range(len(papers)) if i in first or i not in in_one]
    return Duplicates(clusters=ordered, merges=merges, comparisons=comparisons)


def merge_papers(members: list[Paper]) -> Paper:
    """One paper from duplicates (in reading order): first non-empty values, all sources."""
    first = members[0]
    if len(members) == 1:  # a copy with its sources
        return first.replace(sources=tuple(dict.fromkeys(first.sources)) if first.sources else (first.source,))
    sources = tuple(dict.fromkeys(s for p in members for s in (p.sources or (p.source,))))

    def pick(attr):
        return next((getattr(p, attr) for p in members if getattr(p, attr)), getattr(first, attr))

    with_abstract = next((p for p in members if p.text), first)
    with_authors = next((p for p in members if p.authors), first)
    labels = {p.label for p in members if p.label}
    doi, arxiv_id, pmid, year = pick("doi"), pick("arxiv_id"), pick("pmid"), pick("year")
    if doi or arxiv_id or pmid:
        pid = paper_id(doi=doi, arxiv_id=arxiv_id, pmid=pmid)
    else:  # the content id the reader gave (from the title as the source wrote it, or none)
        pid = with_abstract.id if with_abstract.text else first.id
    return first.replace(
        id=pid,
        aliases=tuple(dict.fromkeys(a for p in members for a in (p.id, *p.aliases) if a != pid)),
        abstract=with_abstract.abstract,
        text=with_abstract.text,
        title_derived=(first.title_derived if with_abstract is first
                       else title_repeats_abstract(first.title, with_abstract.text)),
        authors=with_authors.authors,
        et_al=with_authors.et_al,
        year=year,
        doi=doi,
        arxiv_id=arxiv_id,
        pmid=pmid,
        venue=pick("venue"),
        url=pick("url"),
        keywords=tuple(dict.fromkeys(k for p in members for k in p.keywords)),
        external_ids=tuple(dict.fromkeys(k for p in members for k in p.external_ids)),
        references=tuple(dict.fromkeys(k for p in members for k in p.references)),
        cited_by=tuple(dict.fromkeys(k for p in members for k in p.cited_by)),
        label="include" if "include" in labels else ("exclude" if labels else None),
        sources=sources,
    )


def absorb(paper: Paper, records: list[Paper]) -> Paper:
    """``paper`` joined by ``records`` found to be the same paper later (an update, a person's
    verdict): their sources and ids (as aliases) and identifiers it lacked; its id, title, text
    and everything people know it by stay."""
    ids = {k: getattr(paper, k) or next((getattr(r, k) for r in records if getattr(r, k)), None)
           for k in ("doi", "arxiv_id", "pmid")}
    sources = tuple(dict.fromkeys([*(paper.sources or (paper.source,)),
                                   *(s for r in records for s in (r.sources or (r.source,)))]))
    aliases = tuple(dict.fromkeys(a for a in (*paper.aliases, *(i for r in records for i in (r.id, *r.aliases)))
                                  if a != paper.id))
    return paper.replace(sources=sources, aliases=aliases, **ids)


def deduplicate(papers: list[Paper], threshold: float = DEFAULT_THRESHOLD, fuzzy: bool = True,
                found: Duplicates | None = None, keys: list[PaperKeys] | None = None) -> tuple[list[Paper], Duplicates]:
    """Merge duplicates; returns the papers in order of first appearance and what was found.

    ``fuzzy=False`` merges only records that share an identifier or their title and abstract.
    Clusters whose sources disagree on the screening label get a note in ``Duplicates.notes``.
    ``found``: what :func:`find_duplicates` found in these papers before (it is added to);
    ``keys``: as :func:`find_duplicates` takes them.
    """
    found = find_duplicates(papers, threshold, fuzzy, keys=keys) if found is None else found
    by_id: dict[str, list[int]] = {}
    merged: dict[str, Paper] = {}
    clusters = found.clusters  # (find_duplicates gives them in reading order; merged keeps it, unless one moves)
    moved = any(a[0] > b[0] for a, b in zip(clusters, clusters[1:]))
    for group in clusters:
        paper = papers[group[0]]
        if len(group) > 1 or len(paper.sources) != 1:  # (most papers: found once, kept as read)
            paper = merge_papers([papers[i] for i in group])
        if paper.id in by_id:
            # Only possible for records without identifiers or abstracts whose merged title and
            # year coincide with another cluster's: they are the same paper by rule 3 too.
            earlier = by_id.pop(paper.id)
            found.merges.append(Merge(earlier[0], group[0], "same title and year once merged"))
            group = sorted(earlier + group)
            merged.pop(paper.id)
            paper, moved = merge_papers([papers[i] for i in group]), True
        by_id[paper.id] = group
        merged[paper.id] = paper
    for paper in (merged[pid] for pid, group in by_id.items() if len(group) > 1):
        if len({papers[i].label for i in by_id[paper.id]} - {None}) > 1:
            found.notes.append(f"{paper.source}: its duplicates disagree on the label (include and exclude); "
                               "kept include, check it")
    kept = list(merged.values())
    return sorted(kept, key=lambda p: by_id[p.id][0]) if moved else kept, found

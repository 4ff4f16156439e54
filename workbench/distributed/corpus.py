"""Reading sources on the workers, in partitions, and merging duplicates across them.

Each file (named on the command line, or found in a folder named there: the folders are walked
on the driver, as a single-machine read walks them) is read by one task with the single-machine
reader (:func:`workbench.readers.read_sources`: its cleaning, and duplicates merged within the
file); the files' papers, in reading order, are then cut into partitions of ``partition_size``
that stay on the workers. Duplicates *across* partitions are found without one in-memory table:
every paper gives blocking keys (its DOI, arXiv id, PubMed id, record id, normalised abstract,
or normalised title with its abstract when the abstract is short: one key per exact rule of
:mod:`workbench.dedupe`, none for what no rule joins on), cut by a hash of the key into pieces
so that equal keys meet in one task (an all-to-all of the partitions' pieces), and only the
pairs of papers sharing a key come back. The papers of each group of candidates are then
merged by the single-machine rules (:func:`workbench.dedupe.deduplicate`), and the partitions
are rewritten without the papers merged away.

Near-identical titles (rule 3 of :mod:`workbench.dedupe`) are found the same way: the title of
a paper with a year or a first author (rule 3 needs one of them) also gives its blocks
(:func:`workbench.dedupe.title_blocks`: its first and last three words) as keys, with the
title, year and first author beside them; where the keys meet, each block's titles are
compared where the block lies (:func:`workbench.dedupe.block_pairs`), and only the pairs that
pass come back. Every rule therefore applies across partitions as within a source.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from operator import getitem

import numpy as np

from ..dedupe.rules import (MIN_SAME_ABSTRACT_WORDS, PaperKeys, block_pairs, deduplicate, first_author_key,
                            title_blocks)
from ..errors import NoRecordsError
from ..readers import ReadReport, read_found, source_files

__all__ = ["Partitions", "read_partitions", "merge_duplicates"]


@dataclass
class Partitions:
    """Papers in partitions on the workers: one future per partition (a list of papers), in
    reading order, with each partition's length."""

    futures: list
    lengths: list[int]
    report: ReadReport = field(default_factory=ReadReport)
    #: where each file's papers end (exclusive, in reading order) and its row in ``report.files``:
    #: a duplicate merged away across partitions is counted against its own file, as when
    #: reading on one machine (PRISMA's "duplicates removed" per source)
    file_ends: list[int] = field(default_factory=list)
    file_rows: list[int] = field(default_factory=list)

    def file_of(self, position: int) -> int:
        """The row in ``report.files`` of the file the paper at ``position`` was read from."""
        at = int(np.searchsorted(self.file_ends, position, side="right"))
        return self.file_rows[min(at, len(self.file_rows) - 1)]

    @property
    def offsets(self) -> list[int]:
        return [0, *np.cumsum(self.lengths).tolist()][:-1]

    def __len__(self) -> int:
        return int(sum(self.lengths))


def _read_file(path: str, explicit: bool, input_format: str | None):
    try:
        return read_found(path, explicit, input_format)
    except NoRecordsError as none:  # this file has none; another may
        return [], none.report


def _first(pair):
    return pair[0]


def _second(pair):
    return pair[1]


def _slice(papers: list, start: int, stop: int) -> list:
    return papers[start:stop]


def _joined(pieces: list) -> list:
    return [p for piece in pieces for p in piece]


def read_partitions(client, sources, input_format: str | None, exclude, partition_size: int,
                    follow_links: bool = False) -> Partitions:
    """Read ``sources`` on the workers, one task per file (a folder's files each their own; the
    folders are walked here, as a single-machine read walks them), in partitions of ``partition_size``."""
    entries, skipped = source_files(sources, [str(e) for e in exclude], follow_links=follow_links)
    reads = {i: client.submit(_read_file, e[0], e[1], input_format,
                              key=f"read-{i}-{hashlib.sha1(e[0].encode()).hexdigest()[:8]}")
             for i, e in enumerate(entries) if isinstance(e, tuple)}
    read_reports = dict(zip(reads, client.gather([client.submit(_second, r) for r in reads.values()])))
    report, file_ends, file_rows = ReadReport(skipped_folders=skipped), [], []
    for i, entry in enumerate(entries):  # a file's report, or the line of one found that cannot be read
        part = read_reports[i] if i in read_reports else ReadReport(files=[entry])
        for f in part.files:  # a file's kept papers, in file order
            if f.error is None:
                file_ends.append((file_ends[-1] if file_ends else 0) + f.read - f.merged)
                file_rows.append(len(report.files))
            report.files.append(f)
        report.merges.extend(part.merges)
    papers = [client.submit(_first, r) for r in reads.values()]
    sizes = client.gather([client.submit(len, p) for p in papers])
    if not sum(sizes):
        raise NoRecordsError(report)
    # Each piece is cut where its file's papers lie; a partition running on into the next file
    # joins its pieces (only they move between workers, not a file's whole list of papers).
    futures, lengths, pieces, filled = [], [], [], 0
    for file_papers, size in zip(papers, sizes):
        start = 0
        while start < size:
            stop = min(size, start + partition_size - filled)
            pieces.append(client.submit(_slice, file_papers, start, stop))
            filled, start = filled + stop - start, stop
            if filled == partition_size:
                futures.append(pieces[0] if len(pieces) == 1 else client.submit(_joined, pieces))
                lengths.append(filled)
                pieces, filled = [], 0
    if pieces:
        futures.append(pieces[0] if len(pieces) == 1 else client.submit(_joined, pieces))
        lengths.append(filled)
    return Partitions(futures, lengths, report, file_ends, file_rows)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


#: Keys of title blocks (rule 3) start so: their rows carry the title, year and first author.
BLOCK = "block:"

#: The year of a row whose paper has none (no year is an int64; any year, 0 too, is itself).
NO_YEAR = np.iinfo(np.int64).min


def blocking_keys(papers: list, offset: int):
    """One row per (key, position) of a partition's papers: what duplicates must share; rows of
    title blocks also carry the normalised title, the year (:data:`NO_YEAR`: none) and the first
    author. The abstract, its words and the title are the single-machine rules' own
    (:class:`workbench.dedupe.keys.PaperKeys`), so the two cannot disagree on what is the same."""
    import pandas as pd

    rows = []  # (key, position, title, year, first author)
    for i, p in enumerate(papers):
        mine = [f"doi:{p.doi}" if p.doi else "", f"arxiv:{p.arxiv_id}" if p.arxiv_id else "",
                f"pmid:{p.pmid}" if p.pmid else "", f"id:{p.id}"]
        text, words, title = PaperKeys.of(p)  # text: a digest of the normalised abstract (b"": none)
        if text and words >= MIN_SAME_ABSTRACT_WORDS:  # rule 2: the same abstract
            mine.append("abstract:" + text.hex()[:20])  # (80 bits: a clash only adds a candidate)
        elif text and title:  # rule 2: the same title and short abstract
            mine.append("title+abstract:" + _digest(title + "\x1f" + text.hex()))
        year = NO_YEAR if p.year is None else p.year
        rows.extend((key, offset + i, "", year, "") for key in mine if key)
        author = first_author_key(p) if title else ""
        # as on one machine (workbench.dedupe's _fuzzy): a paper with neither a year nor a first
        # author joins no long title's block, where no near-identical title could join it
        blocks = title_blocks(title, long=p.year is not None or bool(author))
        rows.extend((BLOCK + _digest("\x1f".join(block)) + ":" + block[0], offset + i, title, year, author)
                    for block in blocks)
    keys, positions, titles, years, authors = zip(*rows) if rows else ((), (), (), (), ())
    return pd.DataFrame({"key": pd.Series(keys, dtype=object), "position": np.asarray(positions, dtype=np.int64),
                         "title": pd.Series(titles, dtype=object), "year": np.asarray(years, dtype=np.int64),
                         "author": pd.Series(authors, dtype=object)})


def _pairs(frame):
    """Within a shuffled partition: (first, other) positions of papers sharing a key, and of
    papers whose titles rule 3 joins within a title block."""
    import pandas as pd

    frame = frame.drop_duplicates(["key", "position"])
    on_title = frame["key"].str.startswith(BLOCK)
    exact = frame[~on_title]
    first = exact.groupby("key")["position"].transform("min")
    found = [pd.DataFrame({"first": first.to_numpy(), "other": exact["position"].to_numpy()})]
    blocks = frame[on_title & frame.duplicated("key", keep=False)].sort_values(["key", "position"])
    found.append(_title_pairs(blocks))
    pairs = pd.concat(found, ignore_index=True)
    return pairs[pairs["first"] != pairs["other"]]


def _title_pairs(blocks):
    """The pairs rule 3 joins in each title block of ``blocks`` (rows sorted by key): the blocks
    walked as runs of plain lists (a pandas group and frame per block cost more than the
    comparisons: most blocks hold two or three titles)."""
    import pandas as pd

    keys, at = blocks["key"].tolist(), blocks["position"].tolist()
    titles, authors = blocks["title"].tolist(), blocks["author"].tolist()
    years = [None if y == NO_YEAR else y for y in blocks["year"].tolist()]  # as the papers have them
    bounds = [0, *(i for i in range(1, len(keys)) if keys[i] != keys[i - 1]), len(keys)] if keys else []
    firsts, others = [], []
    for lo, hi in zip(bounds, bounds[1:]):
        for a, b, _ in block_pairs(keys[lo].rsplit(":", 1)[1], titles[lo:hi], years[lo:hi], authors[lo:hi]):
            firsts.append(at[lo + a])
            others.append(at[lo + b])
    return pd.DataFrame({"first": np.array(firsts, dtype=np.int64), "other": np.array(others, dtype=np.int64)})


#: How many pieces the blocking keys are cut into by a hash of the key: piece ``j`` of every
#: partition meets in one task, where the papers sharing a key are paired.
KEY_BUCKETS = 16


def _key_buckets(papers: list, offset: int, k: int) -> list:
    """A partition's :func:`blocking_keys` cut into ``k`` pieces by key (the same key: the same
    piece in every partition and process)."""
    import pandas as pd

    frame = blocking_keys(papers, offset)
    bucket = pd.util.hash_array(frame["key"].to_numpy(dtype=object)) % np.uint64(k)
    return [frame[bucket == j] for j in range(k)]


def _bucket_pairs(pieces: list):
    import pandas as pd

    return _pairs(pd.concat(pieces, ignore_index=True))


def candidate_pairs(client, parts: Partitions):
    """Pairs of positions that share a blocking key: each partition's keys cut into
    :data:`KEY_BUCKETS` pieces by key, each piece gathered from every partition by one task (an
    all-to-all of n x k pieces: Dask's task shuffle made n x sqrt(n) tasks of two stages)."""
    import pandas as pd

    keys = client.map(_key_buckets, parts.futures, parts.offsets, k=KEY_BUCKETS)
    pairs = [client.submit(_bucket_pairs, [client.submit(getitem, f, j) for f in keys]) for j in range(KEY_BUCKETS)]
    return pd.concat(client.gather(pairs), ignore_index=True)


def _groups(pairs) -> list[list[int]]:
    """Connected groups of positions (each sorted) from the candidate pairs."""
    parent: dict[int, int] = {}

    def find(i):
        parent.setdefault(i, i)
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in zip(pairs["first"].tolist(), pairs["other"].tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in sorted(parent):
        groups.setdefault(find(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _pick(papers: list, rows: list[int]) -> list:
    return [papers[r] for r in rows]


def _rewrite(papers: list, offset: int, drop: set, replace: dict) -> list:
    return [replace.get(offset + i, p) for i, p in enumerate(papers) if offset + i not in drop]


#: How many papers of candidate groups are fetched to the driver at a time (the merge of each
#: group is decided there by the single-machine rules).
FETCH_EVERY = 20_000


def _batches(groups: list[list[int]], size: int):
    """``groups`` in runs holding about ``size`` positions each."""
    batch, n = [], 0
    for group in groups:
        batch.append(group)
        n += len(group)
        if n >= size:
            yield batch
            batch, n = [], 0
    if batch:
        yield batch


def _fetched(client, parts: Partitions, positions: np.ndarray) -> dict:
    """The papers at ``positions`` (sorted), fetched from the partitions holding them."""
    offsets = np.asarray(parts.offsets)
    where = np.searchsorted(offsets, positions, side="right") - 1
    wanted = {int(k): positions[where == k].tolist() for k in np.unique(where)}
    fetched = [client.submit(_pick, parts.futures[k], [p - int(offsets[k]) for p in v]) for k, v in wanted.items()]
    by_pos = {}
    for pos, papers in zip(wanted.values(), client.gather(fetched)):
        by_pos.update(zip(pos, papers))
    return by_pos


def _decide(client, parts: Partitions, groups: list[list[int]]) -> tuple[set, dict]:
    """Positions to drop and merged papers to put in place, group by group as one machine merges
    them, a batch of groups' papers on the driver at a time."""
    drop, replace = set(), {}
    for batch in _batches(groups, FETCH_EVERY):
        by_pos = _fetched(client, parts, np.array(sorted(p for g in batch for p in g), dtype=np.int64))
        for group in batch:
            members = [by_pos[p] for p in group]
            kept, found = deduplicate(members)
            parts.report.merges.extend(m.describe(members) for m in found.merges)
            firsts = []
            for paper in kept:
                ids = {paper.id, *paper.aliases}
                first = next((i for i, m in enumerate(members) if m.id in ids), 0)
                firsts.append(group[first])
                if paper != members[first]:  # merged: the new record in its first one's place
                    replace[group[first]] = paper
            for pos in set(group) - set(firsts):
                parts.report.files[parts.file_of(pos)].merged += 1
                drop.add(pos)
    return drop, replace


def merge_duplicates(client, parts: Partitions) -> Partitions:
    """``parts`` with duplicates across partitions merged (first appearance kept, in place)."""
    groups = _groups(candidate_pairs(client, parts))
    if not groups:
        parts.report.kept = len(parts)
        return parts
    drop, replace = _decide(client, parts, groups)
    offsets = np.asarray(parts.offsets)
    part_of = lambda positions: np.searchsorted(offsets, list(positions), side="right") - 1  # noqa: E731
    drops, replaces = {}, {}
    for pos, k in zip(drop, part_of(drop)):
        drops.setdefault(int(k), set()).add(pos)
    for pos, k in zip(replace, part_of(replace)):
        replaces.setdefault(int(k), {})[pos] = replace[pos]
    futures, lengths = [], []
    for k, (future, length) in enumerate(zip(parts.futures, parts.lengths)):
        mine_drop, mine_replace = drops.get(k, set()), replaces.get(k, {})
        if mine_drop or mine_replace:
            future = client.submit(_rewrite, future, int(offsets[k]), mine_drop, mine_replace)
        futures.append(future)
        lengths.append(length - len(mine_drop))
    merged = Partitions(futures, lengths, parts.report)  # file positions no longer needed
    merged.report.kept = len(merged)
    return merged

"""A partition's papers once their duplicates are merged, packed as the later stages read them.

After the duplicates, a partition's papers are only read, never changed: the embedding and the
word counts read each paper's text (the review's ``text_of``, cut as the caches cut it), and the
papers' file reads each paper's line of ``papers.jsonl``. :func:`pack` makes both once, on the
worker that holds the partition, and keeps them as two zlib-compressed blocks of UTF-8 bytes: at
a million papers a worker held its half as Python objects (~3 kB a paper, ~1.5 GB and more a
worker through the embedding, the placing and the words); packed they take ~1 kB.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..corpus.paper import paper_line
from .embedding import partition_texts

__all__ = ["PackedPapers", "pack"]

#: zlib's level: the fastest, about a third of the bytes of abstracts (level 6 saves ~10 % more
#: in three times the time).
LEVEL = 1


@dataclass(frozen=True)
class PackedPapers:
    """A partition's texts and ``papers.jsonl`` lines (see the module docstring); made by :func:`pack`."""

    n: int
    ends: np.ndarray  # where each text's UTF-8 bytes end in the unpacked texts
    texts_z: bytes
    lines_z: bytes

    def __len__(self) -> int:
        return self.n

    def texts(self) -> list[str]:
        """Each paper's text, in order: what ``text_of`` gave, cut by ``bounded_text``."""
        raw = zlib.decompress(self.texts_z)
        starts = [0, *self.ends[:-1].tolist()]
        return [raw[a:b].decode("utf-8", "surrogatepass") for a, b in zip(starts, self.ends.tolist())]

    def lines(self) -> bytes:
        """The papers as lines of ``papers.jsonl`` (each with its newline), UTF-8."""
        return zlib.decompress(self.lines_z)


def pack(papers: list, text_of: Callable) -> PackedPapers:
    """``papers`` packed (see the module docstring); ``text_of``: the text each is embedded by."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in partition_texts(papers, text_of)]
    ends = np.cumsum([len(e) for e in encoded], dtype=np.int64)
    lines = "".join(paper_line(p) + "\n" for p in papers).encode("utf-8")
    return PackedPapers(len(papers), ends, zlib.compress(b"".join(encoded), LEVEL), zlib.compress(lines, LEVEL))

"""Papers' texts held beside their metadata, and a review's papers.jsonl read back.

A review holds each paper's metadata (:class:`~workbench.corpus.paper.PaperInfo`) in a list and
the papers' abstracts and clean texts in a :class:`PaperTexts`, by row (the order of the list):
most of a paper's memory is its texts (1.7 of 2.7 kB a paper at 50,000 papers), and a kernel
holding a 1,000,000-paper map must not hold them all. Whoever needs a paper's texts asks the
store: :meth:`PaperTexts.paper` (one whole :class:`~workbench.corpus.paper.Paper`),
:meth:`PaperTexts.papers` (every one, in order), :meth:`PaperTexts.text`.

- :class:`TextsInMemory`: the texts of papers made or read in this process (a build, an update);
- :class:`TextsInFile`: the texts left in the papers.jsonl a review was read back from
  (:func:`read_papers`), each read by its line's byte range when asked for, all of them by one
  pass over the file. :meth:`TextsInFile.file_of` says when a list of papers is exactly that
  file's, so a save links the file instead of writing a million lines again.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from ..errors import ReviewError
from .paper import INFO_FIELDS, LINK_FIELDS, Paper, PaperInfo
from .titles import title_repeats_abstract

__all__ = ["PaperTexts", "TextsInFile", "TextsInMemory", "read_papers", "shorten"]


class PaperTexts:
    """The abstract and clean text of each paper of a corpus, by row; see the module docstring.
    Subclasses give :meth:`pair`, :meth:`__iter__` and :meth:`__len__`."""

    def __len__(self) -> int:
        raise NotImplementedError

    def pair(self, k: int) -> tuple[str, str]:
        """Paper ``k``'s ``(abstract, text)``."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[tuple[str, str]]:
        """Every paper's ``(abstract, text)``, in order."""
        raise NotImplementedError

    def abstract(self, k: int) -> str:
        return self.pair(k)[0]

    def text(self, k: int) -> str:
        return self.pair(k)[1]

    def paper(self, info: PaperInfo, k: int) -> Paper:
        """The whole :class:`Paper` of ``info``, the metadata of paper ``k``."""
        return info.with_texts(*self.pair(k))

    def papers(self, infos: Sequence[PaperInfo]) -> Iterator[Paper]:
        """The whole papers of ``infos`` (the metadata of every paper, in order), one at a time."""
        if len(infos) != len(self):
            raise ValueError(f"{len(infos)} papers for the texts of {len(self)}; expected one per paper")
        for info, (abstract, text) in zip(infos, self):
            yield info.with_texts(abstract, text)

    def file_of(self, infos: Sequence[PaperInfo]) -> Path | None:
        """The papers.jsonl whose lines are exactly the papers of ``infos`` with these texts, in
        order, where there is one (a save links it instead of writing it again); else None."""
        return None


class TextsInMemory(PaperTexts):
    """Texts held in this process (the papers of a build or an update)."""

    def __init__(self, abstracts: list[str], texts: list[str]):
        if len(abstracts) != len(texts):
            raise ValueError(f"{len(abstracts)} abstracts and {len(texts)} texts; expected one of each per paper")
        self._abstracts, self._texts = abstracts, texts

    @classmethod
    def of(cls, papers: Iterable[Paper]) -> "TextsInMemory":
        abstracts, texts = [], []
        for p in papers:
            abstracts.append(p.abstract)
            texts.append(p.text)
        return cls(abstracts, texts)

    def __len__(self) -> int:
        return len(self._abstracts)

    def pair(self, k: int) -> tuple[str, str]:
        return self._abstracts[k], self._texts[k]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return zip(self._abstracts, self._texts)


class TextsInFile(PaperTexts):
    """Texts left in a review's papers.jsonl (:func:`read_papers`), read when asked for: one
    paper by its line's byte range, all of them in blocks of lines.

    The file stays open: a generation's files are never rewritten, and one the review has
    pruned since stays readable through the open file (POSIX). This is not the SQLite store,
    whose locks a closed descriptor would drop. A line that no longer holds the paper read from
    it (the file changed on disk) is an error that says to open the review again."""

    #: Bytes read at a time when every text is read.
    BLOCK = 16 * 2**20

    def __init__(self, path: Path, starts: np.ndarray, ends: np.ndarray, infos: list[PaperInfo]):
        self.path = Path(path)
        self._file = open(self.path, "rb")  # noqa: SIM115 (kept open for the texts' lifetime)
        self._starts, self._ends = starts, ends  # paper k's line: bytes [start, end)
        self._infos = infos  # what was read from each line (file_of: the same objects, not copies)

    def __len__(self) -> int:
        return len(self._infos)

    def _record(self, k: int, line: bytes) -> dict:
        try:
            record = json.loads(line)
        except ValueError:
            record = {}
        if not isinstance(record, dict) or record.get("id") != self._infos[k].id:
            raise ReviewError(f"{self.path} changed on disk after the review was opened (line of paper "
                              f"{self._infos[k].id} no longer there); open the review again")
        return record

    @staticmethod
    def _texts(record: dict) -> tuple[str, str]:
        abstract = record.get("abstract", "")
        return abstract, record.get("text", abstract)  # (no text where it equals the abstract)

    def pair(self, k: int) -> tuple[str, str]:
        start, end = int(self._starts[k]), int(self._ends[k])
        return self._texts(self._record(k, os.pread(self._file.fileno(), end - start, start)))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        fd, n, k = self._file.fileno(), len(self), 0
        while k < n:
            first = int(self._starts[k])
            last = max(k + 1, int(np.searchsorted(self._ends, first + self.BLOCK, side="right")))
            block = os.pread(fd, int(self._ends[last - 1]) - first, first)
            for j in range(k, last):
                line = block[int(self._starts[j]) - first:int(self._ends[j]) - first]
                yield self._texts(self._record(j, line))
            k = last

    def file_of(self, infos: Sequence[PaperInfo]) -> Path | None:
        """This file, when ``infos`` are exactly the papers read from it (paper ``k`` from line
        ``k``, the same objects: none replaced, none left out, no blank line between) and it is
        still at its path, as long as it was when read."""
        if len(infos) != len(self._infos) or not len(infos) or self._starts[0] != 0:
            return None
        if not np.array_equal(self._starts[1:], self._ends[:-1]):
            return None
        if any(a is not b for a, b in zip(infos, self._infos)):
            return None
        try:
            held, there = os.fstat(self._file.fileno()), os.stat(self.path)
        except OSError:
            return None
        same = (held.st_ino, held.st_dev) == (there.st_ino, there.st_dev)
        return self.path if same and held.st_size == self._ends[-1] else None


_INFO = frozenset(INFO_FIELDS)
_TUPLES = ("authors", "keywords", "sources", "aliases", *LINK_FIELDS)


def _info(line: bytes) -> PaperInfo:
    """A line's metadata (older files: no clean text where it equals the abstract, no
    ``title_derived``; written before citations were kept, or without any: no ``external_ids``,
    ``references``, ``cited_by``)."""
    d = json.loads(line)
    if "id" not in d or "title" not in d:
        raise KeyError("id" if "id" not in d else "title")
    if "title_derived" not in d:  # written before readers said so
        text = d.get("text", d.get("abstract", ""))
        d["title_derived"] = bool(text) and title_repeats_abstract(d["title"], text)
    for key in _TUPLES:
        if key in d:
            d[key] = tuple(d[key] or ())
    if d.get("sources") == (d.get("source", ""),):
        d["sources"] = (d["source"],)  # one string, not two equal ones
    d["collection"] = sys.intern(d.get("collection") or "")
    return PaperInfo(**{k: v for k, v in d.items() if k in _INFO})


def read_papers(path: Path) -> tuple[list[PaperInfo], TextsInFile]:
    """The papers of a review's papers.jsonl: their metadata, and their texts left in the file
    (:class:`TextsInFile`). Raises ``KeyError`` or ``ValueError`` for a damaged line."""
    infos, starts, ends = [], [], []
    at = 0
    with open(path, "rb") as lines:
        for line in lines:
            start, at = at, at + len(line)
            if not line.strip():
                continue
            infos.append(_info(line))
            starts.append(start)
            ends.append(at)
    return infos, TextsInFile(path, np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64), infos)


def shorten(text: str, width: int = 260, placeholder: str = " …") -> str:
    """``text`` on one line, cut after a word to at most ``width`` characters with ``placeholder``
    (what ``textwrap.shorten`` gives for prose), reading only its start: textwrap splits the
    whole text into words first, 90 % of opening the explore view at 50,000 papers. (What a map's
    tooltip shows of a paper: :meth:`workbench.review.Review.text_starts`.)"""
    head = " ".join(text[:4 * width].split())
    if len(head) <= width and len(text) <= 4 * width:
        return head
    room = width - len(placeholder)
    space = head.rfind(" ", 0, room + 1)
    return (head[:space] if space > 0 else head[:room]) + placeholder

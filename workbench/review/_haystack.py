"""What keyword search reads: each paper's title and text in lower case, in the papers' order.

A review of up to :data:`IN_MEMORY` papers keeps them in memory (:meth:`Review.haystack`). A
larger one (they took 2.6 GB in a kernel at a million abstracts) keeps them in a file under the
review's ``cache/``, written at the first search of its papers and read a block at a time by
each search after it: 2.2 s a search at a million papers (2.0 s in memory), and the kernel stays
as large as the opened review (``benchmarks/bench_search.py``). The file is named by the papers
file it was made from (generation, size, modification time), so papers saved since are never
searched in a stale copy, and it is written to a temporary name and renamed, so a kernel that
stops mid-way leaves no half-written copy.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Iterator

import numpy as np

from ..errors import ReviewError
from .._runtime.fsutil import default_file_mode


__all__ = ["IN_MEMORY", "candidates", "lower_text"]

#: Above this many papers the haystack is searched from its file, a block at a time.
IN_MEMORY = 200_000
#: Between papers in the file (a NUL in a text is written as a space).
SEPARATOR = "\x00"
BLOCK_BYTES = 1 << 24


def lower_text(paper) -> str:
    """A paper's title and clean text in lower case: what keyword search reads of it."""
    return f"{paper.title}\n{paper.text}".lower()


def candidates(review, words: list[str]) -> Iterator[tuple[int, str]]:
    """``(position, text)`` of each paper whose :func:`lower_text` holds every one of ``words``
    (plain substrings), in the order of ``review.papers``."""
    papers_file = review.files / "papers.jsonl"
    if len(review.papers) > IN_MEMORY and papers_file.exists():
        path = _file_for(review, papers_file)
        try:
            if not path.exists():
                _write(review, path)
        except OSError:  # a folder this user cannot write to: searched in memory
            pass
        else:
            return _found(path, words, len(review.papers))
    haystack = review.haystack()
    rows = range(len(haystack))
    for w in words:  # one word at a time over the papers left (not a generator per paper)
        rows = [k for k in rows if w in haystack[k]]
    return ((k, haystack[k]) for k in rows)


def _file_for(review, papers_file: Path) -> Path:
    stat = papers_file.stat()
    return review.path / "cache" / f"haystack-{review.generation or 'top'}-{stat.st_size}-{stat.st_mtime_ns}.txt"


def _write(review, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob("haystack-*.txt"):  # made from older papers: only a stale kernel reads it
        if _made_at(old) < _made_at(path):  # (and it writes its own again, without removing this one)
            old.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".haystack-", suffix=".tmp", dir=path.parent)
    try:
        with open(fd, "w", encoding="utf-8", newline="") as fh:
            for p in review.papers_with_texts():
                fh.write(lower_text(p).replace(SEPARATOR, " ") + SEPARATOR)
        os.chmod(tmp, default_file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _made_at(path: Path) -> int:
    """The modification time (ns) of the papers file that the haystack file ``path`` was made from."""
    try:
        return int(path.stem.rsplit("-", 1)[1])
    except (IndexError, ValueError):
        return -1


def _found(path: Path, words: list[str], n_papers: int) -> Iterator[tuple[int, str]]:
    # A block of the file's bytes at a time: the longest word is looked for in the bytes (UTF-8
    # keeps a substring a substring), and only the texts it is in are decoded and checked.
    key = max(words, key=len).encode("utf-8")
    finder = re.compile(re.escape(key))
    done, rest = 0, b""
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK_BYTES):
            data = rest + block
            ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 0)  # the separators: each text's end
            hits = np.fromiter((m.start() for m in finder.finditer(data, 0, int(ends[-1]) if len(ends) else 0)), np.int64)
            for k in np.unique(np.searchsorted(ends, hits)):
                text = data[int(ends[k - 1]) + 1 if k else 0:int(ends[k])].decode("utf-8")
                if all(w in text for w in words):
                    yield done + int(k), text
            done += len(ends)
            rest = data[int(ends[-1]) + 1:] if len(ends) else data
    if done != n_papers or rest:
        path.unlink(missing_ok=True)  # made from other papers: never searched again
        raise ReviewError(f"{path} holds {done} texts for {n_papers} papers; search again (it is made anew)")

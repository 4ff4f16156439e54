"""What keyword search reads: each paper's title and text in lower case, in the papers' order.

A review of up to :data:`IN_MEMORY` papers keeps them in memory (:meth:`Review.haystack`). A
larger one (a field map of a million abstracts holds ~1.2 GB of them) keeps them in a file under
the review's ``cache/``, written at the first search of its papers and read a block at a time by
each search after it: a few seconds a search at a million papers, and the kernel stays as large
as the opened review. The file is named by the papers file it was made from (generation, size,
modification time), so papers saved since are never searched in a stale copy, and it is written
to a temporary name and renamed, so a kernel that stops mid-way leaves no half-written copy.
"""

from __future__ import annotations

import os
import tempfile
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from ..fsutil import default_file_mode

if TYPE_CHECKING:
    from ._review import Review

__all__ = ["IN_MEMORY", "haystack"]

#: Above this many papers the haystack is searched from its file, a block at a time.
IN_MEMORY = 200_000
#: Between papers in the file (a NUL in a text is written as a space).
SEPARATOR = "\x00"
BLOCK_BYTES = 1 << 24


def haystack(review: Review) -> Iterator[str]:
    """Each paper's title and clean text in lower case, in the order of ``review.papers``."""
    papers_file = review.files / "papers.jsonl"
    if len(review.papers) <= IN_MEMORY or not papers_file.exists():
        return iter(review.haystack())
    path = _file_for(review, papers_file)
    if not path.exists():
        try:
            _write(review, path)
        except OSError:  # a folder this user cannot write to: searched in memory
            return iter(review.haystack())
    return chain.from_iterable(_blocks(path))


def _file_for(review: Review, papers_file: Path) -> Path:
    stat = papers_file.stat()
    return review.path / "cache" / f"haystack-{review.generation or 'top'}-{stat.st_size}-{stat.st_mtime_ns}.txt"


def _write(review: Review, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in path.parent.glob("haystack-*.txt"):  # another generation's: never read again
        old.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".haystack-", suffix=".tmp", dir=path.parent)
    try:
        with open(fd, "w", encoding="utf-8", newline="") as fh:
            for p in review.papers:
                fh.write(f"{p.title}\n{p.text}".lower().replace(SEPARATOR, " ") + SEPARATOR)
        os.chmod(tmp, default_file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _blocks(path: Path) -> Iterator[list[str]]:
    # Bytes split at the separator (a NUL byte is never part of another UTF-8 character), then
    # each text decoded alone: most are ASCII and stay one byte a character. A block decoded
    # whole takes the widest character in it for all (4x slower here, and 4x the memory).
    rest = b""
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK_BYTES):
            texts = (rest + block).split(SEPARATOR.encode())
            rest = texts.pop()  # the part of a text that runs into the next block (b'' at the end)
            yield [t.decode("utf-8") for t in texts]

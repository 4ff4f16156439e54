"""A build's papers set aside while the topics are found: their metadata in memory, their texts in a file.

A build reads every paper with its abstract, but from the embedding to the save it needs only
what it embeds and clusters (the "Title. Abstract" texts, a list of their own) and the papers'
metadata. :func:`set_aside` writes the papers as the lines of a review's ``papers.jsonl`` to a
file in the review's cache folder, once, and hands back their metadata
(:class:`~workbench.corpus.paper.PaperInfo`) and their texts left in that file
(:class:`~workbench.corpus.texts.TextsInFile`), as a Dask build's papers come back: at a million
papers the abstracts held beside the texts were ~1 GB of the build's peak. The save then links
the file as the new generation's ``papers.jsonl`` instead of writing it
(:meth:`~workbench.corpus.texts.TextsInFile.file_of`), and the build removes it
(:meth:`Aside.close`; the texts stay readable through the open file).
"""

from __future__ import annotations

import os
import tempfile
from contextlib import suppress
from pathlib import Path
from typing import Sequence

import numpy as np

from ..._runtime.fsutil import default_file_mode
from ...corpus.paper import Paper, paper_line
from ...corpus.texts import TextsInFile

__all__ = ["Aside", "set_aside"]


#: Fewer papers stay whole in memory: writing their file costs more than their abstracts weigh
#: (an unchanged rebuild of 50,000 papers links the previous papers.jsonl and writes none).
MIN_PAPERS = 200_000


class Aside:
    """The papers set aside by :func:`set_aside`: ``papers`` (their metadata) and ``texts`` (in
    ``path``); below :data:`MIN_PAPERS`, the papers as they were (``texts`` and ``path`` None:
    what a :class:`~workbench.review.Review` is made of either way)."""

    def __init__(self, papers: list, texts: TextsInFile | None = None, path: Path | None = None):
        self.papers, self.texts, self.path = papers, texts, path

    def close(self) -> None:
        """Remove the file (the texts stay readable through the open file)."""
        if self.path is not None:
            with suppress(OSError):
                self.path.unlink()

    def __enter__(self) -> "Aside":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def set_aside(papers: Sequence[Paper], folder: Path) -> Aside:
    """``papers`` as lines of ``papers.jsonl`` in a new file in ``folder`` (see the module), from
    :data:`MIN_PAPERS` papers. Files a build left there (stopped before its save) are removed
    first: a build reads its texts through its open file, and writes papers.jsonl whole when its
    file is gone."""
    if len(papers) < MIN_PAPERS:
        return Aside(list(papers))
    folder.mkdir(parents=True, exist_ok=True)
    for left in folder.glob(".papers-*.jsonl"):
        with suppress(OSError):
            left.unlink()
    handle, name = tempfile.mkstemp(dir=folder, prefix=".papers-", suffix=".jsonl")
    starts = np.empty(len(papers), dtype=np.int64)
    ends = np.empty(len(papers), dtype=np.int64)
    infos, at = [], 0
    try:
        os.chmod(handle, default_file_mode())  # 0600 from mkstemp; the review's papers.jsonl (a link) shares it
        with open(handle, "wb", buffering=2**22) as out:
            for k, paper in enumerate(papers):
                line = (paper_line(paper) + "\n").encode("utf-8")
                out.write(line)
                starts[k], at = at, at + len(line)
                ends[k] = at
                infos.append(paper.info())
        texts = TextsInFile(Path(name), starts, ends, infos)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Aside(infos, texts, Path(name))

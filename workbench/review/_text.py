"""What a review embeds and clusters for each paper, and reading papers back from papers.jsonl."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

from ..corpus.paper import LINK_FIELDS, STORED_FIELDS, Paper
from ..corpus.titles import title_repeats_abstract

__all__ = ["StoredTexts", "document_text", "parquet_embeddings", "read_papers"]


def document_text(paper: Paper) -> str:
    """What is embedded and clustered: "Title. Abstract", or the abstract alone when the title
    adds nothing to it (``Paper.title_derived``), or the title alone when there is no abstract.

    Title + abstract measured better than the abstract alone on the labelled corpora
    (docs/benchmarks.md); a title made from the abstract would only count its words twice.
    """
    text, title = paper.text, paper.title
    if not text:
        return title
    if not title or paper.title_derived:
        return text
    return f"{title} {text}" if title.endswith((".", "?", "!")) else f"{title}. {text}"


class StoredTexts:
    """The abstracts and clean texts of a review's papers, left in its papers.jsonl and read
    (one line, by its byte range) when a paper's ``abstract`` or ``text`` is asked for.

    They are most of a paper's memory (1.7 of 2.7 kB a paper on a 50,000-paper review), and a
    kernel holding a 1,000,000-paper map must not hold them all. The file stays open: a
    generation's files are never rewritten, and one the review has pruned since stays readable
    through the open file (POSIX). This is not the SQLite store, whose locks a closed descriptor
    would drop."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._file = open(self.path, "rb")  # noqa: SIM115 (kept open for the papers' lifetime)
        self._starts = self._ends = np.zeros(0, dtype=np.int64)  # each paper's line: bytes [start, end)
        self._ids: list[str] = []
        self._last: tuple[int, dict] = (-1, {})

    def locate(self, starts: list[int], ends: list[int], ids: list[str]) -> None:
        """Where each paper's line is (its bytes ``[start, end)``) and the id it holds."""
        self._starts, self._ends = np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
        self._ids = ids

    def whole_file(self, papers) -> Path | None:
        """This file, when ``papers`` are exactly its papers in order (paper ``k`` read from line
        ``k``, no blank line between) and it is still at its path, as long as it was when read;
        else None (see :func:`workbench.corpus.paper.stored_file`)."""
        if len(papers) != len(self._ids) or not len(papers) or self._starts[0] != 0:
            return None
        if not np.array_equal(self._starts[1:], self._ends[:-1]):
            return None
        if any(p.__dict__.get("_stored") != (self, k) for k, p in enumerate(papers)):
            return None
        try:
            held, there = os.fstat(self._file.fileno()), os.stat(self.path)
        except OSError:
            return None
        same = (held.st_ino, held.st_dev) == (there.st_ino, there.st_dev)
        return self.path if same and held.st_size == self._ends[-1] else None

    def read(self, k: int, name: str) -> str:
        """Paper ``k``'s ``abstract`` or ``text`` (the text is left out of the line where it equals
        the abstract)."""
        last = self._last  # the line read last (abstract and text are often asked in turn); one
        if last[0] != k:   # read, so that another thread's read in between cannot swap it
            line = os.pread(self._file.fileno(), int(self._ends[k] - self._starts[k]), int(self._starts[k]))
            try:
                record = json.loads(line)
            except ValueError:
                record = {}
            if record.get("id") != self._ids[k]:
                from ..errors import ReviewError

                raise ReviewError(f"{self.path} changed on disk after the review was opened (line of paper "
                                  f"{self._ids[k]} no longer there); open the review again")
            last = self._last = (k, record)
        record = last[1]
        return record.get(name, record.get("abstract", "")) if name == "text" else record.get("abstract", "")


#: A paper's fields but the stored ones.
_KEPT = frozenset(Paper.__dataclass_fields__) - STORED_FIELDS
_TUPLES = ("authors", "keywords", "sources", "aliases", *LINK_FIELDS)


def _fields(line: bytes) -> dict:
    """A line's fields but the stored ones (older files: no clean text where it equals the
    abstract, no ``title_derived``; written before citations were kept, or without any: no
    ``external_ids``, ``references``, ``cited_by``)."""
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
    return {k: v for k, v in d.items() if k in _KEPT}


def read_papers(path: Path) -> list[Paper]:
    """The papers of a review's papers.jsonl, their abstracts and texts left in the file
    (:class:`StoredTexts`). Raises ``KeyError`` or ``ValueError`` for a damaged line."""
    texts = StoredTexts(path)
    papers, starts, ends = [], [], []
    at = 0
    with open(path, "rb") as lines:
        for line in lines:
            start, at = at, at + len(line)
            if not line.strip():
                continue
            paper = Paper(abstract="", text="", **_fields(line))
            # Set and deleted one by one, as __init__ sets them, the instances keep sharing their
            # dictionaries' keys (280 bytes a paper; 530 with a dictionary each).
            object.__setattr__(paper, "_stored", (texts, len(papers)))
            object.__delattr__(paper, "abstract")
            object.__delattr__(paper, "text")
            papers.append(paper)
            starts.append(start)
            ends.append(at)
    texts.locate(starts, ends, [p.id for p in papers])
    return papers


def parquet_embeddings(review):
    """The papers' embeddings from a Dask build's Parquet cache (None when one is missing)."""
    from ..distributed import ParquetCache
    from ..embed import text_hash
    from ..corpus.paper import bounded_text

    where = review.manifest["embedding_cache"]
    embedder = review.manifest["embedder"]
    cache = ParquetCache(review.path / where["path"], f"{embedder['name']}:{embedder['version']}")
    return cache.lookup([text_hash(bounded_text(t)) for t in review.texts()])

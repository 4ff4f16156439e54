"""The labels' word counts made beside the embedding and the topics, in a second process.

The labels' document-term matrix (:mod:`workbench.topics.terms`: every paper's words and
bigrams, ~9 s at 50,000 papers) depends only on the papers' texts, and the labels are the
topics' last stage. A build that has papers to embed forks a :class:`WordsBeside` before it
embeds them (:meth:`WordsBeside.start`, called by ``embed_with_cache``): the child counts the
words while this process embeds, writes the matrix to a file in the review's cache folder and
ends; the build waits for it before the topics, so its memory is back before their peak
(:meth:`WordsBeside.wait`; waiting after the neighbour graph instead took a build that had
only 100 papers to embed to 1.7 GB). The build hands :meth:`WordsBeside.terms` to the topic
model (``TopicModel.fit(..., terms=)``), whose labels then load the file instead of counting
(:func:`~workbench.topics.terms.document_terms`). The child counts the same texts with the
same code, so the matrix is the one this process would count; a count of other texts (its
key differs) is not used.

The words are counted at the labels, as before, where the child does not pay or cannot run:
nothing new to embed (topics kept from an earlier build, or only new parameters: no second
process is started then), fewer than :data:`MIN_PAPERS` papers, one core (or
``WORKBENCH_WORKERS=1``), no ``fork``, a daemonic process (a Dask worker). If the child fails
(killed, a full disk, an error), they are counted here and a warning says why.
"""

from __future__ import annotations

import logging
import os
import secrets
from pathlib import Path
from typing import Callable, Sequence

from ..._runtime.halves import beside, can_split, ended, received, reporting, start_child
from ...topics.terms import DocumentTerms, texts_key

__all__ = ["MIN_PAPERS", "WordsBeside"]

log = logging.getLogger(__name__)

#: Fewer papers are counted in this process: their words take a second or two.
MIN_PAPERS = 5_000


class WordsBeside:
    """The words of ``texts`` being counted in a forked process (see the module docstring):
    :meth:`terms` gives the child's count, and hands its file to ``keep(path, key)`` where given
    (the review's cache keeps it for later fits). A context manager: leaving it stops a child
    still counting and removes its file."""

    def __init__(self, texts: Sequence[str], folder: str | os.PathLike, start: bool = False,
                 keep: Callable[[Path, str], None] | None = None):
        self.texts, self.folder, self.keep = texts, Path(folder), keep
        self._child = self._conn = self._file = None
        self._key: str | None = None  # the key of the texts the child counts, once it has said
        self._done: tuple[str, str | None] | None = None  # how the count ended: ("counted", None) or ("error", why)
        if start:
            self.start()

    def start(self, *_) -> None:
        """Fork the child, where it pays and can run (see the module docstring); a build calls
        this when it has papers to embed (``*_``: how many)."""
        texts = self.texts
        if self._child is not None or len(texts) < MIN_PAPERS or not can_split(len(texts), MIN_PAPERS):
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._file = self.folder / f".words-{os.getpid()}-{secrets.token_hex(4)}.npz"
            self._child, self._conn = start_child(_child, (texts, str(self._file)), "workbench-words")
            beside.add(self._child)  # (its core: the embedder does not split its texts meanwhile)
        except OSError as err:  # no memory or processes left, a read-only folder
            log.warning("counting the topic words in this process (no second process: %s)", err)
            self._child = self._file = None

    def wait(self) -> None:
        """Wait until the child has counted (or failed) and ended: a build waits before its
        topics, so that the child's memory is given back before the topics' peak."""
        if self._child is None or self._done is not None:
            return
        self._await_key()
        if self._done is None:
            self._done = received(self._conn, self._child)
        self._child.join(timeout=10)

    def _await_key(self) -> None:
        """The key of the texts the child counts (its first message), once; or how it failed first."""
        if self._key is None and self._done is None:
            kind, value = received(self._conn, self._child)
            if kind == "key":
                self._key = value
            else:
                self._done = (kind, value)

    def terms(self, key: str) -> DocumentTerms | None:
        """The child's :class:`~workbench.topics.terms.DocumentTerms` if it counted the texts of
        ``key`` (:func:`~workbench.topics.terms.texts_key`); else None: counted here. What a
        topic model is handed as ``terms``: it asks when its labels need the counts."""
        if self._child is None:
            return None
        self._await_key()
        if self._key is not None and self._key != key:  # (other texts: the child's count is kept for its own)
            return None
        self.wait()
        kind, value = self._done
        try:
            if kind == "counted":
                counted = DocumentTerms.from_file(self._file)
                if self.keep is not None:
                    self.keep(self._file, counted.key)  # (moved: close() has nothing to remove)
                    self._file = None
                return counted
            log.warning("counting the topic words in this process: its second process failed: %s", value)
        except Exception as err:  # noqa: BLE001 - a cut or unreadable file: counted here
            log.warning("counting the topic words in this process: its second process's count is unreadable (%s)", err)
        finally:
            self.close()
        return None

    def close(self) -> None:
        if self._child is not None:
            ended(self._child)  # (still counting: kept topics need no words)
            self._conn.close()
            self._child = None
        if self._file is not None:
            for path in (self._file, Path(f"{self._file}.tmp")):  # (the temporary one: a child stopped while writing)
                path.unlink(missing_ok=True)
            self._file = None

    def __enter__(self) -> "WordsBeside":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _child(conn, texts: Sequence[str], path: str) -> None:
    """In the forked process: the key of the texts the labels count, then their counts written
    to ``path`` (through a temporary file and a rename), then a message that they are."""
    from ...topics.represent import documents

    with reporting(conn):
        docs = documents(texts)
        key = texts_key(docs)
        conn.send(("key", key))
        counted = DocumentTerms(docs, key)
        tmp = f"{path}.tmp"
        counted.to_file(tmp)
        os.replace(tmp, path)
        conn.send(("counted", None))

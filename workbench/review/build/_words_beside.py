"""The labels' word counts made beside the embedding and the topics, in a second process.

The labels' document-term matrix (:mod:`workbench.topics.terms`: every paper's words and
bigrams, ~9 s at 50,000 papers) depends only on the papers' texts, and the labels are the
topics' last stage. A build that has papers to embed starts a :class:`WordsBeside` before it
embeds them (:meth:`WordsBeside.start`, called by ``embed_with_cache``): the texts go to a file
in the review's cache folder, and a second process counts their words while this process embeds,
writes the matrix to a file beside them and ends; the build waits for it before the topics, so
its memory is back before their peak (:meth:`WordsBeside.wait`; waiting after the neighbour
graph instead took a build that had only 100 papers to embed to 1.7 GB). The build hands
:meth:`WordsBeside.terms` to the topic model (``TopicModel.fit(..., terms=)``), whose labels then
load the file instead of counting (:func:`~workbench.topics.terms.document_terms`). The second
process counts the same texts with the same code, so the matrix is the one this process would
count; a count of other texts (its key differs) is not used.

From :data:`FRESH_FROM` papers the second process is a fresh interpreter (``python -c``, which
imports the workbench but no user's module), not a fork: a forked child shares this process's
pages until either writes them, and this process writes every text's reference count as it
embeds, so the child came to hold a private copy of the texts (1.1 GB at a million papers) on
top of its counts. It reads the texts from the file one at a time, and writes the counts as it
makes them (:meth:`~workbench.topics.terms.DocumentTerms.count_to_file`): it holds the
vocabulary, not the 200 million entries (1.6 GB) of a million papers' counts. Below, the child
is forked, as it was: an interpreter's start and the texts' file cost a 50,000-paper build
~11 s of waiting for the words, where the fork's copies are tens of megabytes.

The words are counted at the labels, as before, where the second process does not pay or cannot
run: nothing new to embed (topics kept from an earlier build, or only new parameters: no second
process is started then), fewer than :data:`MIN_PAPERS` papers, one core (or
``WORKBENCH_WORKERS=1``), a daemonic process (a Dask worker). If it fails (killed, a full disk,
an error), they are counted here and a warning says why.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

from ..._runtime.halves import beside, can_split, ended, received, reporting, start_child
from ...topics.represent import documents
from ...topics.terms import DocumentTerms, texts_key

__all__ = ["FRESH_FROM", "MIN_PAPERS", "WordsBeside"]

log = logging.getLogger(__name__)

#: Fewer papers are counted in this process: their words take a second or two.
MIN_PAPERS = 5_000
#: From this many papers the words are counted in a fresh interpreter, not a fork (see the module
#: docstring); the build sets its papers aside from the same size (``_aside.MIN_PAPERS``).
FRESH_FROM = 200_000
#: The texts written to the file at a time (each made into what the labels count first).
_BATCH = 10_000


class WordsBeside:
    """The words of ``texts`` being counted in a second process (see the module docstring):
    :meth:`terms` gives the child's count, and hands its file to ``keep(path, key)`` where given
    (the review's cache keeps it for later fits). A context manager: leaving it stops a child
    still counting and removes its file."""

    def __init__(self, texts: Sequence[str], folder: str | os.PathLike, start: bool = False,
                 keep: Callable[[Path, str], None] | None = None):
        self.texts, self.folder, self.keep = texts, Path(folder), keep
        self._child = self._file = None
        self._inputs: list[Path] = []
        self._key: str | None = None  # the key of the texts the child counts, once it has said
        self._done: tuple[str, str | None] | None = None  # how the count ended: ("counted", None) or ("error", why)
        if start:
            self.start()

    def start(self, *_) -> None:
        """Start the second process, where it pays and can run (see the module docstring); a
        build calls this when it has papers to embed (``*_``: how many)."""
        texts = self.texts
        if self._child is not None or len(texts) < MIN_PAPERS or not can_split(len(texts), MIN_PAPERS):
            return
        base = self.folder / f".words-{os.getpid()}-{secrets.token_hex(4)}"
        self._file = Path(f"{base}.npz")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if len(texts) >= FRESH_FROM:
                self._inputs = [Path(f"{base}.texts"), Path(f"{base}.lengths")]
                _write_texts(texts, *self._inputs)
                self._child = _Counter(self._inputs, self._file)
            else:
                self._child = _Forked(texts, self._file)
            beside.add(self._child)  # (its core: the embedder does not split its texts meanwhile)
        except OSError as err:  # no memory or processes left, a read-only or full folder
            log.warning("counting the topic words in this process (no second process: %s)", err)
            self._remove_inputs()
            self._child = self._file = None

    def wait(self) -> None:
        """Wait until the child has counted (or failed) and ended: a build waits before its
        topics, so that the child's memory is given back before the topics' peak."""
        if self._child is None or self._done is not None:
            return
        self._await_key()
        if self._done is None:
            self._done = self._child.received()
        self._child.join(timeout=10)
        self._remove_inputs()

    def _await_key(self) -> None:
        """The key of the texts the child counts (its first message), once; or how it failed first."""
        if self._key is None and self._done is None:
            kind, value = self._child.received()
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
            self._child.close()
            self._child = None
        self._remove_inputs()
        if self._file is not None:
            for path in (self._file, Path(f"{self._file}.tmp")):  # (the temporary one: a child stopped while writing)
                path.unlink(missing_ok=True)
            self._file = None

    def _remove_inputs(self) -> None:
        for path in self._inputs:
            path.unlink(missing_ok=True)
        self._inputs = []

    def __enter__(self) -> "WordsBeside":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _write_texts(texts: Sequence[str], path: Path, lengths: Path) -> None:
    """What the labels count of ``texts`` (:func:`~workbench.topics.represent.documents`), one
    after the other in UTF-8 in ``path``, and their lengths in bytes (int64) in ``lengths``."""
    sizes = np.empty(len(texts), dtype=np.int64)
    with open(path, "wb") as out:
        for start in range(0, len(texts), _BATCH):
            for i, doc in enumerate(documents(texts[start:start + _BATCH]), start):
                data = doc.encode("utf-8", "surrogatepass")
                sizes[i] = len(data)
                out.write(data)
    sizes.tofile(lengths)


def _read_texts(path: str, lengths: np.ndarray, decoded: bool = True) -> Iterator:
    """The texts :func:`_write_texts` wrote, one at a time (``decoded``: as str, else bytes)."""
    with open(path, "rb") as f:
        for size in lengths.tolist():
            data = f.read(size)
            if len(data) != size:
                raise ValueError(f"{path}: cut short")
            yield data.decode("utf-8", "surrogatepass") if decoded else data


class _Forked:
    """The second process forked (below :data:`FRESH_FROM` papers), as :class:`_Counter` is used."""

    def __init__(self, texts: Sequence[str], out: Path):
        self._process, self._conn = start_child(_forked, (texts, str(out)), "workbench-words")

    @property
    def pid(self) -> int:
        return self._process.pid

    def received(self) -> tuple[str, object]:
        return received(self._conn, self._process)

    def is_alive(self) -> bool:
        return self._process.is_alive()

    def terminate(self) -> None:
        self._process.terminate()

    def join(self, timeout: float | None = None) -> None:
        self._process.join(timeout)

    def close(self) -> None:
        self._conn.close()


def _forked(conn, texts: Sequence[str], path: str) -> None:
    """In the forked process: the key of the texts the labels count, then their counts written
    to ``path`` (through a temporary file and a rename), then a message that they are."""
    with reporting(conn):
        docs = documents(texts)
        key = texts_key(docs)
        conn.send(("key", key))
        counted = DocumentTerms(docs, key)
        tmp = f"{path}.tmp"
        counted.to_file(tmp)
        os.replace(tmp, path)
        conn.send(("counted", None))


class _Counter:
    """The second process as a fresh interpreter (see the module docstring), with what :func:`~workbench._runtime.halves.ended`
    and :data:`~workbench._runtime.halves.beside` ask of a process: ``is_alive``, ``terminate``,
    ``join``. Its messages come one a line on its standard output: ``key KEY``, ``counted``, or
    ``error WHY``."""

    def __init__(self, inputs: list[Path], out: Path):
        root = str(Path(__file__).resolve().parents[3])  # (where this workbench is, not another one)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])])}
        self._process = subprocess.Popen(
            [sys.executable, "-c", f"from {__name__} import main; main()", *map(str, inputs), str(out)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)

    @property
    def pid(self) -> int:
        return self._process.pid

    def received(self) -> tuple[str, object]:
        """Its next message, a ``(kind, value)`` pair; ``("error", why)`` where it ended without
        sending one (killed, out of memory: the exit code says which)."""
        line = self._process.stdout.readline().rstrip("\n")
        kind, _, value = line.partition(" ")
        if kind == "key" and value:
            return "key", value
        if kind == "counted":
            return "counted", None
        if kind == "error":
            return "error", value
        self.join(timeout=10)
        return "error", f"the process ended (exit code {self._process.poll()})"

    def is_alive(self) -> bool:
        return self._process.poll() is None

    def terminate(self) -> None:
        self._process.terminate()

    def join(self, timeout: float | None = None) -> None:
        try:
            self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        self._process.stdout.close()


def main(argv: Sequence[str] | None = None) -> None:
    """In the second process: ``TEXTS LENGTHS OUT``: the key of the texts (what
    :func:`~workbench.topics.terms.texts_key` gives), then their counts written to ``OUT``
    (through a temporary file and a rename), each said on standard output as it is done."""
    texts, lengths, path = sys.argv[1:4] if argv is None else argv

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        sizes = np.fromfile(lengths, dtype=np.int64)
        h = hashlib.blake2b(digest_size=16)
        for data in _read_texts(texts, sizes, decoded=False):
            h.update(data + b"\0")
        key = h.hexdigest()
        say(f"key {key}")
        tmp = f"{path}.tmp"
        DocumentTerms.count_to_file(_read_texts(texts, sizes), key, tmp)
        os.replace(tmp, path)
        say("counted")
    except BaseException as err:  # noqa: BLE001 - the build counts the words itself, and says why
        why = " ".join(f"{type(err).__name__}: {err}".split()) or type(err).__name__
        try:
            say(f"error {why}")
        except OSError:  # (the build is gone, or stopped listening)
            pass
        traceback.print_exc()
        sys.exit(1)

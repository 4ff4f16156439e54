"""Records read before: a source file whose bytes, name and reading options have not changed is
not read again, and an unchanged set of files is not deduplicated again.

A :class:`RecordCache` is a folder (a review keeps one in ``cache/records/``) of JSON Lines files:

- ``file-<key>.jsonl``: what reading one file gave: its report, then each paper (every field)
  with its deduplication keys. The key hashes the file's bytes, the name it was read under
  (papers' ``source`` says it), the reading options, :data:`READER_VERSION`, the workbench's
  version and its reading code (:func:`code_digest`), so a changed file, option or reader is
  never served from the cache.
- ``duplicates-<key>.json``: what deduplication found among the papers of a list of files (the
  key hashes their keys, in order, and the deduplication settings).

Files are written through a temporary file and a rename (a reader never sees half a file), as
plain data (no pickle: a review folder may be shared). :meth:`RecordCache.keep` removes the
entries a read did not use, so the folder holds one read's worth of records.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
from dataclasses import asdict
from functools import lru_cache
from operator import attrgetter
from pathlib import Path

from .._version import __version__
from .._runtime.fsutil import default_file_mode
from ..dedupe import Duplicates, Merge, PaperKeys
from ..corpus.paper import INFO_FIELDS, LINK_FIELDS, TEXT_FIELDS, Paper
from .pool import collector_paused
from .report import FileReport

__all__ = ["READER_VERSION", "READING_CODE", "RecordCache", "code_digest"]

#: Raise when a reader or the cleaning gives other papers from the same bytes (the workbench's
#: version is in every key too).
READER_VERSION = 1

_FIELDS = [*INFO_FIELDS, *TEXT_FIELDS]  # a row's values: a paper's metadata as Paper takes it, then its texts
_TEXT, _ABSTRACT = _FIELDS.index("text"), _FIELDS.index("abstract")
_TUPLES = [_FIELDS.index(f) for f in ("authors", "keywords", "sources", "aliases", *LINK_FIELDS)]
_values = attrgetter(*_FIELDS)
# One encoder for every row (json.dumps with an option makes one per call), escaping what is
# not ASCII (CPython's ASCII path is the faster one).
_encode = json.JSONEncoder().encode


@lru_cache(maxsize=None)
def code_digest(*names: str) -> str:
    """A digest of the workbench's own source files ``names`` (paths under the package, folders
    for all their modules): keys that include it change with the code that makes what they key,
    also in a checkout whose version number stays put."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.blake2b(digest_size=16)
    for name in names:
        for path in sorted((root / name).glob("*.py")) if (root / name).is_dir() else [root / name]:
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


#: What reading a file runs: the readers, the clean-up, titles, ids and deduplication keys.
READING_CODE = ("readers", "corpus", "dedupe")


def _digest(*parts) -> str:
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


class RecordCache:
    """Papers read from a file before, by the file's key; see the module docstring."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.used: set[str] = set()

    def file_key(self, raw: bytes, name: str, format: str | None, with_references: bool,
                 max_chars: int | None = None) -> str:
        return _digest(raw, name, format, with_references, max_chars, READER_VERSION, __version__,
                       code_digest(*READING_CODE))

    def duplicates_key(self, file_keys: list[str], threshold: float, fuzzy: bool) -> str:
        return _digest(*file_keys, threshold, fuzzy, READER_VERSION, __version__, code_digest(*READING_CODE))

    # ------------------------------------------------------------------ one file's papers

    def get(self, key: str) -> list[tuple[list[Paper], list[PaperKeys], FileReport]] | None:
        """What reading the file gave (per archive member: its papers, their deduplication keys
        and its report), or None when it is not cached."""
        path = self.folder / f"file-{key}.jsonl"
        try:
            with open(path, encoding="utf-8") as f, collector_paused():
                results = [_parts(f, json.loads(line)) for line in f if line.startswith("{")]
        except (OSError, ValueError, TypeError, KeyError):  # absent, or damaged: read the file again
            return None
        self.used.add(path.name)
        return results

    def put(self, key: str, results: list[tuple[list[Paper], list[PaperKeys], FileReport]],
            readers: int | None = None) -> None:
        """Keep what reading a file gave (its reports as they are now: before deduplication).
        ``readers``: the group and other read bits of the file's mode (``stat.S_IRGRP``,
        ``stat.S_IROTH``); the entry is no more readable than the file was (a file only its
        owner may read gives an entry only its owner may read)."""
        lines = []
        for papers, keys, report in results:
            lines.append(json.dumps({**asdict(report), "papers": len(papers)}, ensure_ascii=False))
            lines.extend(_row(p, k) for p, k in zip(papers, keys))
        self._write(f"file-{key}.jsonl", lines, readers)

    # ------------------------------------------------------------------ deduplication

    def get_duplicates(self, key: str) -> Duplicates | None:
        path = self.folder / f"duplicates-{key}.json"
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            found = Duplicates(d["clusters"], [Merge(*m) for m in d["merges"]], d["comparisons"], d["notes"])
        except (OSError, ValueError, TypeError, KeyError):
            return None
        self.used.add(path.name)
        return found

    def put_duplicates(self, key: str, found: Duplicates) -> None:
        doc = {"clusters": found.clusters, "merges": [[m.kept, m.merged, m.reason] for m in found.merges],
               "comparisons": found.comparisons, "notes": found.notes}
        self._write(f"duplicates-{key}.json", [json.dumps(doc, ensure_ascii=False)])

    # ------------------------------------------------------------------ the folder

    def _write(self, name: str, lines: list[str], readers: int | None = None) -> None:
        self.used.add(name)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self.folder / f".{name}.tmp{os.getpid()}.{secrets.token_hex(3)}"
            try:
                with open(tmp, "w", encoding="utf-8") as f:
                    if readers is not None:
                        os.chmod(tmp, _no_wider(default_file_mode(), readers))
                    for line in lines:
                        f.write(line + "\n")
                os.replace(tmp, self.folder / name)
            finally:
                tmp.unlink(missing_ok=True)
        except OSError:  # a full disk or a read-only folder: the next read reads again
            pass

    def keep(self) -> None:
        """Remove every entry this cache's reads did not use (those of changed files)."""
        try:
            entries = list(self.folder.iterdir())
        except OSError:
            return
        for entry in entries:
            if entry.name.startswith(("file-", "duplicates-")) and entry.name not in self.used:
                entry.unlink(missing_ok=True)


def _no_wider(mode: int, readers: int) -> int:
    """``mode`` (the user's umask's) without the group's or others' bits where ``readers`` (a
    source's read bits) does not let them read the source."""
    if not readers & stat.S_IRGRP:
        mode &= ~stat.S_IRWXG
    if not readers & stat.S_IROTH:
        mode &= ~stat.S_IRWXO
    return mode


def _row(paper: Paper, keys: PaperKeys) -> str:
    row = list(_values(paper))
    if row[_TEXT] == row[_ABSTRACT]:
        row[_TEXT] = None  # most papers: the text once
    row += keys.text.hex(), keys.words, keys.title
    return _encode(row)


def _parts(lines, head: dict) -> tuple[list[Paper], list[PaperKeys], FileReport]:
    """One file's (or archive member's) papers, their deduplication keys and its report:
    ``head`` and the lines that follow it."""
    n = head.pop("papers")
    report = FileReport(**head)
    papers, keys = [], []
    for _ in range(n):
        row = json.loads(next(lines))
        if len(row) != len(_FIELDS) + 3:
            raise ValueError("a damaged row")
        digest, words, title = row[len(_FIELDS):]
        del row[len(_FIELDS):]
        if row[_TEXT] is None:
            row[_TEXT] = row[_ABSTRACT]
        for i in _TUPLES:
            row[i] = tuple(row[i])
        *info, abstract, text = row
        papers.append(Paper(*info, abstract=abstract, text=text))
        keys.append(PaperKeys(bytes.fromhex(digest), words, title))
    return papers, keys, report

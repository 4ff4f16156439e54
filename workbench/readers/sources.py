"""Files, folders and archives in, papers and a report out: decode, choose a reader, read, deduplicate.

Nothing is passed over without a word: a folder that cannot be opened, a broken link, a link
leading outside the sources, a hidden file, what is not a regular file, a file of an unknown
type or too large, and an archive member that cannot be read are each a line of the report; a
file that yields no record gets a warning; and when no file yields any record,
:func:`read_sources` raises :class:`~workbench.errors.NoRecordsError` carrying the report.

Nothing of a file that is not a bibliography is repeated (see :mod:`.filebytes`, which reads
one file's bytes), and what is read is bounded (:mod:`.bounds`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from .._runtime.memory import release_free_memory
from ..errors import NoRecordsError, ReaderError
from ..corpus.paper import Paper
from ..dedupe import DuplicateRules
from .archives import archive_kind, members
from .bounds import Limits, read_regular
from .cache import RecordCache
from .decode import decode
from .filebytes import BLANK, HEAD, read_bytes_report, unknown_type
from .folders import REVIEW_MARKERS, expand, not_read
from .pool import collector_paused
from .registry import READERS, choose_reader
from .report import FileReport, ReadReport

__all__ = ["REVIEW_MARKERS", "read_bytes_report", "read_file", "read_file_report", "read_found", "read_sources",
           "source_files"]

#: After reading this many records, freed memory is given back to the operating system: the
#: file's text, its rows and the workers' results are garbage by then, but glibc keeps their
#: pages, and every later stage's peak would land on top of them (~100 MB at 50,000 papers).
_TRIM_AFTER = 4000


def read_file_report(path: str | Path, format: str | None = None, display_name: str | None = None, *,
                     with_references: bool = False) -> tuple[list[Paper], FileReport]:
    """Read one file: its papers (in file order, not deduplicated) and what happened."""
    path = Path(path)
    name = display_name or str(path)
    limits = Limits.from_env()
    raw = read_regular(path, limits.file_bytes, name)
    return read_bytes_report(raw, name, format, with_references=with_references, limits=limits)


def read_file(path: str | Path, format: str | None = None, display_name: str | None = None,
              *, with_references: bool = False) -> list[Paper]:
    """Read one file with the reader its content or suffix calls for (no deduplication)."""
    return read_file_report(path, format, display_name, with_references=with_references)[0]


def _message(err: ReaderError, name: str) -> str:
    return str(err).removeprefix(f"{name}: ").removeprefix(f"{name}:{err.line}: ")


def _claimed(path: Path) -> bool:
    suffix = path.suffix.lower()
    return any(suffix in r.suffixes for r in READERS.values())


def _load(path: Path, explicit: bool, format: str | None, limits: Limits) -> tuple[bytes | None, FileReport | None]:
    """The bytes of a source file, or the line saying why it is not read (a file named
    explicitly: :class:`ReaderError`). A file of a type no reader claims is looked at by its
    first bytes only: a video in a source folder is not read whole to say so."""
    name = str(path)
    try:
        if format is None and not _claimed(path):
            head = read_regular(path, limits.file_bytes, name, head=HEAD)
            text = decode(head[: head.rfind(b"\n") + 1] or head).text
            if head and not BLANK.fullmatch(head) and archive_kind(head) is None \
                    and choose_reader(path, head, text) is None:
                raise ReaderError(unknown_type(path), name)
        return read_regular(path, limits.file_bytes, name), None
    except ReaderError as err:
        if explicit:
            raise
        return None, not_read(name, _message(err, name))


def _read_cached(path: Path, explicit: bool, format: str | None, with_references: bool,
                 cache: RecordCache | None, keys: list[str], report: ReadReport, limits: Limits):
    """:func:`_read_one`, or what it gave before for the same bytes (``cache``); the file's
    cache key goes into ``keys``, and its name into ``report.reused`` when it was not read."""
    raw, problem = _load(path, explicit, format, limits)
    if problem is not None:
        yield [], [], problem
        return
    if cache is None:
        yield from _read_one(path, explicit, format, with_references, raw, limits)
        return
    key = cache.file_key(raw, str(path), format, with_references, limits.field_chars)
    keys.append(key)
    results = cache.get(key)
    if results is not None:
        report.reused.append(str(path))
    else:
        results = list(_read_one(path, explicit, format, with_references, raw, limits))
        cache.put(key, results, readers=_readers(path))
    yield from results


def _readers(path: Path) -> int:
    """Who may read the file ``path``: its permission bits for group and others (stat's)."""
    try:
        return os.stat(path).st_mode & (stat.S_IRGRP | stat.S_IROTH)
    except OSError:
        return 0


def _read_one(path: Path, explicit: bool, format: str | None, with_references: bool, raw: bytes,
              limits: Limits) -> Iterator[tuple[list[Paper], list, FileReport]]:
    """The papers, their deduplication keys and the report of a file (``raw``: its bytes), or
    of each member of an archive."""
    name = str(path)
    kind = archive_kind(raw) if format is None else None
    if kind is None:
        try:
            yield _with_keys(raw, name, format, with_references, limits)
        except ReaderError as err:
            if explicit:
                raise
            yield [], [], not_read(name, _message(err, name))  # a file found in a folder: report it, read the others
        return
    any_member = False
    unpacked = members(raw, name, kind, limits)
    while True:
        try:
            member = next(unpacked, None)
        except ValueError as err:  # the archive itself is damaged (after the members given)
            if explicit and not any_member:
                raise ReaderError(f"{err}; download or pack it again", name) from err
            yield [], [], not_read(name, f"{err}; download or pack it again")
            return
        if member is None:
            break
        any_member = True
        if member.error is not None:
            yield [], [], not_read(member.name, member.error)
            continue
        try:
            yield _with_keys(member.data, member.name, None, with_references, limits)
        except ReaderError as err:
            yield [], [], not_read(member.name, _message(err, member.name))
    if not any_member:
        yield [], [], not_read(name, "the archive holds no files")


def _with_keys(raw: bytes, name: str, format: str | None, with_references: bool, limits: Limits):
    """:func:`read_bytes_report` of ``raw`` with its papers' deduplication keys: (papers, keys, report)."""
    keys: list = []
    papers, report = read_bytes_report(raw, name, format, with_references=with_references, limits=limits, keys=keys)
    return papers, keys, report


# Reading makes no reference cycles: the cycle collector's passes over 50,000 new papers cost a
# third of deduplicating them (and more of splitting the rows), so it is paused meanwhile.
@collector_paused()
def read_sources(
    sources: Iterable[str | Path] | str | Path,
    format: str | None = None,
    *,
    duplicates: DuplicateRules = DuplicateRules(),
    with_references: bool = False,
    exclude: Iterable[str | Path] = (),
    cache: str | Path | RecordCache | None = None,
    follow_links: bool = False,
) -> tuple[list[Paper], ReadReport]:
    """Read every file under ``sources`` and merge duplicates across all of them.

    Returns the papers (in reading order of their first appearance; each with ``sources``
    listing every place it was found) and a :class:`ReadReport`. A file named explicitly must be
    readable (else :class:`ReaderError`); a file found inside a folder or an archive that cannot
    be read (an unknown type, an empty file, no permission) is listed in the report as not read,
    and the others are read. When no file yields a record, :class:`NoRecordsError` (its
    ``report`` says why, file by file). ``duplicates``: which records are merged (see
    :class:`~workbench.dedupe.DuplicateRules`). Folders in ``exclude`` (the review a build writes)
    and folders that look like a review are not read; the report says so
    (``ReadReport.skipped_folders``).

    ``cache`` (a folder, or a :class:`~workbench.readers.cache.RecordCache`): files whose bytes
    were read before with the same options are not read again, nor deduplicated again when no
    file changed (``ReadReport.reused`` names them); the folder keeps only this read's entries.

    Links in a source folder that lead outside every source folder are not followed (a line of
    the report each) unless ``follow_links``; files, archive members and values are read within
    the limits of :mod:`~workbench.readers.bounds` (``WORKBENCH_MAX_*``)."""
    limits = Limits.from_env()
    cache = RecordCache(cache) if cache is not None and not isinstance(cache, RecordCache) else cache
    report, papers, paper_keys, origin, keys = ReadReport(), [], [], [], []
    for path, explicit, problem in expand(sources, exclude, report.skipped_folders, follow_links=follow_links):
        if problem is not None:
            report.files.append(problem)
            continue
        for file_papers, file_keys, fr in _read_cached(path, explicit, format, with_references, cache, keys, report,
                                                       limits):
            origin.extend([len(report.files)] * len(file_papers))
            papers.extend(file_papers)
            paper_keys.extend(file_keys)
            report.files.append(fr)
    if not papers:
        raise NoRecordsError(report)
    kept = _deduplicated(papers, paper_keys, origin, report, duplicates, cache, keys)
    if cache is not None:
        cache.keep()
    _trim(len(papers))
    return kept, report


def _deduplicated(papers: list[Paper], paper_keys: list, origin: list[int], report: ReadReport,
                  rules: DuplicateRules, cache: RecordCache | None, keys: list[str]) -> list[Paper]:
    """The papers with duplicates merged (what was found kept in ``cache``, or taken from it
    when the files, ``keys``, are those of a read before; ``paper_keys``: the papers'
    deduplication keys, made as they were); each merge counted against the file of the record
    merged away (``origin``: each paper's row in ``report.files``)."""
    from ..dedupe import DEFAULT_THRESHOLD, deduplicate, find_duplicates

    threshold, dedupe, apart = rules.threshold or DEFAULT_THRESHOLD, rules.fuzzy, rules.apart
    keys += sorted("|".join(sorted(pair)) for pair in apart)
    key = report.cache_key = cache.duplicates_key(keys, threshold, dedupe) if cache is not None else None
    found = cache.get_duplicates(key) if cache is not None else None
    report.deduplication_reused = found is not None
    if found is None:
        found = find_duplicates(papers, threshold, dedupe, frozenset(apart), keys=paper_keys)
        if cache is not None:
            cache.put_duplicates(key, found)
    kept, found = deduplicate(papers, threshold=threshold, fuzzy=dedupe, found=found)
    for merge in found.merges:
        report.files[origin[merge.merged]].merged += 1
        report.merges.append(merge.describe(papers))
    report.merges.extend(found.notes)
    report.kept = len(kept)
    return kept


def source_files(sources, exclude: Iterable[str | Path] = (), *, follow_links: bool = False) -> tuple[list, list[str]]:
    """What :func:`read_sources` reads, in its order: each file as ``(path, named explicitly?)``,
    each found that cannot be read as its :class:`FileReport`; and the folders it leaves out."""
    skipped: list[str] = []
    found = [(str(p), named) if why is None else why
             for p, named, why in expand(sources, exclude, skipped, follow_links=follow_links)]
    return found, skipped


def read_found(path: str, explicit: bool, format: str | None = None) -> tuple[list[Paper], ReadReport]:
    """:func:`read_sources` of one file of :func:`source_files`; one found in a folder that cannot
    be read is a line of the report (:class:`NoRecordsError`), as when its folder is read whole."""
    try:
        return read_sources([path], format=format)
    except ReaderError as err:
        if explicit or isinstance(err, NoRecordsError):  # (the report has the file's own line)
            raise
        raise NoRecordsError(ReadReport(files=[not_read(path, _message(err, path))])) from err


def _trim(n_read: int) -> None:
    """Freed memory back to the operating system after reading many records (:data:`_TRIM_AFTER`)."""
    if n_read >= _TRIM_AFTER:
        release_free_memory()

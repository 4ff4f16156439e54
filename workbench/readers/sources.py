"""Files, folders and archives in, papers and a report out: decode, choose a reader, read, deduplicate.

Nothing is passed over without a word: a folder that cannot be opened, a broken link, a hidden
file, a file of an unknown type and an archive member that cannot be read are each a line of
the report; a file that yields no record gets a warning; and when no file yields any record,
:func:`read_sources` raises :class:`~workbench.errors.NoRecordsError` carrying the report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from .._memory import release_free_memory
from ..errors import NoRecordsError, ReaderError
from ..records import Paper
from .archives import archive_kind, members
from .cache import RecordCache
from . import csv_ranges
from .csv_ranges import utf8_head
from .decode import decode
from .fields import ReadContext
from .folders import REVIEW_MARKERS, expand, not_read
from .pool import collector_paused, workers
from .registry import READERS, Reader, choose_reader, supported_formats
from .report import FileReport, ReadReport
from .tables import read_csv, read_csv_bytes

__all__ = ["REVIEW_MARKERS", "read_bytes_report", "read_file", "read_file_report", "read_found", "read_sources",
           "source_files"]

_HEAD = 65536
#: After reading this many records, freed memory is given back to the operating system: the
#: file's text, its rows and the workers' results are garbage by then, but glibc keeps their
#: pages, and every later stage's peak would land on top of them (~100 MB at 50,000 papers).
_TRIM_AFTER = 4000
# Control characters no text export holds (C0 but tab, line ends and form feed; C1): garbage
_CONTROL = re.compile("[\x01-\x08\x0b\x0e-\x1f\x7f-\x9f]")
#: A file of nothing but white space, NULs and byte order marks (bytes.strip would copy it whole).
_BLANK = re.compile(rb"[ \t\r\n\x00\xef\xbb\xbf\xff\xfe]*")


def _unknown(path: Path) -> str:
    if path.suffix.lower() == ".xls":
        return f"{path.name!r} is an old Excel .xls workbook; save it as .xlsx or CSV and read that"
    names = ", ".join(READERS)
    return (f"no reader for {path.name!r}; supported: {supported_formats()} "
            f"(or name the format: {names}), and .zip, .gz or .tar.gz archives of them")


def read_bytes_report(
    raw: bytes,
    name: str,
    format: str | None = None,
    *,
    with_references: bool = False,
) -> tuple[list[Paper], FileReport]:
    """Read the bytes of one file called ``name`` (which gives its suffix and is the name in every
    message): its papers, in file order and not deduplicated, and what happened."""
    path = Path(name.rsplit("!", 1)[-1])
    if _BLANK.fullmatch(raw):
        raise ReaderError("the file is empty; expected records as one of " + supported_formats(), name)
    if format is None and (kind := archive_kind(raw)):
        raise ReaderError(f"a {kind} archive; read it with read_sources or `workbench read`, which open its "
                          "members", name)
    head_bytes = raw[:_HEAD]
    text, encoding, warning = None, "binary", None
    looks_binary = head_bytes[:4] == b"PK\x03\x04"
    if not looks_binary and len(raw) >= csv_ranges.MIN_CHARS and workers() > 1:
        read = _large_table(raw, name, path, format, with_references)
        if read is not None:
            return read
    if not looks_binary:
        text, encoding, warning = decode(raw)
    reader = choose_reader(path, head_bytes, (text or "")[:_HEAD], format)
    if reader is None:
        raise ReaderError(_unknown(path), name)
    sample = (text or "")[:_HEAD]
    # Many control characters: a PDF or an image renamed, unless the file is UTF-8 without a NUL (a
    # text export whose values hold them, such as the workbench's own export of such a value).
    if (not reader.binary and len(_CONTROL.findall(sample)) > 0.05 * len(sample)
            and not (encoding == "utf-8" and b"\x00" not in head_bytes)):
        raise ReaderError("this is binary data, not a text export (a PDF, an image or another file renamed?); "
                          "export the records again as " + supported_formats(), name)
    if not reader.binary and text is None:
        raise ReaderError(f"this is a zip file (an .xlsx or .docx?), not {reader.name} text; "
                          "unzip it, or save the sheet as .xlsx or CSV", name)
    if reader.binary and text is not None and format is None and not reader.sniff(head_bytes):
        raise ReaderError(f"not a valid {reader.name} file (wrong signature); open and save it again, "
                          "or export CSV", name)
    recognised = _recognised(reader, format, head_bytes if reader.binary else (text or "")[:_HEAD])
    ctx = _context(name, path, reader, encoding, with_references)
    if warning:
        ctx.warn(warning)
    data = raw if reader.binary else text
    del raw  # a large export need not be held twice
    return _finished(ctx, reader, _run(reader, data, ctx), recognised)


def _large_table(raw: bytes, name: str, path: Path, format: str | None,
                 with_references: bool) -> tuple[list[Paper], FileReport] | None:
    """:func:`read_bytes_report` of a large table in UTF-8, never decoded whole (each range of
    its lines is decoded where it is split: :func:`~.tables.read_csv_bytes`); None where the
    file is read as any other is (another format, not UTF-8, ...), which then says why."""
    head = utf8_head(raw, _HEAD)
    if head is None:
        return None
    text = head[1]
    reader = choose_reader(path, raw[:_HEAD], text, format)
    if reader is None or reader.read is not read_csv or len(_CONTROL.findall(text)) > 0.05 * len(text):
        return None
    ctx = _context(name, path, reader, "utf-8", with_references)
    try:
        papers = read_csv_bytes(raw, head, ctx)
    except ReaderError:
        raise
    except Exception:  # (read again as any file is, which says what is wrong with it)
        return None
    if papers is None:
        return None
    return _finished(ctx, reader, papers, _recognised(reader, format, text))


def _recognised(reader: Reader, format: str | None, head: bytes | str) -> bool:
    """Whether the file was named as ``reader``'s format or looks like it (its ``head``)."""
    return format is not None or reader.sniff is None or bool(reader.sniff(head))


def _context(name: str, path: Path, reader: Reader, encoding: str, with_references: bool) -> ReadContext:
    """Where the records of the file ``name`` go, with what happens to them."""
    report = FileReport(path=name, format=reader.name, encoding=encoding)
    return ReadContext(name=name, collection=path.stem, report=report, with_references=with_references,
                       suffix=path.suffix.lower())


def _finished(ctx: ReadContext, reader: Reader, papers: list[Paper],
              recognised: bool) -> tuple[list[Paper], FileReport]:
    """The papers of a file read and its report: why it has none, where it has none; every
    message in file order."""
    if not papers:
        _say_why_nothing(ctx, reader, recognised)
    ctx.finish()
    ctx.report.read = len(papers)
    return papers, ctx.report


def _say_why_nothing(ctx: ReadContext, reader: Reader, recognised: bool) -> None:
    """The warning of a file that yielded no record."""
    if ctx.n_skipped:
        ctx.warn(f"no records read: all {ctx.n_skipped} were skipped (see the skipped lines)")
    elif ctx.explained_empty:
        return
    elif not recognised:
        ctx.warn(f"no records found: this does not look like {reader.description or reader.name} (chosen for its "
                 f"'{ctx.suffix}' name); check it is the export you meant, or name its format")
    else:
        ctx.warn(f"no records found; expected {reader.description or reader.name}")


def read_file_report(path: str | Path, format: str | None = None, display_name: str | None = None, *,
                     with_references: bool = False) -> tuple[list[Paper], FileReport]:
    """Read one file: its papers (in file order, not deduplicated) and what happened."""
    path = Path(path)
    name = display_name or str(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ReaderError(f"cannot read the file ({err.strerror}); check the path and permissions", name) from err
    return read_bytes_report(raw, name, format, with_references=with_references)


def _run(reader: Reader, data, ctx: ReadContext) -> list[Paper]:
    try:
        return reader.read(data, ctx)
    except ReaderError:
        raise
    except Exception as err:  # a library choked on input we did not foresee: still one clear line
        raise ReaderError(
            f"could not be read as {reader.name} ({type(err).__name__}: {err}); expected a complete "
            f"{reader.description or reader.name} export: export it again or name another format",
            ctx.name,
        ) from err


def read_file(path: str | Path, format: str | None = None, display_name: str | None = None,
              *, with_references: bool = False) -> list[Paper]:
    """Read one file with the reader its content or suffix calls for (no deduplication)."""
    return read_file_report(path, format, display_name, with_references=with_references)[0]


def _message(err: ReaderError, name: str) -> str:
    return str(err).removeprefix(f"{name}: ").removeprefix(f"{name}:{err.line}: ")


def _read_cached(path: Path, explicit: bool, format: str | None, with_references: bool,
                 cache: RecordCache | None, keys: list[str], report: ReadReport):
    """:func:`_read_one`, or what it gave before for the same bytes (``cache``); the file's
    cache key goes into ``keys``, and its name into ``report.reused`` when it was not read."""
    try:
        raw = path.read_bytes() if cache is not None else None
    except OSError:
        raw = None  # _read_one says why
    if raw is None:
        yield from _read_one(path, explicit, format, with_references)
        return
    key = cache.file_key(raw, str(path), format, with_references)
    keys.append(key)
    results = cache.get(key)
    if results is not None:
        report.reused.append(str(path))
    else:
        results = list(_read_one(path, explicit, format, with_references, raw))
        cache.put(key, results)
    yield from results


def _read_one(path: Path, explicit: bool, format: str | None,
              with_references: bool, raw: bytes | None = None) -> Iterator[tuple[list[Paper], FileReport]]:
    """The papers and report of a file (``raw``: its bytes, when read already), or of each
    member of an archive."""
    name = str(path)
    try:
        raw = path.read_bytes() if raw is None else raw
    except OSError as err:
        if explicit:
            raise ReaderError(f"cannot read the file ({err.strerror}); check the path and permissions", name) from err
        yield [], not_read(name, f"cannot read the file ({err.strerror}); check its permissions")
        return
    kind = archive_kind(raw) if format is None else None
    if kind is None:
        try:
            yield read_bytes_report(raw, name, format, with_references=with_references)
        except ReaderError as err:
            if explicit:
                raise
            yield [], not_read(name, _message(err, name))  # a file found in a folder: report it, read the others
        return
    any_member = False
    try:
        for member in members(raw, name, kind):
            any_member = True
            if member.error is not None:
                yield [], not_read(member.name, member.error)
                continue
            try:
                yield read_bytes_report(member.data, member.name, with_references=with_references)
            except ReaderError as err:
                yield [], not_read(member.name, _message(err, member.name))
    except ValueError as err:
        if explicit and not any_member:
            raise ReaderError(f"{err}; download or pack it again", name) from err
        yield [], not_read(name, f"{err}; download or pack it again")
        return
    if not any_member:
        yield [], not_read(name, "the archive holds no files")


# Reading makes no reference cycles: the cycle collector's passes over 50,000 new papers cost a
# third of deduplicating them (and more of splitting the rows), so it is paused meanwhile.
@collector_paused()
def read_sources(
    sources: Iterable[str | Path] | str | Path,
    format: str | None = None,
    *,
    dedupe: bool = True,
    with_references: bool = False,
    threshold: float | None = None,
    exclude: Iterable[str | Path] = (),
    cache: str | Path | RecordCache | None = None,
    apart: frozenset = frozenset(),
) -> tuple[list[Paper], ReadReport]:
    """Read every file under ``sources`` and merge duplicates across all of them.

    Returns the papers (in reading order of their first appearance; each with ``sources``
    listing every place it was found) and a :class:`ReadReport`. A file named explicitly must be
    readable (else :class:`ReaderError`); a file found inside a folder or an archive that cannot
    be read (an unknown type, an empty file, no permission) is listed in the report as not read,
    and the others are read. When no file yields a record, :class:`NoRecordsError` (its
    ``report`` says why, file by file). ``dedupe=False`` merges only records that share an
    identifier, or their title and abstract. Folders in ``exclude`` (the review a build writes)
    and folders that look like a review are not read; the report says so
    (``ReadReport.skipped_folders``).

    ``cache`` (a folder, or a :class:`~workbench.readers.cache.RecordCache`): files whose bytes
    were read before with the same options are not read again, nor deduplicated again when no
    file changed (``ReadReport.reused`` names them); the folder keeps only this read's entries;
    ``apart``: pairs (frozensets) of paper ids a person said are different, never merged."""
    from ..dedupe import DEFAULT_THRESHOLD, deduplicate, find_duplicates

    cache = RecordCache(cache) if cache is not None and not isinstance(cache, RecordCache) else cache
    report, papers, origin, keys = ReadReport(), [], [], []
    for path, explicit, problem in expand(sources, exclude, report.skipped_folders):
        if problem is not None:
            report.files.append(problem)
            continue
        for file_papers, fr in _read_cached(path, explicit, format, with_references, cache, keys, report):
            origin.extend([len(report.files)] * len(file_papers))
            papers.extend(file_papers)
            report.files.append(fr)
    if not papers:
        raise NoRecordsError(report)
    threshold = threshold or DEFAULT_THRESHOLD
    keys += sorted("|".join(sorted(pair)) for pair in apart)
    key = report.cache_key = cache.duplicates_key(keys, threshold, dedupe) if cache is not None else None
    found = cache.get_duplicates(key) if cache is not None else None
    report.deduplication_reused = found is not None
    if found is None:
        found = find_duplicates(papers, threshold, dedupe, frozenset(apart))
        if cache is not None:
            cache.put_duplicates(key, found)
    kept, found = deduplicate(papers, threshold=threshold, fuzzy=dedupe, found=found)
    for merge in found.merges:
        report.files[origin[merge.merged]].merged += 1
        report.merges.append(merge.describe(papers))
    report.merges.extend(found.notes)
    report.kept = len(kept)
    if cache is not None:
        cache.keep()
    _trim(len(papers))
    return kept, report


def source_files(sources, exclude: Iterable[str | Path] = ()) -> tuple[list, list[str]]:
    """What :func:`read_sources` reads, in its order: each file as ``(path, named explicitly?)``,
    each found that cannot be read as its :class:`FileReport`; and the folders it leaves out."""
    skipped: list[str] = []
    found = [(str(p), named) if why is None else why for p, named, why in expand(sources, exclude, skipped)]
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

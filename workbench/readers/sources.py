"""Files and folders in, papers and a report out: decode, choose a reader, read, deduplicate."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import ReaderError
from ..records import Paper
from .decode import decode
from .fields import ReadContext
from .registry import READERS, Reader, choose_reader, supported_formats
from .report import FileReport, ReadReport

__all__ = ["REVIEW_MARKERS", "read_file", "read_file_report", "read_sources"]

_HEAD = 65536


#: Files that make a folder a workbench review (its annotation store, its build manifest): such a
#: folder holds the review's own papers and exports, never sources, so reading skips it.
REVIEW_MARKERS = ("annotations.sqlite", "build.json")


def _same_folder(folder: Path, others: list[os.stat_result]) -> bool:
    try:
        here = folder.stat()
    except OSError:
        return False
    return any(os.path.samestat(here, other) for other in others)


def _skip_reason(folder: Path, excluded: list[os.stat_result]) -> str | None:
    if _same_folder(folder, excluded):
        return "it is the review being built (its papers.jsonl and exports are not sources)"
    marker = next((m for m in REVIEW_MARKERS if (folder / m).is_file()), None)
    if marker:
        return (f"it looks like a review folder (it has {marker}); name its files to read "
                "them anyway")
    return None


def _walk(root: Path, excluded: list[os.stat_result], skipped: list[str]) -> list[Path]:
    """The files under ``root``, sorted, without hidden ones and without review folders."""
    found = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        keep = []
        for d in sorted(dirs):
            if d.startswith("."):
                continue
            why = _skip_reason(here / d, excluded)
            if why:
                skipped.append(f"{here / d}{os.sep}: not read: {why}")
            else:
                keep.append(d)
        dirs[:] = keep
        found.extend(here / f for f in files if not f.startswith(".") and (here / f).is_file())
    return sorted(found)


def _expand(sources: Iterable[str | Path], exclude: Iterable[str | Path] = (),
            skipped: list[str] | None = None) -> list[tuple[Path, bool]]:
    """(file, named explicitly?) for each source; folders give their files, sorted.

    Folders inside a source that are in ``exclude`` or look like a review (see
    :data:`REVIEW_MARKERS`) are left out, with a line in ``skipped``; a source folder that is
    one is an error (it was named, so say why it is not read).
    """
    if isinstance(sources, (str, Path)):
        sources = [sources]
    skipped = [] if skipped is None else skipped
    excluded = []
    for folder in exclude:
        try:
            excluded.append(Path(folder).stat())
        except OSError:
            continue  # a review that does not exist yet holds nothing to skip
    paths: list[tuple[Path, bool]] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            why = _skip_reason(p, excluded)
            if why:
                raise ReaderError(f"not read: {why}; give the folder or files of your exports", p)
            before = len(skipped)
            found = _walk(p, excluded, skipped)
            if not found:
                besides = f" besides review folders, which are not read ({'; '.join(skipped[before:])})" if len(skipped) > before else ""
                raise ReaderError(f"the folder has no files{besides}; expected exports such as "
                                  + supported_formats(), p)
            paths.extend((f, False) for f in found)
        elif p.is_file():
            paths.append((p, True))
        else:
            raise ReaderError("no such file or folder; give an existing file or folder of exports", p)
    return paths


def _unknown(path: Path) -> str:
    if path.suffix.lower() == ".xls":
        return f"{path.name!r} is an old Excel .xls workbook; save it as .xlsx or CSV and read that"
    names = ", ".join(READERS)
    return (f"no reader for {path.name!r}; supported: {supported_formats()} "
            f"(or name the format: {names})")


def read_file_report(
    path: str | Path,
    format: str | None = None,
    display_name: str | None = None,
    *,
    with_references: bool = False,
) -> tuple[list[Paper], FileReport]:
    """Read one file: its papers (in file order, not deduplicated) and what happened."""
    path = Path(path)
    name = display_name or str(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ReaderError(f"cannot read the file ({err.strerror}); check the path and permissions", name) from err
    if not raw.strip(b" \t\r\n\x00\xef\xbb\xbf\xff\xfe"):
        raise ReaderError("the file is empty; expected records as one of " + supported_formats(), name)
    head_bytes = raw[:_HEAD]
    text, encoding, warning = None, "binary", None
    looks_binary = head_bytes[:4] == b"PK\x03\x04"
    if not looks_binary:
        text, encoding, warning = decode(raw)
    reader = choose_reader(path, head_bytes, (text or "")[:_HEAD], format)
    if reader is None:
        raise ReaderError(_unknown(path), name)
    if not reader.binary and text is None:
        raise ReaderError(f"this is a zip archive (an .xlsx or .docx?), not {reader.name} text; "
                          "unzip it, or save the sheet as .xlsx or CSV", name)
    if reader.binary and text is not None and format is None and not reader.sniff(head_bytes):
        raise ReaderError(f"not a valid {reader.name} file (wrong signature); open and save it again, "
                          "or export CSV", name)
    report = FileReport(path=name, format=reader.name, encoding=encoding)
    ctx = ReadContext(name=name, collection=path.stem, report=report,
                      with_references=with_references, suffix=path.suffix.lower())
    if warning:
        ctx.warn(warning)
    data = raw if reader.binary else text
    del raw  # a large export need not be held twice
    papers = _run(reader, data, ctx)
    if not papers and not ctx.n_skipped and not ctx.n_warnings:
        ctx.warn(f"no records found; expected {reader.description or reader.name}")
    ctx.finish()
    report.read = len(papers)
    return papers, report


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


def read_sources(
    sources: Iterable[str | Path] | str | Path,
    format: str | None = None,
    *,
    dedupe: bool = True,
    with_references: bool = False,
    threshold: float | None = None,
    exclude: Iterable[str | Path] = (),
) -> tuple[list[Paper], ReadReport]:
    """Read every file under ``sources`` and merge duplicates across all of them.

    Returns the papers (in reading order of their first appearance; each with ``sources``
    listing every place it was found) and a :class:`ReadReport`. A file named explicitly must be
    readable (else :class:`ReaderError`); a file found inside a folder that cannot be read (an
    unknown type, an empty file) is listed in the report as not read, and the others are read.
    ``dedupe=False`` merges only records that share an identifier, or their title and abstract.
    Folders in ``exclude`` (the review a build writes) and folders that look like a review are
    not read; the report says so (``ReadReport.skipped_folders``).
    """
    from ..dedupe import DEFAULT_THRESHOLD, deduplicate

    report = ReadReport()
    papers: list[Paper] = []
    origin: list[int] = []
    for path, explicit in _expand(sources, exclude, report.skipped_folders):
        try:
            file_papers, fr = read_file_report(path, format, with_references=with_references)
        except ReaderError as err:
            if explicit:
                raise
            # A file found in a folder: report it and read the others.
            message = str(err).removeprefix(f"{path}: ").removeprefix(f"{path}:{err.line}: ")
            fr = FileReport(path=str(path), format="-", error=message)
            file_papers = []
        origin.extend([len(report.files)] * len(file_papers))
        papers.extend(file_papers)
        report.files.append(fr)
    kept, found = deduplicate(papers, threshold=threshold or DEFAULT_THRESHOLD, fuzzy=dedupe)
    for merge in found.merges:
        report.files[origin[merge.merged]].merged += 1
        report.merges.append(merge.describe(papers))
    report.merges.extend(found.notes)
    report.kept = len(kept)
    return kept, report

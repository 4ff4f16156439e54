"""One file's bytes in, its papers and report out: decode, choose the reader, read.

:func:`read_bytes_report` reads the bytes of one file (on disk, or a member of an archive);
:mod:`.sources` finds the files and puts their reports together.

Nothing of a file that is not a bibliography is repeated: a file neither named as a format nor
recognised by its reader (``shadow.csv`` holding ``root:*:...``) that yields no record is
reported by its name and what it looks like (:func:`~.kinds.describe`), and every message the
reader gave about it, which may quote it, is dropped; so no piece of it reaches the terminal,
``build.json`` or the record cache. A table counts as recognised when its first line is a row
of column names (:func:`~.tables.looks_like_header`): a message may then name its columns.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..dedupe.keys import PaperKeys
from ..errors import ReaderError
from ..corpus.paper import Paper
from .archives import archive_kind
from .bounds import Limits, megabytes
from . import csv_ranges
from .csv_ranges import utf8_head
from .decode import decode
from .fields import ReadContext
from .kinds import describe, describe_binary
from .pool import workers
from .registry import READERS, Reader, choose_reader, supported_formats
from .report import FileReport
from .tables import looks_like_header, read_csv, read_csv_bytes

__all__ = ["BLANK", "HEAD", "read_bytes_report", "unknown_type"]

#: The first bytes of a file that say what it is (its reader's sniff, its kind).
HEAD = 65536
# Control characters no text export holds (C0 but tab, line ends and form feed; C1): garbage
_CONTROL = re.compile("[\x01-\x08\x0b\x0e-\x1f\x7f-\x9f]")
#: A file of nothing but white space, NULs and byte order marks (bytes.strip would copy it whole).
BLANK = re.compile(rb"[ \t\r\n\x00\xef\xbb\xbf\xff\xfe]*")
#: Library messages quoted in a report are cut to this many characters.
_MAX_QUOTED = 200


def _empty(raw: bytes) -> str:
    """Why a blank file (:data:`BLANK`) holds no records, truthfully: empty, or only NULs."""
    expected = "expected records as one of " + supported_formats()
    if b"\x00" in raw:
        return (f"the file holds nothing but NUL bytes ({megabytes(len(raw))}): it was never written, or it is "
                f"damaged; {expected}")
    return f"the file is empty; {expected}"


def unknown_type(path: Path) -> str:
    """Why a file no reader claims by its name or content is not read."""
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
    limits: Limits | None = None,
    keys: list[PaperKeys] | None = None,
) -> tuple[list[Paper], FileReport]:
    """Read the bytes of one file called ``name`` (which gives its suffix and is the name in every
    message): its papers, in file order and not deduplicated, and what happened. ``limits``:
    how long a value may be (default :meth:`~.bounds.Limits.from_env`). ``keys``: a list the
    papers' deduplication keys are added to, in their order (made as the papers are)."""
    limits = limits or Limits.from_env()
    path = Path(name.rsplit("!", 1)[-1])
    if BLANK.fullmatch(raw):
        raise ReaderError(_empty(raw), name)
    if format is None and (kind := archive_kind(raw)):
        raise ReaderError(f"a {kind} archive; read it with read_sources or `workbench read`, which open its "
                          "members", name)
    head_bytes = raw[:HEAD]
    text, encoding, warning = None, "binary", None
    looks_binary = head_bytes[:4] == b"PK\x03\x04"
    if not looks_binary and len(raw) >= csv_ranges.MIN_CHARS and workers() > 1:
        read = _large_table(raw, name, path, format, with_references, limits, keys)
        if read is not None:
            return read
    if not looks_binary:
        text, encoding, warning = decode(raw)
    reader = choose_reader(path, head_bytes, (text or "")[:HEAD], format)
    if reader is None:
        raise ReaderError(unknown_type(path), name)
    sample = (text or "")[:HEAD]
    # Many control characters: a PDF or an image renamed, unless the file is UTF-8 without a NUL (a
    # text export whose values hold them, such as the workbench's own export of such a value).
    if (not reader.binary and len(_CONTROL.findall(sample)) > 0.05 * len(sample)
            and not (encoding == "utf-8" and b"\x00" not in head_bytes)):
        kind = describe_binary(head_bytes)
        guess = " (a PDF, an image or another file renamed?)" if kind == "binary data" else ""
        raise ReaderError(f"this is {kind}, not a text export{guess}; export the records again as "
                          + supported_formats(), name)
    if not reader.binary and text is None:
        raise ReaderError(f"this is a zip file (an .xlsx or .docx?), not {reader.name} text; "
                          "unzip it, or save the sheet as .xlsx or CSV", name)
    if reader.binary and text is not None and format is None and not reader.sniff(head_bytes):
        raise ReaderError(f"not a valid {reader.name} file (wrong signature); open and save it again, "
                          "or export CSV", name)
    recognised = _recognised(reader, format, head_bytes if reader.binary else sample)
    ctx = _context(name, path, reader, encoding, with_references, limits)
    if warning:
        ctx.warn(warning)
    data = raw if reader.binary else text
    del raw  # a large export need not be held twice
    if recognised:
        return _finished(ctx, reader, _run(reader, data, ctx), recognised, keys)
    return _guarded(ctx, reader, data, describe(head_bytes, sample if text is not None else None), keys)


def _guarded(ctx: ReadContext, reader: Reader, data, kind: str, keys: list | None) -> tuple[list[Paper], FileReport]:
    """A file neither named as ``reader``'s format nor looking like it, read: its papers where it
    has any (a bibliography after all); else one warning saying what it looks like (``kind``)
    and nothing the reader said, which may quote it (see the module docstring)."""
    try:
        papers = _run(reader, data, ctx)
    except ReaderError:
        papers = []
    if papers:
        return _finished(ctx, reader, papers, False, keys)
    bare = ctx.fresh()
    if ctx.explanations:  # (the reader's word on a file meant as its format: it quotes nothing of it)
        for message, line in ctx.explanations:
            bare.no_records(message, line)
        return _finished(bare, reader, [], False)
    bare.no_records(f"no records found: this does not look like {reader.description or reader.name} (chosen for "
                    f"its '{ctx.suffix}' name) but like {kind}; check it is the export you meant, or name its format")
    return _finished(bare, reader, [], False)


def _large_table(raw: bytes, name: str, path: Path, format: str | None, with_references: bool,
                 limits: Limits, keys: list | None) -> tuple[list[Paper], FileReport] | None:
    """:func:`read_bytes_report` of a large table in UTF-8, never decoded whole (each range of
    its lines is decoded where it is split: :func:`~.tables.read_csv_bytes`); None where the
    file is read as any other is (another format, not UTF-8, ...), which then says why."""
    head = utf8_head(raw, HEAD)
    if head is None:
        return None
    text = head[1]
    reader = choose_reader(path, raw[:HEAD], text, format)
    if reader is None or reader.read is not read_csv or len(_CONTROL.findall(text)) > 0.05 * len(text):
        return None
    if not _recognised(reader, format, text):  # (read as any file is: its messages are guarded)
        return None
    ctx = _context(name, path, reader, "utf-8", with_references, limits)
    try:
        papers = read_csv_bytes(raw, head, ctx)
    except ReaderError:
        raise
    except Exception:  # (read again as any file is, which says what is wrong with it)
        return None
    if papers is None:
        return None
    return _finished(ctx, reader, papers, True, keys)


def _recognised(reader: Reader, format: str | None, head: bytes | str) -> bool:
    """Whether the file was named as ``reader``'s format or looks like it (its ``head``): a
    table counts when its first line is a row of column names, even without a title column."""
    if format is not None or reader.sniff is None or reader.sniff(head):
        return True
    return reader.read is read_csv and looks_like_header(head)


def _context(name: str, path: Path, reader: Reader, encoding: str, with_references: bool,
             limits: Limits) -> ReadContext:
    """Where the records of the file ``name`` go, with what happens to them."""
    report = FileReport(path=name, format=reader.name, encoding=encoding)
    return ReadContext(name=name, collection=path.stem, report=report, with_references=with_references,
                       suffix=path.suffix.lower(), max_chars=limits.field_chars)


def _finished(ctx: ReadContext, reader: Reader, papers: list[Paper], recognised: bool,
              keys: list | None = None) -> tuple[list[Paper], FileReport]:
    """The papers of a file read and its report: why it has none, where it has none; every
    message in file order. Their deduplication keys go into ``keys``."""
    if keys is not None:
        keys.extend(ctx.keys_of(papers))
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


def _run(reader: Reader, data, ctx: ReadContext) -> list[Paper]:
    try:
        return reader.read(data, ctx)
    except ReaderError:
        raise
    except Exception as err:  # a library choked on input we did not foresee: still one clear line
        said = str(err) if len(str(err)) <= _MAX_QUOTED else str(err)[:_MAX_QUOTED - 3] + "..."
        raise ReaderError(
            f"could not be read as {reader.name} ({type(err).__name__}: {said}); expected a complete "
            f"{reader.description or reader.name} export: export it again or name another format",
            ctx.name,
        ) from err

"""Spreadsheets: CSV, TSV (any of ``,`` ``;`` tab ``|``) and XLSX.

Columns are matched to fields through the shared aliases (:data:`~.fields.FIELD_ALIASES`), so
Scopus, Web of Science (tab-delimited, two-letter tags), IEEE Xplore, Springer, Embase, Zotero,
arXiv metadata dumps and ASReview-style ``title, abstract, label_included`` files all read
without configuration. A few exports need more than a name: they are recognised by a
signature of columns in :data:`DIALECTS` and get a small fix-up per row.

CSV is split by the standard ``csv`` module, which also gives each row the line it starts on
(quoted values may span lines). Lenient where spreadsheet programs are: a row that ends with
more values than the header has columns, all of them empty (a trailing delimiter on every
line, as some database exports write), reads normally; a row with fewer values is padded; an
Excel ``sep=;`` first line names the delimiter. Loud where they are not: a row with a real extra
value (an unquoted delimiter inside a value) is skipped and reported with its line, and a quote
that never closes is reported with the lines it swallowed.

Spreadsheet formulas: a CSV written for spreadsheets (the workbench's own exports, and anyone
following OWASP's CSV-injection advice) puts a ``'`` before a value that starts with ``=``,
``+``, ``-``, ``@``, a tab or a line end, so it shows as text instead of running. The CSV
reader removes one leading ``'`` from exactly such values: one or more apostrophes followed by
one of those characters (``'=1+1`` reads as ``=1+1``, ``''-x`` as ``'-x``). A value that
starts with an apostrophe and anything else (``'Tis pity``) is read as it is.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import re
from collections.abc import Callable
from contextlib import contextmanager
from functools import partial

from ..errors import ReaderError
from ..corpus.paper import Paper
from .fields import ReadContext, build_paper, normalise_key, record_from_mapping, resolve_columns
from . import csv_ranges
from .archives import zip_unpacked
from .bounds import Limits, megabytes
from .csv_long import LongValue, cut_lines, long_values
from .dialects import DIALECTS
from .csv_ranges import NotRows, decode_range, line_ranges, lines, range_rows, row_spans, skip_extra_values
from .pool import CHUNKS_PER_PROCESS, make_chunks, make_papers, workers
from .values import _is_missing, split_keywords

__all__ = ["DIALECTS", "looks_like_header", "looks_like_table", "looks_like_xlsx", "plausible_header", "read_csv",
           "read_csv_bytes", "read_xlsx"]

_DELIMITERS = (",", "\t", ";", "|")
#: The first lines of a large table (whole lines within this many characters) hold its header.
_HEAD = 65536


def _header_line(text: str) -> str:
    """The first non-blank of the first 50 lines (without copying the rest of ``text``)."""
    start = 0
    for _ in range(50):
        end = text.find("\n", start)
        line = text[start:] if end < 0 else text[start:end]
        if line.strip():
            return line
        if end < 0:
            return ""
        start = end + 1
    return text[start:] if text[start:].strip() else ""  # as split("\n", 50) gives: the rest as the 51st


def _delimiter(text: str, suffix: str) -> str:
    header = _header_line(text)
    if suffix in (".tsv", ".tab") and "\t" in header:
        return "\t"
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])  # ties: the order of _DELIMITERS
    return best if counts[best] else ","


def looks_like_table(head: str) -> bool:
    """A delimited header row naming a title or an abstract column."""
    header = _header_line(head)
    for delim in _DELIMITERS:
        if header.count(delim) >= 1:
            names = [n.strip().strip('"') for n in header.split(delim)]
            if {"title", "abstract"} & set(resolve_columns(names)):
                return True
    return False


#: A column name as exports write them: a letter first, then words, digits and a little punctuation.
_COLUMN_NAME = re.compile(r"[^\W\d_][\w .,:;()\[\]/#&'%+*?\-]{0,79}")


def plausible_header(names: list) -> bool:
    """Whether ``names`` (a first row's values) look like column names: two or more, most of
    them given, each a short name starting with a letter. Only then does a message name them:
    the first line of a file that is no table (``root:*:20228:0:...``) is its content."""
    given = [str(n).strip().strip('"') for n in names]
    given = [n for n in given if n]
    return len(given) >= 2 and 2 * len(given) >= len(names) and all(_COLUMN_NAME.fullmatch(n) for n in given)


def looks_like_header(head: str) -> bool:
    """Whether the first line of ``head`` is a delimited row of column names (:func:`plausible_header`)."""
    header = _header_line(head)
    delim = _delimiter(head, "")
    try:
        names = next(csv.reader([header], delimiter=delim), [])
    except csv.Error:
        return False
    return plausible_header(names)


def looks_like_xlsx(head: bytes) -> bool:
    return head[:4] == b"PK\x03\x04" and b"xl/" in head


def _unique(names: list[str]) -> list[str]:
    """Column names as pandas makes them: blank ones numbered, repeats as ``name.1``, ``name.2``."""
    seen: dict[str, int] = {}
    out = []
    for i, name in enumerate(names):
        name = name.strip() or f"Unnamed: {i}"
        if name in seen:
            seen[name] += 1
            name = f"{name}.{seen[name]}"
        else:
            seen[name] = 0
        out.append(name)
    return out


def _quoting(text: str, delim: str) -> int:
    """Web of Science's tab-delimited export never quotes, and a title may start with a quote
    (``"Why" questions``): read its quotes as text. Other tables quote as CSV does."""
    names = {n.strip() for n in _header_line(text).split(delim)}
    return csv.QUOTE_NONE if delim == "\t" and {"PT", "UT", "TI"} <= names else csv.QUOTE_MINIMAL


def _rows(text: str, delim: str, cuts: list[tuple[int, int]] | None = None):
    """(first line, last line, values) of every non-blank row, the header first (``cuts``: spans
    of ``text`` left out, :func:`~.csv_long.cut_lines`)."""
    given = lines(text) if cuts is None else cut_lines(text, cuts)
    return row_spans(csv.reader(given, delimiter=delim, quoting=_quoting(text, delim)))


def _split(text: str, delim: str, ctx: ReadContext,
           cuts: list[tuple[int, int]] | None = None) -> tuple[int, list[str], list[tuple[int, list[str]]]]:
    """The header's line, the header, and the data rows (first line, values); every problem
    reported on ``ctx``."""
    rows = _rows(text, delim, cuts)
    try:
        header_line, _, header = next(rows)
    except StopIteration as err:
        raise ReaderError("no header row found; expected a first row of column names", ctx.name, 1) from err
    ncols = len(header)
    data: list[tuple[int, list[str]]] = []
    trailing: list[int] = []
    for start, end, values in rows:
        if len(values) > ncols:
            extra = values[ncols:]
            if not any(v.strip() for v in extra):
                trailing.append(start)
                values = values[:ncols]
            else:
                skip_extra_values(ctx, len(values), ncols, delim, start, end)
                continue
        data.append((start, values))
    if data and _quoting(text, delim) != csv.QUOTE_NONE and _open_quote_at_end(text, data[-1][0], delim):
        start = data.pop()[0]
        last = text.count("\n", 0, len(text.rstrip("\n"))) + 1
        ctx.skip(f"a quote that opens in this row never closes, so lines {start}-{last} could not be split into "
                 f"rows; close the quote (or remove it) and read again", start)
    if trailing:
        ctx.warn(f"{len(trailing)} rows end with empty values the header has no column for (a trailing "
                 f"{delim!r}), from line {trailing[0]}; read without them")
    return header_line, header, data


def _open_quote_at_end(text: str, line: int, delim: str) -> bool:
    """Whether the row starting on ``line`` (the last) opens a quote that never closes, so that
    it swallowed the rest of the file into one value: the ``csv`` module, strict, says so."""
    at = 0
    for _ in range(line - 1):
        at = text.find("\n", at) + 1
    try:
        for _ in csv.reader(lines(text[at:]), delimiter=delim, strict=True):
            pass
    except csv.Error as err:
        return "unexpected end of data" in str(err)
    return False


def _columns(ctx: ReadContext, header: list[str], first_line: int) -> tuple[list[str], dict, Callable | None]:
    """The header's column names (made unique), the fields they mean and the dialect's fix-up
    (None for most tables); :class:`ReaderError` where no column holds a title or an abstract."""
    names = _unique([str(c) for c in header])
    columns = resolve_columns(names)
    fix = None
    norm = {normalise_key(c) for c in names}
    for signature, fixup in DIALECTS.values():
        if signature <= norm:
            fix = fixup
    if not {"title", "abstract"} & set(columns):
        if not plausible_header(header):
            raise ReaderError("no title or abstract column: the first row is not a row of column names; expected "
                              "a table whose first row names its columns, one of them 'title' or 'abstract'",
                              ctx.name, first_line)
        raise ReaderError(
            f"no title or abstract column among {', '.join(names[:12])}; "
            "name one 'title' or 'abstract' (other accepted names: 'Document Title', 'Article Title', "
            "'TI', 'AB', 'summary', ...)",
            ctx.name,
            first_line,
        )
    return names, columns, fix


def _plan(names: list[str], columns: dict) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """Each field read, with the places of its columns in a row, in the order of
    :func:`~.fields.resolve_columns` (the first with a value gives the field)."""
    return tuple((field, tuple(names.index(c) for c in cols)) for field, cols in columns.items())


def _records(ctx: ReadContext, header: list[str], rows, first_line: int = 1, unneutralise: bool = False) -> list[Paper]:
    """Papers from a header and (line, values) rows, through the column aliases and dialects;
    ``unneutralise``: values lose the apostrophe put before a would-be formula (CSV)."""
    names, columns, fix = _columns(ctx, header, first_line)
    if fix is None:
        # The rows are the items as they are: each worker makes its records' mappings, of the
        # columns read only (one pass over the values, not one in this process and one there).
        items = rows if isinstance(rows, list) else list(rows)
        return make_papers(ctx, items, partial(_row_paper, _plan(names, columns), unneutralise))
    items = []
    for line, values in rows:
        values = [_unneutralise(v) for v in values] if unneutralise else values
        row = {name: values[i] if i < len(values) else "" for i, name in enumerate(names)}
        fix(row, columns)
        items.append((row, line))
    # a fix-up may add columns: resolve them per row
    return make_papers(ctx, items, lambda ctx, item: record_from_mapping(ctx, item[0], item[1]))


def _in_ranges(data: str | bytes, head: str, start: int, delim: str, ctx: ReadContext) -> list[Paper] | None:
    """The papers of a large table, each range of its lines split by the process that makes
    its papers (:mod:`.csv_ranges`); None where the whole table must be split at once (a
    dialect's fix-up, no header, or a range that does not end at a row's end). ``data``: the
    table's text, or its bytes in UTF-8 (each range then decoded where it is split); ``head``:
    its first lines, as text, from ``start``."""
    quoting = _quoting(head, delim)
    header_line, header_end, header = next(_rows(head, delim), (0, 0, None))
    if header is None or header_end >= head.count("\n"):
        return None
    names, columns, fix = _columns(ctx, header, header_line)
    if fix is not None:
        return None
    newline = "\n" if isinstance(data, str) else b"\n"
    at = start
    for _ in range(header_end):
        at = data.find(newline, at) + 1
    ranges = line_ranges(data, at, header_end + 1, quoting, workers() * CHUNKS_PER_PROCESS)
    make_row = partial(_row_paper, _plan(names, columns), True)

    def make_range(range_ctx: ReadContext, lines: tuple[int, int, int]) -> list[Paper]:
        begin, end, first_line = lines
        text = data
        if isinstance(data, bytes):
            text = decode_range(data, begin, end)
            begin, end = 0, len(text)
        rows = range_rows(text, begin, end, first_line, delim, quoting, len(header), range_ctx)
        return [p for p in (make_row(range_ctx, row) for row in rows) if p is not None]

    try:
        return make_chunks(ctx, ranges, make_range)
    except NotRows:
        return None


def _row_paper(plan: tuple[tuple[str, tuple[int, ...]], ...], unneutralise: bool, ctx: ReadContext,
               item: tuple[int, list]) -> Paper | None:
    """The paper of one row ``(line, values)``: each field of ``plan`` from the first of its
    columns with a value, as :func:`~.fields.record_from_mapping` takes them from a mapping
    (read straight from the row: no mapping of it is made)."""
    line, row = item
    n = len(row)
    values: dict = {}
    for field, places in plan:
        if field == "keywords":
            values[field] = [k for i in places for k in split_keywords(_cell(row, i, n, unneutralise))]
            continue
        for i in places:
            value = _cell(row, i, n, unneutralise)
            if value.strip() if type(value) is str else not _is_missing(value):
                values[field] = value
                break
    return build_paper(ctx, values, line)


def _cell(row: list, i: int, n: int, unneutralise: bool):
    value = row[i] if i < n else ""
    return _unneutralise(value) if unneutralise and type(value) is str and value[:1] == "'" else value


_NEUTRALISED = re.compile(r"'+[=+\-@\t\r\n]")


def _unneutralise(value: str) -> str:
    """Remove the ``'`` put before a would-be formula (see the module docstring)."""
    return value[1:] if value[:1] == "'" and _NEUTRALISED.match(value) else value


_EXCEL_SEP = re.compile(r"sep=(.)\s*\n")


def read_csv(text: str, ctx: ReadContext) -> list[Paper]:
    m = _EXCEL_SEP.match(text)
    if m:  # Excel's "sep=;" line: names the delimiter, is no header
        delim = m.group(1)
        text = "\n" + text[m.end():]  # a blank line instead: every line keeps its number
    else:
        delim = _delimiter(text, ctx.suffix)
    attempt = ctx.fresh()
    try:
        papers = _read_table(text, delim, attempt)
    except LongValue:  # split again, the long values cut (see .csv_long)
        cuts = long_values(text, delim, _quoting(text, delim), ctx)
        try:
            return _read_table(text, delim, ctx, cuts)
        except LongValue as err:
            raise ReaderError(f"cannot split into rows (a value longer than {ctx.max_chars:,} characters where "
                              "none should be left); export the table again", ctx.name) from err
    ctx.absorb(attempt)
    return papers


def _read_table(text: str, delim: str, ctx: ReadContext, cuts: list[tuple[int, int]] | None = None) -> list[Paper]:
    """:func:`read_csv` of ``text`` split at ``delim``: in ranges where that pays, else whole
    (``cuts``: the spans of long values left out, :func:`~.csv_long.long_values`)."""
    with _splitting(ctx, delim):
        if cuts is None and len(text) >= csv_ranges.MIN_CHARS and workers() > 1:
            papers = _in_ranges(text, text[:text.rfind("\n", 0, _HEAD) + 1], 0, delim, ctx)
            if papers is not None:
                return papers
        header_line, header, rows = _split(text, delim, ctx, cuts)
    return _records(ctx, header, rows, header_line, unneutralise=True)


def read_csv_bytes(raw: bytes, head: tuple[int, str], ctx: ReadContext) -> list[Paper] | None:
    """:func:`read_csv` of a large table in UTF-8, from its bytes (``head``: their
    :func:`~.csv_ranges.utf8_head`): each range of lines is decoded by the process that splits
    it, so no text of the whole file is made (up to four bytes a character) and nothing is
    decoded before the workers start. None where the text must be read whole (:func:`read_csv`
    of it then: not UTF-8, an Excel ``sep=`` line, ...)."""
    start, head = head
    if _EXCEL_SEP.match(head):
        return None
    delim = _delimiter(head, ctx.suffix)
    with _splitting(ctx, delim):
        return _in_ranges(raw, head, start, delim, ctx)


@contextmanager
def _splitting(ctx: ReadContext, delim: str):
    """Values up to ``ctx.max_chars`` long (:class:`~.csv_long.LongValue` where one is longer),
    and the ``csv`` module's other errors said as a reader's."""
    limit = csv.field_size_limit()
    csv.field_size_limit(ctx.max_chars)
    try:
        yield
    except csv.Error as err:  # a too-large value, or a NUL (the decoder removes NULs)
        if "field larger than field limit" in str(err):
            raise LongValue(str(err)) from err
        raise ReaderError(f"cannot split into rows ({err}); expected {delim!r}-separated values: "
                          "export the table again", ctx.name) from err
    finally:
        csv.field_size_limit(limit)


def read_xlsx(raw: bytes, ctx: ReadContext) -> list[Paper]:
    import pandas as pd

    if importlib.util.find_spec("openpyxl") is None:  # pandas' engine for .xlsx
        raise ReaderError("reading .xlsx needs openpyxl: pip install openpyxl (or save the sheet as CSV)", ctx.name)
    limit, unpacked = Limits.from_env().member_bytes, zip_unpacked(raw) or 0  # (a workbook is a zip: a bomb too)
    if unpacked > limit:
        raise ReaderError(f"too large: its sheets unpack to {megabytes(unpacked)}, over {megabytes(limit)} "
                          "(WORKBENCH_MAX_MEMBER_MB); save the sheet as CSV and read that", ctx.name)
    try:
        sheets = pd.read_excel(io.BytesIO(raw), sheet_name=None, dtype=str, na_filter=False)
    except Exception as err:  # openpyxl raises zipfile/KeyError/ValueError on damaged files
        raise ReaderError(f"not a readable .xlsx workbook ({type(err).__name__}: {err}); "
                          "open and save it again in a spreadsheet program, or export CSV", ctx.name) from err
    name, frame = next(iter(sheets.items()))
    if len(sheets) > 1:
        ctx.warn(f"the workbook has {len(sheets)} sheets; read the first, {name!r}")
    rows = zip(range(2, len(frame) + 2), frame.astype(str).itertuples(index=False, name=None))
    return _records(ctx, list(frame.columns), rows)

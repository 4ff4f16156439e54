"""Spreadsheets: CSV, TSV (any of ``,`` ``;`` tab ``|``) and XLSX, parsed with pandas.

Columns are matched to fields through the shared aliases (:data:`~.fields.FIELD_ALIASES`), so
Scopus, Web of Science (tab-delimited, two-letter tags), IEEE Xplore, Springer, Embase, Zotero,
arXiv metadata dumps and ASReview-style ``title, abstract, label_included`` files all read
without configuration. A few exports need more than a name: they are recognised by a
signature of columns in :data:`DIALECTS` and get a small fix-up per row.

Row positions are the line a record starts on (quoted values may span lines), found with a
pass of the standard ``csv`` module; rows with more values than the header has columns are
skipped and reported with their line.

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
import warnings
from collections.abc import Callable

from ..errors import ReaderError
from ..records import Paper
from .fields import ReadContext, normalise_key, record_from_mapping, resolve_columns

__all__ = ["DIALECTS", "looks_like_table", "looks_like_xlsx", "read_csv", "read_xlsx"]

_DELIMITERS = (",", "\t", ";", "|")


def _springer_authors(row: dict, cols: dict) -> None:
    """Springer Link runs author names together: ``"Wei ZhangXiaoming Li"``."""
    for col in cols.get("authors", ()):
        value = row.get(col)
        if value and not re.search(r"[;,|]| and ", value):
            parts = re.split(r"(?<=[a-z\u00e0-\u00ff])(?=[A-Z])", value)
            names: list[str] = []
            for part in parts:
                if names and re.search(r"(?:^|\s)(?:Mc|Mac|De|Di|Du|La|Le|Van|Von|O')$", names[-1]):
                    names[-1] += part
                else:
                    names.append(part)
            row[col] = "; ".join(names)


def _embase_source(row: dict, cols: dict) -> None:
    """Embase's ``Source`` is a citation: ``Endoscopic Ultrasound (2014) 3:3 (152-160). ...``."""
    source = row.get("Source") or ""
    m = re.match(r"\s*(.+?)\s*\((\d{4})\)", source)
    if m:
        row.setdefault("venue", m.group(1))
        row.setdefault("year", m.group(2))


#: Exports recognised by a signature of (normalised) column names, with a per-row fix-up.
DIALECTS: dict[str, tuple[frozenset[str], Callable[[dict, dict], None]]] = {
    "springer": (frozenset({"item title", "item doi"}), _springer_authors),
    "embase": (frozenset({"author names", "source", "emtree medical index terms"}), _embase_source),
}


def _header_line(text: str) -> str:
    for line in text.split("\n", 50):
        if line.strip():
            return line
    return ""


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


def looks_like_xlsx(head: bytes) -> bool:
    return head[:4] == b"PK\x03\x04" and b"xl/" in head


def _lines(text: str):
    """The lines of ``text`` one by one, without copying it all (as ``io.StringIO`` would, at
    four bytes a character)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def _record_lines(text: str, delim: str, ncols: int) -> tuple[list[int], list[tuple[int, int]]] | None:
    """Start lines of the rows pandas keeps, and (line, n values) of the rows it drops."""
    kept, dropped = [], []
    reader = csv.reader(_lines(text), delimiter=delim)
    prev_end, header_seen = 0, False
    try:
        for row in reader:
            start, prev_end = prev_end + 1, reader.line_num
            if not row:
                continue
            if not header_seen:
                header_seen = True
            elif len(row) > ncols:
                dropped.append((start, len(row)))
            else:
                kept.append(start)
    except csv.Error:
        return None
    return kept, dropped


def _rows(ctx: ReadContext, frame, lines: list[int]) -> list[Paper]:
    frame.columns = [str(c) for c in frame.columns]
    columns = resolve_columns(frame.columns)
    fix = None
    norm = {normalise_key(c) for c in frame.columns}
    for signature, fixup in DIALECTS.values():
        if signature <= norm:
            fix = fixup
    if not {"title", "abstract"} & set(columns):
        raise ReaderError(
            f"no title or abstract column among {', '.join(list(frame.columns)[:12])}; "
            "name one 'title' or 'abstract' (other accepted names: 'Document Title', 'Article Title', "
            "'TI', 'AB', 'summary', ...)",
            ctx.name,
            lines[0] - 1 if lines else 1,
        )
    needed = [c for cols in columns.values() for c in cols]
    if fix is not None:
        needed = list(frame.columns)
    papers = []
    for line, row in zip(lines, frame[list(dict.fromkeys(needed))].to_dict("records")):
        if fix is not None:
            fix(row, columns)
            paper = record_from_mapping(ctx, row, line)
        else:
            paper = record_from_mapping(ctx, row, line, columns)
        if paper is not None:
            papers.append(paper)
    return papers


_NEUTRALISED = r"^'+[=+\-@\t\r\n]"


def _unneutralise(frame) -> None:
    """Remove the ``'`` put before a would-be formula (see the module docstring), in place."""
    for col in frame.columns:
        values = frame[col]
        marked = values.str.match(_NEUTRALISED)
        if marked.any():
            frame.loc[marked, col] = values[marked].str[1:]


def read_csv(text: str, ctx: ReadContext) -> list[Paper]:
    import pandas as pd

    delim = _delimiter(text, ctx.suffix)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = pd.read_csv(
                io.BytesIO(text.encode("utf-8")), encoding="utf-8", sep=delim, dtype=str, keep_default_na=False, na_filter=False,
                index_col=False, on_bad_lines="skip", skip_blank_lines=True,
            )
    except pd.errors.EmptyDataError as err:
        raise ReaderError("no header row found; expected a first row of column names", ctx.name, 1) from err
    except pd.errors.ParserError as err:
        located = _record_lines(text, delim, 10**9)
        line = located[0][-1] if located and located[0] else None
        raise ReaderError(
            f"cannot split into rows ({str(err).split(': ')[-1].strip()}); expected {delim!r}-separated "
            "values with balanced double quotes: check the quote that opens on this line",
            ctx.name, line,
        ) from err
    _unneutralise(frame)
    located = _record_lines(text, delim, len(frame.columns))
    if located is not None and len(located[0]) == len(frame):
        lines, dropped = located
        for line, n in dropped:
            ctx.skip(f"{n} values where the header has {len(frame.columns)} columns (an unquoted "
                     f"{delim!r} inside a value?); quote that value and read again", line)
    else:  # the csv module and pandas disagree: count data rows after the header instead
        lines = list(range(2, len(frame) + 2))
    return _rows(ctx, frame, lines)


def read_xlsx(raw: bytes, ctx: ReadContext) -> list[Paper]:
    import pandas as pd

    if importlib.util.find_spec("openpyxl") is None:  # pandas' engine for .xlsx
        raise ReaderError("reading .xlsx needs openpyxl: pip install openpyxl (or save the sheet as CSV)", ctx.name)
    try:
        sheets = pd.read_excel(io.BytesIO(raw), sheet_name=None, dtype=str, na_filter=False)
    except Exception as err:  # openpyxl raises zipfile/KeyError/ValueError on damaged files
        raise ReaderError(f"not a readable .xlsx workbook ({type(err).__name__}: {err}); "
                          "open and save it again in a spreadsheet program, or export CSV", ctx.name) from err
    name, frame = next(iter(sheets.items()))
    if len(sheets) > 1:
        ctx.warn(f"the workbook has {len(sheets)} sheets; read the first, {name!r}")
    return _rows(ctx, frame, list(range(2, len(frame) + 2)))

"""A large CSV split where its rows are made: each process splits the ranges of lines it reads.

Splitting 50,000 rows with the ``csv`` module takes ~0.4 s, and no worker could start before it
was done. A large table (:data:`MIN_CHARS`) is cut instead into ranges of whole lines, each
starting where a row starts, and each range is split by the process that makes its papers
(:func:`~workbench.readers.pool.make_chunks`): the rows, their lines, the skips and the papers
are what splitting the whole file gives (tests compare the two).

Where a row starts is found by counting quotes: in a CSV whose quotes are all the ``csv``
module's own (a value in quotes, a quote inside it doubled), a line after an even number of
quotes starts a row. A quote inside an unquoted value (``a 5" screen``) breaks that count, so
every range is checked as it is split: after its last line one more line is split, which comes
back as a row of its own exactly when the range ended at the end of a row. The first range
starts after the header, so each range then starts where a row starts, one after the other.
Where a range does not end at a row's end (:class:`NotRows`), and where a row has more values
than columns, all empty (a trailing delimiter, reported once for the whole file), the caller
splits the whole file in one process instead.

A large file in UTF-8 is not even decoded whole (:func:`~.tables.read_csv_bytes`): its ranges
are ranges of bytes, each decoded by the process that splits it (:func:`decode_range`, what
:func:`~workbench.readers.decode.decode` gives), and a range that is not UTF-8 sends the file
back to be decoded whole, its encoding guessed.
"""

from __future__ import annotations

import csv
from itertools import chain

from .decode import LoneCR, decode_utf8, utf8_start
from .fields import ReadContext

__all__ = ["MIN_CHARS", "NotRows", "decode_range", "line_ranges", "lines", "range_rows", "row_spans", "skip_extra_values",
           "utf8_head"]

#: Tables shorter than this (characters) are split whole, in one process: ranges pay only when
#: there are thousands of rows.
MIN_CHARS = 4_000_000
#: How many lines past where a range would end a row start is looked for, at most.
_LOOK_AHEAD = 200
# The line split after a range: a row of its own where the range ended at the end of a row.
_END = "\x1e"


class NotRows(Exception):
    """A range that does not end at the end of a row, or a row only the whole file's split
    reports (values past the last column, all empty)."""


def lines(text: str):
    """The lines of ``text`` one by one, without copying it all (as ``io.StringIO`` would, at
    four bytes a character). The ``csv`` module ends a line at the end of each string it is
    given, with or without its line end."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        yield text[start:end]
        start = end


def line_ranges(text: str | bytes, start: int, first_line: int, quoting: int, n: int) -> list[tuple[int, int, int]]:
    """About ``n`` ranges ``(start, end, first line)`` covering ``text[start:]`` (which starts
    a row, on line ``first_line``), each starting at the start of a line after an even number
    of quotes since ``start`` (any line with ``csv.QUOTE_NONE``). ``text`` may be the bytes of
    UTF-8 text (each range then decoded by :func:`decode_range`)."""
    newline, quote = ("\n", '"') if isinstance(text, str) else (b"\n", b'"')
    bounds = [(start, first_line)]
    size = len(text) - start
    for k in range(1, n):
        prev, line = bounds[-1]
        at = text.find(newline, max(start + size * k // n, prev)) + 1
        if not at or at >= len(text):
            break
        odd = quoting != csv.QUOTE_NONE and text.count(quote, prev, at) % 2
        for _ in range(_LOOK_AHEAD if odd else 0):
            after = text.find(newline, at) + 1
            if not after or after >= len(text):
                break
            odd ^= text.count(quote, at, after) % 2
            at = after
            if not odd:
                break
        if not odd:
            bounds.append((at, line + text.count(newline, prev, at)))
    ends = [b for b, _ in bounds[1:]] + [len(text)]
    return [(b, end, line) for (b, line), end in zip(bounds, ends)]


def decode_range(raw: bytes, start: int, end: int) -> str:
    """``raw[start:end]`` as :func:`~workbench.readers.decode.decode` gives UTF-8 (CRLF line ends
    as LF, NULs dropped); :class:`NotRows` where it is not UTF-8 or a line ends with a CR alone
    (the whole file is decoded then, and its line numbers count that line end)."""
    try:
        return decode_utf8(raw[start:end], lone_cr=False)
    except UnicodeDecodeError as err:
        raise NotRows(f"bytes {start}-{end}: not UTF-8") from err
    except LoneCR as err:
        raise NotRows(f"bytes {start}-{end}: a line ends with a CR alone") from err


def utf8_head(raw: bytes, size: int) -> tuple[int, str] | None:
    """Where the text of ``raw`` starts (after its UTF-8 byte order marks), and its first whole
    lines within ``size`` bytes from there, decoded as :func:`decode_range` decodes; None where
    :func:`~workbench.readers.decode.decode` would not read ``raw`` as UTF-8 (a BOM or NULs say
    UTF-16 or UTF-32), those lines are not UTF-8, or no line ends within ``size`` bytes."""
    start = utf8_start(raw)
    end = raw.rfind(b"\n", start, start + size) + 1 if start is not None else 0
    if not end:
        return None
    try:
        return start, decode_range(raw, start, end)
    except NotRows:
        return None


def row_spans(reader, first_line: int = 1):
    """``(first line, last line, values)`` of each row that is not blank, of a ``csv.reader``
    whose first line is line ``first_line`` (a quoted value may span lines)."""
    prev_end = first_line - 1
    for values in reader:
        start, prev_end = prev_end + 1, first_line - 1 + reader.line_num
        if values:
            yield start, prev_end, values


def skip_extra_values(ctx: ReadContext, n: int, ncols: int, delim: str, start: int, end: int) -> None:
    """Skip the row on lines ``start``-``end``: ``n`` values, one past the header's ``ncols``
    columns not empty."""
    spans = f" (the row runs from line {start} to line {end})" if end > start else ""
    ctx.skip(f"{n} values where the header has {ncols} columns (an unquoted {delim!r} "
             f"inside a value?){spans}; quote that value and read again", start)


def range_rows(text: str, start: int, end: int, first_line: int, delim: str, quoting: int, ncols: int,
               ctx: ReadContext) -> list[tuple[int, list[str]]]:
    """The data rows ``(first line, values)`` of ``text[start:end]``, as splitting the whole
    text gives them (a row with a real value past the last column skipped and reported on
    ``ctx``); :class:`NotRows` where the range does not end at a row's end, or a row has values
    past the last column that are all empty."""
    reader = csv.reader(chain(lines(text[start:end]), (_END + "\n",)), delimiter=delim, quoting=quoting)
    data: list[tuple[int, list[str]]] = []
    for row_start, row_end, values in row_spans(reader, first_line):
        if len(values) > ncols:
            if not any(v.strip() for v in values[ncols:]):
                raise NotRows(f"line {row_start}: values past the last column, all empty")
            skip_extra_values(ctx, len(values), ncols, delim, row_start, row_end)
            continue
        data.append((row_start, values))
    if not data or data[-1][1] != [_END]:
        raise NotRows(f"lines from {first_line}: the range does not end at the end of a row")
    data.pop()
    return data

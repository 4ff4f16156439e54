"""Values of a table longer than a reader keeps, cut before the ``csv`` module holds them whole.

The ``csv`` module builds each value in a buffer of four bytes a character: a CSV whose
abstract is a gigabyte would take four gigabytes there, on top of the file's bytes and text.
Tables are therefore split with the module's field limit set to the longest value kept
(``WORKBENCH_MAX_FIELD_CHARS``, see :mod:`.bounds`), which stops it at once where a value is
longer (:class:`LongValue`); the table is then split again through :func:`cut_lines`, which
gives the ``csv`` module the lines of the text with the rest of each long value left out, so
the module never sees more of a value than is kept.

Every line is still counted: a line left out inside a quoted value is given as an empty string,
which the ``csv`` module counts as a line and adds nothing for, so rows after a cut value keep
their true line numbers.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator

from .bounds import warn_cut
from .fields import ReadContext

__all__ = ["LongValue", "cut_lines", "long_values"]


class LongValue(Exception):
    """A value longer than the ``csv`` module's field limit (the longest value kept)."""


def _long_value_pattern(delim: str, quoting: int, limit: int) -> re.Pattern:
    """Every quoted value (which may hold delimiters and line ends), and every unquoted one
    longer than ``limit``, each from where a value starts (after a delimiter or a line end)."""
    d = re.escape(delim)
    start = rf"(?<![^\n{d}])"
    if quoting == csv.QUOTE_NONE:
        return re.compile(rf"{start}[^\n{d}]{{{limit + 1},}}")
    return re.compile(rf'{start}"[^"]*(?:""[^"]*)*"?|{start}[^"\n{d}][^\n{d}]{{{limit},}}')


def long_values(text: str, delim: str, quoting: int, ctx: ReadContext) -> list[tuple[int, int]]:
    """The spans ``(start, end)`` of ``text`` to leave out so that no value is longer than
    ``ctx.max_chars``: the rest of each longer value (where a quoted value ends: before its
    closing quote). Each is warned about on ``ctx``, on the line its value starts."""
    limit = ctx.max_chars
    cuts: list[tuple[int, int]] = []
    line, counted = 1, 0
    for m in _long_value_pattern(delim, quoting, limit).finditer(text):
        start, end = m.span()
        quoted = text[start] == '"' and quoting != csv.QUOTE_NONE
        if quoted:
            start += 1
            end -= 1 if end > start and text[end - 1] == '"' and _closed(text, start, end) else 0
        if end - start <= limit:
            continue
        keep = start + limit
        if quoted:  # never half of a doubled quote: the kept part ends with an even run of quotes
            run = len(text[start:keep]) - len(text[start:keep].rstrip('"'))
            keep -= run % 2
        line += text.count("\n", counted, start)
        counted = start
        warn_cut(ctx, line, None, end - start)
        cuts.append((keep, end))
    return cuts


def _closed(text: str, start: int, end: int) -> bool:
    """Whether the quoted value whose content starts at ``start`` ends with its closing quote at
    ``end - 1`` (not with a doubled quote at the end of the file)."""
    run = len(text[start:end]) - len(text[start:end].rstrip('"'))
    return run % 2 == 1


def cut_lines(text: str, cuts: list[tuple[int, int]]) -> Iterator[str]:
    """The lines of ``text`` (as :func:`~.csv_ranges.lines` gives them) with each span of
    ``cuts`` left out; a line a span leaves out whole is an empty string (see the module)."""
    pos, carry = 0, ""
    for a, b in [*cuts, (len(text), len(text))]:
        while pos < a:
            end = text.find("\n", pos, a)
            if end < 0:
                carry += text[pos:a]
                pos = a
                break
            yield carry + text[pos:end + 1]
            carry, pos = "", end + 1
        if a >= len(text):
            break
        spanned = text.count("\n", a, b)
        if spanned:
            yield carry
            yield from ("" for _ in range(spanned - 1))
            carry = ""
        pos = b
    if carry:
        yield carry

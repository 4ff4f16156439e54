"""Bounded input: how much of a source is read, and only ever from a regular file.

A source file is read whole into memory and an archive's members one at a time, each under a
limit, so neither a huge file nor a zip bomb (a 1 MB zip whose member unpacks to gigabytes of
NULs) can take the machine's memory, and one value (a book pasted into an abstract field) is
cut before the cleaning makes copies of it:

====================================================  ====================  ===========================
limit                                                  default               environment variable
====================================================  ====================  ===========================
a file on disk                                         2,048 MB              ``WORKBENCH_MAX_FILE_MB``
one archive member, decompressed                       512 MB                ``WORKBENCH_MAX_MEMBER_MB``
all members of one archive, decompressed (nested too)  1,024 MB              ``WORKBENCH_MAX_ARCHIVE_MB``
one value of a record (a title, an abstract)           1,000,000 characters  ``WORKBENCH_MAX_FIELD_CHARS``
====================================================  ====================  ===========================

(MB: 1,048,576 bytes.) A member's size is not what its archive says but what it unpacks to: it
is decompressed in pieces and refused as soon as it passes the limit, which a 1 GB member of
NULs in a 1 MB zip does after 512 MB, in about a second. Reading a file takes a few times its
size at the peak (its bytes, its text, a parser's values): about three for an export of
abstracts, more where a file holds many tiny values (a 51 MB CSV of short cells: 433 MB, 8x,
every column kept until the records are made), so the defaults keep a source of abstracts
under the memory of a laptop, while the largest exports people screen (PubMed XML of 50,000
articles: about 1.5 GB) still read.

A path that is not a regular file (a named pipe, a socket, a device) is never opened: opening
a pipe waits for a writer, and a device can give bytes without end. :func:`read_regular` checks
the kind of file before opening it and again on what it opened.
"""

from __future__ import annotations

import errno
import io
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, ReaderError
from ..corpus.paper import MAX_TEXT_CHARS

__all__ = ["MB", "Limits", "TooLarge", "cut_long", "cut_values", "file_kind", "megabytes", "read_regular", "read_stream",
           "warn_cut", "why_not"]

MB = 1024 * 1024
#: Pieces a stream is read in.
_CHUNK = 4 * MB

_ENV = {
    "file_bytes": ("WORKBENCH_MAX_FILE_MB", 2048, MB),
    "member_bytes": ("WORKBENCH_MAX_MEMBER_MB", 512, MB),
    "archive_bytes": ("WORKBENCH_MAX_ARCHIVE_MB", 1024, MB),
    "field_chars": ("WORKBENCH_MAX_FIELD_CHARS", 1_000_000, 1),
}


def _setting(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value.replace("_", "").replace(",", ""))
    except ValueError:
        number = 0
    if number < 1:
        raise InputError(f"{name}={value!r} should be a whole number of at least 1 (default: {default:,}); "
                         f"set it to a number or unset it")
    return number


@dataclass(frozen=True)
class Limits:
    """The limits of one read (see the module docstring); :meth:`from_env` reads them."""

    file_bytes: int = 2048 * MB
    member_bytes: int = 512 * MB
    archive_bytes: int = 1024 * MB
    field_chars: int = 1_000_000

    @classmethod
    def from_env(cls) -> "Limits":
        """The defaults, or what the ``WORKBENCH_MAX_*`` variables set; :class:`InputError` on a
        value that is not a positive whole number."""
        return cls(**{key: _setting(name, default) * unit for key, (name, default, unit) in _ENV.items()})

    @staticmethod
    def variable(key: str) -> str:
        """The environment variable that sets the limit ``key`` (``"member_bytes"`` ...)."""
        return _ENV[key][0]


def megabytes(n: int) -> str:
    """``536870912`` -> ``"512 MB"``."""
    return f"{n / MB:,.0f} MB" if n >= MB else f"{n:,} bytes"


class TooLarge(ValueError):
    """More bytes than the limit: ``limit`` is the limit passed."""

    def __init__(self, limit: int):
        super().__init__(f"over {megabytes(limit)}")
        self.limit = limit


def file_kind(mode: int) -> str:
    """What a file that is not a regular one is, in words, from its ``st_mode``."""
    for test, kind in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return kind
    return "a special file"


def read_stream(stream, limit: int) -> bytes:
    """All of ``stream`` (a binary file object), read in pieces; :class:`TooLarge` as soon as it
    gives more than ``limit`` bytes (so a bomb is never unpacked past the limit)."""
    out = io.BytesIO()  # (getvalue shares its buffer: no copy at the end)
    total = 0
    while True:
        piece = stream.read(min(_CHUNK, limit + 1 - total))
        if not piece:
            return out.getvalue()
        total += len(piece)
        if total > limit:
            raise TooLarge(limit)
        out.write(piece)


def read_regular(path: str | os.PathLike, limit: int, name: str | None = None, *, head: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (``head``: only its first ``head`` bytes):
    :class:`ReaderError` (naming ``name``, default the path) when it is not one (never opened,
    see the module), is larger than ``limit`` bytes, or cannot be read (its reason: permission
    denied, ...)."""
    name = str(path) if name is None else name
    try:
        before = os.stat(path)
        if not stat.S_ISREG(before.st_mode):
            raise ReaderError(f"not a regular file but {file_kind(before.st_mode)}; not opened: give a file of "
                              "exports", name)
        if before.st_size > limit:
            raise TooLarge(limit)
        # O_NONBLOCK: should the path have become a pipe since, opening it does not wait
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as f:  # (buffered: its read(n) reads until n bytes or the end)
            now = os.fstat(fd)
            if not stat.S_ISREG(now.st_mode):
                raise ReaderError(f"not a regular file but {file_kind(now.st_mode)}; not read: give a file of "
                                  "exports", name)
            if head is not None:
                return f.read(head)
            first = f.read(min(now.st_size, limit) + 1)  # all of it, nearly always
            if len(first) <= now.st_size:
                return first
            if len(first) > limit:  # (it grew meanwhile)
                raise TooLarge(limit)
            try:  # (a file whose size says nothing: /proc's)
                return first + read_stream(f, limit - len(first))
            except TooLarge:
                raise TooLarge(limit) from None
    except TooLarge as err:
        variable = Limits.variable("file_bytes")
        raise ReaderError(f"too large ({err}); split it into smaller exports, or raise the limit with "
                          f"{variable}=<megabytes>", name) from None
    except OSError as err:
        raise ReaderError(f"cannot read the file ({why_not(err)})", name) from err


def why_not(err: OSError) -> str:
    """Why a file cannot be read, and what to do, for a researcher."""
    if err.errno in (errno.EACCES, errno.EPERM):
        return "permission denied: you may not read it; ask its owner for read access, or leave it out"
    if err.errno == errno.ENOENT:
        return "it is gone: moved or deleted while reading; give its new place"
    if err.errno == errno.EISDIR:
        return "it is a folder"
    return f"{err.strerror or err}; check the path and its permissions"


def cut_long(ctx, line: int | str | None, name: str, value: str) -> str:
    """``value`` cut to ``ctx.max_chars`` characters (``ctx``: a reader's
    :class:`~.fields.ReadContext`; where it is longer: with a warning, :func:`warn_cut`), before
    anything copies it: cleaning a value makes several copies of it, and a value of a gigabyte
    (a book, or garbage, in an abstract field) would take many gigabytes."""
    if len(value) <= ctx.max_chars:
        return value
    warn_cut(ctx, line, name, len(value))
    return value[: ctx.max_chars]


def warn_cut(ctx, line: int | str | None, name: str | None, length: int) -> None:
    """Warn on ``ctx`` that the field ``name`` (None: a value of a field not known) of ``length``
    characters on ``line`` is cut to ``ctx.max_chars``."""
    ctx.warn(f"{f'the {name}' if name else 'a value'} has {length:,} characters, more than a value may hold: the "
             f"record keeps its first {ctx.max_chars:,} (WORKBENCH_MAX_FIELD_CHARS sets the limit), and embedding "
             f"and topic words its first {min(MAX_TEXT_CHARS, ctx.max_chars):,}: is a full text in "
             f"{f'the {name} field' if name else 'it'}?", line)


def cut_values(ctx, values: Mapping[str, Any], line: int | str | None) -> Mapping[str, Any]:
    """``values`` with every string longer than ``ctx.max_chars`` cut (:func:`cut_long`);
    the same mapping where none is."""
    limit = ctx.max_chars
    long = [k for k, v in values.items() if type(v) is str and len(v) > limit]
    if not long:
        return values
    return {**values, **{k: cut_long(ctx, line, k, values[k]) for k in long}}

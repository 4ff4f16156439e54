"""Archives read in memory, one member at a time: ``.zip``, ``.gz``, ``.tar.gz`` / ``.tgz`` (and
``.tar``, ``.bz2``, ``.xz``).

SYNERGY and OpenAlex snapshot files come compressed; nothing is unpacked to disk. Each member
gets a name of the form ``<archive>!<member>`` (``refs.zip!scopus/export.csv``), which is what
every message and every record's source says, so a problem is found inside the archive too.

An archive is recognised by its first bytes, whatever its name; Office files (``.xlsx``,
``.docx``: zip files with ``[Content_Types].xml``) are documents, not archives. Members that are
folders, links, hidden (``.DS_Store``) or macOS resource forks (``__MACOSX/``) are not read, and
counted in the report.

Bounded (:mod:`.bounds`): a member is decompressed in pieces and refused, as "too large (over
512 MB decompressed)", as soon as it passes ``WORKBENCH_MAX_MEMBER_MB``, whatever its header
says (one whose zip header or gzip trailer says it is larger is refused without unpacking);
everything an archive unpacks, archives inside it included, counts against
``WORKBENCH_MAX_ARCHIVE_MB``, after which the rest of it is not read (one line says so). A zip
bomb therefore costs at most that much decompression, whether it packs one huge member, many
members pointing at the same compressed data, or archives inside archives (opened
:data:`MAX_DEPTH` deep). A zip that lists more than :data:`MAX_MEMBERS` files is not opened
(its list alone would take memory); a tar is read up to that many. A tar is read as a stream,
so a compressed one is never held unpacked.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from .bounds import Limits, TooLarge, megabytes, read_stream

__all__ = ["MAX_DEPTH", "MAX_MEMBERS", "Member", "archive_kind", "members", "zip_unpacked"]

#: Archives inside archives are opened this deep.
MAX_DEPTH = 3
#: Files of one archive read at most (each is a line of the report); a zip that lists more is
#: not opened (its list alone would take memory), a tar is read up to that many.
MAX_MEMBERS = 100_000

_OPENERS = {"gzip": lambda f: gzip.GzipFile(fileobj=f), "bz2": bz2.BZ2File, "xz": lzma.LZMAFile}
_SUFFIXES = {"gzip": (".gz", ".gzip", ".tgz"), "bz2": (".bz2", ".tbz2", ".tbz"), "xz": (".xz", ".lzma", ".txz")}
#: What the standard library raises on a damaged archive (zlib.error and struct.error are not OSErrors).
_DAMAGED = (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError, struct.error,
            ValueError, NotImplementedError, RuntimeError, KeyError, IndexError, OverflowError)


@dataclass(frozen=True)
class Member:
    """One file of an archive: its display name and its bytes, or why it was not read."""

    name: str
    data: bytes | None = None
    error: str | None = None


def _is_tar(raw: bytes) -> bool:
    return len(raw) > 262 and raw[257:262] == b"ustar"


def archive_kind(raw: bytes) -> str | None:
    """``"zip"``, ``"tar"``, ``"gzip"``, ``"bz2"``, ``"xz"`` or None, from the first bytes."""
    if raw[:4] == b"PK\x03\x04" or raw[:4] == b"PK\x05\x06":  # (an Office file names it first, or in its list at the end)
        office = b"[Content_Types].xml" in raw[:65536] or b"[Content_Types].xml" in raw[-(1 << 20):]
        return None if office else "zip"
    if raw[:2] == b"\x1f\x8b":
        return "gzip"
    if raw[:3] == b"BZh":
        return "bz2"
    if raw[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if _is_tar(raw):
        return "tar"
    return None


class _Spent(Exception):
    """The archive has unpacked all it may (``WORKBENCH_MAX_ARCHIVE_MB``)."""


class _Budget:
    """What one archive (with the archives inside it) may still unpack."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.left = limits.archive_bytes
        self.at = ""  # the member being unpacked

    def take(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise _Spent


class _Metered(io.RawIOBase):
    """A decompressed stream whose bytes are taken from a :class:`_Budget` as they are read."""

    def __init__(self, stream, budget: _Budget):
        super().__init__()
        self._stream, self._budget = stream, budget

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data = self._stream.read(self._budget.left + 1 if n is None or n < 0 else min(n, self._budget.left + 1))
        self._budget.take(len(data))
        return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _too_large(name: str, limits: Limits) -> Member:
    return Member(name, error=f"too large (over {megabytes(limits.member_bytes)} decompressed); unpack it and "
                              f"read its parts, or raise the limit with {Limits.variable('member_bytes')}=<megabytes>")


def _read_member(stream, name: str, budget: _Budget) -> Member:
    budget.at = name
    try:
        return Member(name, read_stream(stream, budget.limits.member_bytes))
    except TooLarge:
        return _too_large(name, budget.limits)


def _hidden(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return any(p.startswith(".") and p not in (".", "..") for p in parts) or "__MACOSX" in parts


def _more(name: str, listed: int | None = None) -> Member:
    what = f"it lists {listed:,} files, more than {MAX_MEMBERS:,}: not opened" if listed else \
        f"it holds more than {MAX_MEMBERS:,} files: those after them are not read"
    return Member(name, error=f"{what}; unpack it and read its folders")


def _zip_entries(raw: bytes) -> int | None:
    """How many entries a zip's end record lists (None: no end record found): looked up before
    zipfile reads the whole list."""
    at = raw.rfind(b"PK\x05\x06", max(0, len(raw) - 65557))
    if at < 0 or at + 22 > len(raw):
        return None
    total = struct.unpack_from("<H", raw, at + 10)[0]
    locator = raw.rfind(b"PK\x06\x07", max(0, at - 20), at)
    if total == 0xFFFF and locator >= 0:  # ZIP64: the count is in the ZIP64 end record
        end = struct.unpack_from("<Q", raw, locator + 8)[0]
        if raw[end:end + 4] == b"PK\x06\x06" and end + 40 <= len(raw):
            total = struct.unpack_from("<Q", raw, end + 32)[0]
    return total


def zip_unpacked(raw: bytes) -> int | None:
    """How many bytes the zip ``raw`` (an .xlsx too) says its files unpack to (zipfile never
    gives more); None where it cannot be read as a zip, or lists too many files."""
    listed = _zip_entries(raw)
    if listed is not None and listed > MAX_MEMBERS:
        return None
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return sum(info.file_size for info in archive.infolist())
    except _DAMAGED:
        return None


def _zip(raw: bytes, name: str, budget: _Budget) -> Iterator[Member]:
    listed = _zip_entries(raw)
    if listed is not None and listed > MAX_MEMBERS:
        yield _more(name, listed)
        return
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            member = f"{name}!{info.filename}"
            if _hidden(info.filename):
                yield Member(member, error="hidden (a name starting with '.') or a macOS resource fork")
            elif info.flag_bits & 0x1:
                yield Member(member, error="encrypted; unpack it with its password and read the file")
            elif info.file_size > budget.limits.member_bytes:  # (zipfile never gives more than the header says)
                yield _too_large(member, budget.limits)
            else:
                try:
                    with archive.open(info) as stream:
                        read = _read_member(_Metered(stream, budget), member, budget)
                except _Spent:
                    raise
                except _DAMAGED as err:
                    read = Member(member, error=f"cannot be unpacked ({_reason(err)}); download the archive again")
                yield read


def _tar(stream, name: str, budget: _Budget) -> Iterator[Member]:
    """The members of a tar read as a stream (``r|``): never seeks, so a compressed one is
    decompressed once, through ``stream`` (metered)."""
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        for n, info in enumerate(archive):
            if n == MAX_MEMBERS:
                yield _more(name)
                return
            member = f"{name}!{info.name.removeprefix('./')}"
            if info.isdir():
                continue
            if not info.isfile():
                what = f"a link to {info.linkname[:200]!r}" if info.issym() or info.islnk() else "a special file (a device or pipe)"
                yield Member(member, error=f"{what} in the archive, which is never followed; if it stands for an "
                                           "export, unpack the archive and read the file it names")
            elif _hidden(info.name):
                yield Member(member, error="hidden (a name starting with '.') or a macOS resource fork")
            elif info.size > budget.limits.member_bytes:
                yield _too_large(member, budget.limits)
            else:
                yield _read_member(archive.extractfile(info), member, budget)


def _single(raw: bytes, name: str, kind: str, budget: _Budget) -> Iterator[Member]:
    opener = _OPENERS[kind]
    with opener(io.BytesIO(raw)) as stream:
        head = stream.read(512)
    if _is_tar(head):  # .tar.gz: the tar inside, as a stream
        with opener(io.BytesIO(raw)) as stream:
            yield from _tar(_Metered(stream, budget), name, budget)
        return
    base = name.rsplit("!", 1)[-1].rsplit("/", 1)[-1]
    inner = next((base[: -len(s)] for s in _SUFFIXES[kind] if base.lower().endswith(s)), base)
    if kind == "gzip" and len(raw) >= 18 and int.from_bytes(raw[-4:], "little") > budget.limits.member_bytes:
        yield _too_large(f"{name}!{inner}", budget.limits)  # what its end says it unpacks to: not unpacked
        return
    with opener(io.BytesIO(raw)) as stream:
        yield _read_member(_Metered(stream, budget), f"{name}!{inner}", budget)


def _reason(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def members(raw: bytes, name: str, kind: str, limits: Limits | None = None) -> Iterator[Member]:
    """The files of the archive ``raw`` (of ``kind``, see :func:`archive_kind`) one at a time,
    archives inside it opened in turn, within ``limits`` (default: :meth:`Limits.from_env`).
    Raises ``ValueError`` (with the reason) where the archive itself is damaged; the members
    before that point have been given."""
    budget = _Budget(limits or Limits.from_env())
    try:
        yield from _members(raw, name, kind, budget, 1)
    except _Spent:
        yield Member(name, error=f"its files unpack to more than {megabytes(budget.limits.archive_bytes)}: "
                                 f"those from {budget.at} on are not read; unpack it and read its files, or raise "
                                 f"the limit with {Limits.variable('archive_bytes')}=<megabytes>")


def _members(raw: bytes, name: str, kind: str, budget: _Budget, depth: int) -> Iterator[Member]:
    if kind == "zip":
        source = _zip(raw, name, budget)
    elif kind == "tar":
        source = _tar(_Metered(io.BytesIO(raw), budget), name, budget)
    else:
        source = _single(raw, name, kind, budget)
    while True:
        try:
            member = next(source)
        except StopIteration:
            return
        except _Spent:
            raise
        except _DAMAGED as err:
            raise ValueError(f"a damaged {kind} archive ({_reason(err)})") from err
        inner = archive_kind(member.data) if member.data is not None else None
        if inner is None:
            yield member
        elif depth >= MAX_DEPTH:
            yield Member(member.name, error=f"an archive {depth} levels deep; unpack it and read its files")
        else:
            try:
                yield from _members(member.data, member.name, inner, budget, depth + 1)
            except ValueError as err:
                yield Member(member.name, error=f"{err}; download it again")

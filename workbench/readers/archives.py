"""Archives read in memory: ``.zip``, ``.gz``, ``.tar.gz`` / ``.tgz`` (and ``.tar``, ``.bz2``, ``.xz``).

SYNERGY and OpenAlex snapshot files come compressed; nothing is unpacked to disk. Each member
gets a name of the form ``<archive>!<member>`` (``refs.zip!scopus/export.csv``), which is what
every message and every record's source says, so a problem is found inside the archive too.

An archive is recognised by its first bytes, whatever its name; Office files (``.xlsx``,
``.docx``: zip files with ``[Content_Types].xml``) are documents, not archives. Members that are
folders, links, hidden (``.DS_Store``) or macOS resource forks (``__MACOSX/``) are not read, and
counted in the report.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

__all__ = ["MAX_MEMBER_BYTES", "Member", "archive_kind", "members"]

#: A member larger than this uncompressed is not read (it would be held in memory).
MAX_MEMBER_BYTES = 2 * 1024**3
#: Archives inside archives are opened this deep.
MAX_DEPTH = 3

_COMPRESSORS = {"gzip": (lambda f: gzip.GzipFile(fileobj=f), (".gz", ".gzip", ".tgz")),
                "bz2": (bz2.BZ2File, (".bz2",)), "xz": (lzma.LZMAFile, (".xz", ".lzma"))}


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
    if raw[:4] == b"PK\x03\x04" or raw[:4] == b"PK\x05\x06":
        return None if b"[Content_Types].xml" in raw[:65536] else "zip"
    if raw[:2] == b"\x1f\x8b":
        return "gzip"
    if raw[:3] == b"BZh":
        return "bz2"
    if raw[:6] == b"\xfd7zXZ\x00":
        return "xz"
    if _is_tar(raw):
        return "tar"
    return None


def _read_limited(stream, name: str) -> Member:
    data = stream.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        return Member(name, error=f"larger than {MAX_MEMBER_BYTES // 1024**3} GB uncompressed; unpack it and "
                                  "read its parts")
    return Member(name, data)


def _hidden(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return any(p.startswith(".") and p not in (".", "..") for p in parts) or "__MACOSX" in parts


def _zip(raw: bytes, name: str) -> Iterator[Member]:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            member = f"{name}!{info.filename}"
            if _hidden(info.filename):
                yield Member(member, error="hidden (a name starting with '.') or a macOS resource fork")
            elif info.flag_bits & 0x1:
                yield Member(member, error="encrypted; unpack it with its password and read the file")
            elif info.file_size > MAX_MEMBER_BYTES:
                yield Member(member, error=f"larger than {MAX_MEMBER_BYTES // 1024**3} GB uncompressed; unpack it "
                                           "and read its parts")
            else:
                try:
                    with archive.open(info) as stream:
                        yield _read_limited(stream, member)
                except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as err:
                    yield Member(member, error=f"cannot be unpacked ({err}); download the archive again")


def _tar(raw: bytes, name: str) -> Iterator[Member]:
    with tarfile.open(fileobj=io.BytesIO(raw), mode="r:*") as archive:
        for info in archive:
            member = f"{name}!{info.name.removeprefix('./')}"
            if info.isdir():
                continue
            if not info.isfile():
                yield Member(member, error="a link or special file in the archive; not read")
            elif _hidden(info.name):
                yield Member(member, error="hidden (a name starting with '.') or a macOS resource fork")
            else:
                yield _read_limited(archive.extractfile(info), member)


def _single(raw: bytes, name: str, kind: str) -> Iterator[Member]:
    opener, suffixes = _COMPRESSORS[kind]
    base = name.rsplit("!", 1)[-1].rsplit("/", 1)[-1]
    inner = next((base[: -len(s)] for s in suffixes if base.lower().endswith(s)), base)
    with opener(io.BytesIO(raw)) as stream:
        member = _read_limited(stream, f"{name}!{inner}")
    if member.data is not None and _is_tar(member.data):  # .tar.gz: the tar inside
        yield from _tar(member.data, name)
    else:
        yield member


def members(raw: bytes, name: str, kind: str, depth: int = 1) -> Iterator[Member]:
    """The files of the archive ``raw`` (of ``kind``, see :func:`archive_kind`) one at a time,
    archives inside it opened in turn. Raises ``ValueError`` (with the reason) where the archive
    itself is damaged; the members before that point have been given."""
    source = _zip(raw, name) if kind == "zip" else _tar(raw, name) if kind == "tar" else _single(raw, name, kind)
    while True:
        try:
            member = next(source)
        except StopIteration:
            return
        except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, lzma.LZMAError) as err:
            raise ValueError(f"a damaged {kind} archive ({err})") from err
        inner = archive_kind(member.data) if member.data is not None else None
        if inner is None:
            yield member
        elif depth >= MAX_DEPTH:
            yield Member(member.name, error=f"an archive {depth} levels deep; unpack it and read its files")
        else:
            try:
                yield from members(member.data, member.name, inner, depth + 1)
            except ValueError as err:
                yield Member(member.name, error=f"{err}; download it again")

"""Bytes to text: UTF-8 (with or without BOM), UTF-16/32 (BOM or not), else a detected encoding.

Line ends are unified to ``\\n`` whatever mix of CR, LF and CRLF the file has, so every reader
counts lines the same way a text editor does. A file that is not UTF-8 is decoded with the
encoding charset-normalizer finds most likely (GBK, Latin-1, Windows-1252, Shift-JIS, ...) and
the caller gets a warning saying which, because a wrong guess garbles accented letters. A file
that is UTF-8 but for a few bytes (a record pasted in from a Windows-1252 text) is read as
UTF-8, those bytes as Windows-1252, with a warning: guessing one encoding for all of it would
garble every other letter beyond ASCII (or take the file for binary data).
"""

from __future__ import annotations

import codecs
import re
from typing import NamedTuple

__all__ = ["Decoded", "LoneCR", "decode", "decode_utf8", "utf8_start"]

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class Decoded(NamedTuple):
    """The decoded text, the encoding used, and a warning when the encoding was a guess."""

    text: str
    encoding: str
    warning: str | None = None


def _utf16_without_bom(raw: bytes) -> str | None:
    """UTF-16 without a BOM shows as a NUL in every other byte of ASCII text."""
    sample = raw[:4096]
    if len(sample) < 4 or sample.count(0) < len(sample) // 4:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    return "utf-16-le" if odd > 3 * even else "utf-16-be" if even > 3 * odd else None


def _normalise(text: str) -> str:
    if "\r" in text:  # re.sub(r"\r\n?", "\n", text), with str.replace (several times faster)
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = text.replace("\r", "\n")
    return text.replace("\x00", "") if "\x00" in text else text


#: A CR that is no CRLF's (an old Mac line end).
_LONE_CR = re.compile(rb"\r(?!\n)")


class LoneCR(ValueError):
    """A line that ends with a CR alone, where the caller counts lines by their LF."""


def decode_utf8(raw: bytes, bom: bool = False, lone_cr: bool = True) -> str:
    """``_normalise(raw.decode("utf-8"))`` (after a ``bom``: its BOMs stripped first), its line ends unified on the bytes: CR and LF are
    never part of another character's bytes in UTF-8, and ``bytes.replace`` takes a few times
    less than ``str.replace`` on the decoded text (whose characters are up to four bytes wide).
    A file is valid UTF-8 after it exactly when before it (NULs go after decoding: removing one
    could join the bytes around it into a character). ``UnicodeDecodeError`` where ``raw`` is
    not UTF-8; with ``lone_cr=False``, :class:`LoneCR` where a line ends with a CR alone."""
    if b"\r" in raw:
        if _LONE_CR.search(raw) is None:  # CRLF only (Windows): deleting every CR is 2x faster
            raw = raw.translate(None, b"\r")
        elif not lone_cr:
            raise LoneCR("a line ends with a CR alone")
        else:
            raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    text = raw.decode("utf-8").lstrip("\ufeff") if bom else raw.decode("utf-8")
    return text.replace("\x00", "") if b"\x00" in raw else text  # (in UTF-8 a 0 byte is only ever U+0000)


#: When charset-normalizer finds several encodings equally likely (short texts often decode
#: identically in cp1250 and cp1252), the first of these wins.
PREFERRED = ("cp1252", "latin_1", "iso8859_15", "gb18030", "gbk", "big5", "shift_jis", "cp932", "euc_jp", "euc_kr")


def _detect(raw: bytes) -> tuple[str, str]:
    import charset_normalizer

    matches = list(charset_normalizer.from_bytes(raw))
    if not matches:
        return "latin-1", raw.decode("latin-1")
    best = matches[0]
    tied = [m for m in matches if abs(m.chaos - best.chaos) < 1e-6 and abs(m.coherence - best.coherence) < 1e-6]
    rank = {name: i for i, name in enumerate(PREFERRED)}
    choice = min(tied, key=lambda m: rank.get(m.encoding, len(rank)))
    return choice.encoding, str(choice)


def utf8_start(raw: bytes) -> int | None:
    """Where the text of ``raw`` starts when :func:`decode` would read it as UTF-8 were it valid
    (after its UTF-8 byte order marks); None where a BOM or NULs say UTF-16 or UTF-32."""
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None
    if _utf16_without_bom(raw):
        return None
    start = 0
    while raw.startswith(codecs.BOM_UTF8, start):
        start += len(codecs.BOM_UTF8)
    return start


def _stray_byte(err: UnicodeDecodeError) -> tuple[str, int]:
    """A byte that is no UTF-8, read as Windows-1252 (U+FFFD where that has no character)."""
    return err.object[err.start:err.start + 1].decode("cp1252", errors="replace"), err.start + 1


codecs.register_error("workbench.stray-cp1252", _stray_byte)


def _mostly_utf8(raw: bytes, first_bad: int) -> Decoded | None:
    """``raw`` read as UTF-8 where its characters beyond ASCII are mostly UTF-8 (at least twice
    as many as its bytes that are not: a Windows-1252 or GBK text makes few UTF-8 characters by
    chance), the rest read as Windows-1252, with a warning; else None."""
    replaced = raw.decode("utf-8", errors="replace")
    stray = replaced.count("\ufffd")
    utf8 = len(raw) - len(replaced)  # (the bytes after the first of each UTF-8 character beyond ASCII)
    if utf8 < 2 * stray:
        return None
    line = raw.count(b"\n", 0, first_bad) + 1
    warning = (f"UTF-8 but for {stray:,} byte{'s' if stray > 1 else ''} (the first on line {line}), read as "
               "Windows-1252 (\\xe9 as é): check the letters there, or save the file as UTF-8")
    return Decoded(_normalise(raw.decode("utf-8", errors="workbench.stray-cp1252")), "utf-8", warning)


def decode(raw: bytes) -> Decoded:
    """Decode a whole file; never fails (Latin-1 maps every byte), warns when it guessed."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                if encoding == "utf-8-sig":  # (the most common BOM: Excel's CSV files)
                    return Decoded(decode_utf8(raw[len(bom):], bom=True), "utf-8")
                text = raw.decode(encoding)
            except UnicodeDecodeError:
                break
            return Decoded(_normalise(text.lstrip("\ufeff")), encoding.replace("-sig", ""))
    utf16 = _utf16_without_bom(raw)
    if utf16:
        try:
            return Decoded(_normalise(raw.decode(utf16)), utf16)
        except UnicodeDecodeError:
            pass
    try:
        return Decoded(decode_utf8(raw), "utf-8")
    except UnicodeDecodeError:
        pass
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        first_bad = err.start  # (in the file as it is, not with its line ends unified)
    mostly = _mostly_utf8(raw, first_bad)
    if mostly is not None:
        return mostly
    encoding, text = _detect(raw)
    line = raw.count(b"\n", 0, first_bad) + 1
    warning = (
        f"not UTF-8 (first non-UTF-8 byte on line {line}); decoded as {encoding}, the most likely "
        "encoding: check accented and non-Latin letters, or save the file as UTF-8"
    )
    return Decoded(_normalise(text), encoding, warning)

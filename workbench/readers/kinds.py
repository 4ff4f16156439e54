"""What a file that is not a bibliography looks like, in a few words, from its first bytes.

A source folder may hold anything, and a link may lead anywhere (``shadow.csv -> /etc/shadow``):
a file no reader recognises is reported by its name and its kind only (``an SQLite database``,
``lines of colon-separated fields, as in /etc/passwd``), never by a piece of its content, which
would be printed and saved in the review's build.json and record cache for anyone who can read
them. :func:`describe` gives that kind.
"""

from __future__ import annotations

import re

__all__ = ["describe", "describe_binary"]

#: First bytes -> what the file is.
_MAGIC = (
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "an image (PNG)"),
    (b"\xff\xd8\xff", "an image (JPEG)"),
    (b"GIF8", "an image (GIF)"),
    (b"RIFF", "audio, video or an image (RIFF)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x7fELF", "a program (an ELF executable or library)"),
    (b"MZ", "a Windows program"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file (.doc, .xls, .msg)"),
    (b"PK\x03\x04", "a zip file (an Office document?)"),
    (b"{\\rtf", "an RTF document"),
    (b"-----BEGIN", "a key or a certificate (PEM)"),
    (b"ssh-", "an SSH key"),
    (b"#!", "a script"),
    (b"\x00asm", "a WebAssembly program"),
    (b"\xca\xfe\xba\xbe", "a compiled program (Java class or Mach-O)"),
)
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_COLON_LINE = re.compile(r"^[^\s:]*(?::[^:\n]*){2,}$")
_SETTING_LINE = re.compile(r"^\s*(?:[#;].*|\[[^\]]+\]|[\w.\-]+\s*[=:]\s*.*)?$")


def describe_binary(head: bytes) -> str:
    """What the file starting with ``head``, which is not text, is: ``"a PDF document"`` ...,
    else ``"binary data"``."""
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return next((kind for magic, kind in _MAGIC if stripped.startswith(magic)), "binary data")


def describe(head: bytes, text: str | None = None) -> str:
    """What the file starting with ``head`` (its first bytes; ``text``: them decoded, when they
    are text) looks like: ``"an SQLite database"``, ``"plain text"`` ... Never a piece of it."""
    kind = describe_binary(head)
    if kind != "binary data":
        return kind
    sample = head[:4096]
    if not sample:
        return "nothing (an empty file)"
    if len(_CONTROL.findall(sample)) > 0.05 * len(sample) and text is None:
        return "binary data"
    text = text if text is not None else head.decode("utf-8", "replace")
    start = text.lstrip()[:200].lower()
    if start.startswith(("<!doctype html", "<html")) or "<html" in start:
        return "a web page (HTML)"
    if start.startswith("<?xml") or start.startswith("<"):
        return "XML of another kind"
    if start.startswith(("{", "[")):
        return "JSON without records"
    lines = [line for line in text.split("\n")[:200] if line.strip()]
    if not lines:
        return "white space only"
    if sum(bool(_COLON_LINE.match(line)) for line in lines) >= 0.8 * len(lines):
        return "lines of colon-separated fields, as in /etc/passwd"
    if sum(bool(_SETTING_LINE.match(line)) for line in lines) >= 0.8 * len(lines):
        return "a settings file (name = value lines)"
    return "plain text"

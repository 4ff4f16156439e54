"""Text for a terminal: user data is shown, never obeyed.

A tag, a title, a note or a file name can hold control characters: an ESC that starts a colour
or moves the cursor, a BEL, a carriage return or backspaces that overwrite what was printed
before, C1 controls (which some terminals obey like ESC sequences), or the bidi controls that
reverse the text around them (U+202A-U+202E, U+2066-U+2069). Printed raw, they let data rewrite
what a user reads. Every message the command line prints (errors, history, confirmations, read
reports, tables) goes through :func:`visible`, which shows them escaped as Python writes them
(``\\x1b``, ``\\r``, ``\\u202e``). Data outputs (``--format csv|json``, exports written to
standard output) are left byte-exact: they are for programs, not for reading on a terminal.
"""

from __future__ import annotations

import re

__all__ = ["visible"]

# C0 and C1 controls, DEL, and the characters that reorder or break lines: bidi marks and
# embeddings/overrides/isolates, the Arabic letter mark, and the Unicode line/paragraph breaks.
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    code = ord(ch)
    return _NAMED.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text, keep: str = "") -> str:
    """``text`` with every control character written out (``\\x1b``), except those in ``keep``.

    A one-line message keeps nothing, so data cannot start a new line; pass ``keep="\\n"`` for
    text whose line breaks are the program's own (and whose data has none).
    """
    text = str(text)
    if not _HIDDEN.search(text):
        return text
    return _HIDDEN.sub(lambda m: m.group(0) if m.group(0) in keep else _escape(m.group(0)), text)

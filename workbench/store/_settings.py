"""The review's settings: values kept in the store's ``meta`` table, one row each.

A setting lives at the key ``setting:<name>``; setting or clearing one is a user action with
its own history entry, which undo takes back. Only the names in :data:`SETTINGS` exist, so a
typo is an error instead of a value nobody reads.
"""

from __future__ import annotations

import re
import sqlite3

from ._errors import AnnotationInputError
from ._history import Action

__all__ = ["SETTINGS", "read_settings", "set_setting"]

#: name -> what it is (shown by ``workbench title --help`` and in errors).
SETTINGS = {
    "title": "the review's title, the heading of its report (default: the review folder's name)",
}
_MAX_LENGTH = 200
_PREFIX = "setting:"
# Control characters and the bidi controls that reorder text on screen.
_REFUSED = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def check_setting(name, value) -> str | None:
    """The value as the store keeps it: one line, white space folded; None (or blank) clears."""
    if name not in SETTINGS:
        raise AnnotationInputError(f"no review setting {name!r}; the settings are: "
                                   + ", ".join(f"{k} ({v})" for k, v in SETTINGS.items()))
    if value is None:
        return None
    if not isinstance(value, str):
        raise AnnotationInputError(f"{name} {value!r}: expected text, or None to go back to the default")
    if _REFUSED.search(value):
        raise AnnotationInputError(f"{name} {value!r} holds control characters; expected one line of text")
    value = " ".join(value.split())
    if len(value) > _MAX_LENGTH:
        raise AnnotationInputError(f"{name} has {len(value)} characters; expected at most {_MAX_LENGTH}")
    return value or None


def read_settings(conn: sqlite3.Connection) -> dict[str, str]:
    """The settings that are set, by name."""
    rows = conn.execute("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?",
                        (len(_PREFIX), _PREFIX)).fetchall()
    return {key[len(_PREFIX):]: value for key, value in rows if key[len(_PREFIX):] in SETTINGS}


def set_setting(conn: sqlite3.Connection, reviewer: str, name: str, value) -> str | None:
    """Set (or, with None or blank text, clear) one setting; returns the value kept."""
    value = check_setting(name, value)
    with Action(conn, reviewer, "setting") as act:
        act.put("meta", {"key": _PREFIX + name}, None if value is None else {"value": value})
        act.summary = f"{name} set to {value!r}" if value is not None else f"{name} back to its default"
    return value

"""Who makes a change: a reviewer's name, checked and written the same way from every face.

A name comes from ``--reviewer`` on the command line, ``reviewer=`` in Python (``Store.open``,
``Review.store``, a widget session, the name box of the team view), the environment variable
``$WORKBENCH_REVIEWER``, or else the OS user. Each goes through :func:`check_reviewer`, so
``"alice "``, ``" alice"`` and ``"alice"`` are one reviewer everywhere (white space trimmed and
folded, Unicode composed), and a name that could not be shown as typed (control characters
such as ESC, bidi and zero-width controls) or is longer than :data:`MAX_REVIEWER` characters is
refused with a line saying so, before anything is saved.
"""

from __future__ import annotations

import getpass
import os
import re
import unicodedata

from ._errors import AnnotationInputError

__all__ = ["LABELS_REVIEWER", "MAX_REVIEWER", "REVIEWER_ENV", "check_reviewer", "default_reviewer"]

REVIEWER_ENV = "WORKBENCH_REVIEWER"
#: The reviewer of the decisions a build reads from labels in the source files (``label_included``).
LABELS_REVIEWER = "source-file"
#: The longest reviewer name, in characters.
MAX_REVIEWER = 100
# Control characters, and the invisible ones that reorder or hide text (bidi marks and
# overrides, zero-width space, word joiner, byte order mark); ZWJ/ZWNJ stay (names need them).
_REFUSED = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")


def check_reviewer(name, where: str = "reviewer") -> str:
    """``name`` as the store records it: Unicode composed (NFC), white space trimmed and folded
    to single spaces. Refuses (:class:`AnnotationInputError`) what is not text, is empty, holds a
    control or invisible formatting character, or is longer than :data:`MAX_REVIEWER`;
    ``where`` says where the name came from (``--reviewer``, ``$WORKBENCH_REVIEWER``)."""
    if not isinstance(name, str):
        raise AnnotationInputError(f"{where} {name!r}: expected a name such as 'ana'")
    text = " ".join(unicodedata.normalize("NFC", name).split())
    if not text:
        raise AnnotationInputError(f"{where} {name!r} is empty; expected a name such as 'ana'")
    bad = _REFUSED.search(text)
    if bad:
        raise AnnotationInputError(
            f"{where} {text!r} holds the invisible character U+{ord(bad.group(0)):04X}, which would show "
            "differently from what was typed; type the name without it")
    if len(text) > MAX_REVIEWER:
        raise AnnotationInputError(f"{where} of {len(text)} characters; expected at most {MAX_REVIEWER} "
                                   "(a name such as 'Ana Lima')")
    return text


def default_reviewer(reviewer: str | None = None) -> str:
    """``reviewer`` if given (not None or blank), else ``$WORKBENCH_REVIEWER``, else the OS user
    name, each through :func:`check_reviewer` (an OS user name it refuses becomes "unknown")."""
    if reviewer is not None and (not isinstance(reviewer, str) or reviewer.strip()):
        return check_reviewer(reviewer)
    env = os.environ.get(REVIEWER_ENV)
    if env is not None and env.strip():
        return check_reviewer(env, f"${REVIEWER_ENV}")
    try:
        return check_reviewer(getpass.getuser(), "the OS user name")
    except (KeyError, OSError, ImportError, AnnotationInputError):  # no usable user name (some containers)
        return "unknown"

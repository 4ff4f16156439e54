"""The review's settings and its log of stopping claims, kept in the store's ``meta`` table.

A setting lives at the key ``setting:<name>``; setting or clearing one is a user action with
its own history entry, which undo takes back. Only the names in :data:`SETTINGS` exist, so a
typo is an error instead of a value nobody reads.

A stopping claim (what a screening stopping rule allows the reviewer to write, e.g. "recall >=
95 % with 95 % confidence", with the rule and its numbers: ``StoppingAdvice.to_dict()`` of
``workbench.screening``) is logged at the key ``stopping-claim:<time>:<reviewer>`` as JSON
(with the time and reviewer), one row per claim and one action in the history each;
:func:`read_stopping_claims` gives them back, oldest first, for the report.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field

from ._errors import AnnotationInputError
from ._history import Action

__all__ = ["SETTINGS", "StoppingClaim", "log_stopping_claim", "read_settings", "read_stopping_claims",
           "set_setting"]

#: name -> what it is (shown by ``workbench title --help`` and in errors).
SETTINGS = {
    "title": "the review's title, the heading of its report (default: the review folder's name)",
    "criteria": "the review's inclusion criteria, a short text shown beside every card (default: none)",
    "blind": "blind mode, 'on' or 'off': a reviewer sees another's decisions, tags and notes on a "
             "paper only once both screened it (default: off)",
    "reviewers_per_paper": "how many reviewers screen each paper, 1 (single screening) or 2 and up "
                           "(double screening; default: 2 in blind mode, else 1)",
}
_MAX_LENGTH = 200
_MAX_CRITERIA = 4000
_ON, _OFF = ("on", "true", "yes", "1"), ("off", "false", "no", "0")
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
    if name == "criteria":
        return _check_text(value)
    if name in ("blind", "reviewers_per_paper"):
        return _check_choice(name, value)
    if _REFUSED.search(value):
        raise AnnotationInputError(f"{name} {value!r} holds control characters; expected one line of text")
    value = " ".join(value.split())
    if len(value) > _MAX_LENGTH:
        raise AnnotationInputError(f"{name} has {len(value)} characters; expected at most {_MAX_LENGTH}")
    return value or None


def _check_text(value: str) -> str | None:
    """Criteria: lines kept (each with its white space folded), blank lines at the ends dropped."""
    bad = _REFUSED.search(value.replace("\r\n", "\n"))
    if bad:  # said by position, never by content: criteria may come from a file (--file)
        line = value.replace("\r\n", "\n")[:bad.start()].count("\n") + 1
        raise AnnotationInputError(f"the criteria hold the control character U+{ord(bad.group(0)):04X} on line "
                                   f"{line}; expected plain text")
    value = "\n".join(" ".join(line.split()) for line in value.splitlines()).strip("\n")
    if len(value) > _MAX_CRITERIA:
        raise AnnotationInputError(f"criteria have {len(value)} characters; expected at most {_MAX_CRITERIA} "
                                   "(a short text; put the protocol in a file and name it here)")
    return value or None


def _check_choice(name: str, value: str) -> str | None:
    word = value.strip().lower()
    if not word:
        return None
    if name == "blind" and word in _ON + _OFF:
        return "on" if word in _ON else "off"
    if name == "reviewers_per_paper" and word.isdigit() and 1 <= int(word) <= 9:
        return str(int(word))
    expected = "'on' or 'off'" if name == "blind" else "a whole number from 1 to 9"
    raise AnnotationInputError(f"{name} {value!r}: expected {expected}")


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
        shown = value if value is None or len(value) <= 60 else value[:59] + "…"
        act.summary = f"{name} set to {shown!r}" if value is not None else f"{name} back to its default"
    return value


# ----------------------------------------------------------------------------- stopping claims

_CLAIM = "stopping-claim:"


@dataclass(frozen=True)
class StoppingClaim:
    """A stopping rule's verdict as logged: when, by whom, the rule, whether it says stop, the
    claim in words and the rule's numbers."""

    at: str
    reviewer: str
    rule: str
    stop: bool
    claim: str
    numbers: dict = field(default_factory=dict)


def _check_claim(advice) -> dict:
    """rule, stop, claim and numbers of ``advice`` as the log keeps them, or a one-line error."""
    if hasattr(advice, "to_dict"):
        advice = advice.to_dict()
    expected = ("expected a mapping with rule (text), stop (True or False), claim (text, not "
                "blank) and numbers (a mapping), as StoppingAdvice.to_dict() gives")
    if not isinstance(advice, Mapping):
        raise AnnotationInputError(f"stopping claim {advice!r}: {expected}")
    rule, stop, claim, numbers = (advice.get(k) for k in ("rule", "stop", "claim", "numbers"))
    numbers = {} if numbers is None else numbers
    if not (isinstance(rule, str) and isinstance(stop, bool) and isinstance(claim, str)
            and claim.strip() and isinstance(numbers, Mapping)):
        raise AnnotationInputError(f"stopping claim {dict(advice)!r}: {expected}")
    try:
        numbers = json.loads(json.dumps(dict(numbers), allow_nan=False))
    except (TypeError, ValueError) as err:
        raise AnnotationInputError(f"stopping claim numbers {numbers!r} cannot be kept as JSON "
                                   f"({err}); give plain numbers, text and lists") from err
    return {"rule": rule, "stop": stop, "claim": " ".join(claim.split()), "numbers": numbers}


def log_stopping_claim(conn: sqlite3.Connection, reviewer: str, advice) -> StoppingClaim:
    """Log one stopping rule's verdict (a mapping or an object with ``to_dict()``)."""
    entry = _check_claim(advice)
    with Action(conn, reviewer, "stopping-claim") as act:
        act.put("meta", {"key": f"{_CLAIM}{act.at}:{reviewer}"},
                {"value": json.dumps({"at": act.at, "reviewer": reviewer, **entry},
                                     sort_keys=True, ensure_ascii=False)})
        act.summary = f"stopping claim ({entry['rule']}): {entry['claim']}"
    return StoppingClaim(act.at, reviewer, **entry)


def read_stopping_claims(conn: sqlite3.Connection) -> list[StoppingClaim]:
    """Every logged stopping claim, oldest first."""
    rows = conn.execute("SELECT key, value FROM meta WHERE substr(key, 1, ?) = ? ORDER BY key",
                        (len(_CLAIM), _CLAIM)).fetchall()
    fields = ("at", "reviewer", "rule", "stop", "claim", "numbers")
    return [StoppingClaim(**{k: v for k, v in json.loads(value).items() if k in fields})
            for _, value in rows]

"""The team's exclusion reasons, and the review's sources with their search provenance.

- The exclusion reasons are a list the team agrees on (``workbench reasons``), in order, so
  that counts per reason are exact: a reason typed with other capitals or spacing is kept in
  the list's spelling (:func:`agreed_reason`); free text is still allowed.
- Each source file of the last build is a row of ``sources``: where it was searched (a
  bibliographic database or a trials register, by name), the query string and the date searched
  (PRISMA-S), asked once at build and kept across rebuilds of the same file, and its counts for
  PRISMA's identification boxes (records identified, skipped, merged as duplicates).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from pathlib import PurePath

from ._errors import AnnotationInputError
from ._history import Action
from ._reports import ExclusionReason, Source
from ._schema_v6 import SOURCE_KINDS

__all__ = ["KINDS", "add_reason", "agreed_reason", "check_date", "check_provenance", "reasons", "record_sources",
           "remove_reason", "set_provenance", "sources"]

KINDS = SOURCE_KINDS  # a database, a register, or another method (citation searching...)
_REFUSED = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SOURCE_COLUMNS = ("path", "name", "kind", "query", "searched_on", "format", "identified", "skipped", "merged",
                   "in_build")


def _line(value, what: str, longest: int) -> str:
    if not isinstance(value, str) or not " ".join(value.split()):
        raise AnnotationInputError(f"{what} {value!r}: expected some text")
    value = " ".join(value.split())
    if _REFUSED.search(value) or len(value) > longest:
        raise AnnotationInputError(f"{what} {value[:60]!r}: expected one line of at most {longest} characters "
                                   "without control characters")
    return value


# ----------------------------------------------------------------------------- exclusion reasons

def reasons(conn: sqlite3.Connection) -> list[ExclusionReason]:
    return [ExclusionReason(*r) for r in conn.execute(
        "SELECT name, description, position FROM exclusion_reasons ORDER BY position, name")]


def _listed(conn: sqlite3.Connection, name: str) -> str | None:
    row = conn.execute("SELECT name FROM exclusion_reasons WHERE lower(name) = lower(?)", (name,)).fetchone()
    return None if row is None else row[0]


def agreed_reason(conn: sqlite3.Connection, reason: str | None) -> str | None:
    """``reason`` in the spelling of the team's list when it is one of them (capitals and spacing
    aside), else as given."""
    if not isinstance(reason, str) or not reason.strip():
        return reason
    return _listed(conn, " ".join(reason.split())) or reason


def add_reason(conn: sqlite3.Connection, reviewer: str, name, description: str = "") -> ExclusionReason:
    """Add a reason at the end of the list (or give a listed one a new description)."""
    name = _line(name, "exclusion reason", 100)
    description = "" if description is None else " ".join(str(description).split())
    with Action(conn, reviewer, "reason") as act:
        listed = _listed(conn, name)
        if listed is not None:
            row = act.get("exclusion_reasons", {"name": listed})
            act.put("exclusion_reasons", {"name": listed}, {**row, "description": description or row["description"]})
            act.summary = f"exclusion reason {listed!r} described"
            return ExclusionReason(listed, description or row["description"], row["position"])
        position = conn.execute("SELECT coalesce(max(position), 0) + 1 FROM exclusion_reasons").fetchone()[0]
        act.put("exclusion_reasons", {"name": name}, {"description": description, "position": position,
                                                       "created_by": reviewer, "created_at": act.at})
        act.summary = f"exclusion reason {name!r} added"
    return ExclusionReason(name, description, position)


def remove_reason(conn: sqlite3.Connection, reviewer: str, name) -> bool:
    """Take a reason off the list (decisions that gave it keep it as free text)."""
    listed = _listed(conn, _line(name, "exclusion reason", 100))
    if listed is None:
        return False
    with Action(conn, reviewer, "reason") as act:
        act.put("exclusion_reasons", {"name": listed}, None)
        act.summary = f"exclusion reason {listed!r} removed"
    return True


# ----------------------------------------------------------------------------- sources

def check_provenance(*, name=None, kind=None, query=None, searched_on=None) -> dict:
    """The provenance fields given, as the store keeps them (None: not given)."""
    out = {}
    if name is not None:
        out["name"] = _line(name, "database name", 200)
    if kind is not None:
        if kind not in KINDS:
            raise AnnotationInputError(f"source kind {kind!r}: expected one of {', '.join(KINDS)}")
        out["kind"] = kind
    if query is not None:
        out["query"] = _line(query, "search query", 4000)
    if searched_on is not None:
        out["searched_on"] = check_date(searched_on, "date searched")
    return out


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_date(value, what: str = "date") -> str:
    """``value`` as the store keeps a date, ``YYYY-MM-DD`` (a real day: 2026-13-45 and 2025-02-29
    are refused): the one check of every date a person gives (the date a source was searched,
    ``update --new --since``, the date of an update), from the command line or Python."""
    if isinstance(value, datetime):
        value = value.date()
    text = value.isoformat() if isinstance(value, date) else str(value if value is not None else "").strip()
    try:
        if _DATE.fullmatch(text):
            return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise AnnotationInputError(f"{what} {value!r} is not a date; expected YYYY-MM-DD with a real month and "
                               "day, e.g. 2024-05-01")


def sources(conn: sqlite3.Connection, in_build: bool = True) -> list[Source]:
    """The sources of the last build (``in_build=False``: also those of earlier builds), by path."""
    rows = conn.execute(f"SELECT {', '.join(_SOURCE_COLUMNS)} FROM sources WHERE in_build >= ? ORDER BY path",
                        (int(in_build),)).fetchall()
    return [Source(**{**dict(zip(_SOURCE_COLUMNS, r)), "in_build": bool(r[-1])}) for r in rows]


def _default_name(path: str) -> str:
    """A source's name until one is given: its file name without the suffix."""
    return PurePath(path).stem or path


def record_sources(conn: sqlite3.Connection, reviewer: str, rows: Iterable[Mapping]) -> list[Source]:
    """Record the source files of a build: ``path``, ``format``, ``identified``, ``skipped``,
    ``merged`` and any provenance given (``name``, ``kind``, ``query``, ``searched_on``). A file
    recorded before keeps the provenance it was given then; files no longer read stay (their
    provenance remembered) but leave the build. Not undoable: it is part of the build."""
    with Action(conn, reviewer, "sources", undoable=False) as act:
        known = {s.path: s for s in sources(conn, in_build=False)}
        names: dict[str, list] = {}
        for s in known.values():
            names.setdefault(PurePath(s.path).name, []).append(s)
        seen = set()
        for row in rows:
            path = str(row["path"])
            given = check_provenance(**{k: row.get(k) for k in ("name", "kind", "query", "searched_on")})
            same_name = names.get(PurePath(path).name, [])  # the same file, read from another folder
            old = known.get(path) or (same_name[0] if len(same_name) == 1 else None)
            kept = {k: getattr(old, k) for k in ("name", "kind", "query", "searched_on")} if old else {}
            merged = {"name": _default_name(path), "kind": "database", "query": None, "searched_on": None,
                      **kept, **given}
            counts = {k: int(row.get(k) or 0) for k in ("identified", "skipped", "merged")}
            act.put("sources", {"path": path}, {**merged, "format": str(row.get("format") or ""), **counts,
                                                "in_build": 1, "recorded_at": act.at})
            seen.add(path)
        for path, old in known.items():
            if path not in seen and old.in_build:
                row = act.get("sources", {"path": path})
                act.put("sources", {"path": path}, {**row, "in_build": 0})
        act.summary = f"sources of the build: {len(seen)} files"
    return sources(conn)


def set_provenance(conn: sqlite3.Connection, reviewer: str, path: str, **fields) -> Source:
    """Give a source its provenance (database or register name, query, date searched) after the
    build; ``path`` is the source's path or its file name when that is unique."""
    given = check_provenance(**fields)
    known = sources(conn, in_build=False)
    found = [s for s in known if s.path == path] or [s for s in known if PurePath(s.path).name == path]
    if len(found) != 1:
        listed = ", ".join(s.path for s in known[:8]) or "none (build the review first)"
        what = "matches several sources" if found else "is not a source of this review"
        raise AnnotationInputError(f"{path!r} {what}; the sources are: {listed}")
    with Action(conn, reviewer, "provenance") as act:
        row = act.get("sources", {"path": found[0].path})
        act.put("sources", {"path": found[0].path}, {**row, **given})
        act.summary = f"provenance of {found[0].path}: " + ", ".join(f"{k} {v!r}" for k, v in given.items())
    return [s for s in sources(conn, in_build=False) if s.path == found[0].path][0]

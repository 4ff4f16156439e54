"""Merging a JSONL export into a store: idempotent, conflicts reported, one undoable action.

Papers the store does not know are added (outside the corpus, so reported as orphaned until a
sync brings them in); tags are unioned; notes are matched by their ``uid`` and decisions by
(paper, reviewer), and when both sides changed the same one the newer wins and the conflict
is reported. Topic names travel by membership: into a store without topics the exported topics
become its first run; otherwise they are matched to the current run like a refit.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from datetime import datetime
from pathlib import Path

from ._annotations import check_colour, check_decision, check_reason, check_tag, check_text
from ._errors import AnnotationInputError
from ._export import JSONL_FORMAT, JSONL_VERSION
from ._history import Action
from ._papers import META_COLUMNS, check_id
from ._reports import ImportReport
from ._topics import OUTLIER, _assignments, latest_run, match_topics, record_run, topic_names

__all__ = ["import_jsonl", "read_jsonl"]

def _str(value) -> str:
    if not isinstance(value, str):
        raise AnnotationInputError(f"{value!r}: expected text")
    return value


def _str_or_none(value) -> str | None:
    return None if value is None else _str(value)


def _int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AnnotationInputError(f"{value!r}: expected a whole number")
    return value


def _int_or_none(value) -> int | None:
    return None if value is None else _int(value)


def _str_list(value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AnnotationInputError(f"{value!r}: expected a list of strings ([] for none)")
    return value


def _name(value) -> str:
    """A reviewer's name, as ``--reviewer NAME`` gives it: white space collapsed, not empty."""
    if not isinstance(value, str) or not value.strip():
        raise AnnotationInputError(f"{value!r}: expected a reviewer's name")
    return " ".join(value.split())


def _uid(value) -> str:
    if not isinstance(value, str) or not value or len(value) > 64 or any(c.isspace() for c in value):
        raise AnnotationInputError(f"{value!r}: expected the note's uid (up to 64 characters, "
                                   "no spaces)")
    return value


def _time(value) -> str:
    """A time stamp as the store writes them (``2024-05-01T09:30:00.123456Z``); ISO 8601."""
    try:
        datetime.fromisoformat(_str(value))
    except (AnnotationInputError, ValueError) as err:
        raise AnnotationInputError(
            f"{value!r}: expected an ISO 8601 time such as '2024-05-01T09:30:00.123456Z'") from err
    return value


def _topic_label(value) -> str | None:
    if value is None:
        return None
    return " ".join(_str(value).split()) or None


# Per record type: (key, check, required). Each check returns the value as the store keeps it
# (a tag as ``check_tag`` gives it, a decision in lower case, a reason stripped, ...) or raises.
# Keys not listed are ignored, so a file from a newer workbench with more keys still imports.
_FIELDS = {
    "header": (("format", _str, True), ("version", _int, True)),
    "topic": (("topic", _int, True), ("label", _str_or_none, False),
              ("name", _topic_label, False), ("words", _str_list, False)),
    "tag": (("name", check_tag, True), ("description", _str_or_none, False),
            ("colour", check_colour, False), ("created_by", _str_or_none, False),
            ("created_at", lambda v: None if v is None else _time(v), False)),
    "paper": (("id", check_id, True), ("title", _str_or_none, False),
              ("abstract", _str_or_none, False), ("authors", _str_list, False),
              ("year", _int_or_none, False), ("doi", _str_or_none, False),
              ("venue", _str_or_none, False), ("url", _str_or_none, False),
              ("keywords", _str_list, False), ("collection", _str_or_none, False),
              ("source", _str_or_none, False), ("topic", _int_or_none, False)),
    "tagged": (("paper", check_id, True), ("tag", check_tag, True), ("reviewer", _name, True),
               ("at", _time, True)),
    "note": (("paper", check_id, True), ("uid", _uid, True), ("text", check_text, True),
             ("reviewer", _name, True), ("created_at", _time, True),
             ("updated_at", _time, True)),
    "decision": (("paper", check_id, True), ("reviewer", _name, True),
                 ("decision", check_decision, True), ("reason", check_reason, False),
                 ("at", _time, True)),
}


def _record(obj, where: str) -> tuple[str, dict]:
    """``(type, record)`` with every value checked and kept as the store keeps it."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    if kind not in _FIELDS:
        raise AnnotationInputError(
            f"{where}: record type {kind!r} is unknown; expected one of {', '.join(_FIELDS)}")
    missing = [k for k, _, required in _FIELDS[kind] if required and k not in obj]
    if missing:
        raise AnnotationInputError(f"{where}: {kind} record lacks {', '.join(missing)}")
    record = dict(obj)
    for key, check, _ in _FIELDS[kind]:
        if key in obj:
            try:
                record[key] = check(obj[key])
            except AnnotationInputError as err:
                raise AnnotationInputError(f"{where}: {kind} record, {key}: {err}; nothing was "
                                           "imported, fix this line and import again") from err
    return kind, record


def read_jsonl(path: Path) -> dict[str, list[dict]]:
    """The records of a JSONL export, by type, every value checked as the command line checks
    it; the first bad value is an error naming the file and line."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise AnnotationInputError(
            f"cannot read {path} ({err}); expected a .jsonl file from `workbench export "
            "--format jsonl`") from err
    records: dict[str, list[dict]] = {kind: [] for kind in _FIELDS}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise AnnotationInputError(f"{path}:{n}: not JSON ({err.msg}); expected one JSON "
                                       "object per line") from err
        kind, record = _record(obj, f"{path}:{n}")
        records[kind].append(record)
    header = records["header"]
    version = header[0]["version"] if header else None
    if not header or header[0]["format"] != JSONL_FORMAT or version > JSONL_VERSION:
        got = header[0] if header else "no header line"
        raise AnnotationInputError(
            f"{path} is not a workbench annotations export (header: {got}); expected a first "
            f"line with format {JSONL_FORMAT!r} and version <= {JSONL_VERSION}")
    return records


def _add_papers(conn, records, referenced) -> int:
    known = {r[0] for r in conn.execute("SELECT id FROM papers")}
    rows = {}
    for p in records["paper"]:
        if p["id"] not in known:
            rows[p["id"]] = (
                p["id"], str(p.get("title") or ""), str(p.get("abstract") or ""),
                json.dumps(list(p.get("authors") or []), ensure_ascii=False), p.get("year"),
                p.get("doi"), p.get("venue"), p.get("url"),
                json.dumps(list(p.get("keywords") or []), ensure_ascii=False),
                str(p.get("collection") or ""), str(p.get("source") or ""))
    for pid in referenced - known - set(rows):  # annotated but no paper line: a stub
        rows[pid] = (pid, "", "", "[]", None, None, None, None, "[]", "", "")
    cols = ("id",) + META_COLUMNS
    conn.executemany(
        f"INSERT INTO papers ({', '.join(cols)}, in_corpus) "
        f"VALUES ({', '.join('?' * len(cols))}, 0)", sorted(rows.values()))
    return len(rows)


def _import_topics(act: Action, records, added: Counter, conflicts: list) -> None:
    conn = act.conn
    assign = {p["id"]: int(p["topic"]) for p in records["paper"] if p.get("topic") is not None}
    if not assign:
        return
    exported = {int(t["topic"]): t for t in records["topic"]}
    latest = latest_run(conn, required=False)
    if latest is None:
        labels = {t: str(v.get("label") or "") for t, v in exported.items()}
        words = {t: [str(w) for w in v.get("words") or []] for t, v in exported.items()}
        record_run(act, assign, labels, words)
        matched = {t: t for t in exported}
        run, topic_tid, _ = latest_run(conn)
    else:
        run, topic_tid, _ = latest
        m = match_topics(assign, _assignments(conn, run))
        matched = {theirs: ours for ours, theirs in m["matched"].items()}
    names = topic_names(conn)
    for theirs, ours in sorted(matched.items()):
        name = exported.get(theirs, {}).get("name")
        if not name or ours not in topic_tid or ours == OUTLIER:
            continue
        tid = topic_tid[ours]
        if names.get(tid) == name:
            continue
        if names.get(tid):
            conflicts.append(f"topic {ours} is named {names[tid]!r} here and {name!r} in the "
                             "file; kept this store's name")
            continue
        act.insert("topic_edits", {"kind": "rename", "tid": tid, "into_tid": None,
                                   "paper_id": None, "label": name, "reviewer": act.reviewer,
                                   "created_at": act.at})
        added["topic names"] += 1


def import_jsonl(conn: sqlite3.Connection, reviewer: str, path) -> ImportReport:
    """Merge the JSONL export at ``path`` into the store; see the module docstring."""
    records = read_jsonl(Path(path))
    added: Counter = Counter()
    conflicts: list[str] = []
    referenced = {r["paper"] for kind in ("tagged", "note", "decision") for r in records[kind]}
    with Action(conn, reviewer, "import") as act:
        added["papers"] = _add_papers(conn, records, referenced)
        _import_vocab(act, records, reviewer, added, conflicts)
        unchanged = _import_tags(act, records, added)
        unchanged += _import_notes(act, conn, records, added, conflicts)
        unchanged += _import_decisions(act, records, added, conflicts)
        _import_topics(act, records, added, conflicts)
        act.summary = f"import {Path(path).name}: " + ", ".join(
            f"{n} {kind}" for kind, n in sorted(added.items()) if n) + (
            f"; {len(conflicts)} conflicts" if conflicts else "")
    return ImportReport(added=dict(added), unchanged=unchanged, conflicts=tuple(conflicts))


def _import_vocab(act: Action, records: dict, reviewer: str, added: Counter, conflicts: list) -> None:
    vocab = {t["name"]: t for t in records["tag"]}
    for rec in records["tagged"]:
        vocab.setdefault(rec["tag"], {"name": rec["tag"]})
    for name, t in sorted(vocab.items()):
        theirs = {"description": str(t.get("description") or ""), "colour": t.get("colour"),
                  "created_by": str(t.get("created_by") or reviewer),
                  "created_at": str(t.get("created_at") or act.at)}
        ours = act.get("tag_vocab", {"name": name})
        if ours is None:
            act.put("tag_vocab", {"name": name}, theirs)
            added["tags in the vocabulary"] += 1
        elif (ours["description"], ours["colour"]) != (theirs["description"], theirs["colour"]):
            fill = {k: ours[k] or theirs[k] for k in ("description", "colour")}
            if fill != {k: ours[k] for k in fill}:
                act.put("tag_vocab", {"name": name}, {**ours, **fill})
            if (fill["description"], fill["colour"]) != (theirs["description"], theirs["colour"]):
                conflicts.append(f"tag {name!r}: description/colour differ; kept this store's")


def _import_tags(act: Action, records: dict, added: Counter) -> int:
    unchanged = 0
    for rec in records["tagged"]:
        key = {"paper_id": rec["paper"], "tag": rec["tag"]}
        if act.get("paper_tags", key) is None:
            act.put("paper_tags", key, {"reviewer": rec["reviewer"], "created_at": rec["at"]})
            added["tags"] += 1
        else:
            unchanged += 1
    return unchanged


def _import_notes(act: Action, conn, records: dict, added: Counter, conflicts: list) -> int:
    unchanged = 0
    for rec in records["note"]:
        row = {k: str(rec[k]) for k in ("uid", "text", "reviewer", "created_at", "updated_at")}
        row["paper_id"] = rec["paper"]
        local = conn.execute("SELECT id FROM notes WHERE uid = ?", (rec["uid"],)).fetchone()
        if local is None:
            act.insert("notes", row)
            added["notes"] += 1
            continue
        ours = act.get("notes", {"id": local[0]})
        if ours["text"] == row["text"]:
            unchanged += 1
            continue
        newer = row["updated_at"] > ours["updated_at"]
        conflicts.append(
            f"note #{local[0]} on {rec['paper']} was edited on both sides; kept the "
            f"{'imported' if newer else 'local'} text (the newer)")
        if newer:
            act.put("notes", {"id": local[0]}, row)
    return unchanged


def _import_decisions(act: Action, records: dict, added: Counter, conflicts: list) -> int:
    unchanged = 0
    for rec in records["decision"]:
        key = {"paper_id": rec["paper"], "reviewer": str(rec["reviewer"])}
        theirs = {"decision": rec["decision"], "reason": rec.get("reason"),
                  "decided_at": str(rec["at"])}
        ours = act.get("decisions", key)
        if ours is None:
            act.put("decisions", key, theirs)
            added["decisions"] += 1
        elif (ours["decision"], ours["reason"]) == (theirs["decision"], theirs["reason"]):
            unchanged += 1
        else:
            newer = theirs["decided_at"] > ours["decided_at"]
            conflicts.append(
                f"decision of {key['reviewer']} on {rec['paper']}: {ours['decision']} here, "
                f"{theirs['decision']} in the file; kept the newer "
                f"({theirs['decision'] if newer else ours['decision']})")
            if newer:
                act.put("decisions", key, theirs)
    return unchanged

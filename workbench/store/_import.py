"""Merging a JSONL export into a store: idempotent, conflicts reported, one undoable action.

Papers the store does not know are added (outside the corpus, so reported as orphaned until a
sync brings them in); tags are unioned (each reviewer's kept as theirs); notes are matched by
their ``uid``, decisions by (paper, reviewer, stage) and final decisions by (paper, stage), so
two reviewers' decisions on a paper sit side by side and are never overwritten; when both sides
changed the same reviewer's decision (or a final one) the newer wins and the conflict is
reported. How a decision was made (its rank, score and model) comes with it. Topic names travel by membership: into a store without topics the exported topics
become its first run; otherwise they are matched to the current run like a refit.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from datetime import datetime
from pathlib import Path

from ._annotations import check_colour, check_decision, check_reason, check_tag, check_text
from ._stages import check_stage, check_stage_decision
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


def _context(value) -> dict:
    """How a decision was made, as an export writes it (rank, score, model, ..., bulk, sampled)."""
    if not isinstance(value, dict):
        raise AnnotationInputError(f"{value!r}: expected the decision's context (rank, score, model, ...)")
    rank, score = value.get("rank"), value.get("score")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
        raise AnnotationInputError(f"rank {rank!r}: expected a whole number >= 1, or null")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise AnnotationInputError(f"score {score!r}: expected a number, or null")
    return {"rank": rank, "score": None if score is None else float(score),
            "model": _str_or_none(value.get("model")), "model_version": _str_or_none(value.get("model_version")),
            "bulk": int(bool(value.get("bulk"))), "sampled": int(bool(value.get("sampled")))}


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
                 ("at", _time, True), ("stage", check_stage, False), ("context", _context, False)),
    "final": (("paper", check_id, True), ("stage", check_stage, True), ("decision", check_decision, True),
              ("reason", check_reason, False), ("by", _name, True), ("at", _time, True)),
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
    referenced = {r["paper"] for kind in ("tagged", "note", "decision", "final") for r in records[kind]}
    decided: list[tuple[str, str]] = []
    with Action(conn, reviewer, "import") as act:
        added["papers"] = _add_papers(conn, records, referenced)
        _import_vocab(act, records, reviewer, added, conflicts)
        unchanged = _import_tags(act, records, added)
        unchanged += _import_notes(act, conn, records, added, conflicts)
        unchanged += _import_decisions(act, records, added, conflicts, decided)
        unchanged += _import_finals(act, records, added, conflicts, decided)
        _import_topics(act, records, added, conflicts)
        act.summary = f"import {Path(path).name}: " + ", ".join(
            f"{n} {kind}" for kind, n in sorted(added.items()) if n) + (
            f"; {len(conflicts)} conflicts" if conflicts else "")
    return ImportReport(added=dict(added), unchanged=unchanged, conflicts=tuple(conflicts),
                        decided=tuple(dict.fromkeys(decided)))


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
        key = {"paper_id": rec["paper"], "tag": rec["tag"], "reviewer": rec["reviewer"]}
        if act.get("paper_tags", key) is None:
            act.put("paper_tags", key, {"created_at": rec["at"]})
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


def _stage_decision(rec: dict, stage: str) -> tuple[str, str | None]:
    try:
        return check_stage_decision(rec["decision"], rec.get("reason"), stage)
    except AnnotationInputError as err:
        raise AnnotationInputError(f"{rec['type']} on {rec['paper']}: {err}; "
                                   "nothing was imported") from err


def _import_decisions(act: Action, records: dict, added: Counter, conflicts: list, decided: list) -> int:
    unchanged = 0
    for rec in records["decision"]:
        stage = rec.get("stage") or "title_abstract"
        key = {"paper_id": rec["paper"], "reviewer": str(rec["reviewer"]), "stage": stage}
        decision, reason = _stage_decision(rec, stage)
        theirs = {"decision": decision, "reason": reason, "decided_at": str(rec["at"])}
        ours = act.get("decisions", key)
        if ours is not None and (ours["decision"], ours["reason"]) == (theirs["decision"], theirs["reason"]):
            unchanged += 1
            continue
        if ours is not None:
            newer = theirs["decided_at"] > ours["decided_at"]
            conflicts.append(
                f"decision of {key['reviewer']} on {rec['paper']}{'' if stage == 'title_abstract' else ' (full text)'}: "
                f"{ours['decision']} here, {theirs['decision']} in the file; kept the newer "
                f"({theirs['decision'] if newer else ours['decision']})")
            if not newer:
                continue
        act.put("decisions", key, theirs, before=ours)
        act.put("decision_context", key, rec.get("context"))  # none in the file: none known
        added["decisions"] += ours is None
        decided.append((rec["paper"], stage))
    return unchanged


def _import_finals(act: Action, records: dict, added: Counter, conflicts: list, decided: list) -> int:
    unchanged = 0
    for rec in records["final"]:
        key = {"paper_id": rec["paper"], "stage": rec["stage"]}
        decision, reason = _stage_decision(rec, rec["stage"])
        theirs = {"decision": decision, "reason": reason, "resolved_by": rec["by"], "resolved_at": rec["at"]}
        ours = act.get("final_decisions", key)
        if ours is not None and (ours["decision"], ours["reason"]) == (decision, reason):
            unchanged += 1
            continue
        if ours is not None:
            newer = theirs["resolved_at"] > ours["resolved_at"]
            conflicts.append(f"final decision on {rec['paper']} ({rec['stage']}): {ours['decision']} by "
                             f"{ours['resolved_by']} here, {decision} by {rec['by']} in the file; kept the newer")
            if not newer:
                continue
        act.put("final_decisions", key, theirs, before=ours)
        added["final decisions"] += ours is None
        decided.append((rec["paper"], rec["stage"]))
    return unchanged

"""Merging a JSONL export (read and checked by ``_jsonl``) into a store: idempotent, conflicts
reported, one undoable action.

An export whose papers are mostly not in this review (more than half of the papers it carries
were never in it: another review's export, most likely) is refused before anything is written,
unless ``allow_orphans``; a store that holds no paper yet takes any export. Papers the store does not know are added (outside the corpus,
so reported as orphaned until a sync brings them in; the report counts them); annotations on an
id a person merged into another paper here go to the paper it joined. Tags are unioned (each
reviewer's kept as theirs); notes are matched by their ``uid``, decisions by (paper, reviewer,
stage) and final decisions by (paper, stage), so two reviewers' decisions on a paper sit side by
side and are never overwritten; when both sides changed the same reviewer's decision (or a final
one) the newer wins and the conflict is reported. How a decision was made (its rank, score and
model) comes with it. Topic names travel by membership: into a store without topics the
exported topics become its first run; otherwise they are matched to the current run like a refit.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

from ._errors import AnnotationInputError
from ._history import Action
from ._jsonl import read_jsonl
from ._papers import META_COLUMNS, merge_chain, merged_into
from ._stages import check_stage_decision
from ._reports import ImportReport
from ._topics import OUTLIER, _assignments, latest_run, match_topics, record_run, topic_names

__all__ = ["FOREIGN_SHARE", "foreign_papers", "import_jsonl", "read_jsonl"]


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


#: An import is refused (without ``allow_orphans``) when more than this share of its papers is not
#: in the review: it is most likely another review's export.
FOREIGN_SHARE = 0.5


def foreign_papers(conn: sqlite3.Connection, records: dict, path, allow_orphans: bool = False) -> tuple[int, int]:
    """``(papers the export carries, those not in this review's corpus)``. More than
    :data:`FOREIGN_SHARE` of them unknown to the review (never in it: a paper that left the corpus
    was in it) is an error, unless ``allow_orphans``."""
    merges = merged_into(conn)
    carried = {p["id"] for p in records["paper"]} | {
        r["paper"] for kind in ("tagged", "note", "decision", "final") for r in records[kind]}
    carried = {merge_chain(pid, merges)[-1] for pid in carried}
    known = dict(conn.execute("SELECT id, in_corpus FROM papers"))
    unknown = len([pid for pid in carried if pid not in known])
    # (a store that holds no paper yet is filled from the export: there is no review to mismatch)
    if known and unknown and unknown > FOREIGN_SHARE * len(carried) and not allow_orphans:
        in_corpus = sum(1 for inside in known.values() if inside)
        raise AnnotationInputError(
            f"{path}: {unknown} of the {len(carried)} papers in it ({unknown / len(carried):.0%}) are not in "
            f"this review ({in_corpus} papers), so it is most likely another review's export; nothing was "
            "imported; import it into the review it came from, or import anyway with --allow-orphans "
            "(store.files.import_annotations(path, allow_orphans=True)): the annotations on papers not in this "
            "review are kept as orphans and come back if those papers join it")
    return len(carried), len([pid for pid in carried if not known.get(pid)])


def _to_joined(records: dict, merges: dict[str, str]) -> int:
    """Point each annotation on an id merged into another paper here at the paper it joined;
    returns how many ids were merged away."""
    moved = set()
    for kind in ("tagged", "note", "decision", "final"):
        for rec in records[kind]:
            joined = merge_chain(rec["paper"], merges)[-1]
            if joined != rec["paper"]:
                moved.add(rec["paper"])
                rec["paper"] = joined
    return len(moved)


def import_jsonl(conn: sqlite3.Connection, reviewer: str, path, allow_orphans: bool = False,
                 before=None) -> ImportReport:
    """Merge the JSONL export at ``path`` into the store; see the module docstring. ``before()``
    runs once the file is read and accepted, before anything is written (a snapshot)."""
    records = read_jsonl(Path(path))
    n_papers, orphans = foreign_papers(conn, records, path, allow_orphans)
    if before is not None:
        before()
    merged = _to_joined(records, merged_into(conn))
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
                        decided=tuple(dict.fromkeys(decided)), papers=n_papers, orphans=orphans,
                        merged=merged)


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

"""Annotations that move from one id to another: an id's carry-over, and a person's merge.

A paper's annotations move to another id in two cases: its id changed (a DOI came with a new
export, ``_papers.carry_over``: one record, the newer of a reviewer's two decisions stays), or a
person said two papers are one ("same paper", ``_verdicts``). Tags (each reviewer's), notes,
final decisions (the newer stays where both have one) and topic moves move; a decision moves
with how it was made (its ``decision_context``).

A merge keeps every reviewer's vote: where one reviewer voted on both papers and the votes
differ, both stay (the one on the merged-away paper where it was) and :func:`votes_kept` shows
the merged-away one as a second vote on the paper it joined, under ``"alice (on B)"``, so the
paper is a conflict in the conflicts queue until someone resolves it (or the reviewer's votes
agree again). One undo of the merge takes all of it back.
"""

from __future__ import annotations

import sqlite3

from ._history import Action
from ._reports import Decision

__all__ = ["move_annotations", "votes_kept"]


def move_annotations(act: Action, old: str, new: str, stay: tuple[str, ...] = (),
                     keep_votes: bool = False) -> list[str]:
    """Move the tags, notes, decisions, final decisions and topic moves of paper ``old`` to
    ``new`` inside ``act`` (where both have a tag, or a decision by the same reviewer, the
    newer stays); the tags of the reviewers in ``stay`` stay where they are. ``keep_votes`` (a
    merge): a reviewer's decision on ``old`` that differs from theirs on ``new`` stays on ``old``;
    returns those, one line each."""
    conn = act.conn
    for tag, who, at in conn.execute(
            "SELECT tag, reviewer, created_at FROM paper_tags WHERE paper_id = ?", (old,)).fetchall():
        if who in stay:
            continue
        act.put("paper_tags", {"paper_id": old, "tag": tag, "reviewer": who}, None)
        if act.get("paper_tags", {"paper_id": new, "tag": tag, "reviewer": who}) is None:
            act.put("paper_tags", {"paper_id": new, "tag": tag, "reviewer": who}, {"created_at": at})
    for (note_id,) in conn.execute("SELECT id FROM notes WHERE paper_id = ?", (old,)).fetchall():
        row = act.get("notes", {"id": note_id})
        act.put("notes", {"id": note_id}, {**row, "paper_id": new})
    kept = _move_decisions(act, old, new, keep_votes)
    _carry_finals(act, old, new)
    for (edit_id,) in conn.execute("SELECT id FROM topic_edits WHERE paper_id = ?", (old,)).fetchall():
        row = act.get("topic_edits", {"id": edit_id})
        act.put("topic_edits", {"id": edit_id}, {**row, "paper_id": new})
    return kept


def _vote(row: dict) -> str:
    return row["decision"] + (f" ({row['reason']})" if row["reason"] else "")


def _move_decisions(act: Action, old: str, new: str, keep_votes: bool) -> list[str]:
    kept = []
    for who, stage in act.conn.execute(
            "SELECT reviewer, stage FROM decisions WHERE paper_id = ? ORDER BY stage DESC, reviewer",
            (old,)).fetchall():
        key_old = {"paper_id": old, "reviewer": who, "stage": stage}
        key_new = {**key_old, "paper_id": new}
        mine, current = act.get("decisions", key_old), act.get("decisions", key_new)
        if keep_votes and current is not None and _vote(current) != _vote(mine):
            at = "" if stage == "title_abstract" else " at full text"
            kept.append(f"{who}'s votes{at} differ: {_vote(mine)} on {old}, {_vote(current)} on {new}")
            continue  # both stay: a conflict on ``new`` (votes_kept)
        act.put("decisions", key_old, None, before=mine)
        context = act.put("decision_context", key_old, None)
        if current is None or current["decided_at"] < mine["decided_at"]:
            act.put("decisions", key_new, mine, before=current)
            act.put("decision_context", key_new, context)
    return kept


def _carry_finals(act: Action, old: str, new: str) -> None:
    """A paper's final decisions move to its new id (the newer stays where both have one)."""
    for (stage,) in act.conn.execute("SELECT stage FROM final_decisions WHERE paper_id = ?", (old,)).fetchall():
        row = act.put("final_decisions", {"paper_id": old, "stage": stage}, None)
        current = act.get("final_decisions", {"paper_id": new, "stage": stage})
        if current is None or current["resolved_at"] < row["resolved_at"]:
            act.put("final_decisions", {"paper_id": new, "stage": stage}, row)


def votes_kept(conn: sqlite3.Connection, merges: dict[str, str], chain, stage: str | None,
               shown=None) -> list[Decision]:
    """The votes left on papers merged away (``merges``: ``{merged id: kept id}``; ``chain(pid)``
    the merges from ``pid`` on) as votes on the paper each joined, at ``stage`` (None: every
    stage): under the reviewer's name where they have no vote there, under ``"alice (on B)"``
    where it differs from theirs, left out where it is the same. ``shown(pid, reviewer, stage)``:
    whether the reader may see that vote where it was cast (blind mode; None: every vote)."""
    if not merges:
        return []
    ids = sorted(merges)
    found = conn.execute(
        f"SELECT paper_id, reviewer, decision, reason, decided_at, stage FROM decisions WHERE paper_id IN "
        f"({', '.join('?' * len(ids))}) AND (?{len(ids) + 1} IS NULL OR stage = ?{len(ids) + 1}) "
        "ORDER BY paper_id, stage DESC, reviewer", [*ids, stage]).fetchall()
    out = []
    for pid, who, decision, reason, at, at_stage in found:
        if shown is not None and not shown(pid, who, at_stage):
            continue
        into = chain(pid)[-1]
        theirs = conn.execute("SELECT decision, reason FROM decisions WHERE paper_id = ? AND reviewer = ? "
                              "AND stage = ?", (into, who, at_stage)).fetchone()
        if theirs is not None and tuple(theirs) == (decision, reason):
            continue
        name = who if theirs is None else f"{who} (on {pid})"
        out.append(Decision(paper_id=into, decision=decision, reviewer=name, decided_at=at, reason=reason,
                            stage=at_stage))
    return out

"""Tags and their vocabulary, notes, and screening decisions: writing them.

Reading them goes through ``_visible`` (blind mode lives there). Each public function here is one
user action: it opens an :class:`Action`, writes through it
(so the history records before and after), and commits. Paper ids are already resolved.
A tag is kept per reviewer (two reviewers' same tag on a paper are two rows, so blind mode can
show each only their own); a decision belongs to a stage (:data:`~workbench.corpus.paper.STAGES`).
"""

from __future__ import annotations

import re
import secrets
import sqlite3
import unicodedata

from ..corpus.paper import TITLE_ABSTRACT
from ._errors import AnnotationInputError
from ._history import Action
from ._stages import check_decision, check_reason, check_stage_decision

__all__ = [
    "MAX_NOTE",
    "ensure_tag",
    "named_tag",
    "add_note",
    "add_notes",
    "check_colour",
    "check_decision",
    "check_reason",
    "check_tag",
    "check_text",
    "decide",
    "delete_note",
    "edit_note",
    "tag",
    "untag",
]

_COLOUR_RE = re.compile(r"#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3}|[a-zA-Z]{3,20}")
_MAX_TAG = 100
#: The longest note, in characters (1 MiB of ASCII).
MAX_NOTE = 1 << 20


# Characters a tag may not hold: braces (LaTeX groups: BibTeX and the readers drop them), a ^
# before a digit or sign (the readers make it a superscript), control characters and the bidi
# controls that reorder text on screen (U+202A-U+202E, U+2066-U+2069).
_TAG_REFUSED = re.compile(r"[{}]|\^(?=[0-9+\-])|[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def check_tag(name) -> str:
    """A tag name with its white space collapsed (and Unicode composed, NFC); refuses what
    exports could not round-trip: ``,`` ``;`` ``{`` ``}``, ``^`` before a digit, control
    characters, and more than 100 characters."""
    if not isinstance(name, str):
        raise AnnotationInputError(f"tag {name!r}: expected a string such as 'relevant'")
    clean = unicodedata.normalize("NFC", " ".join(name.split()))
    if not clean:
        raise AnnotationInputError(f"tag {name!r} is empty; give a word such as 'relevant'")
    for bad in ",;":
        if bad in clean:
            raise AnnotationInputError(
                f"tag {name!r} contains {bad!r}, which BibTeX and CSV exports use between tags; "
                f"to give several tags, pass them separately: tag ID {' '.join(re.split('[,;]', clean))}"
            )
    m = _TAG_REFUSED.search(clean)
    if m and m.group(0) in "{}":
        raise AnnotationInputError(
            f"tag {name!r} contains {m.group(0)!r}: BibTeX reads braces as grouping and the "
            "readers drop them, so the tag would not come back from an export; use ( ) or [ ]")
    if m and m.group(0) == "^":
        raise AnnotationInputError(
            f"tag {name!r} has '^' before a digit or sign, which the readers turn into a "
            "superscript ('x^2' comes back as 'x²'); write 'x²', or put a space after the '^'")
    if m:
        raise AnnotationInputError(
            f"tag {name!r} contains the control character U+{ord(m.group(0)):04X}, which is "
            "invisible or changes how the text around it shows; type the tag without it")
    if len(clean) > _MAX_TAG:
        raise AnnotationInputError(
            f"tag of {len(clean)} characters is too long (at most {_MAX_TAG}); "
            "put longer text in a note"
        )
    return clean


def named_tag(conn: sqlite3.Connection, name) -> str:
    """The stored tag ``name`` means: exactly that name when a tag has it (so a tag saved under
    older, looser rules can always be removed or renamed), else :func:`check_tag`'s form."""
    if isinstance(name, str) and (
            conn.execute("SELECT 1 FROM tag_vocab WHERE name = ?", (name,)).fetchone()
            or conn.execute("SELECT 1 FROM paper_tags WHERE tag = ? LIMIT 1", (name,)).fetchone()):
        return name
    return check_tag(name)


def check_text(text, what: str = "note") -> str:
    """Note text as the store keeps it: stripped, NUL characters dropped (as every reader and
    export drops them); refuses what is not text, is empty, or is longer than :data:`MAX_NOTE`
    characters."""
    if isinstance(text, str) and "\x00" in text:
        text = text.replace("\x00", "")
    if not isinstance(text, str) or not text.strip():
        shown = text if not isinstance(text, str) or len(text) < 40 else text[:20] + "..."
        raise AnnotationInputError(f"{what} {shown!r} is empty; expected some text")
    if len(text) > MAX_NOTE:
        raise AnnotationInputError(f"{what} of {len(text):,} characters is too long; expected at most "
                                   f"{MAX_NOTE:,} (about 500 pages); keep the document in a file and note where it is")
    return text.strip()


def check_colour(colour) -> str | None:
    if colour is not None and not (isinstance(colour, str) and _COLOUR_RE.fullmatch(colour)):
        raise AnnotationInputError(
            f"colour {colour!r} is not usable; expected '#rrggbb', '#rgb' or a CSS colour name"
        )
    return colour


def ensure_tag(act: Action, name: str) -> None:
    if act.get("tag_vocab", {"name": name}) is None:
        act.put("tag_vocab", {"name": name}, {"description": "", "colour": None,
                                              "created_by": act.reviewer, "created_at": act.at})


def _short(ids: list[str]) -> str:
    return ids[0] if len(ids) == 1 else f"{len(ids)} papers"


# Above this many papers in one action, the rows it may change are read in one query first
# (a map selection of 50,000), not one by one (a click on one paper stays one small read).
BULK = 200


def _tagged(conn: sqlite3.Connection, name: str, reviewer: str) -> set[str]:
    return {r[0] for r in conn.execute("SELECT paper_id FROM paper_tags WHERE tag = ? AND reviewer = ?",
                                       (name, reviewer))}


def _decisions_by(conn: sqlite3.Connection, reviewer: str, stage: str) -> dict[str, dict]:
    return {
        r[0]: {"decision": r[1], "reason": r[2], "decided_at": r[3]}
        for r in conn.execute("SELECT paper_id, decision, reason, decided_at FROM decisions "
                              "WHERE reviewer = ? AND stage = ?", (reviewer, stage))
    }


# ----------------------------------------------------------------------------- tags

def tag(conn: sqlite3.Connection, reviewer: str, ids: list[str], tags: list[str]) -> int:
    """Add every tag to every paper as ``reviewer``'s; returns how many (paper, tag) pairs were
    new for this reviewer."""
    names = [check_tag(t) for t in tags]
    if not names:
        raise AnnotationInputError("no tag given; e.g. store.tags.add(paper_id, 'relevant')")
    added = 0
    with Action(conn, reviewer, "tag") as act:
        for name in dict.fromkeys(names):
            ensure_tag(act, name)
            if len(ids) > BULK:
                have = _tagged(conn, name, reviewer)
                new = sorted(set(ids) - have)  # in key order: SQLite appends instead of splitting pages
                row = {"created_at": act.at}
                act.put_new("paper_tags", [({"paper_id": pid, "tag": name, "reviewer": reviewer}, row)
                                           for pid in new])
                added += len(new)
                continue
            for pid in ids:
                key = {"paper_id": pid, "tag": name, "reviewer": reviewer}
                if act.get("paper_tags", key) is None:
                    act.put("paper_tags", key, {"created_at": act.at}, before=None)
                    added += 1
        act.summary = f"tag {_short(ids)} " + " ".join(f"+{n}" for n in dict.fromkeys(names))
    return added


def untag(conn: sqlite3.Connection, reviewer: str, pid: str, name: str, *, everyone: bool = True) -> bool:
    """Remove one tag from one paper: every reviewer's (``everyone``), or only ``reviewer``'s
    (blind mode); False when there was none to remove."""
    name = named_tag(conn, name)
    who = None if everyone else reviewer
    with Action(conn, reviewer, "untag") as act:
        rows = conn.execute("SELECT reviewer FROM paper_tags WHERE paper_id = ?1 AND tag = ?2 "
                            "AND (?3 IS NULL OR reviewer = ?3) ORDER BY reviewer", (pid, name, who)).fetchall()
        for (tagger,) in rows:
            act.put("paper_tags", {"paper_id": pid, "tag": name, "reviewer": tagger}, None)
        act.summary = f"untag {pid} -{name}"
    return bool(rows)


def add_note(conn: sqlite3.Connection, reviewer: str, pid: str, text: str) -> int:
    return add_notes(conn, reviewer, [pid], text)[0]


def add_notes(conn: sqlite3.Connection, reviewer: str, pids: list[str], text: str) -> list[int]:
    """The same note on each paper, as one action (one undo); returns the notes' ids."""
    text = check_text(text, "note")
    with Action(conn, reviewer, "note") as act:
        note_ids = [
            act.insert("notes", {
                "uid": secrets.token_hex(16), "paper_id": pid, "text": text, "reviewer": reviewer,
                "created_at": act.at, "updated_at": act.at})
            for pid in pids
        ]
        where = f"#{note_ids[0]} on {pids[0]}" if len(pids) == 1 else f"on {len(pids)} papers"
        act.summary = f"note {where}: {_clip(text)}"
    return note_ids


def _clip(text: str, n: int = 50) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def _require_note(act: Action, note_id, may_see=None) -> dict:
    """The note ``note_id``; refused as unknown when there is none, or when ``may_see(paper,
    reviewer)`` says the reviewer may not see it (blind mode)."""
    row = act.get("notes", {"id": note_id}) if isinstance(note_id, int) else None
    if row is None or (may_see is not None and not may_see(row["paper_id"], row["reviewer"])):
        raise AnnotationInputError(
            f"no note #{note_id!r}; expected the number store.notes.add() returned "
            "(see store.notes.of(paper_id))"
        )
    return row


def edit_note(conn: sqlite3.Connection, reviewer: str, note_id: int, text: str, may_see=None) -> None:
    text = check_text(text, "note")
    with Action(conn, reviewer, "edit-note") as act:
        row = dict(_require_note(act, note_id, may_see))
        if row["text"] == text:
            return
        row.update(text=text, updated_at=act.at)
        act.put("notes", {"id": note_id}, row)
        act.summary = f"edit note #{note_id} on {row['paper_id']}: {_clip(text)}"


def delete_note(conn: sqlite3.Connection, reviewer: str, note_id: int, may_see=None) -> None:
    with Action(conn, reviewer, "delete-note") as act:
        row = _require_note(act, note_id, may_see)
        act.put("notes", {"id": note_id}, None)
        act.summary = f"delete note #{note_id} on {row['paper_id']}: {_clip(row['text'])}"


# ----------------------------------------------------------------------------- decisions

def decide(conn: sqlite3.Connection, reviewer: str, ids: list[str], decision: str,
           reason: str | None = None, on_change=None, stage: str = TITLE_ABSTRACT) -> int:
    """Set this reviewer's current decision at ``stage`` on each paper; returns how many changed.
    ``on_change(act, paper_id)``: runs in the same action for each changed decision (the
    screening context of ``_screening``); ``on_change.upgrades(act, paper_id)`` says when the
    same decision again is news (a person read a paper decided in bulk)."""
    decision, reason = check_stage_decision(decision, reason, stage)
    changed = 0
    with Action(conn, reviewer, "decide") as act:
        current = _decisions_by(conn, reviewer, stage) if len(ids) > BULK else None
        for pid in ids:
            key = {"paper_id": pid, "reviewer": reviewer, "stage": stage}
            before = current.get(pid) if current is not None else act.get("decisions", key)
            if before and (before["decision"], before["reason"]) == (decision, reason) and (
                    on_change is None or not on_change.upgrades(act, pid)):
                continue
            row = {"decision": decision, "reason": reason, "decided_at": act.at}
            act.put("decisions", key, row, before=before)
            if on_change is not None:
                on_change(act, pid)
            if current is not None:
                current[pid] = row
            changed += 1
        why = f" ({_clip(reason)})" if reason else ""
        at = "" if stage == TITLE_ABSTRACT else " at full text"
        act.summary = f"decide {_short(ids)} {decision}{why}{at}"
    return changed

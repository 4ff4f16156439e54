"""The one route by which annotations are read: what the reader may see of them.

Every read of tags, notes, decisions (with their reasons and how they were made), final
decisions, the tag vocabulary and the history goes through a :class:`Lens`: the store's reviewer
(the reader), whether the review is in blind mode, and whether every reviewer's work was asked
for (``all_reviewers``). The :class:`~._store.Store` methods, the exports (``_export``) and the
screening records (``_screening``) read through these functions only, so blind mode cannot be
forgotten by a new way of reading.

The rule is blind mode's (:mod:`workbench.team.blind`):

- the reader's own work is always shown, and outside blind mode everyone's;
- in blind mode another reviewer's work on a paper at a stage is shown once both screened the
  paper at that stage, or once it has a final decision at that stage (tags and notes belong
  to the title/abstract stage); a final decision is always shown (it ends blindness);
- ``all_reviewers=True`` shows everyone's work: the team's statistics, which count every vote
  and return only what the rule allows, and an export or history a person asks for explicitly
  (``store.files.export`` and ``Store.history`` record such a read in blind mode).

The vocabulary lists a tag the reader may see used, created, or that has a description (a tag
described for the team); its count is the papers on which the reader may see it. The history
lists another reviewer's change only when the reader may see every row it changed (a change of
the vocabulary: the tag as the vocabulary shows it); the reader's own changes are always listed.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict

from ..corpus.paper import TITLE_ABSTRACT, FinalDecision
from ._reports import Decision, HistoryEntry, Note, Tag
from ._settings import read_settings

__all__ = ["Lens", "decisions", "entry_shown", "finals", "history", "notes", "summary", "tag_rows",
           "vocab_rows", "vocabulary"]


class Lens:
    """What ``reader`` may see of the annotations in ``conn`` (see the module docstring).

    Made for one read (:meth:`of`); it remembers who screened which paper as it asks, or for
    the whole store at once after :meth:`load`."""

    def __init__(self, conn: sqlite3.Connection, reader: str, blind: bool, everyone: bool = False):
        self.conn, self.reader, self.blind, self.everyone = conn, reader, blind, everyone
        self._screened: dict[tuple[str, str], frozenset[str]] = {}
        self._final: set[tuple[str, str]] = set()
        self._whole = False
        self._used: dict[str, set[str]] | None = None

    @classmethod
    def of(cls, conn: sqlite3.Connection, reader: str, *, all_reviewers: bool = False) -> Lens:
        return cls(conn, reader, read_settings(conn).get("blind") == "on", bool(all_reviewers))

    @property
    def open(self) -> bool:
        """Whether everyone's work is shown (not blind, or every reviewer's asked for)."""
        return self.everyone or not self.blind

    def sees(self, pid: str, who: str | None, stage: str = TITLE_ABSTRACT) -> bool:
        """Whether the reader may see ``who``'s work on paper ``pid`` at ``stage``."""
        if self.open or who == self.reader:
            return True
        key = (pid, stage)
        if not self._whole and key not in self._screened:
            self._screened[key] = frozenset(r[0] for r in self.conn.execute(
                "SELECT reviewer FROM decisions WHERE paper_id = ? AND stage = ?", key))
            if self.conn.execute("SELECT 1 FROM final_decisions WHERE paper_id = ? AND stage = ?", key).fetchone():
                self._final.add(key)
        if key in self._final:
            return True
        screened = self._screened.get(key, frozenset())
        return self.reader in screened and who in screened

    def load(self) -> Lens:
        """Read who screened every paper and which papers have final decisions, at once: for a
        read of the whole store (an export, the summary, the history)."""
        if self.open or self._whole:
            return self
        screened: dict[tuple[str, str], set[str]] = defaultdict(set)
        for pid, stage, who in self.conn.execute("SELECT paper_id, stage, reviewer FROM decisions"):
            screened[(pid, stage)].add(who)
        self._screened = {k: frozenset(v) for k, v in screened.items()}
        self._final = set(self.conn.execute("SELECT paper_id, stage FROM final_decisions"))
        self._whole = True
        return self

    def used_tags(self, rows=None) -> dict[str, set[str]]:
        """``{tag: ids of the papers on which the reader may see it}``, read once (from ``rows``,
        :func:`tag_rows` of the whole store, when the caller has just read them)."""
        if self._used is None:
            self._used = defaultdict(set)
            for pid, name, _, _ in tag_rows(self) if rows is None else rows:
                self._used[name].add(pid)
        return self._used

    def sees_tag(self, name: str, created_by: str | None, description: str | None) -> bool:
        """Whether the vocabulary shows the tag ``name`` to the reader (see the module docstring)."""
        return (self.open or created_by == self.reader or bool((description or "").strip())
                or name in self.used_tags())


# ----------------------------------------------------------------------------- tags and notes

def tag_rows(lens: Lens, pid: str | None = None, tag: str | None = None) -> list[tuple[str, str, str, str]]:
    """``(paper, tag, reviewer, created_at)`` the reader may see (of one paper, of one tag, or all),
    sorted by paper, tag and reviewer."""
    select = "SELECT paper_id, tag, reviewer, created_at FROM paper_tags"
    if pid is not None:
        rows = lens.conn.execute(f"{select} WHERE paper_id = ? ORDER BY tag, reviewer", (pid,))
    elif tag is not None:
        rows = lens.load().conn.execute(f"{select} WHERE tag = ? ORDER BY paper_id, reviewer", (tag,))
    else:
        rows = lens.load().conn.execute(f"{select} ORDER BY paper_id, tag, reviewer")
    return [r for r in rows if lens.sees(r[0], r[2])]


def notes(lens: Lens, pid: str | None = None) -> list[Note]:
    """The notes the reader may see (of one paper or all), by paper, then oldest first."""
    columns = "id, paper_id, text, reviewer, created_at, updated_at, uid FROM notes"
    if pid is None:
        rows = lens.load().conn.execute(f"SELECT {columns} ORDER BY paper_id, created_at, id")
    else:
        rows = lens.conn.execute(f"SELECT {columns} WHERE paper_id = ? ORDER BY created_at, id", (pid,))
    return [Note(*r) for r in rows if lens.sees(r[1], r[3])]


# ----------------------------------------------------------------------------- decisions

_DECISION = ("SELECT d.paper_id, d.decision, d.reviewer, d.decided_at, d.reason, d.stage, c.rank, c.score, "
             "c.model, c.model_version, c.bulk, c.sampled FROM decisions d LEFT JOIN decision_context c "
             "USING (paper_id, reviewer, stage) WHERE (?1 IS NULL OR d.stage = ?1)")


def decisions(lens: Lens, pid: str | None = None, stage: str | None = TITLE_ABSTRACT, *,
              context: bool = False) -> list:
    """The current decisions at ``stage`` (None: every stage) the reader may see, of one paper or
    all, by paper, stage (full text first) and reviewer. With ``context``: ``(Decision, how it
    was made)`` pairs, the second a dict (rank, score, model, model_version, bulk, sampled) or
    None when the store has no record of how it was made."""
    if pid is None:
        rows = lens.load().conn.execute(_DECISION + " ORDER BY d.paper_id, d.stage DESC, d.reviewer", (stage,))
    else:
        rows = lens.conn.execute(_DECISION + " AND d.paper_id = ?2 ORDER BY d.stage DESC, d.reviewer", (stage, pid))
    out = []
    for r in rows:
        if not lens.sees(r[0], r[2], r[5]):
            continue
        decision = Decision(paper_id=r[0], decision=r[1], reviewer=r[2], decided_at=r[3], reason=r[4], stage=r[5])
        if context:
            how = None if r[10] is None else dict(zip(
                ("rank", "score", "model", "model_version", "bulk", "sampled"), (*r[6:10], bool(r[10]), bool(r[11]))))
            out.append((decision, how))
        else:
            out.append(decision)
    return out


def finals(lens: Lens, stage: str | None = TITLE_ABSTRACT, pid: str | None = None) -> list[FinalDecision]:
    """The final decisions at ``stage`` (None: every stage), of one paper or all, by paper. A final
    decision ends blindness on its paper, so every reader sees it."""
    return [FinalDecision(paper_id=r[0], stage=r[1], decision=r[2], resolved_by=r[3], resolved_at=r[4], reason=r[5])
            for r in lens.conn.execute(
                "SELECT paper_id, stage, decision, resolved_by, resolved_at, reason FROM final_decisions "
                "WHERE (?1 IS NULL OR stage = ?1) AND (?2 IS NULL OR paper_id = ?2) ORDER BY paper_id, stage DESC",
                (stage, pid))]


def summary(lens: Lens) -> dict[str, dict]:
    """Every paper with something the reader may see at title/abstract, in one read:
    ``{id: {"tags": [...], "decision": str|None, "notes": n}}``.

    ``decision`` is the reader's, else the paper's final decision, else (outside blind mode) the
    latest by anyone."""
    out: dict[str, dict] = {}

    def entry(pid):
        e = out.get(pid)
        if e is None:
            e = out[pid] = {"tags": [], "decision": None, "notes": 0}
        return e

    reader = lens.reader
    for pid, who, decision in lens.load().conn.execute(
            "SELECT paper_id, reviewer, decision FROM decisions WHERE stage = ? ORDER BY paper_id, decided_at",
            (TITLE_ABSTRACT,)):
        if lens.sees(pid, who):
            e = entry(pid)
            if who == reader or (not lens.blind and e.get("_by") != reader):
                e["decision"], e["_by"] = decision, who
    for final in finals(lens):
        if entry(final.paper_id).get("_by") != reader:
            out[final.paper_id]["decision"], out[final.paper_id]["_by"] = final.decision, None
    for pid, name, _, _ in tag_rows(lens):
        tags = entry(pid)["tags"]
        if not tags or tags[-1] != name:
            tags.append(name)
    for note in notes(lens):
        entry(note.paper_id)["notes"] += 1
    for pid in [p for p, e in out.items() if e["decision"] is None and not e["tags"] and not e["notes"]]:
        del out[pid]
    for e in out.values():
        e.pop("_by", None)
    return out


# ----------------------------------------------------------------------------- the vocabulary

def vocab_rows(lens: Lens) -> list[dict]:
    """The vocabulary the reader may see, by name: name, description, colour, created_by,
    created_at and ``papers``, the ids of the papers on which the reader may see the tag."""
    used = lens.used_tags()
    out = []
    for name, description, colour, by, at in lens.conn.execute(
            "SELECT name, description, colour, created_by, created_at FROM tag_vocab ORDER BY name"):
        if lens.sees_tag(name, by, description):
            out.append({"name": name, "description": description, "colour": colour, "created_by": by,
                        "created_at": at, "papers": used.get(name, set())})
    return out


def vocabulary(lens: Lens, name: str | None = None) -> list[Tag]:
    """The tags of the vocabulary the reader may see, with how many papers they may see them on
    (``name``: only that tag, whatever the rule says, since the reader named it)."""
    if lens.open:
        return [Tag(name=r[0], description=r[1], colour=r[2], count=r[3], created_at=r[4]) for r in lens.conn.execute(
            "SELECT v.name, v.description, v.colour, count(DISTINCT t.paper_id), v.created_at FROM tag_vocab v "
            "LEFT JOIN paper_tags t ON t.tag = v.name WHERE ?1 IS NULL OR v.name = ?1 GROUP BY v.name "
            "ORDER BY v.name", (name,))]
    if name is not None:
        used = lens.used_tags().get(name, ())
        return [Tag(name=r[0], description=r[1], colour=r[2], count=len(used), created_at=r[3]) for r in lens.conn.execute(
            "SELECT name, description, colour, created_at FROM tag_vocab WHERE name = ?", (name,))]
    return [Tag(name=r["name"], description=r["description"], colour=r["colour"], count=len(r["papers"]),
                created_at=r["created_at"]) for r in vocab_rows(lens)]


# ----------------------------------------------------------------------------- the history

_ANNOTATION_TABLES = ("paper_tags", "notes", "decisions", "decision_context", "final_decisions", "tag_vocab")


_KEYED = ("paper_tags", "decisions", "decision_context")  # the key names the paper and the reviewer


def _row_shown(lens: Lens, table: str, key: dict, row) -> bool:
    """Whether the reader may see one row a change wrote (``row``: its JSON after, else before)."""
    if table in _KEYED:
        return lens.sees(key["paper_id"], key["reviewer"], key.get("stage", TITLE_ABSTRACT))
    row = json.loads(row or "{}")
    if table == "tag_vocab":
        return lens.sees_tag(key["name"], row.get("created_by"), row.get("description"))
    if table == "final_decisions":
        return lens.sees(key["paper_id"], row.get("resolved_by"), key["stage"])
    return lens.sees(row.get("paper_id"), row.get("reviewer"))  # notes


def entry_shown(lens: Lens, history_id: int, who: str) -> bool:
    """Whether the reader may see the history entry ``history_id`` made by ``who``: their own, or
    one whose every changed annotation they may see."""
    if lens.open or who == lens.reader:
        return True
    marks = ", ".join("?" * len(_ANNOTATION_TABLES))
    changes = lens.conn.execute(
        f"SELECT tbl, key, coalesce(after, before) FROM history_changes WHERE history_id = ? AND tbl IN ({marks})",
        (history_id, *_ANNOTATION_TABLES))
    for n, (table, key, row) in enumerate(changes):
        if n == 50:  # a change of many papers (a map selection): who screened what, read at once
            lens.load()
        if not _row_shown(lens, table, json.loads(key), row):
            return False
    return True


def history(lens: Lens, limit: int | None = 20, pid: str | list[str] | None = None) -> list[HistoryEntry]:
    """The latest ``limit`` history entries the reader may see (all with None), newest first;
    ``pid`` (an id or several): only those touching that paper (an annotation's ``paper_id``, or
    one of the two papers of a duplicate verdict)."""
    where, params = "", []
    if pid is not None:
        ids = [pid] if isinstance(pid, str) else list(pid)
        patterns = [f'%"{column}": "{p}"%' for p in ids for column in ("paper_id", "paper_a", "paper_b")]
        touched = " OR ".join(f"key LIKE ?{i} OR before LIKE ?{i} OR after LIKE ?{i}"
                              for i in range(2, len(patterns) + 2))
        where = f"AND id IN (SELECT history_id FROM history_changes WHERE {touched})"
        params += patterns
    sql = ("SELECT id, at, reviewer, action, summary, undoable, undone_by FROM history "
           f"WHERE id < ?1 {where} ORDER BY id DESC LIMIT {500 if limit is None else min(500, 2 * limit + 10)}")
    out: list[HistoryEntry] = []
    before = 2**62
    lens.load()
    while limit is None or len(out) < limit:
        rows = lens.conn.execute(sql, [before, *params]).fetchall()
        for r in rows:
            if entry_shown(lens, r[0], r[2]):
                out.append(HistoryEntry(id=r[0], at=r[1], reviewer=r[2], action=r[3], summary=r[4],
                                        undoable=bool(r[5]), undone_by=r[6]))
                if limit is not None and len(out) == limit:
                    break
        if not rows:
            break
        before = rows[-1][0]
    return out

"""Screening records: how each human decision was made, and the log of stopping claims.

Schema version 3 adds two tables (:data:`SCHEMA_V3`, :func:`v2_to_v3`):

- ``decision_context``, one row beside each decision a person made through this workbench
  (keyed like ``decisions``, by paper and reviewer, and written in the same action, so one undo
  takes both back): the paper's ``rank`` (1 = first) and ``score`` in the ranked queue when it
  was decided and the ``model`` and ``model_version`` that ranked it (all NULL when no ranking
  was shown), whether it was decided in ``bulk`` (a map selection or a topic in one action)
  and whether it was ``sampled`` (drawn at random from the unread papers, for a stopping
  test). A model never writes a decision: these are facts about a person's decision.
- ``stopping_claims``, an append-only log: when a reviewer asked whether they may stop, the
  rule, its numbers, the claim in words and the counts it rested on.

Decisions made before version 3 (or imported from another store) have no context row; they
are reported as ``recorded=False``, and counted as bulk when one action decided them together
with other papers (they share its time stamp). The store knows nothing of the ranker: it keeps
the numbers a face hands it.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Number, Real

from ._errors import AnnotationInputError
from ._history import Action

__all__ = ["SCHEMA_V3", "ContextWriter", "ScreeningRecord", "StoppingClaim", "claims",
           "log_stopping", "records", "v2_to_v3"]

SCHEMA_V3 = """
CREATE TABLE decision_context (
    paper_id TEXT NOT NULL REFERENCES papers(id),
    reviewer TEXT NOT NULL,
    rank INTEGER CHECK (rank IS NULL OR rank >= 1),
    score REAL,
    model TEXT,
    model_version TEXT,
    bulk INTEGER NOT NULL DEFAULT 0 CHECK (bulk IN (0, 1)),
    sampled INTEGER NOT NULL DEFAULT 0 CHECK (sampled IN (0, 1)),
    PRIMARY KEY (paper_id, reviewer)
) WITHOUT ROWID;

CREATE TABLE stopping_claims (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    rule TEXT NOT NULL,
    stop INTEGER NOT NULL CHECK (stop IN (0, 1)),
    claim TEXT NOT NULL,
    numbers TEXT NOT NULL DEFAULT '{}',
    papers INTEGER NOT NULL,
    read INTEGER NOT NULL,
    included INTEGER NOT NULL,
    bulk INTEGER NOT NULL,
    model TEXT,
    model_version TEXT
);
"""

CONTEXT_COLUMNS = ("rank", "score", "model", "model_version", "bulk", "sampled")


def v2_to_v3(conn: sqlite3.Connection) -> None:
    """v2 -> v3: the screening context of decisions and the log of stopping claims."""
    for statement in (s.strip() for s in SCHEMA_V3.split(";")):
        if statement:
            conn.execute(statement)


@dataclass(frozen=True)
class ScreeningRecord:
    """A paper's current decision and how it was made (see the module docstring)."""

    paper_id: str
    reviewer: str
    decision: str
    decided_at: str
    rank: int | None = None
    score: float | None = None
    model: str | None = None
    model_version: str | None = None
    bulk: bool = False
    sampled: bool = False
    recorded: bool = True  # False: decided before the store kept screening records, or imported


@dataclass(frozen=True)
class StoppingClaim:
    """One logged answer to "may I stop?": the rule, whether it said stop, the claim in words,
    its numbers, and the counts it rested on (papers in the review, read by a person, included,
    decided in bulk)."""

    id: int
    at: str
    reviewer: str
    rule: str
    stop: bool
    claim: str
    papers: int
    read: int
    included: int
    bulk: int
    numbers: dict = field(default_factory=dict)
    model: str | None = None
    model_version: str | None = None

    def __str__(self) -> str:
        return f"{self.at[:19].replace('T', ' ')}  {self.reviewer}  {self.claim}"


# ----------------------------------------------------------------------------- writing

def _per_paper(value, n: int, name: str, check) -> list:
    if value is None or isinstance(value, (str, Number)):
        return [check(value)] * n
    values = list(value)
    if len(values) != n:
        raise AnnotationInputError(f"{name} has {len(values)} values for {n} papers; give one per "
                                   "paper, in the order of the ids, or one value for all")
    return [check(v) for v in values]


def _whole(value) -> bool:
    return (isinstance(value, Real) and not isinstance(value, bool)
            and math.isfinite(value) and float(value).is_integer())


def _rank(value):
    if value is None:
        return None
    if not _whole(value) or int(value) < 1:
        raise AnnotationInputError(f"rank {value!r}: expected the paper's position in the queue, "
                                   "a whole number >= 1 (1 = shown first), or None")
    return int(value)


def _score(value):
    if value is None:
        return None
    try:
        score = float(value)
    except (TypeError, ValueError):
        score = math.nan
    if not math.isfinite(score):
        raise AnnotationInputError(f"score {value!r}: expected the model's finite score, or None")
    return score


def _name(value, what: str):
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise AnnotationInputError(f"{what} {value!r}: expected a non-empty name, or None")
    return value


def context_rows(ids: list[str], rank=None, score=None, model=None, model_version=None,
                 bulk=None, sampled=False) -> dict[str, dict]:
    """``{paper id: decision_context row}`` for a decision on ``ids``. ``rank``/``score``: one
    value or one per paper; ``bulk=None``: bulk when several papers are decided at once."""
    model, model_version = _name(model, "model"), _name(model_version, "model_version")
    ranks = _per_paper(rank, len(ids), "rank", _rank)
    scores = _per_paper(score, len(ids), "score", _score)
    if model is None and (model_version is not None or any(r is not None for r in ranks + scores)):
        raise AnnotationInputError(
            "a rank, score or model version without the model that ranked the paper cannot be "
            "reported; pass model= and model_version= (the ranker's name and version) with them")
    bulk = len(ids) > 1 if bulk is None else bool(bulk)
    if bulk and sampled:
        raise AnnotationInputError("a decision cannot be both in bulk and part of a random sample: "
                                   "a sampled paper must be read; decide sampled papers one by one")
    return {pid: {"rank": r, "score": s, "model": model, "model_version": model_version,
                  "bulk": int(bulk), "sampled": int(bool(sampled))}
            for pid, r, s in zip(ids, ranks, scores)}


class ContextWriter:
    """Writes each changed decision's context row inside the decision's own action."""

    def __init__(self, reviewer: str, rows: dict[str, dict], bulk: int):
        self.rows, self.reviewer, self.in_one_read = rows, reviewer, len(rows) > bulk
        self.current: dict | None = None

    def _before(self, act: Action, pid: str) -> dict | None:
        if not self.in_one_read:
            return act.get("decision_context", {"paper_id": pid, "reviewer": self.reviewer})
        if self.current is None:  # a map selection: one read, inside the action
            self.current = {r[0]: dict(zip(CONTEXT_COLUMNS, r[1:])) for r in act.conn.execute(
                f"SELECT paper_id, {', '.join(CONTEXT_COLUMNS)} FROM decision_context "
                "WHERE reviewer = ?", (self.reviewer,))}
        return self.current.get(pid)

    def upgrades(self, act: Action, pid: str) -> bool:
        """Whether the same decision again is news: a person now read a paper that was decided
        in bulk or before the store kept records (so it moves to its place in the reading order)."""
        if self.rows[pid]["bulk"]:
            return False
        before = self._before(act, pid)
        return before is None or bool(before["bulk"])

    def __call__(self, act: Action, pid: str) -> None:
        act.put("decision_context", {"paper_id": pid, "reviewer": self.reviewer}, self.rows[pid],
                before=self._before(act, pid))


def _plain(value):
    """``value`` with numpy scalars as Python numbers and NaN/inf as None (strict JSON)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise AnnotationInputError(f"stopping numbers hold {value!r} ({type(value).__name__}); "
                               "expected numbers, text, lists or dicts of them")


def _count(value, what: str) -> int:
    if not _whole(value) or int(value) < 0:
        raise AnnotationInputError(f"{what}={value!r}: expected a count, a whole number >= 0")
    return int(value)


def log_stopping(conn: sqlite3.Connection, reviewer: str, rule: str, claim: str, *, stop: bool,
                 numbers: Mapping | None, papers: int, read: int, included: int, bulk: int,
                 model: str | None = None, model_version: str | None = None) -> StoppingClaim:
    for text, what in ((rule, "rule"), (claim, "claim")):
        if not isinstance(text, str) or not text.strip():
            raise AnnotationInputError(f"{what} {text!r} is empty; expected the {what} in words")
    counts = {k: _count(v, k) for k, v in
              (("papers", papers), ("read", read), ("included", included), ("bulk", bulk))}
    encoded = json.dumps(_plain(dict(numbers or {})), sort_keys=True, ensure_ascii=False)
    with Action(conn, reviewer, "stopping", undoable=False) as act:
        act.summary = f"stopping ({rule}): {claim}"
        cur = conn.execute(
            "INSERT INTO stopping_claims (at, reviewer, rule, stop, claim, numbers, papers, read, "
            "included, bulk, model, model_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (act.at, reviewer, rule.strip(), int(bool(stop)), claim.strip(), encoded,
             *counts.values(), _name(model, "model"), _name(model_version, "model_version")))
        claim_id = cur.lastrowid
    return claims(conn, claim_id)[0]


# ----------------------------------------------------------------------------- reading

def claims(conn: sqlite3.Connection, claim_id: int | None = None) -> list[StoppingClaim]:
    """Every logged stopping claim, oldest first (or the one with ``claim_id``)."""
    where, params = ("WHERE id = ?", (claim_id,)) if claim_id is not None else ("", ())
    return [
        StoppingClaim(id=r[0], at=r[1], reviewer=r[2], rule=r[3], stop=bool(r[4]), claim=r[5],
                      numbers=json.loads(r[6]), papers=r[7], read=r[8], included=r[9],
                      bulk=r[10], model=r[11], model_version=r[12])
        for r in conn.execute(
            "SELECT id, at, reviewer, rule, stop, claim, numbers, papers, read, included, bulk, "
            f"model, model_version FROM stopping_claims {where} ORDER BY id", params)
    ]


def records(conn: sqlite3.Connection, reviewer: str, everyone: bool = False,
            only: str | None = None) -> list[ScreeningRecord]:
    """Current decisions with their context, in the order made (time, then paper id).

    One per paper: ``reviewer``'s decision where there is one, else the latest by anyone (as
    :meth:`Store.summary` shows them); ``only``: that reviewer's alone; ``everyone``: every
    reviewer's decision on every paper.
    """
    rows = conn.execute(
        "SELECT d.paper_id, d.reviewer, d.decision, d.decided_at, c.rank, c.score, c.model, "
        "c.model_version, c.bulk, c.sampled FROM decisions d LEFT JOIN decision_context c "
        "ON c.paper_id = d.paper_id AND c.reviewer = d.reviewer "
        "ORDER BY d.decided_at, d.paper_id, d.reviewer").fetchall()
    actions = Counter((r[1], r[3]) for r in rows)  # one action's decisions share its time stamp
    out = [ScreeningRecord(*r[:8], bulk=bool(r[8]) if r[8] is not None else actions[(r[1], r[3])] > 1,
                           sampled=bool(r[9]), recorded=r[8] is not None) for r in rows]
    if only is not None:
        return [r for r in out if r.reviewer == only]
    if everyone:
        return out
    chosen: dict[str, ScreeningRecord] = {}
    for r in out:  # in time order: a later decision replaces an earlier one, but not the reviewer's own
        kept = chosen.get(r.paper_id)
        if kept is None or r.reviewer == reviewer or kept.reviewer != reviewer:
            chosen[r.paper_id] = r
    return sorted(chosen.values(), key=lambda r: (r.decided_at, r.paper_id))

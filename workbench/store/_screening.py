"""How each human decision was made: the screening context beside every decision.

Schema version 3 (``_schema``) adds ``decision_context``, one row beside each decision a person
made through this workbench, keyed like ``decisions`` (paper, reviewer, stage) and written in the same
action, so one undo takes both back: the paper's ``rank`` (1 = first) and ``score`` in the ranked
queue when it was decided and the ``model`` and ``model_version`` that ranked it (all NULL when
no ranking was shown), whether it was decided in ``bulk`` (a map selection or a topic in one
action) and whether it was ``sampled`` (drawn at random from the unread papers, for a stopping
test). A model never writes a decision: these are facts about a person's decision. The log of
stopping claims is ``_settings``.

Decisions made before version 3 (or imported from another store) have no context row; they are
reported as ``recorded=False``, and counted as bulk when one action decided them together with
other papers (they share its time stamp). The store knows nothing of the ranker: it keeps the
numbers a face hands it. :class:`~._parts.Decisions` (``store.decisions``) writes and reads them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from numbers import Number, Real
from typing import Sequence

from ..corpus.paper import TITLE_ABSTRACT
from . import _visible
from ._errors import AnnotationInputError
from ._history import Action

__all__ = ["CONTEXT_COLUMNS", "ContextWriter", "ScreeningRecord", "Shown", "context_rows", "records"]

CONTEXT_COLUMNS = ("rank", "score", "model", "model_version", "bulk", "sampled")


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


# ----------------------------------------------------------------------------- writing

@dataclass(frozen=True)
class Shown:
    """What the ranked queue showed the person deciding (see the module docstring): each paper's
    ``rank`` (1 = first) and ``score``, one value for all or one per paper in the order of the
    ids, the ``model`` and ``model_version`` that ranked them, and whether the papers were
    ``sampled`` (drawn at random for a stopping test). ``Shown()``: no ranking was shown."""

    rank: int | Sequence[int] | None = None
    score: float | Sequence[float] | None = None
    model: str | None = None
    model_version: str | None = None
    sampled: bool = False


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


def context_rows(ids: list[str], shown: Shown, bulk=None) -> dict[str, dict]:
    """``{paper id: decision_context row}`` for a decision on ``ids`` made with ``shown`` in
    view; ``bulk=None``: bulk when several papers are decided at once."""
    model, model_version = _name(shown.model, "model"), _name(shown.model_version, "model_version")
    ranks = _per_paper(shown.rank, len(ids), "rank", _rank)
    scores = _per_paper(shown.score, len(ids), "score", _score)
    sampled = shown.sampled
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

    def __init__(self, reviewer: str, rows: dict[str, dict], bulk: int, stage: str = TITLE_ABSTRACT):
        self.rows, self.reviewer, self.in_one_read = rows, reviewer, len(rows) > bulk
        self.stage = stage
        self.current: dict | None = None

    def _key(self, pid: str) -> dict:
        return {"paper_id": pid, "reviewer": self.reviewer, "stage": self.stage}

    def _before(self, act: Action, pid: str) -> dict | None:
        if not self.in_one_read:
            return act.get("decision_context", self._key(pid))
        if self.current is None:  # a map selection: one read, inside the action
            self.current = {r[0]: dict(zip(CONTEXT_COLUMNS, r[1:])) for r in act.conn.execute(
                f"SELECT paper_id, {', '.join(CONTEXT_COLUMNS)} FROM decision_context "
                "WHERE reviewer = ? AND stage = ?", (self.reviewer, self.stage))}
        return self.current.get(pid)

    def upgrades(self, act: Action, pid: str) -> bool:
        """Whether the same decision again is news: a person now read a paper that was decided
        in bulk or before the store kept records (so it moves to its place in the reading order)."""
        if self.rows[pid]["bulk"]:
            return False
        before = self._before(act, pid)
        return before is None or bool(before["bulk"])

    def __call__(self, act: Action, pid: str) -> None:
        act.put("decision_context", self._key(pid), self.rows[pid], before=self._before(act, pid))


# ----------------------------------------------------------------------------- reading

def records(lens, everyone: bool = False, only: str | None = None,
            stage: str = TITLE_ABSTRACT) -> list[ScreeningRecord]:
    """Current decisions at ``stage`` with their context, in the order made (time, then paper id),
    as ``lens`` (``_visible.Lens``) lets its reader see them.

    One per paper: the reader's decision where there is one, else (not blind) the latest by
    anyone (as :meth:`Store.summary` shows them); ``only``: that reviewer's alone; ``everyone``:
    every decision on every paper the reader may see.
    """
    reader = lens.reader
    if lens.blind and not everyone and only is None:
        only = reader
    rows = sorted(_visible.decisions(lens, None, stage, context=True),
                  key=lambda pair: (pair[0].decided_at, pair[0].paper_id, pair[0].reviewer))
    actions = Counter((d.reviewer, d.decided_at) for d, _ in rows)  # one action's decisions share its time
    out = [ScreeningRecord(d.paper_id, d.reviewer, d.decision, d.decided_at,
                           **({} if how is None else {k: how[k] for k in CONTEXT_COLUMNS[:4]}),
                           bulk=how["bulk"] if how is not None else actions[(d.reviewer, d.decided_at)] > 1,
                           sampled=bool(how and how["sampled"]), recorded=how is not None) for d, how in rows]
    if only is not None:
        return [r for r in out if r.reviewer == only]
    if everyone:
        return out
    chosen: dict[str, ScreeningRecord] = {}
    for r in out:  # in time order: a later decision replaces an earlier one, but not the reader's own
        kept = chosen.get(r.paper_id)
        if kept is None or r.reviewer == reader or kept.reviewer != reader:
            chosen[r.paper_id] = r
    return sorted(chosen.values(), key=lambda r: (r.decided_at, r.paper_id))


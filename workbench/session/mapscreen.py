"""Screening from the map, in a :class:`~workbench.session.session.Session`: the colour of each
paper by decision or by predicted relevance, a bulk decision on a topic or a map selection
shown before it is made, and the papers decided in bulk.

Plain Python (no ipywidgets): the explore view calls it, tests call it directly.

- **Colours.** :meth:`MapScreening.colour_keys` gives every paper's colour key in map order
  and :meth:`MapScreening.colour_map` the colour of each key, for ``"decision"`` (include,
  exclude, maybe, undecided: :data:`workbench.space.palette.DECISION_COLOURS`) and ``"relevance"``:
  the undecided papers in ten bands of the ranking's order (:meth:`workbench.review.ReviewScreening.rank`;
  band 1 the tenth most likely relevant, darkest), decided ones pale grey; before one include
  and one exclude there is no model, and every paper is grey.
- **Bulk decisions.** :meth:`MapScreening.plan_bulk` says what a bulk decision on some papers
  would do before anything is written (a :class:`BulkPlan`: how many papers, how many already
  decided and how); :meth:`MapScreening.decide_bulk` makes it, as one action (one undo takes
  it back), recorded with ``bulk=True`` so the stopping test counts none of these papers as read.
  By default only this reviewer's undecided papers are decided: a decision a person made
  reading a paper is not overwritten by a decision made without reading it, unless asked
  (``change_decided=True``); papers that already have the decision are never touched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..corpus.paper import DECIDED
from ..errors import InputError
from ..review import relevance_band
from ..space.palette import DECISION_COLOURS, OUTLIER_COLOUR, RELEVANCE_RAMP

__all__ = ["BULK_DECISIONS", "BulkPlan", "MapScreening", "RELEVANCE_BANDS", "relevance_bands"]

BULK_DECISIONS = ("exclude", "include")  # a maybe in bulk says nothing: decide it paper by paper
RELEVANCE_BANDS = len(RELEVANCE_RAMP)
DECIDED_PALE = "#e2e2e2"  # decided papers when coloured by relevance (they are not ranked)


@dataclass(frozen=True)
class BulkPlan:
    """What a bulk decision on ``selected`` papers would do (nothing is written by making one).

    ``ids``: the papers it decides; ``decided``: how many of the selection this reviewer had
    already decided, by decision; ``change_decided``: whether those get the new decision too
    (the ones that already have it are left alone either way).
    """

    decision: str
    what: str  # where the papers came from, in words ("topic 4: …", "a selection on the map")
    selected: tuple[str, ...]
    ids: tuple[str, ...]
    decided: dict
    change_decided: bool

    @property
    def n_decided(self) -> int:
        return sum(self.decided.values())

    def describe_decided(self) -> str:
        return ", ".join(f"{n} {DECIDED[d]}" for d, n in sorted(self.decided.items()) if n)

    @property
    def text(self) -> str:
        """The preview in words, e.g. "Exclude 300 papers of topic 4: … (12 already decided: …)"."""
        verb, n, what = self.decision.capitalize(), len(self.ids), self.what
        if not self.n_decided:
            return f"{verb} {n} papers of {what}, none decided yet"
        same = self.decided.get(self.decision, 0)
        if self.change_decided:
            keep = f"; {same} already {DECIDED[self.decision]} stay as they are" if same else ""
            return (f"{verb} {n} papers of {what} ({self.n_decided} already decided: {self.describe_decided()}"
                    f" — their decisions change{keep})")
        return (f"{verb} {n} undecided papers of {what} ({self.n_decided} already decided: "
                f"{self.describe_decided()} — left as they are)")

    @property
    def yes(self) -> str:
        """The confirming button's words."""
        return f"Yes, {self.decision} {len(self.ids)} papers"


def relevance_bands(scores: np.ndarray, queue: np.ndarray) -> np.ndarray:
    """Each paper's band of predicted relevance: 0 (most likely relevant tenth of the queue) to
    ``RELEVANCE_BANDS - 1``, by its place in the ranking (score, ties by map row, as the queue
    breaks them); -1 for a paper not in the queue (decided, or a maybe)."""
    rows = np.flatnonzero(queue)
    order = rows[np.lexsort((rows, -scores[rows]))]
    bands = np.full(len(queue), -1, dtype=np.int64)
    bands[order] = np.arange(len(order)) * RELEVANCE_BANDS // max(len(order), 1)
    return bands


class MapScreening:
    """Screening from the map in a session (``session.map``): colours by decision or predicted
    relevance, and bulk decisions previewed, then made as one action."""

    def __init__(self, session):
        self.session = session


    # ------------------------------------------------------------------ reading

    def my_decisions(self) -> dict[str, str]:
        """``{paper id: decision}`` of this reviewer (not another's)."""
        return {r.paper_id: r.decision for r in self.session.store.decisions.records(self.session.reviewer)}

    def decided_in_bulk(self) -> set[str]:
        """The papers whose current decision by this reviewer was made in bulk (not read)."""
        return {r.paper_id for r in self.session.store.decisions.records(self.session.reviewer) if r.bulk}

    def relevance_ranking(self):
        """:meth:`rank` when a model exists (one include and one exclude), else None (without
        building the ranker's features: a map coloured before any decision stays quick)."""
        decisions = {r.decision for r in self.session.store.decisions.records() if r.paper_id in self.session.saved}
        if not {"include", "exclude"} <= decisions:
            return None
        ranking = self.session.rank()
        return ranking if ranking.scores is not None else None

    def colour_keys(self, mode: str, decisions=None, ranking=None) -> list[str]:
        """Every paper's colour key in map order for ``mode`` "decision" (the decision shown:
        this reviewer's, else the latest by anyone, or ``decisions``) or "relevance" (``"r1"``
        to ``"r10"`` by band, ``"decided"``, or ``"no model"``; ``ranking``: the one to use)."""
        if mode == "decision":
            return list(decisions if decisions is not None else self.session.annotation_columns()["decision"])
        if mode != "relevance":
            raise InputError(f"colour by {mode!r}; expected decision or relevance")
        ranking = ranking if ranking is not None else self.relevance_ranking()
        if ranking is None:
            return ["no model"] * len(self.session.ids)
        bands = relevance_bands(np.asarray(ranking.scores, dtype=float), np.asarray(ranking.queue, dtype=bool))
        return [f"r{b + 1}" if b >= 0 else "decided" for b in bands]

    @staticmethod
    def colour_map(mode: str) -> dict[str, str]:
        """The colour of each key of :meth:`colour_keys`."""
        if mode == "decision":
            return dict(DECISION_COLOURS)
        ramp = {f"r{i + 1}": c for i, c in enumerate(RELEVANCE_RAMP)}
        return {**ramp, "decided": DECIDED_PALE, "no model": OUTLIER_COLOUR}

    @staticmethod
    def relevance_legend(keys: list[str], ranking) -> tuple[str, list[dict]]:
        """The legend of the relevance colouring: its title and one entry per band shown, with
        the ranks and scores the band spans."""
        colours, counts = MapScreening.colour_map("relevance"), Counter(keys)
        if ranking is None:
            return ("predicted relevance: no model yet: decide one include and one exclude",
                    [{"key": "no model", "label": "not ranked yet", "colour": OUTLIER_COLOUR,
                      "count": counts["no model"]}])
        scores = np.asarray(ranking.scores, dtype=float)
        bands = np.asarray([int(k[1:]) if k.startswith("r") else 0 for k in keys])
        entries, start = [], 1
        for band in range(1, RELEVANCE_BANDS + 1):
            in_band = bands == band
            n = int(in_band.sum())
            if not n:
                continue
            entries.append({"key": f"r{band}", "label": f"{relevance_band(start, len(scores[bands > 0]))} · ranks {start}–{start + n - 1}",
                            "colour": colours[f"r{band}"], "count": n})
            start += n
        if counts["decided"]:
            entries.append({"key": "decided", "label": "decided (not ranked)", "colour": DECIDED_PALE,
                            "count": counts["decided"]})
        title = "predicted relevant (high: the first tenth of the queue, medium: the rest of its first half), in tenths"
        return title, entries

    # ------------------------------------------------------------------ deciding in bulk

    def plan_bulk(self, ids, decision: str, what: str = "the selection", change_decided: bool = False) -> BulkPlan:
        """What deciding ``ids`` as ``decision`` in bulk would do; nothing is written."""
        if decision not in BULK_DECISIONS:
            raise InputError(f"a bulk decision of {decision!r}; expected {' or '.join(BULK_DECISIONS)} "
                             "(a maybe is a judgement on one paper: decide it in 02)")
        selected = tuple(dict.fromkeys(self.session.selected(ids)))
        mine = self.my_decisions()
        decided = Counter(mine[p] for p in selected if p in mine)
        chosen = tuple(p for p in selected if mine.get(p) != decision and (change_decided or p not in mine))
        return BulkPlan(decision, what, selected, chosen, dict(decided), change_decided)

    def decide_bulk(self, plan: BulkPlan, reason: str | None = None) -> int:
        """Make the bulk decision ``plan`` previewed, as one action (one undo takes it back),
        marked as made in bulk; refused, with nothing written, when the papers' decisions
        changed since the preview (another notebook or the command line)."""
        now = self.plan_bulk(plan.selected, plan.decision, plan.what, plan.change_decided)
        if now.ids != plan.ids:
            raise InputError(f"the decisions of these papers changed since the preview ({len(plan.ids)} papers "
                             f"then, {len(now.ids)} now: decided elsewhere); nothing was changed; "
                             "ask for the preview again")
        if not plan.ids:
            return 0
        reason = (reason or "").strip() or f"in bulk from the map: {plan.what}"
        return self.session.decide(list(plan.ids), plan.decision, reason, bulk=True)

    def undecided_of(self, ids) -> list[str]:
        """Those of ``ids`` this reviewer has not decided (what "Screen these" sends first)."""
        mine = self.my_decisions()
        return [p for p in self.session.selected(ids) if p not in mine]

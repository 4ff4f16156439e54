"""Duplicates a person settled: "same paper" merges two papers, "different" keeps them apart.

A verdict is one row of ``duplicate_verdicts`` per pair of ids (stored in order, ``paper_a`` <
``paper_b``). "same" keeps the first paper given and merges the second into it in one undoable
action: every tag, note, decision, final decision and topic move of the second moves to the
first (where both have a tag, or a decision by the same reviewer, the newer stays), and the
second leaves the corpus. :meth:`Store.undo` takes all of it back, annotations included.
"different" is remembered for good: :func:`apart_pairs` is what updates (and the duplicate
candidates) consult, so the pair is never merged or proposed again. A new verdict on a pair
replaces the old one (saying "different" after a "same" does not move annotations back: undo the
"same" for that).
"""

from __future__ import annotations

import sqlite3

from ._errors import AnnotationInputError
from ._history import Action
from ._papers import move_annotations
from ._reports import DuplicateVerdict
from ._schema_v5 import VERDICTS

__all__ = ["apart_pairs", "merged_into", "set_verdict", "verdicts"]


def set_verdict(conn: sqlite3.Connection, reviewer: str, first: str, second: str, verdict: str,
                markers: tuple[str, ...] = ()) -> DuplicateVerdict:
    """Record ``verdict`` ("same" or "different") on the papers ``first`` and ``second`` (ids);
    the tags of the reviewers in ``markers`` (e.g. an update's "new since" tags) do not move."""
    if verdict not in VERDICTS:
        raise AnnotationInputError(f"duplicate verdict {verdict!r}: expected one of {', '.join(VERDICTS)}")
    if first == second:
        raise AnnotationInputError(f"{first} and {second} are one paper; give two different papers")
    a, b = sorted((first, second))
    with Action(conn, reviewer, f"duplicate-{verdict}") as act:
        row = {"verdict": verdict, "kept": first if verdict == "same" else None, "reviewer": reviewer,
               "decided_at": act.at}
        act.put("duplicate_verdicts", {"paper_a": a, "paper_b": b}, row)
        if verdict == "same":
            move_annotations(act, second, first, markers)
            paper = act.get("papers", {"id": second})
            if paper is not None:
                act.put("papers", {"id": second}, {**paper, "in_corpus": 0})
            act.summary = f"{second} is the same paper as {first}: merged into it, annotations moved"
        else:
            act.summary = f"{first} and {second} are different papers: kept apart"
    return DuplicateVerdict(a, b, verdict, row["kept"], reviewer, act.at)


def verdicts(conn: sqlite3.Connection) -> list[DuplicateVerdict]:
    """Every verdict, oldest first."""
    return [DuplicateVerdict(*r) for r in conn.execute(
        "SELECT paper_a, paper_b, verdict, kept, reviewer, decided_at FROM duplicate_verdicts "
        "ORDER BY decided_at, paper_a, paper_b")]


def apart_pairs(conn: sqlite3.Connection) -> set[frozenset]:
    """The pairs of ids a person said are different papers."""
    return {frozenset(r) for r in conn.execute(
        "SELECT paper_a, paper_b FROM duplicate_verdicts WHERE verdict = 'different'")}


def merged_into(conn: sqlite3.Connection) -> dict[str, str]:
    """``{merged id: kept id}`` of every "same" verdict."""
    return {(a if kept == b else b): kept for a, b, kept in conn.execute(
        "SELECT paper_a, paper_b, kept FROM duplicate_verdicts WHERE verdict = 'same'")}

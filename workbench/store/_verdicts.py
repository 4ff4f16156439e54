"""Duplicates a person settled: "same paper" merges two papers, "different" keeps them apart.

A verdict is one row of ``duplicate_verdicts`` per pair of ids (stored in order, ``paper_a`` <
``paper_b``). "same" keeps the first paper given and merges the second into it in one undoable
action: every tag, note, decision, final decision and topic move of the second moves to the
first (where both have a tag, the first's stays; a reviewer's two votes that differ both stay, a
conflict to resolve: ``_moving``), and the second leaves the corpus. :meth:`Store.undo` takes all of it back, annotations included.
"different" is remembered for good: :func:`apart_pairs` is what updates (and the duplicate
candidates) consult, so the pair is never merged or proposed again. A new verdict on a pair
replaces the old one, but two papers that are one through merges stay one: "same" again changes
nothing, "different" is refused (undo the merge to take it back). An id merged away names the
paper it joined (``_papers.resolve``), so "C is the same as B" after B was merged into A merges
A into C, with B's annotations.
"""

from __future__ import annotations

import sqlite3

from ._errors import AnnotationInputError, MergedPaperWarning
from ._history import Action
from ._papers import follow_merges, merge_chain, merged_into, move_annotations
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
    merges = merged_into(conn)
    chains = [merge_chain(pid, merges) for pid in (first, second)]
    if chains[0][-1] == chains[1][-1]:  # one paper already, through merges
        gone = second if len(chains[1]) > 1 else first
        if verdict == "same":
            return _merge_of(conn, gone)
        said = MergedPaperWarning({gone: merge_chain(gone, merges)}).joined
        raise AnnotationInputError(
            f"{said}, so {first} and {second} are one paper; nothing was saved; to keep them apart, undo "
            f"that merge first (`workbench history --paper {gone}` shows it, `workbench undo` takes it back)")
    first, second = follow_merges(conn, [first, second])
    a, b = sorted((first, second))
    with Action(conn, reviewer, f"duplicate-{verdict}") as act:
        row = {"verdict": verdict, "kept": first if verdict == "same" else None, "reviewer": reviewer,
               "decided_at": act.at}
        act.put("duplicate_verdicts", {"paper_a": a, "paper_b": b}, row)
        kept: list[str] = []
        if verdict == "same":
            kept = move_annotations(act, second, first, markers, keep_votes=True)
            paper = act.get("papers", {"id": second})
            if paper is not None:
                act.put("papers", {"id": second}, {**paper, "in_corpus": 0})
            act.summary = f"{second} is the same paper as {first}: merged into it, annotations moved" + (
                f"; both votes kept, a conflict to resolve: {'; '.join(kept)}" if kept else "")
        else:
            act.summary = f"{first} and {second} are different papers: kept apart"
    return DuplicateVerdict(a, b, verdict, row["kept"], reviewer, act.at, tuple(kept))


def _merge_of(conn: sqlite3.Connection, gone: str) -> DuplicateVerdict:
    """The "same" verdict that merged ``gone`` into another paper."""
    row = conn.execute(
        "SELECT paper_a, paper_b, verdict, kept, reviewer, decided_at FROM duplicate_verdicts "
        "WHERE verdict = 'same' AND kept != ?1 AND (paper_a = ?1 OR paper_b = ?1)", (gone,)).fetchone()
    return DuplicateVerdict(*row)


def verdicts(conn: sqlite3.Connection) -> list[DuplicateVerdict]:
    """Every verdict, oldest first."""
    return [DuplicateVerdict(*r) for r in conn.execute(
        "SELECT paper_a, paper_b, verdict, kept, reviewer, decided_at FROM duplicate_verdicts "
        "ORDER BY decided_at, paper_a, paper_b")]


def apart_pairs(conn: sqlite3.Connection) -> set[frozenset]:
    """The pairs of ids a person said are different papers."""
    return {frozenset(r) for r in conn.execute(
        "SELECT paper_a, paper_b FROM duplicate_verdicts WHERE verdict = 'different'")}

"""The switch to a new set of the review's files, and what an undo of it needs.

A saved topic run writes its files into ``<review>/generations/<name>/`` and records its topics
(``_topics.record_run``) in the same transaction as the switch below. With the run given, the
switch is one undoable action: its history holds the ``generation`` row of ``meta`` (before and
after) and the run's ``topic_runs`` row, so one undo names the previous files again and deletes
the run, which makes the previous run the latest (its assignments are kept, see
``_topics.KEEP_RUNS``) with every human edit laid over it as before. The undo is refused while
the previous files are gone (``workbench.review._folder.tidy`` keeps the newest few).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ._errors import AnnotationInputError
from ._history import Action
from ._schema import GENERATIONS

__all__ = ["papers_changed", "restorable", "switch_files"]



def switch_files(conn: sqlite3.Connection, reviewer: str, name: str, run: int | None) -> None:
    """Name ``generations/<name>`` the review's files; with ``run``, as one undoable topic run."""
    undoable = run is not None
    with Action(conn, reviewer, "topic-run" if undoable else "switch-files", undoable=undoable) as act:
        act.put("meta", {"key": "generation"}, {"value": name})
        if undoable:
            row = act.get("topic_runs", {"run": run})
            if row is None:
                raise AnnotationInputError(f"topic run {run} is not in the store; record the run "
                                           "(store.topics.record) before switching to its files")
            act.recorded("topic_runs", {"run": run}, None, row)
            act.summary = (f"saved topics ({row['n_topics']} topics, run {run}); the review's files "
                           f"are now generations/{name}")
        else:
            act.summary = f"the review's files are now generations/{name}"


def restorable(review: Path):
    """A check for ``_history.undo``: refuse to name files again that are gone, or to make a
    topic run the latest whose paper assignments were not kept."""

    def check(conn: sqlite3.Connection, table: str, key: dict, before: dict | None) -> None:
        if table == "meta" and key.get("key") == "generation":
            name = None if before is None else before["value"]
            if name is None or not (review / GENERATIONS / name / "build.json").exists():
                where = "the review's top level" if name is None else f"{GENERATIONS}/{name}"
                raise AnnotationInputError(
                    f"cannot undo the topic run: the previous files ({where}) are no longer in "
                    f"{review} (older sets are tidied away after a few saves); nothing was undone; "
                    "find the topics again (Show themes, or `workbench build`) instead")
        if table == "topic_runs" and before is None:
            previous = conn.execute("SELECT max(run) FROM topic_runs WHERE run < ?",
                                    (key["run"],)).fetchone()[0]
            kept = previous is not None and conn.execute(
                "SELECT 1 FROM run_assignments WHERE run = ? LIMIT 1", (previous,)).fetchone()
            if not kept:
                raise AnnotationInputError(
                    f"cannot undo topic run {key['run']}: the run before it is not kept in the "
                    "store; nothing was undone")

    return check


def papers_changed(conn: sqlite3.Connection, history_id: int) -> list[str]:
    """The ids of the papers a change touched (tags, notes, decisions, moves), in order."""
    found: dict[str, None] = {}
    for key, before, after in conn.execute(
            "SELECT key, before, after FROM history_changes WHERE history_id = ? ORDER BY seq",
            (history_id,)):
        for text in (key, before, after):
            pid = None if text is None else json.loads(text).get("paper_id")
            if pid:
                found.setdefault(pid)
    return list(found)

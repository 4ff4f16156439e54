"""Topic identities across refits, and human topic edits re-applied after every rebuild.

A topic model numbers its topics afresh on every fit, so the store gives each topic a stable
identity (``tid``). :func:`record_topics` matches a new run's topics to the previous run's by
the papers they share (``_topic_match``); a matched topic keeps its identity and with it every
human edit. A topic a person named that a refit lost (merged into another) competes too, by the
papers of the last run that held it (whose assignments are kept for that): when it splits out
again it takes its identity, and its name, back. Edits (rename, merge, move a paper) are stored
against identities, and :func:`apply_edits` lays them over any run. Topic ``-1`` (outliers) is
always identity ``-1``.
"""

from __future__ import annotations

import json
import numbers
import sqlite3
from collections.abc import Mapping

from ..corpus.paper import OUTLIER
from ._errors import AnnotationInputError, StoreError
from ._history import Action
from ._reports import TopicReport
from ._topic_match import match_run, match_topics

__all__ = [
    "OUTLIER",
    "apply_edits",
    "apply_topic_edits",
    "current_topics",
    "latest_run",
    "match_topics",
    "merge_topics",
    "move_paper",
    "record_run",
    "record_topics",
    "rename_topic",
    "topic_names",
]

# Runs whose paper assignments are kept: the newest 3 (older runs keep only their topics), and the
# last run of each named topic a refit lost (:func:`_lost_named`).
KEEP_RUNS = 3


# ----------------------------------------------------------------------------- reading runs

def latest_run(conn: sqlite3.Connection, required: bool = True):
    """``(run, {topic: tid}, {topic: label})`` of the newest run, or None when there is none."""
    row = conn.execute("SELECT max(run) FROM topic_runs").fetchone()
    if row[0] is None:
        if required:
            raise AnnotationInputError(
                "no topics recorded yet; build the review (or call store.topics.record) first"
            )
        return None
    run = row[0]
    topics = conn.execute(
        "SELECT topic, tid, label FROM run_topics WHERE run = ? ORDER BY topic", (run,)
    ).fetchall()
    return run, {t: tid for t, tid, _ in topics}, {t: label for t, _, label in topics}


def _assignments(conn: sqlite3.Connection, run: int) -> dict[str, int]:
    return dict(conn.execute(
        "SELECT paper_id, topic FROM run_assignments WHERE run = ?", (run,)))


def _edits(conn: sqlite3.Connection):
    parents, renames, moves = {}, [], []
    for kind, tid, into, pid, label in conn.execute(
            "SELECT kind, tid, into_tid, paper_id, label FROM topic_edits ORDER BY id"):
        if kind == "merge":
            parents[tid] = into
        elif kind == "rename":
            renames.append((tid, label))
        else:
            moves.append((pid, tid))
    return parents, renames, moves


def topic_names(conn: sqlite3.Connection) -> dict[int, str]:
    """Human-given name of each topic identity (the latest rename wins)."""
    _, renames, _ = _edits(conn)
    return dict(renames)


def _root(tid: int, parents: dict, present: Mapping) -> int:
    """Where a topic went through merges: the last identity on its chain that is present."""
    best, seen = tid, {tid}
    while tid in parents and parents[tid] not in seen:
        tid = parents[tid]
        seen.add(tid)
        if tid in present:
            best = tid
    return best


def apply_edits(assign: Mapping[str, int], labels: Mapping[int, str],
                topic_tid: Mapping[int, int], conn: sqlite3.Connection):
    """Lay the stored edits over one run's ``assign`` and ``labels``; returns new copies."""
    parents, renames, moves = _edits(conn)
    tid_topic = {tid: t for t, tid in topic_tid.items()}
    target = {t: tid_topic[_root(tid, parents, tid_topic)] for t, tid in topic_tid.items()}
    out = {pid: target.get(t, t) for pid, t in assign.items()}
    for pid, tid in moves:
        root = _root(tid, parents, tid_topic)
        if pid in out and root in tid_topic:
            out[pid] = tid_topic[root]
    new_labels = {t: label for t, label in labels.items() if target.get(t, t) == t}
    for tid, label in renames:
        if tid in tid_topic and _root(tid, parents, tid_topic) == tid:
            new_labels[tid_topic[tid]] = label
    return out, new_labels


def current_topics(conn: sqlite3.Connection):
    """The newest run with every edit applied: ``({paper: topic}, {topic: label})``."""
    latest = latest_run(conn, required=False)
    if latest is None:
        return {}, {}
    run, topic_tid, labels = latest
    return apply_edits(_assignments(conn, run), labels, topic_tid, conn)


# ----------------------------------------------------------------------------- recording

def _check_run(assignments, labels, words):
    if not isinstance(assignments, Mapping):
        raise AnnotationInputError(
            f"assignments: expected a dict {{paper_id: topic}}, got {type(assignments).__name__}")
    clean = {}
    for pid, t in assignments.items():
        try:
            if isinstance(t, bool):
                raise TypeError
            clean[str(pid)] = int(t)
        except (TypeError, ValueError) as err:
            raise AnnotationInputError(
                f"assignments[{pid!r}] = {t!r}: expected a whole topic number (-1 for outliers)"
            ) from err
    labels = {int(t): str(v) for t, v in (labels or {}).items()}
    words = {int(t): [str(w) for w in v] for t, v in (words or {}).items()}
    return clean, labels, words


def record_topics(conn: sqlite3.Connection, reviewer: str, assignments, labels, words, *,
                  min_jaccard: float = 0.2) -> TopicReport:
    """Store a new topic run, matched to the previous one; see :func:`match_topics`."""
    assignments, labels, words = _check_run(assignments, labels, words)
    known = {r[0] for r in conn.execute("SELECT id FROM papers")}
    unknown = sorted(set(assignments) - known)
    if unknown:
        raise AnnotationInputError(
            f"{len(unknown)} assigned papers are not in the store (e.g. {unknown[:3]}); "
            "call store.sync_papers(rows) with the corpus first"
        )
    with Action(conn, reviewer, "record-topics", undoable=False) as act:
        report = record_run(act, assignments, labels, words, min_jaccard=min_jaccard)
        act.summary = str(report)
    return report


def record_run(act: Action, assignments: dict, labels: dict, words: dict, *,
               min_jaccard: float = 0.2) -> TopicReport:
    """Insert a checked run inside the open action ``act``; see :func:`record_topics`."""
    conn, reviewer = act.conn, act.reviewer
    previous = latest_run(conn, required=False)
    prev_assign = _assignments(conn, previous[0]) if previous else {}
    prev_tid = previous[1] if previous else {}
    m = match_run(prev_assign, assignments, _lost_named(conn, prev_tid), min_jaccard=min_jaccard)
    topics = sorted(set(assignments.values()) | set(labels))
    sizes = {t: 0 for t in topics}
    for t in assignments.values():
        sizes[t] += 1
    run = conn.execute(
        "INSERT INTO topic_runs (created_at, reviewer, n_papers, n_topics) VALUES (?, ?, ?, ?)",
        (act.at, reviewer, len(assignments), len([t for t in topics if t != OUTLIER])),
    ).lastrowid
    tids = {}
    for t in topics:
        if t == OUTLIER:
            conn.execute("INSERT OR IGNORE INTO topic_ids (tid, first_run) VALUES (-1, ?)",
                         (run,))
            tids[t] = OUTLIER
        elif t in m["matched"]:
            tids[t] = prev_tid[m["matched"][t]]
        elif t in m["restored"]:
            tids[t] = m["restored"][t]
        else:
            tids[t] = conn.execute(
                "INSERT INTO topic_ids (first_run) VALUES (?)", (run,)).lastrowid
    conn.executemany(
        "INSERT INTO run_topics (run, topic, tid, label, words, size) VALUES (?, ?, ?, ?, ?, ?)",
        [(run, t, tids[t], labels.get(t, ""), json.dumps(words.get(t, []), ensure_ascii=False),
          sizes[t]) for t in topics],
    )
    conn.executemany(
        "INSERT INTO run_assignments (run, paper_id, topic) VALUES (?, ?, ?)",
        [(run, pid, t) for pid, t in sorted(assignments.items())],
    )
    conn.execute(
        "DELETE FROM run_assignments WHERE run NOT IN (SELECT run FROM topic_runs ORDER BY run DESC LIMIT ?) "
        "AND run NOT IN (SELECT max(run) FROM run_topics WHERE tid IN "
        "(SELECT tid FROM topic_edits WHERE kind = 'rename') GROUP BY tid)", (KEEP_RUNS,))
    names = topic_names(conn)
    kept = set(tids.values())
    report = TopicReport(
        run=run,
        previous_run=previous[0] if previous else None,
        matched=m["matched"], jaccard=m["jaccard"],
        new=tuple(m["new"]) if previous else tuple(t for t in topics if t != OUTLIER),
        gone=tuple(m["gone"]),
        split={p: tuple(c) for p, c in m["split"].items()},
        merged={t: tuple(p) for t, p in m["merged"].items()},
        names={t: names[tids[t]] for t in topics if tids[t] in names},
        names_lost={p: names[tid] for p, tid in prev_tid.items()
                    if tid in names and tid not in kept},
        names_back={t: names[tid] for t, tid in m["restored"].items() if tid in names},
    )
    conn.execute("UPDATE topic_runs SET report = ? WHERE run = ?",
                 (json.dumps(_jsonable(report), sort_keys=True), run))
    return report


def _lost_named(conn: sqlite3.Connection, present: Mapping[int, int]) -> dict[int, tuple[dict[str, int], int]]:
    """The named topic identities not in the run ``present`` (``{topic: tid}``), each with the
    assignments of the last run that held it and its topic there (when that run is kept)."""
    named = {r[0] for r in conn.execute("SELECT DISTINCT tid FROM topic_edits WHERE kind = 'rename'")}
    out, runs = {}, {}
    for tid in sorted(named - set(present.values()) - {OUTLIER}):
        row = conn.execute(
            "SELECT run, topic FROM run_topics WHERE tid = ? AND run IN (SELECT DISTINCT run FROM run_assignments) "
            "ORDER BY run DESC LIMIT 1", (tid,)).fetchone()
        if row is not None:
            if row[0] not in runs:
                runs[row[0]] = _assignments(conn, row[0])
            out[tid] = (runs[row[0]], row[1])
    return out


def _jsonable(report: TopicReport) -> dict:
    return {k: ({str(a): b for a, b in v.items()} if isinstance(v, dict) else v)
            for k, v in report.__dict__.items()}


# ----------------------------------------------------------------------------- edits

def _visible_tid(conn: sqlite3.Connection, topic, what: str) -> tuple[int, int]:
    """``(topic, tid)`` of a topic the reviewer can see in the newest run (not merged away)."""
    if isinstance(topic, bool) or not isinstance(topic, numbers.Integral):
        raise AnnotationInputError(f"{what} {topic!r}: expected a topic number such as 3")
    topic = int(topic)
    _, topic_tid, _ = latest_run(conn)
    if topic not in topic_tid:
        shown = ", ".join(str(t) for t in sorted(topic_tid)[:30])
        raise AnnotationInputError(
            f"{what} {topic} is not a topic of the latest build; its topics are: {shown}"
        )
    parents, _, _ = _edits(conn)
    tid_topic = {tid: t for t, tid in topic_tid.items()}
    root = _root(topic_tid[topic], parents, tid_topic)
    if root != topic_tid[topic]:
        raise AnnotationInputError(
            f"{what} {topic} was merged into topic {tid_topic[root]}; use topic {tid_topic[root]}"
        )
    return topic, topic_tid[topic]


def _edit_row(act: Action, kind: str, tid=None, into=None, pid=None, label=None) -> dict:
    return {"kind": kind, "tid": tid, "into_tid": into, "paper_id": pid, "label": label,
            "reviewer": act.reviewer, "created_at": act.at}


def rename_topic(conn: sqlite3.Connection, reviewer: str, topic: int, label: str) -> None:
    if not isinstance(label, str) or not label.strip():
        raise AnnotationInputError(f"topic name {label!r} is empty; give a short name")
    label = " ".join(label.split())
    with Action(conn, reviewer, "rename-topic") as act:
        topic, tid = _visible_tid(conn, topic, "topic")
        act.insert("topic_edits", _edit_row(act, "rename", tid=tid, label=label))
        act.summary = f"rename topic {topic} -> {label!r}"


def merge_topics(conn: sqlite3.Connection, reviewer: str, topics, into=None) -> int:
    """Merge ``topics`` into ``into`` (default: the first); returns the topic they became."""
    topics = list(topics)
    if into is None and topics:
        into = topics[0]
    others = [t for t in dict.fromkeys(topics) if t != into]
    if not others:
        raise AnnotationInputError(
            f"merging topics {topics!r} into {into!r} has nothing to merge; give two or more "
            "topics, e.g. [3, 7] into 3"
        )
    with Action(conn, reviewer, "merge-topics") as act:
        into, into_tid = _visible_tid(conn, into, "topic")
        if into == OUTLIER or OUTLIER in others:
            raise AnnotationInputError(
                "topic -1 holds the outliers and cannot be merged; move papers out of it instead")
        for t in others:
            t, tid = _visible_tid(conn, t, "topic")
            act.insert("topic_edits", _edit_row(act, "merge", tid=tid, into=into_tid))
        act.summary = f"merge topics {', '.join(map(str, others))} into {into}"
    return into


def move_paper(conn: sqlite3.Connection, reviewer: str, pid: str, topic: int) -> None:
    with Action(conn, reviewer, "move-paper") as act:
        topic, tid = _visible_tid(conn, topic, "topic")
        act.insert("topic_edits", _edit_row(act, "move", tid=tid, pid=pid))
        act.summary = f"move {pid} to topic {topic}"


def apply_topic_edits(conn: sqlite3.Connection, assignments, labels):
    """Re-apply the human edits to a freshly built and recorded run."""
    assignments, labels, _ = _check_run(assignments, labels, {})
    run, topic_tid, _ = latest_run(conn)
    stored = _assignments(conn, run)
    if stored != assignments:
        differ = sum(1 for pid, t in assignments.items() if stored.get(pid) != t)
        raise StoreError(
            f"store.topics.apply_edits got {len(assignments)} assignments that are not the last "
            f"recorded run (run {run}, {len(stored)} papers; {differ} differ); call "
            "store.topics.record(assignments, labels, words) with this build first"
        )
    return apply_edits(assignments, labels, topic_tid, conn)

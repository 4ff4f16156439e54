"""Paper metadata in the store: syncing the corpus, orphans, and resolving ids.

The store never deletes a paper. A sync marks which papers are in the current corpus; a paper
that leaves it keeps every annotation and is reported as orphaned until it comes back.

:func:`resolve` and :func:`resolve_many` are the one route from an id or id prefix that a person
or a program gives to the paper the store works on: an id a person merged into another ("same
paper", ``_verdicts``) resolves to the paper it joined, through any chain of merges, with a
:class:`MergedPaperWarning` saying so; undoing the merge makes the id its own paper again.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import warnings
from collections.abc import Iterable

from ._errors import AmbiguousPaperError, AnnotationInputError, MergedPaperWarning, UnknownPaperError
from ._history import Action
from ._moving import move_annotations
from ._reports import SyncReport

__all__ = ["META_COLUMNS", "check_id", "follow_merges", "joined_family", "merge_chain", "merged_into", "orphaned",
           "paper_rows", "resolve", "resolve_many", "sync_papers"]

ID_RE = re.compile(r"[0-9a-f]{12}")
_PREFIX_RE = re.compile(r"[0-9a-f]{1,12}")
META_COLUMNS = ("title", "abstract", "authors", "year", "doi", "venue", "url", "keywords",
                "collection", "source")

_ANNOTATED = """
    SELECT paper_id FROM paper_tags UNION SELECT paper_id FROM notes
    UNION SELECT paper_id FROM decisions UNION SELECT paper_id FROM final_decisions
    UNION SELECT paper_id FROM topic_edits WHERE paper_id IS NOT NULL
"""


def check_id(value, where: str = "") -> str:
    if not isinstance(value, str) or not ID_RE.fullmatch(value):
        raise AnnotationInputError(
            f"{where}paper id {value!r} is not usable: expected 12 lower-case hexadecimal "
            "characters (workbench.corpus.ids.paper_id)"
        )
    return value


def _text(value) -> str:
    return "" if value is None else str(value)


def _opt(value) -> str | None:
    return None if value is None or value == "" else str(value)


def _list(value, name: str, where: str) -> str:
    if value is None:
        value = []
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise AnnotationInputError(
            f"{where}{name}={value!r}: expected a list of strings; pass [] when there are none"
        )
    return json.dumps([str(v) for v in value], ensure_ascii=False)


def _year(value, where: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        if isinstance(value, float) and math.isnan(value):  # NaN from a DataFrame
            return None
        return int(value)
    except (TypeError, ValueError) as err:
        raise AnnotationInputError(f"{where}year={value!r}: expected a whole number or None") from err


def _row(paper: dict, i: int) -> tuple:
    if not isinstance(paper, dict):
        raise AnnotationInputError(
            f"row {i}: expected a dict with id, title, abstract, authors, ...; got "
            f"{type(paper).__name__} (use Paper.to_dict())"
        )
    where = f"row {i}: "
    pid = check_id(paper.get("id"), where)
    return (
        pid,
        _text(paper.get("title")),
        _text(paper.get("abstract")),
        _list(paper.get("authors"), "authors", where),
        _year(paper.get("year"), where),
        _opt(paper.get("doi")),
        _opt(paper.get("venue")),
        _opt(paper.get("url")),
        _list(paper.get("keywords"), "keywords", where),
        _text(paper.get("collection")),
        _text(paper.get("source")),
    )


#: Where the last sync says what it synced: ``[key, its history row, _ROWS]`` (see :func:`sync_papers`).
_SYNCED = "synced_corpus"
#: How rows are made of the papers given (_row): a change to that changes this, and no key matches.
_ROWS = 1


def sync_papers(conn: sqlite3.Connection, reviewer: str, rows: Iterable[dict], key: str | None = None) -> SyncReport:
    """Upsert paper metadata and mark exactly ``rows`` as the current corpus.

    A row's ``aliases`` (other ids of the same paper) carry annotations over to its id.
    ``key``: what the rows are a function of (a digest of the sources the caller read them from,
    see ``review.build._build``). When the last sync of this store, by any workbench version, was
    made with the same key, the store holds these rows already and they are not read (a
    rebuild of unchanged sources: 50,000 rows cost ~1.5 s): only their annotations' carrying
    over is looked at again. Nothing but a sync writes a paper's metadata or puts it into the
    corpus (a "same paper" verdict takes one out: the caller's key covers those).
    """
    if key is not None and _synced_with(conn, key):
        try:
            return _unchanged(conn, reviewer, key, rows)
        except _SyncedSince:  # another process synced in between: read the rows after all
            pass
    aliases: dict[str, str] = {}
    cols = ("id",) + META_COLUMNS
    with Action(conn, reviewer, "sync", undoable=False) as act:
        # The rows go to a table of this connection's temporary database as they come, not to
        # a dict: a million papers' abstracts held at once were gigabytes of a build's save.
        conn.execute(f"CREATE TEMP TABLE {_ROWS_IN} (id TEXT PRIMARY KEY, {', '.join(META_COLUMNS)})")
        try:
            insert = f"INSERT OR REPLACE INTO {_ROWS_IN} VALUES ({', '.join('?' * len(cols))})"  # (a repeated id: its last row)
            batch = []
            for i, paper in enumerate(rows):
                batch.append(_row(paper, i))
                _note_aliases(aliases, paper, batch[-1][0])
                if len(batch) == _BATCH:
                    conn.executemany(insert, batch)
                    batch.clear()
            conn.executemany(insert, batch)
            del batch
            synced = _synced_rows(conn)
            conn.execute(f"INSERT INTO papers ({', '.join(cols)}, in_corpus) SELECT {', '.join(cols)}, 1 "
                         f"FROM {_ROWS_IN} WHERE id NOT IN (SELECT id FROM papers) ORDER BY id")
            meta = ", ".join(META_COLUMNS)
            conn.executemany(f"UPDATE papers SET ({meta}) = (SELECT {meta} FROM {_ROWS_IN} WHERE id = ?) WHERE id = ?",
                             [(pid, pid) for pid in synced["updated"]])
            conn.executemany("UPDATE papers SET in_corpus = 1 WHERE id = ?", [(pid,) for pid in synced["returned"]])
            conn.executemany("UPDATE papers SET in_corpus = 0 WHERE id = ?", [(pid,) for pid in synced["left"]])
            n = conn.execute(f"SELECT count(*) FROM {_ROWS_IN}").fetchone()[0]
            corpus = {r[0] for r in conn.execute(f"SELECT id FROM {_ROWS_IN}")} if aliases else set()
        finally:
            conn.execute(f"DROP TABLE IF EXISTS {_ROWS_IN}")
        act.summary = (f"sync {n} papers: {len(synced['added'])} new, {len(synced['updated'])} updated, "
                       f"{len(synced['left'])} left the corpus, {len(synced['returned'])} came back")
        _remember_sync(act, key)
    carried = carry_over(conn, reviewer, aliases, corpus)
    return SyncReport(
        n_papers=n, added=tuple(synced["added"]), updated=tuple(synced["updated"]),
        left_corpus=tuple(synced["left"]), returned=tuple(synced["returned"]), orphaned=tuple(orphaned(conn)),
        carried_over=carried,
    )


#: Where :func:`sync_papers` puts the rows it is given (this connection's temporary database), and
#: how many it hands SQLite at a time.
_ROWS_IN = "temp.synced_rows"
_BATCH = 10_000
#: Whether a paper's stored metadata (``papers``) differs from the row given (``s``).
_DIFFERS = " OR ".join(f"papers.{c} IS NOT s.{c}" for c in META_COLUMNS)


def _synced_rows(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """The ids (sorted) of the rows given to :func:`sync_papers` that are new to the store, that
    change a paper's metadata, that come back to the corpus; and of the papers that leave it."""
    base = f"SELECT s.id FROM {_ROWS_IN} AS s JOIN papers ON papers.id = s.id"
    return {
        "added": [r[0] for r in conn.execute(
            f"SELECT id FROM {_ROWS_IN} WHERE id NOT IN (SELECT id FROM papers) ORDER BY id")],
        "updated": [r[0] for r in conn.execute(f"{base} WHERE {_DIFFERS} ORDER BY s.id")],
        "returned": [r[0] for r in conn.execute(f"{base} WHERE NOT papers.in_corpus ORDER BY s.id")],
        "left": [r[0] for r in conn.execute(
            f"SELECT id FROM papers WHERE in_corpus AND id NOT IN (SELECT id FROM {_ROWS_IN}) ORDER BY id")],
    }


def _note_aliases(aliases: dict[str, str], paper: dict, pid: str) -> None:
    """``aliases[old id] = pid`` for each other id ``paper`` lists (the first paper naming one keeps it)."""
    for alias in paper.get("aliases") or ():
        aliases.setdefault(str(alias), pid)


def _synced_with(conn: sqlite3.Connection, key: str) -> bool:
    """Whether the last sync (the newest "sync" in the history) was made with ``key``."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_SYNCED,)).fetchone()
    last = conn.execute("SELECT max(id) FROM history WHERE action = 'sync'").fetchone()[0]
    try:
        return row is not None and json.loads(row[0]) == [key, last, _ROWS]
    except ValueError:  # (a value no version of this code wrote: not a match)
        return False


def _remember_sync(act: Action, key: str | None) -> None:
    """Note the key of the sync ``act`` is (or none) with its history row, in its transaction."""
    if key is None:
        act.conn.execute("DELETE FROM meta WHERE key = ?", (_SYNCED,))
        return
    act.then(lambda history_id: act.conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (_SYNCED, json.dumps([key, history_id, _ROWS]))))


class _SyncedSince(Exception):
    """The last sync is not the one with the key any more (looked at again under the write lock)."""


def _unchanged(conn: sqlite3.Connection, reviewer: str, key: str, rows: Iterable[dict]) -> SyncReport:
    """:func:`sync_papers` of the rows the last sync stored (same ``key``): recorded as a sync,
    no row read; annotations made under an old id since then are carried over as ever."""
    with Action(conn, reviewer, "sync", undoable=False) as act:
        if not _synced_with(conn, key):
            raise _SyncedSince
        n = conn.execute("SELECT count(*) FROM papers WHERE in_corpus = 1").fetchone()[0]
        act.summary = f"sync {n} papers: unchanged (the same sources and verdicts as the last sync)"
        _remember_sync(act, key)
    carried: tuple[tuple[str, str], ...] = ()
    orphans = orphaned(conn)
    if orphans:  # (else no annotation waits under an id that is not in the corpus)
        aliases: dict[str, str] = {}
        for paper in rows:
            _note_aliases(aliases, paper, str(paper.get("id")))
        corpus = {r[0] for r in conn.execute("SELECT id FROM papers WHERE in_corpus = 1")}
        carried = carry_over(conn, reviewer, aliases, corpus)
        orphans = orphaned(conn) if carried else orphans
    return SyncReport(n_papers=n, orphaned=tuple(orphans), carried_over=carried, unchanged=True)


def carry_over(conn: sqlite3.Connection, reviewer: str, aliases: dict[str, str],
               corpus: set[str]) -> tuple[tuple[str, str], ...]:
    """Move the annotations made under an old id of a paper to its current id.

    A paper first read without a DOI has a content id; once an export brings its DOI it gets a
    DOI id, and ``aliases`` maps the old id to the new one. Tags, notes, decisions and topic
    moves on the old id (when it is no longer in the corpus) move over, in one undoable action.
    Where both ids carry the same tag, or a decision by the same reviewer, the newer one stays.
    """
    pairs = [(old, new) for old, new in sorted(aliases.items()) if old != new and old not in corpus]
    known = {r[0] for r in conn.execute(f"SELECT id FROM papers WHERE id IN ({_ANNOTATED})")}
    pairs = [(old, new) for old, new in pairs if old in known]
    if not pairs:
        return ()
    moved = []
    with Action(conn, reviewer, "carry-over") as act:
        for old, new in pairs:
            move_annotations(act, old, new)
            moved.append((old, new))
        act.summary = f"carry annotations of {len(moved)} papers over to their new ids"
    return tuple(moved)


def orphaned(conn: sqlite3.Connection) -> list[str]:
    """Ids of annotated papers that are not in the current corpus, sorted."""
    return [r[0] for r in conn.execute(
        f"SELECT id FROM papers WHERE in_corpus = 0 AND id IN ({_ANNOTATED}) ORDER BY id")]


def resolve(conn: sqlite3.Connection, text, where: str = "", *, follow: bool = True) -> str:
    """The full id of the one paper whose id is ``text`` or starts with it; with ``follow``, the
    paper it joined when a person merged it into another (see the module)."""
    pid = _lookup(conn, text, where)
    return follow_merges(conn, [pid])[0] if follow else pid


def _lookup(conn: sqlite3.Connection, text, where: str) -> str:
    prefix = str(text).strip().lower() if isinstance(text, str) else ""
    if not _PREFIX_RE.fullmatch(prefix):
        raise UnknownPaperError(
            f"{text!r} is not a paper id: expected 12 hexadecimal characters or a unique "
            "prefix of one, e.g. 3f2a9c"
        )
    rows = conn.execute(
        "SELECT id, title FROM papers WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
        (prefix, prefix + "g"),
    ).fetchall()
    if len(rows) == 1:
        return rows[0][0]
    if not rows:
        total = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
        raise UnknownPaperError(
            f"no paper with id or id prefix {prefix!r} among the {total} papers of {where or 'the store'}; "
            "check the id in the map or an export, or rebuild the review if it is new"
        )
    shown = "; ".join(f"{pid} {title[:40]!r}" for pid, title in rows[:5])
    more = " ..." if len(rows) > 5 else ""
    raise AmbiguousPaperError(
        f"id prefix {prefix!r} matches several papers ({shown}{more}); give more characters"
    )


def resolve_many(conn: sqlite3.Connection, items: list, where: str = "", *, follow: bool = True) -> list[str]:
    """:func:`resolve` for each of ``items``, with full ids looked up in bulk (a map selection of
    50,000 papers is a few queries, not 50,000); prefixes and errors go through :func:`resolve`."""
    if len(items) == 1:
        return [resolve(conn, items[0], where, follow=follow)]
    wanted = sorted({i for i in items if isinstance(i, str) and ID_RE.fullmatch(i)})
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        found.update(r[0] for r in conn.execute(
            f"SELECT id FROM papers WHERE id IN ({', '.join('?' * len(chunk))})", chunk))
    ids = [i if i in found else _lookup(conn, i, where) for i in items]
    return follow_merges(conn, ids) if follow else ids


def merged_into(conn: sqlite3.Connection) -> dict[str, str]:
    """``{merged id: kept id}`` of every "same paper" verdict (one step; chains are followed by
    :func:`resolve`)."""
    return {(a if kept == b else b): kept for a, b, kept in conn.execute(
        "SELECT paper_a, paper_b, kept FROM duplicate_verdicts WHERE verdict = 'same'")}


def merge_chain(pid: str, merges: dict[str, str]) -> list[str]:
    """``[pid, the paper it was merged into, ...]`` by the merges of :func:`merged_into`."""
    chain = [pid]
    while chain[-1] in merges and merges[chain[-1]] not in chain:  # (a cycle, by hand: stop)
        chain.append(merges[chain[-1]])
    return chain


def follow_merges(conn: sqlite3.Connection, ids: list[str]) -> list[str]:
    """Each of ``ids`` (full ids), or the paper it joined through merges; one
    :class:`MergedPaperWarning` names those merged away."""
    merges = merged_into(conn)
    if not merges:
        return ids
    chains = {pid: merge_chain(pid, merges) for pid in dict.fromkeys(ids) if pid in merges}
    if chains:
        warnings.warn(MergedPaperWarning(chains), stacklevel=2)
    return [chains[pid][-1] if pid in chains else pid for pid in ids]


def joined_family(conn: sqlite3.Connection, pid: str) -> list[str]:
    """``pid`` and every id merged into it, directly or through a chain (its history is theirs)."""
    merges = merged_into(conn)
    return [pid] + sorted(m for m in merges if m != pid and merge_chain(m, merges)[-1] == pid)


def paper_rows(conn: sqlite3.Connection, ids: Iterable[str] | None = None) -> list[dict]:
    """Metadata of every paper (or of ``ids``) as dicts, sorted by id; lists decoded."""
    cols = ("id",) + META_COLUMNS + ("in_corpus",)
    sql = f"SELECT {', '.join(cols)} FROM papers"
    params: list = []
    if ids is not None:
        ids = list(ids)
        sql += f" WHERE id IN ({', '.join('?' * len(ids))})"
        params = ids
    out = []
    for r in conn.execute(sql + " ORDER BY id", params):
        d = dict(zip(cols, r))
        d["authors"] = json.loads(d["authors"])
        d["keywords"] = json.loads(d["keywords"])
        d["in_corpus"] = bool(d["in_corpus"])
        out.append(d)
    return out

"""Snapshots of the store: made with SQLite's backup API, kept in ``<review>/backups/``.

A snapshot is a consistent copy of the store taken through the process's own connection (never
a file copy, which could catch a half-written page or, worse, drop this process's locks). One is
taken before every schema migration, rebuild, import and topic run, and by ``workbench backup``;
the newest :data:`KEEP` are kept. A snapshot whose store has not changed since the newest one is
not taken again. ``restore`` writes a snapshot back into the live store through the backup API
too, so processes that hold the store open see the restored data on their next read.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .._runtime.fsutil import default_file_mode, fsync_path
from ._diagnose import explain
from ._errors import StoreError

__all__ = ["BACKUP_DIR", "KEEP", "Snapshot", "choose", "health", "restore_into", "snapshot",
           "snapshot_lines", "snapshots"]

BACKUP_DIR = "backups"
KEEP = 5
_NAME = re.compile(r"annotations\.(\d{8}T\d{6}\d{6}Z)\.([a-z0-9-]+)\.h(\d+)\.sqlite")


@dataclass(frozen=True)
class Snapshot:
    path: Path
    taken_at: str  # 2026-11-30 18:30:00 UTC
    reason: str
    history_id: int  # the newest change in it

    def __str__(self) -> str:
        size = self.path.stat().st_size / 1e6 if self.path.exists() else 0.0
        return (f"{self.path.name}  {self.taken_at}  {self.reason}  "
                f"(up to change #{self.history_id}, {size:.1f} MB)")


def _folder(store_path: Path) -> Path:
    return store_path.parent / BACKUP_DIR


def _parse(path: Path) -> Snapshot | None:
    m = _NAME.fullmatch(path.name)
    if m is None:
        return None
    at = datetime.strptime(m.group(1), "%Y%m%dT%H%M%S%fZ")
    return Snapshot(path, at.strftime("%Y-%m-%d %H:%M:%S UTC"), m.group(2), int(m.group(3)))


def snapshots(store_path: Path) -> list[Snapshot]:
    """The snapshots of the store at ``store_path``, newest first."""
    folder = _folder(store_path)
    found = []
    if folder.is_dir():
        found = [s for s in map(_parse, folder.iterdir()) if s is not None]
    return sorted(found, key=lambda s: s.path.name, reverse=True)


def _newest_change(conn: sqlite3.Connection) -> int:
    try:
        return int(conn.execute("SELECT coalesce(max(id), 0) FROM history").fetchone()[0])
    except sqlite3.Error:  # a store from before the history table (schema 1)
        return 0


def snapshot(conn: sqlite3.Connection, store_path: Path, reason: str, *,
             force: bool = False) -> Snapshot | None:
    """Copy the store into ``backups/`` (skipped when nothing changed since the newest snapshot,
    unless ``force``); returns the snapshot, or None when none was needed."""
    newest = _newest_change(conn)
    existing = snapshots(store_path)
    if not force and (newest == 0 or (existing and existing[0].history_id == newest)):
        return None  # nothing to keep yet, or nothing changed since the newest snapshot
    folder = _folder(store_path)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    reason = re.sub(r"[^a-z0-9-]+", "-", reason.lower()).strip("-") or "manual"
    final = folder / f"annotations.{stamp}.{reason}.h{newest}.sqlite"
    tmp = folder / f".{final.name}.tmp{os.getpid()}"
    try:
        folder.mkdir(exist_ok=True)
        dest = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.backup(dest)
            dest.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            dest.close()
        os.chmod(tmp, default_file_mode())
        fsync_path(tmp)
        os.replace(tmp, final)
    except (OSError, sqlite3.Error) as err:
        for leftover in (tmp, Path(f"{tmp}-journal")):
            try:
                leftover.unlink(missing_ok=True)
            except OSError:  # a read-only file system: nothing was made there
                pass
        raise explain(err, folder, "the store itself was not changed", review=store_path.parent,
                      doing=f"could not write a snapshot of {store_path} into {folder}") from err
    for old in snapshots(store_path)[KEEP:]:
        old.path.unlink(missing_ok=True)
    return Snapshot(final, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
                    reason, newest)


def choose(store_path: Path, snapshot=None) -> Snapshot:
    """The snapshot to restore: ``snapshot`` (a path, or a name in the backups folder), else
    the newest one."""
    if snapshot is not None:
        path = Path(snapshot)
        if not path.exists() and (_folder(store_path) / path.name).exists():
            path = _folder(store_path) / path.name
        return _parse(path) or Snapshot(path, "time unknown", "a file given", -1)
    chosen = snapshots(store_path)
    if not chosen:
        raise StoreError(f"no snapshots in {_folder(store_path)} to restore from (`workbench backup "
                         f"--review {store_path.parent}` makes one of a store that opens); nothing "
                         "was changed")
    return chosen[0]


def restore_into(conn: sqlite3.Connection, snapshot_path: Path) -> None:
    """Write the snapshot's content into the live store through ``conn`` (one transaction)."""
    src = sqlite3.connect(f"file:{snapshot_path}?mode=ro", uri=True)
    try:
        for attempt in range(20):
            try:
                src.backup(conn)
                return
            except sqlite3.OperationalError as err:  # another process is writing: try again
                if "locked" not in str(err) and "busy" not in str(err):
                    raise
                time.sleep(0.25 * (attempt + 1))
        raise StoreError("the store stayed busy for over a minute; close other notebooks "
                         "and try the restore again")
    finally:
        src.close()


GENERATION_FILES = ("build.json", "papers.jsonl", "topics.json", "map.csv", "arrays.safetensors")


def health(conn: sqlite3.Connection, store_path: Path, files: bool = True) -> list[str]:
    """``store.files.check``: one line per finding, the first saying whether all is well. ``files``:
    also whether the current files are there (``workbench check`` verifies their content with
    ``workbench.review`` verify instead)."""
    from ._papers import orphaned

    problems, lines = [], []
    integrity = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
    if integrity != ["ok"]:
        problems.append(f"integrity: {'; '.join(integrity[:5])}")
    broken = conn.execute("PRAGMA foreign_key_check").fetchall()
    if broken:
        problems.append(f"{len(broken)} broken references (first: {tuple(broken[0])})")
    lines.append(f"integrity: {'ok' if integrity == ['ok'] else 'DAMAGED'}; "
                 f"references: {'ok' if not broken else len(broken)}")
    n_papers, in_corpus = conn.execute(
        "SELECT count(*), coalesce(sum(in_corpus), 0) FROM papers").fetchone()
    gone = orphaned(conn)
    lines.append(f"papers: {in_corpus} in the corpus, {n_papers - in_corpus} no longer in it "
                 f"({len(gone)} of those annotated: orphans, kept with their annotations)")
    row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    review = store_path.parent
    if files and row is None:
        lines.append("files: at the review's top level (built before generations)")
    elif files:
        folder = review / "generations" / row[0]
        missing = [f for f in GENERATION_FILES if not (folder / f).exists()]
        if missing:
            problems.append(f"the current files generations/{row[0]} lack {', '.join(missing)}")
        lines.append(f"files: generations/{row[0]}" + (f" (MISSING {', '.join(missing)})"
                                                      if missing else " (all there)"))
    lines += snapshot_lines(store_path)
    head = "ok" if not problems else "PROBLEMS: " + "; ".join(problems)
    return [head, *lines]


def snapshot_lines(store_path: Path) -> list[str]:
    """What ``check`` says of the snapshots: how many, the newest, how to restore."""
    review = store_path.parent
    found = snapshots(store_path)
    if not found:
        return [f"snapshots: none yet; `workbench backup --review {review}` makes one"]
    return [f"snapshots: {len(found)} in {review / BACKUP_DIR}; newest: {found[0]}",
            f"  restore the newest with `workbench restore --review {review}`, another with "
            f"`workbench restore NAME --review {review}`"]

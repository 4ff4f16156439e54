"""Putting a snapshot back: checked before it replaces anything, and possible whatever state the
store is in (healthy, damaged, truncated, empty, not a store, moved away).

1. **Staged and checked.** The snapshot is copied with SQLite's backup API (reading it read-only)
   into a staging file beside the store, and the copy is checked: ``PRAGMA integrity_check``, a
   workbench store, a schema this workbench knows (an older one is migrated, in the copy), and
   that it belongs to this review (its review id, see ``_identity``). One of another review is
   refused unless forced; one that cannot be told (made before review ids, from outside the
   review's ``backups/``) too.
2. **Made this review's.** The copy keeps this review's id, names files this review has (a
   generation the review no longer has, or another review's, is replaced by the review's
   current one), and gets a ``restore`` entry in its history.
3. **Put in place.**

   - A store that opens and is sound is written over through the backup API and this process's
     connection (``store.files.restore``), so processes holding it open see the restored data on
     their next read; the store as it was is snapshotted first.
   - A store that cannot be opened (or fails its integrity check), and a missing one: the file,
     with its ``-wal`` and ``-shm``, is renamed aside to ``annotations.damaged-<time>.sqlite``
     (never deleted) and the checked copy linked into its place. This needs no SQLite
     connection to the old file, and is refused while another process holds it open (its
     SQLite locks, probed with ``fcntl``, say so; ``/proc/locks`` says which process). The
     process doing it holds no connection to the file either (``_connection``), so the plain
     descriptors of the lock probe cannot drop anybody's locks.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
import urllib.parse
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from .._runtime.fsutil import default_file_mode, fsync_path
from . import _identity as identity
from ._backup import BACKUP_DIR, Snapshot, choose, snapshots
from ._diagnose import explain
from ._errors import DamagedStoreError, ForeignSnapshotError, NotAStoreError, StoreError, StoreVersionError
from ._history import Action
from ._locks import holders
from ._schema import APPLICATION_ID, DB_NAME, GENERATIONS, SCHEMA_VERSION, detect_version, migrate

__all__ = ["Restored", "Staged", "files_to_name", "restore_offline", "stage"]



@dataclass(frozen=True)
class Restored:
    """What a restore did: the snapshot put back, where the store as it was went (a snapshot,
    or the damaged file set aside; None: there was no store), and notes on what was adjusted."""

    snapshot: Snapshot
    before: Path | None
    set_aside: bool
    notes: tuple[str, ...] = ()

    def lines(self, review: Path) -> list[str]:
        out = [f"restored {self.snapshot.path.name} ({self.snapshot.taken_at}, {self.snapshot.reason})"]
        if self.before is None:
            out.append("there was no store to keep")
        elif self.set_aside:
            out.append(f"the store that could not be used was set aside, not deleted: {self.before}")
        else:
            out.append(f"the store as it was before is in {self.before.name}; `workbench restore "
                       f"{self.before.name} --review {review}` puts it back")
        return out + list(self.notes)


def _uri(path: Path, query: str) -> str:
    return "file:" + urllib.parse.quote(str(Path(path).resolve())) + query


class Staged:
    """A checked copy of a snapshot beside the store, made this review's; remove it with
    :meth:`discard` (after it was put in place, or on failure)."""

    def __init__(self, path: Path, conn: sqlite3.Connection, notes: list[str]):
        self.path = path
        self.conn = conn
        self.notes = notes

    def record(self, reviewer: str, summary: str, generation: tuple[str | None, str | None]) -> None:
        """The copy's ``restore`` history entry (with the change of its files, if any)."""
        with Action(self.conn, reviewer, "restore", undoable=False) as act:
            old, new = generation
            if old != new:
                act.put("meta", {"key": "generation"}, None if new is None else {"value": new})
            act.summary = summary

    def close(self, wal: bool) -> None:
        """Close the copy (in WAL mode when it is to become the store) and flush it to disk."""
        if self.conn is None:
            return
        try:
            if wal:
                self.conn.execute("PRAGMA journal_mode = WAL")
        finally:
            self.conn.close()
            self.conn = None
        os.chmod(self.path, default_file_mode())
        fsync_path(self.path)

    def discard(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        for leftover in (self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm"),
                         Path(f"{self.path}-journal")):
            try:
                os.unlink(leftover)
            except FileNotFoundError:
                pass
            except OSError:
                pass  # a read-only file system: nothing was made there either


def _copy(snapshot: Path, dest: Path) -> sqlite3.Connection:
    """A private copy of ``snapshot`` at ``dest`` (backup API, the snapshot read-only)."""
    last = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        src = sqlite3.connect(_uri(snapshot, query), uri=True)
        try:
            dst = sqlite3.connect(dest, isolation_level=None)
            try:
                src.backup(dst)
                return dst
            except BaseException:
                dst.close()
                raise
        except sqlite3.OperationalError as err:  # the snapshot's folder is read-only: no -shm
            last = err
            if "unable to open" not in str(err):
                raise
        finally:
            src.close()
    raise last


def stage(snapshot: Snapshot, store_path: Path, *, review_id: str | None,
          current_generation: str | None, force: bool = False) -> Staged:
    """Copy ``snapshot`` beside the store at ``store_path`` and check the copy (see the module's
    docstring); ``review_id`` and ``current_generation``: this review's, when known."""
    review = store_path.parent
    src = snapshot.path
    if not src.is_file():
        raise StoreError(f"no snapshot at {src}; list them with `workbench check --review {review}`")
    try:
        if store_path.exists() and os.path.samefile(src, store_path):
            raise StoreError(f"{src} is the review's store itself, not a snapshot of it; pick a "
                             f"snapshot in {review / BACKUP_DIR}")
    except OSError:
        pass
    dest = review / f".{store_path.name}.restore-{os.getpid()}-{secrets.token_hex(3)}.tmp"
    staged = Staged(dest, None, [])
    try:
        try:
            staged.conn = _copy(src, dest)
        except sqlite3.DatabaseError as err:
            if not dest.exists() or _is_damage(err):
                raise NotAStoreError(f"the snapshot {src} cannot be read ({err}); nothing was "
                                     f"changed; pick another (`workbench check --review {review}` "
                                     "lists them)") from err
            raise explain(err, dest, "nothing was changed",
                          doing=f"cannot copy the snapshot {src.name} into {review}") from err
        except OSError as err:
            raise explain(err, dest, "nothing was changed",
                          doing=f"cannot copy the snapshot {src.name} into {review}") from err
        _check(staged.conn, src, review)
        _belongs(staged.conn, snapshot, review, review_id, force)
        if review_id is not None:
            staged.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                (identity.KEY, review_id))
        else:
            identity.ensure(staged.conn)
        return staged
    except BaseException:
        staged.discard()
        raise


def _is_damage(err: sqlite3.Error) -> bool:
    code = getattr(err, "sqlite_errorcode", 0) & 0xFF
    return code in (11, 26) or "malformed" in str(err) or "not a database" in str(err)


def _check(conn: sqlite3.Connection, src: Path, review: Path) -> None:
    """Integrity, ours, a schema this workbench knows (migrated when older), in the copy."""
    pick = f"nothing was changed; pick another snapshot (`workbench check --review {review}` lists them)"
    try:
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check(5)").fetchall()]
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as err:
        raise DamagedStoreError(f"the snapshot {src} is damaged ({err}); {pick}") from err
    if problems != ["ok"]:
        raise DamagedStoreError(f"the snapshot {src} is damaged ({'; '.join(problems)}); {pick}")
    if app_id != APPLICATION_ID:
        raise NotAStoreError(f"{src} is not a snapshot of a workbench store (application_id="
                             f"{app_id}); {pick}")
    if version > SCHEMA_VERSION:
        raise StoreVersionError(f"the snapshot {src} was made by a newer workbench (schema "
                                f"{version} > {SCHEMA_VERSION}): upgrade workbench to restore it; "
                                "nothing was changed")
    found = detect_version(conn, tables)
    if found is None or found < version:
        raise DamagedStoreError(f"the snapshot {src} is damaged: its tables do not match its schema "
                                f"version {version}; {pick}")
    if found != version:
        conn.execute(f"PRAGMA user_version = {found}")
    if found < SCHEMA_VERSION:
        migrate(conn, src)


def _belongs(conn: sqlite3.Connection, snapshot: Snapshot, review: Path, review_id: str | None,
             force: bool) -> None:
    """Refuse (unless ``force``) a snapshot of another review, or one that cannot be told."""
    if force:
        return
    theirs = identity.read(conn)
    own_folder = snapshot.path.resolve().parent == (review / BACKUP_DIR).resolve()
    generation = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    shares_files = generation is not None and (review / GENERATIONS / generation[0]).is_dir()
    if theirs is not None and review_id is not None:
        if theirs == review_id:
            return
        raise ForeignSnapshotError(
            f"{snapshot.path} belongs to another review (review id {theirs}; {review} is "
            f"{review_id}): restoring it would replace this review's tags, notes and decisions "
            f"with another's; nothing was changed; pick one of {review / BACKUP_DIR}, or pass "
            "--force (force=True) to restore it anyway (the review keeps its own files)")
    if own_folder or shares_files:
        return  # made by this review (before review ids, or while its id is unknown)
    if review_id is None and theirs is not None and not _has_anything(review):
        return  # an empty folder: nothing of this review to mix it with
    raise ForeignSnapshotError(
        f"cannot tell whether {snapshot.path} belongs to {review}: "
        + ("it was made before reviews had ids" if theirs is None else
           "this review's own id is not known (its store and build files are gone)")
        + f", it is not in {review / BACKUP_DIR}, and it names none of this review's files; "
        "nothing was changed; pass --force (force=True) if it is this review's")


def _has_anything(review: Path) -> bool:
    return (review / GENERATIONS).is_dir() or (review / "build.json").exists()


def _complete(review: Path, generation: str | None) -> bool:
    if generation is None:
        return (review / "build.json").is_file()
    return (review / GENERATIONS / generation / "build.json").is_file()


def files_to_name(staged: Staged, review: Path, current: str | None) -> tuple[str | None, str | None]:
    """``(the generation the snapshot names, the one the restored store should name)``: the
    snapshot's own when the review still has those files, else the review's current files, else
    its newest complete generation (a note says which)."""
    row = staged.conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    named = None if row is None else row[0]
    if _complete(review, named) or (named is None and not _has_anything(review)):
        return named, named
    candidates = [current] if current is not None else []
    root = review / GENERATIONS
    if root.is_dir():
        candidates += sorted((p.name for p in root.iterdir() if not p.name.startswith(".")),
                             reverse=True)
    chosen = next((c for c in candidates if _complete(review, c)), None)
    was = "the review's top-level files" if named is None else f"generations/{named}"
    now = "none" if chosen is None else f"generations/{chosen}"
    staged.notes.append(
        f"the snapshot names files this review does not have ({was}); the restored store names "
        f"the review's files {now} instead (their topics are those of the snapshot's latest topic "
        f"run until the next `workbench build --review {review}`)")
    return named, chosen


# ----------------------------------------------------------------------------- not opened

def restore_offline(store_path: Path, snapshot=None, *, reviewer: str, force: bool = False) -> Restored:
    """Restore a snapshot into a review whose store cannot be opened, or is missing: the file is
    set aside (renamed, never deleted) and the checked copy put in its place. Refused while
    another process holds the file open. This process must hold no connection to it."""
    review = store_path.parent
    if store_path.name != DB_NAME or not review.is_dir():
        raise StoreError(f"{store_path} is not the annotation store of a review folder (expected "
                         f"DIR/{DB_NAME} in an existing folder); nothing was changed; pass --review "
                         "with the folder of the review to restore")
    target = choose(store_path, snapshot)
    held = holders(store_path)
    if held is not None:
        who = f" (process {', '.join(map(str, held))})" if held else ""
        raise StoreError(
            f"another process{who} holds {store_path} open, so it cannot be set aside safely; "
            "nothing was changed; close the notebooks and commands using this review (shut "
            "their kernels down) and run the restore again")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    exists = store_path.exists()
    kind = "damaged" if exists else "leftover"
    aside = store_path.with_name(f"{store_path.stem}.{kind}-{stamp}{store_path.suffix}")
    n = 1
    while any(Path(f"{aside}{s}").exists() for s in ("", "-wal", "-shm", "-journal")):  # never replace one
        n += 1
        aside = store_path.with_name(f"{store_path.stem}.{kind}-{stamp}-{n}{store_path.suffix}")
    review_id = identity.from_build_files(review) or _id_of_snapshots(store_path, target)
    staged = stage(target, store_path, review_id=review_id, current_generation=None, force=force)
    try:
        generation = files_to_name(staged, review, None)
        summary = (f"restored the snapshot {target.path.name}; the store that could not be "
                   f"opened was set aside as {aside.name}" if exists else
                   f"restored the snapshot {target.path.name} (there was no store)")
        staged.record(reviewer, summary, generation)
        staged.close(wal=True)
        try:
            moved = []
            for suffix in ("", "-wal", "-shm", "-journal"):
                old = Path(f"{store_path}{suffix}")
                if old.exists():
                    os.rename(old, Path(f"{aside}{suffix}"))
                    moved.append(suffix)
            os.link(staged.path, store_path)
            fsync_path(review)
        except FileExistsError as err:
            raise StoreError(f"a new {store_path.name} appeared in {review} while restoring (another "
                             "process made one); nothing was restored; run the restore again") from err
        except OSError as err:
            raise explain(err, store_path, "nothing was restored (the store's file may have been "
                          f"renamed to {aside.name}: rename it back if so)",
                          doing=f"cannot put the snapshot in place of {store_path}") from err
    finally:
        staged.discard()
    notes = list(staged.notes)
    suffixes = [suffix for suffix in moved if suffix]
    if suffixes:
        which = "its" if exists else "the leftover"
        names = ", ".join(f"{aside.name}{suffix}" for suffix in suffixes)
        notes.append(f"{which} {', '.join(suffixes)} files were set aside too ({names})")
    return Restored(target, aside if exists else None, exists, tuple(notes))


def _id_of_snapshots(store_path: Path, target: Snapshot) -> str | None:
    """The review id in the review's own snapshots (but ``target``), newest first."""
    for snap in snapshots(store_path):
        if snap.path == target.path:
            continue
        try:
            conn = sqlite3.connect(_uri(snap.path, "?mode=ro&immutable=1"), uri=True)
            try:
                found = identity.read(conn)
            finally:
                conn.close()
        except sqlite3.Error:
            continue
        if found:
            return found
    return None

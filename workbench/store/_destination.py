"""Where an export may be written, and writing it so that nothing is ever half-written.

An export never overwrites the review's own state: the store and its -wal/-shm/-journal, the
review's files and folders (:data:`STATE_FILES`, :data:`STATE_DIRS`), however the path is
spelled. Every export goes through a temporary file beside the destination, is flushed to disk
and renamed into place, with the mode the user's umask gives.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from ._errors import AnnotationInputError, StoreError
from ._export import render

__all__ = ["STATE_DIRS", "STATE_FILES", "check_destination", "export", "write_file"]


STATE_FILES = ("papers.jsonl", "build.json", "topics.json", "map.csv", "arrays.safetensors",
               "map.html", "selection.json")
STATE_DIRS = ("model", "cache", "generations", "backups")
_STORE_SUFFIXES = ("", "-wal", "-shm", "-journal")


def _review_part(target: Path, review: Path) -> tuple[str, ...] | None:
    """The parts of ``target`` below the folder ``review``, or None when it is not inside.

    Compared by the folders themselves (``os.path.samefile``), so another spelling, a symlink
    or another case on a case-insensitive disk still counts as inside.
    """
    try:
        review_stat = review.stat()
    except OSError:
        return None
    for depth, folder in enumerate(target.parents):
        try:
            if os.path.samestat(folder.stat(), review_stat):
                return target.parts[len(target.parts) - depth - 1:]
        except OSError:
            continue
    return None


def check_destination(dest, store_path) -> Path:
    """``dest`` as a :class:`Path` when an export may be written there.

    Refuses (:class:`AnnotationInputError`, nothing written) a folder, and the review's own
    state (:data:`STATE_FILES`, :data:`STATE_DIRS` and the store's files) however it is
    spelled: relative or absolute, through ``..`` or a symlink, in another case, or as a hard
    link to one of them.
    """
    path = Path(dest).expanduser()
    store = Path(store_path)
    review = store.parent
    where = f"write exports into {review / 'report'}/ (or any other new file name)"
    if path.is_dir():
        raise AnnotationInputError(
            f"export destination {str(dest)!r} is a folder; expected a file name; {where}")
    files = {store.name + s for s in _STORE_SUFFIXES} | set(STATE_FILES)
    target = Path(os.path.abspath(path)).resolve()
    part = _review_part(target, review)
    if part:
        name_of = {n.casefold(): n for n in files}
        dir_of = {d.casefold(): d for d in STATE_DIRS}
        first = part[0].casefold()
        if len(part) == 1 and first in name_of:
            what = f"the review's own file {name_of[first]!r}"
        elif first in dir_of:
            what = f"inside the review's own folder {dir_of[first] + '/'!r}"
        else:
            what = None
        if what:
            raise AnnotationInputError(
                f"refusing to export to {str(dest)!r}: it is {what} in {review}, which an "
                f"export would destroy; {where}")
    if path.exists():
        here = os.stat(path)
        for name in files:
            try:
                same = os.path.samestat(here, os.stat(review / name))
            except OSError:
                continue
            if same:
                raise AnnotationInputError(
                    f"refusing to export to {str(dest)!r}: it is the same file as the review's "
                    f"own {name!r} in {review}, which an export would destroy; {where}")
    return path


def write_file(dest: Path, text: str) -> None:
    """Write ``text`` to ``dest`` all at once: into a new file beside it, synced, renamed over
    ``dest``. A reader never sees half an export, a failure leaves ``dest`` as it was, and the
    file gets the mode the user's umask gives new files."""
    dest = Path(dest)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # 0o666 minus the umask
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, dest)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise StoreError(
            f"cannot write the export to {dest} ({err.strerror or err}); nothing was written "
            "there; check the folder exists and is writable, or choose another -o FILE") from err
    with contextlib.suppress(OSError):  # make the rename itself durable
        folder = os.open(dest.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def export(lens, fmt: str, path, store_path) -> str:
    """The annotations ``lens`` (``_visible.Lens``) shows as ``fmt`` text; also written to ``path``
    when given (checked first with :func:`check_destination`, so a refused path leaves nothing
    written; the review's ``report/`` folder is created when it is not there yet)."""
    dest = None if path is None else check_destination(path, store_path)
    text = render(lens, fmt)
    if dest is not None:
        if not dest.parent.exists():  # the review's report/ folder is made on first use
            part = _review_part(Path(os.path.abspath(dest)).resolve(), Path(store_path).parent)
            if part is not None and len(part) == 2 and part[0] == "report":
                dest.parent.mkdir(exist_ok=True)
        write_file(dest, text)
    return text

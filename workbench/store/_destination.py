"""Where an output may be written, and writing it so that nothing is ever half-written.

Nothing lands on a review's state but through the store. Every file or folder the workbench
writes at a path a person names (an export, the PRISMA diagram, the report and its figures) is
checked first by :func:`check_output`, one function for every route, which refuses a path that
is, or resolves to, a file or folder of *any* review, however it is spelled (relative or
absolute, through ``..`` or a symlink, in another case, or as a hard link). A folder is a review
folder when it holds one of its markers (:func:`review_marker`: the annotation store, a
``build.json``, or a ``generations/`` folder with one); its state is the store and its
-wal/-shm/-journal, :data:`STATE_FILES` and everything in :data:`STATE_DIRS`. Other files in a
review folder (``report/``, ``notebooks/``, a new file beside the store) are outputs and may be
written. An existing SQLite database, a file with other hard links, a block device or a socket is
refused too, wherever it is.

A file is written by :func:`write_file` through a temporary file beside it, flushed to disk and
renamed into place, with the mode the user's umask gives; a FIFO, ``/dev/null``, a terminal or
the process's own standard output or error is written as a stream instead (a rename would replace
the device node, not write to it).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from .._runtime.fsutil import atomic_write_bytes
from ._connection import open_count
from ._errors import AnnotationInputError, StoreError
from ._export import render
from ._schema import DB_NAME, GENERATIONS

__all__ = ["STATE_DIRS", "STATE_FILES", "check_output", "export", "review_marker", "write_file", "write_output"]


STATE_FILES = ("papers.jsonl", "build.json", "topics.json", "map.csv", "arrays.safetensors",
               "map.html", "selection.json")
STATE_DIRS = ("model", "cache", "generations", "backups")
_STORE_SUFFIXES = ("", "-wal", "-shm", "-journal")
_SQLITE_MAGIC = b"SQLite format 3\x00"


def review_marker(folder: Path) -> str | None:
    """What makes ``folder`` a review folder (its store, its ``build.json``, or a
    ``generations/`` folder holding a build), or None when it is not one."""
    from ..readers.folders import REVIEW_MARKERS

    for marker in REVIEW_MARKERS:
        if (folder / marker).is_file():
            return marker
    generations = folder / GENERATIONS
    if generations.is_dir():
        with contextlib.suppress(OSError):
            for child in os.scandir(generations):
                if child.is_dir() and os.path.isfile(os.path.join(child.path, "build.json")):
                    return f"{GENERATIONS}/{child.name}/build.json"
    return None


def _state_of(part: tuple[str, ...], store_names: set[str]) -> str | None:
    """What ``part`` (a path below a review folder) is of the review's state, or None."""
    first = part[0].casefold()
    names = {n.casefold(): n for n in (*store_names, *STATE_FILES)}
    dirs = {d.casefold(): d for d in STATE_DIRS}
    if first in dirs:
        return (f"the review's own folder {dirs[first] + '/'!r}" if len(part) == 1
                else f"inside the review's own folder {dirs[first] + '/'!r}")
    if len(part) == 1 and first in names:
        kind = "annotation store" if names[first].startswith(tuple(store_names)) else "file"
        return f"the review's own {kind} {names[first]!r}"
    return None


def _in_a_review(target: Path, store_path) -> tuple[Path, str] | None:
    """The review folder ``target`` is part of the state of, and what it is there; or None."""
    own = Path(os.path.abspath(store_path)).resolve() if store_path is not None else None
    own_review = own.parent if own is not None else None
    for depth, folder in enumerate(target.parents):
        part = target.parts[len(target.parts) - depth - 1:]
        names = {DB_NAME + s for s in _STORE_SUFFIXES}
        if own_review is not None and folder == own_review:
            names |= {own.name + s for s in _STORE_SUFFIXES}
        elif not review_marker(folder):
            continue
        what = _state_of(part, names)
        if what:
            return folder, what
    return None


def _refuse(dest, what: str, why: str, purpose: str) -> AnnotationInputError:
    return AnnotationInputError(f"refusing to write {purpose} to {str(dest)!r}: it is {what}; {why}")


def _check_existing(dest, path: Path, target: Path, purpose: str) -> Path:
    """Refuse an existing destination that writing would harm (see the module); returns where
    to write: ``target`` (the resolved path), or ``path`` as given for a stream (a FIFO,
    /dev/null, a terminal, /dev/stdout), which only the kernel resolves."""
    try:
        st = os.stat(path)
    except OSError:
        return target
    if stat.S_ISREG(st.st_mode):
        if open_count(target) or _is_sqlite(target):
            raise _refuse(dest, "a SQLite database (an annotation store or a snapshot of one)",
                          "an output would destroy it; choose a new file name", purpose)
        if st.st_nlink > 1:
            raise _refuse(dest, f"a file with {st.st_nlink - 1} other hard link(s), which may be a "
                          "review's own file", "delete it first or choose a new file name", purpose)
        return Path(os.path.abspath(path)) if _same(st, 1) or _same(st, 2) else target
    if _stream_ok(st):
        return Path(os.path.abspath(path))
    raise _refuse(dest, "a device or socket, not a file", "choose a file name", purpose)


def _is_sqlite(path: Path) -> bool:
    # Only called when this process has no connection to the file (its locks stay put).
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    except OSError:
        return False


def _same(st: os.stat_result, fd: int) -> bool:
    try:
        return os.path.samestat(st, os.fstat(fd))
    except OSError:
        return False


def _stream_ok(st: os.stat_result) -> bool:
    """A destination written as a stream: a FIFO, /dev/null, a terminal, our own stdout/stderr."""
    if stat.S_ISFIFO(st.st_mode) or _same(st, 1) or _same(st, 2):
        return True
    if not stat.S_ISCHR(st.st_mode):
        return False
    with contextlib.suppress(OSError):
        if os.path.samestat(st, os.stat(os.devnull)):
            return True
    return os.major(st.st_rdev) in (4, 5, 136, 137, 138, 139, 140, 141, 142, 143)  # ttys and ptys


def check_output(dest, *, folder: bool = False, store_path=None, purpose: str = "the output") -> Path:
    """The absolute, resolved path to write ``dest`` to, once it is safe to write there.

    ``dest`` names a file (``folder=False``) or a folder of files (``folder=True``; made when
    missing); ``store_path``: the store of the review writing it, whose store file may have
    another name. Raises :class:`AnnotationInputError` (nothing written) for a path that is, or
    resolves to, a review's state (see the module), for a folder where a file is expected and a
    file where a folder is, for an existing SQLite database, hard-linked file, device or socket,
    for a path the system cannot use (too long, a file in the way), and for ``-`` (standard
    output is the command line's, given by leaving the path out or as ``-o -``).
    """
    if dest is None or str(dest) == "" or str(dest) == "-":
        raise AnnotationInputError(
            f"{purpose} needs a {'folder' if folder else 'file name'}, got {str(dest)!r}; "
            "on the command line `-o -` (or no -o) writes to standard output")
    try:
        return _checked(dest, folder, store_path, purpose)
    except OSError as err:
        raise AnnotationInputError(f"cannot write {purpose} to {str(dest)[:200]!r} ({err.strerror or err}); "
                                   "nothing was written; choose another path") from err


def _checked(dest, folder: bool, store_path, purpose: str) -> Path:
    path = Path(dest).expanduser()
    target = Path(os.path.abspath(path)).resolve()
    found = _in_a_review(target, store_path)
    if found:
        review, what = found
        raise _refuse(dest, f"{what} in the review {str(review)!r}, which only the workbench may write",
                      f"write into {review / 'report'}/ or another folder", purpose)
    if not folder:
        if target.is_dir():
            raise AnnotationInputError(f"{purpose} destination {str(dest)!r} is a folder; expected a file "
                                       "name such as report/annotations.csv")
        return _check_existing(dest, path, target, purpose)
    if target.exists() and not target.is_dir():
        raise _refuse(dest, "a file, not a folder", "give a folder (it is made if missing)", purpose)
    target.mkdir(parents=True, exist_ok=True)
    return target


def write_file(dest: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``dest`` all at once: into a new file beside it, synced,
    renamed over ``dest``. A reader never sees half an output, a failure leaves ``dest`` as it
    was, and the file gets the mode the user's umask gives new files. A FIFO, /dev/null, a
    terminal or the process's own standard output or error is written as a stream
    (:func:`workbench._runtime.fsutil.atomic_write_bytes`)."""
    dest = Path(dest)
    try:
        atomic_write_bytes(dest, data.encode("utf-8") if isinstance(data, str) else data, sync=True)
    except OSError as err:
        raise _cannot_write(dest, err) from err


def _cannot_write(dest: Path, err: OSError, purpose: str = "the export") -> StoreError:
    return StoreError(
        f"cannot write {purpose} to {dest} ({err.strerror or err}); nothing was written "
        "there; check the folder exists and is writable, or choose another path")


def write_output(dest, data: str | bytes, *, store_path=None, purpose: str = "the output") -> Path:
    """Check ``dest`` (:func:`check_output`) and write ``data`` there whole
    (:func:`write_file`); returns where it went (the path as resolved)."""
    target = check_output(dest, store_path=store_path, purpose=purpose)
    try:
        atomic_write_bytes(target, data.encode("utf-8") if isinstance(data, str) else data, sync=True)
    except OSError as err:
        raise _cannot_write(target, err, purpose) from err
    return target


def export(lens, fmt: str, path, store_path) -> str:
    """The annotations ``lens`` (``_visible.Lens``) shows as ``fmt`` text; also written to ``path``
    when given (checked first with :func:`check_output`, so a refused path leaves nothing
    written; the review's ``report/`` folder is created when it is not there yet)."""
    dest = None if path is None else check_output(path, store_path=store_path, purpose="the export")
    text = render(lens, fmt)
    if dest is not None:
        report = Path(os.path.abspath(store_path)).resolve().parent / "report"
        if dest.parent == report and not report.exists():  # the review's report/ is made on first use
            report.mkdir(exist_ok=True)
        write_file(dest, text)
    return text

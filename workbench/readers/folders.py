"""Which files a source names: a file itself, or every file under a folder, in sorted order.

Nothing is passed over without a word: a folder that cannot be opened, a broken link, a hidden
file and what is not a regular file are each a line of the report (:func:`not_read`), and a
folder that holds a review (:data:`REVIEW_MARKERS`) is left out with a line saying so.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import ReaderError
from .registry import supported_formats
from .report import FileReport

__all__ = ["REVIEW_MARKERS", "expand", "not_read"]


#: Files that make a folder a workbench review (its annotation store, its build manifest): such a
#: folder holds the review's own papers and exports, never sources, so reading skips it.
REVIEW_MARKERS = ("annotations.sqlite", "build.json")


def _same_folder(folder: Path, others: list[os.stat_result]) -> bool:
    try:
        here = folder.stat()
    except OSError:
        return False
    return any(os.path.samestat(here, other) for other in others)


def _skip_reason(folder: Path, excluded: list[os.stat_result]) -> str | None:
    if _same_folder(folder, excluded):
        return "it is the review being built (its papers.jsonl and exports are not sources)"
    marker = next((m for m in REVIEW_MARKERS if (folder / m).is_file()), None)
    if marker:
        return (f"it looks like a review folder (it has {marker}); name its files to read "
                "them anyway")
    return None


def not_read(path, why: str) -> FileReport:
    return FileReport(path=str(path), format="-", error=why)


def _walk(folder: Path, found: list, seen: set[str], excluded: list[os.stat_result], skipped: list[str]) -> None:
    """Files under ``folder`` in sorted order as (path, None), and what cannot be read as
    (path, FileReport); linked folders are followed once; review folders are left out, with a
    line in ``skipped``."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as err:
        found.append((folder, not_read(folder, f"cannot open the folder ({err.strerror}); "
                                               "check its permissions, or read its files one by one")))
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.name.startswith("."):
            found.append((path, not_read(path, "hidden (its name starts with '.'); rename it to read it")))
            continue
        try:
            if entry.is_dir():
                why = _skip_reason(path, excluded)
                real = os.path.realpath(path)
                if why:
                    skipped.append(f"{path}{os.sep}: not read: {why}")
                elif real not in seen:
                    seen.add(real)
                    _walk(path, found, seen, excluded, skipped)
            elif entry.is_file():
                found.append((path, None))
            elif entry.is_symlink():
                found.append((path, not_read(path, f"a broken link (to {os.readlink(path)!r}); fix or remove it")))
            else:
                found.append((path, not_read(path, "not a regular file (a socket, device or pipe)")))
        except OSError as err:
            found.append((path, not_read(path, f"cannot be examined ({err.strerror}); check its permissions")))


def expand(sources: Iterable[str | Path], exclude: Iterable[str | Path] = (),
            skipped: list[str] | None = None) -> list[tuple[Path, bool, FileReport | None]]:
    """(path, named explicitly?, why it cannot be read or None) for each source; folders give
    their files, sorted, and every entry of theirs that is not read.

    Folders inside a source that are in ``exclude`` or look like a review (see
    :data:`REVIEW_MARKERS`) are left out, with a line in ``skipped``; a source folder that is
    one is an error (it was named, so say why it is not read).
    """
    if isinstance(sources, (str, Path)):
        sources = [sources]
    skipped = [] if skipped is None else skipped
    excluded = []
    for folder in exclude:
        try:
            excluded.append(Path(folder).stat())
        except OSError:
            continue  # a review that does not exist yet holds nothing to skip
    paths: list[tuple[Path, bool, FileReport | None]] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            why = _skip_reason(p, excluded)
            if why:
                raise ReaderError(f"not read: {why}; give the folder or files of your exports", p)
            found: list = []
            before = len(skipped)
            _walk(p, found, {os.path.realpath(p)}, excluded, skipped)
            if not found:
                besides = f" besides review folders, which are not read ({'; '.join(skipped[before:])})" if len(skipped) > before else ""
                raise ReaderError(f"the folder has no files{besides}; expected exports such as "
                                  + supported_formats(), p)
            paths.extend((f, False, problem) for f, problem in found)
        elif p.is_file():
            paths.append((p, True, None))
        elif p.is_symlink():
            raise ReaderError(f"a broken link (to {os.readlink(p)!r}); give the file it should point to", p)
        else:
            raise ReaderError("no such file or folder; give an existing file or folder of exports", p)
    return paths

"""Which files a source names: a file itself, or every file under a folder, in sorted order.

Nothing is passed over without a word: a folder that cannot be opened, a broken link, a hidden
file and what is not a regular file (a named pipe, a socket, a device: never opened) are each a
line of the report (:func:`not_read`), and a folder that holds a review (:data:`REVIEW_MARKERS`)
is left out with a line saying so.

Reading stays inside the trees the user named: a link (to a file or a folder) found in a source
folder is followed only when it leads to a place inside one of the folders named as sources;
one that leads elsewhere (``etcdir -> /etc``, ``shadow.csv -> /etc/shadow``) is a line of the
report saying how to read it anyway (``follow_links=True``, ``--follow-links``). A source named
explicitly is read wherever it leads: the user named it. Every folder and file is read once,
however many links lead to it, so a cycle of links ends where it started.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..errors import ReaderError
from .bounds import file_kind
from .registry import supported_formats
from .report import FileReport

__all__ = ["FOLLOW_LINKS_HINT", "REVIEW_MARKERS", "expand", "not_read"]


#: Files that make a folder a workbench review (its annotation store, its build manifest): such a
#: folder holds the review's own papers and exports, never sources, so reading skips it.
REVIEW_MARKERS = ("annotations.sqlite", "build.json")
#: How to read what a link outside the sources leads to.
FOLLOW_LINKS_HINT = "to read it, name it as a source, or pass --follow-links (follow_links=True in Python)"


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


def _within(target: str, roots: list[str]) -> bool:
    return any(target == root or target.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


class _Walk:
    """One walk of the source folders: what was found, in order, and what was seen (by device
    and inode, so a file or folder reached twice, through links, is read once)."""

    def __init__(self, roots: list[str], excluded: list[os.stat_result], skipped: list[str], follow_links: bool):
        self.roots, self.excluded, self.skipped, self.follow_links = roots, excluded, skipped, follow_links
        self.found: list[tuple[Path, FileReport | None]] = []
        self.seen: dict[tuple[int, int], Path] = {}

    def first(self, path: Path, st: os.stat_result) -> Path | None:
        """Where the file or folder ``st`` was met before (None: this is the first time)."""
        key = (st.st_dev, st.st_ino)
        if key in self.seen:
            return self.seen[key]
        self.seen[key] = path
        return None

    def folder(self, top: Path) -> None:
        """Every entry under ``top``, depth first in sorted order (a stack, not recursion: a
        tree thousands of folders deep is walked too)."""
        stack = [iter(self.entries(top))]
        while stack:
            entry = next(stack[-1], None)
            if entry is None:
                stack.pop()
            elif (sub := self.entry(entry)) is not None:
                stack.append(iter(self.entries(sub)))

    def entries(self, folder: Path) -> list[os.DirEntry]:
        try:
            with os.scandir(folder) as listing:
                return sorted(listing, key=lambda e: e.name)
        except OSError as err:
            self.problem(folder, f"cannot open the folder ({_reason(err)}); check its permissions, or read its "
                                 "files one by one")
            return []

    def problem(self, path: Path, why: str) -> None:
        self.found.append((path, not_read(path, why)))

    def entry(self, entry: os.DirEntry) -> Path | None:
        """Put the file ``entry`` (or why it is not read) into :attr:`found`; a folder to walk is returned."""
        path = Path(entry.path)
        if entry.name.startswith("."):
            self.problem(path, "hidden (its name starts with '.'); rename it to read it")
            return None
        try:
            link = entry.is_symlink()
            if link:
                target = os.path.realpath(path)
                if not self.follow_links and not _within(target, self.roots):
                    self.problem(path, f"a link to {os.readlink(path)!r}, outside the folders being read: not "
                                       f"followed; {FOLLOW_LINKS_HINT}")
                    return None
            st = os.stat(path) if link else entry.stat(follow_symlinks=False)
        except OSError as err:
            if link and err.errno == errno.ELOOP:
                self.problem(path, "a link that leads back to itself (a cycle of links); fix or remove it")
            elif link and err.errno == errno.ENOENT:
                self.problem(path, f"a broken link (to {os.readlink(path)!r}); fix or remove it")
            else:
                self.problem(path, f"cannot be examined ({_reason(err)}); check its permissions")
            return None
        if stat.S_ISDIR(st.st_mode):
            why = _skip_reason(path, self.excluded)
            if why:
                self.skipped.append(f"{path}{os.sep}: not read: {why}")
                return None
            before = self.first(path, st)
            if before is not None:
                self.problem(path, f"{'a link to ' if link else ''}a folder read already ({before}); not read twice")
                return None
            return path
        if not stat.S_ISREG(st.st_mode):
            self.problem(path, f"not a regular file but {file_kind(st.st_mode)}; not opened")
            return None
        before = self.first(path, st)
        if before is not None:
            how = "a link to it" if link else "a hard link to it"
            self.problem(path, f"the same file as {before} ({how}); read once")
            return None
        self.found.append((path, None))
        return None


def _reason(err: OSError) -> str:
    if err.errno in (errno.EACCES, errno.EPERM):
        return "Permission denied"
    return err.strerror or str(err)


def expand(sources: Iterable[str | Path], exclude: Iterable[str | Path] = (),
           skipped: list[str] | None = None, *, follow_links: bool = False
           ) -> list[tuple[Path, bool, FileReport | None]]:
    """(path, named explicitly?, why it cannot be read or None) for each source; folders give
    their files, sorted, and every entry of theirs that is not read.

    Folders inside a source that are in ``exclude`` or look like a review (see
    :data:`REVIEW_MARKERS`) are left out, with a line in ``skipped``; a source folder that is
    one is an error (it was named, so say why it is not read). Links inside a source folder
    that lead outside every source folder are not followed unless ``follow_links`` (see the
    module docstring).
    """
    if isinstance(sources, (str, Path)):
        sources = [sources]
    sources = list(sources)
    skipped = [] if skipped is None else skipped
    excluded = []
    for folder in exclude:
        try:
            excluded.append(Path(folder).stat())
        except OSError:
            continue  # a review that does not exist yet holds nothing to skip
    roots = [os.path.realpath(s) for s in sources if os.path.isdir(s)]
    walk = _Walk(roots, excluded, skipped, follow_links)
    paths: list[tuple[Path, bool, FileReport | None]] = []
    for src in sources:
        p = Path(src)
        try:
            st = p.stat()
        except OSError as err:
            raise _missing(p, err) from err
        if stat.S_ISDIR(st.st_mode):
            why = _skip_reason(p, excluded)
            if why:
                raise ReaderError(f"not read: {why}; give the folder or files of your exports", p)
            if walk.first(p, st) is not None:
                continue  # named twice, or inside another source named: read once
            before, start = len(skipped), len(walk.found)
            walk.folder(p)
            found = walk.found[start:]
            if not found:
                besides = f" besides review folders, which are not read ({'; '.join(skipped[before:])})" if len(skipped) > before else ""
                raise ReaderError(f"the folder has no files{besides}; expected exports such as "
                                  + supported_formats(), p)
            paths.extend((f, False, problem) for f, problem in found)
        elif stat.S_ISREG(st.st_mode):
            walk.first(p, st)
            paths.append((p, True, None))
        else:
            raise ReaderError(f"not a regular file but {file_kind(st.st_mode)}; not opened: give a file or folder of "
                              "exports", p)
    return paths


def _missing(p: Path, err: OSError) -> ReaderError:
    """The error of a named source that cannot be looked at."""
    if p.is_symlink():
        if err.errno == errno.ELOOP:
            return ReaderError("a link that leads back to itself (a cycle of links); give the file it should point to", p)
        return ReaderError(f"a broken link (to {os.readlink(p)!r}); give the file it should point to", p)
    if err.errno == errno.ENOENT:
        return ReaderError("no such file or folder; give an existing file or folder of exports", p)
    return ReaderError(f"cannot be examined ({_reason(err)}); check the path and its permissions", p)

"""Small file-system helpers shared by the store, the review folder and the caches.

Files the workbench makes get the mode the user's umask gives (a team folder with umask 002 is
group-writable), not the 0600 of temporary files or the 0644 SQLite uses by default; text is
written through a temporary file and a rename, so a reader never sees half a file.
"""

from __future__ import annotations

import os
import secrets
import threading
from pathlib import Path

__all__ = ["atomic_write_text", "default_file_mode", "fsync_path", "workbench_cache_dir"]

_UMASK_LOCK = threading.Lock()


def workbench_cache_dir() -> Path:
    """Where the workbench keeps what it makes once per machine (distilled models, numba's
    compiled code): ``$WORKBENCH_CACHE``, else ``$XDG_CACHE_HOME/workbench`` or ~/.cache/workbench."""
    root = os.environ.get("WORKBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "workbench"
    )
    return Path(root)


def default_file_mode() -> int:
    """The mode a new file gets from the user's umask (0o666 & ~umask), e.g. 0o664 for a team."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    with _UMASK_LOCK:  # no /proc: read it the old way (briefly sets it)
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}.{secrets.token_hex(3)}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def fsync_path(path: Path) -> None:
    """Flush a file or folder to disk (best effort: some file systems refuse folders)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

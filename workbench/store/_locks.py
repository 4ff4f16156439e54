"""Whether another process holds a store open, told by SQLite's own locks.

Every connection to a store in WAL mode holds a SHARED lock on the database file's SHARED range
and on the "dead man switch" byte of its ``-shm`` file for as long as it is open (os_unix.c). A
non-blocking exclusive ``lockf`` on those bytes fails while any other process holds them;
``/proc/locks`` (Linux) says which processes. The probe opens plain descriptors on the files, so
it may only run while this process has no connection to the store: closing a descriptor drops
every lock the process holds on the file.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: SQLite's locks there are mandatory; a held file cannot be renamed
    fcntl = None

__all__ = ["holders"]

# SQLite's lock bytes (os_unix.c): the SHARED range of the database file (PENDING_BYTE + 2,
# 510 bytes) and the -shm's dead man switch.
_SHARED_FIRST, _SHARED_SIZE = 0x40000000 + 2, 510
_SHM_DMS = 128


def _lock_owners(inode: tuple[int, int]) -> list[int]:
    """The processes holding POSIX locks on a file, from /proc/locks (Linux; else empty)."""
    dev, ino = inode
    tag = f"{os.major(dev):02x}:{os.minor(dev):02x}:{ino}"
    owners = []
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            for line in fh:
                parts = line.split()
                if "->" in parts:
                    parts.remove("->")
                if len(parts) > 5 and parts[5] == tag and parts[4].isdigit():
                    owners.append(int(parts[4]))
    except OSError:
        pass
    return sorted(set(owners) - {os.getpid()})


def holders(store_path: Path) -> list[int] | None:
    """Whether another process holds the store at ``store_path`` open: None when none does,
    else the ids of the processes that do (empty when they cannot be named).

    Probes SQLite's locks: the SHARED range of the database file and the -shm's "dead man
    switch" byte, which every connection holds while it is open. Call only while this process
    has no connection to the file: closing the probe's descriptor drops this process's locks."""
    if fcntl is None:
        return None
    found: list[int] = []
    held = False
    for name, start, length in ((store_path, _SHARED_FIRST, _SHARED_SIZE),
                                (Path(f"{store_path}-shm"), _SHM_DMS, 1)):
        try:
            fd = os.open(name, os.O_RDWR)
        except FileNotFoundError:
            continue
        except OSError:
            try:
                fd = os.open(name, os.O_RDONLY)
            except OSError:
                continue
        try:
            st = os.fstat(fd)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, length, start)
            except OSError as err:
                if err.errno in (errno.EAGAIN, errno.EACCES):
                    held = True
                    found += _lock_owners((st.st_dev, st.st_ino))
                elif err.errno != errno.EBADF:  # EBADF: opened read-only, cannot test
                    raise
        finally:
            os.close(fd)  # drops the probe's lock (this process holds no other)
    return sorted(set(found)) if held else None

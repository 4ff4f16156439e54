"""Small file-system helpers shared by the store, the review folder and the caches.

Files the workbench makes get the mode the user's umask gives (a team folder with umask 002 is
group-writable), not the 0600 of temporary files or the 0644 SQLite uses by default; text is
written through a temporary file and a rename, so a reader never sees half a file.

SQLite's locks are not reliable on network file systems (NFS, SMB/CIFS, sshfs, 9p...), so two
people writing one review there can corrupt it: :func:`network_filesystem` says whether a path
lies on one (from /proc/self/mountinfo on Linux; from psutil's partitions elsewhere, when psutil
is installed), and :func:`refuse_network_filesystem` is what the store calls before it writes.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError

__all__ = [
    "MOUNTINFO",
    "NETWORK_FILESYSTEMS",
    "Mount",
    "NetworkFilesystemError",
    "atomic_write_bytes",
    "atomic_write_text",
    "default_file_mode",
    "fsync_path",
    "mount_of",
    "network_filesystem",
    "parse_mountinfo",
    "refuse_network_filesystem",
    "workbench_cache_dir",
]

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
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes, *, sync: bool = False) -> None:
    """Write ``data`` to ``path`` whole: through a new file in the same folder (the mode the
    umask gives), renamed over ``path``; ``sync``: flushed to disk first, and the rename too.

    A ``path`` that is not a regular file (a FIFO, /dev/null, a terminal), or that is the
    process's own standard output or error, is written as a stream instead: a rename would
    replace the device node, not write to it.
    """
    path = Path(path)
    if _write_stream(path, data):
        return
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}.{secrets.token_hex(3)}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # 0o666 minus the umask
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sync:
        fsync_path(path.parent)


def _write_stream(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` as a stream when it is not a regular file or is standard
    output or error; False (nothing written) for a regular file or a new path."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        try:
            same = os.path.samestat(st, os.fstat(fd))
        except OSError:
            same = False
        if same:
            stream.flush()
            _write_all(fd, data)
            return True
    if stat.S_ISREG(st.st_mode):
        return False
    with open(path, "wb") as fh:
        fh.write(data)
    return True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


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


# ----------------------------------------------------------------------------- network file systems

#: File-system types (as /proc/self/mountinfo or psutil name them) whose locking SQLite cannot
#: trust: NFS, SMB/CIFS, AFS, 9p (WSL's Windows drives, some VMs), cluster and FUSE-remote ones.
NETWORK_FILESYSTEMS = frozenset({
    "nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "afs", "openafs", "9p", "lustre", "gpfs",
    "beegfs", "ceph", "glusterfs", "orangefs", "pvfs2", "ncpfs", "coda", "davfs", "webdav", "afpfs",
    "vboxsf", "vmhgfs", "macfuse", "osxfuse",
})
#: FUSE file systems (``fuse.<name>``) that reach another machine.
REMOTE_FUSE = frozenset({
    "sshfs", "rclone", "s3fs", "gcsfuse", "goofys", "davfs2", "glusterfs", "ceph-fuse", "cephfs", "juicefs",
    "mountpoint-s3", "blobfuse", "blobfuse2", "smbnetfs", "curlftpfs", "vmhgfs-fuse", "gvfsd-fuse",
})


#: Where Linux lists this process's mounts (a test may point it at a file of its own).
MOUNTINFO = "/proc/self/mountinfo"


class NetworkFilesystemError(StoreError):
    """A review folder lies on a network file system, where SQLite's locks cannot be trusted."""


@dataclass(frozen=True)
class Mount:
    """One mounted file system: where, of which type, from what (``server:/export``, ``//host/share``)."""

    mount_point: str
    fstype: str
    source: str = ""

    @property
    def network(self) -> bool:
        kind = self.fstype.lower()
        if kind.startswith("fuse."):
            return kind.removeprefix("fuse.") in REMOTE_FUSE
        return kind in NETWORK_FILESYSTEMS


_ESCAPE = re.compile(r"\\([0-7]{3})")


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes (``\\040``)."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts of a /proc/<pid>/mountinfo text, in its order (later lines mount over earlier).

    A line is ``id parent major:minor root mount-point options [optional fields...] - fstype
    source super-options``; lines that do not have this shape are skipped."""
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        before, after = left.split(), right.split()
        if not sep or len(before) < 6 or not after:
            continue
        mounts.append(Mount(_unescape(before[4]), after[0], _unescape(after[1]) if len(after) > 1 else ""))
    return mounts


def _existing(path: Path) -> Path:
    """``path`` with symlinks resolved, or its nearest existing ancestor's (a folder not made yet)."""
    path = Path(os.path.abspath(path))
    for candidate in (path, *path.parents):
        if candidate.exists():
            return Path(os.path.realpath(candidate)) / path.relative_to(candidate)
    return path


def _covers(mount_point: str, path: str) -> bool:
    return path == mount_point or path.startswith(mount_point.rstrip(os.sep) + os.sep)


def _system_mounts() -> list[Mount] | None:
    try:
        return parse_mountinfo(Path(MOUNTINFO).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        pass
    try:  # macOS, Windows, BSD: psutil knows the file-system types, when it is installed
        import psutil
    except ImportError:
        return None
    mounts = [Mount(p.mountpoint, "smb" if "remote" in p.opts.split(",") else p.fstype, p.device)
              for p in psutil.disk_partitions(all=True)]
    return mounts


def mount_of(path, mountinfo: str | None = None) -> Mount | None:
    """The mount ``path`` lies on (the deepest mount point above it, symlinks resolved; the path
    need not exist yet). ``mountinfo`` is a mountinfo text to read instead of the system's.
    None when the system's mounts cannot be read."""
    mounts = parse_mountinfo(mountinfo) if mountinfo is not None else _system_mounts()
    if not mounts:
        return None
    where = str(_existing(Path(path)))
    best = None
    for mount in mounts:  # a later mount on the same point hides the earlier one
        if _covers(mount.mount_point, where) and (best is None or len(mount.mount_point) >= len(best.mount_point)):
            best = mount
    return best


def network_filesystem(path, mountinfo: str | None = None) -> Mount | None:
    """The network mount ``path`` lies on (NFS, SMB, sshfs, 9p...), or None when it is local or
    the file-system type cannot be found out (no /proc and no psutil)."""
    if sys.platform == "win32" and str(path).startswith(("\\\\", "//")):
        return Mount(str(path), "smb", str(path))  # a UNC path: \\server\share
    mount = mount_of(path, mountinfo)
    return mount if mount is not None and mount.network else None


def refuse_network_filesystem(path, *, allow: bool = False, mountinfo: str | None = None) -> None:
    """Raise :class:`NetworkFilesystemError` when ``path`` (a review folder or its store) lies on a
    network file system, unless ``allow`` (the user's explicit override)."""
    mount = None if allow else network_filesystem(path, mountinfo)
    if mount is None:
        return
    origin = f" from {mount.source}" if mount.source else ""
    raise NetworkFilesystemError(
        f"{path} is on a network file system ({mount.fstype} mounted at {mount.mount_point}{origin}): "
        "SQLite cannot lock files reliably there, so two people writing at once can corrupt the review. "
        "Put the review folder on a local disk and share work by export and import (`workbench export "
        "--format jsonl`, then `workbench import-annotations`), or, if only one person uses it at a time, "
        "pass the override (allow_network_filesystem=True, or set WORKBENCH_ALLOW_NETWORK_FS=1)"
    )

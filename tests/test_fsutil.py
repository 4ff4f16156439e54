"""Finding out whether a review folder lies on a network file system, from mountinfo texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import StoreError
from workbench._runtime.fsutil import (
    Mount, NetworkFilesystemError, mount_of, network_filesystem, parse_mountinfo,
    refuse_network_filesystem
)

MOUNTINFO = r"""22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
40 27 0:40 / /home rw,relatime shared:20 - autofs /etc/auto.home rw,fd=7
41 40 0:41 / /home/ana rw,relatime shared:21 master:3 - nfs4 files.example.org:/export/home/ana rw,vers=4.2
50 27 0:50 / /mnt/team\040share rw,relatime - cifs //nas/team rw,vers=3.1.1
51 27 0:51 / /mnt/box rw,nosuid - fuse.sshfs ana@box:/data rw,user_id=0
52 27 0:52 / /mnt/c rw,noatime - 9p drvfs rw,dirsync,aname=drvfs
53 27 0:53 / /mnt/scratch rw - lustre 10.0.0.1@tcp:/scratch rw
54 27 0:54 / /mnt/local-fuse rw - fuse.portal portal rw
55 41 254:1 / /home/ana/local rw - ext4 /dev/vdb rw
this line is not a mount
"""


def test_parse_reads_fields_escapes_and_optional_fields():
    mounts = parse_mountinfo(MOUNTINFO)
    assert len(mounts) == 10
    assert mounts[1] == Mount("/", "ext4", "/dev/vda")
    assert mounts[3] == Mount("/home/ana", "nfs4", "files.example.org:/export/home/ana")
    assert mounts[4].mount_point == "/mnt/team share"


@pytest.mark.parametrize("path, fstype", [
    ("/home/ana/reviews/sleep", "nfs4"),
    ("/mnt/team share/review", "cifs"),
    ("/mnt/box/review", "fuse.sshfs"),
    ("/mnt/c/Users/ana/review", "9p"),
    ("/mnt/scratch/r", "lustre"),
])
def test_network_mounts_are_found(path, fstype):
    mount = network_filesystem(path, MOUNTINFO)
    assert mount is not None and mount.fstype == fstype


@pytest.mark.parametrize("path", ["/work/review", "/home/ana/local/review", "/mnt/local-fuse/x", "/mnt/teamwork",
                                  "/home/ben"])
def test_local_mounts_are_not(path):
    assert network_filesystem(path, MOUNTINFO) is None


def test_the_deepest_and_latest_mount_wins():
    assert mount_of("/home/ana/local/review", MOUNTINFO).fstype == "ext4"
    assert mount_of("/home/ben/review", MOUNTINFO).fstype == "autofs"
    over = MOUNTINFO + "60 27 0:60 / /mnt/box rw - ext4 /dev/vdc rw\n"  # mounted over the sshfs mount
    assert network_filesystem("/mnt/box/review", over) is None


def test_symlinks_are_followed_and_missing_folders_resolved(tmp_path):
    shared = tmp_path / "nfs"
    shared.mkdir()
    (tmp_path / "link").symlink_to(shared)
    text = f"27 1 254:0 / / rw - ext4 /dev/vda rw\n70 27 0:70 / {shared.resolve()} rw - nfs server:/x rw\n"
    mount = network_filesystem(tmp_path / "link" / "not-yet" / "review", text)
    assert mount is not None and mount.source == "server:/x"


def test_refusal_names_the_mount_and_the_override():
    with pytest.raises(NetworkFilesystemError) as info:
        refuse_network_filesystem("/home/ana/reviews/sleep", mountinfo=MOUNTINFO)
    message = str(info.value)
    assert "nfs4 mounted at /home/ana from files.example.org:/export/home/ana" in message
    assert "export and import" in message and "allow_network_filesystem=True" in message
    assert isinstance(info.value, StoreError)
    refuse_network_filesystem("/home/ana/reviews/sleep", allow=True, mountinfo=MOUNTINFO)
    refuse_network_filesystem("/work/review", mountinfo=MOUNTINFO)


def test_this_machine_can_be_asked(tmp_path):
    if not Path("/proc/self/mountinfo").exists():
        pytest.skip("no /proc/self/mountinfo (not Linux)")
    mount = mount_of(tmp_path)
    assert mount is not None and str(tmp_path.resolve()).startswith(mount.mount_point)

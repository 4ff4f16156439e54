"""Recovery that works when it is needed (issue 43): restore whatever state the store is in,
snapshots checked before they replace anything, a snapshot of another review refused, and a
full disk, a read-only file system and a permission problem each told as what they are.

Real processes throughout: the command line in its own process, a second process holding the
store open, a real full disk and a real read-only mount (a tmpfs in a private mount namespace,
``unshare -rm``; skipped where that is not allowed), and permissions tested without the power to
ignore them (``unshare --user``; skipped where that is not allowed).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest
from conftest import unprivileged

import workbench
from workbench.errors import StoreError
from workbench.store import ForeignSnapshotError, Store, restore

ROOT = Path(__file__).resolve().parents[1]
IDS = [f"{i:012x}" for i in range(1, 301)]
DB = "annotations.sqlite"


def cli(*argv: str, check: bool | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True,
                            text=True, timeout=180, cwd=ROOT)
    if check is not None:
        assert (result.returncode == 0) == check, result.stdout + result.stderr
    assert "this is a bug" not in result.stderr, result.stderr
    return result


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tags_of(folder: Path, pid: str) -> list[str]:
    """The tags of a paper and the store's integrity, read by a new process without workbench."""
    code = ("import sqlite3, sys, json; c = sqlite3.connect(sys.argv[1]); print(json.dumps("
            "[c.execute('PRAGMA integrity_check').fetchone()[0], [r[0] for r in c.execute("
            "'SELECT tag FROM paper_tags WHERE paper_id = ? ORDER BY tag', (sys.argv[2],))]]))")
    out = subprocess.run([sys.executable, "-c", code, str(folder / DB), pid], capture_output=True,
                         text=True, check=True).stdout
    integrity, tags = json.loads(out)
    assert integrity == "ok"
    return tags


@pytest.fixture
def review(tmp_path) -> Path:
    """A store of 300 papers (about 400 kB) with one tag in its snapshot and one after it."""
    folder = tmp_path / "review"
    with Store.open(folder, reviewer="ana") as store:
        store.sync_papers([{"id": i, "title": f"Paper {i}", "abstract": "words " * 200} for i in IDS])
        store.tags.add(IDS[0], "kept")
        store.files.backup()
        store.tags.add(IDS[1], "after-the-snapshot")
    assert (folder / DB).stat().st_size > 300_000
    return folder


# ----------------------------------------------------------------------------- restore, whatever the state

def _truncate(path: Path) -> None:
    os.truncate(path, 100_000)


def _empty(path: Path) -> None:
    os.truncate(path, 0)


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(path.stat().st_size))


def _schema_page(path: Path) -> None:
    with open(path, "r+b") as fh:  # keep the header, destroy the schema
        fh.seek(100)
        fh.write(b"\xff" * 3900)


def _moved(path: Path) -> None:
    path.rename(path.parent.parent / "moved-away.sqlite")


def _moved_leaving_wal(path: Path) -> None:
    _moved(path)
    Path(f"{path}-wal").write_bytes(os.urandom(4096))  # what a crashed writer can leave behind
    Path(f"{path}-shm").write_bytes(b"\x00" * 32768)


DAMAGE = {"truncated": _truncate, "zero bytes": _empty, "random bytes": _garbage,
          "schema page destroyed": _schema_page, "moved away": _moved,
          "moved away, -wal and -shm left": _moved_leaving_wal}


@pytest.mark.parametrize("damage", DAMAGE)
def test_restore_works_when_the_store_cannot_be_opened(review, damage):
    store = review / DB
    DAMAGE[damage](store)
    before = digest(store) if store.exists() else None
    refused = cli("history", "--review", str(review), check=False)
    assert f"workbench restore --review {review}" in refused.stderr
    done = cli("restore", "--review", str(review), check=True)
    assert "restored annotations." in done.stdout
    aside = sorted(review.glob("annotations.damaged-*.sqlite"))
    if before is not None:  # the file that could not be opened is kept, byte for byte
        assert len(aside) == 1 and digest(aside[0]) == before
        assert str(aside[0]) in done.stdout
    else:
        assert aside == []
    assert tags_of(review, IDS[0]) == ["kept"] and tags_of(review, IDS[1]) == []
    history = cli("history", "--review", str(review), check=True).stdout
    assert "restored the snapshot" in history.splitlines()[0]
    assert cli("check", "--review", str(review), check=True).stdout.startswith("ok")
    cli("tag", IDS[2], "after-restore", "--review", str(review), check=True)
    assert tags_of(review, IDS[2]) == ["after-restore"]


def test_a_store_that_opens_but_fails_its_integrity_check_is_set_aside_too(review):
    with open(review / DB, "r+b") as fh:  # the papers' pages, deep in the file: the store opens
        fh.seek(200_000)
        fh.write(b"\xa5" * 16384)
    check = cli("check", "--review", str(review), check=False)
    assert check.returncode == 1 and f"workbench restore --review {review}" in check.stdout
    done = cli("restore", "--review", str(review), check=True)
    assert "set aside, not deleted" in done.stdout
    assert tags_of(review, IDS[0]) == ["kept"]
    assert cli("check", "--review", str(review), check=True).stdout.startswith("ok")


def test_the_python_api_restores_a_store_that_cannot_be_opened(review):
    _truncate(review / DB)
    with pytest.raises(StoreError, match="restore"):
        Store.open(review)
    done = restore(review, reviewer="ana")
    assert done.set_aside and done.before.name.startswith("annotations.damaged-")
    with Store.open(review) as store:
        assert store.tags.of(IDS[0]) == ["kept"]
        assert store.history(limit=1)[0].action == "restore"


HOLDER = r"""
import sys
from workbench.store import Store
store = Store.open(sys.argv[1], reviewer="kernel")
store.tags.of(sys.argv[2])
print("holding", flush=True)
sys.stdin.read()
store.close()
"""


def test_restore_refuses_while_another_process_holds_the_damaged_store(review):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(review), IDS[0]], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        _garbage(review / DB)  # damaged under the kernel's feet
        inode = (review / DB).stat().st_ino
        refused = cli("restore", "--review", str(review), check=False)
        assert refused.returncode == 1
        assert f"another process (process {holder.pid}) holds" in refused.stderr
        assert "nothing was changed" in refused.stderr
        assert (review / DB).stat().st_ino == inode and not list(review.glob("*.damaged-*"))
    finally:
        holder.communicate("", timeout=60)
    cli("restore", "--review", str(review), check=True)  # once the kernel is gone
    assert tags_of(review, IDS[0]) == ["kept"]


def test_the_python_api_refuses_while_this_process_holds_the_damaged_store(review):
    kernel = Store.open(review, reviewer="kernel")
    try:
        _truncate(review / DB)  # a path operation: no descriptor of this process is closed
        with pytest.raises(StoreError, match="this process holds it open elsewhere"):
            restore(review)
    finally:
        kernel.close()
    restore(review)
    assert tags_of(review, IDS[0]) == ["kept"]


# ----------------------------------------------------------------------------- snapshots checked first

def _newest_snapshot(folder: Path) -> Path:
    return sorted((folder / "backups").glob("annotations.*.sqlite"))[-1]


def _state(folder: Path) -> tuple:
    with Store.open(folder) as store:
        return store.tags.of(IDS[0]), store.tags.of(IDS[1]), len(store.history(limit=None))


def test_a_damaged_snapshot_is_refused_before_it_replaces_anything(review, tmp_path):
    bad = tmp_path / "bad.sqlite"
    shutil.copy(_newest_snapshot(review), bad)
    with open(bad, "r+b") as fh:  # a table's pages, not the header: SQLite opens it
        fh.seek(40960)
        fh.write(b"\xa5" * 16384)
    before = _state(review)
    refused = cli("restore", str(bad), "--review", str(review), "--force", check=False)
    assert refused.returncode == 1 and "is damaged" in refused.stderr
    assert "nothing was changed" in refused.stderr
    assert _state(review) == before
    assert not list(review.glob(".annotations.sqlite.restore-*"))  # the staging copy is gone


@pytest.mark.parametrize("kind", ["csv", "other sqlite", "newer schema"])
def test_a_file_that_is_no_snapshot_of_ours_is_refused(review, tmp_path, kind):
    given = tmp_path / "given.sqlite"
    if kind == "csv":
        given.write_text("title,abstract\nx,y\n" * 100)
    elif kind == "other sqlite":
        with closing(sqlite3.connect(given)) as conn, conn:
            conn.execute("CREATE TABLE zotero_items (id INTEGER PRIMARY KEY)")
    else:
        shutil.copy(_newest_snapshot(review), given)
        with closing(sqlite3.connect(given)) as conn, conn:
            conn.execute("PRAGMA user_version = 9")
    before = _state(review)
    refused = cli("restore", str(given), "--review", str(review), "--force", check=False)
    assert refused.returncode == 1
    expected = {"csv": "cannot be read", "other sqlite": "not a snapshot of a workbench store",
                "newer schema": "made by a newer workbench (schema 9 > 6): upgrade"}[kind]
    assert expected in refused.stderr
    assert _state(review) == before


def test_an_old_snapshot_is_migrated_in_its_copy(review):
    sys.path.insert(0, str(Path(__file__).parent))
    from test_store_files import make_v1_store

    old = review / "backups" / "annotations.20200101T000000000000Z.manual.h1.sqlite"
    make_v1_store(old)
    done = cli("restore", old.name, "--review", str(review), check=True)
    assert "restored annotations.20200101T" in done.stdout
    with Store.open(review) as store:
        assert store.tags.of(IDS[0][:0] + f"{0:012x}") == ["relevant"]  # the v1 store's paper 0
        assert store.review_id() is not None
    with closing(sqlite3.connect(old)) as conn, conn:  # the snapshot itself was not touched
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1


def test_a_snapshot_of_another_review_is_refused_unless_forced(review, tmp_path):
    other = tmp_path / "other"
    with Store.open(other, reviewer="bob") as store:
        store.sync_papers([{"id": "f" * 12, "title": "Elsewhere"}])
        store.tags.add("f" * 12, "theirs")
        theirs = store.files.backup().path
    before = _state(review)
    refused = cli("restore", str(theirs), "--review", str(review), check=False)
    assert refused.returncode == 1 and "belongs to another review" in refused.stderr
    assert "--force" in refused.stderr and _state(review) == before
    with pytest.raises(ForeignSnapshotError):
        restore(review, theirs)
    _truncate(review / DB)  # a store that cannot be opened: the build files and snapshots say whose
    damaged = digest(review / DB)
    refused = cli("restore", str(theirs), "--review", str(review), check=False)
    assert refused.returncode == 1 and "belongs to another review" in refused.stderr
    assert digest(review / DB) == damaged and not list(review.glob("*.damaged-*"))


# ----------------------------------------------------------------------------- honest errors

def _mount_namespace() -> bool:
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0
    except FileNotFoundError:
        return False


def _in_tmpfs(tmp_path: Path, review: Path, size: str, driver: str, *args: str) -> dict:
    """Run ``driver`` (Python) in a private mount namespace with a copy of ``review`` on a tmpfs
    of ``size``; returns the JSON it prints last."""
    if not _mount_namespace():
        pytest.skip("no private mount namespaces here (unshare -rm): a real full disk or "
                    "read-only mount cannot be made")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = tmp_path / "driver.py"
    script.write_text(textwrap.dedent(driver))
    shell = (f"mount -t tmpfs -o size={size} tmpfs {mnt} && cp -a {review} {mnt}/review && "
             f"exec {sys.executable} {script} {mnt} {' '.join(args)}")
    done = subprocess.run(["unshare", "-rm", "sh", "-c", shell], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


DRIVER_HEAD = """
import json, os, subprocess, sys
mnt = sys.argv[1]
review = os.path.join(mnt, "review")

def cli(*argv):
    done = subprocess.run([sys.executable, "-m", "workbench.cli", *argv, "--review", review],
                          capture_output=True, text=True, timeout=120)
    return [done.returncode, done.stdout, done.stderr]
"""


FULL_DISK = DRIVER_HEAD + """
from workbench.store import Store, StoreError

def fill():
    with open(os.path.join(mnt, f"filler{len(out)}"), "ab", buffering=0) as fh:
        try:
            while True:
                fh.write(b"0" * 4096)
        except OSError as err:
            return err.errno

def commands(when):
    for name, argv in (("tag", ["tag", sys.argv[2], "when-full"]), ("history", ["history"]),
                       ("backup", ["backup"]), ("export", ["export", "--format", "csv"]),
                       ("check", ["check"])):
        out[f"{name} {when}"] = cli(*argv)

out = {}
kernel = Store.open(review, reviewer="kernel")  # a notebook holding the store as the disk fills
kernel.tags.add(sys.argv[2], "before-full")
out["filled"] = fill()
try:
    kernel.notes.add(sys.argv[2], "x" * 1_000_000)  # 1 MB (a note holds at most 1 MiB)
    out["kernel"] = "saved?!"
except StoreError as err:
    out["kernel"] = str(err)
commands("(held open)")  # the store's -wal and -shm are there: SQLite reports SQLITE_FULL
kernel.close()
out["filled again"] = fill()
commands("(closed)")  # the -shm must be made first: SQLite reports a disk I/O error
for name in os.listdir(mnt):
    if name.startswith("filler"):
        os.unlink(os.path.join(mnt, name))
out["tag after"] = cli("tag", sys.argv[2], "after-full")
out["check after"] = cli("check")
print(json.dumps(out))
"""


def test_a_full_disk_is_told_as_a_full_disk_and_loses_nothing(review, tmp_path):
    out = _in_tmpfs(tmp_path, review, "8m", FULL_DISK, IDS[3])
    assert out["filled"] == out["filled again"] == 28  # ENOSPC: the disk really was full
    assert "full" in out["kernel"] and "nothing of this change was saved" in out["kernel"]
    for when in ("(held open)", "(closed)"):
        for name in ("tag", "backup"):
            code, _, message = out[f"{name} {when}"]
            assert code == 1 and "full" in message and "free some space" in message, (name, when, message)
            assert "restore" not in message and "damaged" not in message, (name, when, message)
        assert out[f"history {when}"][0] == 0 and "+before-full" in out[f"history {when}"][1]
        assert out[f"export {when}"][0] == 0 and "before-full" in out[f"export {when}"][1]
        assert out[f"check {when}"][0] == 0, out[f"check {when}"]
    assert out["tag after"][0] == 0, out["tag after"]
    assert out["check after"][0] == 0 and out["check after"][1].startswith("ok")


READ_ONLY = DRIVER_HEAD + """
subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
out = {name: cli(*argv) for name, argv in (
    ("tag", ["tag", sys.argv[2], "x"]), ("history", ["history"]), ("backup", ["backup"]),
    ("restore", ["restore"]), ("check", ["check"]))}
print(json.dumps(out))
"""


def test_a_read_only_file_system_is_told_as_one(review, tmp_path):
    out = _in_tmpfs(tmp_path, review, "16m", READ_ONLY, IDS[3])
    for name in ("tag", "backup", "restore"):
        code, _, message = out[name]
        assert code == 1 and "read-only file system" in message, (name, message)
        assert "this is a bug" not in message and "damaged" not in message, (name, message)
        assert "remount it read-write" in message
    assert "workbench restore" not in out["tag"][2]
    assert out["history"][0] == 0 and "+kept" in out["history"][1]
    assert out["check"][0] == 0 and "mounted read-only" in out["check"][1]


def test_permission_problems_are_told_as_such(review):
    prefix = unprivileged()
    if prefix is None:
        pytest.skip("running as root without user namespaces: permissions cannot be tested")

    def run(*argv):
        done = subprocess.run([*prefix, sys.executable, "-m", "workbench.cli", *argv, "--review",
                               str(review)], capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert "this is a bug" not in done.stderr
        return done

    store, backups = review / DB, review / "backups"
    try:
        backups.chmod(0o555)
        denied = run("backup")
        assert denied.returncode == 1 and "permission denied" in denied.stderr
        assert "restore" not in denied.stderr
        backups.chmod(0o755)
        store.chmod(0o000)
        for argv in (["history"], ["tag", IDS[3], "x"], ["restore"]):
            denied = run(*argv)
            assert denied.returncode == 1 and "permission denied" in denied.stderr, (argv, denied.stderr)
            assert "damaged" not in denied.stderr and "workbench restore" not in denied.stderr
        store.chmod(0o444)
        denied = run("tag", IDS[3], "x")
        assert denied.returncode == 1 and "read-only for you" in denied.stderr
        assert run("history").returncode == 0
    finally:
        backups.chmod(0o755)
        store.chmod(0o664)
    assert tags_of(review, IDS[3]) == []


# ----------------------------------------------------------------------------- schema versions

def _set_version(folder: Path, version: int) -> None:
    with closing(sqlite3.connect(folder / DB)) as conn, conn:
        conn.execute(f"PRAGMA user_version = {version}")


def test_a_store_from_a_newer_workbench_says_upgrade(review):
    _set_version(review, 7)
    refused = cli("history", "--review", str(review), check=False)
    assert refused.returncode == 1
    assert "made by a newer workbench (schema 7 > 6): upgrade" in refused.stderr
    assert "restore" not in refused.stderr


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5])
def test_a_store_whose_version_was_set_back_is_repaired_not_migrated_twice(review, version):
    _set_version(review, version)
    cli("tag", IDS[4], "after-repair", "--review", str(review), check=True)
    history = cli("history", "--review", str(review), check=True).stdout.splitlines()
    assert any(f"said schema version {version} but its tables are of version 6" in line
               for line in history)
    assert tags_of(review, IDS[0]) == ["kept"] and tags_of(review, IDS[4]) == ["after-repair"]
    with closing(sqlite3.connect(review / DB)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6


def test_tables_that_match_no_version_are_refused_as_damaged_and_restore_repairs(review):
    with closing(sqlite3.connect(review / DB)) as conn, conn:
        conn.execute("DROP TABLE exclusion_reasons")
    refused = cli("tag", IDS[4], "x", "--review", str(review), check=False)
    assert refused.returncode == 1 and "tables ['exclusion_reasons'] are missing" in refused.stderr
    assert f"workbench restore --review {review}" in refused.stderr
    cli("restore", "--review", str(review), check=True)
    assert tags_of(review, IDS[0]) == ["kept"]


# ----------------------------------------------------------------------------- a built review

@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("built") / "review"
    workbench.build([min((ROOT / "seeds").glob("*.txt"))], review=folder, embedder="fake",
                    progress=False)
    return folder


@pytest.fixture
def copy(built, tmp_path) -> Path:
    """A copy of the built review (the same review: its id travels with it)."""
    dest = tmp_path / "review"
    shutil.copytree(built, dest)
    return dest


def test_a_forced_restore_of_another_review_leaves_this_one_naming_its_own_files(copy, tmp_path):
    other = tmp_path / "other"
    workbench.build([max((ROOT / "seeds").glob("*.txt"))], review=other, embedder="fake",
                    progress=False)
    with Store.open(other) as store:
        theirs, their_id = store.files.backup().path, store.review_id()
    with Store.open(copy) as store:
        ours, own_id = store.files.generation(), store.review_id()
    refused = cli("restore", str(theirs), "--review", str(copy), check=False)
    assert refused.returncode == 1 and f"review id {their_id}" in refused.stderr
    done = cli("restore", str(theirs), "--review", str(copy), "--force", check=True)
    assert "names files this review does not have" in done.stdout
    with Store.open(copy) as store:
        assert store.files.generation() == ours and store.review_id() == own_id
    assert len(workbench.open_review(copy).papers) > 0
    assert cli("check", "--review", str(copy), check=True).stdout.startswith("ok")


def test_a_restored_snapshot_naming_tidied_files_names_the_current_ones(copy):
    with Store.open(copy) as store:
        old = store.files.generation()
        snap = store.files.backup("before-rebuild").path
    workbench.build([min((ROOT / "seeds").glob("*.txt"))], review=copy, embedder="fake",
                    progress=False)
    with Store.open(copy) as store:
        current = store.files.generation()
    assert current != old
    shutil.rmtree(copy / "generations" / old)  # tidied away, as after a few saves
    done = cli("restore", snap.name, "--review", str(copy), check=True)
    assert f"generations/{old}" in done.stdout and f"generations/{current}" in done.stdout
    with Store.open(copy) as store:
        assert store.files.generation() == current
    workbench.open_review(copy)


def test_the_review_id_is_in_the_store_and_every_build_file(copy):
    with Store.open(copy) as store:
        own = store.review_id()
    manifests = [json.loads(p.read_text()) for p in copy.glob("generations/*/build.json")]
    assert own and manifests and all(m["review_id"] == own for m in manifests)
    assert all(set(m["files"]) >= {"papers.jsonl", "arrays.safetensors", "topics.json", "map.csv"}
               for m in manifests)


def test_restore_never_writes_a_store_where_no_review_is(review, tmp_path):
    snap = _newest_snapshot(review)
    notes = tmp_path / "notes.csv"
    notes.write_text("title,abstract\n")
    for target in (notes, tmp_path / "no-such-folder"):
        refused = cli("restore", str(snap), "--review", str(target), check=False)
        assert refused.returncode == 1 and "not the annotation store of a review folder" in refused.stderr
    assert notes.read_text() == "title,abstract\n" and not (tmp_path / "no-such-folder").exists()
    itself = cli("restore", str(review / DB), "--review", str(review), check=False)
    assert itself.returncode == 1 and "the review's store itself" in itself.stderr

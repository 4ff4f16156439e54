"""The store under real use: a process holding it open while others write, forks, several
handles, all-or-nothing transactions, snapshots and restore, read-only stores, file modes.

The lost-tag bug this file was written for: the store's file check opened and closed the
database with a plain open() while the same process held a connection, which drops every SQLite
lock of the process (sqlite.org, "How To Corrupt An SQLite Database File", 2.2); the command line
then deleted the -wal under the "kernel", whose later acknowledged writes vanished.
"""

from __future__ import annotations

import builtins
import multiprocessing
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import unprivileged

from workbench.errors import StoreError
from workbench.store import Store

IDS = [f"{i:012x}" for i in range(1, 41)]


def cli(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True,
                            text=True, timeout=120)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def fresh_read(folder: Path) -> tuple[str, set[tuple[str, str]]]:
    """Integrity and every (paper, tag), read by a new process."""
    code = ("import sqlite3, sys, json; c = sqlite3.connect(sys.argv[1]); "
            "print(json.dumps([c.execute('PRAGMA integrity_check').fetchone()[0], "
            "c.execute('SELECT paper_id, tag FROM paper_tags').fetchall()]))")
    out = subprocess.run([sys.executable, "-c", code, str(folder / "annotations.sqlite")],
                         capture_output=True, text=True, check=True).stdout
    import json

    integrity, rows = json.loads(out)
    return integrity, {tuple(r) for r in rows}


@pytest.fixture
def review(tmp_path) -> Path:
    with Store.open(tmp_path, reviewer="setup") as store:
        store.sync_papers([{"id": i, "title": f"Paper {i}", "abstract": "a"} for i in IDS])
    return tmp_path


def test_a_second_handle_then_the_command_line_loses_no_acknowledged_write(review):
    """The reproduction: a long-lived handle, a second handle opened and closed in the same
    process, then CLI writes (other processes) alternating with this process's writes."""
    kernel = Store.open(review, reviewer="kernel")
    acked = {(IDS[0], "k")}
    kernel.tags.add(IDS[0], "k")
    Store.open(review, reviewer="kernel").close()  # e.g. Review.refresh_topics, show_themes
    for n in range(1, 7):
        cli("tag", IDS[n], "cli", "--review", str(review))
        acked.add((IDS[n], "cli"))
        kernel.tags.add(IDS[20 + n], "k")
        acked.add((IDS[20 + n], "k"))
    integrity, have = fresh_read(review)
    kernel.close()
    assert integrity == "ok"
    assert acked <= have, f"lost: {sorted(acked - have)}"


def test_no_plain_open_of_the_database_while_the_process_holds_it(review, monkeypatch):
    db = str(review / "annotations.sqlite")
    opened = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        if str(file).startswith(db):
            opened.append(str(file))
        return real_open(file, *args, **kwargs)

    first = Store.open(review)
    monkeypatch.setattr(builtins, "open", spy)
    for _ in range(3):
        with Store.open(review, reviewer="other") as second:
            second.tags.add(IDS[1], "x")
    Store.open(review / "annotations.sqlite").close()  # the file spelled another way
    monkeypatch.undo()
    first.tags.add(IDS[2], "y")
    first.close()
    assert opened == [], "a plain open() of the store would drop this process's SQLite locks"


def test_handles_share_one_connection_and_the_last_close_ends_it(review):
    a, b = Store.open(review, reviewer="a"), Store.open(str(review) + "/", reviewer="b")
    a.tags.add(IDS[0], "from-a")
    b.close()
    assert a.tags.of(IDS[0]) == ["from-a"], "closing one handle leaves the others working"
    a.close()
    with pytest.raises(StoreError, match="closed"):
        a.tags.of(IDS[0])
    with Store.open(review) as again:
        assert again.tags.of(IDS[0]) == ["from-a"]


def _child_after_fork(store, folder, queue):
    try:
        store.tags.add(IDS[5], "inherited")
        queue.put("used the parent's connection")
    except StoreError as err:
        queue.put(f"refused: {err}")
    with Store.open(folder, reviewer="child") as own:
        own.tags.add(IDS[6], "child")
    queue.put("child tagged")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_never_uses_the_parents_connection(review):
    parent = Store.open(review, reviewer="parent")
    parent.tags.add(IDS[4], "parent")
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_after_fork, args=(parent, review, queue))
    child.start()
    child.join(60)
    messages = [queue.get(timeout=5), queue.get(timeout=5)]
    parent.tags.add(IDS[7], "parent-after")
    parent.close()
    assert messages[0].startswith("refused") and "another process" in messages[0]
    assert messages[1] == "child tagged"
    integrity, have = fresh_read(review)
    assert integrity == "ok"
    assert {(IDS[4], "parent"), (IDS[6], "child"), (IDS[7], "parent-after")} <= have


def test_a_transaction_saves_every_change_or_none(review):
    with Store.open(review, reviewer="ana") as store:
        before = len(store.history(limit=None))
        with pytest.raises(RuntimeError):
            with store.transaction():
                store.tags.add(IDS[0], "a")
                store.notes.add(IDS[1], "a note")
                store.decisions.decide(IDS[2], "include")
                raise RuntimeError("crash in the middle")
        assert store.tags.of(IDS[0]) == [] and store.notes.of(IDS[1]) == []
        assert store.decisions.of(IDS[2]) is None
        assert len(store.history(limit=None)) == before
        with store.transaction():
            store.tags.add(IDS[0], "a")
            store.notes.add(IDS[1], "a note")
        assert store.tags.of(IDS[0]) == ["a"] and len(store.notes.of(IDS[1])) == 1
        assert [h.action for h in store.history(limit=2)] == ["note", "tag"]
        store.undo()  # each action inside stays its own undo step
        assert store.notes.of(IDS[1]) == [] and store.tags.of(IDS[0]) == ["a"]


def test_snapshots_restore_and_check(review):
    with Store.open(review, reviewer="ana") as store:
        store.tags.add(IDS[0], "kept")
        snap = store.files.backup()
        assert snap.path.parent == review / "backups" and snap.path.exists()
        assert store.files.backup("again", force=False) is None, "nothing changed: no new snapshot"
        store.tags.add(IDS[1], "after-the-snapshot")
        restored = store.files.restore()
        assert restored.snapshot.path == snap.path
        assert store.tags.of(IDS[0]) == ["kept"] and store.tags.of(IDS[1]) == []
        assert store.files.integrity_check() == "ok"
        assert store.history(limit=1)[0].action == "restore"
        newest = store.files.snapshots()[0]
        assert newest.reason == "before-restore"  # the restore itself can be undone
        store.files.restore(newest.path.name)
        assert store.tags.of(IDS[1]) == ["after-the-snapshot"]
        report = store.files.check()
    assert report[0] == "ok"
    assert any("workbench restore --review" in line for line in report)


def test_a_restore_reaches_another_process_that_holds_the_store_open(review):
    with Store.open(review, reviewer="ana") as store:
        store.tags.add(IDS[0], "before")
        store.files.backup()
        store.tags.add(IDS[0], "later")
        cli("restore", "--review", str(review))
        assert store.tags.of(IDS[0]) == ["before"], "the restore is seen on the next read"
        store.tags.add(IDS[3], "after-restore")
    integrity, have = fresh_read(review)
    assert integrity == "ok" and (IDS[3], "after-restore") in have


def test_an_import_and_a_migration_take_a_snapshot_first(review, tmp_path):
    with Store.open(review, reviewer="ana") as store:
        store.tags.add(IDS[0], "x")
        export = tmp_path / "a.jsonl"
        store.files.export("jsonl", export)
        store.files.import_annotations(export)
        assert [s.reason for s in store.files.snapshots()] == ["before-import"]


def test_every_message_about_a_damaged_store_names_the_restore_command(tmp_path):
    (tmp_path / "annotations.sqlite").write_bytes(b"\r\x00\x00garbage" * 100)
    result = cli("history", "--review", str(tmp_path), check=False)
    assert result.returncode == 1
    assert f"workbench restore --review {tmp_path}" in result.stderr
    assert "nothing was saved" not in result.stderr


def test_a_store_you_may_not_write_still_answers_reads_and_says_permission_denied(tmp_path):
    prefix = unprivileged()
    if prefix is None:
        pytest.skip("running as root without user namespaces: permissions cannot be tested")
    import workbench

    from conftest import ROOT

    folder = tmp_path / "shared-review"
    review = workbench.build([ROOT / "seeds"], review=folder, embedder="fake")
    pid = review.papers[0].id
    with Store.open(folder) as store:
        store.tags.add(pid, "team")
    for path in sorted(folder.rglob("*"), reverse=True) + [folder]:
        path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        def run(*argv):
            return subprocess.run([*prefix, sys.executable, "-m", "workbench.cli", *argv,
                                   "--review", str(folder)], capture_output=True, text=True,
                                  timeout=120)

        for argv in (["history"], ["export", "--format", "csv"], ["papers"], ["topics"], ["check"]):
            result = run(*argv)
            assert result.returncode == 0, (argv, result.stderr)
        assert "team" in run("history").stdout
        denied = run("tag", pid, "more")
        assert denied.returncode == 1
        assert "permission denied" in denied.stderr and "write access" in denied.stderr
        assert "backup" not in denied.stderr and "move it away" not in denied.stderr
    finally:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)


def test_review_files_get_the_users_umask(tmp_path):
    code = ("import os, sys, workbench; os.umask(0o002); "
            "workbench.build([sys.argv[1]], review=sys.argv[2], embedder='fake')")
    from conftest import ROOT

    subprocess.run([sys.executable, "-c", code, str(ROOT / "seeds"), str(tmp_path / "r")],
                   check=True, capture_output=True, timeout=300)
    modes = {p.relative_to(tmp_path / "r").as_posix(): stat.S_IMODE(p.stat().st_mode)
             for p in (tmp_path / "r").rglob("*") if p.is_file()}
    private = {name: oct(mode) for name, mode in modes.items() if mode & 0o060 != 0o060}
    assert private == {}, "a team's folder: every file group-readable and -writable"
    assert any(name.endswith("arrays.safetensors") for name in modes)
    with sqlite3.connect(tmp_path / "r" / "annotations.sqlite") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


FILLER = r"""
import resource, signal, sys
from workbench.store import Store
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
store = Store.open(sys.argv[1], reviewer="filler")
store.tags.add(sys.argv[2], "small-before")
print("acked", flush=True)
limit = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # no file may grow past this
try:
    store.notes.add(sys.argv[2], "x" * 1_000_000)  # under MAX_NOTE, over the 200 KB the file may grow
    print("saved?!", flush=True)
except Exception as err:
    print("error:", err, flush=True)
"""


def test_a_file_size_limit_refuses_the_change_keeps_every_acknowledged_one_and_says_so(review):
    """``ulimit -f`` stops the write; the message names the limit, not a full disk or damage
    (a real full disk: tests/test_store_recovery.py)."""
    size = (review / "annotations.sqlite").stat().st_size + 200_000
    out = subprocess.run([sys.executable, "-c", FILLER, str(review), IDS[0], str(size)],
                         capture_output=True, text=True, timeout=120).stdout
    assert "acked" in out and "saved?!" not in out
    message = out.split("error:", 1)[1]
    assert "nothing of this change was saved" in message and "file-size limit" in message
    assert "restore" not in message and "full" not in message, "a healthy store is not sent to its backups"
    integrity, have = fresh_read(review)
    assert integrity == "ok" and (IDS[0], "small-before") in have
    with Store.open(review) as store:
        assert store.notes.of(IDS[0]) == []

"""Odd but possible input gets a clear one-line error, never "this is a bug" (issue 43, point 7).

``note ID -`` reads standard input and ``note ID @FILE`` a text file (``@@`` is a literal @),
up to 1 MiB; files that are missing, not regular, not named as text, too large, binary or not
UTF-8 are refused by name without their content, for notes and ``criteria --file`` alike; every
date option takes the same YYYY-MM-DD check; reviewer names are trimmed, printable and at most
100 characters from the command line, the environment and Python alike; ``undo``, seeds and
other numbers out of range, and a Dask address that is not one, are refused in words.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SEEDS

from workbench import open_review
from workbench.cli import main
from workbench.store import MAX_NOTE, MAX_REVIEWER, AnnotationInputError, Store, check_date, check_reviewer


def run(*argv, stdin: bytes | None = None, env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_PROGRESS": "0", "HF_HUB_OFFLINE": "1", **(env or {})}
    full = {k: v for k, v in full.items() if v is not None}
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], input=stdin, capture_output=True,
                          timeout=300, env=full, cwd=cwd)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    err = proc.stderr.decode()
    assert proc.returncode in (1, 2), (proc.returncode, err)
    assert "this is a bug" not in err and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("workbench"), err
    return err


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("inputs")
    shutil.copy(min(SEEDS.glob("*.txt")), folder / "seeds.txt")
    assert main(["build", str(folder / "seeds.txt"), "--review", str(folder / "review"), "--embedder", "fake",
                 "-q"]) == 0
    return folder / "review"


@pytest.fixture
def review(built, tmp_path) -> Path:
    shutil.copytree(built, tmp_path / "review")
    return tmp_path / "review"


def first_id(review: Path) -> str:
    return json.loads(run("papers", "--review", str(review), "--format", "json").stdout)[0]["id"]


def notes(review: Path, pid: str) -> list[str]:
    with Store.open(review, reviewer="ana") as store:
        return [n.text for n in store.notes.of(pid)]


# ----------------------------------------------------------------------------- note - and @FILE

def test_note_dash_reads_standard_input_beyond_one_argument(review):
    pid = first_id(review)
    text = "first line\n" + "x" * 300_000 + "\nlast line"  # over the 128 KiB one argument may hold
    proc = run("note", pid, "-", "--review", str(review), "--reviewer", "ana", stdin=text.encode())
    assert proc.returncode == 0, proc.stderr
    assert "saved (300,021 characters)" in proc.stdout.decode()
    assert notes(review, pid) == [text]


def test_note_at_file_reads_the_file_and_at_at_is_a_literal_at(review, tmp_path):
    pid = first_id(review)
    (tmp_path / "note.md").write_text("# Why\n\nIt meets criterion 2.\n", encoding="utf-8")
    r = ["--review", str(review), "--reviewer", "ana"]
    assert run("note", pid, f"@{tmp_path / 'note.md'}", *r).returncode == 0
    assert run("note", pid, "@@alice", "agrees", *r).returncode == 0
    assert run("note", pid, "plain", "words", *r).returncode == 0
    assert notes(review, pid) == ["# Why\n\nIt meets criterion 2.", "@alice agrees", "plain words"]


@pytest.mark.parametrize("case", ["missing", "folder", "fifo", "no suffix", "too big", "binary", "latin-1",
                                  "with more words", "at alone"])
def test_note_files_that_are_not_text_are_refused_by_name_without_content(review, tmp_path, case):
    pid = first_id(review)
    secret = "TOPSECRET root:$6$salt$hash"
    target = tmp_path / "in.txt"
    args = [f"@{target}"]
    if case == "folder":
        target.mkdir()
    elif case == "fifo":
        os.mkfifo(target)
    elif case == "no suffix":
        target = tmp_path / "shadow"
        target.write_text(secret + "\n")
        args = [f"@{target}"]
    elif case == "too big":
        target.write_bytes(b"a" * (MAX_NOTE + 1))
    elif case == "binary":
        target.write_bytes(secret.encode() + b"\x00\x01\x02")
    elif case == "latin-1":
        target.write_bytes(secret.encode() + "café".encode("latin-1"))
    elif case == "with more words":
        target.write_text(secret)
        args = [f"@{target}", "more"]
    elif case == "at alone":
        args = ["@"]
    err = one_line_error(run("note", pid, *args, "--review", str(review), "--reviewer", "ana"))
    assert "TOPSECRET" not in err and "root:" not in err
    assert notes(review, pid) == []
    expected = {"missing": "No such file", "folder": "not a regular file", "fifo": "not a regular file",
                "no suffix": "not named as a text file", "too big": "1,048,576 bytes", "binary": "binary",
                "latin-1": "not UTF-8", "with more words": "must be the only TEXT", "at alone": "names no file"}
    assert expected[case] in err


def test_standard_input_over_the_limit_or_binary_is_refused(review):
    pid = first_id(review)
    r = ["--review", str(review), "--reviewer", "ana"]
    assert "at most 1,048,576 bytes" in one_line_error(run("note", pid, "-", *r, stdin=b"a" * (MAX_NOTE + 1)))
    assert "binary" in one_line_error(run("note", pid, "-", *r, stdin=b"abc\x00def"))
    assert notes(review, pid) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_an_unreadable_note_file_is_refused(review, tmp_path):
    target = tmp_path / "locked.txt"
    target.write_text("private")
    target.chmod(0)
    err = one_line_error(run("note", first_id(review), f"@{target}", "--review", str(review)))
    assert "Permission denied" in err and "private" not in err


# ----------------------------------------------------------------------------- criteria --file

@pytest.mark.parametrize("source", ["/etc/shadow", "/dev/urandom", "{tmp}", "{tmp}/key", "{tmp}/big.txt",
                                    "{tmp}/bin.txt"])
def test_criteria_file_must_be_a_text_file(review, tmp_path, source):
    path = source.format(tmp=tmp_path)
    (tmp_path / "key").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nSECRETKEY\n")
    (tmp_path / "big.txt").write_bytes(b"Include RCTs.\n" * 10_000)
    (tmp_path / "bin.txt").write_bytes(b"SECRETKEY\x00\xff")
    if not os.path.exists(path):
        pytest.skip(f"no {path} here")
    err = one_line_error(run("criteria", "--file", path, "--review", str(review), "--reviewer", "lead"))
    assert "SECRETKEY" not in err and "root:" not in err
    assert run("criteria", "--review", str(review)).stdout.decode().startswith("criteria: none")


def test_criteria_file_with_control_characters_is_refused_by_line_not_content(review, tmp_path):
    (tmp_path / "c.txt").write_text("Include RCTs\n\x1b[2JSECRET\n", encoding="utf-8")
    err = one_line_error(run("criteria", "--file", str(tmp_path / "c.txt"), "--review", str(review)))
    assert "U+001B on line 2" in err and "SECRET" not in err


def test_criteria_from_a_text_file_and_standard_input(review, tmp_path):
    (tmp_path / "criteria.md").write_text("Include: RCTs\nExclude: reviews\n", encoding="utf-8")
    r = ["--review", str(review), "--reviewer", "lead"]
    assert run("criteria", "--file", str(tmp_path / "criteria.md"), *r).stdout.decode().splitlines() == [
        "criteria:", "Include: RCTs", "Exclude: reviews"]
    assert run("criteria", "--file", "-", *r, stdin=b"Adults only\n").stdout.decode().splitlines() == [
        "criteria:", "Adults only"]


# ----------------------------------------------------------------------------- dates

def test_update_new_since_refuses_an_impossible_date(review):
    for bad in ("2026-13-45", "2025-02-29", "yesterday", "2024-5-1"):
        err = one_line_error(run("update", "--new", "--since", bad, "--review", str(review)))
        assert f"since '{bad}' is not a date; expected YYYY-MM-DD" in err
    assert run("update", "--new", "--since", "2024-02-29", "--review", str(review)).returncode == 0


def test_every_date_option_takes_the_same_check(review, tmp_path):
    source = tmp_path / "more.txt"
    shutil.copy(max(SEEDS.glob("*.txt")), source)
    message = "'2026-13-45' is not a date; expected YYYY-MM-DD with a real month and day"
    cases = [("build", str(source), "--review", str(tmp_path / "new"), "--embedder", "fake", "--searched", "2026-13-45"),
             ("update", str(source), "--review", str(review), "--searched", "2026-13-45"),
             ("sources", "--set", "seeds.txt", "--searched", "2026-13-45", "--review", str(review))]
    for argv in cases:
        assert message in one_line_error(run(*argv)), argv
    assert not (tmp_path / "new").exists()
    with pytest.raises(AnnotationInputError, match=message):
        open_review(review).updates.new_papers(since="2026-13-45")
    assert check_date(" 2024-05-01 ") == "2024-05-01"


# ----------------------------------------------------------------------------- reviewer names

def test_a_reviewer_name_is_trimmed_the_same_way_from_every_face(review):
    pid = first_id(review)
    assert run("tag", pid, "cli", "--review", str(review), "--reviewer", "  alice ").returncode == 0
    assert run("tag", pid, "env", "--review", str(review), env={"WORKBENCH_REVIEWER": "alice\t"}).returncode == 0
    with Store.open(review, reviewer=" alice  ") as store:
        store.tags.add(pid, "python")
        assert store.reviewer == "alice"
        assert store.tags.by_reviewer(pid) == {"alice": ["cli", "env", "python"]}
    assert check_reviewer("Ana \u00a0 Lima") == "Ana Lima"


@pytest.mark.parametrize("name", ["ana\x1b[31m", "ana\u202eevil", "zero\u200bwidth", "x" * (MAX_REVIEWER + 1)])
def test_a_reviewer_name_that_cannot_be_shown_as_typed_is_refused_everywhere(review, name):
    pid = first_id(review)
    for proc in (run("tag", pid, "x", "--review", str(review), "--reviewer", name),
                 run("tag", pid, "x", "--review", str(review), env={"WORKBENCH_REVIEWER": name})):
        err = one_line_error(proc)
        assert "\x1b" not in err and "\u202e" not in err
    with pytest.raises(AnnotationInputError):
        Store.open(review, reviewer=name)
    with Store.open(review, reviewer="ana") as store:
        assert store.tags.of(pid) == []
    assert check_reviewer("x" * MAX_REVIEWER) == "x" * MAX_REVIEWER


# ----------------------------------------------------------------------------- numbers and addresses

def test_undo_of_a_huge_negative_or_zero_count_is_refused_in_words(review):
    pid = first_id(review)
    r = ["--review", str(review), "--reviewer", "ana"]
    assert run("tag", pid, "keep", *r).returncode == 0
    for n in ("1000000000000000000000", "2"):
        err = one_line_error(run("undo", n, *r))
        assert f"cannot undo {n} changes: reviewer 'ana' has 1 that can be undone" in err
    for n in ("0", "-1", "10^21", "abc"):
        assert "expected a whole number >= 1" in one_line_error(run("undo", *r, "--", n))
    with Store.open(review, reviewer="ana") as store:
        assert store.tags.of(pid) == ["keep"]
    assert run("history", "--limit", "1000000000000000000000", *r).returncode == 0


def test_build_dask_with_an_address_that_is_not_one(tmp_path):
    shutil.copy(min(SEEDS.glob("*.txt")), tmp_path / "seeds.txt")
    for address in ("garbage", "tcp://", "::::"):
        err = one_line_error(run("build", str(tmp_path / "seeds.txt"), "--review", str(tmp_path / "r"),
                                 "--embedder", "fake", "-q", "--dask", address))
        assert f"--dask {address!r} is not a scheduler address" in err and "tcp://scheduler:8786" in err


ODD = [
    ("rank", "--seed", "-5"), ("rank", "--seed", "99999999999999999999"), ("build", "--seed", "10000000000000000000000"),
    ("build", "--min-cluster-size", "1000000000000000000000"), ("build", "--min-cluster-size", "0"),
    ("build", "--nr-topics", "-1"), ("duplicates", "--low", "1e400"), ("duplicates", "--low", "nan"),
    ("duplicates", "--low", "-5"), ("who", "--top", "0"), ("who", "--top", "-3"), ("trends", "--window", "0"),
    ("simulate", "x.csv", "--seeds", "1000000000"), ("history", "--limit", "0"), ("stopping", "--target", "2"),
]


@pytest.mark.parametrize("argv", ODD, ids=" ".join)
def test_odd_numbers_are_usage_errors_not_bugs(review, argv):
    where = [] if argv[0] == "simulate" else ["--review", str(review)]
    proc = run(*argv, *where)
    err = one_line_error(proc)
    assert proc.returncode == 2 and "expected a" in err


def test_odd_paths_get_one_line_errors(review, tmp_path):
    long = "x" * 300
    (tmp_path / "file").write_text("a file\n")
    cases = {
        ("export", "--format", "csv", "-o", str(tmp_path / f"{long}.csv")): "File name too long",
        ("export", "--format", "csv", "-o", str(tmp_path / "file" / "x.csv")): "Not a directory",
        ("prisma", "--output", str(tmp_path / "file" / "sub")): "Not a directory",
        ("prisma", "--output", str(tmp_path / long)): "File name too long",
        ("build", str(SEEDS), "--embedder", "fake", "--review", str(tmp_path / "file")): "is a file, not a folder",
        ("simulate", str(tmp_path)): "not a regular file",
    }
    for argv, expected in cases.items():
        where = [] if argv[0] in ("build", "simulate") else ["--review", str(review)]
        assert expected in one_line_error(run(*argv, *where)), argv
    assert (tmp_path / "file").read_text() == "a file\n"

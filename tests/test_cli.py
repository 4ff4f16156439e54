"""The command line contract: build, papers, topics; exit codes; one-line errors."""

import csv
import io
import json
import os
import re
import subprocess
import sys

import pytest

import workbench as workbench_api
from workbench.cli import main

from conftest import ROOT

PAPER_COLUMNS = ["id", "title", "authors", "year", "collection", "source", "topic", "topic_label", "x", "y"]


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "review"
    assert main(["build", str(ROOT / "seeds"), "--review", str(path), "--embedder", "fake", "-q"]) == 0
    return path


def test_papers_json_has_the_documented_columns(review, capsys):
    assert main(["papers", "--review", str(review), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 133
    assert list(rows[0]) == PAPER_COLUMNS
    assert isinstance(rows[0]["authors"], list)
    assert sum(1 for r in rows if r["authors"]) == 13


def test_papers_csv_and_table(review, capsys):
    assert main(["papers", "--review", str(review), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 133 and list(rows[0]) == PAPER_COLUMNS
    assert rows[0]["authors"] == "Zhiheng Xi; Wenxiang Chen; Xin Guo"
    assert main(["papers", "--review", str(review)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["id", "title", "authors"] and len(table) == 134


def test_topics_in_every_format(review, capsys):
    assert main(["topics", "--review", str(review), "--format", "json"]) == 0
    topics = json.loads(capsys.readouterr().out)
    assert list(topics[0]) == ["topic", "label", "size", "words"]
    assert sum(t["size"] for t in topics) == 133
    assert isinstance(topics[0]["words"], list) and topics[0]["words"]
    assert main(["topics", "--review", str(review), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("topic,label,size,words\n")
    assert main(["topics", "--review", str(review)]) == 0
    assert capsys.readouterr().out.split()[:4] == ["topic", "label", "size", "words"]


def test_build_reports_what_it_read_and_embedded(tmp_path, capsys):
    assert main(["build", str(ROOT / "seeds"), "--review", str(tmp_path / "r"), "--embedder", "fake"]) == 0
    err = capsys.readouterr().err
    assert "000_190025daee690182.txt (seeds): 13 read, 0 skipped, 0 merged" in err
    assert "embedded 133 of 133 papers (0 from the cache)" in err
    assert main(["build", str(ROOT / "seeds"), "--review", str(tmp_path / "r"), "--embedder", "fake", "-q"]) == 0
    assert "embedded 0 of 133 papers (133 from the cache)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["papers", "--review", "{tmp}/nothing"], "is not a built review"),
        (["build", "{tmp}/missing.txt", "--review", "{tmp}/r"], "missing.txt: no such file or folder"),
        (["build", "{tmp}/empty.txt", "--review", "{tmp}/r"], "empty.txt: the file is empty"),
        (["build", "{tmp}/refs.xyz", "--review", "{tmp}/r"], "no reader for 'refs.xyz'; supported:"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(tmp_path, argv, message):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "refs.xyz").write_text("\x00\x01 binary-ish junk that is no format at all\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    proc = subprocess.run(
        [sys.executable, "-m", "workbench.cli", *argv], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("workbench: error: ") and message in lines[0]
    assert "Traceback" not in proc.stderr


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["build", "--embedder", "bert"])
    assert exit.value.code == 2
    assert "invalid choice: 'bert'" in capsys.readouterr().err


def test_console_script_is_installed():
    exe = ROOT / ".venv" / "bin" / "workbench"
    if not exe.exists():
        pytest.skip("not running from the project's .venv")
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("workbench ")


# ----------------------------------------------------------------------------- a build's own review

def test_a_build_in_the_folder_of_its_review_does_not_read_the_review(tmp_path, monkeypatch, capsys):
    import shutil

    shutil.copy(sorted((ROOT / "seeds").glob("*.txt"))[0], tmp_path / "seeds.txt")
    monkeypatch.chdir(tmp_path)
    argv = ["build", ".", "--review", "./review", "--embedder", "fake", "-q"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(["export", "--review", "review", "--format", "ris", "-o", "review/report/annotations.ris"]) == 0
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "review/: not read: it is the review being built" in err
    assert "seeds.txt (seeds): 13 read" in err
    assert "papers.jsonl (" not in err and "annotations.ris (" not in err  # neither was read
    assert workbench_api.open_review(tmp_path / "review").manifest["n_papers"] == 13


# ----------------------------------------------------------------------------- control characters

# What a terminal obeys: ESC sequences (colour, clear screen, set the title), BEL, CR and
# backspace (overwrite), a C1 CSI, and bidi overrides and isolates.
HOSTILE_TITLE = "Title \x1b[2J\x1b]0;pwned\x07 over\rwrite\x08\x08 \x9b31m \u202eesrever\u202c \u2066iso\u2069"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def workbench(*argv, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_PROGRESS": "0", "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True,
                          timeout=300, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def hostile_review(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    records = [{"title": f"{HOSTILE_TITLE} {i}", "abstract": f"Paper {i} about reward models and agents.",
                "authors": [f"Doe\x1b[31m, J{i}"]} for i in range(13)]
    (folder / "src").mkdir()
    (folder / "src" / "hostile.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (folder / "src" / "x\x1b[2J.xyz").write_text("no format at all\n")
    assert main(["build", str(folder / "src"), "--review", str(folder / "review"), "--embedder", "fake", "-q"]) == 0
    return folder


def test_messages_and_tables_show_control_characters_escaped(hostile_review):
    review = str(hostile_review / "review")
    r = ["--review", review, "--reviewer", "ana"]
    pid = json.loads(workbench("papers", "--review", review, "--format", "json").stdout)[0]["id"]
    checks = {
        "refused reviewer": workbench("tag", pid, "fine", "--review", review, "--reviewer", "ana\x1b[31m"),
        "papers table": workbench("papers", "--review", review),
        "read table and report": workbench("read", str(hostile_review / "src")),
        "refused tag": workbench("tag", pid, "evil\x1b[2J", *r),
        "note": workbench("note", pid, "\x1b]0;pwned\x07 read\rthis", *r),
        "decide": workbench("decide", pid, "include", "--reason", "\x1b[31mred\u202e", *r),
        "rename topic": workbench("rename-topic", "0", "\x1b[2Jtopic\x07", *r),
        "topics table": workbench("topics", "--review", review),
        "history": workbench("history", *r),
        "export to a file": workbench("export", "--format", "csv", "-o", str(hostile_review / "x\x1b[2J.csv"), *r),
    }
    for what, proc in checks.items():
        out = (proc.stdout + proc.stderr).decode("utf-8")
        assert not RAW.search(out), (what, out)
        if what != "note":  # its confirmation holds no user data
            assert "\\x1b" in out or "\\u202e" in out, (what, out)
    for refused in ("refused tag", "refused reviewer"):
        assert checks[refused].returncode == 1
        assert checks[refused].stderr.decode().count("\n") == 1
    assert "\\x1b]0;pwned\\x07 read this" in checks["history"].stdout.decode()
    assert "x\\x1b[2J.xyz: not read" in checks["read table and report"].stderr.decode()


def test_a_tag_saved_by_an_older_workbench_is_shown_escaped_and_can_be_removed(hostile_review):
    import sqlite3

    review = hostile_review / "review"
    pid = json.loads(workbench("papers", "--review", str(review), "--format", "json").stdout)[1]["id"]
    with sqlite3.connect(review / "annotations.sqlite") as conn:
        conn.execute("INSERT INTO tag_vocab (name, description, created_by, created_at) "
                     "VALUES ('old\x1b[8mtag', '', 'old', '2020-01-01T00:00:00Z')")
        conn.execute("INSERT INTO paper_tags VALUES (?, 'old\x1b[8mtag', 'old', '2020-01-01T00:00:00Z')", (pid,))
    r = ["--review", str(review)]
    for proc in (workbench("tag", pid, "fine", *r), workbench("untag", pid, "missing", *r)):
        out = (proc.stdout + proc.stderr).decode()
        assert "old\\x1b[8mtag" in out and not RAW.search(out)
    assert workbench("untag", pid, "old\x1b[8mtag", *r).returncode == 0


def test_data_outputs_stay_byte_exact(hostile_review):
    review = str(hostile_review / "review")
    titles = {f"{HOSTILE_TITLE} {i}".replace("\r", " ") for i in range(13)}  # readers fold a CR
    rows = list(csv.DictReader(io.StringIO(workbench("papers", "--review", review, "--format", "csv").stdout.decode())))
    assert {row["title"] for row in rows} == titles
    as_json = json.loads(workbench("papers", "--review", review, "--format", "json").stdout)
    assert {row["title"] for row in as_json} == titles
    exported = workbench("export", "--review", review, "--format", "csv").stdout.decode()
    assert exported.count("\x1b[2J\x1b]0;pwned\x07") == 13  # exports to standard output: data as it is

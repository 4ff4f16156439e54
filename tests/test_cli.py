"""The command line contract: build, papers, topics; exit codes; one-line errors."""

import csv
import io
import json
import subprocess
import sys

import pytest

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

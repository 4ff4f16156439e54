"""What every command shares (workbench/cli/common.py) and the main command line's exit codes."""

from __future__ import annotations

import argparse
import json
import re
import shutil

import pandas as pd
import pytest
from conftest import SEEDS

import workbench.cli.build
from workbench.cli import main, parser
from workbench.cli.common import Reply, on_store, write_table
from workbench.errors import ReviewError, WorkbenchError
from workbench.store import Store

IDS = ["3f2a9c0b1d2e", "3f2b00000001", "a1b2c3d4e5f6"]

#: Every command, in the order ``workbench --help`` lists them, with the least it needs to parse.
COMMANDS = {
    "build": [], "papers": [], "topics": [], "notebooks": [], "update": ["new.ris"], "duplicates": [],
    "read": ["refs.bib"],
    "tag": ["3f", "x"], "untag": ["3f", "x"], "note": ["3f", "t"], "decide": ["3f", "maybe"],
    "rename-tag": ["a", "b"], "rename-topic": ["1", "x"], "rank": [], "simulate": ["f.csv"], "stopping": [],
    "history": [], "undo": [], "export": ["--format", "csv"], "backup": [], "restore": [], "check": [],
    "import-annotations": ["f.jsonl"], "title": [],
    "agreement": [], "conflicts": [], "prisma": [], "criteria": [], "reasons": [], "blind": [],
    "reviewers-per-paper": [], "sources": [], "links": [], "trends": [], "who": [], "methods": [], "snowball": [],
}
NO_REVIEW = ("read", "simulate")  # they read files, not a review
#: The commands that act on the review's store as a reviewer (``--reviewer``).
STORE_COMMANDS = [name for name in COMMANDS if name not in
                  ("build", "papers", "topics", "notebooks", "read", "simulate", "links", "trends", "who")]


@pytest.fixture
def store_folder(tmp_path):
    folder = tmp_path / "review"
    with Store.open(folder, reviewer="setup") as store:
        store.sync_papers([{"id": i, "title": f"Paper {i}"} for i in IDS])
    return folder


def test_every_command_is_there_in_the_documented_order(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    listed = re.findall(r"^    (\S+)", capsys.readouterr().out, flags=re.MULTILINE)
    assert listed == list(COMMANDS)


@pytest.mark.parametrize("name", COMMANDS)
def test_review_reviewer_and_format_are_the_same_for_every_command(name):
    args = parser().parse_args([name, *COMMANDS[name]])
    assert callable(args.func)
    if name not in NO_REVIEW:
        assert args.review == "review"
        assert parser().parse_args([name, *COMMANDS[name], "--review", "elsewhere"]).review == "elsewhere"
    if name in STORE_COMMANDS:
        assert args.reviewer is None
        assert parser().parse_args([name, *COMMANDS[name], "--reviewer", "ana"]).reviewer == "ana"
    if name in ("papers", "topics", "read", "rank", "simulate", "stopping", "update", "duplicates", "links", "trends", "who",
                "snowball"):
        assert args.format == "table"
        assert parser().parse_args([name, *COMMANDS[name], "--format", "json"]).format == "json"


@pytest.mark.parametrize("name", ["papers", "topics", "read"])
def test_an_unknown_format_is_a_usage_error(name, capsys):
    with pytest.raises(SystemExit) as info:
        main([name, *COMMANDS[name], "--format", "xml"])
    assert info.value.code == 2
    assert "invalid choice: 'xml' (choose from 'table', 'csv', 'json')" in capsys.readouterr().err


# ----------------------------------------------------------------------------- the store pattern

@on_store(paper=True)
def _shout(args, store, pid) -> Reply:
    store.tags.add(pid, "seen")
    return Reply([f"{pid}: \x1b[2J{store.reviewer}"], err=["beep\x07"], data="raw\x1b[31m\n", code=3)


def test_on_store_resolves_the_prefix_acts_and_prints_messages_escaped_and_data_as_it_is(store_folder, capsys):
    args = argparse.Namespace(review=str(store_folder), reviewer="ana", id="a1b2")
    assert _shout(args) == 3
    captured = capsys.readouterr()
    assert captured.out == "a1b2c3d4e5f6: \\x1b[2Jana\nraw\x1b[31m\n"
    assert captured.err == "beep\\x07\n"
    with Store.open(store_folder) as store:  # the change was made, as ana, and the store let go
        assert store.tags.of(IDS[2]) == ["seen"] and store.history(limit=1)[0].reviewer == "ana"


def test_on_store_refuses_an_ambiguous_prefix_and_a_missing_store(store_folder, tmp_path):
    with pytest.raises(WorkbenchError, match="id prefix '3f' matches several papers"):
        _shout(argparse.Namespace(review=str(store_folder), reviewer=None, id="3f"))
    with pytest.raises(WorkbenchError, match="no annotation store at"):
        _shout(argparse.Namespace(review=str(tmp_path / "none"), reviewer=None, id="3f"))
    assert not (tmp_path / "none").exists()


# ----------------------------------------------------------------------------- exit codes

@pytest.mark.parametrize("raised, code, message", [
    (KeyboardInterrupt(), 130, "workbench: interrupted\n"),
    (BrokenPipeError(), 0, ""),
    (ReviewError("review 'x' is odd; rebuild it"), 1, "workbench: error: review 'x' is odd; rebuild it\n"),
    (ValueError("bad \x1b[2J value"), 1, ("workbench: error: ValueError: bad \\x1b[2J value (this is a bug: "
                                          "rerun with WORKBENCH_DEBUG=1 and report the traceback)\n")),
])
def test_exit_codes_and_the_one_error_line(monkeypatch, capsys, raised, code, message):
    def fails(review):
        raise raised

    monkeypatch.delenv("WORKBENCH_DEBUG", raising=False)
    monkeypatch.setattr(workbench.cli.build, "open_review", fails)
    assert main(["papers"]) == code
    captured = capsys.readouterr()
    assert captured.err == message and captured.out == ""


def test_workbench_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setenv("WORKBENCH_DEBUG", "1")
    with pytest.raises(WorkbenchError, match="no annotation store at"):
        main(["history", "--review", "no-such-review"])


# ----------------------------------------------------------------------------- tables

def test_write_table_in_three_formats(capsys):
    frame = pd.DataFrame({"id": ["a", "b"], "title": ["T\x1b[2J", "x" * 80], "words": [["w1", "w2"], []],
                          "x": [0.123, 1.0]})
    write_table(frame, "json", list_columns=["words"])
    assert json.loads(capsys.readouterr().out)[0] == {"id": "a", "title": "T\x1b[2J", "words": ["w1", "w2"],
                                                      "x": 0.123}
    write_table(frame, "csv", list_columns=["words"])
    assert capsys.readouterr().out == f"id,title,words,x\na,T\x1b[2J,w1; w2,0.123\nb,{'x' * 80},,1.0\n"
    write_table(frame, "table", list_columns=["words"])
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["id", "title", "words", "x"] and len(table) == 3
    assert "T\\x1b[2J" in table[1] and "w1; w2" in table[1] and table[1].endswith("0.12")
    assert "x" * 59 + "…" in table[2] and "x" * 60 not in table[2]


# ----------------------------------------------------------------------------- snapshots

def test_backup_restore_and_check_through_the_command_line(tmp_path, capsys):
    shutil.copy(min(SEEDS.glob("*.txt")), tmp_path / "seeds.txt")
    review = tmp_path / "review"
    assert main(["build", str(tmp_path / "seeds.txt"), "--review", str(review), "--embedder", "fake", "-q"]) == 0
    r = ["--review", str(review), "--reviewer", "ana"]
    capsys.readouterr()
    assert main(["papers", *r[:2], "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)[0]["id"]
    assert main(["backup", *r]) == 0
    out = capsys.readouterr().out.splitlines()
    name = out[0].rsplit("/", 1)[1]
    assert out == [f"snapshot: {review}/backups/{name}",
                   f"restore it with `workbench restore {name} --review {review}`"]
    assert main(["tag", first, "later", *r]) == 0
    assert main(["restore", name, *r]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith(f"restored {name} (") and out[-2].endswith(", manual)")
    assert out[-1].startswith("the store as it was before is in ") and f"--review {review}` puts it back" in out[-1]
    with Store.open(review) as store:
        assert store.tags.of(first) == []
    assert main(["check", *r]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "ok"
    with Store.open(review) as store:
        generation = store.files.generation()
    (review / "generations" / generation / "topics.json").unlink()
    assert main(["check", *r]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"PROBLEMS: generations/{generation}/topics.json is missing"
    assert any(line.startswith("  write the review's files again with `workbench build ") for line in out)

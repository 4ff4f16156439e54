"""The store commands, run in-process: through their own parser and through workbench.cli.main."""

from __future__ import annotations

import argparse
import json

import pytest

from workbench.cli import annotate, files, history, main
from workbench.errors import WorkbenchError
from workbench.store import Store

IDS = ["3f2a9c0b1d2e", "3f2b00000001", "a1b2c3d4e5f6"]


@pytest.fixture
def review(tmp_path):
    folder = tmp_path / "review"
    with Store.open(folder, reviewer="setup") as store:
        store.sync_papers([{"id": i, "title": f"Paper {i}", "authors": ["Doe, J."],
                            "year": 2024, "venue": "Conf"} for i in IDS])
        store.topics.record({IDS[0]: 0, IDS[1]: 0, IDS[2]: 1}, {0: "zero", 1: "one"}, {})
    return folder


def store_parser() -> argparse.ArgumentParser:
    """A parser with only the store commands, as each module registers them."""
    parser = argparse.ArgumentParser(prog="workbench")
    sub = parser.add_subparsers(dest="command")
    for group in (annotate, history, files):
        group.register(sub)
    return parser


def run(*argv: str) -> int:
    args = store_parser().parse_args(argv)
    return args.func(args)


def test_every_command_defaults_to_the_review_folder_and_takes_a_reviewer():
    parser = store_parser()
    for argv in (["tag", "3f", "x"], ["untag", "3f", "x"], ["note", "3f", "t"],
                 ["decide", "3f", "include"], ["rename-tag", "a", "b"], ["rename-topic", "1", "x"],
                 ["history"], ["undo"], ["export", "--format", "csv"], ["backup"], ["restore"],
                 ["check"], ["import-annotations", "f.jsonl"]):
        args = parser.parse_args(argv)
        assert args.review == "review" and args.reviewer is None and callable(args.func)
        assert parser.parse_args(argv + ["--reviewer", "ana"]).reviewer == "ana"


def test_tag_note_decide_by_unique_prefix(review, capsys):
    r = ["--review", str(review), "--reviewer", "ana"]
    assert run("tag", "a1b2", "relevant", "rl", *r) == 0
    assert capsys.readouterr().out == "a1b2c3d4e5f6: relevant, rl (2 added)\n"
    assert run("note", "a1b", "Uses", "PPO", "throughout.", *r) == 0
    assert run("decide", "3f2a", "exclude", "--reason", "off topic", *r) == 0
    assert "3f2a9c0b1d2e: exclude (off topic) by ana" in capsys.readouterr().out
    assert run("untag", "a1b2", "rl", *r) == 0
    assert run("untag", "a1b2", "rl", *r) == 1
    assert "has no tag 'rl' (its tags: relevant)" in capsys.readouterr().err
    with Store.open(review) as store:
        assert store.tags.of(IDS[2]) == ["relevant"]
        assert store.notes.of(IDS[2])[0].text == "Uses PPO throughout."
        assert store.decisions.of(IDS[0], reviewer="ana").reason == "off topic"


def test_rename_topic_history_and_undo(review, capsys):
    r = ["--review", str(review), "--reviewer", "ana"]
    assert run("rename-topic", "1", "Reward", "models", *r) == 0
    assert run("tag", IDS[0], "x", *r) == 0
    capsys.readouterr()
    assert run("history", "--limit", "2", *r) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "ana  tag 3f2a9c0b1d2e +x" in lines[0]
    assert "rename topic 1 -> 'Reward models'" in lines[1]
    assert run("undo", "2", *r) == 0
    assert capsys.readouterr().out.count("undid #") == 2
    with Store.open(review) as store:
        assert store.tags.of(IDS[0]) == [] and store.topics.current()[1] == {0: "zero", 1: "one"}


def test_export_to_stdout_and_file_then_import_elsewhere(review, tmp_path, capsys):
    r = ["--review", str(review), "--reviewer", "ana"]
    run("tag", "a1b2", "relevant", *r)
    capsys.readouterr()
    assert run("export", "--format", "jsonl", *r) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed.splitlines()[0])["format"] == "workbench-annotations"
    out = tmp_path / "ann.jsonl"
    assert run("export", "--format", "jsonl", "-o", str(out), *r) == 0
    assert out.read_text() == printed
    Store.open(tmp_path / "other").close()  # another (empty) review
    other = ["--review", str(tmp_path / "other"), "--reviewer", "bob"]
    assert run("import-annotations", str(out), *other) == 0
    assert "imported 3 papers, 1 tags" in capsys.readouterr().out
    assert run("import-annotations", str(out), *other) == 0
    assert "imported nothing new" in capsys.readouterr().out
    for fmt in ("csv", "bibtex", "ris", "markdown"):
        assert run("export", "--format", fmt, *r) == 0
        assert "a1b2c3d4e5f6" in capsys.readouterr().out


@pytest.mark.parametrize("argv, match", [
    (["tag", "3f", "x"], "id prefix '3f' matches several papers"),
    (["tag", "ffff", "x"], "no paper with id or id prefix 'ffff'"),
    (["tag", "a1b2", "a,b"], "contains ','"),
    (["rename-topic", "9", "x"], "topic 9 is not a topic of the latest build"),
    (["undo"], "nothing to undo"),
])
def test_user_errors_are_workbench_errors_with_one_line(review, argv, match):
    with pytest.raises(WorkbenchError, match=match) as info:
        run(*argv, "--review", str(review))
    assert "\n" not in str(info.value)


def test_a_missing_review_is_an_error_not_a_new_store(tmp_path):
    with pytest.raises(WorkbenchError, match="no annotation store at"):
        run("tag", "a1b2", "x", "--review", str(tmp_path / "missing"))
    assert not (tmp_path / "missing").exists()


def test_bad_arguments_are_refused_by_the_parser(review, capsys):
    with pytest.raises(SystemExit) as info:
        run("decide", "a1b2", "accept", "--review", str(review))
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        run("undo", "0", "--review", str(review))
    assert "expected a whole number >= 1" in capsys.readouterr().err


def test_through_the_workbench_command_line(review, capsys):
    assert main(["tag", "a1b2", "via-main", "--review", str(review), "--reviewer", "ana"]) == 0
    assert "via-main" in capsys.readouterr().out
    assert main(["tag", "3f", "x", "--review", str(review)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("workbench: error: id prefix '3f' matches several papers")
    assert err.count("\n") == 1


def test_rename_tag_renames_everywhere_and_merges_into_an_existing_one(review, capsys):
    r = ["--review", str(review), "--reviewer", "ana"]
    run("tag", IDS[0], "rl", *r)
    run("tag", IDS[1], "rl", "reinforcement", *r)
    capsys.readouterr()
    assert run("rename-tag", "rl", "reinforcement", *r) == 0
    assert "tag 'rl' is now 'reinforcement' on 2 papers" in capsys.readouterr().out
    with Store.open(review) as store:
        assert store.tags.of(IDS[0]) == ["reinforcement"] and store.tags.of(IDS[1]) == ["reinforcement"]
        assert "rl" not in [t.name for t in store.tags.vocabulary()]

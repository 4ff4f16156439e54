"""Imports check every value as the command line does, all or nothing, into an existing review."""

from __future__ import annotations

import json
import os
import re
import sqlite3
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.store import AnnotationInputError, Store

PID = "0123456789ab"
AT = "2024-05-01T09:30:00.000000Z"
HEADER = {"type": "header", "format": "workbench-annotations", "version": 1}
GOOD = [
    HEADER,
    {"type": "tag", "name": "relevant", "description": "", "colour": None, "created_by": "ana",
     "created_at": AT},
    {"type": "paper", "id": PID, "title": "A paper", "abstract": "", "authors": ["Doe, J."],
     "year": 2024, "doi": None, "venue": None, "url": None, "keywords": [], "collection": "",
     "source": "", "topic": None},
    {"type": "tagged", "paper": PID, "tag": "relevant", "reviewer": "ana", "at": AT},
    {"type": "note", "paper": PID, "uid": "a" * 32, "text": "A note.", "reviewer": "ana",
     "created_at": AT, "updated_at": AT},
    {"type": "decision", "paper": PID, "reviewer": "ana", "decision": "include", "reason": None,
     "at": AT},
]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def changed(records: list[dict], line: int, **values) -> list[dict]:
    """``records`` with the record on ``line`` (1-based) changed."""
    out = [dict(r) for r in records]
    out[line - 1].update(values)
    return out


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path / "review", reviewer="bob") as store:
        store.sync_papers([{"id": "ffffffffffff", "title": "Already here"},
                           {"id": PID, "title": "A paper", "authors": ["Doe, J."], "year": 2024}])
        yield store


def state(store: Store) -> tuple:
    return store.files.export("jsonl"), [e.id for e in store.history(limit=None)]


@pytest.mark.parametrize("line, values, match", [
    (4, {"tag": "a,b"}, "tagged record, tag: tag 'a,b' contains ','"),
    (4, {"tag": "x {draft}"}, "contains '{'"),
    (4, {"tag": "red\x1b[31m"}, r"control character U\+001B"),
    (4, {"tag": "x^2"}, "superscript"),
    (4, {"tag": ""}, "is empty"),
    (4, {"tag": ["a"]}, "expected a string"),
    (2, {"name": "bad;name"}, "tag record, name: tag 'bad;name' contains ';'"),
    (2, {"colour": "not a colour!"}, "colour 'not a colour!' is not usable"),
    (6, {"decision": "accept"}, "decision record, decision: decision 'accept' is not one of"),
    (6, {"reason": 5}, "reason 5: expected text or None"),
    (5, {"text": "   "}, "note record, text: note '   ' is empty"),
    (5, {"text": 3}, "note 3 is empty"),
    (5, {"uid": "has space"}, "expected the note's uid"),
    (5, {"updated_at": "yesterday"}, "'yesterday': expected an ISO 8601 time"),
    (4, {"reviewer": " "}, "expected a reviewer's name"),
    (4, {"paper": "not-an-id"}, "paper id 'not-an-id' is not usable"),
    (3, {"authors": "Doe, J."}, "paper record, authors: 'Doe, J.': expected a list of strings"),
    (3, {"keywords": "rl; ppo"}, "expected a list of strings"),
    (3, {"year": "2024"}, "paper record, year: '2024': expected a whole number"),
    (3, {"year": True}, "expected a whole number"),
    (3, {"topic": "2"}, "expected a whole number"),
    (3, {"title": 7}, "paper record, title: 7: expected text"),
    (1, {"version": "1"}, "header record, version: '1': expected a whole number"),
    (2, {"type": "tags"}, "record type 'tags' is unknown"),
])
def test_a_bad_value_names_the_file_and_line_and_nothing_is_imported(store, tmp_path, line, values, match):
    path = write(tmp_path / "bad.jsonl", changed(GOOD, line, **values))
    before = state(store)
    with pytest.raises(AnnotationInputError, match=match) as info:
        store.files.import_annotations(path)
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert "nothing was imported" in str(info.value) or "unknown" in str(info.value)
    assert state(store) == before


def test_the_first_bad_value_is_the_one_reported(store, tmp_path):
    records = changed(changed(GOOD, 6, decision="accept"), 4, tag="a;b")
    with pytest.raises(AnnotationInputError, match=r"bad\.jsonl:4: tagged record"):
        store.files.import_annotations(write(tmp_path / "bad.jsonl", records))


def test_values_are_kept_as_the_command_line_keeps_them(store, tmp_path):
    records = changed(changed(changed(GOOD, 4, tag="  to \t read "), 6, decision=" Include ",
                                      reason="  on topic  "), 5, text="  A note.\n")
    store.files.import_annotations(write(tmp_path / "a.jsonl", records))
    assert store.tags.of(PID) == ["to read"]
    assert store.decisions.of(PID, reviewer="ana").decision == "include"
    assert store.decisions.of(PID, reviewer="ana").reason == "on topic"
    assert store.notes.of(PID)[0].text == "A note."
    assert store.paper(PID)["authors"] == ["Doe, J."]
    assert store.tags.remove(PID, "to read") is True  # an imported tag can be removed again
    assert store.tags.remove(PID, "  to  read") is False


def test_an_import_is_one_transaction(store, tmp_path, monkeypatch):
    """A failure after the first rows are written leaves nothing of the import behind."""
    import workbench.store._import as importer

    def fail(*args):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(importer, "_import_topics", fail)
    before = state(store)
    with pytest.raises(Exception, match="disk I/O error"):
        store.files.import_annotations(write(tmp_path / "a.jsonl", GOOD))
    assert state(store) == before


def test_a_tag_saved_under_older_rules_can_still_be_removed_and_renamed(store):
    """Stores written before tags were checked (or by old imports) may hold any tag name."""
    with sqlite3.connect(store.path) as conn:  # such a store, as an older workbench left it
        conn.execute("INSERT INTO tag_vocab (name, description, created_by, created_at) "
                     "VALUES ('a,b', '', 'old', ?), ('{x}', '', 'old', ?)", (AT, AT))
        conn.execute("INSERT INTO paper_tags VALUES ('ffffffffffff', 'a,b', 'old', ?), "
                     "('ffffffffffff', '{x}', 'old', ?)", (AT, AT))
    assert store.tags.of("ffffffffffff") == ["a,b", "{x}"]
    assert store.tags.remove("ffffffffffff", "a,b") is True
    assert store.tags.rename("{x}", "x") == 1
    assert store.tags.of("ffffffffffff") == ["x"]


def test_import_into_a_review_that_does_not_exist_is_an_error(tmp_path, capsys):
    path = write(tmp_path / "a.jsonl", GOOD)
    missing = tmp_path / "nowhere"
    assert main(["import-annotations", str(path), "--review", str(missing)]) == 1
    err = capsys.readouterr().err
    assert f"review folder '{missing}' does not exist" in err
    assert "build the review first" in err and err.count("\n") == 1
    assert not missing.exists()
    (tmp_path / "empty").mkdir()
    assert main(["import-annotations", str(path), "--review", str(tmp_path / "empty")]) == 1
    assert "has no annotation store (annotations.sqlite)" in capsys.readouterr().err
    assert list((tmp_path / "empty").iterdir()) == []


def test_import_into_an_existing_review_from_the_command_line(store, tmp_path, capsys):
    path = write(tmp_path / "a.jsonl", GOOD)
    assert main(["import-annotations", str(path), "--review", str(store.path.parent)]) == 0
    assert "imported 1 decisions, 1 notes, 1 tags, 1 tags in the vocabulary; 0 already present" in capsys.readouterr().out
    assert store.tags.of(PID) == ["relevant"]


# ----------------------------------------------------------------------------- another review's export

def cli(*argv: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True, text=True, timeout=300)


def review_of(folder: Path, ids: list[str], tag: str | None = None) -> Path:
    with Store.open(folder, reviewer="ana") as store:
        store.sync_papers([{"id": i, "title": f"Paper {i}", "abstract": "text"} for i in ids])
        if tag:
            store.tags.add(ids, tag)
    return folder


SEEDS_LIKE = [f"{i:012x}" for i in range(1, 134)]  # another review's 133 papers


def test_another_reviews_export_is_refused_without_allow_orphans_and_nothing_is_written(tmp_path):
    other = review_of(tmp_path / "other", SEEDS_LIKE, "screened")
    export = tmp_path / "other.jsonl"
    with Store.open(other) as store:
        store.files.export("jsonl", export)
    small = review_of(tmp_path / "small", [SEEDS_LIKE[0], "f" * 12])
    with Store.open(small) as store:
        before = state(store)
    refused = cli("import-annotations", str(export), "--review", str(small), "--reviewer", "bob")
    assert refused.returncode == 1, refused.stdout
    assert refused.stderr.count("\n") == 1 and str(export) in refused.stderr
    assert "132 of the 133 papers in it (99%) are not in this review (2 papers)" in refused.stderr
    assert "nothing was imported" in refused.stderr and "--allow-orphans" in refused.stderr
    with Store.open(small) as store:
        assert state(store) == before and store.files.snapshots() == []
    allowed = cli("import-annotations", str(export), "--review", str(small), "--reviewer", "bob", "--allow-orphans")
    assert allowed.returncode == 0, allowed.stderr
    assert "132 of the 133 papers in the file are not in this review (their annotations are kept as orphans)" in (
        allowed.stdout)
    with Store.open(small) as store:
        assert len(store.orphaned()) == 132 and store.tags.of(SEEDS_LIKE[0]) == ["screened"]


def test_an_export_with_half_of_its_papers_in_the_review_is_imported_and_the_rest_reported(tmp_path):
    ids = SEEDS_LIKE[:4]
    other = review_of(tmp_path / "other", ids, "seen")
    export = tmp_path / "half.jsonl"
    with Store.open(other) as store:
        store.files.export("jsonl", export)
    with Store.open(review_of(tmp_path / "mine", ids[:2]), reviewer="bob") as store:
        report = store.files.import_annotations(export)  # 2 of 4 not here: not "mostly"
        assert (report.papers, report.orphans) == (4, 2) and "2 of the 4 papers" in str(report)
    with Store.open(review_of(tmp_path / "fewer", ids[:1]), reviewer="bob") as store:
        with pytest.raises(AnnotationInputError, match="3 of the 4 papers in it .75%. are not in this review"):
            store.files.import_annotations(export)
        assert store.files.import_annotations(export, allow_orphans=True).orphans == 3


def test_imported_annotations_on_a_paper_merged_away_here_go_to_the_paper_it_joined(store, tmp_path):
    store.duplicates.settle("ffffffffffff", PID, "same")  # a colleague's copy does not know it
    report = store.files.import_annotations(write(tmp_path / "a.jsonl", GOOD))
    assert report.merged == 1 and report.orphans == 0
    assert store.tags.of("ffffffffffff") == ["relevant"]
    assert store.decisions.of("ffffffffffff", reviewer="ana").decision == "include"
    assert f'"paper": "{PID}"' not in store.files.export("jsonl")


def test_papers_that_left_the_corpus_still_count_as_the_reviews_own(tmp_path):
    """A colleague's export of the same review, after a rebuild on a narrower search left most
    papers out of the corpus: it is this review's, not another's (its papers are reported)."""
    ids = SEEDS_LIKE[:10]
    export = tmp_path / "colleague.jsonl"
    with Store.open(review_of(tmp_path / "theirs", ids, "seen")) as store:
        store.files.export("jsonl", export)
    with Store.open(review_of(tmp_path / "mine", ids), reviewer="bob") as store:
        store.sync_papers([{"id": i, "title": f"Paper {i}", "abstract": "text"} for i in ids[:3]])  # 7 left
        report = store.files.import_annotations(export)
        assert (report.papers, report.orphans) == (10, 7) and store.tags.of(ids[0]) == ["seen"]


def test_a_store_with_no_paper_yet_takes_any_export(tmp_path):
    """Nothing to mismatch: a new store filled from an export (e.g. a lost store rebuilt from one)."""
    export = tmp_path / "all.jsonl"
    with Store.open(review_of(tmp_path / "theirs", SEEDS_LIKE[:5], "seen")) as store:
        store.files.export("jsonl", export)
    with Store.open(tmp_path / "new", reviewer="bob") as store:
        report = store.files.import_annotations(export)
        assert (report.papers, report.orphans) == (5, 5) and len(store.orphaned()) == 5


@pytest.mark.timeout(60)
def test_an_import_file_that_is_a_pipe_or_a_folder_is_refused_unopened(store, tmp_path):
    os.mkfifo(tmp_path / "pipe.jsonl")  # reading it would wait for a writer: forever
    before = state(store)
    for name, kind in (("pipe.jsonl", "a named pipe (FIFO)"), (".", "a folder")):
        with pytest.raises(AnnotationInputError, match=f"not a regular file but {re.escape(kind)}; not opened"):
            store.files.import_annotations(tmp_path / name)
    with pytest.raises(AnnotationInputError, match=r"gone\.jsonl: no such file; expected a \.jsonl file"):
        store.files.import_annotations(tmp_path / "gone.jsonl")
    assert state(store) == before


@pytest.mark.parametrize("line, said", [
    ('{"type": "tagged", "a": %s}' % ("[" * 100_000 + "]" * 100_000),
     "not a record (nested hundreds of levels deep, as no export is); expected one JSON object per line"),
    ('{"type": "tagged", "n": %s}' % ("9" * 5000),
     "not a record (a number of more than 4,300 digits, as no export has); expected one JSON object per line"),
    (json.dumps({**GOOD[4], "text": "Half \ud800 a pair"}),
     "a value holds half of a surrogate pair (an escape such as \\ud800 alone), which is no text; nothing was "
     "imported, fix this line and import again"),
], ids=["deep", "long-number", "half-pair"])
def test_json_no_export_writes_is_an_error_on_its_line_not_a_crash(store, tmp_path, line, said):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(HEADER) + "\n" + line + "\n", encoding="utf-8")
    before = state(store)
    with pytest.raises(AnnotationInputError) as info:
        store.files.import_annotations(path)
    assert str(info.value) == f"{path}:2: {said}"
    assert state(store) == before

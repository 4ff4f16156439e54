"""The store's file: refusing what is not ours, migrating old stores, exports and imports."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

import bibtexparser
import pytest
import rispy

from workbench.store import (
    FORMATS, SCHEMA_VERSION, AnnotationInputError, NotAStoreError, Store, StoreVersionError
)

DATA = Path(__file__).parent / "data" / "store"


def pid(i: int) -> str:
    return f"{i:012x}"


def paper(i: int, **changes) -> dict:
    row = {"id": pid(i), "title": f"Paper {i}: {{Braces}} & “quotes” }} unbalanced",
           "abstract": f"We study R$^3$ in 75% of cases (paper {i}).\nSecond line.",
           "authors": ["Gödel, Kurt", "Doe, Jane"], "year": 2021, "doi": f"10.1/x{i}",
           "venue": "Journal" if i % 2 else None, "url": f"https://example.org/{i}",
           "keywords": ["kw"], "collection": "main", "source": f"refs.bib:{i}"}
    row.update(changes)
    return row


def fingerprint(path: Path) -> tuple:
    siblings = sorted(p.name for p in path.parent.iterdir())
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns, siblings


def annotated_store(folder: Path) -> Store:
    store = Store.open(folder, reviewer="ana")
    store.sync_papers([paper(i) for i in range(12)])
    store.topics.record({pid(i): i % 3 if i < 10 else -1 for i in range(12)},
                        {0: "zero", 1: "one", 2: "two", -1: ""},
                        {0: ["a", "b"], 1: ["c"], 2: ["d"], -1: []})
    store.topics.rename(1, "Reward models")
    store.topics.merge([2, 0], into=0)
    store.topics.move_paper(pid(4), 0)
    store.tags.add([pid(1), pid(2)], "relevant", "to read")
    store.tags.describe("relevant", "on topic", "#00aa00")
    store.notes.add(pid(1), "Uses PPO.\n\nSee § 4 {appendix}.")
    store.notes.add(pid(1), "Second note, with “quotes” and, commas; semicolons")
    store.decisions.decide(pid(1), "include", reason="core paper")
    store.decisions.decide(pid(2), "exclude")
    bob = Store.open(folder, reviewer="bob")
    bob.decisions.decide(pid(1), "maybe", reason="unsure")
    bob.close()
    return store


# ----------------------------------------------------------------------------- refusing files

@pytest.mark.parametrize("content, match", [
    (b"", "it is empty"),
    (b"title,abstract\nfoo,bar\n" * 50, "starts with b'title,abstra'"),
    (os.urandom(8192), "expected a SQLite database"),
])
def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path, content, match):
    path = tmp_path / "annotations.sqlite"
    path.write_bytes(content)
    before = fingerprint(path)
    with pytest.raises(NotAStoreError, match=match):
        Store.open(tmp_path)
    assert fingerprint(path) == before


def test_another_sqlite_database_is_refused_untouched(tmp_path):
    path = tmp_path / "annotations.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE zotero_items (id INTEGER PRIMARY KEY, title TEXT)")
    conn.execute("INSERT INTO zotero_items (title) VALUES ('keep me')")
    conn.commit()
    conn.close()
    before = fingerprint(path)
    with pytest.raises(NotAStoreError, match=r"not a workbench annotation store "
                                             r"\(application_id=0.*tables: zotero_items"):
        Store.open(path)
    assert fingerprint(path) == before


def test_a_damaged_store_is_refused_untouched(tmp_path):
    annotated_store(tmp_path).close()
    path = tmp_path / "annotations.sqlite"
    with open(path, "r+b") as fh:  # keep the header, destroy the schema page
        fh.seek(100)
        fh.write(b"\xff" * 3900)
    before = fingerprint(path)
    with pytest.raises(NotAStoreError, match="cannot be read as an annotation store"):
        Store.open(tmp_path)
    assert fingerprint(path) == before


def test_a_store_from_a_newer_workbench_is_refused(tmp_path):
    Store.open(tmp_path).close()
    path = tmp_path / "annotations.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    before = fingerprint(path)
    with pytest.raises(StoreVersionError, match=r"made by a newer workbench \(schema 99 > 6.*upgrade"):
        Store.open(tmp_path)
    assert fingerprint(path) == before


# ----------------------------------------------------------------------------- migrations

def make_v1_store(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript((DATA / "schema_v1.sql").read_text())
    for i in range(6):
        conn.execute("INSERT INTO papers (id, title, authors) VALUES (?, ?, ?)",
                     (pid(i), f"Old paper {i}", json.dumps(["Roe, R."])))
    conn.executemany("INSERT INTO tags VALUES (?, ?, ?, ?)", [
        (pid(0), "relevant", "ana", "2024-01-01T10:00:00.000000Z"),
        (pid(1), "relevant", "bob", "2024-01-02T10:00:00.000000Z"),
        (pid(1), "method", "ana", "2024-01-03T10:00:00.000000Z")])
    conn.execute("INSERT INTO notes (paper_id, text, reviewer, created_at, updated_at) "
                 "VALUES (?, 'an old note', 'ana', '2024-01-04T10:00:00.000000Z', "
                 "'2024-01-04T10:00:00.000000Z')", (pid(2),))
    conn.execute("INSERT INTO decisions VALUES (?, 'include', 'fits', 'ana', "
                 "'2024-01-05T10:00:00.000000Z')", (pid(0),))
    conn.executemany("INSERT INTO paper_topics VALUES (?, ?)",
                     [(pid(i), 0 if i < 3 else 1) for i in range(6)])
    conn.execute("INSERT INTO topic_names VALUES (1, 'Named in v1', 'ana', "
                 "'2024-01-06T10:00:00.000000Z')")
    conn.execute("INSERT INTO log (at, reviewer, action, paper_id, detail) VALUES "
                 "('2024-01-01T10:00:00.000000Z', 'ana', 'tag', ?, '+relevant')", (pid(0),))
    conn.commit()
    conn.close()


def test_a_v1_store_opens_and_migrates_with_every_annotation(tmp_path):
    path = tmp_path / "annotations.sqlite"
    make_v1_store(path)
    with Store.open(tmp_path, reviewer="ana") as store:
        assert store.tags.of(pid(1)) == ["method", "relevant"]
        assert {t.name: t.count for t in store.tags.vocabulary()} == {"method": 1, "relevant": 2}
        note = store.notes.of(pid(2))[0]
        assert note.text == "an old note" and len(note.uid) == 32
        assert store.decisions.of(pid(0)).reason == "fits"
        assert store.topics.current()[1] == {0: "", 1: "Named in v1"}
        old = store.history(limit=None)[-1]
        assert (old.reviewer, old.action, old.undoable) == ("ana", "tag", False)
        assert "+relevant" in old.summary
        # The v1 topic name now survives a refit that renumbers the topics.
        store.topics.record({pid(i): 1 if i < 3 else 0 for i in range(6)}, {}, {})
        assert store.topics.current()[1] == {0: "Named in v1", 1: ""}
        store.tags.add(pid(5), "new")  # and the migrated store takes new writes
        assert store.files.integrity_check() == "ok"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


# ----------------------------------------------------------------------------- exports

def test_exports_are_deterministic_and_survive_reopening(tmp_path):
    store = annotated_store(tmp_path)
    first = {fmt: store.files.export(fmt) for fmt in FORMATS}
    store.close()
    with Store.open(tmp_path, reviewer="someone-else") as again:
        assert {fmt: again.files.export(fmt) for fmt in FORMATS} == first
        again.files.export("csv", tmp_path / "out.csv")
    assert (tmp_path / "out.csv").read_bytes() == first["csv"].encode("utf-8")


def test_jsonl_has_one_annotation_per_line(tmp_path):
    with annotated_store(tmp_path) as store:
        lines = [json.loads(line) for line in store.files.export("jsonl").splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "header"
    assert kinds.count("paper") == 12 and kinds.count("tagged") == 4
    assert kinds.count("note") == 2 and kinds.count("decision") == 3
    topics = {line["topic"]: line for line in lines if line["type"] == "topic"}
    assert sorted(topics) == [-1, 0, 1]  # topic 2 was merged into 0
    assert topics[1]["name"] == "Reward models" and topics[0]["label"] == "zero"


def test_csv_has_topic_tags_decision_and_notes_per_paper(tmp_path):
    import csv
    import io

    with annotated_store(tmp_path) as store:
        table = list(csv.DictReader(io.StringIO(store.files.export("csv"))))
    row = next(r for r in table if r["id"] == pid(1))
    assert (row["topic"], row["topic_label"]) == ("1", "Reward models")
    assert row["tags"] == "relevant; to read"
    assert row["decision"] == "disagree"
    assert row["decisions"] == "ana: include (core paper); bob: maybe (unsure)"
    assert "Uses PPO." in row["notes"] and "Second note" in row["notes"]
    assert next(r for r in table if r["id"] == pid(4))["topic"] == "0"  # moved


def test_bibtex_and_ris_carry_tags_as_keywords_and_notes(tmp_path):
    with annotated_store(tmp_path) as store:
        bib = bibtexparser.parse_string(store.files.export("bibtex"))
        ris = rispy.loads(store.files.export("ris"))
    assert not bib.failed_blocks and len(bib.entries) == 12
    entry = bib.entries_dict[pid(1)]
    assert entry.entry_type == "article"
    assert entry["keywords"] == "relevant, to read"
    assert "Uses PPO." in entry["annote"] and "ana: include (core paper)" in entry["annote"]
    assert entry["author"] == "Gödel, Kurt and Doe, Jane"
    assert len(ris) == 12
    ref = next(r for r in ris if r["id"] == pid(1))
    assert ref["keywords"] == ["relevant", "to read"]
    assert ref["notes"][0] == "[ana " + ref["notes"][0][5:15] + "] Uses PPO. See § 4 {appendix}."
    assert ref["notes"][-1].startswith("Screening: ana: include")


def test_markdown_groups_papers_by_topic(tmp_path):
    with annotated_store(tmp_path) as store:
        text = store.files.export("markdown")
    assert text.startswith("# Annotations\n")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Topic 0: zero (8 papers)", "## Topic 1: Reward models (2 papers)",
                        "## Topic -1: outliers (2 papers)"]
    assert "Tags: `relevant`, `to read`" in text and "> \\[ana " in text


def test_unknown_export_format_lists_the_supported_ones(tmp_path):
    with Store.open(tmp_path) as store, pytest.raises(
            AnnotationInputError, match="'docx' is not supported; expected one of jsonl, csv"):
        store.files.export("docx")


# ----------------------------------------------------------------------------- imports

def test_export_import_into_a_fresh_review_export_gives_the_same_bytes(tmp_path):
    with annotated_store(tmp_path / "a") as store:
        exported = {fmt: store.files.export(fmt) for fmt in FORMATS}
        store.files.export("jsonl", tmp_path / "a.jsonl")
    with Store.open(tmp_path / "b", reviewer="carol") as fresh:
        report = fresh.files.import_annotations(tmp_path / "a.jsonl")
        assert report.added["tags"] == 4 and report.added["notes"] == 2
        assert report.conflicts == ()
        for fmt in FORMATS:
            assert fresh.files.export(fmt) == exported[fmt], fmt
        assert len(fresh.orphaned()) == 2  # annotated, but this review has no corpus yet


def test_import_is_idempotent(tmp_path):
    with annotated_store(tmp_path / "a") as store:
        store.files.export("jsonl", tmp_path / "a.jsonl")
    with Store.open(tmp_path / "b") as other:
        other.files.import_annotations(tmp_path / "a.jsonl")
        once = other.files.export("jsonl")
        again = other.files.import_annotations(tmp_path / "a.jsonl")
        assert sum(again.added.values()) == 0 and again.unchanged == 9
        assert other.files.export("jsonl") == once


def test_import_reports_conflicts_and_keeps_the_newer(tmp_path):
    with annotated_store(tmp_path / "a") as store, Store.open(tmp_path / "b") as copy:
        store.files.export("jsonl", tmp_path / "before.jsonl")
        copy.files.import_annotations(tmp_path / "before.jsonl")
        store.decisions.decide(pid(2), "include", reason="changed my mind")
        store.notes.edit(store.notes.of(pid(1))[0].id, "Rewritten after the export")
        # The older state comes back in: reported, and the newer local one is kept.
        report = store.files.import_annotations(tmp_path / "before.jsonl")
        assert len(report.conflicts) == 2
        assert "kept the local text (the newer)" in report.conflicts[0]
        assert store.decisions.of(pid(2)).decision == "include"
        assert store.notes.of(pid(1))[0].text == "Rewritten after the export"
        store.files.export("jsonl", tmp_path / "after.jsonl")
        # The copy that still has the old state imports the newer export: the newer wins.
        report = copy.files.import_annotations(tmp_path / "after.jsonl")
        assert len(report.conflicts) == 2
        assert "decision of ana on 000000000002: exclude here, include in the file; " \
               "kept the newer (include)" in report.conflicts
        assert copy.decisions.of(pid(2), reviewer="ana").reason == "changed my mind"
        assert copy.files.export("jsonl") == store.files.export("jsonl")


def test_import_into_a_built_review_carries_topic_names_by_membership(tmp_path):
    with annotated_store(tmp_path / "a") as store:
        store.files.export("jsonl", tmp_path / "a.jsonl")
    with Store.open(tmp_path / "b") as other:
        other.sync_papers([paper(i) for i in range(12)])
        other.topics.record({pid(i): {0: 5, 1: 6, 2: 5}[i % 3] if i < 10 else -1
                             for i in range(12)}, {}, {})
        report = other.files.import_annotations(tmp_path / "a.jsonl")
        assert report.added["topic names"] == 1
        assert other.topics.current()[1][6] == "Reward models"
        assert other.undo()[0].action == "import"  # an import is one undoable action
        assert other.topics.current()[1][6] == "" and other.tags.of(pid(1)) == []


def test_a_broken_import_file_names_the_line_and_changes_nothing(tmp_path):
    with annotated_store(tmp_path) as store:
        text = store.files.export("jsonl").splitlines()
        text[5] = text[5][:-3]
        (tmp_path / "bad.jsonl").write_text("\n".join(text))
        before = store.files.export("jsonl")
        with pytest.raises(AnnotationInputError, match=r"bad.jsonl:6: not JSON"):
            store.files.import_annotations(tmp_path / "bad.jsonl")
        (tmp_path / "plain.jsonl").write_text('{"type": "paper", "id": "000000000001"}\n')
        with pytest.raises(AnnotationInputError, match="not a workbench annotations export"):
            store.files.import_annotations(tmp_path / "plain.jsonl")
        assert store.files.export("jsonl") == before

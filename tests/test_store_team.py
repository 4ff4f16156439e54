"""The store as a team uses it: stages, tags per reviewer, blind mode, final decisions, the team's
reasons and criteria, sources with their provenance, named reviewers, network file systems, and
the migration from schema version 3."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from workbench._runtime import fsutil
from workbench._runtime.fsutil import NetworkFilesystemError
from workbench.store import SCHEMA_VERSION, AnnotationInputError, Store

DATA = Path(__file__).parent / "data" / "store"
AT = "2024-03-0{}T10:00:00.000000Z"


def pid(i: int) -> str:
    return f"{i:012x}"


@pytest.fixture
def folder(tmp_path):
    with Store.open(tmp_path / "review", reviewer="setup") as store:
        store.sync_papers([{"id": pid(i), "title": f"Paper {i}"} for i in range(10)])
    return tmp_path / "review"


@pytest.fixture
def ana(folder):
    with Store.open(folder, reviewer="ana") as store:
        yield store


@pytest.fixture
def ben(folder, ana):  # opened after ana: one shared connection, two reviewers
    with Store.open(folder, reviewer="ben") as store:
        yield store


# ----------------------------------------------------------------------------- stages

def test_a_decision_belongs_to_a_stage_and_full_text_asks_for_a_reason(ana):
    ana.decisions.decide(pid(1), "include")
    ana.decisions.decide(pid(1), "exclude", reason="wrong population", stage="full_text")
    assert ana.decisions.of(pid(1)).decision == "include"
    full = ana.decisions.of(pid(1), stage="full_text")
    assert (full.decision, full.reason, full.stage) == ("exclude", "wrong population", "full_text")
    assert [d.stage for d in ana.decisions.votes(pid(1), stage=None)] == ["title_abstract", "full_text"]
    assert [d.paper_id for d in ana.decisions.every()] == [pid(1)]  # title/abstract by default
    with pytest.raises(AnnotationInputError, match="full-text exclusion needs a reason"):
        ana.decisions.decide(pid(2), "exclude", stage="full_text")
    with pytest.raises(AnnotationInputError, match="a maybe is for title and abstract"):
        ana.decisions.decide(pid(2), "maybe", stage="full_text")
    with pytest.raises(AnnotationInputError, match="stage 'abstract': expected one of title_abstract, full_text"):
        ana.decisions.decide(pid(2), "include", stage="abstract")
    ana.decisions.decide(pid(2), "not retrieved", stage="full_text")
    assert (ana.decisions.of(pid(2), stage="full_text").decision, ana.decisions.of(pid(2), stage="full_text").reason) == (
        "exclude", "not retrieved")
    ana.undo()
    assert ana.decisions.of(pid(2), stage="full_text") is None
    assert ana.decisions.of(pid(1), stage="full_text").decision == "exclude"


# ----------------------------------------------------------------------------- tags per reviewer

def test_two_reviewers_tags_are_their_own_rows_shown_once(ana, ben):
    assert ana.tags.add(pid(1), "method") == 1
    assert ben.tags.add(pid(1), "method", "later") == 2  # ben's own "method" is new for ben
    assert ana.tags.of(pid(1)) == ["later", "method"]
    assert ana.tags.by_reviewer(pid(1)) == {"ana": ["method"], "ben": ["later", "method"]}
    assert ana.tags.papers_with("method") == [pid(1)]
    assert {t.name: t.count for t in ana.tags.vocabulary()} == {"later": 1, "method": 1}  # papers, not rows
    assert ana.tags.rename("method", "methods") == 1
    assert ana.tags.by_reviewer(pid(1)) == {"ana": ["methods"], "ben": ["later", "methods"]}
    assert ben.tags.remove(pid(1), "methods")  # not blind: the tag leaves the paper, everyone's
    assert ana.tags.of(pid(1)) == ["later"]
    ben.undo()
    assert ana.tags.by_reviewer(pid(1)) == {"ana": ["methods"], "ben": ["later", "methods"]}


# ----------------------------------------------------------------------------- blind mode

def test_blind_mode_shows_another_reviewers_work_only_once_both_screened(ana, ben):
    ana.team.set_blind(True)
    assert ana.team.blind and ben.team.blind and ana.team.reviewers_per_paper() == 2
    ben.tags.add(pid(1), "bens-tag")
    ben.notes.add(pid(1), "ben thinks it fits")
    ben.decisions.decide(pid(1), "include")
    ana.tags.add(pid(1), "anas-tag")
    assert ana.tags.of(pid(1)) == ["anas-tag"] and ana.notes.of(pid(1)) == []
    assert ana.decisions.votes(pid(1)) == [] and ana.decisions.of(pid(1), "ben") is None
    assert ana.tags.papers_with("bens-tag") == [] and ben.tags.papers_with("bens-tag") == [pid(1)]
    assert ana.summary()[pid(1)] == {"tags": ["anas-tag"], "decision": None, "notes": 0}
    assert [r.reviewer for r in ana.decisions.records()] == []  # not ben's decision
    assert ben.tags.remove(pid(1), "anas-tag") is False  # blind: ben removes only his own
    ana.decisions.decide(pid(1), "exclude")  # now both screened it: each sees the other's work
    assert ana.tags.of(pid(1)) == ["anas-tag", "bens-tag"] and [n.reviewer for n in ana.notes.of(pid(1))] == ["ben"]
    assert {d.reviewer: d.decision for d in ana.decisions.votes(pid(1))} == {"ana": "exclude", "ben": "include"}
    assert ana.summary()[pid(1)] == {"tags": ["anas-tag", "bens-tag"], "decision": "exclude", "notes": 1}
    ben.tags.add(pid(2), "x")
    ana.team.set_final(pid(2), "exclude", reason="off topic")  # a final decision ends blindness
    assert ana.tags.of(pid(2)) == ["x"] and ana.summary()[pid(2)]["decision"] == "exclude"
    ana.team.set_blind(False)
    assert ana.decisions.of(pid(1), "ben").decision == "include"


def test_team_use_needs_the_reviewers_own_name(folder, ana, monkeypatch):
    monkeypatch.delenv("WORKBENCH_REVIEWER", raising=False)
    with Store.open(folder) as anonymous:
        anonymous.tags.add(pid(1), "fine")  # single screening: the OS user is the reviewer
        assert not anonymous.reviewer_given
        ana.settings.set("reviewers_per_paper", "2")
        with pytest.raises(AnnotationInputError, match="needs the reviewer's own name.*WORKBENCH_REVIEWER"):
            anonymous.decisions.decide(pid(1), "include")
        with pytest.raises(AnnotationInputError, match="needs the reviewer's own name"):
            anonymous.tags.add(pid(1), "again")
        assert anonymous.decisions.of(pid(1)) is None
    monkeypatch.setenv("WORKBENCH_REVIEWER", "cleo")
    with Store.open(folder) as cleo:
        assert cleo.reviewer_given and cleo.decisions.decide(pid(1), "include") == 1


# ----------------------------------------------------------------------------- final decisions, reasons, criteria

def test_a_final_decision_records_who_why_and_when_and_one_undo_takes_it_back(ana, ben):
    ana.decisions.decide(pid(3), "include")
    ben.decisions.decide(pid(3), "exclude", reason="wrong design")
    final = ben.team.set_final(pid(3), "include", reason="meets criterion 2")
    assert (final.decision, final.resolved_by, final.reason, final.stage) == ("include", "ben", "meets criterion 2",
                                                                               "title_abstract")
    assert ana.team.final(pid(3)) == final and ana.team.finals() == [final] and ana.team.finals("full_text") == []
    assert "resolve" in ana.history(limit=1)[0].summary
    ben.undo()
    assert ana.team.final(pid(3)) is None and ana.decisions.of(pid(3)).decision == "include"
    ben.team.set_final(pid(3), "exclude", reason="wrong design")
    assert ben.team.clear_final(pid(3)) and ben.team.final(pid(3)) is None


def test_the_teams_exclusion_reasons_keep_one_spelling(ana):
    ana.team.add_exclusion_reason("Wrong population", "adults only")
    ana.team.add_exclusion_reason("Wrong study design")
    assert [(r.name, r.position) for r in ana.team.exclusion_reasons()] == [("Wrong population", 1),
                                                                       ("Wrong study design", 2)]
    ana.decisions.decide(pid(4), "exclude", reason="wrong  POPULATION")
    assert ana.decisions.of(pid(4)).reason == "Wrong population"
    ana.decisions.decide(pid(5), "exclude", reason="a reason of my own")  # free text still allowed
    assert ana.decisions.of(pid(5)).reason == "a reason of my own"
    assert ana.team.remove_exclusion_reason("wrong study design") and not ana.team.remove_exclusion_reason("nope")
    assert [r.name for r in ana.team.exclusion_reasons()] == ["Wrong population"]
    ana.team.set_criteria("Adults with insomnia.\n\n  RCTs   only. ")
    assert ana.team.criteria() == "Adults with insomnia.\n\nRCTs only."
    with pytest.raises(AnnotationInputError, match="blind 'maybe': expected 'on' or 'off'"):
        ana.settings.set("blind", "maybe")


# ----------------------------------------------------------------------------- sources

def test_sources_keep_their_provenance_across_builds(ana):
    ana.sources.record([
        {"path": "refs/pubmed.ris", "format": "ris", "identified": 40, "skipped": 1, "merged": 3,
         "name": "PubMed", "query": "sleep AND adolescents", "searched_on": "2024-05-01"},
        {"path": "refs/trials.csv", "format": "csv", "identified": 5, "kind": "register",
         "name": "ClinicalTrials.gov"},
        {"path": "refs/extra.bib", "format": "bibtex", "identified": 2}])
    extra, pubmed, trials = ana.sources.recorded()  # by path
    assert (pubmed.name, pubmed.query, pubmed.searched_on, pubmed.identified) == (
        "PubMed", "sleep AND adolescents", "2024-05-01", 40)
    assert (trials.kind, extra.name, extra.provenance_given) == ("register", "extra", False)
    ana.sources.set_provenance("extra.bib", name="Scopus", query="TITLE-ABS(sleep)", searched_on="2024-05-02")
    ana.sources.record([{"path": "refs/pubmed.ris", "format": "ris", "identified": 41},
                        {"path": "refs/extra.bib", "format": "bibtex", "identified": 2}])  # a rebuild
    assert [(s.name, s.query, s.identified) for s in ana.sources.recorded()] == [
        ("Scopus", "TITLE-ABS(sleep)", 2), ("PubMed", "sleep AND adolescents", 41)]
    assert [s.in_build for s in ana.sources.recorded(in_build=False)] == [True, True, False]
    with pytest.raises(AnnotationInputError, match="date searched '1 May' is not a date; expected YYYY-MM-DD"):
        ana.sources.set_provenance("extra.bib", searched_on="1 May")
    with pytest.raises(AnnotationInputError, match="'scopus.ris' is not a source of this review"):
        ana.sources.set_provenance("scopus.ris", name="Scopus")


# ----------------------------------------------------------------------------- network file systems

def test_a_store_on_a_network_file_system_is_refused_unless_overridden(tmp_path, monkeypatch):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(f"27 1 254:0 / / rw - ext4 /dev/vda rw\n"
                         f"70 27 0:70 / {tmp_path.resolve()} rw - nfs4 files:/export/ana rw\n")
    monkeypatch.setattr(fsutil, "MOUNTINFO", str(mountinfo))
    monkeypatch.delenv("WORKBENCH_ALLOW_NETWORK_FS", raising=False)
    with pytest.raises(NetworkFilesystemError) as info:
        Store.open(tmp_path / "review", reviewer="ana")
    message = str(info.value)
    assert "nfs4 mounted at" in message and "files:/export/ana" in message
    assert "export and import" in message and "WORKBENCH_ALLOW_NETWORK_FS=1" in message
    assert not (tmp_path / "review" / "annotations.sqlite").exists()
    with Store.open(tmp_path / "review", reviewer="ana", allow_network_filesystem=True) as store:
        store.tags.add(store.sync_papers([{"id": pid(1), "title": "x"}]).added[0], "kept")
    monkeypatch.setenv("WORKBENCH_ALLOW_NETWORK_FS", "1")
    with Store.open(tmp_path / "review", reviewer="ana") as store:
        assert store.tags.of(pid(1)) == ["kept"]


# ----------------------------------------------------------------------------- migration from version 3

def make_v3_store(path: Path) -> None:
    """A version-3 store with a tag, two reviewers' decisions with a screening record, and the
    history of both, as version 3 wrote it."""
    conn = sqlite3.connect(path)
    conn.executescript((DATA / "schema_v3.sql").read_text())
    conn.executemany("INSERT INTO papers (id, title) VALUES (?, ?)", [(pid(i), f"Old {i}") for i in range(3)])
    conn.execute("INSERT INTO tag_vocab VALUES ('relevant', '', NULL, 'ana', ?)", (AT.format(1),))
    conn.execute("INSERT INTO paper_tags VALUES (?, 'relevant', 'ana', ?)", (pid(0), AT.format(1)))
    conn.execute("INSERT INTO decisions VALUES (?, 'ana', 'include', NULL, ?)", (pid(1), AT.format(2)))
    conn.execute("INSERT INTO decisions VALUES (?, 'ben', 'exclude', 'off topic', ?)", (pid(1), AT.format(3)))
    conn.execute("INSERT INTO decision_context VALUES (?, 'ana', 3, 0.5, 'svm', 'svm/1', 0, 0)", (pid(1),))
    changes = [
        (1, AT.format(1), "ana", "tag", [("tag_vocab", {"name": "relevant"}, None,
                                          {"colour": None, "created_at": AT.format(1), "created_by": "ana",
                                           "description": ""}),
                                         ("paper_tags", {"paper_id": pid(0), "tag": "relevant"}, None,
                                          {"created_at": AT.format(1), "reviewer": "ana"})]),
        (2, AT.format(2), "ana", "decide", [
            ("decisions", {"paper_id": pid(1), "reviewer": "ana"}, None,
             {"decided_at": AT.format(2), "decision": "include", "reason": None}),
            ("decision_context", {"paper_id": pid(1), "reviewer": "ana"}, None,
             {"bulk": 0, "model": "svm", "model_version": "svm/1", "rank": 3, "sampled": 0, "score": 0.5})]),
    ]
    dump = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode
    for hid, at, who, action, rows in changes:
        conn.execute("INSERT INTO history (id, at, reviewer, action, summary) VALUES (?, ?, ?, ?, ?)",
                     (hid, at, who, action, action))
        conn.executemany("INSERT INTO history_changes VALUES (?, ?, ?, ?, ?, ?)",
                         [(hid, seq, t, dump(k), None if b is None else dump(b), None if a is None else dump(a))
                          for seq, (t, k, b, a) in enumerate(rows)])
    conn.commit()
    conn.close()


def test_a_v3_store_migrates_to_stages_and_tags_per_reviewer_and_its_history_still_undoes(tmp_path):
    make_v3_store(tmp_path / "annotations.sqlite")
    with Store.open(tmp_path, reviewer="ana") as store:
        assert [s.reason for s in store.files.snapshots()] == ["before-migration-v3"]
        assert {(d.reviewer, d.decision, d.stage) for d in store.decisions.every()} == {
            ("ana", "include", "title_abstract"), ("ben", "exclude", "title_abstract")}
        assert store.tags.by_reviewer(pid(0)) == {"ana": ["relevant"]}
        record = store.decisions.records("ana")[0]
        assert (record.rank, record.model, record.recorded) == (3, "svm", True)
        assert [e.action for e in store.history(limit=None)] == ["decide", "tag"]  # version 3's, rekeyed
        store.undo(2)  # both old changes come back out: the decision with its record, the tag
        assert store.decisions.of(pid(1)) is None and store.tags.of(pid(0)) == []
        assert store.decisions.of(pid(1), "ben").reason == "off topic"
        assert store.decisions.records("ana") == []
        store.decisions.decide(pid(1), "include")  # the migrated store takes new writes
        store.team.set_final(pid(1), "include")
        assert store.files.integrity_check() == "ok"
    conn = sqlite3.connect(tmp_path / "annotations.sqlite")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    conn.close()

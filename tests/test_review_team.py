"""Reviewing as a team through the Review API, with two and three reviewers: blind mode, the ranked
queue in blind mode, conflicts and final decisions, agreement against scikit-learn, every PRISMA
box against the store after a scripted screening at both stages, and export/import between two
review folders."""

from __future__ import annotations

import csv
import shutil
import sqlite3
from collections import Counter

import numpy as np
import pytest
from conftest import seed_abstracts, write_seed_file

import workbench
from workbench.errors import InputError
from workbench.store import AnnotationInputError, Shown, Store

PROVENANCE = {"a.txt": {"database": "PubMed", "query": "rlhf[tiab]", "searched_on": "2024-05-01"},
              "b.csv": {"register": "ClinicalTrials.gov", "searched_on": "2024-05-02"}}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """46 papers from two sources: 30 in a.txt; 27 records in b.csv, of which 10 are duplicates of
    a.txt's and one has no text."""
    folder = tmp_path_factory.mktemp("team")
    abstracts = seed_abstracts()
    write_seed_file(folder / "a.txt", abstracts[:30])
    with open(folder / "b.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["title", "abstract"])
        writer.writerows([["", text] for text in abstracts[20:45]] + [["", ""], ["", "A short one."]])
    workbench.build([folder / "a.txt", folder / "b.csv"], review=folder / "review", embedder="fake", seed=3,
                    provenance=PROVENANCE)
    return folder / "review"


@pytest.fixture
def review(built, tmp_path):
    shutil.copytree(built, tmp_path / "review")
    review = workbench.open_review(tmp_path / "review")
    with review.store("lead") as store:
        store.team.set_blind(True)  # double screening, blind
    return review


# ----------------------------------------------------------------------------- blind mode

def test_blind_mode_hides_what_it_should_with_three_reviewers(review):
    p = review.ids[0]
    with review.store("ben") as ben:
        ben.tags.add(p, "bens")
        ben.notes.add(p, "ben's note")
        ben.decisions.decide(p, "include", reason="fits")
    with review.store("carol") as carol:
        carol.tags.add(p, "carols")  # tagged, not screened
    view = review.team.visible(p, "ana")
    assert (view.decisions, view.tags, view.notes, view.withheld) == ({}, {}, {}, 2)
    with review.store("ana") as ana:
        assert ana.decisions.votes(p) == [] and ana.tags.of(p) == [] and ana.notes.of(p) == []
        assert p not in ana.summary() and [r.paper_id for r in ana.decisions.records()] == []
        ana.decisions.decide(p, "exclude", reason="wrong field")
    view = review.team.visible(p, "ana")  # both screened it: ben's work shows; carol's does not
    assert sorted(view.decisions) == ["ana", "ben"] and view.decisions["ben"].reason == "fits"
    assert view.tags == {"ben": ["bens"]} and [n.text for n in view.notes["ben"]] == ["ben's note"]
    assert view.withheld == 1
    assert review.team.visible(p, "carol").tags == {"carol": ["carols"]}  # carol has not screened: sees only hers
    assert sorted(review.team.visible(p, "carol", resolving=True).decisions) == ["ana", "ben"]
    review.team.resolve(p, "include", "meets the criteria", reviewer="carol")
    assert review.team.visible(p, "ana").tags == {"ben": ["bens"], "carol": ["carols"]}  # blindness has ended


def test_blind_queue_learns_only_from_the_reviewers_own_decisions_and_the_final_ones(review, tmp_path):
    ids = review.ids
    with review.store("ana") as ana:
        ana.decisions.decide(ids[0], "include")
        ana.decisions.decide(ids[1], "exclude")
    alone = review.screening.rank(len(ids), reviewer="ana")
    with review.store("ben") as ben:  # ben screens a dozen papers ana has not
        ben.decisions.decide(ids[2:8], "include")
        ben.decisions.decide(ids[8:14], "exclude")
    blind = review.screening.rank(len(ids), reviewer="ana")
    assert blind.ids == alone.ids and [p.score for p in blind] == [p.score for p in alone]
    assert blind.counts["decided"] == 2 and set(ids[2:14]) <= set(blind.ids), "ben's papers stay in ana's queue"
    review.team.resolve(ids[8], "include", "on reflection", reviewer="lead")  # a final decision trains everyone
    resolved = review.screening.rank(len(ids), reviewer="ana")
    assert resolved.counts["decided"] == 3 and ids[8] not in resolved.ids
    assert [p.score for p in resolved] != [p.score for p in blind]
    with review.store("lead") as lead:
        lead.team.set_blind(False)
    open_queue = review.screening.rank(len(ids), reviewer="ana")  # not blind: everyone's decisions train it
    assert open_queue.counts["decided"] == 14 and not set(ids[2:14]) & set(open_queue.ids)


# ----------------------------------------------------------------------------- conflicts and agreement

def test_conflicts_show_each_reviewers_decision_and_a_resolution_settles_them(review):
    ids = review.ids
    with review.store("ana") as ana, review.store("ben") as ben:
        ana.decisions.decide(ids[:4], "include")
        ben.decisions.decide(ids[:2], "include")
        ben.decisions.decide(ids[2], "maybe")  # include vs maybe: a conflict too
        ben.decisions.decide(ids[3], "exclude", reason="too old")
    queue = {p.paper_id: p for p in review.team.conflicts()}
    assert set(queue) == {ids[2], ids[3]}
    assert {v.reviewer: (v.decision, v.reason) for v in queue[ids[3]].votes} == {"ana": ("include", None),
                                                                               "ben": ("exclude", "too old")}
    final = review.team.resolve(ids[3], "exclude", "too old", reviewer="carol")
    assert (final.resolved_by, final.decision, final.reason) == ("carol", "exclude", "too old")
    assert [p.paper_id for p in review.team.conflicts()] == [ids[2]]
    assert review.team.status().counts() == {"resolved": 1, "conflict": 1, "agreed": 2, "awaiting": 0}
    with review.store("carol") as carol:
        carol.undo()
    assert {p.paper_id for p in review.team.conflicts()} == {ids[2], ids[3]}
    with pytest.raises(InputError, match="not included at title/abstract"):
        review.screening.decide(ids[3], "include", stage="full_text", reviewer="ana")
    with pytest.raises(InputError, match="no paper with id 'ffffffffffff'"):
        review.team.resolve("ffffffffffff", "include", reviewer="carol")


@pytest.mark.parametrize("n_reviewers", [2, 3])
def test_agreement_equals_scikit_learns_cohen_kappa_for_every_pair(review, n_reviewers):
    from sklearn.metrics import cohen_kappa_score

    ids = review.ids
    rng = np.random.default_rng(n_reviewers)
    names = ["ana", "ben", "cleo"][:n_reviewers]
    truth = rng.choice(["include", "exclude", "maybe"], size=len(ids), p=[0.3, 0.6, 0.1])
    given = {}
    for k, name in enumerate(names):
        screened = ids[k * 4:]  # partial overlap
        flips = rng.random(len(screened)) < 0.25
        given[name] = {pid: (rng.choice(["include", "exclude", "maybe"]) if flip else truth[ids.index(pid)])
                       for pid, flip in zip(screened, flips)}
        with review.store(name) as store:
            for decision in ("include", "exclude", "maybe"):
                chosen = [pid for pid, d in given[name].items() if d == decision]
                if chosen:
                    store.decisions.decide(chosen, decision)
    report = review.team.agreement()
    assert len(report.pairs) == n_reviewers * (n_reviewers - 1) // 2
    for pair in report.pairs:
        both = [pid for pid in ids if pid in given[pair.first] and pid in given[pair.second]]
        a, b = [given[pair.first][p] for p in both], [given[pair.second][p] for p in both]
        assert pair.overlap == len(both)
        assert pair.kappa.value == pytest.approx(cohen_kappa_score(a, b))
        assert pair.raw.value == pytest.approx(np.mean(np.array(a) == np.array(b)))
        assert f"Cohen's kappa {cohen_kappa_score(a, b):.2f}" in str(pair)
    assert report.alpha.defined and report.lines()[-1].startswith(f"all {n_reviewers} reviewers: Krippendorff's alpha")


# ----------------------------------------------------------------------------- PRISMA against the store

def _screen_both_stages(review) -> dict:
    """A scripted two-reviewer screening at both stages (ana and ben, carol resolves); returns
    the papers of each outcome as the script made them."""
    ids = review.ids
    plan = {"ta_include": ids[0:12], "ta_exclude": ids[12:20], "ta_conflict_in": ids[20:23],
            "ta_conflict_out": ids[23:25], "ta_open_conflict": ids[25:27], "ta_one_screen": ids[27:30],
            "ta_maybe": ids[30:32]}
    with review.store("ana") as ana, review.store("ben") as ben, review.store("carol") as carol:
        for store in (ana, ben):
            store.decisions.decide(plan["ta_include"] + plan["ta_conflict_in"] + plan["ta_conflict_out"], "include")
            store.decisions.decide(plan["ta_exclude"][:5], "exclude", reason="wrong population")
            store.decisions.decide(plan["ta_maybe"], "maybe")
        ana.decisions.decide(plan["ta_exclude"][5:], "exclude", reason="wrong design")
        ben.decisions.decide(plan["ta_exclude"][5:], "exclude", reason="Wrong Design ")  # the same reason
        ben.decisions.decide(plan["ta_conflict_in"] + plan["ta_conflict_out"] + plan["ta_open_conflict"], "exclude",
                   reason="off topic")
        ana.decisions.decide(plan["ta_open_conflict"] + plan["ta_one_screen"], "include", shown=Shown(rank=1, model="svm"))
        for rank, pid in enumerate(plan["ta_exclude"][:2], start=1):  # read again, in the ranked queue
            ana.decisions.decide(pid, "exclude", reason="wrong population", shown=Shown(rank=rank, score=0.1, model="svm"))
        for pid in plan["ta_conflict_in"]:
            carol.team.set_final(pid, "include", reason="meets criterion 2")
        for pid in plan["ta_conflict_out"]:
            carol.team.set_final(pid, "exclude", reason="off topic")
        sought = plan["ta_include"] + plan["ta_conflict_in"]
        plan.update(ft_include=sought[:6], ft_exclude=sought[6:9], ft_lost=sought[9:11], ft_conflict=sought[11:13])
    for who in ("ana", "ben"):
        review.screening.decide(plan["ft_include"], "include", stage="full_text", reviewer=who)
        review.screening.decide(plan["ft_exclude"], "exclude", reason="no outcome data", stage="full_text", reviewer=who)
        review.screening.decide(plan["ft_lost"], "not retrieved", stage="full_text", reviewer=who)
    review.screening.decide(plan["ft_conflict"], "exclude", reason="wrong outcome", stage="full_text", reviewer="ana")
    review.screening.decide(plan["ft_conflict"], "exclude", reason="no full text in English", stage="full_text",
                  reviewer="ben")
    return plan


def _settled_from_sql(path, stage: str) -> dict[str, tuple[str, str | None]]:
    """Each settled paper's (decision, reason) at ``stage``, recounted from the store's tables."""
    conn = sqlite3.connect(path / "annotations.sqlite")
    votes: dict[str, list] = {}
    for pid, decision, reason in conn.execute("SELECT paper_id, decision, reason FROM decisions WHERE stage = ?",
                                              (stage,)):
        votes.setdefault(pid, []).append((decision, " ".join((reason or "").split()).lower()))
    out = {pid: (d, r) for pid, d, r in conn.execute(
        "SELECT paper_id, decision, reason FROM final_decisions WHERE stage = ?", (stage,))}
    conn.close()
    for pid, vs in votes.items():
        same = len(set(vs)) == 1 if stage == "full_text" else len({d for d, _ in vs}) == 1
        if pid not in out and len(vs) >= 2 and same and vs[0][0] != "maybe":
            out[pid] = (vs[0][0], vs[0][1] if len({r for _, r in vs}) == 1 else "reviewers gave different reasons")
    return out


def test_every_prisma_box_adds_up_against_the_store(review):
    plan = _screen_both_stages(review)
    counts = review.team.prisma()
    assert (review.path / "report" / "prisma.svg").stat().st_size > 0
    assert (review.path / "report" / "prisma.png").read_bytes()[:4] == b"\x89PNG"
    svg = (review.path / "report" / "prisma.svg").read_text()
    assert f"Records screened (n = {counts.records_screened})" in svg
    with review.store("lead") as store:
        sources = {s.name: s for s in store.sources.recorded()}
    conn = sqlite3.connect(review.path / "annotations.sqlite")
    in_corpus = conn.execute("SELECT count(*) FROM papers WHERE in_corpus = 1").fetchone()[0]
    ranked = {r[0] for r in conn.execute("SELECT paper_id FROM decision_context WHERE rank IS NOT NULL "
                                         "AND stage = 'title_abstract'")}
    conn.close()
    assert counts.databases == {"PubMed": 30} and counts.registers == {"ClinicalTrials.gov": 27}
    assert (counts.duplicates_removed, counts.removed_other) == (10, 1)
    assert sources["PubMed"].query == "rlhf[tiab]" and sources["ClinicalTrials.gov"].kind == "register"
    assert counts.identified - counts.removed_before_screening == in_corpus == len(review)
    ta = _settled_from_sql(review.path, "title_abstract")
    excluded = {pid: r for pid, (d, r) in ta.items() if d == "exclude"}
    sought = {pid for pid, (d, _) in ta.items() if d != "exclude"}
    assert counts.records_screened == len(ta) == len(plan["ta_include"] + plan["ta_exclude"] + plan["ta_conflict_in"]
                                                     + plan["ta_conflict_out"])
    assert counts.records_awaiting == in_corpus - len(ta)
    assert counts.records_excluded == len(excluded)
    assert {k.lower(): v for k, v in counts.excluded_reasons.items()} == Counter(excluded.values())
    assert counts.excluded_ranked == len(set(excluded) & ranked) == 2
    assert counts.reports_sought == len(sought) == len(plan["ta_include"] + plan["ta_conflict_in"])
    ft = {pid: v for pid, v in _settled_from_sql(review.path, "full_text").items() if pid in sought}
    lost = {pid for pid, (d, r) in ft.items() if d == "exclude" and r == "not retrieved"}
    assert counts.reports_not_retrieved == len(lost) == len(plan["ft_lost"])
    assessed = {pid: v for pid, v in ft.items() if pid not in lost}
    assert counts.reports_assessed == len(assessed) == len(plan["ft_include"] + plan["ft_exclude"])
    assert counts.reports_awaiting == len(sought) - len(ft) == len(sought) - len(
        plan["ft_include"] + plan["ft_exclude"] + plan["ft_lost"])
    assert counts.reports_excluded == Counter(r for d, r in assessed.values() if d == "exclude")
    assert counts.studies_included == sum(d == "include" for d, _ in assessed.values()) == len(plan["ft_include"])
    assert {p.paper_id for p in review.team.conflicts("full_text")} == set(plan["ft_conflict"])
    md = workbench.write_report(review, image=False, reviewer="ana")["markdown"].read_text(encoding="utf-8")
    assert "## PRISMA 2020 flow" in md
    assert f"| Screening | Records screened | {counts.records_screened} |" in md
    assert f"| Included | Studies included in review | {counts.studies_included} |" in md


# ----------------------------------------------------------------------------- working apart

def test_export_and_import_between_two_review_folders_keeps_both_reviewers(review, tmp_path):
    ids = review.ids
    shutil.copytree(review.path, tmp_path / "bens-copy")
    bens = workbench.open_review(tmp_path / "bens-copy")
    review.screening.decide(ids[:6], "include", reviewer="ana")
    review.screening.decide(ids[6:8], "exclude", reason="too old", reviewer="ana")
    bens.screening.decide(ids[:4], "include", reviewer="ben")
    bens.screening.decide(ids[4:6], "exclude", reason="off topic", reviewer="ben")
    ranked = bens.screening.rank(3, reviewer="ben")
    bens.screening.decide(ranked.ids[0], "exclude", reason="off topic", ranking=ranked, reviewer="ben")
    with bens.store("ben") as ben:
        ben.tags.add(ids[0], "key paper")
        ben.notes.add(ids[1], "check the appendix")
        ben.files.export("jsonl", tmp_path / "ben.jsonl")
    report = review.team.import_annotations(tmp_path / "ben.jsonl", reviewer="ana")
    assert report.added["decisions"] == 7 and report.added["tags"] == 1 and report.added["notes"] == 1
    expected_conflicts = {ids[4], ids[5]}  # ben's ranked paper is not among ana's includes: he decided those
    assert {line.split()[0] for line in report.disagreements} == expected_conflicts
    assert "ana: include; ben: exclude (off topic)" in report.disagreements[0]
    assert "papers on which the reviewers disagree" in str(report)
    with review.store("ana") as store:
        votes = {(d.paper_id, d.reviewer): d.decision for d in store.decisions.every()}
        assert votes[(ids[0], "ana")] == votes[(ids[0], "ben")] == "include"
        assert votes[(ids[4], "ana")] == "include" and votes[(ids[4], "ben")] == "exclude"
        assert store.tags.by_reviewer(ids[0]) == {"ben": ["key paper"]}
        rank_kept = store.decisions.records("ben", all_reviewers=True)  # blind: ana has not screened it
        assert [r.rank for r in rank_kept if r.paper_id == ranked.ids[0]] == [ranked.papers[0].rank]
    assert {p.paper_id for p in review.team.conflicts()} == expected_conflicts
    again = review.team.import_annotations(tmp_path / "ben.jsonl", reviewer="ana")
    assert not any(again.added.values()) and again.disagreements == () and again.unchanged > 0
    with review.store("ana") as store:
        store.files.export("jsonl", tmp_path / "ana.jsonl")
    back = bens.team.import_annotations(tmp_path / "ana.jsonl", reviewer="ben")
    assert back.added["decisions"] == 8 and {line.split()[0] for line in back.disagreements} == expected_conflicts
    assert review.team.agreement().lines() == bens.team.agreement().lines()


def test_full_text_asks_for_a_reason_and_the_stage_is_checked(review):
    pid = review.ids[0]
    for who in ("ana", "ben"):
        review.screening.decide(pid, "include", reviewer=who)
    with pytest.raises(AnnotationInputError, match="full-text exclusion needs a reason"):
        review.screening.decide(pid, "exclude", stage="full_text", reviewer="ana")
    with pytest.raises(InputError, match="stage 'fulltext'"):
        review.screening.decide(pid, "include", stage="fulltext", reviewer="ana")
    assert review.screening.decide(pid, "not-retrieved", stage="full_text", reviewer="ana") == 1
    with Store.open(review.path, reviewer="ana") as store:
        assert store.decisions.votes(pid, stage="full_text")[0].reason == "not retrieved"


def test_provenance_is_checked_before_the_build_and_must_name_a_source(tmp_path):
    write_seed_file(tmp_path / "a.txt", seed_abstracts()[:12])
    with pytest.raises(InputError, match="provenance of 'a.txt': date searched 'May 2024' is not a date; expected YYYY-MM-DD"):
        workbench.build([tmp_path / "a.txt"], review=tmp_path / "r", embedder="fake",
                        provenance={"a.txt": {"database": "PubMed", "searched_on": "May 2024"}})
    with pytest.raises(InputError, match="provenance given for 'pubmed.ris', which is not a source read"):
        workbench.build([tmp_path / "a.txt"], review=tmp_path / "r", embedder="fake",
                        provenance={"pubmed.ris": {"database": "PubMed"}})
    with pytest.raises(InputError, match="both database and register"):
        workbench.build([tmp_path / "a.txt"], review=tmp_path / "r", embedder="fake",
                        provenance={"a.txt": {"database": "PubMed", "register": "CT.gov"}})
    assert not (tmp_path / "r" / "annotations.sqlite").exists()

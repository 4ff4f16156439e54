"""The team commands in-process through workbench.cli.main: a build with search provenance, then
sources, blind, reviewers-per-paper, criteria, reasons, decide at both stages, conflicts and their
resolution, agreement, prisma, import-annotations, and a review on a network file system."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from conftest import seed_abstracts, write_seed_file

from workbench._runtime import fsutil
from workbench.cli import main
from workbench.store import Store


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli-team")
    abstracts = seed_abstracts()
    write_seed_file(folder / "a.txt", abstracts[:24])
    with open(folder / "b.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["title", "abstract"], *[["", t] for t in abstracts[20:30]]])
    code = main(["build", str(folder / "a.txt"), str(folder / "b.csv"), "--review", str(folder / "review"),
                 "--embedder", "fake", "-q", "--database", "a.txt=PubMed", "--query", "a.txt=TI=(rlhf) AND y",
                 "--register", "b.csv=ClinicalTrials.gov", "--query", "b.csv=rlhf", "--searched", "2024-05-01"])
    assert code == 0
    return folder / "review"


@pytest.fixture
def review(built, tmp_path):
    shutil.copytree(built, tmp_path / "review")
    return str(tmp_path / "review")


def paper_ids(review: str) -> list[str]:
    with Store.open(review, reviewer="x") as store:
        return sorted(json.loads(line)["id"] for line in store.files.export("jsonl").splitlines()
                      if '"type": "paper"' in line)


def test_build_records_the_provenance_given_per_source(review, capsys):
    assert main(["sources", "--review", review]) == 0
    out = capsys.readouterr().out
    assert "a.txt: database 'PubMed', query 'TI=(rlhf) AND y', searched 2024-05-01; 24 records identified" in out
    assert "b.csv: register 'ClinicalTrials.gov', query 'rlhf', searched 2024-05-01; 10 records identified, " \
           "4 merged as duplicates" in out
    assert main(["sources", "--review", review, "--reviewer", "ana", "--set", "b.csv", "--searched", "2024-05-03"]) == 0
    assert "b.csv: register 'ClinicalTrials.gov', query 'rlhf', searched 2024-05-03" in capsys.readouterr().out
    assert main(["sources", "--review", review, "--query", "x"]) == 1
    assert "need --set FILE" in capsys.readouterr().err


def test_settings_of_the_team(review, capsys):
    r = ["--review", review, "--reviewer", "lead"]
    assert main(["blind", *r]) == 0 and "blind mode: off (1 reviewers per paper)" in capsys.readouterr().out
    assert main(["blind", "on", *r]) == 0 and "blind mode: on (2 reviewers per paper)" in capsys.readouterr().out
    assert main(["reviewers-per-paper", "3", *r]) == 0 and "reviewers per paper: 3" in capsys.readouterr().out
    assert main(["criteria", "Adults;", "RCTs", "only", *r]) == 0
    assert capsys.readouterr().out == "criteria:\nAdults; RCTs only\n"
    assert main(["reasons", "--add", "Wrong population", "--description", "not adults", *r]) == 0
    assert main(["reasons", "--add", "Wrong design", *r]) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == ["1. Wrong population: not adults", "2. Wrong design"]
    assert main(["reasons", "--remove", "nope", *r]) == 1
    assert "'nope' is not one of the exclusion reasons" in capsys.readouterr().err
    assert main(["undo", *r]) == 0 and main(["reasons", *r]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1. Wrong population: not adults"


def test_two_reviewers_conflicts_resolution_agreement_and_prisma(review, capsys, tmp_path):
    from sklearn.metrics import cohen_kappa_score

    ids = paper_ids(review)
    assert main(["blind", "on", "--review", review, "--reviewer", "lead"]) == 0
    ana = {pid: "include" if k % 3 else "exclude" for k, pid in enumerate(ids[:12])}
    ben = {pid: "include" if k % 4 else "exclude" for k, pid in enumerate(ids[:12])}
    for who, given in (("ana", ana), ("ben", ben)):
        for pid, decision in given.items():
            reason = ["--reason", "wrong population"] if decision == "exclude" else []
            assert main(["decide", pid, decision, *reason, "--review", review, "--reviewer", who]) == 0
    capsys.readouterr()
    assert main(["agreement", "--review", review]) == 0
    out = capsys.readouterr().out
    kappa = cohen_kappa_score(list(ana.values()), list(ben.values()))
    assert "ana vs ben: 12 papers screened by both; raw agreement" in out
    assert f"Cohen's kappa {kappa:.2f}" in out and "Gwet's AC1" in out and "Krippendorff's alpha" in out
    differ = sorted(pid for pid in ana if ana[pid] != ben[pid])
    assert main(["conflicts", "--review", review, "--format", "csv"]) == 0
    listed = capsys.readouterr()
    assert f"{len(differ)} conflicts at title_abstract" in listed.err
    rows = list(csv.DictReader(listed.out.splitlines()))
    assert [r["id"] for r in rows] == differ and set(rows[0]) == {"id", "title", "ana", "ben"}
    assert main(["conflicts", "--resolve", differ[0][:6], "--decision", "include", "--reason", "fits",
                 "--review", review, "--reviewer", "carol"]) == 0
    assert f"{differ[0]}: final decision include (fits) by carol" in capsys.readouterr().out
    assert main(["decide", differ[1], "include", "--stage", "full_text", "--review", review, "--reviewer", "ana"]) == 1
    assert "is not included at title/abstract" in capsys.readouterr().err
    assert main(["decide", differ[0], "not-retrieved", "--stage", "full_text", "--review", review,
                 "--reviewer", "ana"]) == 0
    assert "exclude (not retrieved) at full text by ana" in capsys.readouterr().out
    assert main(["prisma", "--review", review]) == 0
    done = capsys.readouterr()
    assert "prisma.svg" in done.err and (tmp_path / "review" / "report" / "prisma.png").exists()
    assert "| Identification | Records identified from PubMed (database) | 24 |" in done.out
    assert "| Identification | Records identified from ClinicalTrials.gov (register) | 10 |" in done.out
    agreed = sum(ana[p] == ben[p] for p in ana)
    assert f"| Screening | Records screened | {agreed + 1} |" in done.out


def test_import_annotations_reports_the_papers_the_reviewers_disagree_on(review, tmp_path, capsys):
    ids = paper_ids(review)
    other = str(tmp_path / "other")
    shutil.copytree(review, other)
    assert main(["decide", ids[0], "include", "--review", review, "--reviewer", "ana"]) == 0
    assert main(["decide", ids[0], "exclude", "--reason", "off topic", "--review", other, "--reviewer", "ben"]) == 0
    assert main(["export", "--format", "jsonl", "-o", str(tmp_path / "ben.jsonl"), "--review", other]) == 0
    capsys.readouterr()
    assert main(["import-annotations", str(tmp_path / "ben.jsonl"), "--review", review, "--reviewer", "ana"]) == 0
    out = capsys.readouterr().out
    assert "imported 1 decisions" in out
    assert "1 papers on which the reviewers disagree" in out
    assert f"{ids[0]} at title/abstract: ana: include; ben: exclude (off topic)" in out


def test_a_review_on_a_network_file_system_is_refused_with_the_way_out(review, tmp_path, monkeypatch, capsys):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(f"27 1 254:0 / / rw - ext4 /dev/vda rw\n"
                         f"70 27 0:70 / {tmp_path.resolve()} rw - cifs //nas/team rw\n")
    monkeypatch.setattr(fsutil, "MOUNTINFO", str(mountinfo))
    monkeypatch.delenv("WORKBENCH_ALLOW_NETWORK_FS", raising=False)
    assert main(["blind", "--review", review]) == 1
    err = capsys.readouterr().err
    assert err.startswith("workbench: error: ") and "cifs mounted at" in err and "export and import" in err
    monkeypatch.setenv("WORKBENCH_ALLOW_NETWORK_FS", "1")
    assert main(["blind", "--review", review]) == 0

"""``workbench rank``, ``simulate`` and ``stopping``: run as a user runs them (a subprocess), and the
many error cases in-process through :func:`workbench.cli.main` (the same code, without the
seconds each new Python process takes to import the workbench)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

import workbench
from workbench.cli import main
from workbench.store import Store

from conftest import ROOT, write_seed_file


def workbench_cli(*argv) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_PROGRESS": "0", "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "workbench.cli", *map(str, argv)], capture_output=True,
                          text=True, timeout=300, env=env, check=False)


def labelled_csv(path, sep=","):
    """Six includes about malaria nets among 24 excludes about markets and crops: separable."""
    rows = [sep.join(["title", "abstract", "label_included"])]
    rows += [sep.join([f"Bed nets {i}", f"Bed nets cut malaria transmission by mosquitoes in village {i}", "1"])
             for i in range(6)]
    rows += [sep.join([f"Markets {i}", f"Stock market volatility and interest rates in quarter {i}", "0"])
             for i in range(12)]
    rows += [sep.join([f"Crops {i}", f"Crop yields under drought and irrigation in region {i}", "0"])
             for i in range(12)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- simulate

def test_simulate_prints_a_table_per_seed_with_the_stopping_rules(tmp_path):
    proc = workbench_cli("simulate", labelled_csv(tmp_path / "labelled.csv"), "--seeds", "2")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "svm-tfidf: 30 records, 6 includes, 2 seeds"
    assert [line.split()[0] for line in lines[3:6]] == ["1", "2", "mean"]
    assert any(line.startswith("hypergeometric") for line in lines)
    assert any(line.startswith("100-in-a-row") for line in lines)


def test_simulate_json_has_the_means_the_runs_and_where_each_rule_stopped(tmp_path):
    path = labelled_csv(tmp_path / "labelled.csv")
    proc = workbench_cli("simulate", path, "--label-column", "label_included", "--seeds", "3", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert (data["records"], data["includes"], data["seeds"], data["model"]) == (30, 6, [1, 2, 3], "svm-tfidf")
    assert [run["seed"] for run in data["runs"]] == [1, 2, 3]
    for key in ("wss@95", "recall@5%", "recall@10%", "recall@25%", "atd"):
        assert data[key] == pytest.approx(sum(run[key] for run in data["runs"]) / 3, abs=1e-4)
    # Separable: from one include the ranker finds the other five next. Recall at x % counts the
    # papers after the two priors (28): 5 % is 1 paper (1 of the 5 left to find), 10 % is 2 papers,
    # 25 % is 7 papers (all five).
    assert (data["recall@5%"], data["recall@10%"], data["recall@25%"]) == (0.2, 0.4, 1.0)
    for rule in ("hypergeometric", "50-in-a-row", "100-in-a-row"):
        per_run = [run["stopping"][rule] for run in data["runs"]]
        assert set(per_run[0]) == {"screened", "recall", "work_saved"}
        assert data["stopping"][rule]["recall"] == pytest.approx(sum(r["recall"] for r in per_run) / 3, abs=1e-4)
        assert data["stopping"][rule]["runs"] == 3


def test_simulate_shows_elas_u4s_twin_beside_the_model(tmp_path, capsys):
    path = labelled_csv(tmp_path / "labelled.csv")
    code, out, err = in_process(capsys, "simulate", path, "--seeds", "2", "--model", "nb-tfidf")
    assert code == 0, err
    lines = out.splitlines()
    at = lines.index("beside it, svm-tfidf (TF-IDF alone: the twin of ASReview LAB's default, ELAS u4), "
                     "same seeds and starting papers:")
    assert [line.split()[0] for line in lines[at + 1:at + 5]] == ["1", "2", "mean", "diff"]
    code, out, err = in_process(capsys, "simulate", path, "--seeds", "2", "--model", "nb-tfidf", "--format", "json")
    data = json.loads(out)
    assert data["baseline"]["model"] == "svm-tfidf" and len(data["baseline"]["runs"]) == 2
    assert data["difference"]["wss@95"]["mean"] == pytest.approx(data["wss@95"] - data["baseline"]["wss@95"], abs=2e-4)
    code, out, err = in_process(capsys, "simulate", path, "--seeds", "2", "--model", "nb-tfidf", "--no-baseline")
    assert code == 0 and "beside it" not in out


def in_process(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_reads_tsv_the_same_and_same_seeds_give_the_same_runs(tmp_path, capsys):
    runs = []
    for path in (labelled_csv(tmp_path / "l.csv"), labelled_csv(tmp_path / "l.tsv", "\t")):
        code, out, err = in_process(capsys, "simulate", path, "--seeds", "2", "--format", "json")
        assert code == 0, err
        runs.append([{k: v for k, v in run.items() if k != "seconds"} for run in json.loads(out)["runs"]])
    assert runs[0] == runs[1]
    code, out, _ = in_process(capsys, "simulate", tmp_path / "l.csv", "--seeds", "1", "--model", "nb-tfidf",
                              "--format", "json")
    assert code == 0 and json.loads(out)["model"] == "nb-tfidf"


def test_simulate_errors_name_the_file_the_column_and_what_to_do(tmp_path, capsys):
    def _error(*argv) -> str:
        code, _, err = in_process(capsys, "simulate", *argv)
        assert code == 1, err
        return err.strip().splitlines()[-1]

    good = labelled_csv(tmp_path / "l.csv")
    line = _error(good, "--label-column", "included")
    assert f"{good}: no column 'included' (its columns: title, abstract, label_included)" in line
    assert "--label-column NAME" in line
    bad = tmp_path / "bad.csv"
    bad.write_text("title,label_included\nA,1\nB,yes\nC,0\n", encoding="utf-8")
    line = _error(bad)
    assert f"{bad}: column 'label_included' must hold 0 (excluded) or 1 (included)" in line and "row 2" in line
    assert "'yes'" in line
    empty = tmp_path / "empty.csv"
    empty.write_text("title,label_included\nA,1\nB,\nC,0\n", encoding="utf-8")
    assert "row 2 under the header is empty" in _error(empty)
    one_class = tmp_path / "one.csv"
    one_class.write_text("title,label_included\nA,0\nB,0\n", encoding="utf-8")
    assert "0 includes and 2 excludes; a simulation needs at least one of each" in _error(one_class)
    no_text = tmp_path / "notext.csv"
    no_text.write_text("name,label_included\nA,1\nB,0\n", encoding="utf-8")
    assert "no title or abstract column" in _error(no_text)
    assert "no such file" in _error(tmp_path / "missing.csv")
    (tmp_path / "refs.bib").write_text("@article{a, title={A}}\n", encoding="utf-8")
    assert "reads .csv, .tsv or .xlsx tables, not '.bib'" in _error(tmp_path / "refs.bib")
    line = _error(good, "--model", "svm-both")
    assert "model 'svm-both' ranks on embeddings; add --embedder minilm" in line and "svm-tfidf" in line
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", str(good), "--seeds", "0"])
    assert exit_.value.code == 2 and "expected a whole number from 1 to 1000, got '0'" in capsys.readouterr().err


# ----------------------------------------------------------------------------- rank and stopping

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli-screen")
    abstracts = ["Malaria mosquito bednet village.", "Stock market bond quarter.", "Malaria mosquito bednet harvest.",
                 "Malaria harvest rainfall drought.", "Stock market harvest rainfall.", "Harvest rainfall drought irrigation."]
    write_seed_file(folder / "seeds.txt", abstracts)
    review = workbench.build([folder / "seeds.txt"], review=folder / "review", embedder="fake", seed=5)
    return review.path, {p.abstract.split()[0] + str(i): p.id for i, p in enumerate(review.papers_with_texts())}


@pytest.fixture
def copy(built, tmp_path):
    """A fresh copy of the built review, and its ids by first word and position."""
    path, ids = built
    shutil.copytree(path, tmp_path / "review")
    return tmp_path / "review", ids


def decide(path, ids) -> None:
    with Store.open(path) as store:
        store.decisions.decide(ids["Malaria0"], "include")
        store.decisions.decide(ids["Stock1"], "exclude")


def test_rank_lists_the_next_papers_with_rank_score_and_why(copy):
    path, ids = copy
    cold = workbench_cli("rank", "--review", path, "--next", "3")
    assert cold.returncode == 0, cold.stderr
    assert "0 of 6 papers decided" in cold.stderr and "a random order (seed 5)" in cold.stderr
    decide(path, ids)
    proc = workbench_cli("rank", "--review", path, "--next", "2", "--model", "svm-tfidf", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [row["id"] for row in rows] == [ids["Malaria2"], ids["Malaria3"]]
    assert [row["rank"] for row in rows] == [1, 2] and rows[0]["score"] > rows[1]["score"]
    assert rows[0]["why"].startswith("words: ") and "bednet" in rows[0]["why"]
    assert "2 of 6 papers decided (1 included, 1 excluded, 0 maybe)" in proc.stderr and "svm-tfidf" in proc.stderr
    table = workbench_cli("rank", "--review", path, "--model", "svm-tfidf")
    assert table.stdout.splitlines()[0].split()[:4] == ["rank", "id", "score", "title"]
    assert table.stdout.splitlines()[1].split()[:2] == ["1", ids["Malaria2"]]
    with Store.open(path) as store:
        assert len(store.decisions.records()) == 2, "ranking decides nothing"


def test_stopping_prints_the_estimate_and_advice_and_logs_the_claim(copy, capsys):
    path, ids = copy
    decide(path, ids)
    proc = workbench_cli("stopping", "--review", path, "--no-log")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].startswith("2 of 6 papers decided: 2 read by a person")
    assert out[1].startswith("estimate: about ") and "95% interval" in out[1]
    assert out[2].startswith("advice (Callaghan & Müller-Hansen (2020) hypergeometric test") and "keep screening" in out[2]
    assert out[3].startswith("for comparison (100 irrelevant in a row)")
    with Store.open(path) as store:
        assert store.stopping.claims() == []
    proc = workbench_cli("stopping", "--review", path, "--format", "json", "--in-a-row", "50")
    data = json.loads(proc.stdout)
    assert (data["papers"], data["read"], data["bulk"], data["stop"]) == (6, 2, 0, False)
    assert [a["rule"] for a in data["advice"]][1] == "50 irrelevant in a row"
    with Store.open(path) as store:
        (claim,) = store.stopping.claims()
    assert claim.at == data["logged"] and claim.claim == data["advice"][0]["claim"]
    assert claim.numbers["compared_with"][0]["rule"] == "50 irrelevant in a row"
    with pytest.raises(SystemExit):
        main(["stopping", "--review", str(path), "--target", "1.5"])
    assert "expected a share strictly between 0 and 1 (e.g. 0.95), got '1.5'" in capsys.readouterr().err


# ----------------------------------------------------------------------------- tiny reviews

TINY = [("Bed nets and malaria", "Bed nets cut malaria transmission by mosquitoes in villages."),
        ("Stock markets", "Stock market volatility and interest rates over a quarter."),
        ("Crop yields", "Crop yields under drought and irrigation in a dry region.")]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_rank_works_on_a_review_of_one_two_or_three_papers_and_when_all_are_decided(tmp_path, n):
    """TF-IDF with max_df 0.95 keeps no word of one paper (each is in 100 % of them): rank failed
    with scikit-learn's 'max_df corresponds to < documents than min_df'."""
    source = tmp_path / "tiny.csv"
    source.write_text("title,abstract\n" + "".join(f'"{t}","{a}"\n' for t, a in TINY[:n]), encoding="utf-8")
    workbench.build([source], review=tmp_path / "r", embedder="tfidf", progress=False)
    ids = workbench.open_review(tmp_path / "r").ids
    proc = workbench_cli("rank", "--review", tmp_path / "r", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.strip().splitlines()) == 1 + n and "random order" in proc.stderr
    for pid, decision in zip(ids, ["include", "exclude", "exclude"]):
        assert main(["decide", pid, decision, "--review", str(tmp_path / "r"), "--reviewer", "ana"]) == 0
    done = workbench_cli("rank", "--review", tmp_path / "r")
    assert done.returncode == 0, done.stderr
    assert f"{n} of {n} papers decided" in done.stderr and "nothing left to rank" in done.stderr
    assert done.stdout == ""


def test_rank_fits_a_model_on_two_decided_papers_of_three(tmp_path):
    source = tmp_path / "tiny.csv"
    source.write_text("title,abstract\n" + "".join(f'"{t}","{a}"\n' for t, a in TINY), encoding="utf-8")
    review = workbench.build([source], review=tmp_path / "r", embedder="tfidf", progress=False)
    by_title = {p.title: p.id for p in review.papers}
    review.screening.decide(by_title["Bed nets and malaria"], "include", reviewer="ana")
    review.screening.decide(by_title["Stock markets"], "exclude", reviewer="ana")
    for model in ("svm-tfidf", "lr-both", "nb-tfidf"):
        proc = workbench_cli("rank", "--review", tmp_path / "r", "--model", model, "--format", "json")
        assert proc.returncode == 0, proc.stderr
        (row,) = json.loads(proc.stdout)
        assert row["id"] == by_title["Crop yields"] and row["score"] is not None


def test_simulate_seed_runs_the_seeds_given_alone_as_asreview_simulate_seed_does(tmp_path, capsys):
    path = labelled_csv(tmp_path / "l.csv")
    code, out, err = in_process(capsys, "simulate", path, "--seeds", "3", "--model", "nb-tfidf", "--no-baseline",
                                "--format", "json")
    assert code == 0, err
    every = {run["seed"]: run for run in json.loads(out)["runs"]}
    code, out, err = in_process(capsys, "simulate", path, "--seed", "3", "2", "3", "--model", "nb-tfidf",
                                "--no-baseline", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["seeds"] == [3, 2] and "seeds 3, 2," in err
    for run in data["runs"]:  # the same run as the one of that seed among 1..N
        assert {k: v for k, v in run.items() if k != "seconds"} == {k: v for k, v in every[run["seed"]].items()
                                                                     if k != "seconds"}
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", str(path), "--seeds", "2", "--seed", "1"])
    assert exit_.value.code == 2 and "not allowed with argument" in capsys.readouterr().err

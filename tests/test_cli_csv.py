"""Every CSV a command prints or writes neutralises formulas the same way (issue 43, point 3).

A review whose titles, authors, venues, topic names, reasons and a reviewer's name start with
``=HYPERLINK(...)``, ``@SUM(...)``, ``-2+3``, ``+`` or a tab is listed by every command that
takes ``--format csv`` (enumerated from the parser); no cell of any of them may start with a
formula character unless it is a plain number, and the hostile cells come out with the one
``'`` in front that ``export --format csv`` gives them (:func:`workbench.store.csv_cell`).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from workbench.cli import main, parser
from workbench.store import csv_cell

HOSTILE = ['=HYPERLINK("http://evil.example","click")', "@SUM(1+1)", "-2+3", "+cmd", "=1+1"]
FORMULA = re.compile(r"[=+\-@\t\r]")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
ABSTRACTS = ["Reward models for aligning language model agents with human feedback and preferences.",
             "Reinforcement learning from human feedback trains a policy against a reward model.",
             "Agents plan with tools and memory to solve multi step web tasks.",
             "Benchmarks for web agents measure success rates on shopping and booking tasks.",
             "Preference optimisation without a reward model directly fits the policy.",
             "Memory architectures for language agents store and retrieve past episodes."]


def _records(first: int, n: int) -> str:
    """OpenAlex works with hostile titles, authors and venues; each cites the next."""
    lines = []
    for i in range(first, first + n):
        h = HOSTILE[i % len(HOSTILE)]
        lines.append(json.dumps({
            "id": f"https://openalex.org/W{1000 + i}", "title": f"{h} study {i} of {ABSTRACTS[i % 6].split()[0]}",
            "abstract": f"{ABSTRACTS[i % 6]} Variant {i} with details {i * 7}.",
            "authorships": [{"author": {"display_name": f"{h} Author{i % 3}"}}, {"author": {"display_name": "Ann Lee"}}],
            "primary_location": {"source": {"display_name": f"{h} Journal"}}, "publication_year": 2018 + i % 6,
            "doi": f"10.1000/x{i}", "referenced_works": [f"https://openalex.org/W{1000 + first + (i + 1 - first) % n}",
                                                        f"https://openalex.org/W{9000 + i % 3}"]}))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("csv")
    (folder / "first.jsonl").write_text(_records(0, 24), encoding="utf-8")
    (folder / "second.jsonl").write_text(_records(100, 6), encoding="utf-8")
    review = str(folder / "review")
    assert main(["build", str(folder / "first.jsonl"), "--review", review, "--embedder", "fake", "-q"]) == 0
    assert main(["rename-topic", "0", HOSTILE[0], "--review", review, "--reviewer", "ana"]) == 0
    assert main(["update", str(folder / "second.jsonl"), "--review", review]) == 0
    papers = json.loads(_out(["papers", "--review", review, "--format", "json"]))
    for reviewer, decision in (("ana", "include"), ("=bob", "exclude")):
        for p in papers[:3]:
            assert main(["decide", p["id"], decision, "--reason", "@SUM(A1) reason", "--review", review,
                         "--reviewer", reviewer]) == 0
    return {"review": review, "source": str(folder / "first.jsonl")}


def _out(argv) -> str:
    proc = subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_PROGRESS": "0"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _csv_commands() -> dict[str, argparse.ArgumentParser]:
    top = parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p for name, p in sub.choices.items()
            if any(a.dest == "format" and a.choices and "csv" in a.choices for a in p._actions)}


#: How each command with ``--format csv`` is run on the hostile review ({review}, {source}).
ARGV = {
    "papers": [], "topics": [], "rank": ["--next", "40"], "who": [], "trends": [], "links": [],
    "conflicts": [], "duplicates": ["--low", "50"], "update": ["--new"], "read": ["{source}", "--no-dedupe"],
    "export": [], "snowball": ["--from", "all"],
}


def test_every_csv_command_is_covered():
    assert set(_csv_commands()) == set(ARGV)


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _raw_formulas(cells: list[str]) -> list[str]:
    return [c for c in cells if FORMULA.match(c) and not NUMBER.fullmatch(c)]


@pytest.mark.parametrize("command", sorted(ARGV))
def test_no_csv_cell_is_a_formula(hostile, capsys, command):
    extra = [a.format(**hostile) for a in ARGV[command]]
    where = [] if command == "read" else ["--review", hostile["review"]]
    capsys.readouterr()
    assert main([command, *extra, *where, "--format", "csv"]) == 0
    cells = _cells(capsys.readouterr().out)
    assert _raw_formulas(cells) == []
    neutralised = [c for c in cells if c.startswith("'") and FORMULA.match(c[1:])]
    assert neutralised, f"{command}: the hostile review's cells should show up neutralised"


def test_the_same_neutraliser_as_export(hostile, capsys):
    capsys.readouterr()
    assert main(["export", "--review", hostile["review"], "--format", "csv"]) == 0
    exported = {c for c in _cells(capsys.readouterr().out) if c.startswith("'")}
    assert main(["papers", "--review", hostile["review"], "--format", "csv"]) == 0
    listed = {c for c in _cells(capsys.readouterr().out) if c.startswith("'")}
    assert {csv_cell(t) for t in (f"{HOSTILE[0]} study 0 of Reward", f"{HOSTILE[2]} study 2 of Agents")} <= exported & listed
    assert csv_cell("-2") == "-2" and csv_cell("-2+3") == "'-2+3" and csv_cell("\tx") == "'\tx"


def test_papers_rank_and_who_in_a_real_process(hostile):
    for command in ("papers", "rank", "who"):
        cells = _cells(_out([command, "--review", hostile["review"], "--format", "csv"]))
        assert _raw_formulas(cells) == [] and any(c.startswith("'=") for c in cells), command


def test_a_reviewer_name_as_a_column_header_is_neutralised_too(hostile, capsys):
    capsys.readouterr()
    assert main(["conflicts", "--review", hostile["review"], "--format", "csv"]) == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert header == ["id", "title", "'=bob", "ana"]


def test_json_stays_the_data_as_it_is(hostile):
    rows = json.loads(_out(["papers", "--review", hostile["review"], "--format", "json"]))
    assert any(r["title"].startswith("=HYPERLINK(") for r in rows)


def test_the_csv_a_command_writes_reads_back_through_the_workbench_reader(hostile, tmp_path):
    out = Path(tmp_path / "papers.csv")
    out.write_text(_out(["papers", "--review", hostile["review"], "--format", "csv"]), encoding="utf-8")
    back = json.loads(_out(["read", str(out), "--format", "json", "--no-dedupe"]))
    assert any(r["title"].startswith("=HYPERLINK(") for r in back)  # the reader takes the ' off again

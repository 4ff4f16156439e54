"""``workbench check`` verifies every file of the review's current set (issue 43): each file
build.json recorded (size and SHA-256) and each file read the way the review reads it; a damaged
one is named with the command that writes the files again, and opening such a review says the
same instead of ``SafetensorError ... this is a bug``.
"""

from __future__ import annotations

import json
import os
import pickle
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.errors import ReviewError
from workbench.review import check_review
from workbench.store import Store

ROOT = Path(__file__).resolve().parents[1]
SOURCE = min((ROOT / "seeds").glob("*.txt"))


def cli(*argv: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert "this is a bug" not in done.stderr, done.stderr
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("check") / "review"
    workbench.build([SOURCE], review=folder, embedder="fake", progress=False)
    with Store.open(folder, reviewer="ana") as store:
        store.tags.add(workbench.open_review(folder).papers[0].id, "kept")
    return folder


@pytest.fixture
def review(built, tmp_path) -> Path:
    dest = tmp_path / "review"
    shutil.copytree(built, dest)
    return dest


def files_of(review: Path) -> Path:
    with Store.open(review) as store:
        return review / "generations" / store.files.generation()


def _pickle(path: Path) -> None:
    path.write_bytes(pickle.dumps({"coords": np.zeros((3, 2))}))


def _same_size_garbage(path: Path) -> None:
    path.write_bytes(os.urandom(path.stat().st_size))


def _cut_mid_line(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def _cut_at_a_line(path: Path) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-3]))


def _unrecorded(path: Path) -> None:
    """A build from before build.json recorded its files, whose papers.jsonl lost lines."""
    _cut_at_a_line(path)
    manifest = path.parent / "build.json"
    data = json.loads(manifest.read_text())
    del data["files"]
    manifest.write_text(json.dumps(data))


def _garbage_json(path: Path) -> None:
    path.write_text('{"topics": [1, 2')


DAMAGE = {  # file, damage, what check says
    "arrays as a pickle": ("arrays.safetensors", _pickle, "a Python pickle, not safetensors"),
    "arrays as random bytes": ("arrays.safetensors", _same_size_garbage, "SHA-256 differs"),
    "papers cut mid-line": ("papers.jsonl", _cut_mid_line, "is not whole JSON"),
    "papers cut at a line": ("papers.jsonl", _cut_at_a_line, "but the build wrote"),
    "papers cut, nothing recorded": ("papers.jsonl", _unrecorded, "papers, but the build wrote"),
    "topics.json cut": ("topics.json", _garbage_json, "not whole JSON"),
    "model file garbage": ("model/ctfidf.safetensors", _same_size_garbage, "not a readable safetensors"),
    "map.csv gone": ("map.csv", Path.unlink, "is missing"),
}


@pytest.mark.parametrize("case", DAMAGE)
def test_check_names_the_damaged_file_and_the_command_that_rebuilds_it(review, case):
    name, damage, said = DAMAGE[case]
    files = files_of(review)
    damage(files / name)
    done = cli("check", "--review", str(review))
    assert done.returncode == 1
    head, *lines = done.stdout.splitlines()
    shown = f"generations/{files.name}/{name}"
    assert head.startswith("PROBLEMS: ") and shown in head and said in done.stdout
    command = f"`workbench build {SOURCE} --review {review} --embedder fake`"
    assert any(command in line for line in lines), done.stdout
    if name != "model/ctfidf.safetensors":  # (the model is not read when a review opens)
        with pytest.raises(ReviewError, match=f"{shown}.*workbench build {SOURCE}"):
            workbench.open_review(review)
        papers = cli("papers", "--review", str(review))
        assert papers.returncode == 1 and shown in papers.stderr


def test_an_intact_review_checks_ok_with_every_file_recorded(review):
    report = check_review(review)
    assert report.ok and report.lines[0] == "ok"
    manifest = json.loads((files_of(review) / "build.json").read_text())
    recorded = manifest["files"]
    assert {"papers.jsonl", "arrays.safetensors", "topics.json", "map.csv"} <= set(recorded)
    assert any(name.startswith("model/") for name in recorded)
    assert f"({len(recorded)} files, sizes and SHA-256 as written)" in "\n".join(report.lines)


def test_a_cut_map_html_is_a_problem_and_a_rebuild_writes_it_again(review):
    os.truncate(review / "map.html", 1000)
    report = check_review(review)
    assert not report.ok and "map.html is cut short" in report.lines[0]
    workbench.build([SOURCE], review=review, embedder="fake", progress=False)
    assert check_review(review).ok


def test_the_rebuild_command_check_prints_writes_whole_files_again(review):
    files = files_of(review)
    papers = [p.id for p in workbench.open_review(review).papers]
    _cut_at_a_line(files / "papers.jsonl")  # a rebuild of the same papers must not share this file
    line = next(l for l in cli("check", "--review", str(review)).stdout.splitlines()
                if "write the review's files again" in l)
    argv = shlex.split(line.split("`")[1])
    assert argv[:2] == ["workbench", "build"]
    rebuilt = cli(*argv[1:], "-q")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert cli("check", "--review", str(review)).returncode == 0
    assert [p.id for p in workbench.open_review(review).papers] == papers
    with Store.open(review) as store:
        assert store.tags.of(papers[0]) == ["kept"], "the rebuild kept the tags"


def test_check_works_when_the_store_cannot_be_opened(review):
    with Store.open(review) as store:
        store.files.backup()
    os.truncate(review / "annotations.sqlite", 4096 * 3)
    report = check_review(review)
    assert not report.ok and "the store cannot be used" in report.lines[0]
    text = "\n".join(report.lines)
    assert f"restore the newest with `workbench restore --review {review}`" in text
    assert "(the newest; the store, which names the current set, cannot be read)" in text


def test_a_build_json_naming_files_outside_its_folder_is_reported_not_followed(review):
    manifest = files_of(review) / "build.json"
    data = json.loads(manifest.read_text())
    data["files"]["../../../../etc/passwd"] = {"size": 1, "sha256": "0" * 64}
    manifest.write_text(json.dumps(data))
    report = check_review(review)
    assert not report.ok and "records a file outside its folder" in report.lines[0]
    assert "root:" not in "\n".join(report.lines)

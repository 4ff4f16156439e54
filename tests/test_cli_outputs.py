"""Nothing lands on a review's state but through the store (issue 43, point 2).

Every command with an output path (enumerated from the parser) and every Python output route
refuses a path that is, or resolves to, a file or folder of *any* review (symlinks, ``..``,
another case, hard links), with one line and nothing changed; ``-o -`` is standard output, and
FIFOs, /dev/null and /dev/stdout are written as streams, never replaced by a file.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SEEDS

from workbench import open_review
from workbench.cli import main, parser
from workbench.review import write_diagram
from workbench.review.report import write_report, write_static_map
from workbench.store import AnnotationInputError, Store, check_output

#: Every command with an output path, and whether it names a file or a folder. A new command
#: with an output option fails test_every_output_option_is_known until it is added here (and so
#: covered by every test below).
OUTPUT_OPTIONS = {"export": "file", "prisma": "folder", "methods": "file", "snowball": "file"}

#: Paths of another review's state, relative to it ({B}); each must be refused.
STATE_SPELLINGS = [
    "{B}/annotations.sqlite", "{B}/annotations.sqlite-wal", "{B}/ANNOTATIONS.SQLITE", "{B}/map.html",
    "{B}/generations", "{B}/generations/x", "{B}/backups/new.sqlite", "{B}/cache/new", "{B}/model",
    "{B}/report/../annotations.sqlite", "{link}/annotations.sqlite", "{link}/Generations/new",
]


def _run(*argv, cwd=None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_PROGRESS": "0", "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


def files_of(folder: Path) -> dict:
    """Every file under ``folder`` (names and bytes): the review as it is."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("outputs")
    shutil.copy(min(SEEDS.glob("*.txt")), folder / "seeds.txt")
    assert main(["build", str(folder / "seeds.txt"), "--review", str(folder / "A"), "--embedder", "fake", "-q"]) == 0
    return folder / "A"


@pytest.fixture
def two(built, tmp_path) -> tuple[Path, Path]:
    """Two reviews, A (the one written from) and B (another), and a symlink ``link`` -> B."""
    a, b = tmp_path / "A", tmp_path / "B"
    shutil.copytree(built, a)
    shutil.copytree(built, b)
    with Store.open(b, reviewer="bob") as store:
        store.tags.add(store.files.export("jsonl").split('"id": "')[1][:12], "bobs-tag")
    (b / "backups").mkdir(exist_ok=True)
    (tmp_path / "link").symlink_to(b, target_is_directory=True)
    return a, b


def _output_options() -> dict[str, argparse.Action]:
    top = parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return {name: action for name, p in sub.choices.items() for action in p._actions
            if {"-o", "--output"} & set(action.option_strings)}


def test_every_output_option_is_known():
    assert set(_output_options()) == set(OUTPUT_OPTIONS)


def _argv(command: str, review: Path, dest: str) -> list[str]:
    extra = {"export": ["--format", "jsonl"], "snowball": ["--lookup", "dois"]}.get(command, [])
    return [command, "--review", str(review), "--reviewer", "ana", *extra, "--output", dest]


@pytest.mark.parametrize("spelling", STATE_SPELLINGS)
@pytest.mark.parametrize("command", sorted(OUTPUT_OPTIONS))
def test_no_command_writes_onto_another_reviews_state(two, tmp_path, capsys, command, spelling):
    a, b = two
    before = files_of(b)
    dest = spelling.format(B=b, link=tmp_path / "link")
    assert main(_argv(command, a, dest)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refusing to write" in err and "this is a bug" not in err, err
    assert files_of(b) == before


@pytest.mark.parametrize("command", sorted(OUTPUT_OPTIONS))
def test_nor_onto_its_own_state(two, capsys, command):
    a, _ = two
    before = files_of(a)
    for name in ("annotations.sqlite", "generations", "cache/x"):
        assert main(_argv(command, a, str(a / name))) == 1
        assert "refusing to write" in capsys.readouterr().err
    assert files_of(a) == before


def test_a_hard_link_to_another_reviews_store_is_refused(two, tmp_path, capsys):
    a, b = two
    os.link(b / "annotations.sqlite", tmp_path / "innocent.jsonl")
    before = files_of(b)
    assert main(_argv("export", a, str(tmp_path / "innocent.jsonl"))) == 1
    assert "a SQLite database" in capsys.readouterr().err
    (tmp_path / "plain.txt").write_text("x")
    os.link(tmp_path / "plain.txt", tmp_path / "other-name.txt")
    assert main(_argv("export", a, str(tmp_path / "plain.txt"))) == 1
    assert "1 other hard link" in capsys.readouterr().err
    assert files_of(b) == before


def test_a_legacy_review_is_known_by_its_build_json(two, tmp_path, capsys):
    a, _ = two
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "build.json").write_text("{}")
    (legacy / "papers.jsonl").write_text("old papers\n")
    assert main(_argv("export", a, str(legacy / "papers.jsonl"))) == 1
    assert "refusing to write" in capsys.readouterr().err
    assert (legacy / "papers.jsonl").read_text() == "old papers\n"


def test_the_issues_cases_in_real_processes(two, tmp_path):
    a, b = two
    before = files_of(b)
    cases = [("export", "--format", "jsonl", "--review", str(a), "-o", str(b / "annotations.sqlite")),
             ("prisma", "--review", str(b), "--output", str(b / "annotations.sqlite")),
             ("prisma", "--review", str(b), "--output", str(b / "generations"))]
    for argv in cases:
        proc = _run(*argv)
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1, (argv, proc.stderr)
        assert "refusing to write" in proc.stderr and "bug" not in proc.stderr
    assert files_of(b) == before
    assert not list((b / "generations").glob("prisma.*"))


def test_outputs_still_go_to_report_and_to_new_files(two, tmp_path, capsys):
    a, b = two
    (b / "report").mkdir(exist_ok=True)
    assert main(_argv("export", a, str(b / "report" / "from-a.jsonl"))) == 0  # another review's report/ is fine
    assert main(_argv("export", a, str(tmp_path / "elsewhere.jsonl"))) == 0
    assert main(_argv("prisma", a, str(tmp_path / "figures"))) == 0
    assert (b / "report" / "from-a.jsonl").read_text().startswith("{")
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == ["prisma.png", "prisma.svg"]
    assert not list(tmp_path.rglob("*.tmp"))


def test_dash_is_standard_output_and_no_file_named_dash(two, tmp_path):
    a, _ = two
    proc = _run("export", "--format", "csv", "--review", str(a), "-o", "-", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("id,title,")
    assert not (tmp_path / "-").exists()
    proc = _run("prisma", "--review", str(a), "--output", "-", cwd=tmp_path)
    assert proc.returncode == 1 and "needs a folder, got '-'" in proc.stderr
    with Store.open(a) as store, pytest.raises(AnnotationInputError, match="needs a file name, got '-'"):
        store.files.export("csv", "-")


def test_dev_stdout_null_and_a_fifo_are_streams_never_replaced(two, tmp_path):
    a, _ = two
    proc = _run("export", "--format", "csv", "--review", str(a), "-o", "/dev/stdout")
    assert proc.returncode == 0 and proc.stdout.startswith("id,title,"), proc.stderr
    assert _run("export", "--format", "csv", "--review", str(a), "-o", os.devnull).returncode == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    assert _run("export", "--format", "csv", "--review", str(a), "-o", str(fifo)).returncode == 0
    assert reader.communicate(timeout=60)[0].startswith(b"id,title,")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_block_device_is_refused(two, capsys):
    devices = [p for p in Path("/dev").iterdir() if p.exists() and stat.S_ISBLK(os.stat(p).st_mode)]
    if not devices:
        pytest.skip("no block device visible here")
    assert main(_argv("export", two[0], str(devices[0]))) == 1
    assert "a device or socket" in capsys.readouterr().err


def test_the_python_routes_use_the_same_check(two, tmp_path):
    a, b = two
    before = files_of(b)
    review = open_review(a)
    with pytest.raises(AnnotationInputError, match="generations/"):
        write_report(review, b / "generations", image=False)
    with pytest.raises(AnnotationInputError, match="'map.html'"):
        write_static_map(review, b / "map.html")
    with pytest.raises(AnnotationInputError, match="'cache/'"):
        review.team.prisma(b / "cache" / "figures")
    with pytest.raises(AnnotationInputError, match="'backups/'"):
        write_diagram(review.team.prisma(write=False), tmp_path / "link" / "backups")
    with Store.open(a) as store, pytest.raises(AnnotationInputError, match="annotation store"):
        store.files.export("markdown", tmp_path / "link" / "annotations.sqlite-shm")
    assert files_of(b) == before


def test_check_output_gives_the_resolved_path(two, tmp_path):
    a, _ = two
    (tmp_path / "out").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "out", target_is_directory=True)
    assert check_output(tmp_path / "alias" / "x.csv") == (tmp_path / "out" / "x.csv").resolve()
    assert check_output(tmp_path / "alias", folder=True) == (tmp_path / "out").resolve()
    with pytest.raises(AnnotationInputError, match="is a folder"):
        check_output(tmp_path / "alias")

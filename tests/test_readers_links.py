"""Sources stay inside the trees the user named: links that leave them are listed, not followed
(unless asked), cycles end, and nothing of a file that is not a bibliography is shown or kept."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import unprivileged

import workbench
from workbench.errors import NoRecordsError, ReaderError
from workbench._runtime.fsutil import default_file_mode
from workbench.readers import read_sources

DATA = Path(__file__).resolve().parent / "data" / "readers"
SECRET = "root:$6$SECRETHASHxyz:20228:0:99999:7:::"
HINT = "to read it, name it as a source, or pass --follow-links (follow_links=True in Python)"


def cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench.cli", *argv], capture_output=True, text=True,
                          timeout=300)


def _lines(report, root: Path) -> list[str]:
    return [line.replace(f"{root}/", "") for line in report.lines() if not line.startswith("  ")]


@pytest.fixture
def tree(tmp_path) -> Path:
    """``sources/`` with one export, and ``outside/`` beside it holding a secret-looking file."""
    sources, outside = tmp_path / "sources", tmp_path / "outside"
    sources.mkdir()
    outside.mkdir()
    shutil.copy(DATA / "export.ris", sources / "export.ris")
    (outside / "shadow").write_text(f"{SECRET}\ndaemon:*:20228:0:99999:7:::\n", encoding="utf-8")
    shutil.copy(DATA / "labels.csv", outside / "labels.csv")
    return tmp_path


def test_a_link_to_a_folder_outside_the_sources_is_listed_and_not_walked(tree):
    sources = tree / "sources"
    (sources / "etcdir").symlink_to("/etc")
    (sources / "elsewhere").symlink_to(tree / "outside")
    papers, report = read_sources([sources])
    assert len(papers) == 4
    assert _lines(report, sources) == [
        f"elsewhere: not read: a link to '{tree / 'outside'}', outside the folders being read: not followed; {HINT}",
        f"etcdir: not read: a link to '/etc', outside the folders being read: not followed; {HINT}",
        "export.ris (ris): 4 read, 0 skipped, 0 merged",
        "total: 4 read from 1 file, 0 skipped, 0 merged as duplicates, 4 papers; 2 files not read (see above)",
    ]


def test_a_link_to_a_file_outside_is_listed_and_never_opened(tree):
    sources = tree / "sources"
    (sources / "shadow.csv").symlink_to(tree / "outside" / "shadow")
    (sources / "system.csv").symlink_to("/etc/shadow")
    _, report = read_sources([sources])
    assert [f.path for f in report.files if f.error] == [str(sources / "shadow.csv"), str(sources / "system.csv")]
    assert report.files[1].error == (f"a link to '{tree / 'outside' / 'shadow'}', outside the folders being read: "
                                     f"not followed; {HINT}")
    assert SECRET not in "\n".join(report.lines())


def test_follow_links_reads_what_links_lead_to(tree):
    sources = tree / "sources"
    (sources / "elsewhere").symlink_to(tree / "outside")
    papers, report = read_sources([sources], follow_links=True)
    assert len(papers) == 4 + 6
    assert [f.path.replace(f"{sources}/", "") for f in report.files] == [
        "elsewhere/labels.csv", "elsewhere/shadow", "export.ris"]
    assert report.files[1].error.startswith("no reader for 'shadow'")


def test_links_inside_the_sources_are_followed_and_everything_is_read_once(tree):
    sources = tree / "sources"
    (sources / "sub").mkdir()
    shutil.copy(DATA / "labels.csv", sources / "sub" / "labels.csv")
    (sources / "latest.ris").symlink_to("export.ris")
    (sources / "also-sub").symlink_to("sub")
    (sources / "sub" / "up").symlink_to("..")  # a cycle: sub/up/sub/up/...
    papers, report = read_sources([sources])
    assert len(papers) == 4 + 6
    assert _lines(report, sources) == [
        "also-sub/labels.csv (csv): 6 read, 0 skipped, 0 merged",
        f"also-sub/up: not read: a link to a folder read already ({sources}); not read twice",
        "export.ris (ris): 4 read, 0 skipped, 0 merged",
        "latest.ris: not read: the same file as export.ris (a link to it); read once",
        "sub: not read: a folder read already (also-sub); not read twice",
        "total: 10 read from 2 files, 0 skipped, 0 merged as duplicates, 10 papers; 3 files not read (see above)",
    ]


def test_a_cycle_of_links_ends_with_a_line_each(tree):
    sources = tree / "sources"
    (sources / "a.ris").symlink_to("b.ris")
    (sources / "b.ris").symlink_to("a.ris")
    (sources / "self").symlink_to("self")
    (sources / "loop").symlink_to(".")
    papers, report = read_sources([sources])
    assert len(papers) == 4
    errors = {Path(f.path).name: f.error for f in report.files if f.error}
    assert errors == {
        "a.ris": "a link that leads back to itself (a cycle of links); fix or remove it",
        "b.ris": "a link that leads back to itself (a cycle of links); fix or remove it",
        "loop": f"a link to a folder read already ({sources}); not read twice",
        "self": "a link that leads back to itself (a cycle of links); fix or remove it",
    }
    with pytest.raises(ReaderError, match="a link that leads back to itself"):
        read_sources([sources / "self"])


def test_a_source_named_through_a_link_is_read_where_it_leads(tree):
    named = tree / "named"
    named.symlink_to(tree / "outside")
    papers, report = read_sources([named])
    assert len(papers) == 6 and report.files[0].path == str(named / "labels.csv")
    (tree / "one.csv").symlink_to(tree / "outside" / "labels.csv")
    assert len(read_sources([tree / "one.csv"])[0]) == 6


def test_a_very_deep_tree_is_walked(tmp_path):
    folder = tmp_path / "deep"
    deep = folder
    for _ in range(1100):  # deeper than Python's recursion limit
        deep.mkdir()
        deep = deep / "d"
    deep.mkdir()
    shutil.copy(DATA / "export.ris", deep / "export.ris")
    papers, _ = read_sources([folder])
    assert len(papers) == 4
    (deep / "export.ris").unlink()
    while deep != tmp_path:  # (shutil.rmtree recurses)
        deep.rmdir()
        deep = deep.parent


def test_a_file_that_is_no_bibliography_is_reported_by_name_and_kind_only(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(DATA / "export.ris", folder / "export.ris")
    for suffix in (".csv", ".tsv", ".txt", ".ris", ".bib", ".json", ".xml", ".nbib"):
        (folder / f"shadow{suffix}").write_text(f"{SECRET}\nbin:*:20228:0:99999:7:::\n", encoding="utf-8")
    (folder / "passwords.json").write_text('{"doi": "%s", "user": "%s"}\n' % (SECRET, SECRET), encoding="utf-8")
    _, report = read_sources([folder])
    said = "\n".join(report.lines(limit=None))
    assert SECRET not in said and "SECRETHASH" not in said
    csv = next(f for f in report.files if f.path.endswith("shadow.csv"))
    assert csv.warnings == [
        f"{folder / 'shadow.csv'}: no records found: this does not look like CSV / TSV with a header row: Scopus, WoS, "
        "IEEE, Springer, Embase, ASReview (chosen for its '.csv' name) but like lines of colon-separated fields, as "
        "in /etc/passwd; check it is the export you meant, or name its format"]
    with pytest.raises(NoRecordsError) as err:
        read_sources([folder / "shadow.csv"])
    assert SECRET not in str(err.value)


def test_column_names_are_named_only_for_a_table_with_a_header(tmp_path):
    table = tmp_path / "contacts.csv"
    table.write_text("name,email,phone\nAda,ada@example.org,123\n", encoding="utf-8")
    with pytest.raises(ReaderError, match="no title or abstract column among name, email, phone"):
        read_sources([table])
    rows = tmp_path / "rows.csv"
    rows.write_text(f"2024-01-01,{SECRET},42\n2024-01-02,x,43\n", encoding="utf-8")
    with pytest.raises(NoRecordsError) as err:
        read_sources([rows])
    assert SECRET not in str(err.value) and "but like plain text" in str(err.value)


def test_a_build_neither_prints_nor_saves_what_a_file_outside_holds(tree):
    sources, review = tree / "sources", tree / "review"
    shutil.copy(DATA / "labels.csv", sources / "labels.csv")
    (sources / "shadow.csv").symlink_to(tree / "outside" / "shadow")
    (sources / "copy.csv").write_text(f"{SECRET}\n", encoding="utf-8")
    for argv in (["build", str(sources), "--review", str(review), "--embedder", "fake", "--quiet"],
                 ["build", str(sources), "--review", str(review), "--embedder", "fake", "--quiet", "--follow-links"]):
        result = cli(*argv)
        assert result.returncode == 0, result.stderr
        assert "SECRETHASH" not in result.stderr + result.stdout
        for path in review.rglob("*"):
            if path.is_file():
                assert b"SECRETHASH" not in path.read_bytes(), path
    assert "shadow.csv: not read: a link to" not in result.stderr  # followed the second time
    assert "the same file as" not in result.stderr


def test_build_read_and_update_take_follow_links(tree):
    sources, review = tree / "sources", tree / "review"
    (sources / "elsewhere").symlink_to(tree / "outside")
    result = cli("read", str(sources))
    assert result.returncode == 0 and f"{sources}/elsewhere: not read: a link to" in result.stderr
    assert HINT in result.stderr
    assert len(cli("read", str(sources), "--follow-links", "--format", "json").stdout.split('"id"')) == 11
    built = workbench.build([sources], review=review, embedder="fake")
    assert len(built.papers) == 4
    assert any(line.startswith(f"{sources}/elsewhere: not read: a link to") for line in built.manifest["read_report"])
    new = tree / "new"
    new.mkdir()
    (new / "more").symlink_to(tree / "outside")
    result = cli("update", str(new), "--review", str(review))
    assert result.returncode == 1 and "more: not read: a link to" in result.stderr
    result = cli("update", str(new), "--review", str(review), "--follow-links")
    assert result.returncode == 0, result.stderr
    assert len(workbench.open_review(review).papers) == 4 + 6


def test_what_reading_keeps_is_no_more_readable_than_the_sources(tmp_path):
    private = tmp_path / "private.ris"
    shared = tmp_path / "shared.csv"
    shutil.copy(DATA / "export.ris", private)
    shutil.copy(DATA / "labels.csv", shared)
    private.chmod(0o600)
    shared.chmod(0o644)
    cache = tmp_path / "cache"
    read_sources([private, shared], cache=cache)
    modes = {}
    for entry in cache.glob("file-*.jsonl"):
        kind = "private" if "private.ris" in entry.read_text(encoding="utf-8") else "shared"
        modes[kind] = stat.S_IMODE(entry.stat().st_mode)
    assert modes == {"private": default_file_mode() & 0o600, "shared": default_file_mode()}


def test_review_files_of_a_build_get_the_users_umask(tmp_path):
    code = ("import os, sys, workbench; os.umask(0o027); "
            "workbench.build([sys.argv[1]], review=sys.argv[2], embedder='fake')")
    subprocess.run([sys.executable, "-c", code, str(DATA / "labels.csv"), str(tmp_path / "r")], check=True,
                   timeout=300)
    saved = [p for p in (tmp_path / "r").rglob("*") if p.is_file() and p.name.endswith((".json", ".jsonl"))]
    assert any(p.name == "build.json" for p in saved) and any(p.parent.name == "records" for p in saved)
    assert all(stat.S_IMODE(p.stat().st_mode) & 0o007 == 0 for p in saved), saved


def test_a_file_you_may_not_read_gets_an_honest_line(tmp_path):
    prefix = unprivileged()
    if prefix is None:
        pytest.skip("running as root without user namespaces: permissions cannot be tested")
    shutil.copy(DATA / "export.ris", tmp_path / "export.ris")
    locked = tmp_path / "locked.ris"
    shutil.copy(DATA / "export.ris", locked)
    locked.chmod(0)
    result = subprocess.run([*prefix, sys.executable, "-m", "workbench.cli", "read", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (f"{locked}: not read: cannot read the file (permission denied: you may not read it; ask its owner for "
            "read access, or leave it out)") in result.stderr
    named = subprocess.run([*prefix, sys.executable, "-m", "workbench.cli", "read", str(locked)],
                           capture_output=True, text=True, timeout=120)
    assert named.returncode == 1 and "permission denied" in named.stderr and "Traceback" not in named.stderr

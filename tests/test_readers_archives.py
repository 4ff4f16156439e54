"""Archives read in memory (.zip, .gz, .tar.gz), with the member's name in every message."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from workbench.errors import ReaderError
from workbench.readers import read_sources

DATA = Path(__file__).resolve().parent / "data" / "readers"


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _targz(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_a_zip_of_exports_reads_every_member_and_names_it(tmp_path):
    refs = _zip(tmp_path / "refs.zip", {
        "export.ris": (DATA / "export.ris").read_bytes(),
        "scopus/trailing_commas.csv": (DATA / "trailing_commas.csv").read_bytes(),
        "__MACOSX/scopus/._trailing_commas.csv": b"\x00\x05\x16\x07 resource fork",
        "notes.xyz": b"not an export",
    })
    papers, report = read_sources([refs])
    assert len(papers) == 4 + 5
    assert papers[0].source == f"{refs}!export.ris:5" and papers[0].collection == "export"
    assert papers[4].source == f"{refs}!scopus/trailing_commas.csv:2"
    lines = [line.replace(f"{tmp_path}/", "") for line in report.lines()]
    assert lines[0] == "refs.zip!export.ris (ris): 4 read, 0 skipped, 0 merged"
    assert "refs.zip!scopus/trailing_commas.csv (csv): 5 read, 1 skipped, 0 merged" in lines
    assert ("  skipped: refs.zip!scopus/trailing_commas.csv:5: 5 values where the header has 3 columns (an unquoted "
            "',' inside a value?) (the row runs from line 5 to line 7); quote that value and read again") in lines
    assert ("refs.zip!__MACOSX/scopus/._trailing_commas.csv: not read: hidden (a name starting with '.') or a macOS "
            "resource fork") in lines
    assert any(line.startswith("refs.zip!notes.xyz: not read: no reader for 'notes.xyz'") for line in lines)


def test_a_gzipped_json_lines_snapshot(tmp_path):
    part = tmp_path / "part_000.jsonl.gz"
    part.write_bytes(gzip.compress((DATA / "openalex.jsonl").read_bytes()))
    papers, report = read_sources([part])
    assert [f.path for f in report.files] == [f"{part}!part_000.jsonl"]
    assert report.files[0].format == "json" and len(papers) == report.read > 0
    assert all(p.source.startswith(f"{part}!part_000.jsonl:") for p in papers)


def test_a_tar_gz_and_archives_recognised_by_content_not_name(tmp_path):
    bundle = _targz(tmp_path / "download", {
        "./refs/library.bib": (DATA / "library.bib").read_bytes(),
        "./refs/pubmed.nbib": (DATA / "pubmed.nbib").read_bytes(),
    })
    papers, report = read_sources([bundle])
    assert [(f.path.replace(f"{tmp_path}/", ""), f.format) for f in report.files] == [
        ("download!refs/library.bib", "bibtex"), ("download!refs/pubmed.nbib", "medline"),
    ]
    assert report.files[0].skipped == [f"{bundle}!refs/library.bib:38: no title or abstract; nothing to read or map"]


def test_a_link_in_a_tar_is_named_and_never_followed(tmp_path):
    bundle = tmp_path / "bundle.tar"
    with tarfile.open(bundle, "w") as archive:
        data = (DATA / "export.ris").read_bytes()
        info = tarfile.TarInfo("export.ris")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("latest.ris")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    papers, report = read_sources([bundle])
    assert len(papers) == 4
    (skipped,) = [f for f in report.files if f.error]
    assert skipped.path == f"{bundle}!latest.ris"
    assert skipped.error == ("a link to '/etc/passwd' in the archive, which is never followed; if it stands for an "
                             "export, unpack the archive and read the file it names")


def test_an_archive_inside_an_archive(tmp_path):
    inner = gzip.compress((DATA / "export.ris").read_bytes())
    outer = _zip(tmp_path / "outer.zip", {"inner/export.ris.gz": inner})
    papers, report = read_sources([outer])
    assert report.files[0].path == f"{outer}!inner/export.ris.gz!export.ris"
    assert papers[0].source == f"{outer}!inner/export.ris.gz!export.ris:5"


def test_a_damaged_archive_is_an_error_when_named_and_a_report_line_in_a_folder(tmp_path):
    good = gzip.compress((DATA / "export.ris").read_bytes())
    damaged = tmp_path / "cut.ris.gz"
    damaged.write_bytes(good[: len(good) // 2])
    with pytest.raises(ReaderError, match=r"cut\.ris\.gz: a damaged gzip archive \(.*\); download or pack it again"):
        read_sources([damaged])
    (tmp_path / "export.ris").write_bytes((DATA / "export.ris").read_bytes())
    papers, report = read_sources([tmp_path])
    assert len(papers) == 4
    assert report.files[0].path == str(damaged) and report.files[0].error.startswith("a damaged gzip archive")


def test_an_xlsx_is_a_workbook_not_an_archive(tmp_path):
    papers, report = read_sources([DATA / "sheet.xlsx"])
    assert report.files[0].format == "xlsx" and len(papers) == 2


def test_reading_one_archive_as_a_file_says_where_archives_are_opened(tmp_path):
    from workbench.readers import read_file

    part = tmp_path / "works.jsonl.gz"
    part.write_bytes(gzip.compress((DATA / "openalex.jsonl").read_bytes()))
    with pytest.raises(ReaderError, match="a gzip archive; read it with read_sources or `workbench read`"):
        read_file(part)

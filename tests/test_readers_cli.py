"""``workbench read``: through its own argparse parser, and through ``workbench.cli.main``."""

from __future__ import annotations

import argparse
import csv
import io
import json
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.cli.read import COLUMNS, register
from workbench.errors import ReaderError, WorkbenchError

DATA = Path(__file__).resolve().parent / "data" / "readers"
DUPES = [str(DATA / "dupes_zotero.ris"), str(DATA / "dupes_scopus.csv")]


def run(argv: list[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="workbench")
    register(parser.add_subparsers())
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    return args.func(args, stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_columns_are_those_of_workbench_papers_before_embedding():
    assert COLUMNS == ["id", "title", "authors", "year", "collection", "source"]


def test_csv_output_and_report_on_stderr():
    code, out, err = run(["read", *DUPES, "--format", "csv"])
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 9 and list(rows[0]) == COLUMNS
    assert rows[1] == {
        "id": rows[1]["id"], "title": "Active learning in practice: a case study", "authors": "Jones, Amy",
        "year": "2019", "collection": "dupes_zotero", "source": f"{DATA}/dupes_zotero.ris:9",
    }
    lines = err.splitlines()
    assert lines[0] == f"{DATA}/dupes_zotero.ris (ris): 7 read, 0 skipped, 0 merged"
    assert lines[-1] == "total: 14 read from 2 files, 0 skipped, 5 merged as duplicates, 9 papers"
    assert "merged" not in out


def test_json_output_lists_every_source():
    code, out, _ = run(["read", *DUPES, "--format", "json"])
    records = json.loads(out)
    assert code == 0 and len(records) == 9
    assert records[0]["authors"] == ["Smith, John"] and records[0]["year"] == 2020
    assert records[0]["sources"] == [f"{DATA}/dupes_zotero.ris:1", f"{DATA}/dupes_scopus.csv:2"]
    assert records[5]["year"] == 2010 and records[2]["sources"] == [f"{DATA}/dupes_zotero.ris:17"]


def test_table_output():
    code, out, _ = run(["read", str(DATA / "labels.csv")])
    lines = out.splitlines()
    assert code == 0 and len(lines) == 7
    assert lines[0].split() == COLUMNS
    assert "Included paper" in lines[1] and lines[1].rstrip().endswith("labels.csv:2")


def test_no_dedupe_and_input_format_options(tmp_path):
    odd = tmp_path / "pubmed.dat"
    odd.write_text("not recognisable\n")
    with pytest.raises(ReaderError, match="no reader for 'pubmed.dat'"):
        run(["read", str(odd)])
    odd.write_bytes((DATA / "pubmed.nbib").read_bytes())
    code, out, _ = run(["read", str(odd), "--input-format", "medline", "--format", "csv"])
    assert code == 0 and len(out.splitlines()) == 3
    _, out, err = run(["read", *DUPES, "--no-dedupe", "--format", "csv"])
    assert len(out.splitlines()) == 13 and "2 merged as duplicates, 12 papers" in err


def test_user_errors_are_workbench_errors():
    with pytest.raises(WorkbenchError, match="the file is empty"):
        run(["read", str(DATA / "empty.csv")])
    with pytest.raises(WorkbenchError, match="--threshold=150.0 should be between 0 and 100"):
        run(["read", str(DATA / "labels.csv"), "--threshold", "150"])


def test_through_the_main_command_line(capsys):
    assert main(["read", *DUPES, "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 10
    assert captured.err.splitlines()[-1] == "total: 14 read from 2 files, 0 skipped, 5 merged as duplicates, 9 papers"
    assert main(["read", str(DATA / "notes.xyz")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"workbench: error: {DATA}/notes.xyz: no reader for 'notes.xyz'; supported: .atom .bib .biblatex .bibtex "
        ".ciw .csv .json .jsonl .medline .nbib .ndjson .ris .tab .tsv .txt .xlsm .xlsx .xml (or name the format: "
        "xlsx, pubmed-xml, arxiv-atom, json, bibtex, medline, wos, ris, csv, seeds), and .zip, .gz or .tar.gz archives of "
        "them\n"
    )


def test_garbage_renamed_ris_exits_non_zero_with_the_report(tmp_path, capsys):
    garbage = tmp_path / "garbage.ris"
    garbage.write_text("<html><body>Your session expired. Please log in again.</body></html>\n", encoding="utf-8")
    assert main(["read", str(garbage)]) == 1
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert captured.out == "" and err[0] == f"{garbage} (ris): 0 read, 0 skipped, 0 merged"
    assert err[1].startswith(f"  warning: {garbage}: no records found: this does not look like RIS")
    assert err[-1].startswith(f"workbench: error: no records in 1 file ({garbage} (ris): 0 read")
    assert main(["build", str(garbage), "--review", str(tmp_path / "r"), "--embedder", "fake", "-q"]) == 1
    assert capsys.readouterr().err.splitlines()[-1].startswith("workbench: error: no records in 1 file")
    assert not (tmp_path / "r").exists()


def test_a_folder_with_one_good_file_among_bad_ones_exits_zero_and_lists_the_rest(tmp_path, capsys):
    (tmp_path / "garbage.ris").write_text("nothing\n", encoding="utf-8")
    (tmp_path / "labels.csv").write_bytes((DATA / "labels.csv").read_bytes())
    assert main(["read", str(tmp_path), "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert f"{tmp_path}/garbage.ris (ris): 0 read" in err and "total: 6 read from 2 files" in err

"""Bounded input: what is not a regular file is never opened, archives are unpacked only to their
limits (real bombs, built here small), and a value is cut before it can take the memory."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import shutil
import socket
import struct
import subprocess
import sys
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest

from workbench.errors import InputError, NoRecordsError, ReaderError
from workbench.readers import read_file_report, read_sources

DATA = Path(__file__).resolve().parent / "data" / "readers"
GiB = 1 << 30
CHUNK = bytes(1 << 24)  # 16 MB of NULs


def _deflated_nuls(size: int) -> bytes:
    """A raw deflate stream of ``size`` NULs (a multiple of 16 MB) in about size / 1000 bytes:
    the same fully flushed block again and again, then an empty last block."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = packer.compress(CHUNK) + packer.flush(zlib.Z_FULL_FLUSH)
    return block * (size // len(CHUNK)) + b"\x03\x00"


def _zip_bomb(path: Path, size: int = GiB, declared: int | None = None) -> Path:
    """A zip with ``export.ris`` and ``refs.csv``: ``size`` NULs, its header saying ``declared``
    bytes (default: the truth), written by hand (zipfile would deflate a gigabyte to make it)."""
    good = (DATA / "export.ris").read_bytes()
    crc = 0
    for _ in range(size // len(CHUNK)):
        crc = zlib.crc32(CHUNK, crc)
    members = [(b"export.ris", 0, zlib.crc32(good), good, len(good)),
               (b"refs.csv", 8, crc, _deflated_nuls(size), size if declared is None else declared)]
    out, central = io.BytesIO(), io.BytesIO()
    for name, method, crc, data, usize in members:
        offset = out.tell()
        out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc, len(data), usize,
                              len(name), 0) + name + data)
        central.write(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, crc, len(data), usize,
                                  len(name), 0, 0, 0, 0, 0, offset) + name)
    directory = central.getvalue()
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 2, 2, len(directory), out.tell(), 0)
    path.write_bytes(out.getvalue() + directory + end)
    return path


def _measured(code: str, *args: str, env: dict | None = None) -> dict:
    """What ``code`` prints as JSON, with the peak memory (MB) and CPU seconds of its process."""
    # VmHWM, not ru_maxrss: Linux carries the forking process's high-water mark over an exec into
    # ru_maxrss, so a child of a large pytest worker would report the worker's size.
    wrapper = ("import json, resource, sys\n" + code + "\n"
               "use = resource.getrusage(resource.RUSAGE_SELF)\n"
               "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
               "peak = hwm[0] / 1024 if hwm else use.ru_maxrss / 1024\n"
               "print(json.dumps(dict(result, peak_mb=peak, cpu=use.ru_utime + use.ru_stime)))")
    done = subprocess.run([sys.executable, "-c", wrapper, *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


READ = ("from workbench.readers import read_sources\n"
        "papers, report = read_sources([sys.argv[1]])\n"
        "result = dict(papers=len(papers), lines=report.lines(limit=None))")


# ----------------------------------------------------------------------------- not regular files


@pytest.mark.timeout(60)
def test_a_named_pipe_is_never_opened(tmp_path):
    shutil.copy(DATA / "export.ris", tmp_path / "export.ris")
    os.mkfifo(tmp_path / "pipe.ris")  # opening it to read would wait for a writer: forever
    (tmp_path / "to-pipe.csv").symlink_to("pipe.ris")
    papers, report = read_sources([tmp_path])
    assert len(papers) == 4
    assert {Path(f.path).name: f.error for f in report.files if f.error} == {
        "pipe.ris": "not a regular file but a named pipe (FIFO); not opened",
        "to-pipe.csv": "not a regular file but a named pipe (FIFO); not opened",
    }
    with pytest.raises(ReaderError, match="pipe.ris: not a regular file but a named pipe \\(FIFO\\); not opened"):
        read_sources([tmp_path / "pipe.ris"])
    with pytest.raises(ReaderError, match="not a regular file but a named pipe"):
        read_file_report(tmp_path / "to-pipe.csv")


@pytest.mark.timeout(60)
def test_sockets_and_devices_are_not_regular_files(tmp_path):
    shutil.copy(DATA / "export.ris", tmp_path / "export.ris")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "talk.ris"))
    try:
        (tmp_path / "zero.csv").symlink_to("/dev/zero")
        _, report = read_sources([tmp_path], follow_links=True)
        assert {Path(f.path).name: f.error for f in report.files if f.error} == {
            "talk.ris": "not a regular file but a socket; not opened",
            "zero.csv": "not a regular file but a character device; not opened",
        }
    finally:
        server.close()
    with pytest.raises(ReaderError, match="/dev/zero: not a regular file but a character device"):
        read_sources(["/dev/zero"])


# ----------------------------------------------------------------------------- archives


def test_a_1_mb_zip_with_a_1_gb_member_is_refused_at_once(tmp_path):
    bomb = _zip_bomb(tmp_path / "bomb.zip")
    assert bomb.stat().st_size < 1.1e6
    got = _measured(READ, str(bomb))
    assert got["papers"] == 4
    assert f"{bomb}!refs.csv: not read: too large (over 512 MB decompressed); unpack it and read its parts, or " \
           "raise the limit with WORKBENCH_MAX_MEMBER_MB=<megabytes>" in got["lines"]
    assert got["peak_mb"] < 400 and got["cpu"] < 30, got


def test_a_zip_whose_header_hides_a_1_gb_member_unpacks_no_more_than_it_says(tmp_path):
    bomb = _zip_bomb(tmp_path / "liar.zip", declared=1000)
    got = _measured(READ, str(bomb))
    assert got["papers"] == 4 and got["peak_mb"] < 400 and got["cpu"] < 30, got
    assert any(line.startswith(f"{bomb}!refs.csv: not read: cannot be unpacked (Bad CRC-32")
               for line in got["lines"]), got["lines"]


def test_a_gzip_bomb_is_unpacked_only_to_the_limit(tmp_path):
    """1 GB of NULs in 1 MB, as gzip members one after the other: nothing says how large it is
    but unpacking it, which stops at 512 MB, in seconds, its memory under a gigabyte."""
    bomb = tmp_path / "refs.csv.gz"
    bomb.write_bytes(gzip.compress(CHUNK, 9) * (GiB // len(CHUNK)))
    assert bomb.stat().st_size < 1.1e6
    got = _measured(READ.replace("papers, report = ", "try:\n    papers, report = ").replace(
        "\nresult", "\nexcept Exception as err:\n    papers, report = [], err.report\nresult"), str(bomb))
    assert got["lines"] == [f"{bomb}!refs.csv: not read: too large (over 512 MB decompressed); unpack it and read "
                            "its parts, or raise the limit with WORKBENCH_MAX_MEMBER_MB=<megabytes>"]
    assert got["peak_mb"] < 1000 and got["cpu"] < 60, got


@pytest.mark.parametrize("pack", [bz2.compress, lzma.compress], ids=["bz2", "xz"])
def test_bz2_and_xz_bombs_stop_at_the_limit(tmp_path, monkeypatch, pack):
    monkeypatch.setenv("WORKBENCH_MAX_MEMBER_MB", "20")
    bomb = tmp_path / "refs.ris.pack"
    bomb.write_bytes(pack(CHUNK) * 4)  # 64 MB of NULs, streams one after the other
    with pytest.raises(NoRecordsError) as err:
        read_sources([bomb])
    assert err.value.report.files[0].error == ("too large (over 20 MB decompressed); unpack it and read its parts, "
                                               "or raise the limit with WORKBENCH_MAX_MEMBER_MB=<megabytes>")


def test_an_archive_stops_where_it_has_unpacked_its_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_MAX_ARCHIVE_MB", "2")
    padded = (DATA / "labels.csv").read_bytes() + b"\n" * 900_000
    refs = tmp_path / "refs.zip"
    with zipfile.ZipFile(refs, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("a.csv", "b.csv", "c.csv", "d.csv"):
            archive.writestr(name, padded)
    papers, report = read_sources([refs])
    assert [(Path(f.path).name, f.read) for f in report.files] == [
        ("refs.zip!a.csv", 6), ("refs.zip!b.csv", 6), ("refs.zip", 0)]
    assert report.files[-1].error == (f"its files unpack to more than 2 MB: those from {refs}!c.csv on are not read; "
                                      "unpack it and read its files, or raise the limit with "
                                      "WORKBENCH_MAX_ARCHIVE_MB=<megabytes>")


def test_a_tar_gz_member_too_large_is_passed_and_the_next_read(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_MAX_MEMBER_MB", "1")
    bundle = tmp_path / "bundle.tar.gz"
    with tarfile.open(bundle, "w:gz") as archive:
        for name, data in (("big.csv", bytes(3_000_000)), ("export.ris", (DATA / "export.ris").read_bytes())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    papers, report = read_sources([bundle])
    assert len(papers) == 4
    assert report.files[0].error.startswith("too large (over 1 MB decompressed)")


def test_archives_inside_archives_are_opened_three_deep(tmp_path):
    data = (DATA / "export.ris").read_bytes()
    for level in range(4):
        data = gzip.compress(data)
    deep = tmp_path / "deep.ris.gz"
    deep.write_bytes(data)
    with pytest.raises(NoRecordsError) as err:
        read_sources([deep])
    assert err.value.report.files[0].error == "an archive 3 levels deep; unpack it and read its files"


def test_a_zip_listing_too_many_files_is_not_opened(tmp_path):
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(100_001):
            archive.writestr(f"f{i}.txt", b"")
    with pytest.raises(NoRecordsError) as err:
        read_sources([many])
    assert err.value.report.files[0].error == ("it lists 100,001 files, more than 100,000: not opened; unpack it and "
                                               "read its folders")


def test_a_member_of_nuls_is_not_called_empty(tmp_path):
    nuls = tmp_path / "nuls.zip"
    with zipfile.ZipFile(nuls, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("refs.csv", bytes(3 * (1 << 20)))
        archive.writestr("empty.csv", b"")
    with pytest.raises(NoRecordsError) as err:
        read_sources([nuls])
    errors = [f.error for f in err.value.report.files]
    assert errors[0].startswith("the file holds nothing but NUL bytes (3 MB): it was never written, or it is damaged")
    assert errors[1].startswith("the file is empty;")


# ----------------------------------------------------------------------------- files and values


def test_a_file_over_the_limit_is_not_read(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_MAX_FILE_MB", "1")
    big = tmp_path / "big.csv"
    big.write_bytes((DATA / "labels.csv").read_bytes() + b"\n" * (1 << 21))
    shutil.copy(DATA / "export.ris", tmp_path / "export.ris")
    _, report = read_sources([tmp_path])
    assert report.files[0].error == ("too large (over 1 MB); split it into smaller exports, or raise the limit with "
                                     "WORKBENCH_MAX_FILE_MB=<megabytes>")
    with pytest.raises(ReaderError, match="big.csv: too large"):
        read_sources([big])


@pytest.mark.parametrize("value", ["lots", "0", "-5", "1.5"])
def test_a_limit_that_is_not_a_whole_number_is_one_clear_error(tmp_path, monkeypatch, value):
    monkeypatch.setenv("WORKBENCH_MAX_MEMBER_MB", value)
    with pytest.raises(InputError, match=f"WORKBENCH_MAX_MEMBER_MB='{value}' should be a whole number of at least 1"):
        read_sources([DATA / "export.ris"])


_LONG = "word " * 1200  # 6,000 characters
_FORMATS = {
    "table.csv": f'title,abstract\nLong one,"{_LONG}"\nShort one,A short abstract.\n',
    "refs.ris": f"TY  - JOUR\nTI  - Long one\nAB  - {_LONG}\nER  - \n",
    "refs.bib": f"@article{{a,\n  title = {{Long one}},\n  abstract = {{{_LONG}}}\n}}\n",
    "refs.json": json.dumps([{"title": "Long one", "abstract": _LONG}]),
    "refs.xml": (f"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>Long one"
                 f"</ArticleTitle><Abstract><AbstractText>{_LONG}</AbstractText></Abstract></Article>"
                 "</MedlineCitation></PubmedArticle></PubmedArticleSet>\n"),
    "refs.nbib": f"PMID- 1\nTI  - Long one\nAB  - {_LONG}\n\n",
    "seeds.txt": f"A collection\n\n{_LONG}\n",
}


@pytest.mark.parametrize("name", sorted(_FORMATS))
def test_a_value_longer_than_a_record_keeps_is_cut_with_a_warning(tmp_path, monkeypatch, name):
    monkeypatch.setenv("WORKBENCH_MAX_FIELD_CHARS", "1000")
    path = tmp_path / name
    path.write_text(_FORMATS[name], encoding="utf-8")
    papers, report = read_file_report(path)
    assert max(len(p.abstract) for p in papers) <= 1000 and papers[0].abstract.startswith("word word")
    assert any(w.startswith(f"{path}:") and "characters, more than a value may hold: the record keeps its first "
               "1,000 (WORKBENCH_MAX_FIELD_CHARS sets the limit)" in w for w in report.warnings), report.warnings


def test_a_long_value_in_a_table_leaves_every_later_line_number_true(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_MAX_FIELD_CHARS", "100")
    lines = "\n".join(f"line {i} of a long abstract" for i in range(40))
    table = tmp_path / "table.csv"
    table.write_text(f'title,abstract\nFirst,"{lines}"\n'
                     'Second,"A ""quoted"" abstract"\n'
                     "Third,too,many,values\n"
                     f"Fourth,{'x' * 500}\n"
                     "Fifth,The last abstract.\n", encoding="utf-8")
    papers, report = read_file_report(table)
    assert [(p.title, p.source.rsplit(":", 1)[1], len(p.abstract)) for p in papers] == [
        ("First", "2", 100), ("Second", "42", 19), ("Fourth", "44", 100), ("Fifth", "45", 18)]
    assert papers[1].abstract == 'A "quoted" abstract'
    assert report.skipped == [f"{table}:43: 4 values where the header has 2 columns (an unquoted ',' inside a "
                              "value?); quote that value and read again"]
    cut = [w for w in report.warnings if "more than a value may hold" in w]
    assert [w.split(": ")[0] for w in cut] == [f"{table}:2", f"{table}:44"]


def test_a_huge_abstract_is_cut_before_the_csv_module_holds_it(tmp_path):
    """A CSV of two papers, one with a 100 MB abstract: read in a fraction of the memory the csv
    module alone would take for the value (four bytes a character)."""
    table = tmp_path / "huge.csv"
    with open(table, "w", encoding="utf-8") as f:
        f.write('title,abstract\nThe huge one,"')
        for _ in range(100):
            f.write("lorem ipsum dolor sit amet " * 37_037)
        f.write('"\nSmall,A small abstract.\n')
    got = _measured("from workbench.readers import read_file_report\n"
                    "papers, report = read_file_report(sys.argv[1])\n"
                    "result = dict(lengths=[len(p.abstract) for p in papers], warnings=report.warnings)", str(table))
    assert got["lengths"] == [1_000_000, 17]
    assert got["warnings"][0].startswith(f"{table}:2: a value has 99,999,900 characters, more than a value may hold")
    assert got["peak_mb"] < 600, got  # the file's bytes, its text, one line: ~400 MB; the csv module: +400


def test_a_workbook_whose_sheets_unpack_past_the_limit_is_refused(tmp_path, monkeypatch):
    import pandas as pd

    book = tmp_path / "sheet.xlsx"  # openpyxl names [Content_Types].xml last: still a workbook, not a zip
    pd.DataFrame({"title": [f"Paper {i} " + "a" * 1000 for i in range(2000)], "abstract": "x"}).to_excel(book, index=False)
    assert len(read_sources([book])[0]) == 2000
    monkeypatch.setenv("WORKBENCH_MAX_MEMBER_MB", "1")
    with pytest.raises(ReaderError, match=r"sheet.xlsx: too large: its sheets unpack to \d+ MB, over 1 MB"):
        read_sources([book])


def test_json_nested_deeper_than_any_export_is_a_line_not_a_crash(tmp_path):
    deep = "[" * 50_000 + "]" * 50_000
    lines = tmp_path / "refs.jsonl"
    lines.write_text('{"title": "Kept", "abstract": "A record."}\n{"title": "x", "a": %s}\n' % deep, encoding="utf-8")
    papers, report = read_file_report(lines)
    assert [p.title for p in papers] == ["Kept"]
    assert report.skipped == [f"{lines}:2: not a JSON record (nested hundreds of levels deep, as no export is); "
                              "expected one object per line"]
    one = tmp_path / "one.json"  # the decoder takes it, or not (it depends on the stack): either way one line
    one.write_text('{"title": ' + "[" * 950 + '"x"' + "]" * 950 + "}", encoding="utf-8")
    try:
        said = read_file_report(one)[1].skipped
    except ReaderError as err:
        said = [str(err)]
    assert len(said) == 1 and "nested hundreds of levels deep, as no export is" in said[0], said
    whole = tmp_path / "whole.json"
    whole.write_text(deep, encoding="utf-8")
    with pytest.raises(ReaderError, match="whole.json:1: not valid JSON \\(nested hundreds of levels deep"):
        read_file_report(whole)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["refs.ris", "refs.bib"])
def test_a_record_with_a_hundred_thousand_authors_reads_in_seconds(tmp_path, name):
    """Each name once, in order: a set, not a scan of the names kept (100,000 of them: minutes)."""
    names = [f"Author{i}, A." for i in range(100_000)] + ["Author7, A."]
    path = tmp_path / name
    path.write_text("TY  - JOUR\nTI  - Many hands\n" + "".join(f"AU  - {n}\n" for n in names) + "ER  - \n"
                    if name == "refs.ris" else
                    "@article{k, title={Many hands}, author={" + " and ".join(names) + "}}\n", encoding="utf-8")
    papers, _ = read_file_report(path)  # (~5 s; the scan took ~4 minutes: the timeout above stops it)
    assert len(papers[0].authors) == 100_000 and papers[0].authors[-1] == "Author99999, A."


def test_bibtex_macros_that_double_spell_no_more_than_a_value_and_the_file_hold(tmp_path, monkeypatch):
    """@string macros of macros double at each step: forty spell terabytes from a 1 KB file."""
    monkeypatch.setenv("WORKBENCH_MAX_FIELD_CHARS", "1000")
    doubling = tmp_path / "doubling.bib"
    doubling.write_text('@string{s0 = "xxxxxxxxxx"}\n' + "".join(f"@string{{s{i} = s{i - 1} # s{i - 1}}}\n"
                                                                  for i in range(1, 41))
                        + "@article{k, title = s40, abstract = {Kept as written.}}\n", encoding="utf-8")
    papers, report = read_file_report(doubling)
    assert [p.abstract for p in papers] == ["Kept as written."]  # (its title: what was left of the budget)
    budget = "spells more text than the file's macros may add to it (as much as the file holds): it keeps its first "
    assert report.warnings[0].startswith(f"{doubling}:8: @string 's7' {budget}")
    assert report.warnings[1:] == [f"{doubling}:9: @string 's8' {budget}0 characters; check the file's @string "
                                   "definitions (macros that repeat one another?)"]  # (the later ones: empty)
    many = tmp_path / "many.bib"  # each value within the limit, all of them many times the file
    many.write_text('@string{big = "' + "y" * 900 + '"}\n'
                    + "".join(f"@article{{k{i}, title = big # big, abstract = {{Paper {i}.}}}}\n" for i in range(2000)),
                    encoding="utf-8")
    papers, report = read_file_report(many)
    assert len(papers) == 2000 and sum(len(p.title) for p in papers) <= many.stat().st_size + 1000 + 2000 * 20
    assert report.warnings[0] == (f"{many}:2: the title spells more than 1,000 characters, more than a value may "
                                  "hold (WORKBENCH_MAX_FIELD_CHARS sets the limit): it keeps its first 1,000 "
                                  "characters; check the file's @string definitions (macros that repeat one another?)")
    assert budget in report.warnings[-1]


_ARTICLE = ("<PubmedArticle><MedlineCitation><PMID>{pmid}</PMID><Article><ArticleTitle>{title}</ArticleTitle>"
            "<Abstract><AbstractText>{text}</AbstractText></Abstract></Article></MedlineCitation></PubmedArticle>")


def test_xml_that_declares_entities_is_refused_before_they_spell_anything(tmp_path):
    """An entity of 290 characters named 100,000 times spells 100 times the file, within expat's
    own limit (a 5 MB file took 1.2 GB); one naming a file on the machine must never read it."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret", encoding="utf-8")
    quadratic = tmp_path / "quadratic.xml"
    quadratic.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [<!ENTITY e "{"x" * 290}">]>\n'
                         "<PubmedArticleSet>" + _ARTICLE.format(pmid=1, title="T", text="&e;" * 100_000)
                         + "</PubmedArticleSet>\n", encoding="utf-8")
    external = tmp_path / "external.xml"
    external.write_text(f'<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [<!ENTITY s SYSTEM "{secret.as_uri()}">]>\n'
                        "<PubmedArticleSet>" + _ARTICLE.format(pmid=2, title="Read &s;", text="An abstract.")
                        + "</PubmedArticleSet>\n", encoding="utf-8")
    for path, name in ((quadratic, "e"), (external, "s")):
        with pytest.raises(ReaderError) as info:
            read_file_report(path)
        assert str(info.value) == (f"{path}: the XML declares entities or refers to other files (<!ENTITY {name} ...>), "
                                   "as no export does; nothing is read from it, for an entity can make a small file "
                                   "huge or name a file on this machine: export it again (expected a PubMed "
                                   "<PubmedArticleSet>)")
    public = tmp_path / "public.xml"  # the DOCTYPE PubMed writes names its DTD: read as ever, nothing fetched
    public.write_text('<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st '
                      'January 2019//EN" "http://127.0.0.1:9/pubmed_190101.dtd">\n<PubmedArticleSet>'
                      + _ARTICLE.format(pmid=3, title="Kept", text="An abstract &amp; more.")
                      + "</PubmedArticleSet>\n", encoding="utf-8")
    assert [(p.title, p.abstract) for p in read_file_report(public)[0]] == [("Kept", "An abstract & more.")]

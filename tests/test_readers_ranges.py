"""A large CSV split range by range, in the processes that make its papers, reads exactly as
one split of the whole file: the same papers, lines, skips and warnings."""

import csv
import io

import pytest

from workbench.readers import csv_ranges, filebytes, pool, read_file_report
from workbench.readers.csv_ranges import NotRows, line_ranges, range_rows
from workbench.readers.fields import ReadContext
from workbench.readers.report import FileReport
from workbench.readers.tables import read_csv_bytes

from test_readers_pool import write_table


def read(monkeypatch, path, workers: str, ranges: bool):
    monkeypatch.setenv("WORKBENCH_WORKERS", workers)
    monkeypatch.setattr(pool, "MIN_ITEMS", 50)
    monkeypatch.setattr(csv_ranges, "MIN_CHARS", 1 if ranges else 10**12)
    papers, report = read_file_report(path)
    return [p.to_dict() for p in papers], report.line(), report.skipped, report.warnings


def with_lines(path, extra_rows: list[str]) -> None:
    """``path`` with rows added every 50 rows, as written (not through the csv module)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    out = lines[:1]
    for i, line in enumerate(lines[1:]):
        out.append(line)
        if i % 50 == 10:
            out.append(extra_rows[i // 50 % len(extra_rows)])
    path.write_text("".join(out), encoding="utf-8")


MULTI_LINE = [
    'A title over lines,"First line of the abstract,\nsecond line with ""quotes"" in it,\n\nand a last one.",'
    '10.1000/multi,2001,1,"Roe, A."\n',
    '"Title ""quoted""\nover two lines","An abstract with a comma, a quote "" and\na line end.",,1999,0,\n',
    '\n',  # a blank line between rows
]


@pytest.mark.parametrize("workers", ["1", "2", "3"])
def test_ranges_read_as_the_whole_file_with_values_over_lines(tmp_path, monkeypatch, workers):
    path = tmp_path / "records.csv"
    write_table(path, 900)
    with_lines(path, MULTI_LINE)
    whole = read(monkeypatch, path, "1", ranges=False)
    assert read(monkeypatch, path, workers, ranges=True) == whole
    assert len(whole[0]) > 800 and whole[2] and whole[3]  # records, skips and warnings all compared
    assert any("second line" in p["abstract"] for p in whole[0])


@pytest.mark.parametrize("rows", [
    ['A 5" screen,An abstract about a 5 inch screen with an odd quote in an unquoted value.,,2001,0,\n'],
    ['Trailing,An abstract in a row that ends with a delimiter too many and nothing after it.,,2001,0,,\n'],
], ids=["quote inside an unquoted value", "trailing delimiter"])
def test_where_ranges_cannot_be_trusted_the_whole_file_is_split(tmp_path, monkeypatch, rows):
    path = tmp_path / "records.csv"
    write_table(path, 900)
    with_lines(path, rows + MULTI_LINE)
    whole = read(monkeypatch, path, "1", ranges=False)
    assert read(monkeypatch, path, "2", ranges=True) == whole


def test_a_quote_that_never_closes_is_reported_as_in_one_split(tmp_path, monkeypatch):
    path = tmp_path / "records.csv"
    write_table(path, 900)
    with open(path, "a", encoding="utf-8") as f:
        f.write('Open,"An abstract whose quote never closes\nand swallows the rest,,2001,0,\n' * 3)
    whole = read(monkeypatch, path, "1", ranges=False)
    assert read(monkeypatch, path, "2", ranges=True) == whole
    assert any("never closes" in s for s in whole[2])


def test_ranges_start_where_rows_start():
    rows = [[f"title {i}", f"line one\nline two {i}, with \"quotes\"" if i % 3 else f"plain {i}"] for i in range(300)]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    text = buffer.getvalue()
    ranges = line_ranges(text, 0, 1, csv.QUOTE_MINIMAL, 16)
    assert len(ranges) > 8 and ranges[0][0] == 0 and ranges[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    ctx = ReadContext(name="t.csv", collection="t", report=FileReport(path="t.csv", format="csv"))
    split = [row for r in ranges for row in range_rows(text, *r, ",", csv.QUOTE_MINIMAL, 2, ctx)]
    assert [values for _, values in split] == rows
    assert [line for line, _ in split] == [1 + sum(1 + ("\n" in r[1]) for r in rows[:i]) for i in range(300)]


def test_a_range_that_starts_inside_a_value_is_not_taken_for_rows():
    text = 'a,"one\ntwo"\nb,c\n'
    ctx = ReadContext(name="t.csv", collection="t", report=FileReport(path="t.csv", format="csv"))
    with pytest.raises(NotRows):
        range_rows(text, 0, len("a,\"one\n"), 1, ",", csv.QUOTE_MINIMAL, 2, ctx)
    assert range_rows(text, 0, len(text), 1, ",", csv.QUOTE_MINIMAL, 2, ctx) == [(1, ["a", "one\ntwo"]), (3, ["b", "c"])]


def _crlf(raw: bytes) -> bytes:
    return raw.replace(b"\n", b"\r\n")


def _bom(raw: bytes) -> bytes:  # Excel's
    return b"\xef\xbb\xbf" + raw


def _nul(raw: bytes) -> bytes:  # which the decoder drops
    return raw.replace(b"study", b"st\x00udy", 50)


def _cp1252(raw: bytes) -> bytes:  # not UTF-8: decoded whole, its encoding guessed
    return raw.decode("utf-8").encode("cp1252", "replace")


def _lone_cr(raw: bytes) -> bytes:  # a few old Mac line ends
    return raw.replace(b"\n", b"\r", 40)


def _sep_line(raw: bytes) -> bytes:  # Excel's delimiter line
    return b"sep=,\n" + raw


def _late_cr(raw: bytes) -> bytes:  # past the first lines: a range finds it
    return raw[:-20000] + raw[-20000:].replace(b"\n", b"\r", 3)


def _late_latin1(raw: bytes) -> bytes:  # one byte that is not UTF-8, past the first lines
    return raw[:-20000] + raw[-20000:].replace(b"study", b"\xe9tude", 1)


@pytest.mark.parametrize("change", [_crlf, _bom, _nul, _cp1252, _lone_cr, _sep_line, _late_cr, _late_latin1])
def test_ranges_of_bytes_read_as_the_decoded_file(tmp_path, monkeypatch, change):
    """Each range decoded where it is split gives what decoding the whole file gives, and a
    file that is not plain UTF-8 (or has line ends only the whole file's lines count right) is
    decoded whole."""
    path = tmp_path / "records.csv"
    write_table(path, 900)
    with_lines(path, MULTI_LINE)
    path.write_bytes(change(path.read_bytes()))
    whole = read(monkeypatch, path, "1", ranges=False)
    from_bytes = []
    monkeypatch.setattr(filebytes, "read_csv_bytes", lambda raw, head, ctx: from_bytes.append(read_csv_bytes(raw, head, ctx))
                        or from_bytes[-1])
    assert read(monkeypatch, path, "2", ranges=True) == whole
    assert len(whole[0]) > 800
    assert (bool(from_bytes) and from_bytes[0] is not None) == (change.__name__ in ("_crlf", "_bom", "_nul"))

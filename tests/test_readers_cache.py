"""The record cache: an unchanged file is not read again, and a changed one is never served stale."""

import csv

import pytest

from workbench.readers import cache as record_cache
from workbench.readers import read_sources


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract", "doi", "year"])
        writer.writerows(rows)
    return path


def rows(n, start=0, doi=True):
    return [(f"Paper {i} on reward models", f"We study reward model {i} for alignment of language models, "
             f"with {i} annotators and a benchmark of {i * 3} tasks. Results vary.",
             f"10.1000/p{i}" if doi else "", 2000 + i % 20) for i in range(start, start + n)]


def read(sources, folder):
    papers, report = read_sources(sources, cache=folder)
    return [p.to_dict() for p in papers], report


@pytest.fixture
def source(tmp_path):
    return write_csv(tmp_path / "refs.csv", rows(40))


def test_an_unchanged_file_is_reused_and_gives_the_same_papers_and_report(tmp_path, source):
    first, report = read([source], tmp_path / "cache")
    assert report.reused == [] and not report.deduplication_reused
    again, report2 = read([source], tmp_path / "cache")
    assert report2.reused == [str(source)] and report2.deduplication_reused
    assert again == first and report2.lines() == report.lines()
    uncached, report3 = read_sources([source])
    assert [p.to_dict() for p in uncached] == first and report3.lines() == report.lines()


def test_a_changed_file_is_read_again(tmp_path, source):
    read([source], tmp_path / "cache")
    write_csv(source, rows(39) + [("A new last paper", "Something else entirely, with new words in it.", "", 2024)])
    papers, report = read([source], tmp_path / "cache")
    assert report.reused == [] and not report.deduplication_reused
    assert papers[-1]["title"] == "A new last paper" and len(papers) == 40


def test_other_options_or_versions_are_never_served_from_the_cache(tmp_path, source, monkeypatch):
    folder = tmp_path / "cache"
    read([source], folder)
    _, report = read_sources([source], cache=folder, format="csv")  # another reading option
    assert report.reused == []
    _, report = read_sources([source], cache=folder, format="csv")
    assert report.reused == [str(source)]
    monkeypatch.setattr(record_cache, "READER_VERSION", record_cache.READER_VERSION + 1)
    _, report = read_sources([source], cache=folder, format="csv")
    assert report.reused == []
    monkeypatch.setattr(record_cache, "__version__", "9.9.9")
    _, report = read_sources([source], cache=folder, format="csv")
    assert report.reused == []


def test_the_same_bytes_under_another_name_are_read_under_that_name(tmp_path, source):
    read([source], tmp_path / "cache")
    copy = tmp_path / "copy.csv"
    copy.write_bytes(source.read_bytes())
    papers, report = read([copy], tmp_path / "cache")
    assert report.reused == [] and papers[0]["source"].startswith(str(copy))


def test_a_file_added_is_read_and_deduplicated_with_the_reused_ones(tmp_path, source):
    folder = tmp_path / "sources"
    folder.mkdir()
    first = write_csv(folder / "a.csv", rows(40))
    read([folder], tmp_path / "cache")
    write_csv(folder / "b.csv", rows(5, start=38) + rows(3, start=100))  # two duplicates of a.csv, six new
    papers, report = read([folder], tmp_path / "cache")
    assert report.reused == [str(first)] and not report.deduplication_reused
    assert len(papers) == 46 and report.merged == 2
    assert [p.to_dict() for p in read_sources([folder])[0]] == papers


def test_a_damaged_entry_is_read_again_and_only_the_last_reads_entries_are_kept(tmp_path, source):
    folder = tmp_path / "cache"
    first, _ = read([source], folder)
    for entry in folder.iterdir():
        entry.write_text(entry.read_text()[:100])
    again, report = read([source], folder)
    assert again == first and report.reused == []
    write_csv(source, rows(12))
    read([source], folder)
    assert len(list(folder.glob("file-*"))) == 1 and len(list(folder.glob("duplicates-*"))) == 1


def test_text_in_any_script_comes_back_as_it_was_and_a_short_row_is_read_again(tmp_path):
    import json

    source = write_csv(tmp_path / "scripts.csv", [
        ("Über Größe — naïve Bayes", "Wir untersuchen Größe und Maß — „Anführungszeichen“, ﬁ-Ligaturen. " * 3, "", 2021),
        ("大型语言模型的对齐", "我们研究大型语言模型与人类偏好的对齐。🙂 表情符号与 ‘quotes’。" * 3, "", 2022),
        ("Ελληνικά και русский", "Μελετάμε τα μοντέλα. Мы изучаем модели вознаграждения. " * 3, "", 2023),
    ])
    folder = tmp_path / "cache"
    first, _ = read([source], folder)
    again, report = read([source], folder)
    assert report.reused == [str(source)] and again == first
    assert [p.to_dict() for p in read_sources([source])[0]] == first
    (entry,) = folder.glob("file-*")
    lines = entry.read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps(json.loads(lines[1])[1:])  # valid JSON, a field short
    entry.write_text("\n".join(lines) + "\n", encoding="utf-8")
    third, report = read([source], folder)
    assert report.reused == [] and third == first

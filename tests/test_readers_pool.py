"""Making records in a pool of processes gives exactly what one process gives."""

import csv

import pytest

from workbench.dedupe.rules import PaperKeys
from workbench.readers import pool, read_file_report, read_sources
from workbench.readers.filebytes import read_bytes_report

SEEDS_TEXT = [
    "We propose TRACE, a benchmark for continual learning in large language models. It has eight tasks.",
    r"This paper studies $\alpha$-divergences and R$^2$ scores for \textbf{reward models} in RLHF.",
    "Les modèles de langue — une étude: nous présentons Größe-Messungen für 大型语言模型 and π^± decays.",
    "To address these challenges, we introduce a method that improves 75% of cases -- by far the most.",
]


def write_table(path, n: int) -> None:
    """``n`` rows mixing every case the reader handles row by row: missing titles (derived), LaTeX,
    any script, bad labels and DOIs (warnings), a row with an extra value (skipped), empty rows."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract", "doi", "year", "label_included", "authors"])
        for i in range(n):
            text = f"{SEEDS_TEXT[i % 4]} Variant {i} of the study, with sample {i * 7} and arm {i % 13}."
            if i % 2:  # long enough that a worker sends its place in the row instead of the text
                text += " It goes on to describe the cohort, the measures and the analysis at length." * 3
            title = "" if i % 3 else f"Study {i}: {SEEDS_TEXT[i % 4][:30]}"
            doi = "not-a-doi" if i % 50 == 7 else (f"10.1000/x{i % 40}" if i % 5 == 0 else "")
            label = "perhaps" if i % 40 == 3 else ("1" if i % 9 == 0 else "0")
            row = [title, text, doi, str(1990 + i % 30) if i % 11 else "someday", label, f"Smith, J.; Doe {i}"]
            if i % 97 == 5:
                row.append("an unquoted comma value")
            if i % 83 == 2:
                row = ["", "", "", "", "", ""]
            writer.writerow(row)


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "records.csv"
    write_table(path, 600)
    return path


def read_with(monkeypatch, path, workers: str, min_items: int = 50):
    monkeypatch.setenv("WORKBENCH_WORKERS", workers)
    monkeypatch.setattr(pool, "MIN_ITEMS", min_items)
    papers, report = read_file_report(path)
    return [p.to_dict() for p in papers], report.line(), report.skipped, report.warnings


def test_the_pool_and_one_process_make_the_same_records_and_report(monkeypatch, table):
    alone = read_with(monkeypatch, table, "1")
    pooled = read_with(monkeypatch, table, "2")
    assert pooled == alone
    assert len(alone[0]) > 500 and alone[2] and alone[3]  # records, skips and warnings all compared


def test_read_sources_merges_the_same_duplicates_either_way(monkeypatch, table):
    monkeypatch.setattr(pool, "MIN_ITEMS", 50)
    results = []
    for workers in ("1", "3"):
        monkeypatch.setenv("WORKBENCH_WORKERS", workers)
        papers, report = read_sources([table])
        results.append(([p.to_dict() for p in papers], report.lines()))
    assert results[0] == results[1]
    assert any("same DOI" in line for line in results[0][1])


def test_records_come_with_the_deduplication_keys_they_were_made_with(monkeypatch, table):
    monkeypatch.setenv("WORKBENCH_WORKERS", "2")
    monkeypatch.setattr(pool, "MIN_ITEMS", 50)
    of = PaperKeys.of.__func__

    def made_with_the_paper(cls, paper, text=None, *args):
        assert text is not None, "worked out again, not made with the paper"
        return of(cls, paper, text, *args)

    monkeypatch.setattr(PaperKeys, "of", classmethod(made_with_the_paper))  # (before the workers fork)
    keys = []
    papers, _ = read_bytes_report(table.read_bytes(), str(table), keys=keys)
    monkeypatch.undo()
    assert len(papers) == len(keys) > 100
    assert keys == [PaperKeys.of(paper) for paper in papers]


def test_workers_follow_the_setting(monkeypatch):
    monkeypatch.setenv("WORKBENCH_WORKERS", "3")
    assert pool.workers() == 3
    monkeypatch.setenv("WORKBENCH_WORKERS", "not a number")
    assert pool.workers() >= 1


def test_large_inputs_are_made_in_a_worker_process_and_this_one_in_order(tmp_path, monkeypatch):
    import os
    import time

    from workbench.readers.fields import ReadContext
    from workbench.readers.report import FileReport
    from workbench.corpus.paper import Paper

    def make(ctx, i):
        time.sleep(0.001)  # long enough for the worker to start before this process made every chunk
        if i % 10 == 9:
            ctx.skip("every tenth is skipped", i)
            return None
        return Paper(id=str(i), title=f"t{i}", abstract="", text="", collection=str(os.getpid()))

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    rebuilt, written = pool._rebuilt, []
    monkeypatch.setattr(pool, "_scratch", lambda: str(scratch))
    monkeypatch.setattr(pool, "_rebuilt", lambda rows, *rest: written.append(len(rows)) or rebuilt(rows, *rest))
    ctx = ReadContext("made.csv", "made", FileReport("made.csv", "csv"))
    papers = pool.make_papers(ctx, list(range(1000)), make, processes=2, min_items=100)
    assert [p.id for p in papers] == [str(i) for i in range(1000) if i % 10 != 9]
    assert len(written) > 1 and list(scratch.iterdir()) == []  # a worker's chunks, read from their files, which are gone
    made_by = {p.collection for p in papers}
    assert len(made_by) == 2 and str(os.getpid()) in made_by  # a worker and this process, side by side
    ctx.finish()
    assert len(ctx.report.skipped) == 100 and ctx.report.skipped[0].startswith("made.csv:9:")
    alone = pool.make_papers(ReadContext("made.csv", "made", FileReport("made.csv", "csv")), list(range(1000)), make,
                             processes=2)  # fewer than MIN_ITEMS: made here
    assert {p.collection for p in alone} == {str(os.getpid())}


def _read_in_a_daemon(path, min_items, out) -> None:
    pool.MIN_ITEMS = min_items  # forked: this process's copy only
    try:
        papers, _ = read_file_report(path)
        out.put((pool.workers(), len(papers)))
    except Exception as err:  # noqa: BLE001 - the test shows it
        out.put((None, repr(err)))


def test_a_daemonic_process_reads_large_files_without_a_pool(table, monkeypatch):
    """A Dask worker is a daemonic process, which may not start children: it reads in itself."""
    import multiprocessing

    monkeypatch.setenv("WORKBENCH_WORKERS", "")
    expected, _ = read_file_report(table)
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_read_in_a_daemon, args=(table, 50, out), daemon=True)
    child.start()
    got = out.get(timeout=120)
    child.join(30)
    assert got == (1, len(expected))


def test_a_worker_that_cannot_write_its_papers_leaves_them_to_this_process(tmp_path, monkeypatch, caplog):
    """A full disk under a worker's chunk files: the papers are made here, with a warning."""
    import pickle
    import time

    from workbench.readers.fields import ReadContext
    from workbench.readers.report import FileReport
    from workbench.corpus.paper import Paper

    def full(*args, **kwargs):  # (only the workers write)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pool, "_scratch", lambda: str(tmp_path))
    monkeypatch.setattr(pickle, "dump", full)
    def make(ctx, i):
        time.sleep(0.001)  # long enough for the worker to start before this process made every chunk
        return Paper(id=str(i), title=f"t{i}", abstract="", text="")

    ctx = ReadContext("made.csv", "made", FileReport("made.csv", "csv"))
    with caplog.at_level("WARNING"):
        papers = pool.make_papers(ctx, list(range(1000)), make, processes=2, min_items=100)
    assert [p.id for p in papers] == [str(i) for i in range(1000)]
    assert "No space left on device" in caplog.text and list(tmp_path.iterdir()) == []


class Refused(Exception):
    pass


def _made(ctx, chunk):
    import time

    from workbench.corpus.paper import Paper

    start, end, refuse, folder = chunk
    if refuse:
        raise Refused(f"chunk from {start}")
    time.sleep(0.05 if folder else 0.005)
    if folder:
        (folder / str(start)).touch()
    return [Paper(id=str(i), title=f"t{i}", abstract="", text="") for i in range(start, end)]


@pytest.mark.parametrize("refused_by", ["this process", "a worker"])
def test_an_error_in_a_chunk_stops_every_process_and_leaves_the_next_pool_whole(refused_by, tmp_path):
    """The error is raised here; the other processes make no more chunks (this process begins
    with the last, so the worker makes one or two at most), and none is left running to mark
    its claims in the shared memory the next pool's chunks are claimed in."""
    from workbench.readers.fields import ReadContext
    from workbench.readers.report import FileReport

    ctx = ReadContext("made.csv", "made", FileReport("made.csv", "csv"))
    refused = 14 if refused_by == "this process" else 0  # (this process makes the last chunk first)
    try:  # (not pytest.raises: its traceback would keep the pool's shared array alive)
        pool.make_chunks(ctx, [(i * 10, i * 10 + 10, i == refused, tmp_path) for i in range(16)], _made, processes=2)
    except Refused:
        pass
    else:
        pytest.fail("the chunk's error was not raised")
    if refused_by == "this process":
        assert len(list(tmp_path.iterdir())) < 8
    for _ in range(3):
        papers = pool.make_chunks(ctx, [(i * 10, i * 10 + 10, False, None) for i in range(16)], _made, processes=2)
        assert [p.id for p in papers] == [str(i) for i in range(160)]
    assert ctx.n_skipped == ctx.n_warnings == 0

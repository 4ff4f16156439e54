"""Rebuilds reuse what did not change (and say so), and never serve anything stale."""

import shutil
from pathlib import Path

import pytest

import workbench
from workbench.review.build import _reuse

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ("papers.jsonl", "topics.json", "map.csv", "arrays.safetensors")


def outputs(review) -> dict:
    folder = review.path / "generations" / review.generation
    return {name: (folder / name).read_bytes() for name in OUTPUTS}


@pytest.fixture
def sources(tmp_path):
    dest = tmp_path / "seeds"
    shutil.copytree(ROOT / "seeds", dest)
    return dest


def build(sources, path, **params):
    return workbench.build([sources], review=path, embedder="fake", progress=False, **params)


def test_an_unchanged_rebuild_reuses_everything_says_so_and_writes_the_same_files(tmp_path, sources):
    first = build(sources, tmp_path / "r")
    assert first.build_report.reused == ()
    assert "reused nothing" in first.build_report.reuse_line()
    again = build(sources, tmp_path / "r")
    reused = again.build_report.reused
    assert reused == ("records of 2 files", "deduplication", "133 embeddings", "topics", "map")
    assert "topics, map" in again.build_report.reuse_line()
    assert outputs(again) == outputs(first)
    fresh = build(sources, tmp_path / "elsewhere")
    assert outputs(fresh) == outputs(first)
    assert again.model.reduce_to(3).topic_info_.equals(first.model.reduce_to(3).topic_info_)


def test_a_changed_parameter_or_seed_refits_what_depends_on_it(tmp_path, sources):
    build(sources, tmp_path / "r")
    other = build(sources, tmp_path / "r", min_cluster_size=4)
    assert "topics" not in other.build_report.reused and "map" in other.build_report.reused
    assert outputs(other) == outputs(build(sources, tmp_path / "fresh", min_cluster_size=4))
    seeded = build(sources, tmp_path / "r", seed=7)
    assert "topics" not in seeded.build_report.reused and "map" not in seeded.build_report.reused
    assert outputs(seeded) == outputs(build(sources, tmp_path / "fresh7", seed=7))


def test_a_changed_file_is_read_again_and_the_topics_refitted(tmp_path, sources):
    build(sources, tmp_path / "r")
    changed = sorted(sources.glob("*.txt"))[0]
    changed.write_text(changed.read_text(encoding="utf-8").replace("language", "lingual", 3), encoding="utf-8")
    again = build(sources, tmp_path / "r")
    assert again.build_report.reused[0] == "records of 1 file"
    assert "deduplication" not in again.build_report.reused and "topics" not in again.build_report.reused
    assert outputs(again) == outputs(build(sources, tmp_path / "fresh"))


def test_another_workbench_version_reuses_no_topics_or_map(tmp_path, sources, monkeypatch):
    build(sources, tmp_path / "r")
    monkeypatch.setattr(_reuse, "__version__", "99.0")  # (what the topics' and map's keys hold)
    again = build(sources, tmp_path / "r")
    assert "topics" not in again.build_report.reused and "map" not in again.build_report.reused


def test_damaged_cached_topics_and_map_are_computed_again(tmp_path, sources):
    first = build(sources, tmp_path / "r")
    for entry in (tmp_path / "r" / "cache" / "topics").iterdir():
        (entry / "results.json").write_text("{", encoding="utf-8")
    for entry in (tmp_path / "r" / "cache" / "map").iterdir():
        entry.write_bytes(b"not safetensors")
    again = build(sources, tmp_path / "r")
    assert "topics" not in again.build_report.reused and "map" not in again.build_report.reused
    assert outputs(again) == outputs(first)


def test_map_html_is_written_again_only_when_what_it_shows_changed(tmp_path, sources):
    first = build(sources, tmp_path / "r")
    page = tmp_path / "r" / "map.html"
    written = page.stat().st_mtime_ns
    build(sources, tmp_path / "r")
    assert page.stat().st_mtime_ns == written
    with first.store(reviewer="ana") as store:
        store.topics.rename(0, "A name a person gave")
    build(sources, tmp_path / "r")
    assert page.stat().st_mtime_ns != written and "A name a person gave" in page.read_text(encoding="utf-8")


def corpus(review) -> list[tuple]:
    """The store's papers: every stored column, in the corpus or not."""
    import sqlite3

    conn = sqlite3.connect(f"file:{review.path / 'annotations.sqlite'}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT * FROM papers ORDER BY id").fetchall()
    finally:
        conn.close()


def test_an_unchanged_rebuild_leaves_the_stores_papers_as_they_are_without_reading_them(tmp_path, sources):
    first = build(sources, tmp_path / "r")
    assert not first.last_save.sync_report.unchanged
    stored = corpus(first)
    again = build(sources, tmp_path / "r")
    assert again.last_save.sync_report.unchanged and again.last_save.sync_report.n_papers == len(again)
    assert corpus(again) == stored


def test_a_paper_merged_by_a_person_and_taken_back_is_synced_again_each_time(tmp_path, sources):
    """A "same paper" verdict changes the build's papers (and key): the next build syncs them;
    undone, the one after syncs them again; the next is unchanged."""
    first = build(sources, tmp_path / "r")
    a, b = first.papers[0].id, first.papers[1].id
    with first.store(reviewer="ana") as store:
        store.duplicates.settle(a, b, "same")
    merged = build(sources, tmp_path / "r")
    assert not merged.last_save.sync_report.unchanged and b not in {p.id for p in merged.papers}
    in_corpus = {row[0]: row[-1] for row in corpus(merged)}
    assert in_corpus[b] == 0 and in_corpus[a] == 1
    with first.store(reviewer="ana") as store:
        store.undo()
    back = build(sources, tmp_path / "r")
    assert not back.last_save.sync_report.unchanged and b in {p.id for p in back.papers}
    assert {row[0]: row[-1] for row in corpus(back)}[b] == 1  # (the undo put it back; the sync agrees)
    assert build(sources, tmp_path / "r").last_save.sync_report.unchanged

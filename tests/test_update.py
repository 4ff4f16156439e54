"""Updating a screened review with a new search: no decision lost, nothing screened back in the
queue, the old papers' map and topics unchanged, the new papers placed, duplicates merged into the
papers they duplicate, and everything saved at once or not at all."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.cli import main
from workbench.errors import ReviewError
from workbench.store import Store, Tags

from conftest import seed_abstracts, write_seed_file

PROVENANCE = {"b.txt": {"database": "PubMed", "query": "alignment[tiab]", "searched_on": "2024-05-01"}}


@pytest.fixture(scope="module")
def screened(tmp_path_factory):
    """A review built from seed abstracts 0-79 and screened in part; b.txt holds 70-132 (ten
    of them already in the review)."""
    folder = tmp_path_factory.mktemp("update")
    abstracts = seed_abstracts()
    a = write_seed_file(folder / "a.txt", abstracts[:80])
    write_seed_file(folder / "b.txt", abstracts[70:])
    review = workbench.build([a], review=folder / "r", embedder="fake", seed=42, progress=False)
    ids = [p.id for p in review.papers]
    with Store.open(review.path, reviewer="ana") as store:
        store.decisions.decide(ids[:20], "exclude")
        store.decisions.decide(ids[20:25], "include")
        store.decisions.decide(ids[72:76], "include")  # four of the ten the new search finds again
        store.tags.add(ids[75], "keep-me")
        store.notes.add(ids[74], "read the full text")
        store.topics.rename(0, "my topic name")
    return folder


@pytest.fixture
def copy(screened, tmp_path):
    dest = tmp_path / "case"
    shutil.copytree(screened, dest)
    return dest


def annotations(path: Path) -> dict:
    with Store.open(path) as store:
        return {pid: (e["decision"], sorted(e["tags"]), e["notes"]) for pid, e in store.summary().items()}


def test_update_keeps_decisions_map_and_topics(copy):
    before = workbench.open_review(copy / "r")
    kept = annotations(before.path)
    after = workbench.update([copy / "b.txt"], before, PROVENANCE, today="2024-06-01")
    report = after.update_report
    assert len(report.new) == 53 and len(report.duplicates) == 10
    assert len(after.papers) == 133 and [p.id for p in after.papers[:80]] == [p.id for p in before.papers]
    reopened = workbench.open_review(copy / "r")
    assert np.array_equal(reopened.coords[:80], before.coords)  # old positions unchanged
    assert np.array_equal(reopened.model_labels[:80], before.model_labels)
    assert np.array_equal(reopened.labels[:80], before.labels)  # topic edits laid over as before
    assert reopened.topic_labels()[0] == "my topic name"
    assert set(reopened.model_labels[80:]) <= set(before.model_labels)  # no topic invented
    topic_report = report.save.topic_report
    assert not topic_report.new and not topic_report.gone
    now = annotations(copy / "r")
    assert all(now[pid] == value for pid, value in kept.items())  # every decision, tag and note
    # The new papers are tagged and queued; no screened paper is among them
    new = reopened.updates.new_papers(unscreened=True)
    assert set(new) == set(report.new) and len(new) == 53
    assert not set(new) & set(kept)
    assert reopened.updates.new_papers(since="2024-06-02") == []


def test_an_update_keeps_what_a_new_kernel_makes_from_every_text(copy, monkeypatch):
    """The updated papers' text starts and embeddings in their order are kept by the update,
    under the new papers file's digest: a new kernel's first map or search reads no text."""
    from workbench.corpus.texts import TextsInFile, shorten
    from workbench.review import Review

    after = workbench.update([copy / "b.txt"], workbench.open_review(copy / "r"), PROVENANCE, today="2024-06-01")
    expected = [shorten(p.text) for p in after.papers_with_texts()]
    vectors = np.asarray(after.embeddings())
    monkeypatch.setattr(TextsInFile, "__iter__", lambda self: pytest.fail("every text read"))
    monkeypatch.setattr(Review, "texts", lambda self: pytest.fail("every text made"))
    opened = workbench.open_review(copy / "r")
    assert len(opened) == 133 and opened.text_starts() == expected
    assert np.array_equal(opened.embeddings(), vectors)


def test_new_papers_sit_near_their_neighbours(copy):
    before = workbench.open_review(copy / "r")
    after = workbench.update([copy / "b.txt"], before)
    X = after.embeddings()
    lo, hi = before.coords.min(axis=0), before.coords.max(axis=0)
    for i in range(80, len(after.papers)):
        assert np.all(after.coords[i] >= lo - 1e-9) and np.all(after.coords[i] <= hi + 1e-9)
        sims = X[:80] @ X[i] / (np.linalg.norm(X[:80], axis=1) * np.linalg.norm(X[i]))
        nearest = int(np.argmax(sims))
        # the placed point is closer to its most similar old paper than the map's mean spread
        spread = np.linalg.norm(before.coords - before.coords.mean(axis=0), axis=1).mean()
        assert np.linalg.norm(after.coords[i] - before.coords[nearest]) < 2 * spread


def test_duplicates_join_the_paper_they_duplicate(copy):
    before = workbench.open_review(copy / "r")
    after = workbench.update([copy / "b.txt"], before, PROVENANCE)
    report = after.update_report
    tagged = before.papers[75]
    found = [d for d in report.duplicates if d.paper == tagged.id]
    assert len(found) == 1 and found[0].record.startswith(str(copy / "b.txt"))
    merged = after.paper(tagged.id)
    assert any(s.startswith(str(copy / "b.txt")) for s in merged.sources)
    assert any(Path(s.rpartition(":")[0]).name == "a.txt" for s in merged.sources)  # built from
    (source,) = report.sources
    assert (source.name, source.query, source.searched_on) == ("PubMed", "alignment[tiab]", "2024-05-01")
    assert source.identified == 63 and source.merged == 10
    with Store.open(copy / "r") as store:
        assert sorted(Path(s.path).name for s in store.sources.recorded()) == ["a.txt", "b.txt"]
        assert store.tags.of(tagged.id) == ["keep-me"]
    assert any("PubMed" in line for line in report.lines())


def test_a_failed_update_leaves_the_review_as_it_was(copy, monkeypatch):
    before = workbench.open_review(copy / "r")
    kept = annotations(before.path)

    def broken(self, *args):
        raise OSError("disk full")

    monkeypatch.setattr(Tags, "add", broken)
    with pytest.raises(ReviewError, match="nothing was saved"):
        workbench.update([copy / "b.txt"], before)
    monkeypatch.undo()
    again = workbench.open_review(copy / "r")
    assert again.generation == before.generation and len(again.papers) == 80
    assert annotations(copy / "r") == kept and again.updates.new_papers() == []
    with Store.open(copy / "r") as store:
        assert [Path(s.path).name for s in store.sources.recorded()] == ["a.txt"]


def test_a_rebuild_after_an_update_keeps_every_decision(copy):
    before = workbench.open_review(copy / "r")
    updated = workbench.update([copy / "b.txt"], before)
    kept = annotations(copy / "r")
    rebuilt = workbench.build([copy / "a.txt", copy / "b.txt"], review=copy / "r", embedder="fake", seed=42,
                              progress=False)
    assert annotations(copy / "r") == kept  # decisions, tags (new-since too) and notes
    assert sorted(p.id for p in rebuilt.papers) == sorted(p.id for p in updated.papers)
    assert rebuilt.build_report.topics.run == 3  # matched to the update's run, so it says what moved


def test_cli_update_and_new_queue(copy, capsys):
    assert main(["update", str(copy / "b.txt"), "--review", str(copy / "r"), "--database", "PubMed",
                 "--searched", "2024-05-01"]) == 0
    err = capsys.readouterr().err
    assert "53 new papers" in err and "database 'PubMed'" in err
    assert main(["update", "--new", "--unscreened", "--review", str(copy / "r"), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1 + 53
    assert main(["update", "--review", str(copy / "r")]) == 1
    assert "no sources given" in capsys.readouterr().err

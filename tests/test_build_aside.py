"""A large build's papers set aside in a file while the topics are found: the same review."""

from pathlib import Path

import numpy as np

import workbench
from workbench.review.build import _aside

ROOT = Path(__file__).resolve().parents[1]


def _files(review) -> dict:
    folder = review.path / "generations" / review.generation
    return {name: (folder / name).read_bytes() for name in ("papers.jsonl", "topics.json", "map.csv")}


def test_papers_set_aside_give_the_review_of_papers_held_whole(tmp_path, monkeypatch):
    whole = workbench.build([ROOT / "seeds"], review=tmp_path / "whole", embedder="fake", seed=3, progress=False)
    monkeypatch.setattr(_aside, "MIN_PAPERS", 1)
    (tmp_path / "aside" / "cache").mkdir(parents=True)
    (tmp_path / "aside" / "cache" / ".papers-left-by-a-stopped-build.jsonl").write_text("{}\n")
    aside = workbench.build([ROOT / "seeds"], review=tmp_path / "aside", embedder="fake", seed=3, progress=False)
    assert [p.id for p in aside.papers] == [p.id for p in whole.papers]
    assert aside.papers == whole.papers and np.array_equal(aside.labels, whole.labels)
    assert aside.paper(aside.papers[7].id).abstract == whole.paper(whole.papers[7].id).abstract
    assert _files(aside) == _files(whole)
    assert not list((tmp_path / "aside" / "cache").glob(".papers-*")), "the file set aside is removed"
    reopened = workbench.open_review(tmp_path / "aside")
    assert [p.abstract for p in reopened.papers_with_texts()] == [p.abstract for p in whole.papers_with_texts()]

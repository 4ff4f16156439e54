"""The topic table: each topic's most typical papers beside its label, after the human edits too."""

import csv
import re

import numpy as np
import pytest

import workbench
from workbench.widgets import Session
from workbench.widgets._common import topic_bars

# Papers more and less typical of their group (no ties in how near its centre they are).
ROBOTS = [
    "Robot arms grasp cups with suction grippers and cameras.",
    "Robot arms grasp boxes with suction grippers.",
    "Robot arms grasp bottles with suction grippers and cameras in warehouses at night.",
    "Robot arms grasp tools.",
    "Robot arms grasp fruit with suction grippers and cameras, trained in simulation with randomised scenes.",
    "Robots pick cables using cameras.",
]
SPEECH = [
    "Speech in Greek is translated into text by an encoder and a decoder.",
    "Speech in Hindi is translated into text by an encoder.",
    "Spoken Korean is transcribed, then translated into text by large decoder models.",
    "Speech translated into text.",
    "Speech in Welsh is translated into text by an encoder and a decoder trained on radio archives.",
    "Swahili broadcasts become subtitles.",
]


def _build(folder):
    src = folder / "papers.csv"
    with open(src, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract"])
        writer.writerows((f"Paper {i}", text) for i, text in enumerate(ROBOTS + SPEECH))
    return workbench.build([src], review=folder / "review", embedder="fake", progress=False)


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("topic_table"))


def _nearest_the_mean(X, rows, n):
    """The rows nearest (cosine) the mean direction of X[rows], computed here from scratch."""
    X = np.asarray(X, dtype=np.float64)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    centre = unit[rows].mean(axis=0)
    similarity = unit[rows] @ centre / np.linalg.norm(centre)
    return [rows[i] for i in sorted(range(len(rows)), key=lambda i: (-similarity[i], rows[i]))[:n]]


def test_each_topic_s_representatives_are_its_papers_nearest_its_centre(review):
    X, ids = review.embeddings(), review.ids
    found = review.representatives(2)
    topics = sorted(set(review.labels.tolist()) - {-1})
    assert len(topics) >= 2 and sorted(t for t in found if t != -1) == topics
    for topic in topics:
        rows = [int(r) for r in np.flatnonzero(review.labels == topic)]
        assert found[topic] == [ids[r] for r in _nearest_the_mean(X, rows, 2)]


def test_the_topic_table_shows_two_typical_titles_and_follows_a_merge(review):
    assert list(review.topics_frame().columns) == ["topic", "label", "size", "words"]
    frame = review.topics_frame(representatives=2)
    for row in frame.itertuples():
        expected = [review.paper(pid).title for pid in review.representatives(2).get(row.topic, [])]
        assert row.representative == expected and len(expected) == min(2, row.size)
    with Session.open(review.path, reviewer="tester") as session:
        topics = sorted(t for t in set(session.review.labels.tolist()) if t >= 0)
        together = int(np.isin(session.review.labels, topics[:2]).sum())
        kept = session.topics.merge(topics[:2])
        merged = session.review.topics_frame(representatives=2).set_index("topic")
        rows = [int(r) for r in np.flatnonzero(session.review.labels == kept)]
        expected = [session.review.ids[r] for r in _nearest_the_mean(session.review.embeddings(), rows, 2)]
        assert merged.representative[kept] == [session.review.paper(pid).title for pid in expected]
        assert len(rows) == together and merged["size"][kept] == together


def test_the_explore_topic_table_has_a_column_of_typical_papers(review):
    frame = review.topics_frame(representatives=2)
    html = topic_bars(frame)
    assert re.findall(r"<th[^>]*>([^<]*)</th>", html) == ["topic", "label", "size", "", "typical papers", "top words"]
    for row in frame.itertuples():
        cell = re.search(rf"<tr><td>{row.topic}</td>.*?<td class='wb-meta wb-typical'>(.*?)</td>", html).group(1)
        assert re.findall(r"<div>(.*?)</div>", cell) == row.representative
    assert "typical" not in topic_bars(review.topics_frame()), "no column without the titles"


def test_typical_papers_are_remembered_for_the_topics_they_were_found_for(tmp_path, monkeypatch):
    """Opened again (another kernel), the review shows each topic's typical papers without
    loading its embeddings; after an edit that moves papers they are found again, for the new topics."""
    from workbench.review import _typical

    review = _build(tmp_path)
    assert (review.path / _typical.MEMO).exists()  # found by the build, which had the embeddings
    first = review.representatives(2)
    assert len(first) >= 2 and all(first[t] for t in first if t >= 0)
    again = workbench.open_review(review.path)
    with monkeypatch.context() as patched:
        patched.setattr(type(again), "embeddings", lambda self: pytest.fail("the embeddings were loaded"))
        assert again.representatives(2) == first
        assert again.topics_frame(representatives=2).representative.tolist() == \
            [[again.paper(pid).title for pid in first[t]] for t in again.topics.topic]
    assert again.representatives(3) != first  # another n: found, not taken from n=2
    with Session.open(review.path, reviewer="tester") as session:
        topics = sorted(t for t in set(session.review.labels.tolist()) if t >= 0)
        session.topics.merge(topics[:2])
        rows = [int(r) for r in np.flatnonzero(session.review.labels == topics[0])] or \
            [int(r) for r in np.flatnonzero(session.review.labels == topics[1])]
        kept = int(session.review.labels[rows[0]])
        expected = [session.review.ids[r] for r in _nearest_the_mean(session.review.embeddings(), rows, 2)]
        assert session.review.representatives(2)[kept] == expected
        session.undo()  # back to the first topics: remembered, the same as before
        assert session.review.representatives(2) == first
    for entry in (review.path / _typical.MEMO).iterdir():
        entry.write_text("{not json", encoding="utf-8")  # damaged: found again
    assert workbench.open_review(review.path).representatives(2) == first

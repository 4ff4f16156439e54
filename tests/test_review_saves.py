"""Saving a review is all or nothing: a failure (or kill -9) between any two writes of a build,
a refit or "Show themes" leaves the previous review whole, and the message says what was saved.
Every topic action works on reviews built with every embedder."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.review import _folder as folder
from workbench.errors import ReviewError, StoreError
from workbench.store import Files, Store

from conftest import ROOT


def state(path: Path) -> dict:
    """What a fresh reader sees: the files' generation and contents, and the store's topics."""
    review = workbench.open_review(path)
    with Store.open(path) as store:
        assignments, labels = store.topics.current()
        runs = len([h for h in store.history(limit=None) if h.action == "record-topics"])
        assert store.files.integrity_check() == "ok"
    return {
        "generation": review.generation,
        "files": {p.relative_to(review.files).as_posix(): p.read_bytes()
                  for p in sorted(review.files.rglob("*")) if p.is_file()},
        "labels": review.labels.tolist(),
        "topics": review.topics_frame().to_json(),
        "store_assignments": [assignments.get(p.id) for p in review.papers],
        "runs": runs,
    }


@pytest.fixture(scope="module")
def built_once(tmp_path_factory):
    review = workbench.build([ROOT / "seeds"], review=tmp_path_factory.mktemp("once") / "r", embedder="fake", seed=42)
    with Store.open(review.path, reviewer="ana") as store:
        store.tags.add(review.papers[0].id, "keep-me")
        store.topics.rename(0, "my name")
    return review.path


@pytest.fixture
def seeds_review(built_once, tmp_path):
    """A private copy of a built, annotated review (copied while no store is open)."""
    import shutil

    return Path(shutil.copytree(built_once, tmp_path / "r"))


ACTIONS = {
    "show themes": lambda path: workbench.show_themes(workbench.open_review(path), 3, save=True),
    "default topics": lambda path: workbench.show_themes(workbench.open_review(path), None, save=True),
    "refit": lambda path: workbench.refit(workbench.open_review(path), min_cluster_size=15, save=True),
    "rebuild": lambda path: workbench.build([ROOT / "seeds"], review=path, embedder="fake", seed=7),
}


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("step", range(len(folder.WRITE_STEPS) + 2))
def test_a_failure_between_any_two_writes_leaves_the_previous_review(seeds_review, monkeypatch, action, step):
    before = state(seeds_review)
    steps = list(folder.WRITE_STEPS)

    def fail(*args):
        raise OSError(28, "No space left on device")

    if step < len(steps):  # while writing the new generation's files
        steps[step] = fail
        monkeypatch.setattr(folder, "WRITE_STEPS", tuple(steps))
    elif step == len(steps):  # moving the finished folder into place
        monkeypatch.setattr(folder, "install", fail)
    else:  # inside the store transaction, after the topics were recorded
        monkeypatch.setattr(Files, "set_generation", lambda self, name, run=None: fail())
    with pytest.raises((ReviewError, StoreError, OSError)) as err:
        ACTIONS[action](seeds_review)
    assert "nothing was saved" in str(err.value) or isinstance(err.value, OSError)
    monkeypatch.undo()
    assert state(seeds_review) == before
    leftovers = [p.name for p in (seeds_review / "generations").iterdir() if p.name != before["generation"]]
    assert leftovers == [], "a failed save leaves no half-made generation behind"
    with Store.open(seeds_review) as store:
        assert store.tags.of(workbench.open_review(seeds_review).papers[0].id) == ["keep-me"]


@pytest.mark.parametrize("action", ["show themes", "rebuild"])
def test_a_failure_after_the_switch_says_everything_was_saved(seeds_review, monkeypatch, action):
    before = state(seeds_review)

    def fail(*args):
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(folder, "publish_map", fail)
    result = ACTIONS[action](seeds_review)
    monkeypatch.undo()
    after = state(seeds_review)
    assert after["generation"] != before["generation"] and after["runs"] == before["runs"] + 1
    report = result.last_save
    if report is not None:
        assert report.warnings and "was saved, but map.html failed" in report.warnings[0]


def test_a_save_in_memory_only_changes_the_review_once_it_is_saved(seeds_review, monkeypatch):
    review = workbench.open_review(seeds_review)
    labels = review.labels.copy()
    monkeypatch.setattr(Files, "set_generation", lambda self, name, run=None: (_ for _ in ()).throw(OSError("boom")))
    with pytest.raises(ReviewError, match="nothing was saved"):
        review = workbench.show_themes(review, 3, save=True)
    np.testing.assert_array_equal(review.labels, labels)


SAVER = r"""
import sys, workbench
path = sys.argv[1]
k = 2
while True:
    workbench.show_themes(workbench.open_review(path), k, save=True)
    print("saved", k, flush=True)
    k = 2 + (k - 1) % 5
"""


@pytest.mark.long
def test_kill_9_during_saves_leaves_a_whole_review_every_time(seeds_review):
    rng = np.random.default_rng(0)
    saved = 0
    for round_ in range(5):
        proc = subprocess.Popen([sys.executable, "-c", SAVER, str(seeds_review)], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        first = proc.stdout.readline()  # its first save done (imports take a while on a busy machine)
        assert first.startswith("saved"), f"the saver stopped before saving: {first!r}"
        time.sleep(float(rng.uniform(0.0, 2.5)))  # then kill it somewhere in a later save
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        saved += 1 + out.count("saved")
        now = state(seeds_review)  # opens, integrity ok, the files complete
        assert len(now["labels"]) == 133
        assert now["store_assignments"] == now["labels"], "the store's topic run is the files' run"
        review = workbench.open_review(seeds_review)
        manifest = json.loads((review.files / "build.json").read_text())
        assert manifest["topics"]["count"] == int((review.model_topics.topic >= 0).sum())
    assert saved >= 5


EMBEDDERS = [
    pytest.param("fake"),
    pytest.param("tfidf"),
    pytest.param("static", marks=pytest.mark.slow),
    pytest.param("minilm", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("embedder", EMBEDDERS)
def test_every_topic_action_works_on_every_embedder(tmp_path, embedder):
    from workbench.widgets import Session

    built = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder=embedder, seed=42)
    dims = built.embeddings().shape[1]
    with Session.open(tmp_path / "r", reviewer="ana") as session:
        assert session.topics.show_themes(3) == 3
        assert session.topics.show_themes(None) >= 3
        workbench.refit(session.review, min_cluster_size=10)
        sub = session.review.recluster(session.ids[:40])
        assert len(sub) == 40 and sub.subtopic_label.str.len().min() > 0
        hits = session.review.search("reward models for agents")
        assert len(hits.semantic) == 10 and all(-1.0 <= s <= 1.0001 for _, s in hits.semantic)
        assert session.review.neighbours(session.ids[0], k=3)[0][0] != session.ids[0]
        frame = session.topics.stability(seeds=(1,))
        assert frame.stability.between(0, 1).all()
    reopened = workbench.open_review(tmp_path / "r")
    assert reopened.embeddings().shape[1] == dims


def test_a_topic_edit_on_topics_saved_anew_elsewhere_is_refused_until_reload(seeds_review):
    from workbench.errors import InputError
    from workbench.widgets import Session

    with Session.open(seeds_review, reviewer="ana") as session:
        shown = session.topic_label(0)
        code = "import sys, workbench; workbench.show_themes(workbench.open_review(sys.argv[1]), 3, save=True)"
        subprocess.run([sys.executable, "-c", code, str(seeds_review)], check=True, capture_output=True, timeout=300)
        with pytest.raises(InputError, match="reload"):
            session.topics.rename(0, "renamed on stale topics")
        assert session.topic_label(0) == shown, "this view's topics are not mixed with the new run"
        assert "3 topics" in session.reload()
        session.topics.rename(0, "renamed after reload")
        assert session.topic_label(0) == "renamed after reload"
    assert workbench.open_review(seeds_review).topic_labels()[0] == "renamed after reload"

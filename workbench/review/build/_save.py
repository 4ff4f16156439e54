"""Saving a review, all or nothing: a build, an update or a saved topic run.

:func:`save` writes the new files into a generation folder beside the current one, then one store
transaction syncs the corpus, records the topics and names the new generation (see
:mod:`workbench.review._folder`); it returns the saved review, a new :class:`Review`.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from .. import _folder as files
from ..._runtime.fsutil import atomic_write_text
from ..._version import __version__
from ...corpus.paper import DECISIONS
from ...errors import ReviewError, WorkbenchError
from ...readers.cache import code_digest
from ...store import LABELS_REVIEWER, Store
from ...topics import TopicModel
from .._review import Review
from .._text import keep_for_new_kernels
from ._reuse import digest

__all__ = ["BuildReport", "SaveReport", "save"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SaveReport:
    """What a build or a saved topic run changed: the store's reports and the files' generation."""

    generation: str
    sync_report: object = None  # workbench.store.SyncReport (builds only)
    topic_report: object = None  # workbench.store.TopicReport
    snapshot: object = None  # the store snapshot taken first (None: nothing had changed)
    warnings: tuple[str, ...] = ()  # what failed after everything was saved (a view, tidying)


@dataclass(frozen=True)
class BuildReport:
    """What :func:`build` did: what it read (per file), what it saved (see :class:`SaveReport`)
    and what it reused of earlier builds instead of computing it again (``reused``: "records of
    1 file", "deduplication", "49,876 embeddings", "topics", "map")."""

    read: object  # workbench.readers.ReadReport
    save: SaveReport
    reused: tuple[str, ...] = ()

    def reuse_line(self) -> str:
        """One line saying what was reused (or that everything was computed)."""
        if not self.reused:
            return "reused nothing from earlier builds: everything computed"
        return "reused from earlier builds (unchanged): " + ", ".join(self.reused)

    @property
    def sync(self):
        """The store's report on the corpus: new, updated, left, orphaned, carried over."""
        return self.save.sync_report

    @property
    def topics(self):
        """The store's report on the topics: matched to the previous run, new, split, merged, gone."""
        return self.save.topic_report


def save(review: Review, model: TopicModel | None, *, reason: str, sync: bool,
         reviewer: str | None = None, sources: list[dict] | None = None, then=None) -> Review:
    """Save a build (``sync``: the corpus too) or a topic run, all or nothing.

    1. the new files go into a generation folder beside the current one (nothing else changes);
    2. one store transaction syncs the corpus, records the topics (matched to the previous
       run's, human edits laid over) and names the new generation: the switch;
    3. after it, the top-level map.html and old generations are tidied (failures there are
       warnings: everything is saved by then).
    A failure in 1 or 2 leaves the review as it was, and the error says that nothing was saved.
    ``then(store)``: more changes made in the same transaction (an update tags its new papers).
    Returns the saved review: ``review`` as a new object of the new generation, with the human
    topic edits laid over its topics and its ``last_save`` (a :class:`SaveReport`).
    """
    path = review.path
    path.mkdir(parents=True, exist_ok=True)
    with Store.open(path, reviewer=reviewer) as store:
        if store.read_only:
            raise ReviewError(f"permission denied: {store.read_only}, so the {reason} cannot be saved "
                              f"in {path}; nothing was saved; ask the review's owner for write access, "
                              "or build into a folder of your own with --review DIR")
        review = review.replace(manifest={**review.manifest, "review_id": store.review_id()})  # which review these files are (see restore)
        current = files.files_dir(path, store.files.generation())
        previous = current if not sync or _same_papers(current, review.manifest) else None
        name, final = _write_generation(review, model, previous)
        try:
            snap = store.files.backup(f"before-{reason}", force=False)
            with store.transaction():
                sync_report = _sync_store(review, store, reason == "build") if sync else None
                if sources is not None:
                    store.sources.record(sources)
                topic_report, edited = _record_topics(review, store)
                if then is not None:
                    then(store)
                store.files.set_generation(name, run=None if sync else topic_report.run)
        except BaseException as err:
            files.discard(final)
            if isinstance(err, (OSError, WorkbenchError)) and "nothing" not in str(err):
                raise ReviewError(f"could not save the {reason} in {path} ({err}); nothing was saved, "
                                  "the review is as it was") from err
            raise
    saved = review.replace(generation=name, edits=edited)
    return saved.replace(last_save=SaveReport(name, sync_report, topic_report, snap, _after_switch(saved, name, reason)))


def _same_papers(files_dir: Path, manifest: dict) -> bool:
    """Whether the review's current files were built from the same papers (their papers.jsonl
    is then shared, not written again)."""
    key = manifest.get("cache_keys", {}).get("papers")
    try:
        built = json.loads((files_dir / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return key is not None and built.get("cache_keys", {}).get("papers") == key


def _write_generation(review: Review, model, previous: Path | None) -> tuple[str, Path]:
    """The review's files in a new generation folder (not yet the current one)."""
    path = review.path
    name, staging = files.stage(path)
    try:
        files.write_generation(staging, review, model, previous)
        return name, files.install(path, name, staging)
    except BaseException as err:
        files.discard(staging)
        if isinstance(err, OSError):
            raise ReviewError(f"could not write the review's new files in {path / files.GENERATIONS} "
                              f"({err}); nothing was saved, the review is as it was; free some disk "
                              "space or fix the folder's permissions and try again") from err
        raise


def _after_switch(review: Review, name: str, reason: str) -> tuple[str, ...]:
    """The top-level map.html and tidying, once everything is saved; failures are warnings."""
    warnings = []
    steps = (("map.html", lambda: _publish_map(review)),
             ("remembering each topic's typical papers", lambda: _remember_typical(review)),
             ("keeping the texts' starts and the embeddings for the next kernel", lambda: _keep_for_new_kernels(review, name)),
             ("tidying", lambda: files.tidy(review.path, name)))
    for what, step in steps:
        try:
            step()
        except Exception as err:  # everything is saved already: say what is stale
            warnings.append(f"the {reason} was saved, but {what} failed ({err}); rerun "
                            f"`workbench check --review {review.path}`")
            log.warning(warnings[-1])
    return tuple(warnings)


def _keep_for_new_kernels(review: Review, name: str) -> None:
    """What a new kernel makes from every text, kept from what this process holds, for a papers
    file this save wrote (one it shares with the previous generation, as an unchanged rebuild or
    a refit does, got its entries when it was written)."""
    papers = files.files_dir(review.path, name) / "papers.jsonl"
    if papers.stat().st_nlink == 1:
        keep_for_new_kernels(review, papers)


def _remember_typical(review: Review) -> None:
    """Each topic's typical papers for the explore view's topic table, found while the
    embeddings are in memory anyway (a build, a refit): opening the review later loads none."""
    if review.embeddings_loaded:  # (a Dask build's are on its workers: found when first shown)
        review.representatives(2)


def _publish_map(review: Review) -> None:
    """The top-level map.html, unless the one there shows the same papers, topics and map."""
    papers = review.manifest.get("cache_keys", {}).get("papers")
    key = digest(papers, review.labels.tobytes(), review.coords.tobytes(), review.topics.to_json(),
                 review.path.name, code_digest("space/htmlmap.py", "space/palette.py"), __version__)
    stamp = review.path / "cache" / "map-html.key"
    try:
        if papers is not None and files.map_is_whole(review.path) and stamp.read_text() == key:
            return
    except OSError:
        pass
    stamp.unlink(missing_ok=True)  # stale until the new map is written
    files.publish_map(review.path, review)
    if papers is not None:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(stamp, key)


def _sync_store(review: Review, store, built: bool = False):
    """Tell the annotation store which papers are in the corpus; labels in the files become
    decisions. ``built``: the papers are a build's, a function of its papers key (the sources
    read, the verdicts): the same key as the last sync, and the store has them already."""
    key = review.manifest.get("cache_keys", {}).get("papers") if built else None
    report = store.sync_papers((p.to_dict() for p in review.papers_with_texts()), key=key)
    labelled = [p for p in review.papers if p.label in DECISIONS]
    if labelled:
        with Store.open(review.path, reviewer=LABELS_REVIEWER) as source:
            for decision in DECISIONS:
                ids = [p.id for p in labelled if p.label == decision and not source.decisions.votes(p.id, all_reviewers=True)]
                if ids:
                    source.decisions.decide(ids, decision, reason="label in the source file")
    return report


def _record_topics(review: Review, store):
    """Record this run's topics (matched to the last run's); returns the report and the edited view."""
    assignments = {p.id: int(t) for p, t in zip(review.papers, review.model_labels)}
    info = review.model_topics
    labels = {int(t): str(label) for t, label in zip(info.topic, info.label)}
    words = {int(t): list(w) for t, w in zip(info.topic, info.words)}
    report = store.topics.record(assignments, labels, words)
    return report, store.topics.apply_edits(assignments, labels)

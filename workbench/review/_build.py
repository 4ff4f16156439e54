"""Building a review (read -> embed -> topics -> map) and saving it, all or nothing.

``build`` reads the sources, embeds them through the review's cache, fits the topics and the map,
and saves the folder with :func:`save`: the new files go into a generation folder beside the
current one, and one store transaction syncs the corpus, records the topics and names the new
generation (see :mod:`workbench.folder`). A saved topic run (``Review.refit(save=True)``, "Show
themes") is saved the same way.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from .. import folder as files
from .._version import __version__
from ..embed import EmbeddingCache, WordVectors, embed_with_cache, get_embedder
from ..errors import ReviewError, WorkbenchError
from ..layout import MapLayout
from ..readers import read_sources
from ..records import DECISIONS
from ..topics import TopicModel
from ._review import CACHE_FILE, Review
from ._text import document_text

__all__ = ["DEFAULT_REVIEW", "FORMAT_VERSION", "BuildReport", "SaveReport", "build", "save"]

log = logging.getLogger(__name__)

DEFAULT_REVIEW = "review"
FORMAT_VERSION = 1


def _quiet_libraries() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    logging.getLogger("BERTopic").setLevel(logging.ERROR)


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
    """What :func:`build` did: what it read (per file), and what it saved (see :class:`SaveReport`)."""

    read: object  # workbench.readers.ReadReport
    save: SaveReport

    @property
    def sync(self):
        """The store's report on the corpus: new, updated, left, orphaned, carried over."""
        return self.save.sync_report

    @property
    def topics(self):
        """The store's report on the topics: matched to the previous run, new, split, merged, gone."""
        return self.save.topic_report


def build(
    sources: Sequence[str | os.PathLike] | str = ("seeds",),
    review: str | os.PathLike = DEFAULT_REVIEW,
    embedder: str = "minilm",
    seed: int = 42,
    input_format: str | None = None,
    progress: bool = True,
    client=None,
    **topic_params,
) -> Review:
    """Read ``sources``, embed (cached), find topics, lay out the map, and write ``review``.

    ``topic_params`` go to :class:`~workbench.topics.TopicModel` (e.g. ``min_cluster_size``).
    The returned review's ``build_report`` says what was read and saved.

    ``client`` builds on Dask instead (:mod:`workbench.distributed`; ``pip install
    'workbench[dask]'``): a ``distributed.Client``, a scheduler's address, or True for a
    LocalCluster of 2 workers on this machine; ``partition_size`` and ``sample_size`` then set
    the papers per partition (5,000) and the sample topics and map are fitted on (20,000).
    """
    _quiet_libraries()
    sources = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    path = Path(review)
    if client is not None and client is not False:
        from ._build_dask import build_with_dask

        return build_with_dask(sources, path, client, embedder, seed, input_format, progress, **topic_params)
    timings: dict[str, float] = {}
    t = time.perf_counter()
    papers, report = read_sources(sources, format=input_format, exclude=[path])
    timings["read"] = time.perf_counter() - t
    path.mkdir(parents=True, exist_ok=True)
    emb = get_embedder(embedder, progress=progress)
    texts = [document_text(p) for p in papers]
    t = time.perf_counter()
    with EmbeddingCache(path / CACHE_FILE) as cache:
        X, embed_stats = embed_with_cache(texts, emb, cache, corpus=True)
    timings["embed"] = time.perf_counter() - t
    t = time.perf_counter()
    words = WordVectors(emb, path / CACHE_FILE)
    model = TopicModel(seed=seed, **topic_params).fit(texts, X, word_vectors=words)
    timings["topics"] = time.perf_counter() - t
    t = time.perf_counter()
    layout = MapLayout(seed=seed).fit(X)
    timings["map"] = time.perf_counter() - t
    manifest = _manifest(sources, report, papers, emb, X, embed_stats, seed, model, layout, timings)
    result = Review(path, manifest, papers, model.topic_info_, model.labels_, layout.coords_,
                    model.reduced_embeddings_, model.fine_labels_, embeddings=X, embedder=emb)
    result.model = model
    t = time.perf_counter()
    saved = save(result, model, reason="build", sync=True)
    manifest["timings"]["write"] = round(time.perf_counter() - t, 3)  # in memory; the file has the rest
    result.last_save = saved
    result.build_report = BuildReport(read=report, save=saved)
    return result


def _manifest(sources, report, papers, emb, X, embed_stats, seed, model, layout, timings) -> dict:
    """What goes into build.json: what was built, from what, how, and how long each stage took."""
    return {
        "format_version": FORMAT_VERSION,
        "workbench_version": __version__,
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sources": [str(s) for s in sources],
        "read_report": report.lines(),
        "n_papers": len(papers),
        "embedder": {"name": emb.name, "version": emb.version, "dims": int(X.shape[1])},
        "embed_stats": embed_stats,
        "seed": seed,
        "topic_params": {k: v for k, v in model.get_params().items() if k != "seed"},
        "topics": {"method": model.method_, "note": model.note_, "count": int((model.topic_info_.topic >= 0).sum())},
        "map": {"method": layout.method_},
        "timings": {k: round(v, 3) for k, v in timings.items()},
    }


def save(review: Review, model: TopicModel | None, *, reason: str, sync: bool,
         reviewer: str | None = None) -> SaveReport:
    """Save a build (``sync``: the corpus too) or a topic run, all or nothing.

    1. the new files go into a generation folder beside the current one (nothing else changes);
    2. one store transaction syncs the corpus, records the topics (matched to the previous
       run's, human edits laid over) and names the new generation: the switch;
    3. after it, the top-level map.html and old generations are tidied (failures there are
       warnings: everything is saved by then).
    A failure in 1 or 2 leaves the review as it was, and the error says that nothing was saved.
    """
    from ..store import Store

    path = review.path
    path.mkdir(parents=True, exist_ok=True)
    with Store.open(path, reviewer=reviewer) as store:
        if store.read_only:
            raise ReviewError(f"permission denied: {store.read_only}, so the {reason} cannot be saved "
                              f"in {path}; nothing was saved; ask the review's owner for write access, "
                              "or build into a folder of your own with --review DIR")
        previous = files.files_dir(path, store.generation()) if not sync else None
        name, final = _write_generation(review, model, previous)
        try:
            snap = store.backup(f"before-{reason}", force=False)
            with store.transaction():
                sync_report = _sync_store(review, store) if sync else None
                topic_report, edited = _record_topics(review, store)
                store.set_generation(name, run=None if sync else topic_report.run)
        except BaseException as err:
            files.discard(final)
            if isinstance(err, (OSError, WorkbenchError)) and "nothing" not in str(err):
                raise ReviewError(f"could not save the {reason} in {path} ({err}); nothing was saved, "
                                  "the review is as it was") from err
            raise
    review.generation = name
    review.apply_topic_edits(*edited)
    return SaveReport(name, sync_report, topic_report, snap, _after_switch(review, name, reason))


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
    steps = (("map.html", lambda: files.publish_map(review.path, review)),
             ("tidying", lambda: files.tidy(review.path, name)))
    for what, step in steps:
        try:
            step()
        except Exception as err:  # everything is saved already: say what is stale
            warnings.append(f"the {reason} was saved, but {what} failed ({err}); rerun "
                            f"`workbench check --review {review.path}`")
            log.warning(warnings[-1])
    return tuple(warnings)


def _sync_store(review: Review, store):
    """Tell the annotation store which papers are in the corpus; labels in the files become decisions."""
    from ..store import Store

    report = store.sync_papers(p.to_dict() for p in review.papers)
    labelled = [p for p in review.papers if p.label in DECISIONS]
    if labelled:
        with Store.open(review.path, reviewer="source-file") as source:
            for decision in DECISIONS:
                ids = [p.id for p in labelled if p.label == decision and not source.decisions(p.id)]
                if ids:
                    source.decide(ids, decision, reason="label in the source file")
    return report


def _record_topics(review: Review, store):
    """Record this run's topics (matched to the last run's); returns the report and the edited view."""
    assignments = {p.id: int(t) for p, t in zip(review.papers, review.model_labels)}
    info = review.model_topics
    labels = {int(t): str(label) for t, label in zip(info.topic, info.label)}
    words = {int(t): list(w) for t, w in zip(info.topic, info.words)}
    report = store.record_topics(assignments, labels, words)
    return report, store.apply_topic_edits(assignments, labels)

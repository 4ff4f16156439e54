"""Building a review (read -> embed -> topics -> map) and saving it, all or nothing.

``build`` reads the sources, embeds them through the review's cache, fits the topics and the map,
and saves the folder with :func:`save`: the new files go into a generation folder beside the
current one, and one store transaction syncs the corpus, records the topics and names the new
generation (see :mod:`workbench.review._folder`). A saved topic run (``Review.refit(save=True)``, "Show
themes") is saved the same way.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence

from .. import _folder as files
from ..._version import __version__
from ...dedupe.rules import absorb
from ...embed import EmbeddingCache, WordVectors, embed_with_cache, get_embedder
from ...errors import ReviewError, WorkbenchError
from ..._runtime.fsutil import atomic_write_text
from ...readers import read_sources
from ...readers.cache import code_digest
from ...corpus.paper import DECISIONS
from ...topics import TopicModel
from ...topics.results import load_results
from .. import _provenance
from ._map_beside import MapBeside
from ._words_beside import WordsBeside
from ._reuse import BuildCache, cache_keys, digest
from .._review import CACHE_FILE, STORE_FILE, Review
from .._text import document_text

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


def _checked_folder(review, provenance) -> Path:
    """The review folder to build, once it and the provenance are usable (before anything is read)."""
    if Path(review).exists() and not Path(review).is_dir():
        raise ReviewError(f"--review {str(review)!r} is a file, not a folder; name a new or existing review folder")
    _provenance.check_all(provenance)
    return Path(review)


def build(
    sources: Sequence[str | os.PathLike] | str = ("seeds",),
    review: str | os.PathLike = DEFAULT_REVIEW,
    embedder: str = "minilm",
    seed: int = 42,
    input_format: str | None = None,
    progress: bool = True,
    provenance: Mapping[str, Mapping] | None = None,
    client=None,
    follow_links: bool = False,
    **topic_params,
) -> Review:
    """Read ``sources``, embed (cached), find topics, lay out the map, and write ``review``.

    ``provenance``: where each source was searched, for PRISMA(-S), by source (path, file name
    or folder): ``{"pubmed.ris": {"database": "PubMed", "query": "...", "searched_on":
    "2024-05-01"}}`` (or ``"register": ...``); kept in the store (see ``_provenance``).
    ``topic_params`` go to :class:`~workbench.topics.TopicModel` (e.g. ``min_cluster_size``). The
    returned review's ``build_report`` says what was read and saved. ``client``: build on Dask instead.
    ``follow_links``: read what links in source folders lead to outside them (else only listed).
    """
    _quiet_libraries()
    sources = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    path = _checked_folder(review, provenance)
    if client is not None and client is not False:
        return _build_on_dask(sources, path, client, embedder, seed, input_format, progress, provenance,
                              dict(topic_params, follow_links=follow_links))
    cache, timings, t = BuildCache(path), {}, time.perf_counter()
    papers, report, merged = _read_settled(sources, input_format, path, cache, follow_links)
    source_rows = _provenance.source_rows(report, provenance)  # a provenance matching no file: an error now
    timings["read"] = time.perf_counter() - t
    path.mkdir(parents=True, exist_ok=True)
    emb = get_embedder(embedder, progress=progress)
    texts = [document_text(p) for p in papers]
    t = time.perf_counter()
    with ExitStack() as beside:
        with EmbeddingCache(path / CACHE_FILE) as embeddings:  # papers to embed: their words counted beside
            words = beside.enter_context(WordsBeside(texts, cache.folder, keep=cache.keep_terms))
            X, embed_stats = embed_with_cache(texts, emb, embeddings, corpus=True, before=words.start)
        params = TopicModel(seed=seed, **topic_params).get_params()
        keys = cache_keys(report, merged, X, texts, emb, params)
        if cache.has_topics(keys["topics"]):
            words.close()  # kept topics need no words
        else:
            words.wait()  # here, in "embed": the child's memory back before the topics' peak
        timings["embed"] = time.perf_counter() - t
        model, coords, map_method = _topics_and_map(cache, keys, params, texts, X, WordVectors(emb, path / CACHE_FILE),
                                                    words.terms, seed, timings)
    manifest = _manifest(sources, report, papers, emb, X, embed_stats, seed, model, map_method, timings)
    manifest["cache_keys"] = keys
    result = Review(path, manifest, papers, model.topic_info_, model.labels_, coords,
                    model.reduced_embeddings_, model.fine_labels_, embeddings=X, embedder=emb)
    result.model = model
    t = time.perf_counter()
    saved = save(result, model, reason="build", sync=True, sources=source_rows)
    manifest["timings"]["write"] = round(time.perf_counter() - t, 3)  # in memory; the file has the rest
    result.last_save = saved
    result.build_report = BuildReport(read=report, save=saved, reused=_reused(report, embed_stats, cache))
    return result


def _topics_and_map(cache: BuildCache, keys: dict, params: dict, texts, X, words, terms, seed: int, timings: dict):
    """The topic model and the map's (coordinates, method), each kept or computed; the map laid
    out beside the topics where that pays (:class:`MapBeside`), both UMAPs from one neighbour
    graph; ``terms``: where the labels find the words counted beside the embedding
    (:meth:`WordsBeside.terms`). Their seconds go to ``timings``."""
    t = time.perf_counter()
    with MapBeside(X, seed, start=not cache.has_layout(keys["map"])) as beside:
        model = cache.topics(keys["topics"],
                             lambda: TopicModel(**params).fit(texts, X, word_vectors=words, graph=beside.graph, terms=terms),
                             lambda entry: load_results(entry, params, texts, X, words))
        timings["topics"] = time.perf_counter() - t
        if beside.graph_seconds:
            timings["neighbours"] = beside.graph_seconds  # (part of "topics"; UMAP's own stage without it)
        t = time.perf_counter()
        coords, map_method = cache.layout(keys["map"], lambda: beside.result(model.graph_))
    timings["map"] = time.perf_counter() - t
    return model, coords, map_method


def _verdicts(path: Path) -> tuple[frozenset, dict[str, str]]:
    """What people said of duplicates in this review's store: the pairs kept apart, and the
    papers merged into others (see ``Store.settle_duplicates``)."""
    from ...store import Store

    if not (path / STORE_FILE).exists():
        return frozenset(), {}
    with Store.open(path, create=False) as store:
        return frozenset(store.apart_pairs()), store.merged_into()


def _same_papers_merged(papers: list, merged: dict[str, str]) -> list:
    """``papers`` with each one a person called the same as another absorbed into that one."""
    where = {p.id: i for i, p in enumerate(papers)}
    gone = {where[m] for m, kept in merged.items() if m in where and kept in where}
    if not gone:
        return papers
    out = list(papers)
    for m, kept in merged.items():
        if m in where and kept in where:
            out[where[kept]] = absorb(out[where[kept]], [papers[where[m]]])
    return [p for i, p in enumerate(out) if i not in gone]


def _build_on_dask(sources, path, client, embedder, seed, input_format, progress, provenance, params):
    """:func:`build` on Dask (:mod:`workbench.distributed`; ``pip install 'workbench[dask]'``):
    ``client`` a ``distributed.Client``, a scheduler's address, or True for a LocalCluster of 2
    workers on this machine; ``partition_size`` and ``sample_size`` set the papers per partition
    (5,000) and the sample that topics and map are fitted on (20,000)."""
    from ._dask import build_with_dask

    return build_with_dask(sources, path, client, embedder, seed, input_format, progress, provenance, **params)


def _read_settled(sources, input_format, path: Path, cache: BuildCache, follow_links: bool = False):
    """The sources' papers, read as :func:`_read` reads them, with the duplicate verdicts people
    gave: pairs kept apart for good, and papers said to be one merged; the report, and the
    "same paper" verdicts (``{merged id: kept id}``) applied."""
    apart, merged = _verdicts(path)
    papers, report = _read(sources, input_format, path, cache, apart, follow_links)
    return _same_papers_merged(papers, merged), report, merged


def _read(sources, input_format, path: Path, cache: BuildCache, apart: frozenset = frozenset(),
          follow_links: bool = False):
    """read_sources through the review's record cache (pairs ``apart`` never merged); when
    reading fails, no folder is left behind that only the record cache made."""
    existed = path.exists()
    try:
        return read_sources(sources, format=input_format, exclude=[path], cache=cache.folder / "records",
                            apart=apart, follow_links=follow_links)
    except WorkbenchError:
        if not existed:
            shutil.rmtree(path, ignore_errors=True)
        raise


def _reused(report, embed_stats: dict, cache: BuildCache) -> tuple[str, ...]:
    files = len(report.reused)
    reused = [f"records of {files} file{'s' if files != 1 else ''}"] if files else []
    reused += ["deduplication"] * report.deduplication_reused
    reused += [f"{embed_stats['cached']:,} embeddings"] if embed_stats.get("cached") else []
    return tuple(reused + cache.reused)


def _manifest(sources, report, papers, emb, X, embed_stats, seed, model, map_method, timings) -> dict:
    """What goes into build.json: what was built, from what, how, and how long each stage took."""
    return {
        "format_version": FORMAT_VERSION,
        "workbench_version": __version__,
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sources": [str(s) for s in sources],
        "read_report": report.lines(),
        "merged_by_rule": report.merged_by_rule(),  # every merge's rule (read_report lists the first 20)
        "n_papers": len(papers),
        "embedder": {"name": emb.name, "version": emb.version, "dims": int(X.shape[1])},
        "embed_stats": embed_stats,
        "seed": seed,
        "topic_params": {k: v for k, v in model.get_params().items() if k != "seed"},
        "topics": {"method": model.method_, "note": model.note_, "count": int((model.topic_info_.topic >= 0).sum())},
        "map": {"method": map_method},
        "timings": {k: round(v, 3) for k, v in timings.items()},
    }


def save(review: Review, model: TopicModel | None, *, reason: str, sync: bool,
         reviewer: str | None = None, sources: list[dict] | None = None, then=None) -> SaveReport:
    """Save a build (``sync``: the corpus too) or a topic run, all or nothing.

    1. the new files go into a generation folder beside the current one (nothing else changes);
    2. one store transaction syncs the corpus, records the topics (matched to the previous
       run's, human edits laid over) and names the new generation: the switch;
    3. after it, the top-level map.html and old generations are tidied (failures there are
       warnings: everything is saved by then).
    A failure in 1 or 2 leaves the review as it was, and the error says that nothing was saved.
    ``then(store)``: more changes made in the same transaction (an update tags its new papers).
    """
    from ...store import Store

    path = review.path
    path.mkdir(parents=True, exist_ok=True)
    with Store.open(path, reviewer=reviewer) as store:
        if store.read_only:
            raise ReviewError(f"permission denied: {store.read_only}, so the {reason} cannot be saved "
                              f"in {path}; nothing was saved; ask the review's owner for write access, "
                              "or build into a folder of your own with --review DIR")
        review.manifest["review_id"] = store.review_id()  # which review these files are (see restore)
        current = files.files_dir(path, store.generation())
        previous = current if not sync or _same_papers(current, review.manifest) else None
        name, final = _write_generation(review, model, previous)
        try:
            snap = store.backup(f"before-{reason}", force=False)
            with store.transaction():
                sync_report = _sync_store(review, store, reason == "build") if sync else None
                if sources is not None:
                    store.record_sources(sources)
                topic_report, edited = _record_topics(review, store)
                if then is not None:
                    then(store)
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
             ("tidying", lambda: files.tidy(review.path, name)))
    for what, step in steps:
        try:
            step()
        except Exception as err:  # everything is saved already: say what is stale
            warnings.append(f"the {reason} was saved, but {what} failed ({err}); rerun "
                            f"`workbench check --review {review.path}`")
            log.warning(warnings[-1])
    return tuple(warnings)


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
    from ...store import LABELS_REVIEWER, Store

    key = review.manifest.get("cache_keys", {}).get("papers") if built else None
    report = store.sync_papers((p.to_dict() for p in review.papers_with_texts()), key=key)
    labelled = [p for p in review.papers if p.label in DECISIONS]
    if labelled:
        with Store.open(review.path, reviewer=LABELS_REVIEWER) as source:
            for decision in DECISIONS:
                ids = [p.id for p in labelled if p.label == decision and not source.votes(p.id, all_reviewers=True)]
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

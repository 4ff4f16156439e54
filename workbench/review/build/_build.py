"""Building a review (read -> embed -> topics -> map) and saving it, all or nothing.

``build`` reads the sources, embeds them through the review's cache, fits the topics and the map,
and saves the folder with :func:`~._save.save`: the new files go into a generation folder beside the
current one, and one store transaction syncs the corpus, records the topics and names the new
generation (see :mod:`workbench.review._folder`). A saved topic run (``refit(review, save=True)``, "Show
themes") is saved the same way.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..._version import __version__
from ...dedupe import DuplicateRules
from ...dedupe.rules import absorb
from ...embed import Embedder, EmbeddingCache, WordVectors, embed_with_cache, get_embedder
from ...errors import ReviewError, WorkbenchError
from ...readers import read_sources
from ...store import DB_NAME, Store
from ...topics import TopicModel
from ...topics.results import load_results
from .. import _provenance
from .._review import CACHE_FILE, Loaded, MadeBy, Review, TopicMap
from .._text import document_text
from ._aside import set_aside
from ._dask import build_with_dask, dask_plan
from ._map_beside import MapBeside
from ._reuse import BuildCache, cache_keys
from ._sampled import SampledFit, sampled
from ._save import BuildReport, save
from ._words_beside import WordsBeside

__all__ = ["DEFAULT_REVIEW", "FORMAT_VERSION", "build"]

log = logging.getLogger(__name__)

DEFAULT_REVIEW = "review"
FORMAT_VERSION = 1


def _quiet_libraries() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    logging.getLogger("BERTopic").setLevel(logging.ERROR)


@dataclass(frozen=True)
class Embedded:
    """The papers as the build embedded them: each paper's ``texts`` (what is embedded), their
    ``vectors`` (one row per paper), the ``embedder``, and what the cache ``stats`` say (papers
    cached and embedded, seconds)."""

    texts: list[str]
    vectors: np.ndarray
    embedder: Embedder
    stats: dict


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
        plan = dask_plan(seed, input_format, follow_links, topic_params)
        return build_with_dask(sources, path, client, embedder, plan, progress=progress, provenance=provenance)
    cache, timings, t = BuildCache(path), {}, time.perf_counter()
    papers, report, merged = _read_settled(sources, input_format, path, cache, follow_links)
    source_rows = _provenance.source_rows(report, provenance)  # a provenance matching no file: an error now
    timings["read"] = time.perf_counter() - t
    path.mkdir(parents=True, exist_ok=True)
    emb = get_embedder(embedder, progress=progress)
    t = time.perf_counter()
    texts = [document_text(p) for p in papers]
    aside = set_aside(papers, cache.folder)  # their abstracts in a file until the save (large corpora)
    papers = aside.papers
    timings["texts"] = time.perf_counter() - t  # (the texts embedded, and the papers set aside)
    t = time.perf_counter()
    with ExitStack() as beside:
        with EmbeddingCache(path / CACHE_FILE) as embeddings:  # papers to embed: their words counted beside
            words = beside.enter_context(WordsBeside(texts, cache.folder, keep=cache.keep_terms))
            X, embed_stats = embed_with_cache(texts, emb, embeddings, corpus=True, before=words.start)
        embedded = Embedded(texts, X, emb, embed_stats)
        params = TopicModel(seed=seed, **topic_params).get_params()
        keys = cache_keys(report, merged, X, texts, emb, params)
        if cache.has_topics(keys["topics"]):
            words.close()  # kept topics need no words
        else:
            words.wait()  # here, in "embed": the child's memory back before the topics' peak
        timings["embed"] = time.perf_counter() - t
        model, coords, map_method = _topics_and_map(cache, keys, params, embedded,
                                                    WordVectors(emb, path / CACHE_FILE), words.terms, timings)
    manifest = _manifest(sources, report, papers, embedded, model, map_method, timings)
    manifest["cache_keys"] = keys
    found = TopicMap(model.topic_info_, model.labels_, coords, model.reduced_embeddings_, model.fine_labels_)
    result = Review(path, manifest, papers, found, texts=aside.texts, loaded=Loaded(X, emb), made=MadeBy(model=model))
    t = time.perf_counter()
    with aside:  # (the save links its file as the generation's papers.jsonl)
        saved = save(result, model, reason="build", sync=True, sources=source_rows)
    timings = {**saved.manifest["timings"], "write": round(time.perf_counter() - t, 3)}  # in memory; the file has the rest
    return saved.replace(manifest={**saved.manifest, "timings": timings},
                         build_report=BuildReport(read=report, save=saved.last_save,
                                                  reused=_reused(report, embed_stats, cache)))


def _topics_and_map(cache: BuildCache, keys: dict, params: dict, embedded: Embedded, words: WordVectors, terms,
                    timings: dict):
    """The topic model (of ``params``, the seed among them) and the map's (coordinates, method),
    each kept or computed; the map laid out beside the topics where that pays
    (:class:`MapBeside`), both UMAPs from one neighbour graph; ``words``: the label words'
    embedding; ``terms``: where the labels find the words counted beside the embedding
    (:meth:`WordsBeside.terms`). Their seconds go to ``timings``."""
    texts, X = embedded.texts, embedded.vectors
    if sampled(len(X)):  # (a million papers: the whole fit's memory, see _sampled)
        return _sampled_topics_and_map(cache, keys, params, embedded, words, terms, timings)
    t = time.perf_counter()
    with MapBeside(X, params["seed"], start=not cache.has_layout(keys["map"])) as beside:
        model = cache.topics(keys["topics"],
                             lambda: TopicModel(**params).fit(texts, X, word_vectors=words, graph=beside.graph, terms=terms),
                             lambda entry: load_results(entry, params, texts, X, words))
        timings["topics"] = time.perf_counter() - t
        _let_go_of_terms(model, cache)
        if beside.graph_seconds:
            timings["neighbours"] = beside.graph_seconds  # (part of "topics"; UMAP's own stage without it)
        t = time.perf_counter()
        coords, map_method = cache.layout(keys["map"], lambda: beside.result(model.graph_))
    timings["map"] = time.perf_counter() - t
    return model, coords, map_method


def _sampled_topics_and_map(cache: BuildCache, keys: dict, params: dict, embedded: Embedded, words: WordVectors,
                            terms, timings: dict):
    """What :func:`_topics_and_map` gives, fitted on a seeded sample and the rest placed
    (:mod:`._sampled`): one fit for the topics and the map, each kept or computed."""
    texts, X = embedded.texts, embedded.vectors
    fit = SampledFit(X, params, params["seed"])
    t = time.perf_counter()
    model = cache.topics(keys["topics"], lambda: fit.topics(texts, words, terms),
                         lambda entry: load_results(entry, params, texts, X, words))
    timings["topics"] = time.perf_counter() - t
    _let_go_of_terms(model, cache)
    t = time.perf_counter()
    coords, map_method = cache.layout(keys["map"], fit.layout)
    timings["map"] = time.perf_counter() - t
    return model, coords, map_method


def _let_go_of_terms(model, cache: BuildCache) -> None:
    """The model's word counts let go where the review's cache keeps them (a refit reads them
    back): not held through the map laid out here and the save (gigabytes at a million papers)."""
    terms = model.terms_
    if terms is not None and not callable(terms) and cache.has_terms(terms.key):
        model.release_terms(cache.terms)


def _verdicts(path: Path) -> tuple[frozenset, dict[str, str]]:
    """What people said of duplicates in this review's store: the pairs kept apart, and the
    papers merged into others (see ``store.duplicates.settle``)."""
    if not (path / DB_NAME).exists():
        return frozenset(), {}
    with Store.open(path, create=False) as store:
        return frozenset(store.duplicates.apart_pairs()), store.duplicates.merged_into()


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
                            duplicates=DuplicateRules(apart=apart), follow_links=follow_links)
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


def _manifest(sources, report, papers, embedded: Embedded, model, map_method: str, timings: dict) -> dict:
    """What goes into build.json: what was built, from what, how, and how long each stage took."""
    params = model.get_params()
    return {
        "format_version": FORMAT_VERSION,
        "workbench_version": __version__,
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sources": [str(s) for s in sources],
        "read_report": report.lines(),
        "merged_by_rule": report.merged_by_rule(),  # every merge's rule (read_report lists the first 20)
        "n_papers": len(papers),
        "embedder": {"name": embedded.embedder.name, "version": embedded.embedder.version,
                     "dims": int(embedded.vectors.shape[1])},
        "embed_stats": embedded.stats,
        "seed": params["seed"],
        "topic_params": {k: v for k, v in params.items() if k != "seed"},
        "topics": {"method": model.method_, "note": model.note_, "count": int((model.topic_info_.topic >= 0).sum())},
        "map": {"method": map_method},
        "timings": {k: round(v, 3) for k, v in timings.items()},
    }



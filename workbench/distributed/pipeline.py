"""The partitioned build, stage by stage, on a Dask client: what the review's build saves.

:func:`build_on_dask` runs read -> duplicates -> embed -> sample fit -> place every partition
-> words, each stage as Dask tasks on the client's workers, and returns a :class:`DaskBuild`:
the papers and, for each, its topic, HDBSCAN topic, topic-space and map coordinates, plus the
topic table and what each stage took. It writes nothing but the embedding cache; the review
folder is written by :mod:`workbench.review` exactly as a single-machine build writes it.

Dask retries a task whose worker died (``distributed.scheduler.allowed-failures``) and
recomputes what was lost with it from the task graph, so a build survives a worker lost
mid-way; a partition's cache file is written whole or not at all.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from operator import getitem
from pathlib import Path
from typing import Callable

import numpy as np

from .._runtime.fsutil import default_file_mode
from ..space.layout import scale_map
from ..topics import (
    best_words, merged_words, summed, term_buckets, topic_frame, topic_term_counts, topic_totals,
    weighing
)
from .corpus import merge_duplicates, read_partitions
from .embedding import embed_partitions
from .packed import pack
from .topics import SAMPLE_SIZE, checked_placing, fit_sample, fit_whole, place_partition, sample_positions, typical_rows

__all__ = ["DaskBuild", "DaskPlan", "Progress", "build_on_dask"]

log = logging.getLogger(__name__)


@dataclass
class DaskBuild:
    """What :func:`build_on_dask` found (see the module docstring)."""

    papers_file: Path  # the papers as lines of papers.jsonl, in order (the caller removes it)
    n_papers: int
    report: object  # workbench.readers.ReadReport
    labels: np.ndarray
    fine_labels: np.ndarray
    reduced: np.ndarray
    coords: np.ndarray
    topic_info: object  # DataFrame topic, label, size, words
    embed_stats: dict
    dims: int
    sample: dict
    typical: dict = field(default_factory=dict)  # topic -> positions of its 2 most typical papers
    timings: dict = field(default_factory=dict)
    n_partitions: int = 0
    workers: int = 0


#: How many pieces of term counts (partitions' or sums') one task sums.
SUM_EVERY = 8
#: How many pieces the terms are cut into: each summed over the corpus by one task.
WORD_BUCKETS = 16
#: The stages in order, for the progress lines ("[3/7]") and the closing summary.
STAGES = ("read", "dedupe", "embed", "sample_fit", "place", "words", "gather")
#: What the place stage does, by placing (see workbench.distributed.topics.PLACINGS).
PLACE_HOW = {"neighbours": "each paper at its most similar sample papers",
             "transform": "UMAP.transform, approximate_predict"}


@dataclass(frozen=True)
class DaskPlan:
    """How :func:`build_on_dask` reads, cuts and fits a corpus: the ``input_format`` and
    ``follow_links`` of :func:`workbench.readers.read_sources`, the papers per partition, the
    papers the topics and the map are fitted on (a seeded sample), the words of each label, and
    the topic model's parameters (``placing`` among them: see :mod:`workbench.distributed.topics`)."""

    seed: int = 42
    input_format: str | None = None
    follow_links: bool = False
    partition_size: int = 5_000
    sample_size: int = SAMPLE_SIZE
    top_n_words: int = 10
    topic_params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Progress:
    """Where a build says what it does: ``say`` takes each line; ``bars``: a tqdm bar for the long
    stages as well."""

    say: Callable[[str], None] = log.info
    bars: bool = False


class _Clock:
    """Progress of the build: one line per stage as it starts and ends, numbered ``[k/7]`` with
    the time since the build began, a bar with the time left for the long stages, a summary at
    the end."""

    def __init__(self, say: Callable[[str], None], bars: bool):
        self.timings: dict[str, float] = {}
        self.say = say
        self.bars = bars
        self.began = time.perf_counter()

    def watch(self, futures, what: str = "") -> None:
        """A tqdm bar over ``futures`` as they finish: done of all, the rate and the time left (a
        widget in a notebook, a text bar on standard error in a terminal: standard output is
        the build's table). Dask's own ``progress`` bar shows no time left."""
        if self.bars and futures:
            import sys

            from distributed import as_completed
            from tqdm.auto import tqdm

            with tqdm(total=len(futures), desc=what or None, unit="partition", file=sys.stderr) as bar:
                for _ in as_completed(futures):
                    bar.update()

    @contextmanager
    def stage(self, name: str, what: str):
        start = time.perf_counter()
        step = f"[{STAGES.index(name) + 1}/{len(STAGES)}]" if name in STAGES else "[-]"
        self.say(f"dask {step} {what} ... ({start - self.began:.0f}s into the build)")
        yield
        self.timings[name] = round(time.perf_counter() - start, 3)
        self.say(f"dask {step} {what}: {self.timings[name]:.1f}s")

    def summary(self) -> str:
        took = ", ".join(f"{name} {self.timings[name]:.0f}s" for name in STAGES if name in self.timings)
        return f"dask: built in {time.perf_counter() - self.began:.0f}s ({took})"


def _rows(X: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return X[rows]


def _sample(client, vectors: list, lengths: list[int], positions: np.ndarray) -> np.ndarray:
    """The sample's vectors, gathered from the partitions that hold them, in position order."""
    offsets = np.cumsum([0, *lengths])
    parts = []
    for k, future in enumerate(vectors):
        lo, hi = np.searchsorted(positions, [offsets[k], offsets[k + 1]])
        if hi > lo:
            parts.append(client.submit(_rows, future, positions[lo:hi] - offsets[k]))
    return np.vstack(client.gather(parts)).astype(np.float32)


def _counts(papers, placed: dict, renumber: dict, k: int) -> list:
    labels = np.array([renumber.get(int(t), int(t)) for t in placed["labels"]], dtype=int)
    return term_buckets(topic_term_counts(papers.texts(), labels), k)


def _n_terms(buckets: list) -> int:
    return sum(len(b.terms) for b in buckets)


class _BucketSums:
    """Sums the partitions' term counts bucket by bucket in a tree of tasks (:data:`SUM_EVERY`
    at a time), submitted as the counts are, so that a group's sums outrank the next group's
    counts (Dask runs what was submitted first first) and each partition's counts are let go
    as soon as they are summed, not all held until the counting ends."""

    def __init__(self, client, k: int):
        self.client, self.k, self.levels = client, k, []

    def add(self, buckets: list, level: int = 0) -> None:
        """``buckets``: k futures, a partition's counts (or a group's sums at ``level`` > 0)."""
        if len(self.levels) == level:
            self.levels.append([])
        self.levels[level].append(buckets)
        if len(self.levels[level]) == SUM_EVERY:
            group, self.levels[level] = self.levels[level], []
            self.add(self._sums(group), level + 1)

    def _sums(self, group: list) -> list:
        return [self.client.submit(summed, [g[j] for g in group]) for j in range(self.k)]

    def total(self) -> list:
        """The k buckets summed over every partition added."""
        rest: list = []
        for pending in self.levels:
            pending = pending + rest
            rest = [self._sums(pending)] if len(pending) > 1 else pending
        self.levels = []
        return rest[0]


def _words(client, papers_futures, placed, renumber: dict, top_n_words: int,
           watch: Callable = lambda futures: None):
    """Each topic's words, as Dask's own shuffles do it: term counts per partition, cut by term
    into :data:`WORD_BUCKETS` pieces (:func:`~workbench.topics.term_buckets`), each bucket
    summed over the corpus in a tree of tasks (:class:`_BucketSums`), weighed with every
    bucket's topic totals, the buckets' best words merged. No process ever holds every term of
    the corpus (a million abstracts have tens of millions of phrases)."""
    sums, counted = _BucketSums(client, WORD_BUCKETS), []
    for papers, where in zip(papers_futures, placed):
        counts = client.submit(_counts, papers, where, renumber=renumber, k=WORD_BUCKETS)
        counted.append(client.submit(_n_terms, counts))  # what the bar watches: a number, not the counts
        sums.add([client.submit(getitem, counts, j) for j in range(WORD_BUCKETS)])
    buckets = sums.total() if counted else []
    totals = client.map(topic_totals, buckets)
    watch(counted)
    weigh = weighing(client.gather(totals))
    found = client.gather(client.map(best_words, buckets, weigh=weigh, top_n_words=top_n_words))
    return merged_words(found, weigh.topics, top_n_words)


def _lines(papers) -> bytes:
    return papers.lines()


def _write_papers(client, partitions: list, folder: Path, ahead: int = 4) -> Path:
    """The papers as lines of papers.jsonl in a new file in ``folder``: each partition's lines
    made on its worker and written as they arrive, in order, ``ahead`` partitions in flight. The
    driver never holds more than those (it used to gather every paper: 3 kB each). The review's
    save links the file as its generation's papers.jsonl (:meth:`workbench.corpus.texts.TextsInFile.file_of`)."""
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=folder, prefix=".papers-", suffix=".jsonl")
    try:
        os.chmod(handle, default_file_mode())  # 0600 from mkstemp; the review's papers.jsonl (a link) shares it
        with open(handle, "wb") as out:
            pending = [client.submit(_lines, part) for part in partitions[:ahead]]
            for k in range(len(partitions)):
                if k + ahead < len(partitions):
                    pending.append(client.submit(_lines, partitions[k + ahead]))
                out.write(pending[k].result())
                pending[k] = None  # the worker lets go of it
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _by_size(labels: np.ndarray) -> dict:
    """Topic numbers by size, largest 0 (ties: the smaller number first); outliers stay -1."""
    sizes = Counter(labels.tolist())
    order = sorted((t for t in sizes if t >= 0), key=lambda t: (-sizes[t], t))
    return {old: new for new, old in enumerate(order)}



def build_on_dask(client, sources, review: Path, *, text_of: Callable, embedder, plan: DaskPlan = DaskPlan(),
                  progress: Progress = Progress(), after_read: Callable | None = None) -> DaskBuild:
    """Build the papers, topics and map of ``sources`` on ``client``'s workers (see the module),
    as ``plan`` says. ``after_read(report)``: called with the read report before the long stages
    (a check that can fail early)."""
    from .cache import CACHE_DIR

    seed, topic_params, say = plan.seed, plan.topic_params, progress.say
    placing = checked_placing(topic_params.get("placing"))  # a wrong choice fails before any work
    clock = _Clock(say, progress.bars)
    cache_root = Path(review) / CACHE_DIR
    with clock.stage("read", f"reading {len(sources)} source(s) on {len(client.scheduler_info()['workers'])} workers"):
        parts = read_partitions(client, sources, plan.input_format, [review], plan.partition_size, plan.follow_links)
        if after_read is not None:
            after_read(parts.report)
    with clock.stage("dedupe", f"merging duplicates across {len(parts.futures)} partitions"):
        parts = merge_duplicates(client, parts)
        positions = sample_positions(len(parts), plan.sample_size, seed)
    whole = len(positions) == len(parts)  # the sample would be every paper: fit on them all
    with clock.stage("embed", f"embedding {len(parts):,} papers with {embedder.name}"):
        # each partition's texts and lines made once, its papers let go (:mod:`.packed`)
        parts = replace(parts, futures=client.map(pack, parts.futures, text_of=text_of))
        vectors, stats = embed_partitions(client, parts.futures, embedder, cache_root,
                                          lambda done: clock.watch(done, "embedding"))
    with clock.stage("sample_fit", f"fitting the topics and the map on {'all the papers' if whole else 'a sample'}"):
        X_sample = _sample(client, vectors, parts.lengths, positions)
        fit = (client.submit(fit_whole, X_sample, topic_params, seed, pure=False) if whole else
               client.submit(fit_sample, X_sample, positions, topic_params, seed, pure=False))
        fitted = client.submit(lambda f: (f.min_cluster_size, f.outlier_share, f.placing, f.method, f.note,
                                          f.map_method), fit).result()
    with clock.stage("place", f"placing every partition ({PLACE_HOW[placing]})"):
        placed = client.map(place_partition, vectors, parts.offsets, fit=fit)
        clock.watch(placed, "placing")
        arrays = client.gather(placed)
        labels = np.concatenate([a["labels"] for a in arrays])
        renumber = _by_size(labels)
        labels = np.array([renumber.get(int(t), int(t)) for t in labels], dtype=int)
        typical = typical_rows(client, vectors, labels, parts.offsets)  # found now, not by each kernel
    with clock.stage("words", "counting words per partition (c-TF-IDF)"):
        words = _words(client, parts.futures, placed, renumber, plan.top_n_words,
                       lambda counted: clock.watch(counted, "counting words"))
        words = {int(t): words.get(int(t), []) for t in np.unique(labels)}
        info = topic_frame(None, labels, words)
    with clock.stage("gather", "gathering the papers"):
        papers_file = _write_papers(client, parts.futures, (Path(review) / CACHE_DIR).parent)
    say(clock.summary())
    dims = int(arrays[0]["reduced"].shape[1]) if arrays else 0
    return DaskBuild(
        papers_file=papers_file, n_papers=len(parts), report=parts.report, labels=labels,
        fine_labels=np.concatenate([a["fine"] for a in arrays]),
        reduced=np.concatenate([a["reduced"] for a in arrays]) if dims else None,  # (none below 40 papers)
        coords=scale_map(np.concatenate([a["coords"] for a in arrays])),
        topic_info=info, typical=typical, embed_stats=stats, dims=client.submit(lambda v: int(v.shape[1]), vectors[0]).result(),
        sample={"size": int(len(positions)), "seed": seed, "min_cluster_size": int(fitted[0]),
                "outlier_share": round(float(fitted[1]), 4), "topic_space_dims": dims, "placing": fitted[2],
                "method": fitted[3], "note": fitted[4], "map": fitted[5]},
        timings=clock.timings, n_partitions=len(parts.futures), workers=len(client.scheduler_info()["workers"]),
    )

"""Building a review on Dask (:mod:`workbench.distributed`), saved as any build is saved.

The stages run on the cluster's workers; what they return becomes a :class:`Review` and is
saved by :func:`~workbench.review.build._build.save`: the files into a new generation folder, then one
store transaction naming it. A build that fails or is interrupted before that leaves the review
as it was. ``build.json`` says how the review was built (``"dask"``: workers, partitions, the
sample) and where its embeddings are (``embedding_cache``), which :meth:`Review.embeddings` reads.
"""

from __future__ import annotations

import sys
import time
from contextlib import suppress
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

import numpy as np

from ..._version import __version__
from ...embed import get_embedder
from .. import _provenance, _typical
from .._review import Loaded, Review, TopicMap
from ...corpus.texts import read_papers
from .._text import document_text
from ._save import BuildReport, save

if TYPE_CHECKING:  # (workbench.distributed loads pandas and pyarrow: imported for a Dask build only)
    from ...distributed import DaskPlan

__all__ = ["build_with_dask", "dask_plan"]

PLACED = {"neighbours": "each paper placed by its 10 most similar sample papers",
          "transform": "UMAP.transform, HDBSCAN approximate_predict"}


def _say(progress: bool):
    def say(line: str) -> None:
        if progress:
            print(line, file=sys.stderr, flush=True)
    return say


def dask_plan(seed: int, input_format: str | None, follow_links: bool, params: Mapping) -> DaskPlan:
    """The :class:`~workbench.distributed.DaskPlan` of :func:`workbench.build`'s arguments:
    ``params`` are its topic parameters, less ``partition_size`` and ``sample_size`` (the papers
    per partition, 5,000, and the sample that topics and map are fitted on, 20,000), which are
    the plan's own."""
    from ...distributed import DaskPlan  # pandas and pyarrow: only for a Dask build

    topic_params = {k: v for k, v in params.items() if k not in ("partition_size", "sample_size")}
    sizes = {k: params[k] for k in ("partition_size", "sample_size") if params.get(k)}
    return DaskPlan(seed=seed, input_format=input_format, follow_links=follow_links, topic_params=topic_params,
                    **sizes)


def build_with_dask(sources, path: Path, client, embedder: str, plan: DaskPlan, *, progress: bool = True,
                    provenance=None) -> Review:
    """What :func:`workbench.build` does with ``client`` (a ``distributed.Client``, a scheduler's
    address, or True for a LocalCluster of 2 workers on this machine), as ``plan`` says (see
    :func:`dask_plan`): see the module docstring. ``provenance`` as :func:`workbench.build` takes
    it, checked against the files read before the long stages, recorded with each file's counts
    (duplicates merged across partitions included)."""
    from ...distributed import CACHE_DIR, Progress, build_on_dask, dask_client, describe

    emb = get_embedder(embedder, progress=False)
    say = _say(progress)
    start = time.perf_counter()
    with dask_client(client) as connected:
        say(describe(connected))
        built = build_on_dask(connected, sources, path, text_of=document_text, embedder=emb, plan=plan,
                              progress=Progress(say, progress),
                              after_read=lambda report: _provenance.source_rows(report, provenance))
    manifest = _manifest(sources, built, emb, plan, CACHE_DIR)
    try:  # the papers' abstracts stay in the file (read through it once it is removed)
        papers, texts = read_papers(built.papers_file)
        found = TopicMap(built.topic_info, built.labels, built.coords, built.reduced, built.fine_labels)
        review = Review(path, manifest, papers, found, texts=texts, loaded=Loaded(embedder=emb))
        t = time.perf_counter()  # the save links the file as the generation's papers.jsonl
        review = save(review, None, reason="build", sync=True,
                      sources=_provenance.source_rows(built.report, provenance))
    finally:
        with suppress(OSError):
            built.papers_file.unlink()
    timings = {**review.manifest["timings"], "write": round(time.perf_counter() - t, 3),
               "total": round(time.perf_counter() - start, 3)}
    if np.array_equal(review.labels, built.labels):  # no human edit laid over them
        _typical.remember(review, 2, {t: [papers[r].id for r in rows] for t, rows in built.typical.items()})
    return review.replace(manifest={**review.manifest, "timings": timings},
                          build_report=BuildReport(read=built.report, save=review.last_save))


def _manifest(sources, built, emb, plan: DaskPlan, cache_dir: Path) -> dict:
    """build.json of a Dask build: the single-machine fields, and how it was distributed."""
    count = int((built.topic_info.topic >= 0).sum())
    return {
        "format_version": 1,
        "workbench_version": __version__,
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sources": [str(s) for s in sources],
        "read_report": built.report.lines(),
        "n_papers": built.n_papers,
        "embedder": {"name": emb.name, "version": emb.version, "dims": built.dims},
        "embed_stats": {k: built.embed_stats[k] for k in ("cached", "embedded")}
        | {"seconds": built.timings.get("embed", 0.0)},
        "embedding_cache": {"format": "parquet", "path": str(cache_dir)},
        "seed": plan.seed,
        "topic_params": dict(plan.topic_params),
        "topics": {"method": built.sample.get("method", "bertopic-sample"), "count": count,
                   "note": (f"topics fitted on a seeded sample of {built.sample['size']:,} papers and predicted "
                            f"for the rest ({PLACED[built.sample.get('placing', 'transform')]})"
                            if built.sample["size"] < built.n_papers else built.sample.get("note", ""))},
        "map": {"method": built.sample.get("map", "umap-sample")},
        "dask": {"workers": built.workers, "partitions": built.n_partitions, "sample": built.sample},
        "timings": dict(built.timings),
    }

"""Building a review on Dask: the same review folder, from a corpus too large for one process.

``workbench.build(..., client=...)`` and ``workbench build --dask [ADDRESS]`` run the build's
stages as Dask tasks on a cluster's workers (a ``LocalCluster`` on this machine, or any
``distributed.Client(address)``); the review's folder is then written by
:mod:`workbench.review` as a single-machine build writes it. The modules, in the order the
build runs them:

- :mod:`.client`: the client (given, by address, or a LocalCluster started and closed);
- :mod:`.corpus`: sources read in partitions, duplicates found by a Dask shuffle of blocking keys;
- :mod:`.embedding` and :mod:`.cache`: partitions embedded on the workers through a Parquet
  cache keyed by content hashes, on any path every worker sees;
- :mod:`.topics`: UMAP and HDBSCAN fitted on a seeded sample, every partition placed by
  ``UMAP.transform`` and ``hdbscan.approximate_predict``;
- :mod:`.pipeline`: the stages in order, c-TF-IDF counts summed across partitions, timed.

The faces never import this package: they call :func:`workbench.build` with ``client``.
"""

from .cache import CACHE_DIR, ParquetCache, partition_digest
from .client import LOCAL_WORKERS, dask_client, describe
from .pipeline import DaskBuild, DaskPlan, Progress, build_on_dask
from .topics import MIN_PAPERS, SampleFit

__all__ = [
    "CACHE_DIR",
    "LOCAL_WORKERS",
    "MIN_PAPERS",
    "DaskBuild",
    "DaskPlan",
    "ParquetCache",
    "Progress",
    "SampleFit",
    "build_on_dask",
    "dask_client",
    "describe",
    "partition_digest",
]

"""Keep numba's compiled UMAP and pynndescent code on disk between processes.

UMAP compiles its numba functions on the first fit in every new process (13-55 s on two
cores). umap and pynndescent mark few of them ``cache=True``; turning caching on for all their
dispatchers before the first fit, with ``NUMBA_CACHE_DIR`` pointing at the workbench cache,
makes every later process load the machine code instead (seconds become tenths of a second).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

__all__ = ["enable_numba_cache", "numba_cache_on_import", "use_cache_dir"]

_done = False


def use_cache_dir(cache_dir: str | os.PathLike | None = None) -> bool:
    """Point numba's cache at the workbench cache (``NUMBA_CACHE_DIR`` if set); False when
    ``WORKBENCH_NUMBA_CACHE=0`` turns caching off. Call it before ``@njit(cache=...)`` runs."""
    if os.environ.get("WORKBENCH_NUMBA_CACHE") == "0":
        return False
    if cache_dir is None:
        from .fsutil import workbench_cache_dir

        cache_dir = workbench_cache_dir() / "numba"
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir))
    import numba

    if numba.config.CACHE_DIR != os.environ["NUMBA_CACHE_DIR"]:
        numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
    os.makedirs(numba.config.CACHE_DIR, exist_ok=True)
    return True


def enable_numba_cache(cache_dir: str | os.PathLike | None = None) -> None:
    """Turn on numba's on-disk cache for every umap/pynndescent dispatcher (idempotent)."""
    global _done
    if _done or not use_cache_dir(cache_dir):
        return
    from numba.core.dispatcher import Dispatcher

    import pynndescent  # noqa: F401  (imports its submodules)
    import umap.umap_  # noqa: F401

    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(("umap", "pynndescent")):
            continue
        for obj in list(vars(module).values()):
            if isinstance(obj, Dispatcher) and obj.stats.cache_path is None:  # not cached yet
                try:
                    obj.enable_caching()
                except Exception:  # a dispatcher numba cannot cache (e.g. a closure): compile as usual
                    pass
    _done = True


@contextmanager
def numba_cache_on_import():
    """Import a module whose numba functions compile at import time, with ``cache=True``.

    datashader (under datamapplot) compiles ~17 s of numba code on every import; importing it
    inside this block stores that machine code in the workbench cache (later imports: ~5 s).
    """
    if os.environ.get("WORKBENCH_NUMBA_CACHE") == "0":
        yield
        return
    from .fsutil import workbench_cache_dir

    os.environ.setdefault("NUMBA_CACHE_DIR", str(workbench_cache_dir() / "numba"))
    import numba

    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
    jit, njit = numba.jit, numba.njit

    def cached(decorator):
        def wrapper(*args, **kwargs):
            kwargs.setdefault("cache", True)
            return decorator(*args, **kwargs)

        return wrapper

    numba.jit, numba.njit = cached(jit), cached(njit)
    try:
        yield
    finally:
        numba.jit, numba.njit = jit, njit

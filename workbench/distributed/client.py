"""The Dask client a build runs on: one the caller made, one to a cluster's address, or a
``LocalCluster`` on this machine started for the build and closed after it."""

from __future__ import annotations

from contextlib import contextmanager

from ..errors import InputError

__all__ = ["LOCAL_WORKERS", "dask_client", "describe"]

#: Workers of the LocalCluster a build starts when given no address (one thread each).
LOCAL_WORKERS = 2


@contextmanager
def dask_client(client=True, n_workers: int = LOCAL_WORKERS):
    """Yield a ``distributed.Client``.

    ``client`` is a Client (used as it is, left open), an address such as
    ``"tcp://scheduler:8786"`` (connected, then closed), or True/None/"" (a LocalCluster of
    ``n_workers`` worker processes with one thread each on this machine, closed afterwards).
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as err:
        raise InputError("a distributed build needs Dask: pip install 'workbench[dask]'") from err
    if isinstance(client, Client):
        yield client
        return
    if isinstance(client, str) and client:
        try:
            connected = Client(client, timeout="20s")
        except (ValueError, TypeError) as err:  # not an address at all ("garbage": no port)
            raise InputError(f"--dask {client!r} is not a scheduler address ({err}); expected one such as "
                             "tcp://scheduler:8786, or leave the address out for a cluster on this machine") from err
        except OSError as err:
            raise InputError(f"could not reach the Dask scheduler at {client!r} ({err}); start it with "
                             "`dask scheduler` (and workers with `dask worker ADDRESS`) or leave the "
                             "address out for a cluster on this machine") from err
        with connected:
            yield connected
        return
    if client not in (True, None, ""):
        raise InputError(f"client={client!r}; expected a distributed.Client, a scheduler address or True")
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with Client(cluster) as local:
            yield local


def describe(client) -> str:
    """One line: the workers, their threads, and the dashboard's link."""
    workers = client.scheduler_info()["workers"]
    threads = sum(w.get("nthreads", 1) for w in workers.values())
    link = getattr(client, "dashboard_link", None)
    return f"dask: {len(workers)} workers, {threads} threads" + (f"; dashboard {link}" if link else "")

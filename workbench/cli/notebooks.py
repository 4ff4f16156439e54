"""Run the workbench notebooks headlessly with papermill, writing executed copies into the review.

The executed copies go to ``<review>/notebooks/`` (never into the source ``notebooks/`` folder,
which stays free of outputs). Parameters are the notebooks' ``parameters`` cell variables.

The kernel talks to papermill over Unix sockets in a private temporary folder (0700, removed
after each notebook) instead of TCP on localhost: ipykernel 7 warns on stderr at every start
that TCP without encryption is readable by anyone on the machine, and suggests IPC.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Iterable

from ..errors import InputError

__all__ = ["NOTEBOOKS", "run_notebooks"]

NOTEBOOKS = ("01_explore.ipynb", "02_tag_and_screen.ipynb", "03_compare.ipynb", "04_report.ipynb")


def run_notebooks(
    review: str | os.PathLike,
    notebooks_dir: str | os.PathLike = "notebooks",
    names: Iterable[str] = NOTEBOOKS,
    parameters: dict | None = None,
    per_notebook: dict[str, dict] | None = None,
    out_dir: str | os.PathLike | None = None,
    timeout: int = 600,
) -> dict[str, float]:
    """Execute ``names`` from ``notebooks_dir`` against ``review``; returns seconds per notebook.

    ``parameters`` go to every notebook (``review_dir`` is set to ``review``);
    ``per_notebook`` adds parameters for one notebook by name.
    """
    src = Path(notebooks_dir).resolve()
    review = Path(review).resolve()
    out = Path(out_dir).resolve() if out_dir else review / "notebooks"
    if out == src:
        raise InputError(f"executed notebooks would overwrite the sources in {src}; choose another out_dir")
    out.mkdir(parents=True, exist_ok=True)
    timings = {}
    for name in names:
        path = src / name
        if not path.exists():
            raise InputError(f"no notebook {path}; expected one of {', '.join(NOTEBOOKS)}")
        params = {"review_dir": str(review), **(parameters or {}), **((per_notebook or {}).get(name, {}))}
        start = time.perf_counter()
        _execute(path, out / name, params, timeout)
        timings[name] = round(time.perf_counter() - start, 1)
    return timings


def _execute(path: Path, out: Path, params: dict, timeout: int) -> None:
    """One notebook through papermill, in its own folder, the kernel on private Unix sockets."""
    import papermill
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="workbench-kernel-") as sockets:
        config = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})
        papermill.execute_notebook(
            str(path), str(out), parameters=params, cwd=str(path.parent), progress_bar=False,
            kernel_name="python3", execution_timeout=timeout, log_output=False, config=config,
        )

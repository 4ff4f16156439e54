"""Run the workbench notebooks headlessly with papermill, writing executed copies into the review.

The executed copies go to ``<review>/notebooks/`` (never into the source ``notebooks/`` folder,
which stays free of outputs). Parameters are the notebooks' ``parameters`` cell variables.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Iterable

from .errors import InputError

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
    import papermill

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
        papermill.execute_notebook(
            str(path), str(out / name), parameters=params, cwd=str(src), progress_bar=False,
            kernel_name="python3", execution_timeout=timeout, log_output=False,
        )
        timings[name] = round(time.perf_counter() - start, 1)
    return timings

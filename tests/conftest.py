"""Shared fixtures: the seeds, small corpora written on the fly, and a persistent model cache."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "seeds"
SHARED_DATA = (ROOT / ".." / "shared" / "data").resolve()

# Models distilled once (the static embedder) and numba's compiled UMAP live outside the
# per-test folders so a test run pays for them once, not once per test.
os.environ.setdefault("WORKBENCH_CACHE", str(ROOT / ".pytest_cache" / "workbench"))
os.environ.setdefault("WORKBENCH_PROGRESS", "0")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture
def seeds_dir(tmp_path) -> Path:
    """A private copy of seeds/ (tests may move or edit it)."""
    dest = tmp_path / "seeds"
    shutil.copytree(SEEDS, dest)
    return dest


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The seeds built with the fake embedder (seed 42), once per test module: the folder its
    tests open or copy (a module's own: its tests may write to it)."""
    import workbench

    path = tmp_path_factory.mktemp("seeds-built") / "review"
    workbench.build([SEEDS], review=path, embedder="fake", seed=42)
    return path


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not here (a fresh clone has no shared data)")
    return SHARED_DATA


def write_seed_file(path: Path, abstracts: list[str], collection: str = "Test collection", authors=None) -> Path:
    """Write abstracts in the seed-dump layout (collection name, optional author lines)."""
    parts = [collection]
    for i, abstract in enumerate(abstracts):
        if authors:
            parts.append(authors[i])
        parts.append(abstract)
    path.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return path


def write_csv(path: Path, rows) -> Path:
    """A CSV export with the columns title, abstract, doi, year, authors and ``rows`` below."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["title", "abstract", "doi", "year", "authors"])
        out.writerows(rows)
    return path


def seed_abstracts() -> list[str]:
    """The 133 seed abstracts, clean, in file order."""
    from workbench import read_sources

    papers, _ = read_sources([SEEDS])
    return [p.abstract for p in papers]


@pytest.fixture(scope="module")
def lab(request, tmp_path_factory):
    """For a browser-test module: JupyterLab on a copy of the notebooks and a review built from
    the seeds (:func:`_browser.lab_with_review`), its folder named after the module; skipped
    without Chromium. The module's ``KERNEL_STARTUP``, if it has one, runs first in every
    kernel. A module that needs another set-up defines its own ``lab``."""
    from _browser import CHROMIUM, lab_with_review

    if not Path(CHROMIUM).exists():
        pytest.skip(f"no {CHROMIUM} (apt-get install -y chromium)")
    name = request.module.__name__.removeprefix("test_browser").strip("_") or "lab"
    startup = getattr(request.module, "KERNEL_STARTUP", None)
    with lab_with_review(tmp_path_factory.mktemp(name), f"wb-{name}-token", kernel_startup=startup) as server:
        yield server


def stderr_outputs(folder):
    """Every stream output named stderr in the executed notebooks of ``folder``: (notebook, cell, text)."""
    import nbformat

    found = []
    for path in sorted(Path(folder).glob("*.ipynb")):
        for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
            found += [(path.name, i, o.text) for o in cell.get("outputs", [])
                      if o.output_type == "stream" and o.name == "stderr"]
    return found


@pytest.fixture(scope="module")
def browser(lab):
    """Debian's Chromium driven by Playwright, one per module (after ``lab``: a machine without
    Chromium skips before Playwright starts)."""
    from playwright.sync_api import sync_playwright

    from _browser import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def pytest_collection_modifyitems(config, items):
    """Every browser test is a long one (see the markers in pyproject.toml)."""
    for item in items:
        if item.get_closest_marker("browser") is not None and item.get_closest_marker("long") is None:
            item.add_marker(pytest.mark.long)


def unprivileged() -> list[str] | None:
    """A prefix that runs a command without the power to ignore file permissions: none for a
    user, ``unshare --user`` for root where user namespaces work, None where they do not."""
    if os.geteuid() != 0:
        return []
    try:
        ok = subprocess.run(["unshare", "--user", "true"], capture_output=True).returncode == 0
    except FileNotFoundError:
        ok = False
    return ["unshare", "--user"] if ok else None

"""Driving the notebooks in JupyterLab with Debian's Chromium (Playwright), for the browser tests.

``lab_with_review`` starts a :class:`workbench._lab.ThrowawayLab` on a copy of the notebooks
and a review built from the seeds (one per test module); ``open_and_run_all`` opens a notebook
at 1280x800, waits for its kernel, then runs every cell; ``said`` waits for a control's answer
(``✓ ...``) and raises :class:`ViewError` at once on a ``✗`` one; ``lasso`` drags a rectangle
over the middle of the map; ``store`` opens the review's SQLite store from the test process.
Screenshots go to test-output/browser/ (``shot``), and with ``WORKBENCH_DOC_IMAGES=1`` the
README's to docs/images/ (``doc_shot``).
"""

from __future__ import annotations

import os
import re
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

from conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
SHOTS = ROOT / "test-output" / "browser"
DOC_IMAGES = ROOT / "docs" / "images"
VIEWPORT = {"width": 1280, "height": 800}
REVIEWER = "browser-user"


@contextmanager
def lab_with_review(folder: Path, token: str, kernel_startup: str | None = None):
    """JupyterLab serving ``folder`` with the notebooks and ``review/`` built from the seeds.
    ``kernel_startup``: Python every kernel runs first (an IPython startup file of a profile
    of its own), to arrange what a test needs in the kernel."""
    import workbench
    from _lab import ThrowawayLab

    shutil.copytree(ROOT / "notebooks", folder / "notebooks")
    workbench.build([ROOT / "seeds"], review=folder / "review", embedder="fake", seed=42)
    env = {"WORKBENCH_REVIEWER": REVIEWER}
    if kernel_startup:
        startup = folder / ".ipython" / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-test.py").write_text(kernel_startup, encoding="utf-8")
        env["IPYTHONDIR"] = str(folder / ".ipython")
    server = ThrowawayLab(folder, token, env=env)
    try:
        yield {"url": server.url, "token": server.token, "ws": folder, "review": folder / "review"}
    finally:
        server.stop()


def open_and_run_all(browser, lab, notebook: str, workspace: str | None = None, viewport=VIEWPORT):
    """Open a notebook, wait for its kernel's websocket, then Run All."""
    page = browser.new_page(viewport=viewport)
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url) if "/api/kernels/" in ws.url else None)
    # A workspace of its own, so the layout of an earlier test (its open notebook) is not restored.
    workspace = workspace or notebook.split(".")[0].replace("_", "-")
    page.goto(f"{lab['url']}/lab/workspaces/{workspace}/tree/notebooks/{notebook}"
              f"?reset&token={lab['token']}")
    page.wait_for_selector(".jp-NotebookPanel", timeout=90_000)
    deadline = time.time() + 90
    while not sockets:
        if time.time() > deadline:
            raise AssertionError("the kernel websocket never opened")
        page.wait_for_timeout(250)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.locator("li[data-command='runmenu:run-all']").click()
    return page


def view_ready(page, name: str, timeout: float = 180_000) -> None:
    """Wait until the view ``wb-<name>`` is on the page and its keys are listening."""
    page.wait_for_selector(f".wb-{name} [data-attached='true']", state="attached", timeout=timeout)


class ViewError(AssertionError):
    """A view showed an error (``✗ ...``) to the user."""


def said(page, text: str, timeout: float = 60, scope=None) -> str:
    """Wait until a control says ``✓ text...`` (in ``scope``, a locator, or anywhere on the page);
    returns the whole answer. Raises :class:`ViewError` at once with the words of a ``✗``."""
    where = scope if scope is not None else page
    done = where.locator(".wb-ok", has_text=re.compile("^✓ " + re.escape(text)))
    failed = where.locator(".wb-err")
    deadline = time.time() + timeout
    while not done.count():
        if failed.count():
            raise ViewError(f"waiting for '✓ {text}', the view said: {failed.first.inner_text()}")
        if time.time() > deadline:
            raise AssertionError(f"the view never said '✓ {text}' in {timeout:.0f} s")
        page.wait_for_timeout(200)
    return done.first.inner_text()


status = said  # the name the older tests use


def forget_answers(scope) -> None:
    """Take the answers shown in ``scope`` (a locator) off the page, so that :func:`said` waits
    for the next one rather than reading an earlier one with the same words."""
    scope.locator(".wb-ok, .wb-err").evaluate_all("els => els.forEach(e => e.remove())")


def lasso(page) -> int:
    """Drag a box over the middle 70 % of the first map on the page; returns how many papers the
    view then says are selected."""
    canvas = page.locator(".jp-OutputArea-output canvas").first
    canvas.wait_for(state="attached", timeout=60_000)
    canvas.scroll_into_view_if_needed()
    page.wait_for_timeout(1500)  # let the points render
    box = canvas.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    rx, ry = box["width"] * 0.35, box["height"] * 0.35
    page.mouse.move(cx - rx, cy - ry)
    page.mouse.down()
    # Ends halfway up the left side, not near the start: regl-scatterplot takes a mouse-up within
    # 3 px of the mouse-down for a click as well, which selects the point there, if there is one.
    corners = ((cx + rx, cy - ry), (cx + rx, cy + ry), (cx - rx, cy + ry), (cx - rx, cy))
    for x, y in corners:
        page.mouse.move(x, y, steps=12)
    page.mouse.up()
    selected = page.locator(".wb-selcount").first
    selected.wait_for(timeout=30_000)
    return int(selected.inner_text().split()[0])


def press_enter_in(page, placeholder: str, text: str, keys: str = "Enter") -> None:
    """Click the box with ``placeholder``, type ``text`` as a user does, then press ``keys``."""
    box = page.get_by_placeholder(placeholder)
    box.scroll_into_view_if_needed()
    box.click()
    box.fill("")
    box.type(text)
    box.press(keys)


def title_of(lab, paper_id: str) -> str:
    """The short title the screening card's messages name ``paper_id`` by ("maybe: “…”")."""
    import workbench
    from workbench.session.text import short_title

    return short_title(workbench.open_review(lab["review"]).paper(paper_id).title)


def card_title(page) -> str:
    """The short title of the paper on the screening card, as its messages name it."""
    from workbench.session.text import short_title

    return short_title(page.locator(".wbc-card h3").first.inner_text())


def store(lab, reviewer: str = "checker"):
    """The review's store, opened from the test process (read what the clicks saved)."""
    from workbench.store import Store

    return Store.open(lab["review"], reviewer=reviewer, create=False)


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=False)


def doc_shot(page, name: str) -> None:
    """A screenshot of the viewport for the README: in test-output/browser/ always, and in
    docs/images/ (a palette PNG, to stay small) when ``WORKBENCH_DOC_IMAGES=1``, so that a test
    run leaves the committed images alone unless asked to renew them."""
    from PIL import Image

    SHOTS.mkdir(parents=True, exist_ok=True)
    raw = SHOTS / name
    page.screenshot(path=str(raw), full_page=False)
    if os.environ.get("WORKBENCH_DOC_IMAGES") == "1":
        DOC_IMAGES.mkdir(parents=True, exist_ok=True)
        image = Image.open(raw).convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)  # keeps the palette
        image.save(DOC_IMAGES / name, optimize=True)

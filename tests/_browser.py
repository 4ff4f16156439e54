"""Driving the notebooks in JupyterLab with Debian's Chromium (Playwright), for the browser tests.

``open_and_run_all`` opens a notebook in a :class:`workbench._lab.ThrowawayLab`, waits for its
kernel, then runs every cell; ``status`` waits for a view's status line; ``lasso`` drags a
rectangle over the middle of the map. Screenshots go to test-output/browser/.
"""

from __future__ import annotations

import time

from conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
SHOTS = ROOT / "test-output" / "browser"


def open_and_run_all(browser, lab, notebook: str, workspace: str | None = None):
    """Open a notebook, wait for its kernel's websocket, then Run All."""
    page = browser.new_page(viewport={"width": 1500, "height": 1100})
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


class ViewError(AssertionError):
    """A view's status line showed an error (``✗ ...``) to the user."""


def status(page, text: str, timeout: float = 60) -> None:
    """Wait until a view's status line says ``✓ text``; raise :class:`ViewError` at once with the
    words of a ``✗`` line instead."""
    done = page.get_by_text(f"✓ {text}", exact=True)
    failed = page.locator("span", has_text="✗")
    deadline = time.time() + timeout
    while not done.count():
        if failed.count():
            raise ViewError(f"waiting for '✓ {text}', the view said: {failed.first.inner_text()}")
        if time.time() > deadline:
            raise AssertionError(f"the view never said '✓ {text}' in {timeout:.0f} s")
        page.wait_for_timeout(250)


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
    corners = ((cx + rx, cy - ry), (cx + rx, cy + ry), (cx - rx, cy + ry), (cx - rx, cy - ry + 2))
    for x, y in corners:
        page.mouse.move(x, y, steps=12)
    page.mouse.up()
    selected = page.locator(".wb-selcount").first
    selected.wait_for(timeout=30_000)
    return int(selected.inner_text().split()[0])


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name), full_page=False)

"""Issue 14 in a real JupyterLab and Chromium at 1280x800 and 1920x1080: every notebook without a
cut button or header, the map's legend beside its points (none under it, none cut at an edge),
a selection-table row opening its paper and lighting it up, and "Screen topic 2 next" filling 02's
queue; the store is read after each. Screenshots of each notebook at both sizes go to
docs/images/ (the README shows them; 01's come from test_browser_onescreen). One lab for the module;
needs /usr/bin/chromium.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

import workbench

from _browser import REVIEWER, card_title, doc_shot, open_and_run_all, said, shot, store, view_ready

pytestmark = pytest.mark.browser

SIZES = ({"width": 1920, "height": 1080}, {"width": 1280, "height": 800})
# notebook, what shows it ran, what the screenshot shows
NOTEBOOKS = (("01_explore.ipynb", ".wb-explore", ".wb-map"), ("02_tag_and_screen.ipynb", ".wb-screen", ".wb-screen"),
             ("03_compare.ipynb", ".wb-compare", ".wb-compare"),
             ("04_report.ipynb", ".jp-OutputArea-output.jp-RenderedMarkdown h1", ".jp-OutputArea-output img"))
PROBE = """() => { const b = document.createElement('button'); b.id = 'wb-probe'; b.textContent = 'a probe wider than its box';
  b.style.cssText = 'width: 40px; overflow: hidden; white-space: nowrap';
  document.querySelector('.jp-OutputArea-output').appendChild(b); }"""
HIGHLIGHT = (0xE7, 0x29, 0x8A)  # the lit-up paper's frame (workbench/widgets/views/mapview.py)

# Buttons, table headers, accordion headers and widget labels in the outputs whose text is wider
# than their box (cut off, or hidden behind an ellipsis).
OVERFLOWING = """() => [...document.querySelectorAll(
    '.jp-OutputArea-output button, .jp-OutputArea-output th, .jp-OutputArea-output .widget-label,' +
    '.jp-OutputArea-output .jupyter-widget-Collapse-header')]
  .filter((el) => el.offsetParent !== null && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
  .map((el) => `${el.tagName.toLowerCase()} '${el.innerText.trim().slice(0, 60)}' ${el.scrollWidth}>${el.clientWidth}`)"""


def _size(viewport) -> str:
    return f"{viewport['width']}x{viewport['height']}"


def points_on_page(page, canvas) -> np.ndarray:
    """The page coordinates (x, y) of every coloured pixel the map draws (points, not the grey
    outliers or the white background)."""
    from PIL import Image

    box = canvas.bounding_box()
    image = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")).astype(int)
    coloured = (image.max(axis=2) - image.min(axis=2)) > 60
    ys, xs = np.nonzero(coloured)
    scale_x, scale_y = box["width"] / image.shape[1], box["height"] / image.shape[0]
    return np.column_stack([box["x"] + xs * scale_x, box["y"] + ys * scale_y])


def highlight_pixels(canvas) -> int:
    from PIL import Image

    image = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")).astype(int)
    return int((np.abs(image - np.array(HIGHLIGHT)).sum(axis=2) < 40).sum())


@pytest.mark.parametrize("notebook,ready,focus", NOTEBOOKS, ids=[n for n, _, _ in NOTEBOOKS])
def test_no_button_or_header_is_cut_at_either_size(browser, lab, notebook, ready, focus):
    page = open_and_run_all(browser, lab, notebook, viewport=SIZES[0])
    page.locator(ready).first.wait_for(state="attached", timeout=240_000)
    if ready.startswith(".wb-"):
        view_ready(page, ready[4:])
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=240_000)
    page.wait_for_timeout(1500)
    for viewport in SIZES:
        page.set_viewport_size(viewport)
        page.wait_for_timeout(1000)
        cut = page.evaluate(OVERFLOWING)
        assert cut == [], f"{notebook} at {_size(viewport)}: text wider than its box: {cut}"
        page.locator(focus).first.scroll_into_view_if_needed()
        page.wait_for_timeout(800)
        name = f"{notebook.split('.')[0]}_{_size(viewport)}.png"
        # 01's pictures in docs/images show a paper opened beside the map (test_browser_onescreen)
        (shot if notebook.startswith("01_") else doc_shot)(page, name)
    page.evaluate(PROBE)  # the check sees a cut button when there is one
    assert any("a probe wider" in c for c in page.evaluate(OVERFLOWING))
    with store(lab) as s:  # looking changes nothing in the store
        assert s.files.integrity_check() == "ok" and [e for e in s.history(limit=50) if e.reviewer == REVIEWER] == []
    page.close()


def test_the_legend_is_beside_the_points_and_no_point_is_cut(browser, lab):
    page = open_and_run_all(browser, lab, "01_explore.ipynb", viewport=SIZES[0])
    view_ready(page, "explore")
    for viewport in SIZES:
        page.set_viewport_size(viewport)
        canvas = page.locator(".wb-map canvas").first
        canvas.scroll_into_view_if_needed()
        page.wait_for_timeout(2000)  # the points are drawn
        check_map(page, canvas, _size(viewport))
    entries = page.locator(".wb-legend-entry .wb-legend-label").all_inner_texts()
    numbers = [int(t.split(":")[0]) for t in entries if t != "Unassigned"]
    with store(lab) as s:  # the legend names the topics the store holds, in topic order
        assert numbers == sorted(t for t in s.topics.current()[1] if t >= 0)
    page.close()


def check_map(page, canvas, size: str) -> None:
    points = points_on_page(page, canvas)
    assert len(points) > 500, "the map draws its points"
    legend = page.locator(".wb-legend").first.bounding_box()
    inside = ((points[:, 0] >= legend["x"]) & (points[:, 0] <= legend["x"] + legend["width"])
              & (points[:, 1] >= legend["y"]) & (points[:, 1] <= legend["y"] + legend["height"]))
    assert not inside.any(), f"{int(inside.sum())} point pixels under the legend at {size}"
    box = canvas.bounding_box()
    margin = {"left": points[:, 0].min() - box["x"], "right": box["x"] + box["width"] - points[:, 0].max(),
              "top": points[:, 1].min() - box["y"], "bottom": box["y"] + box["height"] - points[:, 1].max()}
    assert min(margin.values()) >= 3, f"points touch the map's edge at {size}: {margin}"
    used = ((points[:, 0].max() - points[:, 0].min()) / box["width"],
            (points[:, 1].max() - points[:, 1].min()) / box["height"])
    assert max(used) > 0.85 and min(used) > 0.6, f"the points use {used[0]:.0%} x {used[1]:.0%} of the map's box at {size}"


def test_a_row_opens_the_card_and_screen_these_fills_the_queue_in_02(browser, lab):
    review = workbench.open_review(lab["review"])
    screen = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb", viewport=SIZES[1])  # open before the send
    view_ready(screen, "screen")
    explore = open_and_run_all(browser, lab, "01_explore.ipynb", viewport=SIZES[1])
    view_ready(explore, "explore")
    canvas = explore.locator(".wb-map canvas").first
    canvas.scroll_into_view_if_needed()
    explore.wait_for_timeout(1500)
    assert highlight_pixels(canvas) == 0
    explore.locator(".wb-legend-entry", has_text=re.compile(r"^2: ")).click()  # topic 2's papers
    members = {pid for pid, t in zip(review.ids, review.labels) if t == 2}
    explore.get_by_text(f"{len(members)} selected", exact=True).wait_for(timeout=30_000)
    row = explore.locator(".wb-table tbody tr").nth(1)
    pid = row.get_attribute("data-id")
    assert pid in members
    row.click()
    card = explore.locator(".wb-explore .wbc-card")  # beside the map
    explore.wait_for_function("id => document.querySelector('.wb-explore .wbc-card code')?.innerText === id", arg=pid,
                              timeout=30_000)
    assert pid in card.locator("code").first.inner_text() and review.paper(pid).title in card.inner_text()
    with store(lab) as s:
        assert f"decision: {s.decisions.of(pid).decision if s.decisions.of(pid) else 'undecided'}" in card.inner_text()
    canvas.scroll_into_view_if_needed()
    explore.wait_for_timeout(1000)
    assert highlight_pixels(canvas) > 20, "the opened paper is lit up on the map"
    doc_shot(explore, "01_explore_selection_1280x800.png")

    explore.get_by_role("button", name=re.compile(r"Screen topic 2 next$")).click()  # all undecided here
    said(explore, f"{len(members)} undecided papers sent to the screening queue")
    screen.get_by_role("button", name=re.compile(r"Reload$")).click()
    said(screen, f"{len(members)} papers sent from the map (topic 2: ")
    # the filter's answer can reach the page just before the card it brought
    screen.wait_for_function(f"() => document.querySelector('.wb-screen .wbc-head')?.innerText.startsWith("
                             f"'1 of {len(members)} in this queue')", timeout=30_000)
    shown = screen.locator(".wb-card code").first.inner_text()
    assert shown in members and f"1 of {len(members)} in this queue" in screen.locator(".wb-card").inner_text()
    title = card_title(screen)
    screen.locator(".wb-card h3").first.click()
    screen.keyboard.press("i")
    said(screen, f"include: “{title}”")
    with store(lab) as s:
        assert s.decisions.of(shown, reviewer=REVIEWER).decision == "include"
    explore.close()
    screen.close()

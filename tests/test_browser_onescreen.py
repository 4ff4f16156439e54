"""Issue 45, point 6, for 01 in a real JupyterLab and Chromium: the opened paper's card, its point lit
up on the map and the actions on the selection with Undo are on screen together, at 1280x800 and
1920x1080 (the notebook's visible area, with JupyterLab's file browser open), the map as large as
the screen allows. A topic picked in the legend, then "next ▶" on the card; then a click on a
point of the map opens that paper. Screenshots: docs/images/01_explore_1280x800.png and
_1920x1080.png with ``WORKBENCH_DOC_IMAGES=1``. One lab and one page of 01 for the module; needs
/usr/bin/chromium.
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

import workbench

from _browser import doc_shot, open_and_run_all, view_ready

pytestmark = pytest.mark.browser

SIZES = ({"width": 1280, "height": 800}, {"width": 1920, "height": 1080})
HIGHLIGHT = (0xE7, 0x29, 0x8A)  # the lit-up paper's frame (workbench/widgets/_mapview.py)
TOPIC = 2
# what the user sees of the notebook: its scrolling area, below JupyterLab's menus and toolbar
VISIBLE = """el => {
    const p = el.closest('.jp-WindowedPanel-outer, .jp-Notebook');
    const r = p.getBoundingClientRect();
    return {x: r.left, y: r.top, right: r.right, bottom: Math.min(r.bottom, window.innerHeight)};
}"""


@pytest.fixture(scope="module")
def page(lab, browser):
    page = open_and_run_all(browser, lab, "01_explore.ipynb", viewport=SIZES[0])
    view_ready(page, "explore")
    page.wait_for_selector(".wb-explore .wb-legend-entry", timeout=120_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=240_000)
    yield page
    page.close()


def lit_up(canvas) -> np.ndarray:
    """The page coordinates of the lit-up paper's frame on the map (its pixels' centre)."""
    from PIL import Image

    box = canvas.bounding_box()
    image = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")).astype(int)
    ys, xs = np.nonzero(np.abs(image - np.array(HIGHLIGHT)).sum(axis=2) < 40)
    assert len(xs) > 20, "the opened paper is lit up on the map"
    return np.array([box["x"] + xs.mean() * box["width"] / image.shape[1],
                     box["y"] + ys.mean() * box["height"] / image.shape[0]])


def room(page, size) -> str:
    """Wait until the view has measured the cell at this size and fitted the map to it."""
    page.wait_for_function("w => { const r = document.querySelector('.wb-explore .wb-room');"
                           " return r && r.dataset.room && Number(r.dataset.room.split('x')[0]) <= w; }",
                           arg=size["width"], timeout=30_000)
    page.wait_for_timeout(2500)  # the kernel's new sizes reach the map
    return page.locator(".wb-explore .wb-room").get_attribute("data-room")


def test_a_topic_then_next_opens_the_card_beside_the_map(page, lab):
    review = workbench.open_review(lab["review"])
    members = [pid for pid, t in zip(review.ids, review.labels) if int(t) == TOPIC]
    page.locator(".wb-legend-entry", has_text=re.compile(rf"^{TOPIC}: ")).click()
    page.get_by_text(f"{len(members)} selected", exact=True).wait_for(timeout=30_000)
    card = page.locator(".wb-explore .wbc-card")
    assert "Click a point on the map" in card.inner_text(), "no paper opened yet: the card says how to open one"
    page.locator(".wb-explore").get_by_role("button", name="next (j) ▶").click()
    page.wait_for_function("() => document.querySelector('.wb-explore .wbc-card code')", timeout=30_000)
    pid = card.locator("code").first.inner_text()
    assert pid in members and f"1 of {len(members)} selected" in card.inner_text()
    assert review.paper(pid).title in card.locator("h3").inner_text()
    assert page.locator(".wb-table tr.wb-opened").get_attribute("data-id") == pid, "its row is marked in the table"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_card_its_point_on_the_map_and_the_actions_with_undo_fit_one_screen(page, size):
    page.set_viewport_size(size)
    measured = room(page, size)
    page.locator(".wb-explore .wb-onescreen").evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(1000)
    area = page.locator(".wb-explore").evaluate(VISIBLE)
    assert area["bottom"] <= size["height"] and area["right"] <= size["width"]

    def inside(locator, what: str) -> dict:
        box = locator.bounding_box()
        assert box is not None, f"{what} is not on the page"
        assert (box["x"] >= area["x"] - 1 and box["y"] >= area["y"] - 1 and box["x"] + box["width"] <= area["right"] + 1
                and box["y"] + box["height"] <= area["bottom"] + 1), \
            f"{what} at {box} is outside the notebook's visible area {area} (measured {measured})"
        return box

    explore = page.locator(".wb-explore")
    inside(explore.locator(".wbc-card h3"), "the opened paper's title")
    inside(explore.locator(".wbc-byline"), "its authors and topic")
    inside(explore.locator(".wbc-status"), "its decision and tags")
    abstract = inside(explore.locator(".wbc-abstract"), "its abstract")
    assert abstract["height"] >= 50, f"the abstract shows a few lines at least: {abstract}"
    for name in ("next (j) ▶", "Tag selected", "Note selected", "Decide selected", f"Decide topic {TOPIC} in bulk…",
                 f"Screen topic {TOPIC} next", "Undo"):
        inside(explore.get_by_role("button", name=re.compile(re.escape(name) + "$")).first, name)
    for placeholder in ("tag(s), comma separated", "a note for every selected paper (Ctrl+Enter adds it)"):
        inside(explore.get_by_placeholder(placeholder, exact=True), f"the box '{placeholder}'")
    canvas = explore.locator(".wb-map canvas").first
    box = inside(explore.locator(".wb-map .wb-legend + *").first, "the map")
    x, y = lit_up(canvas)
    assert area["x"] <= x <= area["right"] and area["y"] <= y <= area["bottom"], f"the lit-up point at {(x, y)}"
    # the map is as large as the screen allows: beside the card, most of the visible height
    side = explore.locator(".wb-side").bounding_box()
    assert side["x"] >= box["x"] + box["width"] - 1, "the card and the actions stand beside the map"
    assert box["height"] >= 0.6 * (area["bottom"] - area["y"]), f"the map is {box} in a visible area {area}"
    undo = explore.get_by_role("button", name=re.compile("Undo$")).bounding_box()
    bulk = explore.get_by_role("button", name=re.compile(rf"Decide topic {TOPIC} in bulk…$")).bounding_box()
    assert abs(undo["y"] - bulk["y"]) < 150, "Undo is beside the bulk decision it takes back"
    doc_shot(page, f"01_explore_{size['width']}x{size['height']}.png")


def test_a_click_on_a_point_opens_its_paper(page, lab):
    page.set_viewport_size(SIZES[1])
    room(page, SIZES[1])
    explore = page.locator(".wb-explore")
    explore.locator(".wb-onescreen").evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(800)
    opened = explore.locator(".wbc-card code").first.inner_text()
    x, y = lit_up(explore.locator(".wb-map canvas").first)
    page.mouse.click(x, y)  # the lit-up point: it alone is selected now, and its card stays open
    explore.locator(".wb-selcount", has_text=re.compile("^1 selected$")).wait_for(timeout=30_000)
    card = explore.locator(".wbc-card")
    page.wait_for_function("() => document.querySelector('.wb-explore .wbc-card')?.innerText.includes('1 of 1 selected')",
                           timeout=30_000)
    # the map picks the point nearest the click: where another paper's point overlaps the lit-up
    # one, that paper is the one selected, and its card opens in place of the other's
    saved = lab["review"] / "selection.json"  # written just after the view shows the selection
    for _ in range(50):
        clicked = json.loads(saved.read_text(encoding="utf-8"))["ids"] if saved.exists() else []
        if len(clicked) == 1:
            break
        page.wait_for_timeout(100)
    assert len(clicked) == 1 and card.locator("code").first.inner_text() == clicked[0]
    assert workbench.open_review(lab["review"]).paper(clicked[0]).title in card.locator("h3").inner_text()
    if clicked[0] != opened:
        print(f"the click selected {clicked[0]}, whose point covers the opened {opened}")

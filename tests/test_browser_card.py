"""Issue 45's screening card in a real JupyterLab and Chromium: undo, then the message; decide,
then give the reason, by key and chip and by click and Enter; the progress and stopping panel
after a change of reviewer; the card, its point on the map and the actions inside the window at
1280x800 and 1920x1080 (screenshots: docs/images/02_card_1280x800.png and _1920x1080.png with
``WORKBENCH_DOC_IMAGES=1``). One lab, one page of 02 for the module; the tests run in file
order and each reads the state it starts from. The review is in blind mode with two exclusion
reasons. Needs /usr/bin/chromium; skipped without it.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from _browser import REVIEWER, doc_shot, open_and_run_all, press_enter_in, store, title_of, view_ready

pytestmark = pytest.mark.browser

REASONS = ("wrong population", "not a study")
REASON_BOX = "reason for the paper just decided (Enter saves it)"
SIZES = ({"width": 1280, "height": 800}, {"width": 1920, "height": 1080})


@pytest.fixture(scope="module")
def page(lab, browser):
    with store(lab, reviewer="lead") as s:
        s.team.set_blind(True)
        for reason in REASONS:
            s.team.add_exclusion_reason(reason)
    page = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb")
    view_ready(page, "screen")
    page.wait_for_selector(".wb-screen .wbc-card h3", timeout=120_000)
    yield page
    page.close()


def card_id(page) -> str:
    return page.locator(".wbc-card code").first.inner_text()


def message(page, text: str, timeout: float = 60_000) -> None:
    """Wait until the card's message line says exactly ``text``."""
    expect(page.locator(".wbc-message")).to_have_text(text, timeout=timeout)


def next_card(page, pid: str) -> str:
    page.wait_for_function("id => document.querySelector('.wbc-card code')?.innerText !== id", arg=pid,
                           timeout=60_000)
    return card_id(page)


def keys(page) -> None:
    """Give the view the keys, as a user does: a click on the paper."""
    page.locator(".wbc-card h3").first.click()


def test_undo_then_the_message_says_what_it_undid_and_leaves_with_its_card(page, lab):
    pid = card_id(page)
    title = title_of(lab, pid)
    keys(page)
    page.keyboard.press("m")
    message(page, f"✓ maybe: “{title}”")
    page.keyboard.press("u")
    message(page, f"✓ undid: maybe on “{title}”")
    assert card_id(page) == pid, "undo shows the paper it touched"
    expect(page.get_by_role("button", name="maybe (m)", exact=True)).to_be_visible()  # not ticked any more
    with store(lab, reviewer=REVIEWER) as s:
        assert s.decisions.of(pid) is None
    page.keyboard.press("j")
    next_card(page, pid)
    message(page, "")  # the message belonged to the card it was said on


def test_decide_then_give_the_reason_by_key_and_chip_then_by_click_and_enter(page, lab):
    first = card_id(page)
    keys(page)
    page.keyboard.press("e")
    second = next_card(page, first)  # e moves on at once
    reasons = page.locator(".wbc-reasons")
    expect(reasons.locator(".wbc-reason-title")).to_have_text(f"“{title_of(lab, first)}”")
    reasons.get_by_role("button", name=REASONS[0]).click()
    message(page, f"✓ reason for “{title_of(lab, first)}” (exclude): {REASONS[0]}")
    assert card_id(page) == second, "the reason does not move the queue"
    with store(lab, reviewer=REVIEWER) as s:
        assert (s.decisions.of(first).decision, s.decisions.of(first).reason) == ("exclude", REASONS[0])
        assert s.decisions.of(second) is None

    page.get_by_role("button", name=re.compile(r"^exclude \(e\)$")).click()  # a click decides and moves on
    third = next_card(page, second)
    expect(reasons.locator(".wbc-reason-title")).to_have_text(f"“{title_of(lab, second)}”")
    press_enter_in(page, REASON_BOX, "adults only, jikem")  # keys typed in the box only type
    message(page, f"✓ reason for “{title_of(lab, second)}” (exclude): adults only, jikem")
    expect(page.get_by_placeholder(REASON_BOX)).to_have_value("")
    assert card_id(page) == third
    with store(lab, reviewer=REVIEWER) as s:
        assert s.decisions.of(second).reason == "adults only, jikem" and s.decisions.of(third) is None

    press_enter_in(page, "new tag(s), comma separated", "enter-tag")  # Enter in the card's other boxes
    message(page, "✓ tagged enter-tag")
    with store(lab, reviewer=REVIEWER) as s:
        assert "enter-tag" in s.tags.of(third)


def test_the_stopping_panel_follows_a_change_of_reviewer(page, lab):
    sentence = page.locator(".wbc-sentence")
    expect(sentence).to_contain_text("relevant found in 2 read")  # two exclusions by browser-user
    expect(page.locator(".wbc-chart")).to_have_attribute("aria-label", "0 relevant found in 2 papers read")
    assert page.locator(".wbc-chart > line.wbc-random").count() == 1, "the random-order line"
    press_enter_in(page, "your name (e.g. Ana)", "Zoe")
    expect(sentence).to_contain_text("Nothing read yet", timeout=60_000)  # blind: Zoe's own reading
    expect(page.locator(".wbc-chart")).to_have_attribute("aria-label", "0 relevant found in 0 papers read")
    keys(page)
    page.keyboard.press("i")
    expect(sentence).to_contain_text("1 relevant found in 1 read", timeout=60_000)
    press_enter_in(page, "your name (e.g. Ana)", REVIEWER)
    expect(sentence).to_contain_text("0 relevant found in 2 read", timeout=60_000)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_card_its_point_on_the_map_and_the_actions_fit_one_screen(page, size):
    page.set_viewport_size(size)
    page.locator(".wbc").evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(800)
    width, height = size["width"], size["height"]
    # what the user sees of the notebook: its scrolling area (below Lab's menu, tabs and toolbar)
    area = page.locator(".wbc").evaluate("""el => {
        let p = el.parentElement;
        while (p && !/(auto|scroll)/.test(getComputedStyle(p).overflowY)) p = p.parentElement;
        const r = p.getBoundingClientRect();
        return {x: r.left, y: r.top, right: r.right, bottom: Math.min(r.bottom, window.innerHeight)};
    }""")
    assert area["right"] <= width and area["bottom"] <= height

    def inside(locator, what: str) -> dict:
        box = locator.bounding_box()
        assert box is not None, f"{what} is not on the page"
        assert box["x"] >= area["x"] and box["y"] >= area["y"] - 1 and box["x"] + box["width"] <= area["right"] and \
            box["y"] + box["height"] <= area["bottom"], f"{what} at {box} is outside the notebook's view {area}"
        return box

    inside(page.locator(".wbc-card h3"), "the title")
    inside(page.locator(".wbc-byline"), "authors, year and venue")
    for name in ("include (i)", "exclude (e)", "maybe (m)", "Undo (u)", "next (j) ▶", "Add reason", "Add tag",
                 "Add note"):
        inside(page.get_by_role("button", name=re.compile(re.escape(name) + "$")).first, name)
    inside(page.locator(".wbc-reasons"), "the reason chips")
    inside(page.locator(".wbc-abstract"), "the abstract")
    inside(page.locator(".wbc-sentence"), "the stopping sentence")
    inside(page.locator(".wbc-chart"), "the progress chart")
    canvas = page.locator(".wbc-map")
    box = inside(canvas, "the map")
    x, y = float(canvas.get_attribute("data-x")), float(canvas.get_attribute("data-y"))
    scale = box["width"] / float(canvas.get_attribute("width"))
    point = {"x": box["x"] + x * scale, "y": box["y"] + y * scale}
    assert area["x"] <= point["x"] <= area["right"] and area["y"] <= point["y"] <= area["bottom"], \
        f"the ringed point at {point}"
    doc_shot(page, f"02_card_{width}x{height}.png")

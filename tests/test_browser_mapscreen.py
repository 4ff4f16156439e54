"""Issue 16 in a real JupyterLab and Chromium at 1280x800: screening from the map in 01. A
topic picked in the legend is excluded in one action after a preview of how many papers it
touches; the store then holds every one of them excluded and marked as decided in bulk, the
map (coloured by decision) turns them the exclude colour, and one Undo takes it all back, in
the store and on the map. And issue 19: a year picked in the folded "Over time" panel selects
that year's papers on the map. Needs /usr/bin/chromium; skipped without it.
"""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.space.palette import DECISION_COLOURS

from _browser import ARGS, CHROMIUM, REVIEWER, doc_shot, open_and_run_all, said, store, view_ready

pytestmark = pytest.mark.browser

TOPIC = 3


def pixels_of(canvas, colour: str) -> int:
    """How many pixels of the map are (about) ``colour``."""
    from PIL import Image

    rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    image = np.asarray(Image.open(io.BytesIO(canvas.screenshot())).convert("RGB")).astype(int)
    return int((np.abs(image - rgb).sum(axis=2) < 45).sum())


def excluded_pixels(page, canvas, until=lambda n: True, timeout: float = 60) -> int:
    """The map's pixels in the exclude colour, once ``until(count)`` holds (the map is drawn
    again after the kernel's answer; on a busy machine that takes a while) or at the timeout."""
    canvas.scroll_into_view_if_needed()
    deadline = time.time() + timeout
    while True:
        page.wait_for_timeout(1000)
        count = pixels_of(canvas, DECISION_COLOURS["exclude"])
        if until(count) or time.time() > deadline:
            return count


def test_a_topic_is_excluded_after_a_preview_the_map_recolours_and_undo_takes_it_back(lab):
    from playwright.sync_api import sync_playwright

    review = workbench.open_review(lab["review"])
    members = {pid for pid, t in zip(review.ids, review.labels) if int(t) == TOPIC}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = open_and_run_all(browser, lab, "01_explore.ipynb")
            view_ready(page, "explore")
            canvas = page.locator(".wb-map canvas").first
            canvas.scroll_into_view_if_needed()
            page.wait_for_timeout(1500)
            page.locator(".wb-legend-entry", has_text=re.compile(rf"^{TOPIC}: ")).click()
            page.get_by_text(f"{len(members)} selected", exact=True).wait_for(timeout=30_000)
            page.locator(".wb-explore .widget-toggle-buttons").first.get_by_role("button", name="decision",
                                                                                   exact=True).click()
            page.locator(".wb-legend-title", has_text="your decision").wait_for(timeout=30_000)
            assert excluded_pixels(page, canvas, lambda n: n == 0) == 0, "nothing is excluded yet"

            page.get_by_role("button", name=f"Decide topic {TOPIC} in bulk…").click()
            question = page.locator(".wb-info", has_text=f"Exclude {len(members)} papers of topic {TOPIC}: ")
            question.wait_for(timeout=30_000)
            assert "none decided yet" in question.inner_text()
            with store(lab) as s:
                assert [d for d in s.decisions.every() if d.reviewer == REVIEWER] == [], "a preview writes nothing"
            question.scroll_into_view_if_needed()
            doc_shot(page, "01_explore_bulk_preview_1280x800.png")
            page.get_by_role("button", name=f"Yes, exclude {len(members)} papers").click()
            said(page, f"exclude: {len(members)} papers of topic {TOPIC}")

            with store(lab) as s:
                records = [r for r in s.decisions.records() if r.reviewer == REVIEWER]
            assert {r.paper_id for r in records} == members
            assert all(r.decision == "exclude" and r.bulk for r in records)
            enough = 20 * len(members) // 4  # a few pixels of each point, at least
            assert excluded_pixels(page, canvas, lambda n: n > enough) > enough, "the map shows them excluded"
            legend = page.locator(".wb-legend-entry", has_text="exclude").inner_text()
            assert f"({len(members)} in bulk from the map)" in legend and legend.strip().endswith(str(len(members)))
            canvas.scroll_into_view_if_needed()
            doc_shot(page, "01_explore_bulk_done_1280x800.png")

            page.get_by_role("button", name=re.compile(r"Undo$")).click()
            said(page, "undid")
            with store(lab) as s:
                assert [d for d in s.decisions.every() if d.reviewer == REVIEWER] == []
            assert excluded_pixels(page, canvas, lambda n: n == 0) == 0, "after the undo the map shows none excluded"
        finally:
            browser.close()


def give_years(review_dir: Path) -> dict[int, int]:
    """The seeds carry no years: give the review's papers 2016-2023 in turn (as a source with
    years would), written where the review keeps its papers; returns {year: papers}."""
    review = workbench.open_review(review_dir)
    papers_file = review.files / "papers.jsonl"
    records = [json.loads(line) for line in papers_file.read_text(encoding="utf-8").splitlines()]
    for i, r in enumerate(records):
        r["year"] = 2016 + i % 8
    papers_file.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    years = [r["year"] for r in records]
    return {y: years.count(y) for y in sorted(set(years))}


def test_a_year_picked_in_the_over_time_panel_selects_its_papers_on_the_map(lab):
    from playwright.sync_api import sync_playwright

    years = give_years(lab["review"])
    review = workbench.open_review(lab["review"])
    in_2019 = review.field.ids_in_year(2019)
    assert len(in_2019) == years[2019] > 0
    topic = {pid for pid, t in zip(review.ids, review.labels) if int(t) == TOPIC}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = open_and_run_all(browser, lab, "01_explore.ipynb", workspace="years")
            view_ready(page, "explore")
            page.locator(".wb-legend-entry", has_text=re.compile(rf"^{TOPIC}: ")).click()  # a selection first
            page.get_by_text(f"{len(topic)} selected", exact=True).wait_for(timeout=30_000)
            links = page.locator(".wb-links")  # the seeds carry no references: said, and nothing to tick
            assert "no citation links in this review" in links.inner_text()
            assert page.get_by_role("checkbox", name="show citation links").is_disabled()
            page.get_by_text("Over time, venues and authors").click()  # the folded panel opens
            year = page.locator(".widget-dropdown", has_text="year").locator("select")
            year.locator("option", has_text="2019").wait_for(state="attached", timeout=60_000)
            year.select_option("2019")
            page.get_by_role("button", name="Select this year's papers").click()
            page.get_by_text(f"{len(in_2019)} selected", exact=True).wait_for(timeout=30_000)
            assert "the papers of 2019" in page.locator(".wb-explore").inner_text()
            page.get_by_text(f"Of the {len(in_2019)} selected papers").wait_for(timeout=30_000)  # the panel follows
            saved = lab["review"] / "selection.json"  # written just after the view shows the selection
            for _ in range(50):
                if json.loads(saved.read_text(encoding="utf-8"))["ids"] != sorted(topic, key=review.ids.index):
                    break
                page.wait_for_timeout(200)
            assert json.loads(saved.read_text(encoding="utf-8"))["ids"] == in_2019 and set(in_2019) != topic
        finally:
            browser.close()

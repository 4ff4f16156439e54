"""Issue 15 in a real JupyterLab and Chromium at 1280x800: screening a few papers in 02's
ranked queue. Before an include and an exclude the queue goes one paper per topic; after
them every card says its rank and why, each decision records the rank it was shown with,
and the paper shown next is the one the refitted model ranks first (read back from the store
in the test process). Needs /usr/bin/chromium; skipped without it.
"""

from __future__ import annotations

import re

import pytest

import workbench

from _browser import ARGS, CHROMIUM, REVIEWER, card_title, open_and_run_all, said, shot, store, view_ready

pytestmark = pytest.mark.browser


def shown(page) -> tuple[str, str]:
    """The id of the paper on the card, and its relevance line."""
    card = page.locator(".wb-screen .wb-card")
    return card.locator("code").first.inner_text(), card.locator(".wb-relevance").inner_text()


def decide(page, decision: str, key: str) -> str:
    pid, _ = shown(page)
    title = card_title(page)
    page.get_by_role("button", name=re.compile(rf"^(✓ )?{decision} \({key}\)$")).click()
    said(page, f"{decision}: “{title}”")
    page.wait_for_function(
        "pid => document.querySelector('.wb-screen .wb-card code')?.innerText !== pid", arg=pid, timeout=30_000)
    return pid


def test_the_ranked_queue_reorders_after_each_decision(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb")
            view_ready(page, "screen")
            page.wait_for_selector(".wb-screen .wb-relevance", timeout=60_000)
            _, before = shown(page)
            assert "one paper per topic" in before

            included = decide(page, "include", "i")
            excluded = decide(page, "exclude", "e")
            pid, line = shown(page)
            assert line.startswith("predicted relevant: high · rank 1 of "), line
            shot(page, "ranked_queue.png")
            review = workbench.open_review(lab["review"])
            assert review.screening.rank(1, reviewer=REVIEWER).ids == [pid], "the card shows the model's first paper"

            third = decide(page, "exclude", "e")  # the model learns from it: the next one is ranked anew
            pid_next, line_next = shown(page)
            assert line_next.startswith("predicted relevant: high · rank 1 of "), line_next
            assert workbench.open_review(lab["review"]).screening.rank(1, reviewer=REVIEWER).ids == [pid_next]
        finally:
            browser.close()
    with store(lab, REVIEWER) as s:
        records = [r for r in s.decisions.records() if r.reviewer == REVIEWER]
    assert [(r.paper_id, r.decision) for r in records] == [(included, "include"), (excluded, "exclude"), (third, "exclude")]
    assert records[2].rank == 1 and records[2].model and not records[2].bulk

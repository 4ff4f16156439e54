"""Issue 17 in a real JupyterLab and Chromium: two reviewers, each in a browser context of their
own and a kernel of their own (02 and a copy of it), on one blind review. Each types their name
(the review is screened as a team), both screen the same first paper differently, Ben does not
see Ana's vote until he has screened it, the conflict appears in Ben's conflicts queue with both
votes side by side, he resolves it, and the PRISMA counts (read from the test process) move the
paper from "awaiting" to "excluded". Needs /usr/bin/chromium; skipped without it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import workbench

from _browser import (ARGS, CHROMIUM, card_title, doc_shot, lab_with_review, open_and_run_all, press_enter_in, said, shot, store,
                      view_ready)

pytestmark = pytest.mark.browser

NAME_BOX = "your name (e.g. Ana)"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)")
    with lab_with_review(tmp_path_factory.mktemp("team"), "wb-team-token") as server:
        shutil.copy(server["ws"] / "notebooks" / "02_tag_and_screen.ipynb",
                    server["ws"] / "notebooks" / "02_second_reviewer.ipynb")  # a kernel of its own
        with store(server, "lead") as s:
            s.team.set_blind(True)
            s.team.set_criteria("Include: reward models, RLHF or safety alignment of language models.\n"
                           "Exclude: surveys; papers without an evaluation.")
        yield server


def screening_as(page, name: str) -> str:
    """Type ``name`` in the name box; returns the id of the paper on the card."""
    view_ready(page, "screen")
    press_enter_in(page, NAME_BOX, name)
    said(page, f"screening as {name}")
    page.wait_for_selector(f".wb-who:has-text('screening as {name}')", timeout=30_000)
    return page.locator(".wb-screen .wb-card code").first.inner_text()


def decide(page, decision: str, key: str, pid: str) -> None:
    assert page.locator(".wb-screen .wb-card code").first.inner_text() == pid
    title = card_title(page)
    page.get_by_role("button", name=re.compile(rf"^(✓ )?{decision} \({key}\)$")).click()
    said(page, f"{decision}: “{title}”")


def test_two_reviewers_conflict_and_resolution_change_prisma(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            ana = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb")  # a browser context each
            ben = open_and_run_all(browser, lab, "02_second_reviewer.ipynb")
            pid = screening_as(ana, "Ana")
            decide(ana, "include", "i", pid)
            assert screening_as(ben, "Ben") == pid, "Ana's decision neither hides the paper nor orders Ben's queue"
            assert ben.locator(".wb-screen .wb-votes").count() == 0, "blind: Ana's vote is not shown to Ben"
            decide(ben, "exclude", "e", pid)

            ben.locator(".wb-show select").select_option(label="conflicts to resolve")
            said(ben, "1 papers in the queue")
            votes = ben.locator(".wb-screen .wb-votes")
            votes.wait_for(timeout=30_000)
            assert "Ana" in votes.inner_text() and "Ben" in votes.inner_text()
            assert "1 open conflict" in ben.locator(".wb-conflicts").inner_text()
            ben.locator(".wb-screen .wb-card h3").scroll_into_view_if_needed()
            doc_shot(ben, "02_conflicts_1280x800.png")  # docs/images/ with WORKBENCH_DOC_IMAGES=1
            counts = workbench.open_review(lab["review"]).team.prisma(write=False)

            ben.locator(".wb-final select").select_option(label="exclude")
            press_enter_in(ben, "why (for an exclusion: the reason PRISMA counts)", "wrong topic", keys="Tab")
            ben.get_by_role("button", name="Resolve").click()  # (Enter in the box: tests/test_browser_follow.py)
            said(ben, "resolved “")  # the paper by its title
            assert ben.locator(".wb-ok", has_text="resolved “").first.inner_text().find(": exclude") > 0
            ben.wait_for_selector(".wb-conflicts:has-text('0 open conflicts')", timeout=30_000)
            shot(ben, "team_resolved.png")
        finally:
            browser.close()
    with store(lab, "lead") as s:
        final = s.team.final(pid)
    assert (final.decision, final.resolved_by, final.reason) == ("exclude", "Ben", "wrong topic")
    after = workbench.open_review(lab["review"]).team.prisma(write=False)
    assert after.records_excluded == counts.records_excluded + 1
    assert after.records_screened == counts.records_screened + 1
    assert after.records_awaiting == counts.records_awaiting - 1
